"""Convolution and Deconvolution (1-D, 2-D and 3-D, channel-first layouts).

2-D convolution (the case that matters for speed) has two fast kernels, chosen per input
signature by `_fast_mode`, both computing into reused per-thread workspaces:
- `conv2d_pixels` (num_group 1, float, C*KW >= _PIXEL_MIN_RUN, any stride): im2col of a
  channel-last copy of the image, one row per output pixel, then ONE matmul for the batch;
- `conv2d_rows_full` (stride 1, few channels, any num_group): im2col over whole flattened rows
  (long contiguous runs), one matmul per group per chunk of images.
Both leave the bias to the caller, who adds it in the pass that copies the result out, so
eager results and the folded conv+relu+pool plan (engine/fusion.py) round identically.
Everything else is one strided view of the (padded) input plus one batched matmul.
Deconvolution is the transpose: one matmul to columns, then a col2im scatter-add with one numpy
slice per kernel position (a loop over kernel taps, never over batch or channels).
Shape inference fills weight (and bias) from data and num_filter, for gluon's deferred init.
"""

import threading
from math import prod
from typing import Any, Dict

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..registry import (
    Param,
    ShapeError,
    merge_shape,
    p_bool,
    p_enum,
    p_int,
    p_opt,
    p_shape,
    register,
)
from ._util import copyto, fmt_shape

_LAYOUTS = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _geometry(attrs, name):
    """(kernel, stride, dilate, pad) as equal-length tuples, MXNet's defaults filled."""
    k = attrs.kernel
    nd = len(k)
    if nd not in (1, 2, 3):
        raise ShapeError("{}: kernel must have 1, 2 or 3 dimensions, got {}".format(name, k))
    if attrs.layout is not None and attrs.layout != _LAYOUTS[nd]:
        raise ShapeError(
            "{}: layout {} is not supported on CPU (use {})".format(
                name, attrs.layout, _LAYOUTS[nd]
            )
        )
    stride = attrs.stride or (1,) * nd
    dilate = attrs.dilate or (1,) * nd
    pad = attrs.pad or (0,) * nd
    for what, t in (("stride", stride), ("dilate", dilate), ("pad", pad)):
        if len(t) != nd:
            raise ShapeError(
                "{}: {} {} must have as many dimensions as kernel {}".format(name, what, t, k)
            )
    if min(stride) < 1 or min(dilate) < 1 or min(k) < 1:
        raise ShapeError(
            "{}: kernel, stride and dilate must be positive, got kernel={} "
            "stride={} dilate={}".format(name, k, stride, dilate)
        )
    return k, stride, dilate, pad


_CONV_PARAMS = {
    "kernel": Param(p_shape),
    "stride": Param(p_shape, ()),
    "dilate": Param(p_shape, ()),
    "pad": Param(p_shape, ()),
    "num_filter": Param(p_int),
    "num_group": Param(p_int, 1),
    "workspace": Param(p_int, 1024),
    "no_bias": Param(p_bool, False),
    "cudnn_tune": Param(p_opt(p_enum("fastest", "limited_workspace", "off")), None),
    "cudnn_off": Param(p_bool, False),
    "layout": Param(p_opt(p_enum("NCW", "NCHW", "NCDHW", "NHWC", "NDHWC")), None),
}


def _conv_inputs(attrs):
    return ("data", "weight") if attrs.no_bias else ("data", "weight", "bias")


def _fill(in_shapes, idx, want, what):
    try:
        return merge_shape(in_shapes[idx], want)
    except ShapeError:
        raise ShapeError(
            "Shape inconsistent, Provided = {}, inferred shape = {} ({})".format(
                fmt_shape(in_shapes[idx]), fmt_shape(want), what
            )
        ) from None


def conv_out_spatial(attrs, spatial):
    k, stride, dilate, pad = _geometry(attrs, "Convolution")
    out = []
    for i, d in enumerate(spatial):
        if not d:
            out.append(0)
            continue
        dk = dilate[i] * (k[i] - 1) + 1
        if d + 2 * pad[i] < dk:
            raise ShapeError(
                "kernel size exceed input: kernel {} (dilated {}) is larger than "
                "the padded input size {} on spatial axis {}".format(k[i], dk, d + 2 * pad[i], i)
            )
        out.append((d + 2 * pad[i] - dk) // stride[i] + 1)
    return tuple(out)


def _shape(attrs, in_shapes, name, weight_shape, out_spatial):
    """Shape inference shared by Convolution and Deconvolution: they differ only in the weight
    layout `weight_shape(c, nf, g, k)` and the output size `out_spatial(attrs, spatial)`."""
    k, _, _, _ = _geometry(attrs, name)
    nd = len(k)
    data = in_shapes[0]
    nf, g = attrs.num_filter, attrs.num_group
    if nf % g:
        raise ShapeError("num_filter ({}) must be divisible by num_group ({})".format(nf, g))
    if data is not None and len(data) != nd + 2:
        raise ShapeError(
            "{} with a {}-D kernel {} expects {}-D input ({}), got data of shape {}".format(
                name, nd, k, nd + 2, _LAYOUTS[nd], fmt_shape(data)
            )
        )
    c = data[1] if data is not None else 0
    if c and c % g:
        raise ShapeError("input channels ({}) must be divisible by num_group ({})".format(c, g))
    shapes = list(in_shapes)
    shapes[1] = _fill(in_shapes, 1, weight_shape(c, nf, g, k), "weight")
    if not attrs.no_bias:
        shapes[2] = _fill(in_shapes, 2, (nf,), "bias")
    if data is None:
        return shapes, [None]
    return shapes, [(data[0], nf) + out_spatial(attrs, data[2:])]


def _conv_shape(attrs, in_shapes):
    return _shape(
        attrs,
        in_shapes,
        "Convolution",
        lambda c, nf, g, k: (nf, c // g if c else 0) + tuple(k),
        conv_out_spatial,
    )


def _padded(x, pad):
    if not any(pad):
        return x
    return np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])


def _conv_cols(attrs, x):
    """The im2col view (N, G, C/G*prod(k), prod(out)) of the padded input (no copy yet)."""
    k, stride, dilate, pad = _geometry(attrs, "Convolution")
    g = attrs.num_group
    xp = _padded(x, pad)
    n, c = x.shape[:2]
    osp = conv_out_spatial(attrs, x.shape[2:])
    s = xp.strides
    sp = s[2:]
    view = as_strided(
        xp,
        (n, g, c // g) + tuple(k) + osp,
        (s[0], s[1] * (c // g), s[1])
        + tuple(sp[i] * dilate[i] for i in range(len(k)))
        + tuple(sp[i] * stride[i] for i in range(len(k))),
        writeable=False,
    )
    return view.reshape(n, g, (c // g) * prod(k), prod(osp)), osp


def _conv_check(attrs, x, w, b):
    shapes = [x.shape, w.shape] + ([] if b is None else [b.shape])
    ins, _ = _conv_shape(attrs, shapes)
    for given, want in zip(shapes, ins):
        if given != want:
            _fill([given], 0, want, "weight/bias")


_WORKSPACE = threading.local()


def _keep(plans: dict, key, plan, nbytes: int):
    """Keep a 2-D kernel's per-thread `plan` for the next call unless its arrays (image copy,
    columns, result: as big as the convolution's output) exceed _PIXEL_KEEP_BYTES; at most 64
    signatures per kernel and thread. Returns the plan."""
    if nbytes <= _PIXEL_KEEP_BYTES:
        if len(plans) >= 64:
            plans.clear()
        plans[key] = plan
    return plan


def _rows_plan(attrs, shape, dtype, dilate, pad, oh: int):
    """The arrays and views of `conv2d_rows_full` for one (attrs, input shape, dtype), made
    once per thread: the zero-bordered flat image (owned by this plan, so its padding and
    tail are zeroed once, not per call), the im2col view of it, the columns and result
    workspaces and the (zero-padded) weight matrix. Building them per call (as_strided,
    geometry, workspace lookups) cost about as much as the image copy itself on LeNet-sized
    inputs.

    Layout: the columns are (group, K, images, OH*Wp), so a chunk of images is ONE matmul
    (per group) of the (F/g, K) weights by (K, chunk*OH*Wp), not one small matmul per image;
    with num_group 1 the weight rows are padded with zeros to a multiple of 8 (OpenBLAS's
    kernels take M in blocks of 8 or 16: 6 rows cost more than 8). The result is
    (group, F/g padded, images, OH*Wp); callers see its (N, F, OH, Wp) NCHW-indexed view.
    LeNet's first convolution (16x1x28x28, 6 filters), image copy + columns + matmul, per
    call: 141 -> 105 us on numpy 2.4 (OpenBLAS 0.3.31), 295 -> 219 us on numpy 1.23
    (OpenBLAS 0.3.20)."""
    plans = getattr(_WORKSPACE, "rows", None)
    if plans is None:
        plans = _WORKSPACE.rows = {}
    key = (attrs, shape, dtype, dilate, pad, oh)
    plan = plans.get(key)
    if plan is not None:
        return plan
    n, c = shape[:2]
    g = attrs.num_group
    nf = attrs.num_filter
    fg = nf // g
    fgp = -(-fg // 8) * 8 if g == 1 else fg
    kh, kw = attrs.kernel
    dh, dw = dilate
    hp, wp = shape[2] + 2 * pad[0], shape[3] + 2 * pad[1]
    tail = (kw - 1) * dw
    flat = np.zeros((n, c, hp * wp + tail), dtype)
    img = flat[:, :, : hp * wp].reshape(n, c, hp, wp)
    interior = img[:, :, pad[0] : pad[0] + shape[2], pad[1] : pad[1] + shape[3]]
    s = flat.strides
    isz = flat.itemsize
    length = oh * wp
    view = as_strided(
        flat,
        (g, c // g, kh, kw, n, length),
        (s[1] * (c // g), s[1], dh * wp * isz, dw * isz, s[0], isz),
        writeable=False,
    )
    k = (c // g) * kh * kw
    # the columns are built and multiplied a chunk of images at a time in one reused
    # workspace: LeNet's first convolution's columns are 1 MB, its best chunk the whole
    # batch now that a chunk is one matmul (the per-image matmuls were best at 256 KB)
    ch = max(1, min(n, _COLS_CHUNK_BYTES // max(1, g * k * length * isz)))
    cols = np.empty((g, k, ch, length), dtype)
    full = np.empty((g, fgp, n, length), dtype)
    wpad = np.zeros((g, fgp, k), dtype)
    chunks = []
    for a in range(0, n, ch):
        e = min(n, a + ch)
        part = cols[:, :, : e - a]
        chunks.append(
            (
                part.reshape(view.shape[:4] + (e - a, length)),
                view[..., a:e, :],
                part.reshape(g, k, (e - a) * length),
                full[:, :, a:e].reshape(g, fgp, (e - a) * length),
            )
        )
    full4 = full[:, :fg].reshape(nf, n, oh, wp).transpose(1, 0, 2, 3)
    assert full4.base is full or full4.base is full.base, "the result must view the workspace"
    plan = (interior, chunks, wpad, wpad[:, :fg], (g, fg, k), full4)
    return _keep(plans, key, plan, flat.nbytes + cols.nbytes + full.nbytes)


# the largest columns chunk of conv2d_rows_full
_COLS_CHUNK_BYTES = 1 << 20


def conv2d_rows_full(attrs, x, w, dilate, pad, oh: int) -> np.ndarray:
    """Stride-1 2-D convolution without bias with im2col over whole flattened rows.

    Each kernel tap (kh, kw) reads the flattened padded image at offset kh*d*Wp + kw*d as
    one contiguous run of OH*Wp values, so the im2col copy moves long runs instead of OW-wide
    pieces; the matmul then computes Wp - OW junk columns per row. Returns an (N, F, OH, Wp)
    view of a reused workspace: columns >= OW are junk, the caller crops (or pools) them.
    (About 1.5x faster than the strided im2col on LeNet's second convolution.) The views
    and buffers come from `_rows_plan`: an image copy, then per chunk of images a column copy
    and one matmul per group. The bias is left to the caller, who adds it while cropping (a
    pass it makes anyway): inside the matmul (as a row of ones) it saved nothing and rounded
    differently from the folded conv+pool plan on some BLAS builds."""
    interior, chunks, wpad, wrows, wshape, full4 = _rows_plan(
        attrs, x.shape, x.dtype, dilate, pad, oh
    )
    copyto(interior, x)
    copyto(wrows, w.reshape(wshape))
    for cols_v, view, cols, full in chunks:
        copyto(cols_v, view)
        np.matmul(wpad, cols, out=full)
    return full4


def _pixel_plan(attrs, shape, dtype, stride, dilate, pad, osp):
    """The arrays and views of `conv2d_pixels` for one (attrs, input shape, dtype), made once
    per thread: a zero-bordered channel-last copy of the image (its border zeroed once), the
    im2col view of it with one row per output pixel, cut into blocks with their columns and
    result workspaces, the (K, F) weight workspace and the (N, OH, OW, F) result."""
    plans = getattr(_WORKSPACE, "pixels", None)
    if plans is None:
        plans = _WORKSPACE.pixels = {}
    key = (attrs, shape, dtype)
    plan = plans.get(key)
    if plan is not None:
        return plan
    n, c, h, w = shape
    kh, kw = attrs.kernel
    sh, sw = stride
    dh, dw = dilate
    oh, ow = osp
    nf = attrs.num_filter
    img = np.zeros((n, h + 2 * pad[0], w + 2 * pad[1], c), dtype)
    interior = img[:, pad[0] : pad[0] + h, pad[1] : pad[1] + w, :].transpose(0, 3, 1, 2)
    s = img.strides
    if dw == 1:  # a kernel row's taps over all channels are one contiguous run of kw*c
        view = as_strided(
            img,
            (n, oh, ow, kh, kw * c),
            (s[0], s[1] * sh, s[2] * sw, s[1] * dh, s[3]),
            writeable=False,
        )
    else:
        view = as_strided(
            img,
            (n, oh, ow, kh, kw, c),
            (s[0], s[1] * sh, s[2] * sw, s[1] * dh, s[2] * dw, s[3]),
            writeable=False,
        )
    res = np.empty((n, oh, ow, nf), dtype)
    # blocks of whole images (or of output rows of one image) whose columns fit in
    # _PIXEL_BLOCK_BYTES: a 224x224 input's columns are tens of MB per image
    k = kh * kw * c
    row_bytes = ow * k * img.itemsize
    if oh * row_bytes <= _PIXEL_BLOCK_BYTES:
        per = max(1, min(n, _PIXEL_BLOCK_BYTES // max(1, oh * row_bytes)))
        spans = [(slice(a, min(n, a + per)), slice(None)) for a in range(0, n, per)]
    else:
        per = max(1, _PIXEL_BLOCK_BYTES // row_bytes)
        spans = [
            (slice(i, i + 1), slice(r, min(oh, r + per)))
            for i in range(n)
            for r in range(0, oh, per)
        ]
    blocks = [(view[sp], res[sp]) for sp in spans]
    most = max((v.shape[0] * v.shape[1] * ow for v, _ in blocks), default=0)  # empty batch
    buf = np.empty(most * k, dtype)
    chunks = []
    for v, r in blocks:
        rows = v.shape[0] * v.shape[1] * ow
        chunks.append(
            (
                v,
                buf[: rows * k].reshape(v.shape),
                buf[: rows * k].reshape(rows, k),
                r.reshape(rows, nf),
            )
        )
    w_t = np.empty((kh, kw, c, nf), dtype)
    plan = (interior, chunks, w_t, w_t.reshape(-1, nf), res.transpose(0, 3, 1, 2))
    # kept for the next call unless large: a 32x64x224x224 input would pin ~800 MB per
    # signature, where rebuilding costs little beside the convolution itself; a ResNet has
    # dozens of signatures, so the count bound is generous
    return _keep(plans, key, plan, img.nbytes + res.nbytes + buf.nbytes)


def conv2d_pixels(attrs, x, w, stride, dilate, pad, osp) -> np.ndarray:
    """2-D convolution without bias (num_group 1, any stride/dilate/pad) as im2col with one
    row per output pixel over a channel-last copy of the image, then ONE matrix multiply
    (N*OH*OW, K) @ (K, F) for the whole batch (per block of images or rows when the columns
    would exceed _PIXEL_BLOCK_BYTES).

    Why this layout: a kernel row's taps over all channels are one contiguous run of KW*C
    values (the channel-first im2col copies runs of OW), and one large matmul replaces a
    batched matmul of N small ones, whose per-call cost dominates in OpenBLAS 0.3.20 (numpy
    1.23, the MXNet environment): about 1.9x faster there on LeNet's second convolution. It
    loses to `conv2d_rows_full` when C*KW is small (LeNet's first convolution, C=1).
    The bias is left to the caller, who adds it while copying the result out (a pass it
    makes anyway), so eager and folded plans round identically.
    Returns an (N, F, OH, OW) view of a reused (N, OH, OW, F) workspace."""
    interior, chunks, w_t, w2, res_nchw = _pixel_plan(
        attrs, x.shape, x.dtype, stride, dilate, pad, osp
    )
    copyto(interior, x)
    copyto(w_t, w.transpose(2, 3, 1, 0))
    for view, cols, cols2, res2 in chunks:
        copyto(cols, view)
        np.matmul(cols2, w2, out=res2)
    return res_nchw


# the largest columns block of conv2d_pixels (LeNet's second convolution needs 0.6 MB)
_PIXEL_BLOCK_BYTES = 4 << 20
# the largest conv2d_pixels or conv2d_rows_full plan (image copy, columns, result) kept
# between calls
_PIXEL_KEEP_BYTES = 32 << 20

# channel-last columns pay off when a kernel row over all channels is a run at least this
# long. (With the flattened-row kernel at one matmul per chunk, LeNet's second convolution,
# C*KW = 30, costs about the same in either kernel alone; in the whole LeNet forward the
# channel-last one stayed ahead, eager and hybridized, so the bound stays at 12.)
_PIXEL_MIN_RUN = 12


def conv2d_raw(attrs, x, w):
    """The fastest 2-D kernel's raw (N, F, OH, >=OW) result without bias, as an NCHW-indexed
    view of a reused workspace (columns past OW are junk), or None when neither fast kernel
    applies (1-D/3-D, mixed dtypes, strides with few channels). Callers copy or pool from it
    and add the bias on the way."""
    mode, stride, dilate, pad, osp, _ = _conv_plan(attrs, x, w, None)
    if mode == "pixels":
        return conv2d_pixels(attrs, x, w, stride, dilate, pad, osp)
    if mode == "rows":
        return conv2d_rows_full(attrs, x, w, dilate, pad, osp[0])
    return None


def _no_fp16(x):
    """MXNet 1.9.1's CPU convolutions fail on float16 (no FP16 gemm): so do we."""
    if x.dtype == np.float16:
        raise ShapeError(
            "FP16 gemm on cpu not implemented! (Convolution/Deconvolution need "
            "float32 or float64 data on CPU)"
        )


_CONV_PLANS: Dict[Any, Any] = {}


def _fast_mode(attrs, x, w, stride):
    """Which 2-D kernel serves this signature: "pixels" (channel-last im2col, one matmul)
    when a kernel row over all channels is a long enough run, "rows" (flattened-row im2col)
    for stride-1 inputs with few channels, None for the general N-D path."""
    if len(attrs.kernel) != 2 or x.dtype != w.dtype:
        return None
    if (
        attrs.num_group == 1
        and x.dtype.kind == "f"
        and x.shape[1] * attrs.kernel[1] >= _PIXEL_MIN_RUN
    ):
        return "pixels"
    return "rows" if stride == (1, 1) else None


def _conv_plan(attrs, x, w, b):
    """(fast 2-D kernel or None, stride, dilate, pad, out spatial shape, bias shape for
    broadcasting) of a Convolution on these input shapes/dtypes, validated once: eager calls
    repeat the same few signatures, and the checks and geometry cost more than a small
    convolution's arithmetic. Only valid signatures are cached, so a bad one raises on every
    call."""
    key = (attrs, x.shape, x.dtype, w.shape, w.dtype, None if b is None else (b.shape, b.dtype))
    plan = _CONV_PLANS.get(key)
    if plan is not None:
        return plan
    if (
        x.ndim != len(attrs.kernel) + 2
        or w.shape[0] != attrs.num_filter
        or w.shape[1] * attrs.num_group != x.shape[1]
        or w.shape[2:] != tuple(attrs.kernel)
    ):
        _conv_check(attrs, x, w, b)
    if b is not None and b.shape != (attrs.num_filter,):
        _conv_check(attrs, x, w, b)
    k, stride, dilate, pad = _geometry(attrs, "Convolution")
    osp = conv_out_spatial(attrs, x.shape[2:])
    _no_fp16(x)  # after the shape checks, as MXNet fails at compute time
    plan = (
        _fast_mode(attrs, x, w, stride),
        stride,
        dilate,
        pad,
        osp,
        (attrs.num_filter,) + (1,) * len(osp),
    )
    if len(_CONV_PLANS) > 1024:
        _CONV_PLANS.clear()
    _CONV_PLANS[key] = plan
    return plan


def convolution_out(attrs, out, x, w, b=None):
    """Convolution into a preallocated (N, F, *out) buffer."""
    mode, stride, dilate, pad, osp, bshape = _conv_plan(attrs, x, w, b)
    if mode and out.dtype == x.dtype and (b is None or b.dtype == x.dtype):
        if mode == "pixels":
            raw = conv2d_pixels(attrs, x, w, stride, dilate, pad, osp)
        else:
            raw = conv2d_rows_full(attrs, x, w, dilate, pad, osp[0])[..., : osp[1]]
        if b is None:
            copyto(out, raw)
        else:
            np.add(raw, b.reshape(bshape), out=out)
        return out
    g = attrs.num_group
    n, nf = x.shape[0], attrs.num_filter
    cols, osp = _conv_cols(attrs, x)
    w3 = w.reshape(g, nf // g, -1)
    np.matmul(w3, cols, out=out.reshape(n, g, nf // g, prod(osp)))
    if b is not None:
        out += b.reshape(bshape)
    return out


def convolution(attrs, x, w, b=None):
    """N-D convolution (cross-correlation) with stride, pad, dilate and groups (MXNet's
    `Convolution`; data NCW/NCHW/NCDHW, weight (num_filter, C/num_group, *kernel))."""
    osp = _conv_plan(attrs, x, w, b)[4]
    out = np.empty(
        (x.shape[0], attrs.num_filter) + osp,
        x.dtype if x.dtype == w.dtype else np.result_type(x.dtype, w.dtype),
    )
    return convolution_out(attrs, out, x, w, b)


register(
    "Convolution",
    inputs=_conv_inputs,
    params=_CONV_PARAMS,
    infer_shape=_conv_shape,
    out_kernel=convolution_out,
)(convolution)

# ----------------------------------------------------------------------------- Deconvolution

_DECONV_PARAMS = dict(
    _CONV_PARAMS,
    workspace=Param(p_int, 512),
    no_bias=Param(p_bool, True),
    adj=Param(p_shape, ()),
    target_shape=Param(p_shape, ()),
)


def _deconv_pad(attrs, spatial):
    """MXNet's InferPad: with a target_shape, pad and adj are derived from it."""
    k, stride, dilate, pad = _geometry(attrs, "Deconvolution")
    nd = len(k)
    adj = attrs.adj or (0,) * nd
    if len(adj) != nd:
        raise ShapeError(
            "Deconvolution: adj {} must have as many dimensions as kernel {}".format(adj, k)
        )
    if attrs.target_shape and any(attrs.target_shape):
        pad, adj = list(pad), list(adj)
        for i in range(nd):
            if spatial[i]:
                total = stride[i] * (spatial[i] - 1) + dilate[i] * (k[i] - 1) + 1
                if total < attrs.target_shape[i]:
                    raise ShapeError(
                        "too big target shape {} for input {}".format(
                            attrs.target_shape, fmt_shape(spatial)
                        )
                    )
                total -= attrs.target_shape[i]
                adj[i] = total % 2
                pad[i] = (total + 1) // 2
        return tuple(pad), tuple(adj)
    for i in range(nd):
        if adj[i] >= max(stride[i], dilate[i]):
            raise ShapeError(
                "Deconvolution: adj {} must be smaller than stride {} or dilate {}".format(
                    adj, stride, dilate
                )
            )
    return tuple(pad), tuple(adj)


def deconv_out_spatial(attrs, spatial):
    k, stride, dilate, _ = _geometry(attrs, "Deconvolution")
    pad, adj = _deconv_pad(attrs, spatial)
    out = []
    for i, d in enumerate(spatial):
        if not d:
            out.append(0)
            continue
        o = stride[i] * (d - 1) + dilate[i] * (k[i] - 1) + 1 - 2 * pad[i] + adj[i]
        if o < 1:
            raise ShapeError(
                "Deconvolution: output size {} on spatial axis {} is not "
                "positive (pad {} too large)".format(o, i, pad)
            )
        out.append(o)
    return tuple(out)


def _deconv_shape(attrs, in_shapes):
    return _shape(
        attrs,
        in_shapes,
        "Deconvolution",
        lambda c, nf, g, k: (c, nf // g) + tuple(k),
        deconv_out_spatial,
    )


def deconvolution(attrs, x, w, b=None):
    """Transposed convolution (MXNet's `Deconvolution`; weight (C, num_filter/num_group,
    *kernel); output size stride*(in-1) + dilate*(kernel-1) + 1 - 2*pad + adj, or
    `target_shape`)."""
    _no_fp16(x)
    shapes = [x.shape, w.shape] + ([] if b is None else [b.shape])
    ins, (oshape,) = _deconv_shape(attrs, shapes)
    for given, want in zip(shapes, ins):
        if given != want:
            _fill([given], 0, want, "weight/bias")
    k, stride, dilate, _ = _geometry(attrs, "Deconvolution")
    pad, _ = _deconv_pad(attrs, x.shape[2:])
    nd = len(k)
    n, c = x.shape[:2]
    g, nf = attrs.num_group, attrs.num_filter
    insp = x.shape[2:]
    # columns: (N, G, F/G * prod(k), prod(in)) = W^T (per group) @ x
    w3 = w.reshape(g, c // g, (nf // g) * prod(k))
    cols = np.matmul(w3.transpose(0, 2, 1), x.reshape(n, g, c // g, prod(insp)))
    cols = cols.reshape((n, nf) + tuple(k) + insp)
    # scatter-add into the padded output, one strided slice per kernel tap
    full = tuple(oshape[2 + i] + 2 * pad[i] for i in range(nd))
    # the padded canvas must hold every tap (adj may extend past it on the right)
    canvas_sp = tuple(
        max(full[i], dilate[i] * (k[i] - 1) + stride[i] * (insp[i] - 1) + 1) for i in range(nd)
    )
    acc = np.zeros((n, nf) + canvas_sp, dtype=cols.dtype)
    for tap in np.ndindex(*k):
        key = (slice(None), slice(None)) + tuple(
            slice(tap[i] * dilate[i], tap[i] * dilate[i] + stride[i] * (insp[i] - 1) + 1, stride[i])
            for i in range(nd)
        )
        acc[key] += cols[(slice(None), slice(None)) + tap]
    crop = (slice(None), slice(None)) + tuple(
        slice(pad[i], pad[i] + oshape[2 + i]) for i in range(nd)
    )
    out = np.ascontiguousarray(acc[crop])
    if b is not None:
        out += b.reshape((nf,) + (1,) * nd)
    return out


register("Deconvolution", inputs=_conv_inputs, params=_DECONV_PARAMS, infer_shape=_deconv_shape)(
    deconvolution
)
