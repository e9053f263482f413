"""SequenceLast, SequenceReverse, UpSampling (nearest), depth_to_space, space_to_depth, diag
and moments: shapes and errors without MXNet; differential tests against MXNet 1.9.1."""
import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from ops_diff import case_id, check_both, rand

RNG = np.random.RandomState(17)


def _f(*v):
    return np.array(v, np.float32)


def test_shapes_and_outputs():
    x = mx.sym.var("x")
    assert mx.sym.moments(x, axes=(0, 2)).list_outputs() == ["moments0_output0",
                                                             "moments0_output1"]
    assert mx.sym.moments(x, axes=(1,), keepdims=True).infer_shape(x=(2, 3, 4))[1] == \
        [(2, 1, 4), (2, 1, 4)]
    assert mx.sym.SequenceLast(x, mx.sym.var("l"), use_sequence_length=True).infer_shape(
        x=(5, 3, 2))[0] == [(5, 3, 2), (3,)]
    assert mx.sym.depth_to_space(x, 2).infer_shape(x=(1, 8, 2, 3))[1] == [(1, 2, 4, 6)]
    assert mx.sym.UpSampling(x, scale=3, sample_type="nearest").infer_shape(
        x=(1, 2, 2, 5))[1] == [(1, 2, 6, 15)]


@pytest.mark.parametrize("call, err", [
    (lambda: mx.nd.moments(mx.nd.ones((2, 3))), "Empty axes"),
    (lambda: mx.nd.SequenceReverse(mx.nd.ones((2, 3)), axis=1), "axis to be 0"),
    (lambda: mx.nd.depth_to_space(mx.nd.ones((1, 6, 2, 2)), 2), "divisible"),
    (lambda: mx.nd.space_to_depth(mx.nd.ones((1, 1, 3, 4)), 2), "divisible"),
    (lambda: mx.nd.UpSampling(mx.nd.ones((1, 1, 2, 2)), scale=2, sample_type="bilinear",
                              num_filter=1), "nearest"),
    (lambda: mx.nd.UpSampling(mx.nd.ones((1, 1, 2, 2)), mx.nd.ones((1, 1, 3, 3)), scale=2,
                              sample_type="nearest", num_args=2), "cannot be scaled"),
])
def test_errors(call, err):
    with pytest.raises(MXNetError, match=err):
        call()


_X = rand(RNG, 4, 3, 2)
CASES = [
    ("SequenceLast", [_X], {}),
    ("SequenceLast", [_X, _f(1, 4, 2)], dict(use_sequence_length=True)),
    ("SequenceLast", [rand(RNG, 3, 4, 2), _f(1, 4, 2)], dict(use_sequence_length=True, axis=1)),
    ("SequenceReverse", [_X], {}),
    ("SequenceReverse", [_X, _f(1, 4, 2)], dict(use_sequence_length=True)),
    ("SequenceReverse", [rand(RNG, 5, 2), _f(3, 5)], dict(use_sequence_length=True)),
    ("UpSampling", [rand(RNG, 1, 2, 2, 3)], dict(scale=2, sample_type="nearest")),
    ("UpSampling", [rand(RNG, 2, 1, 2, 2), rand(RNG, 2, 3, 4, 4)],
     dict(scale=2, sample_type="nearest", num_args=2)),
    ("UpSampling", [rand(RNG, 2, 3, 2, 2), rand(RNG, 2, 3, 4, 4)],
     dict(scale=2, sample_type="nearest", num_args=2, multi_input_mode="sum")),
    ("depth_to_space", [rand(RNG, 2, 8, 2, 3)], dict(block_size=2)),
    ("space_to_depth", [rand(RNG, 2, 2, 4, 6)], dict(block_size=2)),
    ("depth_to_space", [rand(RNG, 1, 18, 2, 2)], dict(block_size=3)),
    ("diag", [rand(RNG, 2, 3, 4)], dict(k=1, axis1=2, axis2=0)),
    ("diag", [rand(RNG, 3, 4)], {}),
    ("diag", [rand(RNG, 3, 4)], dict(k=-2)),
    ("diag", [rand(RNG, 3)], dict(k=-1)),
    ("moments", [rand(RNG, 2, 3, 4)], dict(axes=(0, 2))),
    ("moments", [rand(RNG, 2, 3, 4)], dict(axes=(1,), keepdims=True)),
    ("moments", [rand(RNG, 2, 3, 4)], dict(axes=(-1, 0, 1))),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)
