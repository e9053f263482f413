"""Every fix form of HL001, HL003 and HL004, checked by running it.

For random shapes and indices (hypothesis), a hybrid_forward using the original expression is
linted and fixed with the real linter; the original block runs eagerly (the reference), the
fixed block runs eagerly and hybridized, and values, shapes and dtypes must be equal. Each
property runs on the bundled engine and, marked `mxnet`, on real MXNet 1.9.1 (the ground
truth). When the engine lacks an operator a form needs, the engine case is skipped naming it
(the real-MXNet case still runs).
"""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from fix_support import (
    BACKENDS,
    backend_module,
    block_source,
    build,
    data,
    engine_gaps_skipped,
    fix_settings,
    run,
)
from fix_support import fix_source, lint_source

SETTINGS = fix_settings(25)


def check_equivalent(
    body: str,
    inputs_np,
    mx,
    code: str,
    expect_safety: str = "safe",
    inputs: str = "x",
    helpers: str = "",
):
    """Fix `body` with rule `code`; original eager == fixed eager == fixed hybridized."""
    source = helpers + block_source(body, inputs)
    findings = [f for f in lint_source(source) if f.code == code]
    assert findings and findings[0].fix == expect_safety, (source, findings)
    fixed = fix_source(source, select=[code], unsafe=True).source
    assert fixed != source
    assert not [f for f in lint_source(fixed) if f.code == code and f.fix], fixed
    arrays = [mx.nd.array(a, dtype=a.dtype) for a in inputs_np]
    try:
        expected = run(build(source, mx), arrays, hybridize=False)
    except Exception:  # the original itself fails on this input: nothing to compare
        assume(False)
    with engine_gaps_skipped(mx):
        for hybridize in (False, True):
            arrays = [mx.nd.array(a, dtype=a.dtype) for a in inputs_np]
            got = run(build(fixed, mx), arrays, hybridize)
            assert got.shape == expected.shape, (fixed, hybridize, got.shape, expected.shape)
            assert got.dtype == expected.dtype, (fixed, hybridize, got.dtype, expected.dtype)
            np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


# -- HL003 ---------------------------------------------------------------------------------
@st.composite
def index_expression(draw):
    """(shape, index text, expected fix safety); negative slice bounds stay within the axis
    (beyond it MXNet's slice fails where Python clamps: see the test after this one)."""
    shape = draw(shapes)
    parts = []
    safety = "safe"
    for dim in shape[: draw(st.integers(1, len(shape)))]:
        if draw(st.booleans()):
            parts.append(str(draw(st.integers(-dim, dim - 1))))
        else:
            bound = st.one_of(st.none(), st.integers(-dim, dim + 2))
            lower, upper = draw(bound), draw(bound)
            if any(b is not None and b < 0 for b in (lower, upper)):
                safety = "unsafe"
            step = draw(st.sampled_from([None, 1, 2, 3, -1, -2]))
            text = f"{'' if lower is None else lower}:{'' if upper is None else upper}"
            parts.append(text + ("" if step is None else f":{step}"))
    return shape, ", ".join(parts), safety


@pytest.mark.mxnet
def test_mxnet_slice_fails_for_negative_bounds_beyond_the_axis_which_is_why_they_are_unsafe():
    mx = pytest.importorskip("mxnet")
    x = mx.nd.array([1.0, 2.0])
    assert x[-5:].asnumpy().tolist() == [1.0, 2.0]  # Python semantics: clamped
    with pytest.raises(mx.base.MXNetError, match="sub-memory"):
        mx.nd.slice(x, begin=(-5,), end=(None,)).asnumpy()
    assert lint_source(block_source("y = F.relu(x)\nreturn y[-5:]"))[0].fix == "unsafe"


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(case=index_expression())
def test_hl003_indexing_and_slicing(backend, case):
    mx = backend_module(backend)
    shape, index, safety = case
    x = data(shape)
    try:
        reference = x[tuple(_parse_index(index))]
    except IndexError:
        assume(False)
    assume(reference.size > 0)
    check_equivalent(
        f"y = F.identity(x)\nreturn y[{index}]", [x], mx, "HL003", expect_safety=safety
    )


def _parse_index(text):
    items = []
    for part in text.split(", "):
        if ":" in part:
            bits = [int(b) if b else None for b in part.split(":")]
            items.append(slice(*bits))
        else:
            items.append(int(part))
    return items


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(case=index_expression())
def test_hl003_fluent_forms_in_a_helper_without_f(backend, case):
    mx = backend_module(backend)
    shape, index, safety = case
    x = data(shape)
    try:
        reference = x[tuple(_parse_index(index))]
    except IndexError:
        assume(False)
    assume(reference.size > 0)
    helper = f"def pick(t):\n    return t[{index}]\n\n\n"
    check_equivalent(
        "return pick(F.identity(x))", [x], mx, "HL003", helpers=helper, expect_safety=safety
    )


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes.filter(lambda s: len(s) >= 2), data_=st.data())
def test_hl003_ellipsis_integer_index(backend, shape, data_):
    mx = backend_module(backend)
    index = data_.draw(st.integers(-shape[-1], shape[-1] - 1))
    check_equivalent(f"y = F.identity(x)\nreturn y[..., {index}]", [data(shape)], mx, "HL003")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes.filter(lambda s: len(s) >= 2), data_=st.data())
def test_hl003_ellipsis_slice_is_unsafe_but_exact_in_range(backend, shape, data_):
    mx = backend_module(backend)
    lower = data_.draw(st.integers(0, shape[-1] - 1))
    upper = data_.draw(st.integers(lower + 1, shape[-1]))
    check_equivalent(
        f"return x[..., {lower}:{upper}]", [data(shape)], mx, "HL003", expect_safety="unsafe"
    )


# -- HL001 ---------------------------------------------------------------------------------
dtypes = st.sampled_from(["float32", "float64", "int32"])


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=shapes,
    dtype=dtypes,
    form=st.sampled_from(
        [
            "return F.zeros(x.shape)",
            "return F.ones(x.shape)",
            "return F.ones(shape=x.shape, ctx=x.context)",
            "return F.full(x.shape, 2.5)",
            "return F.zeros(x.shape, dtype=x.dtype)",
            "return F.ones(x.shape, dtype='float64')",
        ]
    ),
)
def test_hl001_like_creation(backend, shape, dtype, form):
    mx = backend_module(backend)
    check_equivalent(form, [data(shape, dtype)], mx, "HL001")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes.filter(lambda s: len(s) >= 2), dtype=dtypes, data_=st.data())
def test_hl001_arange_like(backend, shape, dtype, data_):
    mx = backend_module(backend)
    axis = data_.draw(st.integers(-len(shape), len(shape) - 1))
    form = data_.draw(
        st.sampled_from(
            [
                "F.arange(x.shape[{}])",
                "F.arange(0, x.shape[{}])",
                "F.arange(start=0, stop=x.shape[{}])",
            ]
        )
    )
    check_equivalent("return " + form.format(axis), [data(shape, dtype)], mx, "HL001")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes.filter(lambda s: len(s) >= 2), data_=st.data())
def test_hl001_reshape_codes(backend, shape, data_):
    mx = backend_module(backend)
    kept = data_.draw(st.integers(1, len(shape) - 1))  # leading dims kept, the rest folded into -1
    dims = ", ".join(f"x.shape[{i}]" for i in range(kept))
    form = data_.draw(
        st.sampled_from(
            [
                f"return x.reshape(({dims}, -1))",
                f"return F.reshape(x, shape=({dims}, -1))",
                f"return x.reshape({dims}, -1)",
            ]
        )
    )
    check_equivalent(form, [data(shape)], mx, "HL001")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes)
def test_hl001_transpose(backend, shape):
    mx = backend_module(backend)
    check_equivalent("return x.T", [data(shape)], mx, "HL001")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(side=st.integers(1, 5))
def test_hl001_fixes_in_a_helper_without_f(backend, side):
    mx = backend_module(backend)
    helper = "def helper(t):\n    u = t.T\n    return u.reshape((u.shape[0], -1)) + t.reshape((t.shape[0], -1))\n\n\n"
    check_equivalent(
        "return helper(F.identity(x))", [data((side, side))], mx, "HL001", helpers=helper
    )


_AXIS_FORMS = [
    "F.softmax(x, axis={a})",
    "F.log_softmax(x, axis={a})",
    "F.softmin(x, axis={a})",
    "F.sum(x, axis={a})",
    "x.mean(axis={a})",
    "F.max(x, axis={a})",
    "F.min(x, axis={a})",
    "F.prod(x, axis={a})",
    "F.nansum(x, axis={a})",
    "F.nanprod(x, axis={a})",
    "F.argmax(x, axis={a})",
    "F.argmin(x, axis={a})",
    "F.norm(x, axis={a})",
    "F.topk(x, axis={a}, k=1)",
    "F.sort(x, axis={a})",
    "F.argsort(x, axis={a})",
    "F.slice_axis(x, axis={a}, begin=0, end=1)",
    "F.split(x, axis={a}, num_outputs=1)",
    "F.take(x, F.zeros((1,)), axis={a})",
    "F.repeat(x, repeats=2, axis={a})",
    "F.sum_axis(x, axis={a})",
    "F.concat(x, F.relu(x), dim={a})",
]
_ADDED_AXIS_FORMS = [
    "F.expand_dims(x, axis={a})",
    "x.expand_dims(axis={a})",
    "F.stack(x, x, axis={a})",
]


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, data_=st.data())
def test_hl001_ndim_axis(backend, shape, data_):
    """`axis=x.ndim - k` -> `axis=-k` (`-(k + 1)` where the op adds an axis), for every k in
    range: safe for the last axis, unsafe otherwise (x's rank is unknown here)."""
    mx = backend_module(backend)
    added = data_.draw(st.booleans())
    form = data_.draw(st.sampled_from(_ADDED_AXIS_FORMS if added else _AXIS_FORMS))
    k = data_.draw(st.integers(0 if added else 1, len(shape)))
    axis = "x.ndim" if k == 0 else f"x.ndim - {k}"
    safety = "safe" if k == (0 if added else 1) else "unsafe"
    check_equivalent(
        "return " + form.format(a=axis), [data(shape)], mx, "HL001", expect_safety=safety
    )


@pytest.mark.mxnet
def test_mxnet_names_a_different_axis_when_k_exceeds_the_rank_which_is_why_k_above_1_is_unsafe():
    mx = pytest.importorskip("mxnet")
    x = mx.nd.array([1.0, 2.0, 3.0])
    assert mx.nd.sum(x, axis=x.ndim - 2).shape == (1,)  # axis=-1: valid
    with pytest.raises(mx.base.MXNetError):
        mx.nd.sum(x, axis=-2).wait_to_read()


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, data_=st.data())
def test_hl001_broadcast_to_shape(backend, shape, data_):
    """`broadcast_to(t, x.shape)` -> `broadcast_like(t, x)` for t reduced with keepdims over
    any axes of x."""
    mx = backend_module(backend)
    axes = data_.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True))
    form = data_.draw(
        st.sampled_from(
            [
                "F.broadcast_to(t, x.shape)",
                "F.broadcast_to(t, shape=x.shape)",
                "t.broadcast_to(x.shape)",
                "x - t.broadcast_to(shape=x.shape)",
            ]
        )
    )
    body = f"t = F.max(x, axis={tuple(axes)}, keepdims=True)\nreturn {form}"
    check_equivalent(body, [data(shape)], mx, "HL001")


@pytest.mark.mxnet
@pytest.mark.parametrize("t_shape", [(1, 1), (1, 3), (2, 1), (2, 3)])
@pytest.mark.parametrize("x_shape", [(0, 3), (2, 0), (0, 1), (2, 3), (1, 3), (2, 1), (3,)])
def test_mxnet_broadcast_like_equals_broadcast_to_shape_even_on_zero_size_or_failing_inputs(
    t_shape, x_shape
):
    """Why the broadcast_like rewrite is safe: same result or both fail, empty x included."""
    mx = pytest.importorskip("mxnet")
    t = mx.nd.array(np.arange(np.prod(t_shape)).reshape(t_shape) + 1)
    x = mx.nd.array(np.zeros(x_shape))  # zero-size arrays come from numpy (nd.zeros((0, 3)) fails)

    def outcome(make):
        try:
            return make().asnumpy()
        except mx.base.MXNetError:
            return "fails"

    to, like = (
        outcome(lambda: mx.nd.broadcast_to(t, x.shape)),
        outcome(lambda: mx.nd.broadcast_like(t, x)),
    )
    assert type(to) is type(like)
    if not isinstance(to, str):
        assert to.shape == like.shape and np.array_equal(to, like)


def _fixed_equals(mx, run_net, fixed: str, expected) -> None:
    """`run_net(fixed, hybridize)` eager and hybridized: `expected`'s shape, dtype and values."""
    with engine_gaps_skipped(mx):
        for hybridize in (False, True):
            got = run_net(fixed, hybridize)
            assert got.shape == expected.shape and got.dtype == expected.dtype, (fixed, hybridize)
            np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, data_=st.data())
def test_hl001_tile_of_size_one_axes(backend, shape, data_):
    """`F.tile(token, reps=(x.shape[i], ..., 1))` of a parameter declared with 1 on the tiled
    axes (its other dims computed) -> `F.broadcast_like(token, x, lhs_axes, rhs_axes)`."""
    mx = backend_module(backend)
    tiled = data_.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True))
    sources = [data_.draw(st.integers(0, len(shape) - 1)) for _ in tiled]
    dims = ", ".join("1" if j in tiled else "units" for j in range(len(shape)))
    reps = ", ".join(
        f"x.shape[{sources[tiled.index(j)]}]" if j in tiled else "1" for j in range(len(shape))
    )
    source = (
        f"class Net(HybridBlock):\n    def __init__(self, units={shape[-1]}):\n        super().__init__()\n"
        f"        self.token = self.params.get('token', shape=({dims},))\n\n"
        f"    def hybrid_forward(self, F, x, token):\n        return F.tile(token, reps=({reps},))\n"
    )
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and all(f.fix == "safe" for f in findings), (source, findings)
    fixed = fix_source(source, select=["HL001"]).source
    assert "tile" not in fixed and not [f for f in lint_source(fixed) if f.code == "HL001"], fixed

    def run_net(text, hybridize):
        net = build(text, mx)()
        mx.random.seed(0)
        net.initialize(mx.init.Uniform())
        if hybridize:
            net.hybridize()
        return net(mx.nd.array(data(shape)))

    try:
        expected = run_net(source, False)
    except Exception:  # the original itself fails on this input: nothing to compare
        assume(False)
    _fixed_equals(mx, run_net, fixed, expected)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, data_=st.data())
def test_hl001_repeat_of_a_size_one_axis(backend, shape, data_):
    """`F.repeat(x.expand_dims(j), repeats=x.shape[i], axis=j)` (also fluent, negative j) ->
    `F.broadcast_like(x.expand_dims(j), x, lhs_axes=(j,), rhs_axes=(i,))`."""
    mx = backend_module(backend)
    rank = len(shape)
    j = data_.draw(st.integers(-(rank + 1), rank))
    i = data_.draw(st.integers(-rank, rank - 1))
    fluent = data_.draw(st.booleans())
    expr = (
        f"x.expand_dims({j}).repeat(x.shape[{i}], {j})"
        if fluent
        else f"F.repeat(F.expand_dims(x, axis={j}), repeats=x.shape[{i}], axis={j})"
    )
    source = (
        f"class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return {expr}\n"
    )
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and all(f.fix == "unsafe" for f in findings), (source, findings)
    fixed = fix_source(source, select=["HL001"], unsafe=True).source
    assert "repeat" not in fixed and not [f for f in lint_source(fixed) if f.code == "HL001"], fixed
    x = data(shape)
    assume(shape[i] > 0)  # repeat gives an empty (0,) array there, broadcast_like raises

    def run_net(text, hybridize):
        net = build(text, mx)()
        if hybridize:
            net.hybridize()
        return net(mx.nd.array(x))

    expected = run_net(source, False)
    _fixed_equals(mx, run_net, fixed, expected)


# -- HL004 ---------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=shapes,
    op=st.sampled_from(["+=", "-=", "*=", "/="]),
    scalar=st.booleans(),
    fresh=st.booleans(),
)
def test_hl004_inplace(backend, shape, op, scalar, fresh):
    mx = backend_module(backend)
    x = data(shape)
    y = (np.arange(int(np.prod(shape)), dtype="float32").reshape(shape) % 3) + 1
    right = "2" if scalar else "y"
    # Without F.identity nothing proves the inputs are arrays (gluon may pass lists, and
    # `x += y` on lists is list concatenation in both modes): an unproven value is not reported.
    body = (
        f"z = F.relu(x)\nz {op} {right}\nreturn z"
        if fresh
        else f"x {op} {right}\nreturn F.identity(x)"
    )
    check_equivalent(
        body, [x, y], mx, "HL004", expect_safety="safe" if fresh else "unsafe", inputs="x, y"
    )


@pytest.mark.mxnet
@pytest.mark.parametrize(
    "op, breaks",
    [("+=", True), ("-=", True), ("*=", True), ("/=", True), ("%=", False), ("**=", False)],
)
def test_hl004_reports_exactly_the_operators_that_break_under_mxnet(op, breaks):
    mx = pytest.importorskip("mxnet")
    source = block_source(f"z = F.relu(x)\nz {op} 2\nreturn z")
    net = build(source, mx)()
    net.hybridize()
    x = mx.nd.array(data((2, 3)))
    if breaks:
        with pytest.raises(Exception, match="not implemented for Symbol"):
            net(x)
    else:
        net(x)
    assert bool([f for f in lint_source(source) if f.code == "HL004"]) is breaks


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(count=st.integers(2, 4), data_=st.data())
def test_hl003_multi_output_indices(backend, count, data_):
    mx = backend_module(backend)
    if data_.draw(st.booleans()):
        pick = f"y[{data_.draw(st.integers(-count, -1))}]"
    else:
        lower = data_.draw(st.one_of(st.none(), st.integers(-count, count)))
        upper = data_.draw(st.one_of(st.none(), st.integers(-count, count + 2)))
        step = data_.draw(st.sampled_from([None, 1, -1, -2, 2]))
        bounds = [("" if b is None else str(b)) for b in (lower, upper)]
        pick = f"F.concat(*y[{bounds[0]}:{bounds[1]}{'' if step is None else f':{step}'}], dim=1)"
        assume(len(list(range(count))[lower:upper:step]) > 0)
    body = f"y = F.split(x, num_outputs={count}, axis=1)\nreturn {pick}"
    if [f for f in lint_source(block_source(body)) if f.code == "HL003"]:
        check_equivalent(body, [data((2, count, 3))], mx, "HL003")
    else:  # not reported: then it must hybridize to the eager result as written
        net_class = build(block_source(body), mx)
        eager = run(net_class, [mx.nd.array(data((2, count, 3)))], hybridize=False)
        hybrid = run(net_class, [mx.nd.array(data((2, count, 3)))], hybridize=True)
        np.testing.assert_array_equal(hybrid.asnumpy(), eager.asnumpy(), err_msg=body)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes.filter(lambda s: len(s) >= 2), data_=st.data())
def test_hl003_loop_index(backend, shape, data_):
    mx = backend_module(backend)
    axis = data_.draw(st.integers(0, len(shape) - 1))
    start = data_.draw(st.integers(0, shape[axis] - 1))
    index = ", ".join([":"] * axis + ["i"])
    body = (
        f"y = F.identity(x)\nouts = []\nfor i in range({start}, {shape[axis]}):\n    outs.append(y[{index}] * 2)\n"
        "return F.stack(*outs)"
    )
    check_equivalent(body, [data(shape)], mx, "HL003")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), fill=st.sampled_from(["zeros", "ones"]))
def test_hl001_ctx_argument_dropped_unsafe_but_equal_on_one_device(backend, rows, cols, fill):
    mx = backend_module(backend)
    body = f"return F.broadcast_add(x, F.{fill}((1, {cols}), ctx=x.context))"
    check_equivalent(body, [data((rows, cols))], mx, "HL001", expect_safety="unsafe")
