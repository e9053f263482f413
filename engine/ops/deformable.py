"""contrib.DeformableConvolution (DCN, arXiv 1703.06211) and
contrib.ModulatedDeformableConvolution (DCNv2, arXiv 1811.11168), 2-D NCHW, as MXNet 1.9.1's
CPU kernels (deformable_im2col.h, modulated_deformable_im2col.h).

Every kernel tap (i, j) of output pixel (y, x) samples the input at
(y*stride - pad + i*dilate + dy, x*stride - pad + j*dilate + dx), with (dy, dx) read from
`offset` (channels 2*(i*kw + j) and 2*(i*kw + j) + 1 of the tap's deformable group), by
bilinear interpolation; the sampled columns then meet the weight in one (grouped) matrix
product. The two kernels treat the border differently, as MXNet's do: DCN samples only points
inside [0, H) x [0, W) and clamps the upper neighbours to the last row/column; DCNv2 samples
points inside (-1, H) x (-1, W) with out-of-range neighbours as 0 and scales by `mask`
(channel i*kw + j of the group).
"""

import numpy as np

from ..registry import (
    Param,
    ShapeError,
    merge_shape,
    p_bool,
    p_int,
    p_opt,
    p_enum,
    p_shape,
    register,
)
from ._util import fmt_shape


def _pair(v, default):
    return tuple(v) if v else (default, default)


def _geometry(attrs, dshape):
    kh, kw = attrs.kernel
    sh, sw = _pair(attrs.stride, 1)
    dh, dw = _pair(attrs.dilate, 1)
    ph, pw = _pair(attrs.pad, 0)
    oh = (dshape[2] + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    ow = (dshape[3] + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    return (kh, kw), (sh, sw), (dh, dw), (ph, pw), (oh, ow)


def _inputs(modulated):
    def names(attrs):
        base = ["data", "offset"] + (["mask"] if modulated else []) + ["weight"]
        return tuple(base if attrs.no_bias else base + ["bias"])

    return names


def _shape(modulated):
    name = "ModulatedDeformableConvolution" if modulated else "DeformableConvolution"

    def infer(attrs, in_shapes):
        if len(attrs.kernel) != 2:
            raise ShapeError(
                "{}: only 2-D kernels are supported, got kernel {}".format(
                    name, fmt_shape(attrs.kernel)
                )
            )
        ins = list(in_shapes)
        data, offset = ins[0], ins[1]
        if data is None:
            return ins, [None]
        if len(data) != 4:
            raise ShapeError("{}: data must be 4-D (NCHW), got {}".format(name, fmt_shape(data)))
        g, dg = attrs.num_group, attrs.num_deformable_group
        (kh, kw), _, _, _, (oh, ow) = _geometry(attrs, data)
        if data[1] and (data[1] % g or data[1] % dg):
            raise ShapeError(
                "{}: input channels {} must divide by num_group {} and "
                "num_deformable_group {}".format(name, data[1], g, dg)
            )
        if offset is None or len(offset) != 4:
            raise ShapeError(
                "Input offset should be 4D in batch-num_filter-y-x, got {}".format(
                    fmt_shape(offset)
                )
            )
        want = (data[0], 2 * kh * kw * dg, oh, ow)
        k = 2
        try:
            ins[1] = merge_shape(offset, want)
            if modulated:
                ins[2] = merge_shape(ins[2], (data[0], kh * kw * dg, oh, ow))
                k = 3
        except ShapeError as err:
            raise ShapeError("{}: offset/mask {}".format(name, err)) from None
        ins[k] = _merge(
            ins[k], (attrs.num_filter, data[1] // g if data[1] else 0, kh, kw), "weight"
        )
        if not attrs.no_bias:
            ins[k + 1] = _merge(ins[k + 1], (attrs.num_filter,), "bias")
        return ins, [(data[0], attrs.num_filter, oh, ow)]

    return infer


def _merge(have, want, what):
    try:
        return merge_shape(have, want)
    except ShapeError:
        raise ShapeError(
            "Shape inconsistent for {}: provided {}, inferred shape {}".format(
                what, fmt_shape(have), fmt_shape(want)
            )
        ) from None


def _sample(img, rows, cols, modulated):
    """Bilinear samples of img (C, H, W) at float coordinates rows/cols (same shape S) ->
    (C, *S), with the border rule of MXNet's DCN (modulated=False) or DCNv2 kernel."""
    h, w = img.shape[1:]
    f = img.dtype.type
    if modulated:
        valid = (rows > -1) & (cols > -1) & (rows < h) & (cols < w)
        r0, c0 = np.floor(rows).astype(np.int64), np.floor(cols).astype(np.int64)
        r1, c1 = r0 + 1, c0 + 1
        lr, lc = rows - r0.astype(img.dtype), cols - c0.astype(img.dtype)
    else:
        valid = (rows >= 0) & (cols >= 0) & (rows < h) & (cols < w)
        r0, c0 = np.floor(rows).astype(np.int64), np.floor(cols).astype(np.int64)
        top, right = r0 >= h - 1, c0 >= w - 1
        r1, c1 = np.where(top, h - 1, r0 + 1), np.where(right, w - 1, c0 + 1)
        lr = np.where(top, f(0), rows - r0.astype(img.dtype))
        lc = np.where(right, f(0), cols - c0.astype(img.dtype))
    out = np.zeros((img.shape[0],) + rows.shape, img.dtype)
    for rr, cc, wt in (
        (r0, c0, (1 - lr) * (1 - lc)),
        (r0, c1, (1 - lr) * lc),
        (r1, c0, lr * (1 - lc)),
        (r1, c1, lr * lc),
    ):
        ok = valid & (rr >= 0) & (rr < h) & (cc >= 0) & (cc < w)
        vals = img[:, np.clip(rr, 0, h - 1), np.clip(cc, 0, w - 1)]
        out += np.where(ok, wt.astype(img.dtype), f(0)) * vals
    return out


def _deform(modulated):
    def kernel(attrs, data, offset, *rest):
        """Deformable 2-D convolution (see the module docstring)."""
        mask = rest[0] if modulated else None
        weight = rest[1] if modulated else rest[0]
        bias = None if attrs.no_bias else rest[-1]
        ins, _ = _shape(modulated)(attrs, [data.shape, offset.shape] + [a.shape for a in rest])
        for got, want in zip([offset] + list(rest), ins[1:]):
            if got.shape != want:
                raise ShapeError(
                    "Shape inconsistent: provided {}, inferred shape {}".format(
                        fmt_shape(got.shape), fmt_shape(want)
                    )
                )
        (kh, kw), (sh, sw), (dh, dw), (ph, pw), (oh, ow) = _geometry(attrs, data.shape)
        n, c = data.shape[:2]
        g, dg = attrs.num_group, attrs.num_deformable_group
        f = data.dtype.type
        base_r = (np.arange(oh) * sh - ph)[None, :, None] + (np.arange(kh) * dh).repeat(kw)[
            :, None, None
        ]  # (K, oh, 1)
        base_c = (np.arange(ow) * sw - pw)[None, None, :] + np.tile(np.arange(kw) * dw, kh)[
            :, None, None
        ]  # (K, 1, ow)
        k = kh * kw
        out = np.empty((n, attrs.num_filter, oh, ow), data.dtype)
        cpg = c // dg
        wmat = weight.reshape(g, attrs.num_filter // g, -1)
        for b in range(n):
            cols = np.empty((c, k, oh, ow), data.dtype)
            for gi in range(dg):
                off = offset[b, gi * 2 * k : (gi + 1) * 2 * k].reshape(k, 2, oh, ow)
                rows = base_r.astype(data.dtype) + off[:, 0]
                cls = base_c.astype(data.dtype) + off[:, 1]
                sampled = _sample(
                    data[b, gi * cpg : (gi + 1) * cpg], rows.astype(f), cls.astype(f), modulated
                )
                if modulated:
                    sampled = sampled * mask[b, gi * k : (gi + 1) * k][None]
                cols[gi * cpg : (gi + 1) * cpg] = sampled
            cols = cols.reshape(g, (c // g) * k, oh * ow)
            res = np.matmul(wmat, cols).reshape(attrs.num_filter, oh, ow)
            if bias is not None:
                res = res + bias[:, None, None]
            out[b] = res
        return out

    return kernel


def _params(modulated):
    params = {
        "kernel": Param(p_shape),
        "stride": Param(p_shape, ()),
        "dilate": Param(p_shape, ()),
        "pad": Param(p_shape, ()),
        "num_filter": Param(p_int),
        "num_group": Param(p_int, 1),
        "num_deformable_group": Param(p_int, 1),
        "workspace": Param(p_int, 1024),
        "no_bias": Param(p_bool, False),
        "layout": Param(p_opt(p_enum("None", "NCDHW", "NCHW", "NCW")), None),
    }
    if modulated:
        params["im2col_step"] = Param(p_int, 64)
    return params


register(
    "_contrib_DeformableConvolution",
    inputs=_inputs(False),
    params=_params(False),
    infer_shape=_shape(False),
)(_deform(False))
register(
    "_contrib_ModulatedDeformableConvolution",
    inputs=_inputs(True),
    params=_params(True),
    infer_shape=_shape(True),
)(_deform(True))
