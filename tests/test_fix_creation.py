"""HL001's shape-driven creation, arange, resize and tile rewrites (rules/hl001/creation.py,
rules/hl001/axes.py), checked by running them.

For random shapes (hypothesis), a hybrid_forward that builds an array from tensor shapes is
linted and fixed with the real linter; the original block runs eagerly (the reference), the
fixed block runs eagerly and hybridized, and values, shapes and dtypes must be equal. Each
property runs on the bundled engine and, marked `mxnet`, on real MXNet 1.9.1 (the ground
truth; run these with /tmp/mxv/bin/python or any MXNet 1.9.1 environment). Findings that must
stay report-only are checked too, so a rewrite cannot silently widen.
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


def outputs(result):
    return list(result) if isinstance(result, (list, tuple)) else [result]


def check_equivalent(source: str, inputs_np, mx, expect_safety: str = "safe"):
    """Fix `source` with HL001; original eager == fixed eager == fixed hybridized. Returns the
    fixed source."""
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and all(f.fix == expect_safety for f in findings), (source, findings)
    fixed = fix_source(source, select=["HL001"], unsafe=True).source
    assert fixed != source
    assert not [f for f in lint_source(fixed) if f.code == "HL001"], fixed
    arrays = [mx.nd.array(a, dtype=a.dtype) for a in inputs_np]
    try:
        expected = outputs(build(source, mx)()(*arrays))
        for e in expected:
            e.wait_to_read()
    except Exception:  # the original itself fails on this input: nothing to compare
        assume(False)
    with engine_gaps_skipped(mx):
        for hybridize in (False, True):
            got = outputs(
                run(build(fixed, mx), [mx.nd.array(a, dtype=a.dtype) for a in inputs_np], hybridize)
            )
            assert len(got) == len(expected)
            for g, e in zip(got, expected):
                assert g.shape == e.shape, (fixed, hybridize, g.shape, e.shape)
                assert g.dtype == e.dtype, (fixed, hybridize, g.dtype, e.dtype)
                np.testing.assert_array_equal(g.asnumpy(), e.asnumpy(), err_msg=fixed)
    return fixed


def report_only(source: str):
    """HL001 reports the hazard and offers no fix."""
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and all(f.fix is None for f in findings), (source, findings)


shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


@st.composite
def creation_shape(draw, rank):
    """A creation shape over an input of rank `rank`: (elements as text, at least one dim)."""
    count = draw(st.integers(1, 4))
    elements = []
    for _ in range(count):
        if draw(st.booleans()):
            k = draw(st.integers(-rank, rank - 1))
            elements.append(f"x.shape[{k}]")
        else:
            elements.append(str(draw(st.integers(1, 3))))
    if not any("shape" in e for e in elements):
        elements[draw(st.integers(0, count - 1))] = f"x.shape[{draw(st.integers(0, rank - 1))}]"
    return elements


def tuple_text(elements):
    return "(" + ", ".join(elements) + ("," if len(elements) == 1 else "") + ")"


# -- creation with dims of a tensor in the shape ---------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, data_=st.data())
def test_creation_of_a_shape_tuple_with_dims(backend, shape, data_):
    """`F.zeros((x.shape[0], 3))`, `F.ones(...)`, `F.full(..., v)` with or without dtype ->
    the creation with 1s broadcast_like x over those axes."""
    mx = backend_module(backend)
    elements = data_.draw(creation_shape(len(shape)))
    op = data_.draw(st.sampled_from(["zeros", "ones", "full"]))
    value = ", 2.5" if op == "full" else ""
    dtype = data_.draw(st.sampled_from(["", ", dtype='float64'", ", dtype='int32'"]))
    body = f"y = F.relu(x)\nreturn F.{op}({tuple_text(elements)}{value}{dtype}), y"
    fixed = check_equivalent(
        block_source(body), [data(shape)], mx, expect_safety="unsafe" if op == "full" else "safe"
    )
    assert "broadcast_like" in fixed and ".shape" not in fixed, fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, other=shapes, data_=st.data())
def test_creation_from_dims_of_two_tensors(backend, shape, other, data_):
    """Dims of two inputs: one broadcast_like per source tensor."""
    mx = backend_module(backend)
    k = data_.draw(st.integers(0, len(shape) - 1))
    j = data_.draw(st.integers(0, len(other) - 1))
    body = f"y = F.relu(x)\nw = F.relu(z)\nreturn F.ones((x.shape[{k}], 2, z.shape[{j}])), y, w"
    fixed = check_equivalent(block_source(body, "x, z"), [data(shape), data(other)], mx)
    assert fixed.count("broadcast_like") == 2, fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, data_=st.data())
def test_dims_bound_to_names_then_created(backend, shape, data_):
    """`n = x.shape[k]` / `a, b, ... = x.shape` used only in creations: the binding goes away,
    every use is rewritten."""
    mx = backend_module(backend)
    rank = len(shape)
    names = [f"d{i}" for i in range(rank)]
    if data_.draw(st.booleans()):
        k = data_.draw(st.integers(-rank, rank - 1))
        binding, used = f"n = x.shape[{k}]", ["n"]
    else:
        binding, used = f"{', '.join(names)}{',' if rank == 1 else ''} = x.shape", names
    first = data_.draw(st.lists(st.sampled_from(used + ["2"]), min_size=1, max_size=3))
    second = data_.draw(st.lists(st.sampled_from(used + ["3"]), min_size=1, max_size=3))
    if not any(e in used for e in first):
        first[0] = used[0]
    body = (
        f"y = F.relu(x)\n{binding}\na = F.zeros({tuple_text(first)})\n"
        f"b = F.ones({tuple_text(second)}, dtype='float64')\nreturn a, b, y"
    )
    fixed = check_equivalent(block_source(body), [data(shape)], mx)
    assert ".shape" not in fixed, fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes.filter(lambda s: len(s) >= 2), data_=st.data())
def test_dims_used_in_creations_and_reshapes_of_the_same_tensor(backend, shape, data_):
    """An unpacking used both in a creation and in a reshape of x: the creation is broadcast,
    the reshape gets MXNet's codes, the unpacking goes away."""
    mx = backend_module(backend)
    names = [f"d{i}" for i in range(len(shape))]
    k = data_.draw(st.integers(0, len(shape) - 1))
    target = tuple_text([names[0], "-1"] if data_.draw(st.booleans()) else names)
    body = (
        f"y = F.relu(x)\n{', '.join(names)} = x.shape\n"
        f"return F.zeros(({names[k]}, 3)), x.reshape({target}), y"
    )
    fixed = check_equivalent(block_source(body), [data(shape)], mx)
    assert ".shape" not in fixed and "reshape((0, " in fixed, fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes.filter(lambda s: len(s) >= 2), data_=st.data())
def test_full_of_a_dim_value(backend, shape, data_):
    """`F.full((x.shape[0], 2), x.shape[k])` (CTC lengths): the value read with shape_array."""
    mx = backend_module(backend)
    elements = data_.draw(creation_shape(len(shape)))
    k = data_.draw(st.integers(-len(shape), len(shape) - 1))
    dtype = data_.draw(st.sampled_from(["", ", dtype='int32'", ", dtype='float64'"]))
    static = data_.draw(st.booleans())
    if static:
        elements = [str(data_.draw(st.integers(1, 3))) for _ in elements]
    body = f"y = F.relu(x)\nreturn F.full({tuple_text(elements)}, x.shape[{k}]{dtype}), y"
    fixed = check_equivalent(
        block_source(body), [data(shape)], mx, expect_safety="safe" if static else "unsafe"
    )
    assert "shape_array" in fixed, fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, data_=st.data())
def test_arange_of_a_bound_dim(backend, shape, data_):
    """`length = x.shape[k]` then `F.arange(length)` masks (causal masks, positions)."""
    mx = backend_module(backend)
    k = data_.draw(st.integers(-len(shape), len(shape) - 1))
    form = data_.draw(
        st.sampled_from(
            ["F.arange(n)", "F.arange(0, n)", "F.arange(stop=n)", "F.arange(n, dtype='int32')"]
        )
    )
    other = form.replace("(n", "(start=0, stop=n") if form == "F.arange(n)" else form
    body = (
        f"y = F.relu(x)\nn = x.shape[{k}]\nrows = {form}.reshape((-1, 1))\n"
        f"cols = {other}.reshape((1, -1))\nreturn F.broadcast_lesser_equal(cols, rows), y"
    )
    fixed = check_equivalent(block_source(body), [data(shape)], mx)
    assert "arange_like" in fixed and ".shape" not in fixed, fixed


# -- resize ----------------------------------------------------------------------------------
resize_shapes = st.tuples(
    st.integers(1, 2), st.integers(1, 3), st.integers(1, 6), st.integers(1, 6)
)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(top=resize_shapes, target=resize_shapes, data_=st.data())
def test_bilinear_resize_to_another_tensors_size(backend, top, target, data_):
    """`BilinearResize2D(t, height=x.shape[2], width=x.shape[3])` (or names bound by
    `h, w = x.shape[2:]`, `_, _, h, w = x.shape`, `h, w = x.shape[2], x.shape[3]`)
    -> `BilinearResize2D(t, like=x, mode='like')`."""
    mx = backend_module(backend)
    corners = data_.draw(st.sampled_from(["", ", align_corners=False", ", align_corners=True"]))
    if data_.draw(st.booleans()):
        body = (
            f"y = F.relu(x)\nreturn F.contrib.BilinearResize2D(t, height=y.shape[2], "
            f"width=y.shape[3]{corners}), y"
        )
    else:
        binding = data_.draw(
            st.sampled_from(
                [
                    "height, width = x.shape[2:]",
                    "_, _, height, width = x.shape",
                    "height, width = x.shape[2], x.shape[3]",
                ]
            )
        )
        body = (
            f"y = F.relu(x)\n{binding}\nreturn F.contrib.BilinearResize2D("
            f"F.relu(t), height=height, width=width{corners}), y"
        )
    t = np.random.RandomState(0).rand(*top).astype("float32")
    fixed = check_equivalent(block_source(body, "t, x"), [t, data(target)], mx)
    assert "mode='like'" in fixed, fixed


# -- tile of expand_dims -------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(batch=st.integers(1, 3), query=st.integers(1, 4), keys=st.integers(1, 4))
def test_tile_of_an_expand_dims_over_the_new_axis_is_unsafe_but_exact_on_the_written_rank(
    backend, batch, query, keys
):
    """A key-padding mask (B, Lk) repeated over the query length: `F.tile(m.expand_dims(1),
    reps=(1, q.shape[1], 1))` -> broadcast_like over axis 1 (unsafe: m's rank is not known)."""
    mx = backend_module(backend)
    body = (
        "scores = F.batch_dot(q, k, transpose_b=True)\n"
        "mask = F.tile(m.expand_dims(axis=1), reps=(1, q.shape[1], 1))\n"
        "return F.softmax(scores + (1.0 - mask) * -1e4, axis=-1)"
    )
    rng = np.random.RandomState(batch * 100 + query * 10 + keys)
    arrays = [
        rng.rand(batch, query, 3).astype("float32"),
        rng.rand(batch, keys, 3).astype("float32"),
        (rng.rand(batch, keys) > 0.5).astype("float32"),
    ]
    fixed = check_equivalent(block_source(body, "q, k, m"), arrays, mx, expect_safety="unsafe")
    assert "tile" not in fixed, fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), batch=st.integers(1, 3))
def test_tile_of_an_expand_dims_of_a_known_shape_is_safe(backend, rows, cols, batch):
    """A parameter of declared shape expanded on axis 0 and tiled to the batch: rank known."""
    mx = backend_module(backend)
    source = (
        f"class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
        f"        self.base = self.params.get('base', shape=({rows}, {cols}), init=mx.init.One())\n\n"
        f"    def hybrid_forward(self, F, x, base):\n"
        f"        return F.tile(base.expand_dims(axis=0), reps=(x.shape[0], 1, 1))\n"
    )
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and findings[0].fix == "safe", findings
    fixed = fix_source(source, select=["HL001"]).source
    assert "broadcast_like(base.expand_dims(axis=0), x, lhs_axes=(0,), rhs_axes=(0,))" in fixed, (
        fixed
    )
    for hybridize in (False, True):
        for text in (source, fixed):
            net = build(text, mx)()
            net.initialize()
            if hybridize and text is fixed:
                net.hybridize()
            got = net(mx.nd.array(data((batch, 2))))
            assert got.shape == (batch, rows, cols)
            np.testing.assert_array_equal(got.asnumpy(), np.ones((batch, rows, cols), "float32"))


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, data_=st.data())
def test_a_name_read_by_a_creation_and_by_tensor_arithmetic(backend, shape, data_):
    """`n = x.shape[0]` read by `F.ones((n, 2))` and by `F.sum(y) * (1. / n)` (blind round 6's
    L-GM loss): the creation broadcasts over x's axis, the arithmetic becomes the broadcast op
    of n as a float32 tensor of x's shape, the binding goes; unsafe (the float form of a dim,
    rules/hl001/scalars.py)."""
    mx = backend_module(backend)
    k = data_.draw(st.integers(0, len(shape) - 1))
    op = data_.draw(st.sampled_from(["* (1. / n)", "/ n", "* n"]))
    body = f"y = F.relu(x)\nn = x.shape[{k}]\nreturn F.ones((n, 2)), F.sum(y) {op}"
    fixed = check_equivalent(block_source(body), [data(shape)], mx, expect_safety="unsafe")
    assert "broadcast_like" in fixed and "shape_array" in fixed and "x.shape" not in fixed, fixed


# -- what stays report-only ------------------------------------------------------------------
@pytest.mark.parametrize(
    "body",
    [
        # a dim in arithmetic: no axis of x has that size
        "y = F.relu(x)\nreturn F.zeros((x.shape[0] * 2, 3)) + F.sum(y)",
        # a name that is also used as a Python number (returned): the binding stays
        "y = F.relu(x)\nn = x.shape[0]\nreturn F.zeros((n, 3)) + F.sum(y), n",
        # bound twice: which dim the use reads depends on the flow
        "y = F.relu(x)\nn = x.shape[0]\nif y is None:\n    n = x.shape[1]\nreturn F.zeros((n, 3)) + F.sum(y)",
        # x reassigned after the binding: the use would read the new x
        "n = x.shape[0]\nx = F.concat(x, x, dim=0)\nreturn F.zeros((n, 3)) + F.sum(x)",
        # arange with a start: arange_like has no such length
        "y = F.relu(x)\nreturn F.arange(1, x.shape[0]) + F.sum(y)",
        # a resize to dims of two tensors, or a scale argument
        "y = F.relu(x)\nreturn F.contrib.BilinearResize2D(t, height=y.shape[2], width=t.shape[3])",
        "y = F.relu(x)\nreturn F.contrib.BilinearResize2D(t, height=y.shape[1], width=y.shape[2])",
        # tiling an axis not known to be 1 repeats it: no broadcast
        "y = F.relu(x)\nreturn F.tile(t, reps=(y.shape[0], 1))",
        "y = F.relu(x)\nreturn F.tile(t.expand_dims(axis=1), reps=(y.shape[0], 1, 1))",
    ],
)
def test_forms_without_an_exact_rewrite_stay_report_only(body):
    report_only(block_source(body, "x, t"))


@pytest.mark.mxnet
def test_mxnet_like_mode_reads_axes_2_and_3_of_any_rank_which_is_why_axes_2_3_are_safe():
    """The `like` mode takes like.shape[2], like.shape[3] even of a rank-5 array, what the
    original passes; on rank < 4 both forms fail."""
    mx = pytest.importorskip("mxnet")
    t = mx.nd.array(np.random.RandomState(1).rand(1, 2, 3, 4))
    for shape in [(2, 3, 5, 7), (2, 3, 5, 7, 2), (1, 1, 2, 9)]:
        like = mx.nd.zeros(shape)
        by_size = mx.nd.contrib.BilinearResize2D(t, height=shape[2], width=shape[3])
        by_like = mx.nd.contrib.BilinearResize2D(t, like=like, mode="like")
        np.testing.assert_array_equal(by_size.asnumpy(), by_like.asnumpy())
    with pytest.raises(mx.base.MXNetError):
        mx.nd.contrib.BilinearResize2D(t, like=mx.nd.zeros((2, 5, 7)), mode="like").wait_to_read()


@pytest.mark.mxnet
def test_mxnet_zeros_of_a_zero_dim_fail_but_full_does_not_which_is_why_only_full_is_unsafe():
    """The one input where `broadcast_like(F.zeros((1, n)), x)` and `F.zeros((x.shape[0], n))`
    differ, a zero dim (broadcast_like over axes fails there), fails in the original for
    zeros, ones and arange too; `full` makes an empty array there."""
    mx = pytest.importorskip("mxnet")
    x = mx.nd.array(np.zeros((0, 3), "float32"))
    for make in (
        lambda: mx.nd.zeros((0, 3)),
        lambda: mx.nd.ones((2, 0), dtype="int32"),
        lambda: mx.nd.arange(0),
        lambda: mx.nd.contrib.arange_like(x, axis=0),
    ):
        with pytest.raises(mx.base.MXNetError):
            make().wait_to_read()
    assert mx.nd.full((0, 3), 2.0).shape == (0, 3)
    with pytest.raises(
        mx.base.MXNetError
    ):  # what the rewrite does there: not the same, hence unsafe
        mx.nd.broadcast_like(
            mx.nd.full((1, 3), 2.0), x, lhs_axes=(0,), rhs_axes=(0,)
        ).wait_to_read()
