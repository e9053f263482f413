"""Slice bounds written with the sliced array's own dims (rules/_own_dims.py, blind round 4's
ALCNet `circ_shift`: `cen[:, :, :hei - shift]` after `_, _, hei, wid = cen.shape`), and the
unpacked-resize rewrite of an input rebound after its unpacking (ALCNet's PCMNet / PlainNet,
ACM's ASKCResUNet: `x = self.head(...)`, then the resize back to `hei, wid`).

Lint checks here; marked runs compare the original's eager output with the fixed block's,
eager and hybridized, on the engine and MXNet 1.9.1.
"""

import numpy as np
import pytest

from fix_support import BACKENDS, backend_module
from fix_support import assert_fix_works_where_the_original_fails, fix_source

CROP = """\
class Net(HybridBlock):
    def __init__(self, shift=1):
        super(Net, self).__init__()
        self.shift = shift

    def hybrid_forward(self, F, x):
        _, _, hei, wid = x.shape
        shift = self.shift
        rolled = F.concat(x[:, :, :, wid - shift:], x[:, :, :, :wid - shift], dim=3)
        return rolled + x[:, :, 1:hei - 1, :wid].mean() + x[:, :, :x.shape[2] - 2].sum()
"""

RESIZE = """\
class Net(HybridBlock):
    def __init__(self):
        super(Net, self).__init__()
        self.head = nn.Conv2D(2, 3, strides=2, padding=1)

    def hybrid_forward(self, F, x):
        _, _, hei, wid = x.shape
        x = self.head(x)
        out = F.contrib.BilinearResize2D(x, height=hei, width=wid)
        return out
"""


def test_own_dim_bounds_count_from_the_end_and_the_unpacking_goes():
    fixed = fix_source(CROP, unsafe=True).source
    assert ".shape" not in fixed, fixed
    assert "begin=(None, None, None, -shift)" in fixed, fixed
    assert "end=(None, None, None, -shift)" in fixed, fixed
    assert "begin=(None, None, 1), end=(None, None, -1)" in fixed, fixed
    assert "end=(None, None, -2)" in fixed, fixed
    # a bound counted from the end is exact only for 0 < k <= dim: unsafe
    assert fix_source(CROP).source.count(".shape") == 2


@pytest.mark.parametrize(
    "body, bound",
    [
        # the array rebound: its dims may be another array's
        ("_, _, h, w = x.shape\nx = F.relu(x)\nreturn x[:, :, :h - 1]", "h - 1"),
        # a dim bound twice, a bound of another axis, a zero offset, a dim of the wrong axis
        ("_, _, h, w = x.shape\nh = h + 1\nreturn x[:, :, :h - 1]", "h - 1"),
        ("_, _, h, w = x.shape\nreturn x[:, :, :w - 1]", "w - 1"),
        ("_, _, h, w = x.shape\nreturn x[:, :, :h - 0]", "h - 0"),
        ("return x[:, :, :x.shape[3] - 1]", "x.shape[3] - 1"),
    ],
)
def test_other_dims_are_not_counted_from_the_end(body, bound):
    lines = "".join("        " + line + "\n" for line in body.splitlines())
    source = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n" + lines
    assert bound in fix_source(source, unsafe=True).source


def test_an_input_rebound_after_its_unpacking_is_kept_for_the_like_resize():
    fixed = fix_source(RESIZE).source
    assert "x_in = x" in fixed and "like=x_in, mode='like'" in fixed, fixed
    assert ".shape" not in fixed
    taken = RESIZE.replace("out = F", "x_in = 0\n        out = F")
    assert ".shape" in fix_source(taken).source  # the name is the function's: not rewritten


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("source, shape", [(CROP, (2, 3, 5, 4)), (RESIZE, (2, 3, 7, 5))])
def test_the_fixes_work_where_the_original_fails(backend, source, shape):
    fixed = fix_source(source, unsafe=True).source
    arrays = [np.random.RandomState(2).uniform(-1, 1, shape).astype("float32")]
    assert_fix_works_where_the_original_fails(source, fixed, backend_module(backend), arrays)
