"""The shape-scalar fix forms of HL001 (rules/hl001/scalars.py), checked by running them.

The method of tests/test_fix_equivalence.py: for random shapes, axes and values (hypothesis), a
hybrid_forward using the original expression is linted and fixed with the real linter; the
original block runs eagerly (the reference), the fixed block runs eagerly and hybridized, and
values, shapes and dtypes must equal the reference. Each property runs on the bundled engine
and, marked `mxnet`, on real MXNet 1.9.1 (the ground truth). The tests at the end show, on
real MXNet, why the forms are unsafe: what differs where the rewrite's assumptions do not hold.
"""

import math

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import fix_support
from fix_support import BACKENDS, backend_module, build, engine_gaps_skipped, fix_settings
from fix_support import fix_source, lint_source

SETTINGS = fix_settings(20)
shapes = st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple)


def block_source(body: str, inputs: str = "x", init: str = "") -> str:
    return fix_support.block_source(body, inputs, init, head="import math\n\n\n")


def run(net_class, arrays, hybridize: bool, params=None):
    return fix_support.run(net_class, arrays, hybridize, initialize=True, params=params)


def fixed_source(source: str, expect_safety: str) -> str:
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and all(f.fix == expect_safety for f in findings), (source, findings)
    fixed = fix_source(source, select=["HL001"], unsafe=True).source
    assert fixed != source
    assert not [f for f in lint_source(fixed) if f.code == "HL001"], fixed
    return fixed


def check_equivalent(
    body: str,
    inputs_np,
    mx,
    expect_safety: str = "unsafe",
    inputs: str = "x",
    init: str = "",
    params=None,
    rtol: float = 0.0,
):
    """Fix `body` with HL001; original eager == fixed eager == fixed hybridized (exactly,
    unless `rtol` says the form may differ in float32 rounding)."""
    source = block_source(body, inputs, init)
    fixed = fixed_source(source, expect_safety)
    params = {k: mx.nd.array(v) for k, v in (params or {}).items()}
    arrays = [mx.nd.array(a, dtype=a.dtype) for a in inputs_np]
    try:
        expected = run(build(source, mx), arrays, hybridize=False, params=params)
        expected.asnumpy()
    except Exception:  # the original itself fails on this input: nothing to compare
        assume(False)
    with engine_gaps_skipped(mx):
        for hybridize in (False, True):
            arrays = [mx.nd.array(a, dtype=a.dtype) for a in inputs_np]
            got = run(build(fixed, mx), arrays, hybridize, params=params)
            assert got.shape == expected.shape, (fixed, hybridize, got.shape, expected.shape)
            assert got.dtype == expected.dtype, (fixed, hybridize, got.dtype, expected.dtype)
            if rtol:
                np.testing.assert_allclose(
                    got.asnumpy(), expected.asnumpy(), rtol=rtol, err_msg=fixed
                )
            else:
                np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)
    return fixed


def values(shape, seed):
    return np.random.RandomState(seed).uniform(-3, 3, shape).astype("float32")


@st.composite
def shape_and_axis(draw):
    shape = draw(shapes)
    axis = draw(st.integers(-len(shape), len(shape) - 1))
    return shape, axis


# -- a dim in arithmetic: / * + - ** with the tensor on either side -----------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    case=shape_and_axis(),
    op=st.sampled_from(["/", "*", "+", "-"]),
    scalar_left=st.booleans(),
    wrap=st.sampled_from(["{}", "float({})", "int({})"]),
    seed=st.integers(0, 2**16),
)
def test_dim_in_arithmetic(backend, case, op, scalar_left, wrap, seed):
    mx = backend_module(backend)
    shape, axis = case
    dim = wrap.format(f"y.shape[{axis}]")
    expr = f"{dim} {op} y" if scalar_left else f"y {op} {dim}"
    fixed = check_equivalent(f"y = F.relu(x)\nreturn {expr}", [values(shape, seed)], mx)
    assert "F.shape_array(y)" in fixed and "broadcast_" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    case=shape_and_axis(),
    op=st.sampled_from(["<", "<=", ">", ">=", "==", "!="]),
    scalar_left=st.booleans(),
    named=st.booleans(),
    offset=st.integers(-1, 1),
)
def test_dim_in_a_comparison(backend, case, op, scalar_left, named, offset):
    """A position mask: `steps < x.shape[k] - 1` gives 0/1 in the tensor's dtype either way."""
    mx = backend_module(backend)
    shape, axis = case
    dim = "d" if named else f"x.shape[{axis}]"
    scalar = f"({dim} + {offset})"
    test = f"{scalar} {op} steps" if scalar_left else f"steps {op} {scalar}"
    body = (
        f"d = x.shape[{axis}]\n" if named else ""
    ) + f"steps = F.contrib.arange_like(x, axis={axis}).astype('float32')\nreturn ({test}) * 2"
    fixed = check_equivalent(body, [values(shape, 3)], mx)
    assert "broadcast_" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(case=shape_and_axis(), seed=st.integers(0, 2**16), size=st.booleans())
def test_scalar_kept_in_a_name(backend, case, seed, size):
    """`d = x.shape[k]` used only in tensor arithmetic later: d keeps the tensor."""
    mx = backend_module(backend)
    shape, axis = case
    dim = "x.size" if size else f"x.shape[{axis}]"
    body = f"d = {dim}\ny = F.relu(x) / math.sqrt(d)\nreturn (y + 1) * (d - 1) - d"
    fixed = check_equivalent(body, [values(shape, seed)], mx)
    assert "d = F." in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(case=shape_and_axis(), seed=st.integers(0, 2**16))
def test_mean_over_an_axis_divided_by_its_dim(backend, case, seed):
    mx = backend_module(backend)
    shape, axis = case
    check_equivalent(
        f"return x.sum(axis={axis}, keepdims=True) / x.shape[{axis}]", [values(shape, seed)], mx
    )


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, seed=st.integers(0, 2**16))
def test_sum_divided_by_size(backend, shape, seed):
    mx = backend_module(backend)
    fixed = check_equivalent(
        "return F.sum(F.square(x)).reshape((1,)) / x.size", [values(shape, seed)], mx
    )
    assert "F.size_array(x)" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=st.lists(st.integers(1, 5), min_size=2, max_size=4).map(tuple),
    data=st.data(),
    seed=st.integers(0, 2**16),
)
def test_product_of_dims_and_integer_arithmetic(backend, shape, data, seed):
    mx = backend_module(backend)
    a, b = sorted(
        data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=2, max_size=2, unique=True))
    )
    extra = data.draw(st.sampled_from(["", " + 1", " - 1", " * 2"]))
    body = f"return x.sum(axis=({a}, {b})) / (x.shape[{a}] * x.shape[{b}]{extra})"
    check_equivalent(body, [values(shape, seed)], mx)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=st.lists(st.integers(1, 5), min_size=3, max_size=3).map(tuple),
    depth=st.integers(1, 40),
    seed=st.integers(0, 2**16),
)
def test_scaled_dot_product_by_sqrt_of_depth(backend, shape, depth, seed):
    """`/ math.sqrt(d)`: Python's float64 sqrt rounded once to float32 equals float32 sqrt of
    a dim below 2**24 (double rounding is innocuous for sqrt), so equal exactly."""
    mx = backend_module(backend)
    batch, length, _ = shape
    q = values((batch, length, depth), seed)
    body = "s = F.batch_dot(q, q, transpose_b=True)\nreturn s / math.sqrt(q.shape[-1])"
    fixed = check_equivalent(body, [q], mx, inputs="q")
    assert "F.sqrt(" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(case=shape_and_axis(), heads=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_floor_division_of_a_dim_by_the_heads(backend, case, heads, seed):
    """`math.sqrt(d // self._heads)`: the per-head depth, floor of the float32 quotient."""
    mx = backend_module(backend)
    shape, axis = case
    assume(shape[axis] >= heads)
    init = f"self._heads = {heads}"
    body = f"y = F.relu(x)\nreturn y / math.sqrt(x.shape[{axis}] // self._heads)"
    fixed = check_equivalent(body, [values(shape, seed)], mx, init=init)
    assert "F.floor(" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    case=shape_and_axis(),
    seed=st.integers(0, 2**16),
    power=st.sampled_from(["-0.5", "0.5", "2", "-1"]),
)
def test_dim_to_a_power(backend, case, seed, power):
    """`* d ** -0.5`: float32 pow may differ from float64 pow rounded in the last bit (why the
    form is unsafe), so equal within float32 rounding."""
    mx = backend_module(backend)
    shape, axis = case
    body = f"y = F.relu(x)\nreturn y * y.shape[{axis}] ** {power}"
    check_equivalent(body, [values(shape, seed)], mx, rtol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=st.lists(st.integers(1, 5), min_size=2, max_size=2).map(tuple), seed=st.integers(0, 2**16)
)
def test_known_dim_becomes_the_integer(backend, shape, seed):
    """A declared parameter shape is known: the dim is the same Python int (safe)."""
    mx = backend_module(backend)
    init = f"self.weight = self.params.get('weight', shape={shape!r})"
    weight = values(shape, seed + 1)
    for axis in range(-2, 2):
        body = f"return F.broadcast_add(x, F.sum(weight, axis=0)) / weight.shape[{axis}]"
        fixed = check_equivalent(
            body,
            [values((3, shape[1]), seed)],
            mx,
            expect_safety="safe",
            inputs="x, weight",
            init=init,
            params={"weight": weight},
        )
        assert f"/ {shape[axis]}\n" in fixed


# -- op arguments that must be Python ints: one_hot depth, repeat counts --------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(batch=st.integers(1, 6), depth=st.integers(1, 8), data=st.data())
def test_one_hot_depth_from_the_shape(backend, batch, depth, data):
    """Labels in and out of range, negative, fractional (one_hot truncates toward zero)."""
    mx = backend_module(backend)
    labels = np.array(
        data.draw(
            st.lists(
                st.one_of(
                    st.integers(-2, depth + 1).map(float), st.floats(-1.5, depth + 1, width=32)
                ),
                min_size=batch,
                max_size=batch,
            )
        ),
        dtype="float32",
    )
    pred = values((batch, depth), 0)
    body = "p = F.softmax(pred, axis=-1)\nreturn p * F.one_hot(label, pred.shape[-1])"
    fixed = check_equivalent(body, [pred, labels], mx, inputs="pred, label")
    assert "arange_like(pred, axis=-1)" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    b=st.integers(1, 3),
    kv=st.integers(1, 4),
    ratio=st.integers(1, 4),
    rest=st.integers(1, 3),
    seed=st.integers(0, 2**16),
)
def test_repeat_by_the_ratio_of_two_dims(backend, b, kv, ratio, rest, seed):
    """Grouped-query attention: q has a multiple of k's heads."""
    mx = backend_module(backend)
    q, k = values((b, kv * ratio, rest), seed), values((b, kv, rest), seed + 1)
    body = "r = F.repeat(k, repeats=q.shape[1] // k.shape[1], axis=1)\nreturn F.broadcast_add(r, q)"
    fixed = check_equivalent(body, [q, k], mx, inputs="q, k")
    assert "F.take(k" in fixed


# -- what stays reported ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "body",
    [
        "d = x.shape[-1]\ny = F.relu(x) / d\nreturn y.reshape((-1, d))",  # kept in a name, one use needs the int
        "d = x.shape[-1]\nfor i in range(2):\n    x = F.relu(x) / d\nreturn x",  # a use in a loop
        "d = x.shape[-1]\nd = d + 1\nreturn F.relu(x) / d",  # stored twice
        "return F.slice_axis(x, axis=1, begin=0, end=x.shape[1] - 1)",  # an int attribute
        "return F.relu(x) / (x.shape[0] % 2)",  # modulo
        "return F.one_hot(F.argmax(x, axis=-1), x.shape[-1], on_value=2.0)",  # not the default values
    ],
)
def test_no_exact_form_is_reported_only(body):
    source = block_source(body)
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and not any(f.fix for f in findings), findings


# -- why the forms are unsafe (real MXNet) ---------------------------------------------------------
@pytest.mark.mxnet
def test_unsafe_because_other_dtypes_divide_in_their_own_dtype():
    """Eagerly `t / n` divides a float64 tensor in float64; the rewrite assumes float32 and the
    broadcast op refuses the mixed dtypes."""
    mx = pytest.importorskip("mxnet")
    source = block_source("return x.sum(axis=-1, keepdims=True) / x.shape[-1]")
    fixed = fixed_source(source, "unsafe")
    x = mx.nd.array(values((2, 3), 0), dtype="float64")
    assert run(build(source, mx), [x], hybridize=False).dtype == np.float64
    with pytest.raises(mx.base.MXNetError, match="expected float64, got float32"):
        run(build(fixed, mx), [x], hybridize=False).asnumpy()


@pytest.mark.mxnet
def test_unsafe_because_repeat_is_exact_only_for_a_multiple():
    mx = pytest.importorskip("mxnet")
    source = block_source(
        "return F.repeat(k, repeats=q.shape[1] // k.shape[1], axis=1) + F.sum(q)", "q, k"
    )
    fixed = fixed_source(source, "unsafe")
    q, k = mx.nd.array(values((1, 5, 2), 0)), mx.nd.array(values((1, 2, 2), 1))
    original = run(build(source, mx), [q, k], hybridize=False)
    rewritten = run(build(fixed, mx), [q, k], hybridize=False)
    assert original.shape == (1, 4, 2) and rewritten.shape == (1, 5, 2)


@pytest.mark.mxnet
def test_unsafe_because_float32_pow_can_differ_from_python_pow():
    mx = pytest.importorskip("mxnet")
    n = np.arange(1, 5000, dtype="float32")
    python = np.array([np.float32(int(v) ** -0.5) for v in n])
    graph = mx.nd.power(mx.nd.array(n), -0.5).asnumpy()
    assert (python != graph).any()
    assert (
        np.array([np.float32(math.sqrt(int(v))) for v in n]) == mx.nd.sqrt(mx.nd.array(n)).asnumpy()
    ).all()
