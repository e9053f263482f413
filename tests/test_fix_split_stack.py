"""HL001: pieces split by a count read from the shape, reshaped alike and stacked again
(rules/hl001/reshape/split_stack.py; i-RevNet's psi block, gluoncv2's IRevDownscale).

`num_outputs=y.shape[a] // s` has no shape-free form, but split + per-piece reshape + stack is
a fixed graph: reshape, transpose, reshape. The property draws the block's variants (the split
axis, the width, the pieces' target, the stack axis, through `y.split` or `F.split`, with
names derived from an unpacked shape and an assert on them), fixes it with the real linter
(`--unsafe-fixes`: the fix is exact only where the width divides the axis) and compares the
original eager output with the fixed block eager and hybridized, on the bundled engine and,
marked `mxnet`, on real MXNet 1.9.1.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fix_support import BACKENDS, backend_module, fix_settings
from fix_support import fix_source, lint_source, run_with_fixed_params
from hybridlint.rules.hl001.reshape.codes import Ref, const, symbol
from hybridlint.rules.hl001.reshape.split_stack import refine, split_stack_steps

INIT = (
    "class Net(HybridBlock):\n"
    "    def __init__(self, scale):\n"
    "        super(Net, self).__init__()\n"
    "        self.scale = scale\n\n"
    "    def hybrid_forward(self, F, x):\n"
)

# gluoncv2 0.0.64 irevnet.py IRevDownscale.hybrid_forward, as written there
IREV = (
    "batch, x_channels, x_height, x_width = x.shape\n"
    "y_channels = x_channels * self.scale * self.scale\n"
    "assert (x_height % self.scale == 0)\n"
    "y_height = x_height // self.scale\n\n"
    "y = x.transpose(axes=(0, 2, 3, 1))\n"
    "d2_split_seq = y.split(axis=2, num_outputs=(y.shape[2] // self.scale))\n"
    "d2_split_seq = [t.reshape(batch, y_height, y_channels) for t in d2_split_seq]\n"
    "y = F.stack(*d2_split_seq, axis=1)\n"
    "y = y.transpose(axes=(0, 3, 2, 1))\n"
    "return y"
)


def source_of(body: str) -> str:
    return INIT + "".join(f"        {line}\n" if line else "\n" for line in body.splitlines())


def data(shape):
    return (np.arange(int(np.prod(shape)), dtype="float32").reshape(shape) % 13) - 6


@st.composite
def blocks(draw):
    """(body, scale, input shape): a split of axis `axis` into pieces of width `scale`, maybe
    reshaped alike, stacked at `stack`."""
    scale = draw(st.integers(1, 3))
    axis = draw(st.integers(1, 3))
    shape = [draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 3)) * scale]
    shape.append(draw(st.integers(1, 3)) * scale)
    # at least two pieces: MXNet's split returns the array itself, no list, for one
    shape[axis] = draw(st.integers(2, 3)) * scale
    form = draw(st.sampled_from(["method", "F"]))
    count = f"y.shape[{axis}] // self.scale"
    split = (
        f"pieces = y.split(axis={axis}, num_outputs={count})"
        if form == "method"
        else f"pieces = F.split(y, num_outputs={count}, axis={axis})"
    )
    target = draw(st.sampled_from(["none", "flat", "merge_last", "keep"]))
    lines = ["b, c, h, w = x.shape", "y = F.relu(x)", split]
    rank = 4
    if target == "flat":
        lines.append("pieces = [t.reshape((b, -1)) for t in pieces]")
        rank = 2
    elif target == "merge_last":
        lines.append("pieces = [t.reshape((b, -1, t.shape[3])) for t in pieces]")
        rank = 3
    elif target == "keep":
        lines.append(
            "pieces = [F.reshape(t, shape=(b, -1, t.shape[2], t.shape[3])) for t in pieces]"
        )
    stack = draw(st.integers(-rank - 1, rank))
    lines.append(f"return F.stack(*pieces, axis={stack})")
    return "\n".join(lines), scale, tuple(shape)


@pytest.mark.parametrize("backend", BACKENDS)
@fix_settings(25)
@given(problem=blocks())
def test_split_reshape_stack_becomes_a_fixed_graph(backend, problem):
    mx = backend_module(backend)
    body, scale, shape = problem
    source = source_of(body)
    fixed = fix_source(source, unsafe=True).source
    assert ".shape" not in fixed and "split(" not in fixed and "stack(" not in fixed, fixed
    arrays = [mx.nd.array(data(shape))]
    expected = run_with_fixed_params(source, mx, arrays, False, attrs={"scale": scale})
    for hybridize in (False, True):
        got = run_with_fixed_params(fixed, mx, arrays, hybridize, attrs={"scale": scale})
        assert got.shape == expected.shape, (fixed, hybridize)
        np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("shape", [(2, 3, 8, 8), (1, 24, 4, 6), (3, 2, 2, 10)])
def test_irevnet_downscale(backend, shape):
    """The block as gluoncv2 wrote it: the unpacking, the names derived from it and the assert
    on them go with the split; an unsafe fix (a width that does not divide the axis)."""
    mx = backend_module(backend)
    source = source_of(IREV)
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and all(f.fix == "unsafe" for f in findings), findings
    fixed = fix_source(source, unsafe=True).source
    assert "x.shape" not in fixed and "assert" not in fixed and "y_height" not in fixed, fixed
    assert "reshape((0, -4, -1, self.scale, -4, -1, self.scale, 0))" in fixed, fixed
    assert "transpose(axes=(0, 3, 1, 2, 4, 5))" in fixed and "reshape((0, 0, 0, -1))" in fixed
    arrays = [mx.nd.array(data(shape))]
    expected = run_with_fixed_params(source, mx, arrays, False, attrs={"scale": 2})
    for hybridize in (False, True):
        got = run_with_fixed_params(fixed, mx, arrays, hybridize, attrs={"scale": 2})
        np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)


def test_safe_fix_leaves_it():
    """Plain `--fix` writes no unsafe fix: the split stays."""
    fixed = fix_source(source_of(IREV)).source
    assert "y.split(axis=2" in fixed


@pytest.mark.parametrize(
    "body",
    [
        # the pieces are read again after the stack
        "y = F.relu(x)\np = y.split(axis=1, num_outputs=y.shape[1])\n"
        "return F.stack(*p, axis=0) + p[0]",
        # a statement between the split and the stack
        "y = F.relu(x)\np = y.split(axis=1, num_outputs=y.shape[1])\nz = x * 2\n"
        "return F.stack(*p, axis=0) + z",
        # a count that is no multiple of a width: pieces of the axis over a shape's dim
        "y = F.relu(x)\np = y.split(axis=1, num_outputs=y.shape[2])\nreturn F.stack(*p, axis=0)",
        # squeeze_axis drops the width
        "y = F.relu(x)\np = F.split(y, num_outputs=y.shape[1], axis=1, squeeze_axis=True)\n"
        "return F.stack(*p, axis=0)",
    ],
)
def test_not_rewritten(body):
    source = source_of(body)
    fixed = fix_source(source, unsafe=True).source
    assert "split(" in fixed, fixed


def test_steps_of_the_psi_block():
    """The pure algebra: atoms b | h / s, s | s | c, the reference's three calls."""
    b, h, w, c, s = (symbol(n) for n in ("b", "h", "w", "c", "ext:self.scale"))

    def render(dim):
        return "self.scale" if dim == s else None

    steps = split_stack_steps([b, h, w, c], 2, s, [b, h / s, c * s * s], 1, render)
    assert steps is not None
    assert steps.literals == ["self.scale"]
    assert steps.calls == [
        ("reshape", (0, -4, -1, Ref(0), -4, -1, Ref(0), 0)),
        ("transpose", (0, 3, 1, 2, 4, 5)),
        ("reshape", (0, 0, 0, -1)),
    ]
    # neither the count nor the width is a literal size (both read the data's dims): no -4
    # names them, no steps
    assert split_stack_steps([b, h, w * h, c], 2, w, [b, h, w, c], 0, render) is None


def test_refine_needs_whole_factors():
    b, h = symbol("b"), symbol("h")
    assert refine([b, h], [b * h]) == ([[b], [h]], [[b, h]])
    assert refine([const(6)], [const(4), const(3)]) is None  # 6 over a 4: straddles
    assert refine([b * h], [b, h]) == ([[b, h]], [[b], [h]])


def test_an_assert_on_an_attribute_named_like_a_dim_stays():
    """`self.h` is no read of the unpacked `h`: the assert on it is not deleted with the
    unpacking (only asserts on the dims themselves go)."""
    body = (
        "b, c, h, w = x.shape\nassert self.h > 0\nassert h % self.scale == 0\ny = F.relu(x)\n"
        "p = y.split(axis=3, num_outputs=y.shape[3] // self.scale)\n"
        "p = [t.reshape((b, c, -1)) for t in p]\nreturn F.stack(*p, axis=1)"
    )
    source = source_of(body).replace(
        "        self.scale = scale\n", "        self.scale = scale\n        self.h = 1\n"
    )
    fixed = fix_source(source, unsafe=True).source
    assert "assert self.h > 0" in fixed and "assert h %" not in fixed, fixed
    assert "x.shape" not in fixed, fixed
