"""A hybridized block whose outputs use none of its inputs or parameters (a graph of
constants: `F.zeros((3, 4)) + 1`, `F.eye(n)`, `F.arange(5)`) fails in MXNet 1.9.1 when its
CachedOp is built ("There are no inputs in computation graph that require gradients"); the
same block works eagerly. The engine must fail alike, so that `--verify` never proves a
rewrite that returns a constant, and keep working where one input is used."""

import warnings

import pytest

import hybridlint.engine as engine
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
    found = []
    for body in BODIES:
        namespace = {}
        exec("def hybrid_forward(self, F, x):\n    return " + body + "\n", namespace)  # noqa: S102
        block_class = type("Block", (mx.gluon.HybridBlock,), namespace)
        row = []
        for hybridized in (False, True):
            block = block_class()
            if hybridized:
                block.hybridize()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    row.append(list(block(mx.nd.ones((2, 3, 4))).shape))
            except Exception as err:  # noqa: BLE001 - the kind of failure is compared
                row.append(type(err).__name__)
        found.append(row)
    return found


@pytest.mark.mxnet
def test_a_hybridized_graph_of_constants_fails_as_in_mxnet():
    want = reference(_outcomes, ("constant graphs", BODIES))
    assert _outcomes(engine) == want
    assert want[0] == [[3, 4], "MXNetError"] and want[-1] == [[4], [4]]
