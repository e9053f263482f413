"""SequenceLast, SequenceReverse, UpSampling (nearest), depth_to_space, space_to_depth, diag,
moments, gamma/gammaln, erfinv, cumsum, linalg_gemm/gemm2, scatter_nd,
ravel_multi_index/unravel_index: shapes and errors without MXNet; differential tests against
MXNet 1.9.1."""

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
    with mx.name.NameManager():  # a fresh counter: other tests in this worker made moments too
        names = mx.sym.moments(x, axes=(0, 2)).list_outputs()
    assert names == ["moments0_output0", "moments0_output1"]
    assert mx.sym.moments(x, axes=(1,), keepdims=True).infer_shape(x=(2, 3, 4))[1] == [
        (2, 1, 4),
        (2, 1, 4),
    ]
    assert mx.sym.SequenceLast(x, mx.sym.var("l"), use_sequence_length=True).infer_shape(
        x=(5, 3, 2)
    )[0] == [(5, 3, 2), (3,)]
    assert mx.sym.depth_to_space(x, 2).infer_shape(x=(1, 8, 2, 3))[1] == [(1, 2, 4, 6)]
    assert mx.sym.UpSampling(x, scale=3, sample_type="nearest").infer_shape(x=(1, 2, 2, 5))[1] == [
        (1, 2, 6, 15)
    ]


@pytest.mark.parametrize(
    "call, err",
    [
        (lambda: mx.nd.moments(mx.nd.ones((2, 3))), "Empty axes"),
        (lambda: mx.nd.cumsum(mx.nd.ones((2, 3)), axis=-1), "negative axes"),
        (lambda: mx.nd.SequenceReverse(mx.nd.ones((2, 3)), axis=1), "axis to be 0"),
        (lambda: mx.nd.depth_to_space(mx.nd.ones((1, 6, 2, 2)), 2), "divisible"),
        (lambda: mx.nd.space_to_depth(mx.nd.ones((1, 1, 3, 4)), 2), "divisible"),
        (
            lambda: mx.nd.UpSampling(
                mx.nd.ones((1, 1, 2, 2)), scale=2, sample_type="bilinear", num_filter=1
            ),
            "nearest",
        ),
        (
            lambda: mx.nd.UpSampling(
                mx.nd.ones((1, 1, 2, 2)),
                mx.nd.ones((1, 1, 3, 3)),
                scale=2,
                sample_type="nearest",
                num_args=2,
            ),
            "cannot be scaled",
        ),
    ],
)
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
    (
        "UpSampling",
        [rand(RNG, 2, 1, 2, 2), rand(RNG, 2, 3, 4, 4)],
        dict(scale=2, sample_type="nearest", num_args=2),
    ),
    (
        "UpSampling",
        [rand(RNG, 2, 3, 2, 2), rand(RNG, 2, 3, 4, 4)],
        dict(scale=2, sample_type="nearest", num_args=2, multi_input_mode="sum"),
    ),
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

CASES += [
    ("gamma", [np.array([0.5, 1.5, 3.2, -0.5, 7.0], np.float32)], {}),
    ("gammaln", [np.array([0.5, 1.5, 3.2, 10.0, 0.1], np.float32)], {}),
    ("linalg_gemm2", [rand(RNG, 2, 3, 4), rand(RNG, 2, 5, 4)], dict(transpose_b=True, alpha=2.0)),
    ("linalg_gemm2", [rand(RNG, 3, 2, 4), rand(RNG, 4, 2, 5)], dict(axis=-3)),
    ("linalg_gemm2", [rand(RNG, 4, 3), rand(RNG, 4, 5)], dict(transpose_a=True)),
    (
        "linalg_gemm",
        [rand(RNG, 2, 3, 4), rand(RNG, 2, 4, 5), rand(RNG, 2, 3, 5)],
        dict(alpha=0.5, beta=2.0),
    ),
    (
        "linalg_gemm",
        [rand(RNG, 3, 2, 4), rand(RNG, 4, 2, 5), rand(RNG, 3, 2, 5)],
        dict(axis=-3, beta=0.0),
    ),
    ("scatter_nd", [_f(1, 2, 3), np.array([[0, 1, 1], [1, 0, 1]], np.float32)], dict(shape=(2, 2))),
    ("scatter_nd", [rand(RNG, 2, 4), np.array([[0, 2]], np.float32)], dict(shape=(3, 4))),
    ("ravel_multi_index", [np.array([[0, 1, 2], [1, 0, 3]], np.float32)], dict(shape=(3, 4))),
    ("unravel_index", [_f(1, 7, 11)], dict(shape=(3, 4))),
    ("erfinv", [_f(-1, -0.5, 0, 0.3, 0.999, 1, 1.5, -0.9999, 1e-6)], {}),
    ("erfinv", [rand(RNG, 50, low=-0.999, high=0.999)], {}),
    ("Crop", [rand(RNG, 1, 2, 5, 6)], dict(num_args=1, h_w=(2, 3), offset=(1, 2))),
    ("Crop", [rand(RNG, 1, 2, 5, 6), rand(RNG, 1, 1, 3, 4)], dict(num_args=2)),
    ("Crop", [rand(RNG, 1, 2, 5, 6), rand(RNG, 1, 1, 2, 3)], dict(num_args=2, center_crop=True)),
    ("cumsum", [rand(RNG, 2, 3)], {}),
    ("cumsum", [rand(RNG, 2, 3)], dict(axis=1)),
    ("cumsum", [rand(RNG, 2, 3, 2)], dict(axis=2)),
    ("cumsum", [np.array([1, 2, 3], np.int32)], dict(dtype="float64")),
]


def test_gemm_shapes_and_errors():
    s = mx.sym.linalg_gemm2(mx.sym.var("a"), mx.sym.var("b"), axis=-3)
    assert s.infer_shape(a=(3, 2, 4), b=(4, 2, 5))[1] == [(3, 2, 5)]
    with pytest.raises(MXNetError, match="incompatible"):
        mx.nd.linalg_gemm2(mx.nd.ones((2, 3)), mx.nd.ones((4, 5)))
    with pytest.raises(MXNetError, match="4-D"):
        mx.nd.LRN(mx.nd.ones((2, 3, 4)), nsize=3)


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)


def test_linalg_namespace_on_nd_sym_and_F():
    a, b = rand(RNG, 2, 3, 4), rand(RNG, 2, 5, 4)
    got = mx.nd.linalg.gemm2(mx.nd.array(a), mx.nd.array(b), transpose_b=True).asnumpy()
    np.testing.assert_allclose(got, a @ b.transpose(0, 2, 1), rtol=1e-5)
    with mx.name.NameManager():
        assert mx.sym.linalg.gemm2(mx.sym.var("a"), mx.sym.var("b")).name == "gemm20"
        assert mx.sym.linalg_gemm2(mx.sym.var("a"), mx.sym.var("b")).name == "linalg_gemm20"

    class Att(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, q, k):
            return F.linalg.gemm2(q, k, transpose_b=True)

    net = Att()
    eager = net(mx.nd.array(a), mx.nd.array(b)).asnumpy()
    net.hybridize()
    np.testing.assert_allclose(net(mx.nd.array(a), mx.nd.array(b)).asnumpy(), eager, rtol=1e-6)
