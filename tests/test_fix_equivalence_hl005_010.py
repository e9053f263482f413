"""Every fix form of HL005, HL006, HL007, HL009 and HL010, checked by running it.

The companion of tests/test_fix_equivalence.py (HL001/HL003/HL004; kept in its own module so
two developers do not edit one file at once), with the same method: for random shapes and
values (hypothesis), a block using the original expression is linted and fixed with the real
linter; the original runs eagerly (the reference), the fixed block runs eagerly and hybridized,
and values, shapes and dtypes must be equal. Each property runs on the bundled engine and,
marked `mxnet`, on real MXNet 1.9.1. Forms whose original cannot run eagerly (`mx.sym.op` on
NDArrays, a HybridBlock with an `nn.Sequential` child) are compared with the eager result of
the code as the author meant it (the `nd` spelling; the Sequential built with MXNet's check
lifted).
"""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import fix_support
from fix_support import BACKENDS, backend_module, fix_settings
from fix_support import block_source as source_of
from fix_support import children_check_lifted, fix_source, lint_source

SETTINGS = fix_settings(20)
shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


def build(source: str, mx):
    return fix_support.build(source, mx, names=("mx", "nd", "nn", "gluon"))


def call(net_class, inputs_np, mx, hybridize: bool):
    out = fix_support.run(
        net_class, [mx.nd.array(a, dtype=a.dtype) for a in inputs_np], hybridize, initialize=True
    )
    return out.asnumpy(), out.dtype


def fixed_by(source: str, code: str, expect_safety: str) -> str:
    findings = [f for f in lint_source(source) if f.code == code]
    assert findings and findings[0].fix == expect_safety, (source, findings)
    fixed = fix_source(source, select=[code], unsafe=True).source
    assert fixed != source
    assert not [f for f in lint_source(fixed) if f.code == code and f.fix], fixed
    return fixed


def check(source: str, inputs_np, mx, code: str, expect_safety: str = "safe", reference=None):
    """Fix `source` with rule `code`; the fixed block eagerly and hybridized equals
    `reference` (default: the original block run eagerly)."""
    fixed = fixed_by(source, code, expect_safety)
    if reference is None:
        try:
            reference = call(build(source, mx), inputs_np, mx, hybridize=False)
        except Exception:  # noqa: BLE001 - the original fails on this input: nothing to compare
            assume(False)
    expected, expected_dtype = reference
    for hybridize in (False, True):
        try:
            got, dtype = call(build(fixed, mx), inputs_np, mx, hybridize)
        except Exception as error:  # noqa: BLE001
            if mx.__name__.startswith("hybridlint") and "does not implement" in str(error):
                pytest.skip(f"engine: {error}")
            raise
        assert got.shape == expected.shape, (fixed, hybridize, got.shape, expected.shape)
        assert dtype == expected_dtype, (fixed, hybridize, dtype, expected_dtype)
        np.testing.assert_array_equal(got, expected, err_msg=f"{fixed}\nhybridize={hybridize}")
    return fixed


def values(shape, dtype="float32", low=1, high=5, seed=0):
    return np.random.RandomState(seed).randint(low, high, size=shape).astype(dtype)


def literal(array: np.ndarray) -> str:
    return repr(array.tolist())


# -- HL005 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=shapes,
    fill=st.sampled_from([0, 1, 2.5, -3, 0.1]),
    dtype=st.sampled_from([None, "'float32'", "'float64'"]),
    spelling=st.sampled_from(["nd", "mx.nd", "F"]),
)
def test_hl005_constant_filled_array_becomes_an_f_creation_op(
    backend, shape, fill, dtype, spelling
):
    mx = backend_module(backend)
    const = np.full(shape, fill).tolist()
    keyword = f", dtype={dtype}" if dtype else ""
    x = values(shape, dtype=dtype.strip("'") if dtype else "float32")
    check(
        source_of(f"return F.broadcast_add(x, {spelling}.array({const!r}{keyword}))"),
        [x],
        mx,
        "HL005",
    )


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=shapes.filter(lambda s: int(np.prod(s)) >= 2),
    seed=st.integers(0, 100),
    assigned=st.booleans(),
    scoped=st.booleans(),
    int_dtype=st.booleans(),
)
def test_hl005_literal_becomes_a_constant_parameter(
    backend, shape, seed, assigned, scoped, int_dtype
):
    mx = backend_module(backend)
    const = np.random.RandomState(seed).uniform(-2, 2, size=shape).round(3)
    const.flat[0], const.flat[-1] = 7.5, -1.25  # never constant-filled
    x = values(shape)
    creation = f"nd.array({literal(const)}" + (", dtype='int32')" if int_dtype else ")")
    if int_dtype:
        x = x.astype("int32")
    if assigned:
        body = f"table = {creation}\nreturn F.broadcast_mul(x, table)"
    else:
        body = f"return F.broadcast_mul(x, {creation})"
    init = "with self.name_scope():\n    self.k = 2" if scoped else "self.k = 2"
    fixed = check(source_of(body, init=init), [x], mx, "HL005", expect_safety="unsafe")
    assert "get_constant" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    classes=st.integers(2, 5),
    batch=st.integers(1, 4),
    seed=st.integers(0, 100),
    scoped=st.booleans(),
    dtype=st.sampled_from([None, "'float32'", "'float64'"]),
    wrap=st.sampled_from(["F.take", "nd.take"]),
)
def test_hl005_array_of_an_init_attribute_becomes_a_constant_parameter(
    backend, classes, batch, seed, scoped, dtype, wrap
):
    """`F.take(nd.array(self._w), label)`: the list __init__ stores becomes a constant parameter
    (also under an eager-namespace op, which HL006 rewrites in the same run)."""
    mx = backend_module(backend)
    rng = np.random.RandomState(seed)
    weights = rng.uniform(-2, 2, size=classes).round(3).tolist()
    label = rng.randint(0, classes, size=batch).astype("float32")
    x = values((batch,), dtype=dtype.strip("'") if dtype else "float32", seed=seed)
    keyword = f", dtype={dtype}" if dtype else ""
    store = f"self._w = {weights!r}"
    init = f"{store}\nwith self.name_scope():\n    self.k = 2" if scoped else store
    source = source_of(
        f"w = {wrap}(nd.array(self._w{keyword}), label)\nreturn F.broadcast_mul(x, w)",
        inputs="x, label",
        init=init,
    )
    fixed = fix_source(source, unsafe=True).source
    assert (
        "get_constant('w_1', " in fixed
        and "self._w" in fixed.split("get_constant")[1].splitlines()[0]
    ), fixed
    assert not [f for f in lint_source(fixed) if f.code in ("HL005", "HL006")], fixed
    expected, expected_dtype = call(build(source, mx), [x, label], mx, hybridize=False)
    for hybridize in (False, True):
        got, got_dtype = call(build(fixed, mx), [x, label], mx, hybridize)
        assert got_dtype == expected_dtype, (fixed, hybridize)
        np.testing.assert_array_equal(got, expected, err_msg=f"{fixed}\nhybridize={hybridize}")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes.filter(lambda s: int(np.prod(s)) >= 2), seed=st.integers(0, 100))
def test_hl005_literal_in_a_class_without_init_becomes_a_constant_parameter(backend, shape, seed):
    """No __init__: the fix adds one passing every argument on (after the docstring)."""
    mx = backend_module(backend)
    const = np.random.RandomState(seed).uniform(-2, 2, size=shape).round(3)
    const.flat[0], const.flat[-1] = 7.5, -1.25  # never constant-filled
    source = (
        'class Net(HybridBlock):\n    """Doc."""\n\n    def hybrid_forward(self, F, x):\n'
        f"        return F.broadcast_mul(x, nd.array({literal(const)}))\n"
    )
    fixed = check(source, [values(shape)], mx, "HL005", expect_safety="unsafe")
    assert "def __init__(self, *args, **kwargs)" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
def test_hl005_constant_parameter_is_saved_with_the_block(backend, tmp_path):
    """The documented cost of the unsafe fix: the block gains a (saved) parameter."""
    mx = backend_module(backend)
    source = source_of(
        "scale = nd.array([0.5, 2.0])\nreturn F.broadcast_mul(x, scale)", init="self.k = 2"
    )
    fixed = fixed_by(source, "HL005", "unsafe")
    net = build(fixed, mx)()
    net.initialize()
    net(mx.nd.ones((3, 2)))
    assert [n.split("_", 1)[1] for n in net.collect_params().keys()] == ["scale"]
    net.save_parameters(str(tmp_path / "p.params"))
    assert list(mx.nd.load(str(tmp_path / "p.params")).keys()) == ["scale"]


# -- HL006 ---------------------------------------------------------------------------------
HL006_OPS = [
    "relu({})",
    "sigmoid({})",
    "softmax({}, axis=-1)",
    "sum({}, axis=0)",
    "exp({})",
    "transpose({})",
    "broadcast_add({0}, {0})",
    "log_softmax({}, axis=0)",
    "square({})",
    "expand_dims({}, axis=0)",
    "flip({}, axis=0)",
    "contrib.arange_like({}, axis=0)",
]


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=shapes,
    op=st.sampled_from(HL006_OPS),
    spelling=st.sampled_from(["nd", "mx.nd", "mx.ndarray"]),
)
def test_hl006_eager_namespace_becomes_f(backend, shape, op, spelling):
    mx = backend_module(backend)
    check(source_of(f"return {spelling}.{op.format('x')}"), [values(shape)], mx, "HL006")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, op=st.sampled_from(HL006_OPS))
def test_hl006_symbol_namespace_becomes_f(backend, shape, op):
    """`mx.sym.op(x)` cannot run eagerly; the fix equals what the `nd` spelling computes."""
    mx = backend_module(backend)
    x = values(shape)
    reference = call(build(source_of(f"return F.{op.format('x')}"), mx), [x], mx, hybridize=False)
    check(source_of(f"return mx.sym.{op.format('x')}"), [x], mx, "HL006", reference=reference)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    batch=st.integers(1, 4),
    units=st.integers(1, 4),
    scale=st.sampled_from(["0.5 * ", "-", "2 * -", ""]),
    creation=st.sampled_from(["ones", "zeros"]),
    op=st.sampled_from(["+", "-", "*"]),
    static=st.booleans(),
)
def test_hl006_scaled_creation_meeting_a_tensor_becomes_f(
    backend, batch, units, scale, creation, op, static
):
    """`y + 0.5 * nd.ones((1, n))` (n literal or an int attribute): HL006 makes it F.ones, HL007
    (the partial literal shape (1, None) with its 1) the broadcast the NDArray operator did."""
    mx = backend_module(backend)
    shape = f"(1, {units})" if static else "(1, self._units)"
    source = source_of(
        f"y = F.relu(x)\nreturn y {op} {scale}nd.{creation}({shape})", init=f"self._units = {units}"
    )
    x = values((batch, units), low=-3, high=3)
    fixed = fix_source(source).source  # safe fixes only
    assert "nd." not in fixed and "F.broadcast_" in fixed, fixed
    expected, expected_dtype = call(build(source, mx), [x], mx, hybridize=False)
    for hybridize in (False, True):
        got, got_dtype = call(build(fixed, mx), [x], mx, hybridize)
        assert got_dtype == expected_dtype, (fixed, hybridize)
        np.testing.assert_array_equal(got, expected, err_msg=f"{fixed}\nhybridize={hybridize}")


NDARRAY_ONLY = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "modulo",
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "lesser",
    "lesser_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
]


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=shapes.filter(lambda s: len(s) >= 2), op=st.sampled_from(NDARRAY_ONLY), data_=st.data()
)
def test_hl006_ndarray_only_helpers_become_broadcast_ops(backend, shape, op, data_):
    """`nd.add(x, m)` and friends (no Symbol twin) between tensors of different shapes."""
    mx = backend_module(backend)
    axis = data_.draw(st.integers(0, len(shape) - 1))
    x, y = values(shape, seed=1), values(shape, seed=2)
    source = source_of(
        f"m = y.sum(axis={axis}, keepdims=True)\nreturn nd.{op}(x, m)", inputs="x, y"
    )
    check(source, [x, y], mx, "HL006")


# -- HL007 ---------------------------------------------------------------------------------
OPERATORS = {
    "+": "broadcast_add",
    "-": "broadcast_sub",
    "*": "broadcast_mul",
    "/": "broadcast_div",
    "%": "broadcast_mod",
    "**": "broadcast_power",
    "==": "broadcast_equal",
    "!=": "broadcast_not_equal",
    "<": "broadcast_lesser",
    "<=": "broadcast_lesser_equal",
    ">": "broadcast_greater",
    ">=": "broadcast_greater_equal",
}


@st.composite
def broadcast_case(draw):
    shape = draw(shapes.filter(lambda s: len(s) >= 2))
    axis = draw(st.integers(0, len(shape) - 1))
    form = draw(
        st.sampled_from(
            [
                "x.sum(axis={a}, keepdims=True)",
                "F.max(x, axis={a}, keepdims=True)",
                "F.expand_dims(F.mean(y, axis={a}), axis={a})",
                "y.mean(axis={a}, keepdims=True) * 0.5 + 1",
            ]
        )
    )
    return shape, form.format(a=axis)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(case=broadcast_case(), op=st.sampled_from(sorted(OPERATORS)), reflected=st.booleans())
def test_hl007_operators_become_broadcast_ops(backend, case, op, reflected):
    mx = backend_module(backend)
    shape, other = case
    x = values(shape, low=1, high=4, seed=1)
    y = values(shape, low=1, high=4, seed=2)
    left, right = ("m", "x") if reflected else ("x", "m")
    # safe only where the body proves x an array (an F.<op>(x) argument, x.sum): an input only
    # arithmetic uses may be a Python number eagerly, and broadcast_* takes only arrays
    safety = "safe" if other.startswith(("x.", "F.max(x")) else "unsafe"
    fixed = check(
        source_of(f"m = {other}\nreturn {left} {op} {right}", inputs="x, y"),
        [x, y],
        mx,
        "HL007",
        safety,
    )
    assert f"F.{OPERATORS[op]}({left}, {right})" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=st.lists(st.integers(1, 3), min_size=4, max_size=4).map(tuple),
    op=st.sampled_from(sorted(OPERATORS)),
    form=st.sampled_from(
        [
            "F.reshape(y.mean(axis=(2, 3)), shape=(0, 0, 1, 1))",
            "y.mean(axis=(2, 3)).reshape((0, 0, 1, 1))",
            "F.ones((1, 1, 1, 1)) * 2",
            "y.max(axis=1).expand_dims(axis=1)",
        ]
    ),
)
def test_hl007_gates_and_literals_become_broadcast_ops(backend, shape, op, form):
    """SE-style gates (reshape with 1s), literal shapes and expand_dims against a 4-D input."""
    mx = backend_module(backend)
    x, y = values(shape, seed=3), values(shape, seed=4)
    # x only meets arithmetic: it may be a Python number eagerly, so the fix is unsafe
    check(source_of(f"g = {form}\nreturn x {op} g", inputs="x, y"), [x, y], mx, "HL007", "unsafe")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    b=st.integers(1, 3),
    lq=st.integers(1, 3),
    lk=st.integers(1, 3),
    c=st.integers(1, 3),
    op=st.sampled_from(sorted(OPERATORS)),
)
def test_hl007_pairwise_expand_dims_becomes_broadcast_op(backend, b, lq, lk, c, op):
    """The additive-attention pairwise sum: (B, Lq, 1, C) op (B, 1, Lk, C)."""
    mx = backend_module(backend)
    q, k = values((b, lq, c), seed=5), values((b, lk, c), seed=6)
    check(
        source_of(f"return F.expand_dims(x, axis=2) {op} y.expand_dims(axis=1)", inputs="x, y"),
        [q, k],
        mx,
        "HL007",
    )


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, op=st.sampled_from(sorted(OPERATORS)))
def test_hl007_equal_shapes_are_left_alone_and_hybridize(backend, shape, op):
    """No evidence, no finding: `x op F.relu(y)` on equal shapes already hybridizes to the
    eager result as written (the precision half of the rule)."""
    mx = backend_module(backend)
    source = source_of(f"return x {op} F.relu(y)", inputs="x, y")
    assert not [f for f in lint_source(source) if f.code == "HL007"]
    inputs = [values(shape, seed=1), values(shape, seed=2)]
    eager = call(build(source, mx), inputs, mx, hybridize=False)
    hybrid = call(build(source, mx), inputs, mx, hybridize=True)
    np.testing.assert_array_equal(hybrid[0], eager[0])


# -- HL009 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=shapes,
    form=st.sampled_from(
        ["return x.reshape((len(x), -1))", "y = F.relu(x)\nreturn F.reshape(y, shape=(len(y), -1))"]
    ),
)
def test_hl009_len_in_reshape_becomes_code_zero(backend, shape, form):
    mx = backend_module(backend)
    check(source_of(form), [values(shape)], mx, "HL009")


# -- HL010 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    units=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    batch=st.integers(1, 3),
    spelling=st.sampled_from(["nn.Sequential", "gluon.nn.Sequential"]),
)
def test_hl010_sequential_becomes_hybrid_sequential(backend, units, batch, spelling):
    mx = backend_module(backend)
    adds = "".join(f"    self.body.add(nn.Dense({u}, activation='tanh'))\n" for u in units)
    source = (
        "class Net(gluon.HybridBlock):\n    def __init__(self):\n        super(Net, self).__init__()\n"
        f"        with self.name_scope():\n            self.body = {spelling}(prefix='body_')\n"
        + "".join("        " + line + "\n" for line in adds.splitlines())
        + "\n    def hybrid_forward(self, F, x):\n        return self.body(x)\n"
    )
    fixed = fixed_by(source, "HL010", "safe")
    original = build(source, mx)
    with pytest.raises(ValueError, match="Children of HybridBlock must also be HybridBlock"):
        original()
    x = values((batch, 3))
    with children_check_lifted(mx):
        net = original()
    net.initialize()
    expected = net(mx.nd.array(x)).asnumpy()
    params = {name.split("_", 1)[1]: p.data().asnumpy() for name, p in net.collect_params().items()}
    for hybridize in (False, True):
        twin = build(fixed, mx)()
        twin.initialize()
        twin(mx.nd.array(x))
        for name, p in twin.collect_params().items():
            p.set_data(mx.nd.array(params[name.split("_", 1)[1]]))
        if hybridize:
            twin.hybridize()
        np.testing.assert_array_equal(twin(mx.nd.array(x)).asnumpy(), expected)
