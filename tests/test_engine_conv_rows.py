"""The stride-1 2-D convolution fast path (im2col over flattened rows) against real MXNet,
over padding, dilation, groups and rectangular kernels."""

import itertools

import numpy as np
import pytest

import hybridlint.engine as mx

GRID = [
    c
    for c in itertools.product(
        [1, 4], [7, 10], [(3, 3), (2, 3), (1, 1)], [(0, 0), (1, 2)], [(1, 1), (2, 1)], [1, 2]
    )
    if c[0] % c[5] == 0
]


@pytest.mark.mxnet
@pytest.mark.parametrize("c,w,kernel,pad,dilate,groups", GRID)
def test_stride1_conv_matches_mxnet(c, w, kernel, pad, dilate, groups):
    m = pytest.importorskip("mxnet")
    rng = np.random.RandomState(c * 100 + w)
    x = rng.rand(2, c, 7, w).astype(np.float32)
    wt = rng.rand(4, c // groups, *kernel).astype(np.float32)
    b = rng.rand(4).astype(np.float32)
    kw = dict(kernel=kernel, pad=pad, dilate=dilate, num_filter=4, num_group=groups)
    want = m.nd.Convolution(m.nd.array(x), m.nd.array(wt), m.nd.array(b), **kw).asnumpy()
    got = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(wt), mx.nd.array(b), **kw).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    with mx.name.NameManager():  # keep the global auto-name counters untouched
        sym = mx.sym.Convolution(mx.sym.var("x"), **kw)
    op = mx.nd.CachedOp(sym)
    names = sym.list_inputs()
    feed = {"x": x, names[1]: wt, names[2]: b}
    np.testing.assert_allclose(
        op(*[mx.nd.array(feed[n]) for n in names]).asnumpy(), want, rtol=1e-5, atol=1e-5
    )
