"""HL001: `F.contrib.BilinearResize2D(t, height=x.shape[2], width=x.shape[2])` (blind round 5,
MTCloud's deeplabv3 ASPP and vortex pooling: a square size read from one axis) becomes the like
mode's resize, unsafe: exact on a square x (where such a block's concatenation with x's size
works), another size on any other x."""

import numpy as np
import pytest

from fix_support import BACKENDS, backend_module, fix_source, lint_source, run_with_fixed_params

SOURCE = """\
class Net(HybridBlock):
    def hybrid_forward(self, F, x):
        pooled = F.contrib.AdaptiveAvgPooling2D(x, output_size=1)
        up = F.contrib.BilinearResize2D(pooled, height=x.shape[2], width=x.shape[2])
        return F.concat(x, up, dim=1)
"""


def test_the_square_resize_is_an_unsafe_like_resize():
    assert [(f.code, f.fix) for f in lint_source(SOURCE)] == [
        ("HL001", "unsafe"),
        ("HL001", "unsafe"),
    ]
    fixed = fix_source(SOURCE, unsafe=True).source
    assert "F.contrib.BilinearResize2D(pooled, like=x, mode='like')" in fixed, fixed


@pytest.mark.parametrize("backend", BACKENDS)
def test_exact_on_a_square_input_only(backend):
    mx = backend_module(backend)
    fixed = fix_source(SOURCE, unsafe=True).source
    square = [np.random.RandomState(1).uniform(-1, 1, (2, 3, 5, 5)).astype("float32")]
    expected = run_with_fixed_params(SOURCE, mx, [mx.nd.array(a) for a in square], False)
    with pytest.raises(AttributeError):
        run_with_fixed_params(SOURCE, mx, [mx.nd.array(a) for a in square], True)
    for hybridize in (False, True):
        out = run_with_fixed_params(fixed, mx, [mx.nd.array(a) for a in square], hybridize)
        np.testing.assert_allclose(out.asnumpy(), expected.asnumpy(), rtol=1e-6)
    # on a non-square input the original cannot even concatenate its (5, 5) resize with x
    wide = [mx.nd.array(np.ones((2, 3, 5, 7), "float32"))]
    with pytest.raises(Exception):  # noqa: B017 - concat's shape error, MXNet's or the engine's
        run_with_fixed_params(SOURCE, mx, wide, False)
