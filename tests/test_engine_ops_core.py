"""Differential tests: the engine's core ops against real MXNet 1.9.1, eagerly (mx.nd) and
through a compiled graph (mx.sym + CachedOp), plus engine-only checks of MXNet behaviour
recorded from real MXNet."""

import numpy as np
import pytest

import hybridlint.engine as mx
from mxnet_record import reference

RNG = np.random.RandomState(42)


@pytest.fixture(autouse=True)
def _fresh_names():
    """Auto-named nodes (relu0, convolution0 ...) of these tests never shift the global
    counters other test modules may rely on."""
    with mx.name.NameManager():
        yield


def _rand(*shape, low=-2.0, high=2.0, dtype=np.float32):
    return RNG.uniform(low, high, size=shape).astype(dtype)


# (op name, list of input arrays, kwargs)
UNARY_POSITIVE = {"log", "sqrt", "rsqrt", "log2", "log10", "rcbrt", "arccosh", "log1p"}
UNARY_UNIT = {"arcsin", "arccos", "arctanh"}
UNARY = [
    "relu",
    "sigmoid",
    "tanh",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "cbrt",
    "rcbrt",
    "abs",
    "square",
    "negative",
    "reciprocal",
    "sign",
    "floor",
    "ceil",
    "round",
    "rint",
    "fix",
    "trunc",
    "erf",
    "softsign",
    "log1p",
    "expm1",
    "log2",
    "log10",
    "sin",
    "cos",
    "tan",
    "arcsin",
    "arccos",
    "arctan",
    "sinh",
    "cosh",
    "arcsinh",
    "arccosh",
    "arctanh",
    "degrees",
    "radians",
    "logical_not",
]


def _unary_input(name):
    if name in UNARY_POSITIVE:
        return _rand(3, 4, low=1.1, high=3.0)
    if name in UNARY_UNIT:
        return _rand(3, 4, low=-0.9, high=0.9)
    if name in ("round", "rint"):
        return np.array(
            [[-2.5, -1.5, -0.5, 0.5], [1.5, 2.5, 0.49, -0.51], [3.7, -3.2, 0, 1]], np.float32
        )
    return _rand(3, 4)


CASES = [(n, [_unary_input(n)], {}) for n in UNARY]
CASES += [
    ("Activation", [_rand(2, 5)], {"act_type": a})
    for a in ("relu", "sigmoid", "tanh", "softrelu", "softsign")
]
for _b in (
    "elemwise_add",
    "elemwise_sub",
    "elemwise_mul",
    "elemwise_div",
    "_maximum",
    "_minimum",
    "_equal",
    "_not_equal",
    "_greater",
    "_greater_equal",
    "_lesser",
    "_lesser_equal",
    "_hypot",
):
    CASES.append((_b, [_rand(3, 4), _rand(3, 4)], {}))
CASES.append(("_power", [_rand(3, 4, low=0.5, high=2), _rand(3, 4)], {}))
CASES.append(("_mod", [_rand(3, 4), _rand(3, 4, low=0.5, high=2)], {}))
for _b in (
    "broadcast_add",
    "broadcast_sub",
    "broadcast_mul",
    "broadcast_div",
    "broadcast_maximum",
    "broadcast_minimum",
    "broadcast_equal",
    "broadcast_not_equal",
    "broadcast_greater",
    "broadcast_greater_equal",
    "broadcast_lesser",
    "broadcast_lesser_equal",
    "broadcast_logical_and",
    "broadcast_logical_or",
    "broadcast_logical_xor",
    "broadcast_hypot",
    "broadcast_plus",
    "broadcast_minus",
):
    CASES.append((_b, [_rand(3, 1, 4), _rand(5, 1)], {}))
CASES.append(("broadcast_power", [_rand(2, 3, low=0.5, high=2), _rand(1, 3)], {}))
CASES.append(("broadcast_mod", [_rand(2, 3), _rand(1, 3, low=0.5, high=2)], {}))
for _s in (
    "_plus_scalar",
    "_minus_scalar",
    "_rminus_scalar",
    "_mul_scalar",
    "_div_scalar",
    "_rdiv_scalar",
    "_maximum_scalar",
    "_minimum_scalar",
    "_equal_scalar",
    "_not_equal_scalar",
    "_greater_scalar",
    "_greater_equal_scalar",
    "_lesser_scalar",
    "_lesser_equal_scalar",
    "_hypot_scalar",
):
    CASES.append((_s, [_rand(3, 4)], {"scalar": 0.5}))
CASES.append(("_power_scalar", [_rand(3, 4, low=0.5)], {"scalar": 2.5}))
CASES.append(("_rpower_scalar", [_rand(3, 4)], {"scalar": 2.0}))
CASES.append(("_mod_scalar", [_rand(3, 4)], {"scalar": 0.7}))
CASES.append(("_rmod_scalar", [_rand(3, 4, low=0.5)], {"scalar": 3.0}))
CASES += [
    ("FullyConnected", [_rand(4, 6), _rand(3, 6), _rand(3)], {"num_hidden": 3}),
    ("FullyConnected", [_rand(4, 2, 3), _rand(3, 6)], {"num_hidden": 3, "no_bias": True}),
    (
        "FullyConnected",
        [_rand(4, 2, 6), _rand(3, 6), _rand(3)],
        {"num_hidden": 3, "flatten": False},
    ),
    ("dot", [_rand(3, 4), _rand(4, 5)], {}),
    ("dot", [_rand(4, 3), _rand(4, 5)], {"transpose_a": True}),
    ("dot", [_rand(3, 4), _rand(5, 4)], {"transpose_b": True}),
    ("dot", [_rand(2, 3, 4), _rand(4, 5)], {}),
    ("dot", [_rand(4), _rand(4)], {}),
    ("batch_dot", [_rand(2, 3, 4), _rand(2, 4, 5)], {}),
    ("batch_dot", [_rand(2, 4, 3), _rand(2, 5, 4)], {"transpose_a": True, "transpose_b": True}),
    ("reshape", [_rand(2, 3, 4)], {"shape": (-1,)}),
    ("reshape", [_rand(2, 3, 4)], {"shape": (0, -1)}),
    ("reshape", [_rand(2, 3, 4)], {"shape": (-2,)}),
    ("reshape", [_rand(2, 3, 4)], {"shape": (-3, 4)}),
    ("reshape", [_rand(2, 3, 4)], {"shape": (0, -3)}),
    ("reshape", [_rand(2, 3, 4)], {"shape": (-4, 1, 2, -2)}),
    ("reshape", [_rand(2, 3, 4)], {"shape": (0, -4, -1, 1, 0)}),
    ("reshape", [_rand(2, 3, 4)], {"shape": (4, 0, -1)}),
    ("reshape", [_rand(2, 3, 4)], {"shape": (-1, 0), "reverse": True}),
    ("reshape", [_rand(10, 5, 4)], {"shape": (-1, 0), "reverse": False}),
    ("reshape", [_rand(10, 5, 4)], {"shape": (-1, 0), "reverse": True}),
    ("reshape", [_rand(2, 3, 4, 5)], {"shape": (-3, -3)}),
    ("reshape", [_rand(2, 3, 4, 5)], {"shape": (-2, 0, 0), "reverse": True}),
    ("transpose", [_rand(2, 3, 4)], {}),
    ("transpose", [_rand(2, 3, 4)], {"axes": (1, 0, 2)}),
    ("expand_dims", [_rand(2, 3)], {"axis": 1}),
    ("expand_dims", [_rand(2, 3)], {"axis": -1}),
    ("squeeze", [_rand(2, 1, 3, 1)], {}),
    ("squeeze", [_rand(2, 1, 3, 1)], {"axis": 1}),
    ("squeeze", [_rand(2, 1, 3, 1)], {"axis": (1, 3)}),
    ("flatten", [_rand(2, 3, 4)], {}),
    ("Flatten", [_rand(2, 3)], {}),
    ("concat", [_rand(2, 3), _rand(2, 4)], {"dim": 1}),
    ("Concat", [_rand(2, 3), _rand(1, 3), _rand(3, 3)], {"dim": 0}),
    ("stack", [_rand(2, 3), _rand(2, 3)], {"axis": 1}),
    ("stack", [_rand(2, 3), _rand(2, 3), _rand(2, 3)], {"axis": -1}),
    ("split", [_rand(2, 6)], {"num_outputs": 3}),
    ("split", [_rand(3, 4)], {"num_outputs": 3, "axis": 0, "squeeze_axis": True}),
    ("SliceChannel", [_rand(2, 4, 3)], {"num_outputs": 2, "axis": -2}),
    ("slice", [_rand(4, 5, 6)], {"begin": (1, None), "end": (3, 4)}),
    ("slice", [_rand(4, 5, 6)], {"begin": (0, 1, 2), "end": (4, 5, 6), "step": (2, 2, None)}),
    ("slice", [_rand(4, 5, 6)], {"begin": (-1, None), "end": (None, None), "step": (-1, 2)}),
    ("slice_axis", [_rand(4, 5)], {"axis": 1, "begin": 1, "end": 3}),
    ("slice_axis", [_rand(4, 5)], {"axis": 0, "begin": -3, "end": None}),
    ("slice_axis", [_rand(4, 5)], {"axis": -1, "begin": 0, "end": -1}),
    ("slice_like", [_rand(4, 5), _rand(2, 3)], {}),
    ("slice_like", [_rand(4, 5, 6), _rand(2, 3)], {"axes": (0, 1)}),
    ("slice_like", [_rand(4, 5, 6), _rand(2, 3, 1)], {"axes": (-1,)}),
    ("zeros_like", [_rand(2, 3)], {}),
    ("ones_like", [_rand(2, 3)], {}),
    ("shape_array", [_rand(2, 3)], {}),
    ("size_array", [_rand(2, 3)], {}),
    ("identity", [_rand(2, 3)], {}),
    ("_copy", [_rand(2, 3)], {}),
    ("BlockGrad", [_rand(2, 3)], {}),
    ("stop_gradient", [_rand(2, 3)], {}),
    ("add_n", [_rand(2, 3), _rand(2, 3), _rand(2, 3)], {}),
    ("ElementWiseSum", [_rand(2, 3), _rand(2, 3)], {}),
]


def _ids(case):
    name, arrays, kwargs = case
    return "{}-{}-{}".format(
        name,
        "x".join(str(a.shape) for a in arrays),
        ",".join("%s=%s" % kv for kv in sorted(kwargs.items())),
    )


def _lookup(module, name):
    if name.startswith("_"):
        return getattr(module._internal, name)
    return getattr(module, name)


def _as_list(r):
    return r if isinstance(r, (list, tuple)) else [r]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_eager_matches_mxnet(case):
    name, arrays, kwargs = case
    want = reference(
        lambda m: _as_list(
            _lookup(m.nd, name)(*[m.nd.array(a, dtype=a.dtype) for a in arrays], **kwargs)
        ),
        case,
        name,
    )
    got = _as_list(_lookup(mx.nd, name)(*[mx.nd.array(a, dtype=a.dtype) for a in arrays], **kwargs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


def _graph_facts(m, name, names, feed, kwargs):
    """Real MXNet's graph node as plain data: outputs, JSON, inferred shapes, results."""
    with m.name.NameManager():
        want_sym = _lookup(m.sym, name)(*[m.sym.var(n) for n in names], **kwargs)
    return (
        want_sym.list_outputs(),
        want_sym.tojson(),
        want_sym.infer_shape(**{n: a.shape for n, a in feed.items()})[1],
        want_sym.eval(ctx=m.cpu(), **{n: m.nd.array(a, dtype=a.dtype) for n, a in feed.items()}),
    )


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_graph_matches_mxnet(case):
    """The same op as a graph node: shape inference and compiled execution agree too."""
    name, arrays, kwargs = case
    names = ["x%d" % i for i in range(len(arrays))]
    feed = dict(zip(names, arrays))
    want_outputs, want_json, want_shapes, want = reference(
        lambda m: _graph_facts(m, name, names, feed, kwargs), ("graph",) + tuple(case), name
    )
    with mx.name.NameManager():
        got_sym = _lookup(mx.sym, name)(*[mx.sym.var(n) for n in names], **kwargs)
    assert got_sym.list_outputs() == want_outputs
    assert got_sym.tojson() == want_json
    _, got_shapes, _ = got_sym.infer_shape(**{n: a.shape for n, a in feed.items()})
    assert got_shapes == want_shapes
    op = mx.nd.CachedOp(got_sym)
    got = _as_list(op(*[mx.nd.array(feed[n], dtype=feed[n].dtype) for n in got_sym.list_inputs()]))
    for g, w in zip(got, want):
        assert g.shape == w.shape
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-6)


def _on_arrays(fn, a, b, dtype):
    """`fn(lib, x, y)` on the arrays a and b made by lib.nd (the library given)."""
    return lambda m: fn(m, m.nd.array(a, dtype=dtype), m.nd.array(b, dtype=dtype))


@pytest.mark.mxnet
@pytest.mark.parametrize("dtype", ["int32", "float64", "float16"])
def test_dtypes_kept_like_mxnet(dtype):
    a = np.array([[1, 2, 3], [4, 5, 7]]).astype(dtype)
    b = np.array([[2, 2, 2], [3, 3, 3]]).astype(dtype)
    for fn in (
        lambda m, x, y: x + y,
        lambda m, x, y: x / y,
        lambda m, x, y: x * 2.5,
        lambda m, x, y: x / 2,
        lambda m, x, y: 7 / y,
        lambda m, x, y: x == y,
        lambda m, x, y: m.nd.sqrt(x),
        lambda m, x, y: x**2,
        lambda m, x, y: x - 0.5,
    ):
        want = reference(_on_arrays(fn, a, b, dtype), (fn, a, b, dtype))
        got = fn(mx, mx.nd.array(a, dtype=dtype), mx.nd.array(b, dtype=dtype))
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-3)


@pytest.mark.mxnet
def test_creation_ops_match_mxnet():
    for fn in (
        lambda m: m.nd.zeros((2, 3)),
        lambda m: m.nd.ones((2, 3), dtype="int32"),
        lambda m: m.nd.full((2, 2), 7),
        lambda m: m.nd.arange(5),
        lambda m: m.nd.arange(1, 7, 2),
        lambda m: m.nd.arange(0, 2, 0.5, repeat=2),
        lambda m: m.nd.array([1, 2.5]),
        lambda m: m.nd.array(np.arange(3)),
        lambda m: m.nd.array([[1, 2]], dtype="int64"),
        lambda m: m.nd.zeros(4),
    ):
        want, got = reference(fn, fn), fn(mx)
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got.asnumpy(), want)


@pytest.mark.mxnet
@pytest.mark.parametrize(
    "bad",
    [
        lambda m: m.nd.elemwise_add(m.nd.ones((2, 3)), m.nd.ones((1, 3))),
        lambda m: m.nd.broadcast_add(m.nd.ones((2, 3)), m.nd.ones((3, 2))),
        lambda m: m.nd.ones((2, 3)) + m.nd.ones((3, 2)),
        lambda m: m.nd.FullyConnected(
            m.nd.ones((2, 4)), m.nd.ones((3, 5)), m.nd.ones(3), num_hidden=3
        ),
        lambda m: m.nd.dot(m.nd.ones((2, 3)), m.nd.ones((2, 3))),
        lambda m: m.nd.split(m.nd.ones((2, 3)), num_outputs=2),
        lambda m: m.nd.concat(m.nd.ones((2, 3)), m.nd.ones((3, 3)), dim=1),
    ],
)
def test_eager_errors_are_mxnet_errors(bad):
    def raised(m):
        try:
            bad(m)
        except m.base.MXNetError:
            return "MXNetError"
        return None

    assert reference(raised, bad) == "MXNetError"
    with pytest.raises(mx.base.MXNetError):
        bad(mx)


def test_reshape_size_mismatch_is_an_error():
    """Real MXNet 1.9.1's reshape op does not check the total size (shape=(4, -1) on a (2, 3)
    array returns a (4, 1) array of the first elements, (4, 2) reads past the buffer); the
    engine refuses with a clear error instead of reproducing undefined memory reads."""
    with pytest.raises(mx.base.MXNetError, match="Cannot reshape"):
        mx.nd.reshape(mx.nd.ones((2, 3)), shape=(4, -1))
    with pytest.raises(mx.base.MXNetError, match="Cannot reshape"):
        mx.sym.reshape(mx.sym.var("a"), shape=(4, 2)).infer_shape(a=(2, 3))


def test_reshape_codes_without_mxnet():
    """MXNet's documented reshape examples (from the operator's docstring)."""
    from hybridlint.engine.ops.shape import infer_reshape

    assert infer_reshape((2, 3, 4), (4, 0, 2)) == (4, 3, 2)
    assert infer_reshape((2, 3, 4), (2, 0, 0)) == (2, 3, 4)
    assert infer_reshape((2, 3, 4), (6, 1, -1)) == (6, 1, 4)
    assert infer_reshape((2, 3, 4), (3, -1, 8)) == (3, 1, 8)
    assert infer_reshape((2, 3, 4), (-1,)) == (24,)
    assert infer_reshape((2, 3, 4), (-2,)) == (2, 3, 4)
    assert infer_reshape((2, 3, 4), (2, -2)) == (2, 3, 4)
    assert infer_reshape((2, 3, 4), (-2, 1, 1)) == (2, 3, 4, 1, 1)
    assert infer_reshape((2, 3, 4), (-3, 4)) == (6, 4)
    assert infer_reshape((2, 3, 4, 5), (-3, -3)) == (6, 20)
    assert infer_reshape((2, 3, 4), (0, -3)) == (2, 12)
    assert infer_reshape((2, 3, 4), (-3, -2)) == (6, 4)
    assert infer_reshape((2, 3, 4), (-4, 1, 2, -2)) == (1, 2, 3, 4)
    assert infer_reshape((2, 3, 4), (2, -4, -1, 3, -2)) == (2, 1, 3, 4)
    assert infer_reshape((10, 5, 4), (-1, 0)) == (40, 5)
    assert infer_reshape((10, 5, 4), (-1, 0), reverse=True) == (50, 4)
    # MXNet quirks recorded from 1.9.1: the inferred index is the code's position, so
    # (2, 3) with (-2, -1) gives MXNet (2, 1, 1), a size mismatch it does not check: an error
    from hybridlint.engine.registry import ShapeError

    with pytest.raises(ShapeError, match="target size 2 differs from 6"):
        infer_reshape((2, 3), (-2, -1))
    assert infer_reshape((1,), (-4, -1, 1, -1)) == (1, 1, 1)
    assert infer_reshape((4,), (-4, -1, 2, -1)) == (2, 2, 1)


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_eager_equals_compiled_without_mxnet(case):
    """Runs on any numpy (1.23 and 2.x): the eager function and the compiled graph of each op
    agree on shape, dtype (the input's, as MXNet keeps it) and values."""
    name, arrays, kwargs = case
    eager = _as_list(
        _lookup(mx.nd, name)(*[mx.nd.array(a, dtype=a.dtype) for a in arrays], **kwargs)
    )
    names = ["x%d" % i for i in range(len(arrays))]
    with mx.name.NameManager():
        sym = _lookup(mx.sym, name)(*[mx.sym.var(n) for n in names], **kwargs)
    feed = dict(zip(names, arrays))
    got = _as_list(
        mx.nd.CachedOp(sym)(*[mx.nd.array(feed[n], dtype=feed[n].dtype) for n in sym.list_inputs()])
    )
    for g, e in zip(got, eager):
        assert g.shape == e.shape and g.dtype == e.dtype
        if name not in ("shape_array", "size_array"):
            assert e.dtype == arrays[0].dtype
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy(), rtol=1e-6, atol=1e-7)


def test_recorded_mxnet_values():
    """A few results recorded from MXNet 1.9.1 (halves in round/rint, int division, scalar
    casting), pinned for machines without MXNet."""
    x = mx.nd.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5])
    assert mx.nd.round(x).asnumpy().tolist() == [-3, -2, -1, 1, 2, 3]
    assert mx.nd.rint(x).asnumpy().tolist() == [-3, -2, -1, 0, 1, 2]
    i = mx.nd.array([1, 2], dtype="int32")
    assert (i * 2.5).asnumpy().tolist() == [2, 4] and (i * 2.5).dtype == np.int32
    assert (i / mx.nd.array([2, 2], dtype="int32")).asnumpy().tolist() == [0, 1]
    assert mx.nd.array([1, 2.5]).dtype == np.float32
    assert repr(mx.nd.ones((2, 3))) == "\n[[1. 1. 1.]\n [1. 1. 1.]]\n<NDArray 2x3 @cpu(0)>"
