"""The fast eager kernels keep MXNet 1.9.1's results across repeated calls.

Convolution caches its validated geometry and, for 2-D, a per-thread plan whose
zero-bordered image is zeroed once (ops/conv.py:_rows_plan, _pixel_plan): repeated calls with new data,
other shapes in between, and padding must give MXNet's values every time. Max pooling reduces
one axis at a time (ops/pooling.py:separable_max_stages): it must equal MXNet on every
kernel/stride/pad/convention, NaN included (MXNet's running max skips NaN; a window of NaN
only gives the lowest finite value), and equal the tap-by-tap maximum.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hybridlint.engine as mx
from hybridlint.engine.ops.pooling import nan_to_lowest, run_separable_max, separable_max_stages


def _taps_max(x, k, stride, out):
    """The reference: MXNet's running max over every kernel tap in row-major order (a value
    replaces the current one only when greater, so NaN never does), from the lowest value."""
    res = None
    for tap in np.ndindex(*k):
        sl = (slice(None), slice(None)) + tuple(
            slice(tap[i], tap[i] + (out[i] - 1) * stride[i] + 1, stride[i]) for i in range(len(k))
        )
        tap = x[sl]
        if res is None:
            res = np.full(
                tap.shape,
                np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min,
                x.dtype,
            )
        res = np.where(tap > res, tap, res)
    return res


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 3), st.data())
def test_separable_max_equals_the_tap_by_tap_max(nd, data):
    k = tuple(data.draw(st.integers(1, 3)) for _ in range(nd))
    stride = tuple(data.draw(st.integers(1, 3)) for _ in range(nd))
    sp = tuple(data.draw(st.integers(k[i], k[i] + 5)) for i in range(nd))
    out = tuple((sp[i] - k[i]) // stride[i] + 1 for i in range(nd))
    rng = np.random.RandomState(data.draw(st.integers(0, 2**16)))
    # few distinct values: many ties, signed zeros (whose sign may differ) and NaNs
    x = rng.choice(np.array([-0.0, 0.0, 1.0, -1.0, np.nan], np.float32), (2, 3) + sp)
    got = nan_to_lowest(
        run_separable_max(
            separable_max_stages(x.shape, k, stride, out), x, np.empty((2, 3) + out, np.float32)
        )
    )
    want = _taps_max(x, k, stride, out)
    np.testing.assert_array_equal(got, want)


POOLS = [
    ((2, 3, 24, 24), dict(kernel=(2, 2), stride=(2, 2))),
    ((2, 3, 9, 8), dict(kernel=(3, 3), stride=(2, 2), pad=(1, 1))),
    ((2, 3, 9, 8), dict(kernel=(3, 2), stride=(1, 2), pooling_convention="full")),
    ((2, 3, 7, 7), dict(kernel=(1, 3), stride=(2, 1))),
    ((2, 3, 7, 7), dict(kernel=(1, 1), stride=(2, 3))),
    ((2, 3, 11), dict(kernel=(3,), stride=(2,), pad=(1,))),
    ((1, 2, 5, 6, 7), dict(kernel=(2, 3, 2), stride=(2, 1, 2), pad=(1, 1, 0))),
    ((2, 3, 8, 8), dict(kernel=(2, 2), stride=(2, 2), pad=(1, 1), pooling_convention="full")),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("shape,kw", POOLS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pooling_matches_mxnet_on_repeated_calls(shape, kw, dtype):
    mx_real = pytest.importorskip("mxnet")
    rng = np.random.RandomState(0)
    for scale in (1.0, -3.0, 0.5, np.nan):
        x = (rng.uniform(-1, 1, shape) * (1.0 if np.isnan(scale) else scale)).astype(dtype)
        if np.isnan(scale):  # NaN in a third of the places, and a first window of NaN only
            x[rng.rand(*shape) < 0.3] = np.nan
            x[(0, 0) + (slice(0, 3),) * (len(shape) - 2)] = np.nan
        ours = mx.nd.Pooling(mx.nd.array(x, dtype=dtype), pool_type="max", **kw).asnumpy()
        theirs = mx_real.nd.Pooling(
            mx_real.nd.array(x, dtype=dtype), pool_type="max", **kw
        ).asnumpy()
        np.testing.assert_array_equal(ours, theirs)
        sym = mx.sym.Pooling(mx.sym.var("data"), pool_type="max", **kw)
        hyb = mx.nd.CachedOp(sym)(mx.nd.array(x, dtype=dtype)).asnumpy()
        np.testing.assert_array_equal(hyb, theirs)


def test_max_pooling_of_ints_and_the_out_kernel_agree():
    x = np.arange(2 * 3 * 6 * 6, dtype=np.int32).reshape(2, 3, 6, 6)[..., ::-1].copy()
    got = mx.nd.Pooling(
        mx.nd.array(x, dtype="int32"), kernel=(2, 3), stride=(2, 2), pool_type="max"
    )
    want = _taps_max(x, (2, 3), (2, 2), (3, 2))
    np.testing.assert_array_equal(got.asnumpy(), want)
    assert got.dtype == np.int32


CONVS = [
    ((2, 4, 9, 7), (4, 4, 3, 3), dict(pad=(1, 2))),
    ((2, 4, 9, 7), (4, 2, 3, 3), dict(pad=(2, 2), dilate=(2, 1), num_group=2)),
    ((2, 4, 9, 7), (6, 4, 3, 2), dict(dilate=(1, 2))),
    ((3, 1, 12, 12), (5, 1, 5, 5), dict()),
    ((2, 4, 9, 7), (4, 4, 3, 3), dict(stride=(2, 1), pad=(1, 1))),
    # flattened-row columns (conv.py:conv2d_rows_full), filters padded to 8 and not
    ((7, 3, 20, 20), (4, 3, 5, 5), dict(pad=(1, 1))),
    ((3, 2, 12, 12), (9, 2, 3, 3), dict()),
    ((5, 4, 24, 24), (6, 2, 5, 5), dict(num_group=2)),
    # channel-last columns (conv.py:conv2d_pixels): LeNet's second convolution, stride
    # 1, strides, a dilated kernel row (not one contiguous run), padding
    ((3, 6, 12, 12), (16, 6, 5, 5), dict()),
    ((3, 8, 12, 12), (6, 8, 5, 5), dict()),
    ((2, 8, 11, 10), (5, 8, 3, 3), dict(stride=(2, 2), pad=(1, 1))),
    ((2, 6, 11, 12), (4, 6, 3, 3), dict(dilate=(2, 2), pad=(2, 1))),
    ((2, 12, 7, 9), (3, 12, 1, 1), dict(stride=(1, 2))),
]


@pytest.mark.mxnet
def test_convolution_matches_mxnet_on_repeated_interleaved_calls():
    """Each call brings new data; calls of other geometries run in between (they share the
    columns/result workspaces); padded borders must stay zero."""
    mx_real = pytest.importorskip("mxnet")
    rng = np.random.RandomState(3)
    weights = [
        (rng.randn(*ws).astype(np.float32), rng.randn(ws[0]).astype(np.float32))
        for _, ws, _ in CONVS
    ]
    for rnd in range(3):
        for (xs, ws, kw), (w, b) in zip(CONVS, weights):
            x = (rng.randn(*xs) * (rnd + 1)).astype(np.float32)
            kw = dict(kw, kernel=ws[2:], num_filter=ws[0])
            ours = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), mx.nd.array(b), **kw)
            theirs = mx_real.nd.Convolution(
                mx_real.nd.array(x), mx_real.nd.array(w), mx_real.nd.array(b), **kw
            )
            # float32 sums of up to 200 products of magnitude ~10: rounding (which differs
            # with the BLAS's summation order) is relative to the largest outputs
            atol = max(1e-5, 2e-6 * float(np.abs(theirs.asnumpy()).max()))
            np.testing.assert_allclose(ours.asnumpy(), theirs.asnumpy(), rtol=1e-5, atol=atol)
            nob = mx.nd.Convolution(mx.nd.array(x), mx.nd.array(w), no_bias=True, **kw)
            np.testing.assert_allclose(
                nob.asnumpy() + b.reshape(-1, 1, 1), ours.asnumpy(), rtol=1e-5, atol=atol
            )


def test_convolution_results_are_fresh_arrays():
    """The stride-1 kernel computes in shared workspaces: results must never alias them."""
    x = mx.nd.array(np.random.RandomState(0).randn(2, 3, 8, 8).astype(np.float32))
    w = mx.nd.ones((4, 3, 3, 3))
    a = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True)
    keep = a.asnumpy().copy()
    mx.nd.Convolution(x * 2, w, kernel=(3, 3), num_filter=4, no_bias=True)
    np.testing.assert_array_equal(a.asnumpy(), keep)


def test_bad_shapes_raise_on_every_call():
    x = mx.nd.ones((1, 3, 8, 8))
    w = mx.nd.ones((4, 2, 3, 3))
    for _ in range(2):
        with pytest.raises(mx.base.MXNetError, match="Convolution"):
            mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=4, no_bias=True)
    for _ in range(2):
        with pytest.raises(mx.base.MXNetError, match="FP16"):
            mx.nd.Convolution(
                mx.nd.ones((1, 3, 8, 8), dtype="float16"),
                mx.nd.ones((4, 3, 3, 3), dtype="float16"),
                kernel=(3, 3),
                num_filter=4,
                no_bias=True,
            )


@pytest.mark.mxnet
def test_folded_conv_relu_pool_over_several_column_chunks_matches_mxnet():
    mx_real = pytest.importorskip("mxnet")
    rng = np.random.RandomState(5)
    kw = dict(kernel=(5, 5), num_filter=6, pad=(1, 1))
    w = rng.randn(6, 3, 5, 5).astype(np.float32)
    b = rng.randn(6).astype(np.float32)
    results = []
    for lib in (mx, mx_real):
        d = lib.sym.var("data")
        y = lib.sym.Pooling(
            lib.sym.Activation(lib.sym.Convolution(d, name="c", **kw), act_type="relu"),
            kernel=(2, 2),
            stride=(2, 2),
            pool_type="max",
        )
        results.append((lib, y))
    for rnd in range(2):
        x = (rng.randn(7, 3, 20, 20) * (rnd + 1)).astype(np.float32)
        vals = {"data": x, "c_weight": w, "c_bias": b}
        (_, ours), (_, theirs) = results
        got = mx.nd.CachedOp(ours)(*[mx.nd.array(vals[n]) for n in ours.list_inputs()])
        want = theirs.eval(ctx=mx_real.cpu(), **{n: mx_real.nd.array(v) for n, v in vals.items()})[
            0
        ]
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("block_bytes", [1 << 30, 40000, 8000, 700])
def test_channel_last_convolution_in_blocks_equals_the_direct_sum(monkeypatch, block_bytes):
    """conv2d_pixels cuts its columns into blocks of images (an image's columns here are
    5 rows x 3456 bytes: 40000 bytes hold two images, the last block one) or of output rows
    of one image (8000 bytes: 2, 2 and 1 rows; 700 bytes: one row): every cut gives the
    direct sum."""
    from hybridlint.engine.ops import conv

    monkeypatch.setattr(conv, "_PIXEL_BLOCK_BYTES", block_bytes)
    monkeypatch.setattr(conv._WORKSPACE, "pixels", {}, raising=False)
    rng = np.random.RandomState(5)
    x = rng.randn(5, 6, 9, 8)
    w = rng.randn(4, 6, 3, 3)
    b = rng.randn(4)
    got = mx.nd.Convolution(
        mx.nd.array(x, dtype="float64"),
        mx.nd.array(w, dtype="float64"),
        mx.nd.array(b, dtype="float64"),
        kernel=(3, 3),
        num_filter=4,
        stride=(2, 1),
        pad=(1, 1),
    ).asnumpy()
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    want = np.empty((5, 4, 5, 8))
    for i in range(5):
        for j in range(8):
            patch = xp[:, :, 2 * i : 2 * i + 3, j : j + 3]
            want[:, :, i, j] = np.einsum("nckl,fckl->nf", patch, w) + b
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


ROWS_CASES = [
    ((5, 1, 12, 11), (6, 1, 5, 5), dict()),  # 6 filters padded to 8
    ((5, 4, 9, 8), (6, 2, 3, 3), dict(num_group=2, pad=(1, 2))),
    ((5, 3, 10, 9), (16, 3, 3, 2), dict(dilate=(2, 1), pad=(1, 0))),
]


@pytest.mark.parametrize("chunk_bytes", [1 << 30, 9000, 10])
@pytest.mark.parametrize("xs,ws,kw", ROWS_CASES)
def test_flattened_row_convolution_in_chunks_equals_the_direct_sum(
    monkeypatch, chunk_bytes, xs, ws, kw
):
    """conv2d_rows_full multiplies a chunk of images at a time (whole batch, two images or
    one at a time here) into its (group, filters padded, images, pixels) workspace: every cut,
    group count and padding of the weight rows gives the direct sum, and the mode is rows."""
    from hybridlint.engine.ops import conv

    monkeypatch.setattr(conv, "_COLS_CHUNK_BYTES", chunk_bytes)
    monkeypatch.setattr(conv._WORKSPACE, "rows", {}, raising=False)
    rng = np.random.RandomState(6)
    x, w, b = rng.randn(*xs), rng.randn(*ws), rng.randn(ws[0])
    kw = dict(kw, kernel=ws[2:], num_filter=ws[0])
    for _ in range(2):  # a second call reuses the plan (its weight rows and image border)
        got = mx.nd.Convolution(
            mx.nd.array(x, dtype="float64"),
            mx.nd.array(w, dtype="float64"),
            mx.nd.array(b, dtype="float64"),
            **kw,
        ).asnumpy()
    assert len(conv._WORKSPACE.rows) == 1
    g = kw.get("num_group", 1)
    pad, dil = kw.get("pad", (0, 0)), kw.get("dilate", (1, 1))
    xp = np.pad(x, [(0, 0), (0, 0), (pad[0], pad[0]), (pad[1], pad[1])])
    kh, kwid = ws[2:]
    oh = xp.shape[2] - dil[0] * (kh - 1)
    ow = xp.shape[3] - dil[1] * (kwid - 1)
    want = np.empty((xs[0], ws[0], oh, ow))
    fg, cg = ws[0] // g, xs[1] // g
    for i in range(oh):
        for j in range(ow):
            patch = xp[
                :,
                :,
                i : i + dil[0] * (kh - 1) + 1 : dil[0],
                j : j + dil[1] * (kwid - 1) + 1 : dil[1],
            ]
            for gi in range(g):
                want[:, gi * fg : (gi + 1) * fg, i, j] = np.einsum(
                    "nckl,fckl->nf", patch[:, gi * cg : (gi + 1) * cg], w[gi * fg : (gi + 1) * fg]
                )
    want += b.reshape(-1, 1, 1)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_both_fast_convolutions_take_an_empty_batch():
    """MXNet 1.x cannot even make a 0-sized array (0 is an unknown dim), but an engine user
    can: the kernels' block planning must not divide by or take the max of nothing."""
    for shape in [(0, 8, 12, 12), (0, 1, 28, 28)]:  # channel-last and rows kernels
        out = mx.nd.Convolution(
            mx.nd.ones(shape),
            mx.nd.ones((4, shape[1], 5, 5)),
            mx.nd.ones(4),
            kernel=(5, 5),
            num_filter=4,
        )
        assert out.shape == (0, 4, shape[2] - 4, shape[3] - 4)


@pytest.mark.parametrize("kind,channels", [("pixels", 12), ("rows", 2)])
def test_large_plans_are_not_kept(monkeypatch, kind, channels):
    """A conv2d_pixels or conv2d_rows_full plan over _PIXEL_KEEP_BYTES is rebuilt per call
    instead of pinning its arrays, and still computes the same result as a kept one."""
    from hybridlint.engine.ops import conv

    monkeypatch.setattr(conv._WORKSPACE, kind, {}, raising=False)
    rng = np.random.RandomState(2)
    x = mx.nd.array(rng.randn(2, channels, 10, 10))
    w = mx.nd.array(rng.randn(3, channels, 3, 3))
    kept = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True).asnumpy()
    assert len(getattr(conv._WORKSPACE, kind)) == 1
    monkeypatch.setattr(conv, "_PIXEL_KEEP_BYTES", 1000)
    monkeypatch.setattr(conv._WORKSPACE, kind, {})
    for _ in range(2):
        got = mx.nd.Convolution(x, w, kernel=(3, 3), num_filter=3, no_bias=True).asnumpy()
        np.testing.assert_array_equal(got, kept)
    assert getattr(conv._WORKSPACE, kind) == {}


# relu runs np.maximum against a zero operand of the input's shape on inputs of at least
# _ZERO_MIN elements (ops/_util.py:zeros_operand): the values and zero signs must stay
# MXNet's (relu(-0.0) = +0.0; `relu` keeps NaN and its sign; float32 Activation(relu) gives
# 0 for NaN) on both sides of that size, eager and in a compiled plan, at every tail length.
RELU_SIZES = [7, 1023, 1024, 1031, 16 * 6 * 24 * 24 + 5]


def _relu_input(n, dtype):
    x = np.random.RandomState(n).randn(n).astype(dtype)
    special = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, -1.0], dtype)
    x[::3] = special[np.arange(0, n, 3) % len(special)]
    x[-7:] = special  # the vectorized loops' tails
    return x


def _relu_want(x, op):
    nan_to_zero = op == "Activation" and x.dtype == np.float32
    want = np.where(x > 0, x, np.zeros_like(x))  # +0.0 for -0.0 and negatives
    return np.where(np.isnan(x), np.zeros_like(x) if nan_to_zero else x, want)


def _same_bits(a, b):
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(np.signbit(a), np.signbit(b))
    np.testing.assert_array_equal(a, b)  # NaN compares equal to NaN here


@pytest.mark.parametrize("n", RELU_SIZES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", ["relu", "Activation"])
def test_relu_values_and_zero_signs_at_every_size(n, dtype, op):
    x = _relu_input(n, dtype)
    kw = {"act_type": "relu"} if op == "Activation" else {}
    want = _relu_want(x, op)
    _same_bits(getattr(mx.nd, op)(mx.nd.array(x, dtype=dtype), **kw).asnumpy(), want)
    sym = getattr(mx.sym, op)(mx.sym.var("data") * 1, **kw)  # a plan step, not an alias
    _same_bits(mx.nd.CachedOp(sym)(mx.nd.array(x, dtype=dtype)).asnumpy(), want)


@pytest.mark.mxnet
@pytest.mark.parametrize("n", RELU_SIZES)
@pytest.mark.parametrize("op", ["relu", "Activation"])
def test_relu_matches_mxnet_bit_for_bit(n, op):
    mx_real = pytest.importorskip("mxnet")
    x = _relu_input(n, "float32")
    kw = {"act_type": "relu"} if op == "Activation" else {}
    theirs = getattr(mx_real.nd, op)(mx_real.nd.array(x), **kw).asnumpy()
    _same_bits(getattr(mx.nd, op)(mx.nd.array(x), **kw).asnumpy(), theirs)
