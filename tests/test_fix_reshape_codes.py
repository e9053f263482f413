"""HL001's reshape targets built from shapes, followed through a function (rules/hl001/reshape/flow.py).

Each property draws random shapes (and head counts, groups, upscale factors), writes a block in
the style of the zoos (the dims unpacked from one tensor, the reshape of a value derived from
it, several reshapes in a row, products of dims, `y.shape[1:]` concatenated, a reshape on a line
with an in-place op), fixes it with the real linter and checks: the original eager output equals
the fixed block's eager and hybridized outputs (values, shape, dtype), on the bundled engine
and, marked `mxnet`, on real MXNet 1.9.1. Layers get the same deterministic parameters in both
blocks (set after initialization), so a wrong reshape shows in the values, not just the shape.
The last tests pin what must stay unfixed: a target no code sequence gives, a dim also used as
a value, an unpacking inside a branch.
"""

# ruff: noqa: E741  (b, l: batch and length, as the zoos name them)
import numpy as np
import pytest
from hypothesis import Phase, assume, example, given
from hypothesis import strategies as st

from fix_support import BACKENDS, backend_module, fix_settings
from fix_support import run_with_fixed_params as run
from fix_support import fix_source, lint_source  # memoized: each backend reuses the result

PHASES = [Phase.explicit, Phase.reuse, Phase.generate]
SETTINGS = fix_settings(15, phases=PHASES)


def block_source(
    body: str, init: str = "", inputs: str = "x", params: str = "", methods: str = ""
) -> str:
    init_lines = "".join(f"        {line}\n" for line in init.splitlines())
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    methods = "".join(f"    {line}\n" for line in methods.splitlines())
    return (
        f"class Net(HybridBlock):\n    def __init__(self, {params}**kwargs):\n"
        f"        super(Net, self).__init__()\n{init_lines}"
        f"        for key, value in kwargs.items():\n            setattr(self, key, value)\n\n{methods}"
        f"    def hybrid_forward(self, F, {inputs}):\n{lines}"
    )


def check(
    body: str,
    inputs_np,
    mx,
    *,
    init: str = "",
    attrs=None,
    inputs: str = "x",
    select=("HL001",),
    params: str = "",
    safety: str = "safe",
    methods: str = "",
):
    """Fix `body`; original eager == fixed eager == fixed hybridized; no HL001 left."""
    attrs = attrs or {}
    source = block_source(body, init, inputs, params, methods)
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and all(f.fix == safety for f in findings), (source, findings)
    fixed = fix_source(source, select=list(select), unsafe=True).source
    assert fixed != source
    assert not [f for f in lint_source(fixed) if f.code == "HL001"], fixed
    try:
        expected = run(source, mx, [mx.nd.array(a) for a in inputs_np], False, attrs)
    except Exception:  # the original fails on this input: nothing to compare
        assume(False)
    for hybridize in (False, True):
        got = run(fixed, mx, [mx.nd.array(a) for a in inputs_np], hybridize, attrs)
        assert got.shape == expected.shape, (fixed, hybridize, got.shape, expected.shape)
        assert got.dtype == expected.dtype, (fixed, hybridize)
        np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)
    return fixed


def data(shape):
    return (np.arange(int(np.prod(shape)), dtype="float32").reshape(shape) % 11) - 5


dim = st.integers(1, 4)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, l=dim, heads=st.integers(1, 3), depth=st.integers(1, 3))
def test_split_heads_of_a_projection(backend, b, l, heads, depth):
    """The dims are the input's, the reshape is of a Dense(flatten=False) output."""
    mx = backend_module(backend)
    units = heads * depth
    fixed = check(
        "b, l, u = x.shape\nh = self.proj(x)\nh = h.reshape((b, l, self._heads, u // self._heads))\n"
        "return F.transpose(h, axes=(0, 2, 1, 3))",
        [data((b, l, units))],
        mx,
        init=f"self.proj = nn.Dense({units}, flatten=False, in_units={units})",
        attrs={"_heads": heads},
    )
    assert "(0, 0, self._heads, -1)" in fixed and "x.shape" not in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, l=dim, heads=st.integers(1, 3), depth=dim)
def test_merge_heads_reshape_transpose_reshape(backend, b, l, heads, depth):
    mx = backend_module(backend)
    fixed = check(
        "bh, length, d = x.shape\nx = x.reshape((bh // self._heads, self._heads, length, d))\n"
        "x = F.transpose(x, axes=(0, 2, 1, 3))\n"
        "return x.reshape((bh // self._heads, length, self._heads * d))",
        [data((b * heads, l, depth))],
        mx,
        attrs={"_heads": heads},
    )
    assert "(-4, -1, self._heads, 0, 0)" in fixed and "(0, 0, -3)" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, c=st.integers(1, 2), r=st.integers(1, 3), h=dim, w=dim)
def test_pixel_shuffle(backend, b, c, r, h, w):
    """Splitting one dim into three takes two reshapes; the transpose permutes the dims."""
    mx = backend_module(backend)
    check(
        "x = F.relu(x)\nr = self._r\nb, c, h, w = x.shape\nx = x.reshape((b, c // (r * r), r, r, h, w))\n"
        "x = F.transpose(x, axes=(0, 1, 4, 2, 5, 3))\nreturn x.reshape((b, c // (r * r), h * r, w * r))",
        [data((b, c * r * r, h, w))],
        mx,
        attrs={"_r": r},
    )


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    b=dim,
    groups=st.integers(1, 3),
    per=st.integers(1, 3),
    h=dim,
    w=dim,
    swap=st.sampled_from(
        ["F.swapaxes(x, 1, 2)", "x.swapaxes(1, 2)", "F.transpose(x, axes=(0, 2, 1, 3, 4))"]
    ),
)
def test_channel_shuffle_after_a_convolution(backend, b, groups, per, h, w, swap):
    mx = backend_module(backend)
    channels = groups * per
    fixed = check(
        f"x = self.conv(x)\nb, c, h, w = x.shape\nx = x.reshape((b, self._groups, c // self._groups, h, w))\n"
        f"x = {swap}\nreturn x.reshape((b, c, h, w))",
        [data((b, 2, h, w))],
        mx,
        init=f"self.conv = nn.Conv2D({channels}, 1, in_channels=2)",
        attrs={"_groups": groups},
    )
    assert "x.shape" not in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, anchors=st.integers(1, 3), pred=st.integers(1, 3), h=dim, w=dim)
def test_yolo_layout_from_the_input_dims(backend, b, anchors, pred, h, w):
    """`h * w` of the input is no dim of the conv output as such: equal sizes make it -1."""
    mx = backend_module(backend)
    check(
        "b, _, h, w = x.shape\npred = self.conv(x).reshape((b, self._a, self._p, h * w))\n"
        "pred = pred.transpose(axes=(0, 3, 1, 2))\nreturn pred.reshape((b, h * w * self._a, self._p))",
        [data((b, 2, h, w))],
        mx,
        init=f"self.conv = nn.Conv2D({anchors * pred}, 1, in_channels=2)",
        attrs={"_a": anchors, "_p": pred},
    )


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, t=dim, c=dim, units=dim)
def test_time_distributed_dense_unfolds_with_reshape_like(backend, b, t, c, units):
    mx = backend_module(backend)
    fixed = check(
        "batch, steps, channels = x.shape\ny = self.dense(x.reshape((batch * steps, channels)))\n"
        "return y.reshape((batch, steps, -1))",
        [data((b, t, c))],
        mx,
        init=f"self.dense = nn.Dense({units}, in_units={c})",
    )
    assert "F.reshape_like(y, x, lhs_end=1, rhs_end=2)" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, c=dim, h=dim, w=dim)
def test_flatten_by_a_product_of_dims(backend, b, c, h, w):
    mx = backend_module(backend)
    fixed = check(
        "x = self.conv(x)\nreturn x.reshape((-1, x.shape[1] * x.shape[2] * x.shape[3]))",
        [data((b, 2, h, w))],
        mx,
        init=f"self.conv = nn.Conv2D({c}, 1, in_channels=2)",
    )
    assert "x.shape" not in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, c=dim, h=dim, w=dim, tail=st.sampled_from([(), (1,), (2,)]))
def test_flatten_naming_every_dim_without_minus_one(backend, b, c, h, w, tail):
    """YOLO's `(x.shape[0], x.shape[1] * x.shape[2] * x.shape[3])` (blind round 16): the
    rank is unknown, but the original runs only where the dims after the named ones are 1s
    (a rank-5 input with a last 2 makes it fail, and is skipped), so (0, -1) is exact."""
    mx = backend_module(backend)
    fixed = check(
        "y = F.sigmoid(x)\nreturn y.reshape((x.shape[0], x.shape[1] * x.shape[2] * x.shape[3]))",
        [data((b, c, h, w) + tail)],
        mx,
    )
    assert "y.reshape((0, -1))" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(n=dim, feat=dim, classes=st.integers(1, 3))
def test_box_regression_sizes_settle_the_dense_units(backend, n, feat, classes):
    mx = backend_module(backend)
    check(
        "deltas = self.box(x)\nreturn deltas.reshape((x.shape[0], self._classes + 1, 4))",
        [data((n, feat))],
        mx,
        init=f"self.box = nn.Dense({(classes + 1) * 4}, in_units={feat})",
        attrs={"_classes": classes},
    )


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=st.lists(dim, min_size=1, max_size=4).map(tuple),
    samples=st.integers(1, 3),
    form=st.sampled_from(
        [
            "y.reshape(shape=(-1, self._s) + y.shape[1:])",
            "F.reshape(y, shape=(-1, self._s) + y.shape[1:])",
            "y.reshape((-1, self._s) + y.shape[1:])",
        ]
    ),
)
def test_shape_tail_concatenated(backend, shape, samples, form):
    """`(-1, S) + y.shape[1:]` on a tensor of any rank: the tail is -2."""
    mx = backend_module(backend)
    fixed = check(
        f"y = F.repeat(x, repeats=self._s, axis=0)\nreturn {form}",
        [data(shape)],
        mx,
        attrs={"_s": samples},
    )
    assert "(-4, -1, self._s, -2)" in fixed


_FFN = (
    "h = F.identity(x)\n"
    "h += self.ffn_2(self.ffn_1(x.reshape((-3, 0)))).reshape((x.shape[0], -1, self._units))\nreturn h"
)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, l=dim, units=dim, hidden=dim)
def test_reshape_on_a_line_with_an_inplace_add(backend, b, l, units, hidden):
    """HL004 rewrites `h +=`, HL001 the reshape; both edits compose. The Dense's units are the
    constructor argument stored as `self._units`."""
    mx = backend_module(backend)
    fixed = check(
        _FFN,
        [data((b, l, units))],
        mx,
        select=("HL001", "HL004"),
        params="units, hidden, ",
        init="self._units = units\nself.ffn_1 = nn.Dense(hidden, in_units=units)\n"
        "self.ffn_2 = nn.Dense(units, in_units=hidden)",
        attrs={"units": units, "hidden": hidden},
    )
    assert "F.reshape_like(" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, l=dim, units=dim, hidden=dim)
def test_reshape_with_literal_layer_sizes(backend, b, l, units, hidden):
    """The same with literal sizes (`self._units = 4`, `Dense(4)`)."""
    mx = backend_module(backend)
    check(
        _FFN,
        [data((b, l, units))],
        mx,
        select=("HL001", "HL004"),
        init=f"self._units = {units}\nself.ffn_1 = nn.Dense({hidden}, in_units={units})\n"
        f"self.ffn_2 = nn.Dense({units}, in_units={hidden})",
    )


# -- what must stay unfixed -------------------------------------------------------------------
def _hl001(body: str, init: str = ""):
    return [f for f in lint_source(block_source(body, init)) if f.code == "HL001"]


def test_a_dim_used_as_a_value_keeps_the_unpacking():
    fixed = fix_source(
        block_source("b, l, u = x.shape\ny = x.reshape((b, l, 2, u // 2))\nreturn y * b"),
        select=["HL001"],
    ).source
    assert "b, l, u = x.shape" in fixed


@pytest.mark.parametrize(
    "body",
    [
        "b, l, u = x.shape\nreturn x.reshape((l, b, u))",  # a permutation
        "b, l, u = x.shape\ny = F.relu(x)\nreturn y.reshape((b * 2, l, u // 2))",  # a size moved across dims
        "b, l, u = x.shape\ny = F.concat(x, x, dim=0)\nreturn y.reshape((b, l, u, -1))",  # two unknowns
        "if self._flag:\n    b, l, u = x.shape\nelse:\n    b, l, u = 1, 2, 3\nreturn x.reshape((b, l, u))",
    ],
)
def test_targets_without_an_exact_rewrite_are_reported_only(body):
    findings = _hl001(body)
    assert findings and all(f.fix is None for f in findings), findings


def test_a_name_reassigned_between_unpacking_and_reshape_is_not_followed():
    findings = _hl001(
        "b, l, u = x.shape\nx = F.concat(x, x, dim=2)\nreturn x.reshape((b, l, u, 2))"
    )
    assert findings and all(f.fix is None for f in findings), findings


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, heads=st.integers(1, 3), lq=dim, lk=dim, d=dim, transpose=st.booleans())
def test_scores_of_a_batch_dot_split_by_heads(backend, b, heads, lq, lk, d, transpose):
    """batch_dot's output dims come from both inputs (3-D, as legacy batch_dot needs)."""
    mx = backend_module(backend)
    k_shape = (b * heads, lk, d) if transpose else (b * heads, d, lk)
    fixed = check(
        f"return F.batch_dot(q, k, transpose_b={transpose}).reshape("
        f"(q.shape[0] // self._heads, self._heads, q.shape[1], k.shape[{1 if transpose else 2}]))",
        [data((b * heads, lq, d)), data(k_shape)],
        mx,
        inputs="q, k",
        attrs={"_heads": heads},
    )
    assert "(-4, -1, self._heads, 0, 0)" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, l=dim, c=dim, units=dim)
def test_batch_size_cached_on_self_for_a_helper(backend, b, l, c, units):
    """The state goes and the helper's reshape gets code 0 (unsafe: see HL001's explanation)."""
    mx = backend_module(backend)
    fixed = check(
        "self._batch = x.shape[0]\nreturn self._flat(F, self.proj(x))",
        [data((b, l, c))],
        mx,
        init=f"self._batch = None\nself.proj = nn.Dense({units}, flatten=False, in_units={c})",
        methods="def _flat(self, F, q):\n    return q.reshape((self._batch, -1))\n\n",
        safety="unsafe",
    )
    assert "q.reshape((0, -1))" in fixed and "self._batch = x" not in fixed


def test_a_cached_dim_read_elsewhere_keeps_its_state():
    source = block_source(
        "self._batch = x.shape[0]\nreturn self._flat(F, self.proj(x)) + self._batch",
        init="self._batch = None\nself.proj = nn.Dense(4, flatten=False)",
        methods="def _flat(self, F, q):\n    return q.reshape((self._batch, -1))\n\n",
    )
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and all(f.fix is None for f in findings), findings


@st.composite
def written_targets(draw):
    """(input shape, body): a reshape target written from the input's dims (unpacked names or
    `x.shape[i]`) by copying, merging neighbours, splitting by 2, inserting 1, one -1, and maybe
    a tail `x.shape[k:]`, of x itself or of a value derived from it."""
    n = draw(st.integers(1, 4))
    factors = [draw(st.sampled_from([1, 2])) for _ in range(n)]
    shape = tuple(f * draw(st.integers(1, 3)) for f in factors)
    unpack = draw(st.booleans())
    name = (lambda i: f"d{i}") if unpack else (lambda i: f"x.shape[{i}]")
    stop = draw(st.integers(1, n)) if draw(st.booleans()) else n
    parts, i = [], 0
    while i < stop:
        op = draw(st.sampled_from(["copy", "merge", "split", "one"]))
        if op == "merge" and i + 1 < stop:
            parts.append(f"{name(i)} * {name(i + 1)}")
            i += 2
        elif op == "split" and factors[i] == 2:
            parts += [f"{name(i)} // 2", "2"] if draw(st.booleans()) else ["2", f"{name(i)} // 2"]
            i += 1
        elif op == "one":
            parts.append("1")
        else:
            parts.append(name(i))
            i += 1
    if draw(st.booleans()):
        parts[draw(st.integers(0, len(parts) - 1))] = "-1"
    # MXNet 1.9.1's MKLDNN arrays have at most 6 axes ("MKLDNN doesn't support 7 dimensions")
    assume(len(parts) + n - stop <= 6)
    target = "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    if stop < n:
        target += f" + x.shape[{stop}:]"
    data = draw(st.sampled_from(["x", "F.relu(x)", "(x * 2)", "F.identity(x).astype('float32')"]))
    lines = []
    if unpack:
        lines.append(", ".join(f"d{j}" for j in range(n)) + (",", "")[n > 1] + " = x.shape")
    lines.append(f"y = {data}")
    lines.append(f"return y.reshape({target})")
    return shape, "\n".join(lines)


@pytest.mark.parametrize("backend", BACKENDS)
@fix_settings(60, phases=PHASES)
@given(problem=written_targets())
@example(  # found by CI: the unused unpacking goes, the tail without a code sequence stays
    problem=(
        (2, 3, 3),
        "d0, d1, d2 = x.shape\ny = F.relu(x)\nreturn y.reshape((1, -1, 2) + x.shape[1:])",
    )
)
def test_random_written_targets_fixed_or_left_alone(backend, problem):
    """Whatever HL001 rewrites of a random target equals the original on every backend."""
    mx = backend_module(backend)
    shape, body = problem
    source = block_source(body)
    fixed = fix_source(source, select=["HL001"], unsafe=True).source
    assume(fixed != source)
    # a target with no code sequence keeps its shape read while an unused unpacking above it is
    # removed (`(1, -1, 2) + x.shape[1:]`): that read must still be reported, and the fixed block
    # still computes the original eagerly
    leftover = ".shape" in fixed.split("def hybrid_forward")[1]
    if leftover:
        assert any(f.code == "HL001" for f in lint_source(fixed, select=["HL001"])), fixed
    try:
        expected = run(source, mx, [mx.nd.array(data(shape))], False, {})
    except Exception:
        assume(False)
    for hybridize in (False,) if leftover else (False, True):
        got = run(fixed, mx, [mx.nd.array(data(shape))], hybridize, {})
        assert got.shape == expected.shape, (body, fixed, hybridize, got.shape, expected.shape)
        np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)


@st.composite
def permuted_targets(draw):
    """(input shape, body): x transposed by a random permutation, then reshaped with a target
    written from x's unpacked dims in the transposed order, neighbours merged at random."""
    n = draw(st.integers(2, 4))
    shape = tuple(draw(st.integers(1, 3)) for _ in range(n))
    perm = draw(st.permutations(range(n)))
    names = [f"d{p}" for p in perm]
    parts, i = [], 0
    while i < n:
        if i + 1 < n and draw(st.booleans()):
            parts.append(f"{names[i]} * {names[i + 1]}")
            i += 2
        else:
            parts.append(names[i])
            i += 1
    if draw(st.booleans()):
        parts[draw(st.integers(0, len(parts) - 1))] = "-1"
    target = "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"
    body = (
        ", ".join(f"d{j}" for j in range(n)) + " = x.shape\n"
        f"y = F.transpose(x, axes={tuple(perm)})\nreturn y.reshape({target})"
    )
    return shape, body


@pytest.mark.parametrize("backend", BACKENDS)
@fix_settings(40, phases=PHASES)
@given(problem=permuted_targets())
def test_targets_after_a_random_transpose(backend, problem):
    """The transpose permutes the followed dims: every such target has codes (merges of
    neighbours and copies), and they equal the original eager and hybridized."""
    mx = backend_module(backend)
    shape, body = problem
    fixed = check(body, [data(shape)], mx)
    assert "x.shape" not in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(b=dim, c=dim, h=dim, w=dim, varargs=st.booleans())
def test_a_gate_of_unknown_shape_reshaped_to_the_inputs_dims(backend, b, c, h, w, varargs):
    """SRM's style gate (blind round 6): after `b, c, h, w = x.shape` the gate `g` comes from
    moments, a grouped Conv1D and BatchNorm (a shape the flow does not follow), and
    `g.reshape((b, c, 1, 1))` reads only x's leading dims and literals:
    `F.reshape_like(g.reshape((-1, 1, 1)), x, lhs_end=1, rhs_end=2)`."""
    mx = backend_module(backend)
    first = "x.reshape(b, c, h * w)" if varargs else "x.reshape((b, c, h * w))"
    last = "g.reshape(b, c, 1, 1)" if varargs else "g.reshape((b, c, 1, 1))"
    fixed = check(
        "b, c, h, w = x.shape\n"
        f"mean, var = F.moments({first}, axes=-1)\n"
        "u = F.concat(F.expand_dims(mean, axis=-1), F.expand_dims(var, axis=-1), dim=-1)\n"
        "g = F.sigmoid(self.bn(self.cfc(u)))\n"
        f"g = {last}\n"
        "return F.broadcast_mul(g, x)",
        [data((b, c, h, w))],
        mx,
        init=(
            f"self.cfc = nn.Conv1D({c}, in_channels={c}, kernel_size=2, use_bias=False, "
            f"groups={c})\nself.bn = nn.BatchNorm(in_channels={c})"
        ),
        select=("HL001", "HL011"),
    )
    assert "F.reshape_like(g.reshape((-1, 1, 1)), x, lhs_end=1, rhs_end=2)" in fixed, fixed
    assert "x.shape" not in fixed, fixed


def test_a_run_of_dims_between_literal_sizes_and_without_any():
    """Literal sizes on both sides of the run give lhs_begin/lhs_end; a target that is all
    the run needs no inner reshape; a -1 in the target or a size of two tensors gives no plan."""
    init = "self.gate = nn.HybridLambda(lambda F, t: F.sigmoid(t))"

    def fixed_text(body: str) -> str:
        return fix_source(block_source(body, init, inputs="x, t"), select=["HL001"]).source

    both = fixed_text("b, c, h, w = x.shape\ng = self.gate(t)\nreturn g.reshape((2, b, c, 3))")
    assert "F.reshape_like(g.reshape((2, -1, 3)), x, lhs_begin=1, lhs_end=2, rhs_end=2)" in both
    whole = fixed_text("b, c, h, w = x.shape\ng = self.gate(t)\nreturn g.reshape((c, h))")
    assert "F.reshape_like(g, x, rhs_begin=1, rhs_end=3)" in whole, whole
    for body in (
        "b, c, h, w = x.shape\ng = self.gate(t)\nreturn g.reshape((b, c, -1))",
        "b, c, h, w = x.shape\nn = t.shape[0]\ng = self.gate(t)\nreturn g.reshape((n, c))",
    ):
        assert "x.shape" in fixed_text(body), body
