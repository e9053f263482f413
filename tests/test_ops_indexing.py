"""take, batch_take, pick, where, gather_nd, one_hot, Embedding, SequenceMask, sort, argsort,
topk: shape/dtype inference (Embedding's weight filled backward) and errors without MXNet;
differential tests against real MXNet 1.9.1 over modes, axes and index edge cases."""

import itertools

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from ops_diff import case_id, check_both, engine_shapes, rand

RNG = np.random.RandomState(5)


def _f(*v):
    return np.array(v, np.float32)


# ----------------------------------------------------------------------------- engine-only


def test_embedding_fills_weight_and_output_shape():
    sym, (args, outs, _) = engine_shapes("Embedding", {"data": (4, 7)}, input_dim=10, output_dim=3)
    assert sym.list_arguments() == ["data", "embedding0_weight"]
    assert args == [(4, 7), (10, 3)]
    assert outs == [(4, 7, 3)]
    with pytest.raises(MXNetError, match="Shape inconsistent"):
        mx.nd.Embedding(mx.nd.zeros((2,)), mx.nd.zeros((3, 4)), input_dim=3, output_dim=5)


def test_index_output_dtypes():
    x = mx.nd.array(rand(RNG, 3, 4))
    assert mx.nd.argsort(x).dtype == np.float32
    assert mx.nd.argsort(x, dtype="int32").dtype == np.int32
    assert mx.nd.topk(x, k=2).dtype == np.float32
    v, i = mx.nd.topk(x, k=2, ret_typ="both", dtype="int64")
    assert v.dtype == np.float32 and i.dtype == np.int64
    assert mx.nd.one_hot(mx.nd.array([1, 2]), 3, dtype="int32").dtype == np.int32
    sym = mx.sym.topk(mx.sym.var("x"), k=2, ret_typ="both")
    assert sym.list_outputs() == ["topk0_output0", "topk0_output1"]
    assert sym.infer_type(x=np.float32)[1] == [np.float32, np.float32]


@pytest.mark.parametrize(
    "call, err",
    [
        (lambda: mx.nd.pick(mx.nd.ones((3, 4)), mx.nd.ones((3,)), axis=None), "axis=None"),
        (lambda: mx.nd.pick(mx.nd.ones((3, 4)), mx.nd.ones((4,))), "index has shape"),
        (lambda: mx.nd.take(mx.nd.ones((3, 4)), mx.nd.array([3]), mode="raise"), "out of bound"),
        (
            lambda: mx.nd.where(mx.nd.ones((2,)), mx.nd.ones((3, 4)), mx.nd.ones((3, 4))),
            "condition",
        ),
        (lambda: mx.nd.where(mx.nd.ones((3, 4)), mx.nd.ones((3, 4)), mx.nd.ones((4, 3))), "same"),
        (lambda: mx.nd.gather_nd(mx.nd.ones((3, 4)), mx.nd.array([[5], [0]])), "out of bounds"),
        (lambda: mx.nd.topk(mx.nd.ones((3, 4)), k=5), "k must be smaller"),
        (
            lambda: mx.nd.SequenceMask(
                mx.nd.ones((5, 3)), mx.nd.ones((4,)), use_sequence_length=True
            ),
            "sequence_length",
        ),
        (lambda: mx.nd.batch_take(mx.nd.ones((3, 4)), mx.nd.array([0, 1, 2])), "int32"),
    ],
)
def test_index_errors(call, err):
    with pytest.raises(MXNetError, match=err):
        call()


def test_sequence_mask_symbol_inputs():
    sym = mx.sym.SequenceMask(mx.sym.var("d"), mx.sym.var("l"), use_sequence_length=True, axis=1)
    assert sym.list_arguments() == ["d", "l"]
    assert sym.infer_shape(d=(3, 5, 2))[0] == [(3, 5, 2), (3,)]


# ----------------------------------------------------------------------------- differential


CASES = []
_A = rand(RNG, 3, 4, 5)
for _mode, _ax in itertools.product(("clip", "wrap"), (0, 1, -1)):
    CASES.append(
        ("take", [_A, np.array([[-1, 5], [2.7, 1]], np.float32)], dict(axis=_ax, mode=_mode))
    )
    _shape = [(4, 5), (3, 5), (3, 4)][_ax]
    CASES.append(
        (
            "pick",
            [_A, RNG.randint(-2, 7, size=_shape).astype(np.float32)],
            dict(axis=_ax, mode=_mode),
        )
    )
    _kshape = tuple(1 if i == _ax % 3 else d for i, d in enumerate(_A.shape))
    CASES.append(
        (
            "pick",
            [_A, RNG.randint(-2, 7, size=_kshape).astype(np.float32)],
            dict(axis=_ax, mode=_mode, keepdims=True),
        )
    )
CASES += [
    ("take", [_A, _f(0, 2, 1)], dict(mode="raise")),
    ("take", [rand(RNG, 5), np.array([[0, 4], [3, 3]], np.int32)], {}),
    ("batch_take", [rand(RNG, 3, 4), np.array([0, 3, 2], np.int32)], {}),
    ("where", [(RNG.rand(3, 4) > 0.5).astype(np.float32), rand(RNG, 3, 4), rand(RNG, 3, 4)], {}),
    ("where", [_f(1, 0, 1), rand(RNG, 3, 4), rand(RNG, 3, 4)], {}),
    ("where", [np.array([0, 2], np.int32), rand(RNG, 2, 3, 2), rand(RNG, 2, 3, 2)], {}),
    ("gather_nd", [_A, np.array([[-1, 2], [0, 1]], np.float32)], {}),
    ("gather_nd", [_A, np.array([[0, 2, 1], [0, 1, 3], [4, 4, 0]], np.float32)], {}),
    ("gather_nd", [_A, np.array([[[0, 2], [1, 1]]], np.int32)], {}),
    ("one_hot", [_f(1, -1, 5, 2.6)], dict(depth=4)),
    (
        "one_hot",
        [np.array([[1, 3], [0, 2]], np.int32)],
        dict(depth=5, on_value=2.5, off_value=-1, dtype="int32"),
    ),
    ("Embedding", [_f(-1, 5, 1.7), rand(RNG, 3, 4)], dict(input_dim=3, output_dim=4)),
    (
        "Embedding",
        [np.array([[0, 2], [1, 1]], np.int32), rand(RNG, 3, 4)],
        dict(input_dim=3, output_dim=4),
    ),
    ("SequenceMask", [rand(RNG, 5, 3, 2)], {}),
    ("SequenceMask", [rand(RNG, 5, 3, 2), _f(1, 5, 3)], dict(use_sequence_length=True, value=-1)),
    ("SequenceMask", [rand(RNG, 3, 5, 2), _f(1, 5, 3)], dict(use_sequence_length=True, axis=1)),
    (
        "SequenceMask",
        [rand(RNG, 3, 5), _f(0, 4, 2)],
        dict(use_sequence_length=True, axis=1, value=7),
    ),
]
for _ax, _asc in itertools.product((None, 0, -1, 1), (True, False)):
    kw = dict(is_ascend=_asc)
    if _ax != -1:
        kw["axis"] = _ax
    CASES += [("sort", [_A], kw), ("argsort", [_A], kw), ("argsort", [_A], dict(kw, dtype="int32"))]
    for _rt, _k in itertools.product(("value", "indices", "both", "mask"), (1, 2, 0)):
        CASES.append(("topk", [_A], dict(kw, ret_typ=_rt, k=_k)))
CASES.append(("topk", [_A], dict(k=2, dtype="int64")))


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)


def test_runtime_kernel_errors_in_a_hybridized_graph_are_mxnet_errors():
    op = mx.nd.CachedOp(mx.sym.take(mx.sym.var("a"), mx.sym.var("i"), mode="raise"))
    with pytest.raises(MXNetError, match="out of bound"):
        op(mx.nd.ones((3, 2)), mx.nd.array([5]))
