"""HL001's rewrite of resize sizes a helper method computes from the input's shape
(rules/hl001/resize_helper.py, issue 20): gluoncv2's InterpolationBlock.

The block is linted and fixed with the real linter; the original runs eagerly (the reference),
the fixed block eagerly and hybridized, on the bundled engine and (marked `mxnet`) on real
MXNet 1.9.1: values, shapes and dtypes must equal. The MXNet facts the rewrite rests on (the
scale mode sizes `h * k` exactly for an integer k, a `1 / k` scale gives `h // k` for k up to 32
but not beyond) are checked on real MXNet below.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fix_support import BACKENDS, backend_module, engine_gaps_skipped, fix_settings
from fix_support import fix_source, lint_source

SETTINGS = fix_settings(20)

# gluoncv2/models/common.py's InterpolationBlock, its resize path (the `bilinear=False` branch
# and the docstring left out)
INTERPOLATION = """\
class Net(HybridBlock):
    def __init__(self, scale_factor, out_size=None, up=True, **kwargs):
        super(Net, self).__init__(**kwargs)
        self.scale_factor = scale_factor
        self.out_size = out_size
        self.up = up

    def hybrid_forward(self, F, x, size=None):
        out_size = self.calc_out_size(x) if size is None else size
        return F.contrib.BilinearResize2D(x, height=out_size[0], width=out_size[1])

    def calc_out_size(self, x):
        if self.out_size is not None:
            return self.out_size
        if self.up:
            return tuple(s * self.scale_factor for s in x.shape[2:])
        else:
            return tuple(s // self.scale_factor for s in x.shape[2:])
"""

FIXED = """\
class Net(HybridBlock):
    def __init__(self, scale_factor, out_size=None, up=True, **kwargs):
        super(Net, self).__init__(**kwargs)
        self.scale_factor = scale_factor
        self.out_size = out_size
        self.up = up

    def hybrid_forward(self, F, x, size=None):
        out_size = self.calc_out_size(x) if size is None else dict(height=size[0], width=size[1])
        return F.contrib.BilinearResize2D(x, **out_size)

    def calc_out_size(self, x):
        if self.out_size is not None:
            return dict(height=self.out_size[0], width=self.out_size[1])
        if self.up:
            return dict(scale_height=self.scale_factor, scale_width=self.scale_factor)
        else:
            return dict(scale_height=1.0 / self.scale_factor, scale_width=1.0 / self.scale_factor)
"""


def hl001(source):
    return [f for f in lint_source(source) if f.code == "HL001"]


def test_the_helper_returns_and_the_resize_are_rewritten_as_one_unsafe_fix():
    findings = hl001(INTERPOLATION)
    assert [(f.line, f.fix) for f in findings] == [(16, "unsafe"), (18, "unsafe")]
    fixed = fix_source(INTERPOLATION, select=["HL001"], unsafe=True, line_length=120).source
    assert fixed == FIXED
    assert hl001(fixed) == []
    # safe fixes only: nothing applied
    assert fix_source(INTERPOLATION, select=["HL001"]).source == INTERPOLATION


# a caller passing the size, as LEDNet's PoolingBranch does (a hybridized block's own inputs
# must be arrays, so the tuple comes from a parent)
PARENT = """
class Parent(HybridBlock):
    def __init__(self, size, **kwargs):
        super(Parent, self).__init__()
        self.size = size
        self.up = Net(**kwargs)

    def hybrid_forward(self, F, x):
        return self.up(x, self.size)
"""


def _net(source, mx, kwargs, size=None):
    """Net(**kwargs), or a Parent calling it with `size`."""
    namespace = {"HybridBlock": mx.gluon.HybridBlock}
    text = source + PARENT
    if mx.__name__.startswith("hybridlint"):
        from hybridlint.engine import as_mxnet

        with as_mxnet():
            exec(compile(text, "<fixture>", "exec"), namespace)
    else:
        exec(compile(text, "<fixture>", "exec"), namespace)
    if size is not None:
        return namespace["Parent"](size, **kwargs)
    return namespace["Net"](**kwargs)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    h=st.integers(1, 9),
    w=st.integers(1, 9),
    k=st.integers(1, 8),
    config=st.sampled_from(["up", "out_size", "size", "down"]),
)
def test_fixed_block_equals_the_original(backend, h, w, k, config):
    """Original eager == fixed eager == fixed hybridized, up to odd sizes."""
    mx = backend_module(backend)
    kwargs = {"scale_factor": k, "up": config != "down"}
    if config == "out_size":
        kwargs["out_size"] = (h + 2, w * 2 + 1)
    x = np.random.RandomState(h * 10 + w).rand(2, 3, h, w).astype("float32")
    size = (k + 1, 2 * k + 3) if config == "size" else None
    if config == "down" and (h < k or w < k):
        return  # a zero size: the original fails too
    fixed = fix_source(INTERPOLATION, select=["HL001"], unsafe=True).source
    expected = _net(INTERPOLATION, mx, kwargs, size)(mx.nd.array(x))
    with engine_gaps_skipped(mx):
        for hybridize in (False, True):
            net = _net(fixed, mx, kwargs, size)
            if hybridize:
                net.hybridize()
            got = net(mx.nd.array(x))
            assert got.shape == expected.shape, (config, hybridize)
            assert got.dtype == expected.dtype
            np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy())


REPORT_ONLY = {
    # the helper has a second caller: its return type cannot change
    "two callers": INTERPOLATION.replace(
        "        return F.contrib", "        self.calc_out_size(x)\n        return F.contrib"
    ),
    # the size is read elsewhere too
    "size read again": INTERPOLATION.replace(
        "width=out_size[1])", "width=out_size[1]) * out_size[0]"
    ),
    # resizing another tensor than the one measured
    "another tensor": INTERPOLATION.replace(
        "BilinearResize2D(x, height", "BilinearResize2D(F.relu(x), height"
    ),
    # a factor that is not read twice alike
    "impure factor": INTERPOLATION.replace("s * self.scale_factor for", "s * self.factor() for"),
    # a size that is no scale of the input's
    "shifted": INTERPOLATION.replace("s * self.scale_factor for", "s + self.scale_factor for"),
}


# a return that is no scale of the input's is reported alone: the other return (`s // k`)
# still gets its fix, and the helper's returns all become keyword arguments
ONE_RETURN = {"impure factor", "shifted"}


@pytest.mark.parametrize("name", sorted(REPORT_ONLY))
def test_forms_outside_the_pattern_stay_report_only(name):
    findings = hl001(REPORT_ONLY[name])
    if name in ONE_RETURN:
        assert [(f.line, f.fix) for f in findings] == [(16, None), (18, "unsafe")]
    else:
        assert findings and all(f.fix is None for f in findings), findings


@pytest.mark.parametrize("backend", BACKENDS)
def test_scale_mode_sizes_equal_the_sized_call_for_integer_factors(backend):
    """What the rewrite rests on: `scale_height=k` == `height=h * k` (values and shapes), odd
    and even sizes, on real MXNet 1.9.1 and on the engine (a differential of the op)."""
    mx = backend_module(backend)
    rng = np.random.RandomState(0)
    for k in (1, 2, 3, 8, 16):
        for h, w in ((1, 1), (3, 5), (4, 7), (9, 2)):
            x = mx.nd.array(rng.rand(1, 2, h, w).astype("float32"))
            for corners in (True, False):
                a = mx.nd.contrib.BilinearResize2D(
                    x, height=h * k, width=w * k, align_corners=corners
                )
                b = mx.nd.contrib.BilinearResize2D(
                    x, scale_height=k, scale_width=k, align_corners=corners
                )
                assert a.shape == b.shape == (1, 2, h * k, w * k)
                np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


@pytest.mark.parametrize("backend", BACKENDS)
def test_downscale_by_an_inverse_factor_is_floor_division_up_to_32(backend):
    """What the `s // k` rewrite rests on: `scale_height=1.0 / k` sizes `h // k` rows for every
    k from 1 to 32 (heights to 300 here; to 4096 when the rule was written), and not beyond:
    k = 41 gives 0 rows of 41 and 1 of 82 (MXNet's float32 product truncates below)."""
    mx = backend_module(backend)
    for k in range(1, 33):
        scale = 1.0 / k
        for h in range(1, 301):
            x = mx.nd.zeros((1, 1, h, 1))
            out = mx.nd.contrib.BilinearResize2D(x, scale_height=scale, scale_width=1.0)
            assert out.shape[2] == h // k, (h, k)
    x = mx.nd.ones((1, 1, 82, 41))
    out = mx.nd.contrib.BilinearResize2D(x, scale_height=1 / 41, scale_width=1 / 41)
    assert out.shape[2:] == (1, 0)


# -- an input's size passed to a resizing child (rules/hl001/resize_child.py) ----------------
# gluoncv2's CGNet/DABNet head: the child is the InterpolationBlock above
SEGMENTER = (
    INTERPOLATION
    + """

class Seg(HybridBlock):
    def __init__(self, fixed_size=False, in_size=(8, 8), **kwargs):
        super(Seg, self).__init__(**kwargs)
        self.fixed_size = fixed_size
        self.in_size = in_size
        self.up = Net(scale_factor=8)

    def hybrid_forward(self, F, x):
        in_size = self.in_size if self.fixed_size else x.shape[2:]
        y = F.relu(x)
        y = self.up(y, in_size)
        return y
"""
)


def test_the_size_of_an_input_passed_to_a_resizing_child_becomes_a_like_resize():
    findings = hl001(SEGMENTER)
    assert [(f.line, f.fix) for f in findings] == [(16, "unsafe"), (18, "unsafe"), (29, "unsafe")]
    fixed = fix_source(SEGMENTER, select=["HL001"], unsafe=True, line_length=120).source
    assert "in_size = self.in_size if self.fixed_size else None\n" in fixed
    assert (
        "y = self.up(y, in_size) if self.fixed_size else "
        "F.contrib.BilinearResize2D(y, like=x, mode='like')\n"
    ) in fixed


def _seg(source, mx, kwargs):
    namespace = {"HybridBlock": mx.gluon.HybridBlock}
    if mx.__name__.startswith("hybridlint"):
        from hybridlint.engine import as_mxnet

        with as_mxnet():
            exec(compile(source, "<fixture>", "exec"), namespace)
    else:
        exec(compile(source, "<fixture>", "exec"), namespace)
    return namespace["Seg"](**kwargs)


# the input is reassigned after its size is read (LEDNet's PoolingBranch): the size's name
# holds the input itself where it held its size
REASSIGNED = SEGMENTER.replace("y = F.relu(x)", "x = F.relu(x) * 2\n        y = x")
# a resize in hybrid_forward itself, after pooling (gluoncv2's PyramidPoolingBranch)
DIRECT = SEGMENTER.replace(
    "        y = F.relu(x)\n        y = self.up(y, in_size)\n",
    "        x = F.relu(x).sum(axis=1, keepdims=True)\n"
    "        y = F.contrib.BilinearResize2D(x, height=in_size[0], width=in_size[1])\n",
)
SEGMENTERS = {"child": SEGMENTER, "reassigned": REASSIGNED, "direct": DIRECT}


def _flat(source: str) -> str:
    """The source without whitespace (the fixed lines are wrapped)."""
    return "".join(source.split()).replace(",)", ")")


def test_reassigned_and_direct_forms_capture_the_input_and_direct_is_safe():
    captured = _flat("in_size = self.in_size if self.fixed_size else x\n")
    fixed = _flat(fix_source(REASSIGNED, select=["HL001"], unsafe=True).source)
    assert captured in fixed
    assert (
        _flat(
            "y = self.up(y, in_size) if self.fixed_size else "
            "F.contrib.BilinearResize2D(y, like=in_size, mode='like')"
        )
        in fixed
    )
    assert [f.fix for f in hl001(DIRECT) if f.line >= 28] == ["safe"]
    fixed = _flat(fix_source(DIRECT, select=["HL001"]).source)  # safe fixes only
    assert captured in fixed
    assert (
        _flat(
            "y = F.contrib.BilinearResize2D(x, height=in_size[0], width=in_size[1]) "
            "if self.fixed_size else F.contrib.BilinearResize2D(x, like=in_size, mode='like')"
        )
        in fixed
    )


def test_a_direct_resize_whose_test_may_change_before_it_is_unsafe():
    # the test is evaluated at the binding and again at the resize: between them it changes
    changed = DIRECT.replace(
        "        x = F.relu(x).sum",
        "        self.fixed_size = not self.fixed_size\n        x = F.relu(x).sum",
    )
    assert [f.fix for f in hl001(changed) if f.line >= 28 and "shape" in f.message] == ["unsafe"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("form", sorted(SEGMENTERS))
@SETTINGS
@given(h=st.integers(1, 9), w=st.integers(1, 9), c=st.integers(1, 3), fixed_size=st.booleans())
def test_fixed_segmenter_equals_the_original(backend, form, h, w, c, fixed_size):
    mx = backend_module(backend)
    original = SEGMENTERS[form]
    kwargs = {"fixed_size": fixed_size, "in_size": (h + 1, w + 2)}
    x = np.random.RandomState(h * 10 + w).rand(2, c, h, w).astype("float32")
    fixed = fix_source(original, select=["HL001"], unsafe=True).source
    assert "x.shape" not in fixed.split("class Seg")[1]
    expected = _seg(original, mx, kwargs)(mx.nd.array(x))
    with engine_gaps_skipped(mx):
        for hybridize in (False, True):
            net = _seg(fixed, mx, kwargs)
            if hybridize:
                net.hybridize()
            got = net(mx.nd.array(x))
            assert got.shape == expected.shape, (fixed_size, hybridize)
            np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy())


CHILD_REPORT_ONLY = {
    # the child does more than resize to the size
    "child adds": SEGMENTER.replace(
        "return F.contrib.BilinearResize2D(x, height=out_size[0], width=out_size[1])",
        "return F.contrib.BilinearResize2D(x, height=out_size[0], width=out_size[1]) + 1",
    ),
    # the size is also read as a value
    "size read again": SEGMENTER.replace("        return y\n", "        return y, in_size[0]\n"),
    # a test that may change between its two evaluations
    "impure test": SEGMENTER.replace("if self.fixed_size else", "if self.pick() else"),
    # the size is read after the input is reassigned: a name bound twice
    "size bound twice": REASSIGNED.replace("y = x\n", "y = x\n        in_size = x.shape[2:]\n"),
    # the child's input reads the size too (the like branch would pass it None)
    "input reads the size": SEGMENTER.replace(
        "self.up(y, in_size)", "self.up(self.up(y, in_size), in_size)"
    ),
    # the direct resize passes more than the size
    "direct with scale": DIRECT.replace(
        "width=in_size[1])", "width=in_size[1], align_corners=False)"
    ),
}


@pytest.mark.parametrize("name", sorted(CHILD_REPORT_ONLY))
def test_child_forms_outside_the_pattern_stay_report_only(name):
    source = CHILD_REPORT_ONLY[name]
    findings = [f for f in hl001(source) if f.line >= 28]
    assert findings and all(f.fix is None for f in findings), findings
