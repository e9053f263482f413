"""A hybridized block whose outputs use none of its inputs or parameters (a graph of
constants: `F.zeros((3, 4)) + 1`, `F.eye(n)`, `F.arange(5)`) fails in MXNet 1.9.1 when its
CachedOp is built ("There are no inputs in computation graph that require gradients"); the
same block works eagerly. The engine must fail alike, so that `--verify` never proves a
rewrite that returns a constant, and keep working where one input is used."""

import pytest

import hybridlint.engine as engine
from engine_blocks import eager_and_hybridized
from mxnet_record import reference

BODIES = (
    "F.zeros((3, 4)) + 1",
    "F.eye(3, 4, k=1) + F.zeros((3, 4))",
    "F.arange(5) * 1",
    "F.linspace(0, 1, 4) * 2",
    "F.eye(4) + F.slice_axis(x.reshape((6, 4)), axis=0, begin=0, end=4)",
    "F.linspace(0, 1, 4) + F.slice_axis(x.reshape((6, 4)), axis=0, begin=0, end=1).reshape((4,))",
)


def _outcomes(mx):
    return [
        eager_and_hybridized(mx, body, "x", [mx.nd.ones((2, 3, 4))], lambda out: list(out.shape))
        for body in BODIES
    ]


@pytest.mark.mxnet
def test_a_hybridized_graph_of_constants_fails_as_in_mxnet():
    want = reference(_outcomes, ("constant graphs", BODIES))
    assert _outcomes(engine) == want
    assert want[0] == [[3, 4], "MXNetError"] and want[-1] == [[4], [4]]
