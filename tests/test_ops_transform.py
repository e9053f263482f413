"""clip, Cast/cast, broadcast_to/like/axis, tile, repeat, reverse/flip, SwapAxis/swapaxes,
reshape_like, Pad, smooth_l1, contrib.arange_like and contrib.div_sqrt_dim: shape inference and
errors without MXNet; differential tests against real MXNet 1.9.1 (eager and graph)."""

import itertools

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from mxnet_record import reference
from ops_diff import case_id, check_both, rand

RNG = np.random.RandomState(9)

# ----------------------------------------------------------------------------- engine-only


@pytest.mark.parametrize(
    "sym, shapes, out",
    [
        (lambda x, y: mx.sym.broadcast_to(x, shape=(0, 3, 4)), {"x": (2, 1, 4)}, (2, 3, 4)),
        (
            lambda x, y: mx.sym.broadcast_like(x, y, lhs_axes=(1,), rhs_axes=(0,)),
            {"x": (2, 1), "y": (3, 4, 5)},
            (2, 3),
        ),
        (
            lambda x, y: mx.sym.broadcast_axes(x, axis=(0, 2), size=(3, 4)),
            {"x": (1, 2, 1)},
            (3, 2, 4),
        ),
        (lambda x, y: mx.sym.tile(x, reps=(2, 1, 2)), {"x": (2, 3)}, (2, 2, 6)),
        (lambda x, y: mx.sym.repeat(x, repeats=2), {"x": (2, 3)}, (12,)),
        (lambda x, y: mx.sym.swapaxes(x, dim1=0, dim2=-1), {"x": (2, 3, 4)}, (4, 3, 2)),
        (
            lambda x, y: mx.sym.reshape_like(x, y, lhs_begin=1, rhs_begin=1),
            {"x": (2, 3, 4), "y": (7, 12)},
            (2, 12),
        ),
        (lambda x, y: mx.sym.contrib.arange_like(x, axis=-1), {"x": (2, 5)}, (5,)),
        (
            lambda x, y: mx.sym.pad(x, mode="edge", pad_width=(0, 0, 0, 0, 1, 2, 3, 4)),
            {"x": (1, 2, 3, 4)},
            (1, 2, 6, 11),
        ),
    ],
)
def test_shapes(sym, shapes, out):
    s = sym(mx.sym.var("x"), mx.sym.var("y"))
    assert s.infer_shape(**shapes)[1] == [out]


def test_cast_dtype_inference_and_aliases():
    s = mx.sym.Cast(mx.sym.var("x"), dtype="int32")
    assert s.infer_type(x=np.float32)[1] == [np.int32]
    assert mx.sym.cast(mx.sym.var("x"), dtype="float16").infer_type(x=np.float32)[1] == [np.float16]
    assert mx.nd.cast(mx.nd.array([1.7, -1.7]), dtype="int32").asnumpy().tolist() == [1, -1]


def test_contrib_arange_like_resolves_on_both_namespaces():
    assert callable(mx.nd.contrib.arange_like) and callable(mx.sym.contrib.arange_like)
    x = mx.nd.zeros((2, 3))
    assert mx.nd.contrib.arange_like(x, start=1, repeat=2).asnumpy().tolist() == [
        [1, 1, 2],
        [2, 3, 3],
    ]
    op = mx.nd.CachedOp(mx.sym.contrib.arange_like(mx.sym.var("x"), axis=0) + 1)
    assert op(x).asnumpy().tolist() == [1, 2]


@pytest.mark.parametrize(
    "call, err",
    [
        (lambda: mx.nd.broadcast_to(mx.nd.ones((2, 1)), shape=(2, 2, 3)), "cannot be broadcast"),
        (lambda: mx.nd.broadcast_to(mx.nd.ones((2, 2)), shape=(2, 3)), "cannot be broadcast"),
        (
            lambda: mx.nd.broadcast_like(mx.nd.ones((1, 1)), mx.nd.ones((3, 2, 5))),
            "cannot be broadcast",
        ),
        (lambda: mx.nd.broadcast_axis(mx.nd.ones((1, 2)), axis=-1, size=3), "negative"),
        (lambda: mx.nd.broadcast_axis(mx.nd.ones((1, 2)), axis=1, size=3), "size-1"),
        (lambda: mx.nd.reverse(mx.nd.ones((2, 2)), axis=-1), "negative"),
        (
            lambda: mx.nd.reshape_like(
                mx.nd.ones((2, 3, 4)), mx.nd.ones((6, 2, 2)), lhs_begin=1, rhs_begin=1
            ),
            "different size",
        ),
        (lambda: mx.nd.pad(mx.nd.ones((2, 3)), mode="edge", pad_width=(0, 0, 1, 1)), "4-D"),
        (lambda: mx.nd.Cast(mx.nd.ones((2,)), dtype="complex64"), "dtype"),
    ],
)
def test_errors(call, err):
    with pytest.raises(MXNetError, match=err):
        call()


def test_tile_beyond_five_broadcast_runs_fails_like_mxnet():
    """MXNet tiles by broadcasting (1, d0, 1, d1, ...) to (r0, d0, r1, d1, ...), and its
    broadcast kernels take at most 5 merged runs of axes."""
    with pytest.raises(MXNetError, match="Too many reduction axes"):
        mx.nd.tile(mx.nd.ones((2, 2, 2)), reps=(2, 2, 2))
    assert mx.nd.tile(mx.nd.ones((2, 2, 2)), reps=(2, 1, 2)).shape == (4, 2, 4)


def test_clip_runs_in_place_in_a_graph():
    x = mx.sym.var("x")
    op = mx.nd.CachedOp(mx.sym.clip(x * 2, a_min=-1, a_max=1))
    data = mx.nd.array(rand(RNG, 4, 5))
    np.testing.assert_array_equal(op(data).asnumpy(), np.clip(data.asnumpy() * 2, -1, 1))


# ----------------------------------------------------------------------------- differential


_A = rand(RNG, 2, 3, 4)
CASES = [
    ("clip", [_A], dict(a_min=-0.5, a_max=0.7)),
    ("clip", [np.array([1, 5, 9], np.int32)], dict(a_min=2.5, a_max=7.5)),
]
for _dt in ("float16", "float64", "int32", "int64", "int8", "uint8", "bool"):
    CASES.append(("cast", [np.array([1.7, -1.7, 300, 0.2, -129.5], np.float32)], dict(dtype=_dt)))
    CASES.append(("Cast", [np.array([1, -1, 300, 0], np.int32)], dict(dtype=_dt)))
CASES += [
    ("broadcast_to", [rand(RNG, 2, 1, 4)], dict(shape=(0, 3, 4))),
    ("broadcast_to", [rand(RNG, 1, 1)], dict(shape=(3, 5))),
    ("broadcast_like", [rand(RNG, 2, 1), rand(RNG, 3, 4, 5)], dict(lhs_axes=(1,), rhs_axes=(0,))),
    ("broadcast_like", [rand(RNG, 2, 1), rand(RNG, 2, 5)], {}),
    (
        "broadcast_like",
        [rand(RNG, 1, 3, 1), rand(RNG, 4, 3, 2)],
        dict(lhs_axes=(0, -1), rhs_axes=(-3, 2)),
    ),
    ("broadcast_axis", [rand(RNG, 1, 2, 1)], dict(axis=(0, 2), size=(3, 4))),
    ("broadcast_axes", [rand(RNG, 1, 2, 1)], dict(axis=2, size=4)),
    ("reverse", [_A], dict(axis=(0, 2))),
    ("flip", [_A], dict(axis=1)),
    ("SwapAxis", [_A], dict(dim1=0, dim2=-1)),
    ("swapaxes", [_A], dict(dim1=2)),
    ("swapaxes", [_A], {}),
    ("reshape_like", [_A, rand(RNG, 5, 12)], dict(lhs_begin=1, lhs_end=3, rhs_begin=1)),
    ("reshape_like", [_A, rand(RNG, 6, 4)], {}),
    ("reshape_like", [_A, rand(RNG, 12, 1, 7)], dict(lhs_begin=-2, rhs_end=-1)),
    ("reshape_like", [rand(RNG, 2, 12), rand(RNG, 3, 4)], dict(lhs_begin=1, rhs_begin=0)),
    (
        "pad",
        [rand(RNG, 1, 2, 3, 4, 3)],
        dict(mode="edge", pad_width=(0, 0, 0, 0, 1, 2, 2, 1, 1, 1)),
    ),
    ("smooth_l1", [rand(RNG, 3, 4)], dict(scalar=2.0)),
    ("smooth_l1", [rand(RNG, 3, 4)], dict(scalar=0.7)),
    # scalar defaults to 1.0, as in MXNet; a fixed input (no draw from RNG: the cases after it,
    # which other modules' recordings replay, keep their inputs)
    ("smooth_l1", [np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)], {}),
    ("_contrib_div_sqrt_dim", [rand(RNG, 2, 5)], {}),
    ("_contrib_div_sqrt_dim", [rand(RNG, 2, 3, 16)], {}),
]
CASES += [
    ("amp_cast", [rand(RNG, 3, 4)], dict(dtype="float16")),
    ("amp_cast", [np.array([1, -2, 3], np.int32)], dict(dtype="float16")),
    ("amp_cast", [rand(RNG, 3, 4).astype(np.float16)], dict(dtype="float32")),
]


def test_amp_multicast():
    """(Real MXNet 1.9.1's oneDNN build fails reading amp_multicast's float16 outputs, "unknown
    type for MKLDNN", so this is engine-only; the dtypes were checked against MXNet.)"""
    a, b = rand(RNG, 2, 3).astype(np.float16), rand(RNG, 2, 3)
    wide = mx.nd.amp_multicast(mx.nd.array(a, dtype="float16"), mx.nd.array(b), num_outputs=2)
    assert [o.dtype for o in wide] == [np.float32, np.float32]
    np.testing.assert_array_equal(wide[0].asnumpy(), a.astype(np.float32))
    narrow = mx.nd.amp_multicast(
        mx.nd.array(a, dtype="float16"), mx.nd.array(b), num_outputs=2, cast_narrow=True
    )
    assert [o.dtype for o in narrow] == [np.float16, np.float16]
    s = mx.sym.amp_multicast(mx.sym.var("a"), mx.sym.var("b"), num_outputs=2)
    assert s.infer_type(a=np.float16, b=np.float32)[1] == [np.float32, np.float32]


for _r in [(2,), (2, 1, 2), (1, 3), (3, 1, 1)]:
    CASES.append(("tile", [_A], dict(reps=_r)))
for _ax in (None, 0, -1):
    CASES.append(("repeat", [_A], dict(repeats=3) if _ax is None else dict(repeats=2, axis=_ax)))
for _m in ("constant", "edge", "reflect"):
    CASES.append(
        (
            "pad",
            [rand(RNG, 1, 2, 3, 4)],
            dict(mode=_m, pad_width=(0, 0, 0, 0, 1, 2, 2, 1), constant_value=1.5),
        )
    )
for _kw, _dt in itertools.product(
    [
        {},
        dict(start=1, step=0.5, repeat=2),
        dict(axis=-1, repeat=2),
        dict(axis=0, start=3),
        dict(start=-1.7, step=2.5),
    ],
    (np.float32, np.int32),
):
    CASES.append(("_contrib_arange_like", [np.zeros((2, 3), _dt)], _kw))


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)


@pytest.mark.mxnet
@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nd.split_v2(lib.nd.array(np.arange(20.0).reshape(4, 5)), (1, 3), axis=1),
        lambda lib: lib.nd.array(np.arange(20.0).reshape(4, 5)).split_v2(2, axis=0),
        lambda lib: lib.nd.split_v2(
            lib.nd.array(np.arange(20.0).reshape(4, 5)), 4, squeeze_axis=True
        ),
        lambda lib: lib.nd.split_v2(lib.nd.array(np.arange(24.0).reshape(2, 3, 4)), (1,), axis=-1),
        lambda lib: lib.nd.eye(3, 4, 1, dtype="int32"),
        lambda lib: lib.nd.eye(4, k=-1),
        lambda lib: lib.nd.linspace(0, 1, 5, endpoint=False),
        lambda lib: lib.nd.linspace(2, 3, 5, dtype="float64"),
    ],
)
def test_python_wrapped_ops_match_mxnet(call):
    want, got = reference(call, call), call(mx)
    want = want if isinstance(want, list) else [want]
    got = got if isinstance(got, list) else [got]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6)


def test_python_wrapped_ops_as_symbols():
    x = mx.sym.var("x")
    s = mx.sym.split_v2(x, (1, 3), axis=1)
    assert s.list_outputs() == ["_split_v20_output0", "_split_v20_output1", "_split_v20_output2"]
    assert s.infer_shape(x=(4, 5))[1] == [(4, 1), (4, 2), (4, 2)]
    assert mx.sym.eye(3).infer_shape()[1] == [(3, 3)]
    with pytest.raises(MXNetError, match="sections"):
        mx.nd.split_v2(mx.nd.ones((5, 2)), 2)
    with pytest.raises(ValueError, match="indices_or_sections"):
        mx.nd.split_v2(mx.nd.ones((5, 2)), [1, 2])


_ALIAS_CALLS = {
    "reshape": lambda lib, x: lib.nd.reshape(x, (-1,)),
    "reshape_like": lambda lib, x: lib.nd.reshape_like(x, lib.nd.ones((6,))),
    "expand_dims": lambda lib, x: lib.nd.expand_dims(x, 0),
    "flatten": lambda lib, x: lib.nd.flatten(x),
    "transpose": lambda lib, x: lib.nd.transpose(x),
    "squeeze": lambda lib, x: lib.nd.squeeze(x),
    "split": lambda lib, x: lib.nd.split(x, 2, axis=0)[0],
    "Dropout": lambda lib, x: lib.nd.Dropout(x),
    "swapaxes": lambda lib, x: lib.nd.swapaxes(x, 0, 1),
    "x.flatten()": lambda lib, x: x.flatten(),
    "x.split()": lambda lib, x: x.split(2, axis=0)[0],
    "x.reshape() (aliases in MXNet)": lambda lib, x: x.reshape((-1,)),
    "x[0] (aliases in MXNet)": lambda lib, x: x[0],
}


def _aliases(lib, call):
    x = lib.nd.ones((2, 3))
    y = call(lib, x)
    y += 1
    return bool(x.asnumpy()[0, 0] != 1)


@pytest.mark.mxnet
@pytest.mark.parametrize("name", sorted(_ALIAS_CALLS))
def test_eager_results_alias_their_input_exactly_when_mxnet_does(name):
    """In-place arithmetic (HL004's pattern) on an op's eager result reaches the input only
    where it does in MXNet: NDArray.reshape and indexing, not the reshape-like ops."""
    call = _ALIAS_CALLS[name]
    assert _aliases(mx, call) == reference(lambda m: _aliases(m, call), (name, call), name)


def test_view_ops_return_new_arrays_eagerly():
    for name in (
        "reshape",
        "expand_dims",
        "flatten",
        "transpose",
        "squeeze",
        "split",
        "reshape_like",
        "Dropout",
    ):
        assert not _aliases(mx, _ALIAS_CALLS[name]), name
