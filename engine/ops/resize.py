"""Resizing contrib ops segmentation models call in hybrid_forward: contrib.BilinearResize2D
(all of MXNet 1.9.1's size modes, align_corners) and contrib.AdaptiveAvgPooling2D.

Bilinear resizing gathers the four neighbours of every output row and column at once (index
and weight vectors per axis, computed as MXNet's area_pixel_compute_* helpers do); adaptive
average pooling sums windows [floor(i*in/out), ceil((i+1)*in/out)) through an integral image,
so neither loops over pixels, batch or channels.
"""

import numpy as np

from ..registry import (
    Param,
    ShapeError,
    float_only,
    p_bool,
    p_enum,
    p_float,
    p_int,
    p_opt,
    p_shape,
    register,
)
from ._util import fmt_shape

_MODES = ("like", "odd_scale", "size", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up")


def _resize_inputs(attrs):
    return ("data", "like") if attrs.mode == "like" else ("data",)


def _scaled(size: int, scale: float) -> int:
    """`int(size * scale)` as MXNet computes it: the scale is a float32 parameter and the product
    a float32 one. In float64, 41 * (1 / 41) is 1 where MXNet gets 0 rows (and 49 * (1 / 49) is
    0 where MXNet gets 1), so a downscale by 1 / k differs from `size // k` exactly as MXNet's."""
    return int(np.float32(size) * np.float32(scale))


def _new_size(attrs, d, like):
    h, w = d[2], d[3]
    m = attrs.mode
    if m == "size":
        # MXNet tests scale_height for both axes (a quirk kept on purpose)
        if attrs.scale_height is not None:
            if attrs.scale_width is None:
                raise ShapeError("BilinearResize2D: scale_height needs scale_width too")
            return _scaled(h, attrs.scale_height), _scaled(w, attrs.scale_width)
        return attrs.height, attrs.width
    if m == "odd_scale":
        if attrs.scale_height is None or attrs.scale_width is None:
            raise ShapeError(
                "BilinearResize2D(mode='odd_scale') needs scale_height and scale_width"
            )
        nh = (
            _scaled(h, attrs.scale_height) if h % 2 == 0 else _scaled(h - 1, attrs.scale_height) + 1
        )
        nw = _scaled(w, attrs.scale_width) if w % 2 == 0 else _scaled(w - 1, attrs.scale_width) + 1
        return nh, nw
    if m == "like":
        return like[2], like[3]
    even = m.startswith("to_even")
    up = m.endswith("_up")

    def fix(v):
        if (v % 2 == 0) == even:
            return v
        return v + 1 if up else v - 1

    return fix(h), fix(w)


def _resize_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None or (attrs.mode == "like" and in_shapes[1] is None):
        return in_shapes, [None]
    if len(d) != 4 or (attrs.mode == "like" and len(in_shapes[1]) != 4):
        raise ShapeError(
            "BilinearResize2D needs 4-D (NCHW) inputs, got {}".format(
                ", ".join(fmt_shape(s) for s in in_shapes)
            )
        )
    for name in ("height", "width"):
        if getattr(attrs, name) < 1:  # MXNet's parameter check, whatever the mode
            raise ShapeError(
                "value {} for Parameter {} should be greater equal to 1".format(
                    getattr(attrs, name), name
                )
            )
    nh, nw = _new_size(attrs, d, in_shapes[1] if attrs.mode == "like" else None)
    # a scale or a to_even_down mode may size an axis 0: MXNet returns an empty array
    if nh < 0 or nw < 0:
        raise ShapeError("BilinearResize2D: output size {}x{} is negative".format(nh, nw))
    return in_shapes, [(d[0], d[1], nh, nw)]


def _axis_weights(n_in, n_out, align):
    """(index, next-index offset, weight of next) per output position, float32 as MXNet."""
    if align:
        scale = np.float32((n_in - 1) / (n_out - 1)) if n_out > 1 else np.float32(0)
        src = scale * np.arange(n_out, dtype=np.float32)
    else:
        # a single output row/column reads the first input one (MXNet's scale is 0 then)
        scale = np.float32(n_in / n_out) if n_out > 1 else np.float32(0)
        src = np.maximum(
            scale * (np.arange(n_out, dtype=np.float32) + np.float32(0.5)) - np.float32(0.5),
            np.float32(0),
        )
    i0 = src.astype(np.int64)
    step = (i0 < n_in - 1).astype(np.int64)
    lam = (src - i0).astype(np.float32)
    return i0, i0 + step, lam


def bilinear_resize(attrs, x, like=None):
    """Bilinear resize of the two spatial axes of NCHW data."""
    float_only(x.dtype)
    (shape,) = _resize_shape(attrs, [x.shape] + ([] if like is None else [like.shape]))[1]
    nh, nw = shape[2], shape[3]
    h, w = x.shape[2], x.shape[3]
    if (nh, nw) == (h, w):
        return x.copy()
    if nh == 0 or nw == 0:
        return np.zeros(shape, dtype=x.dtype)
    h0, h1, lh = _axis_weights(h, nh, attrs.align_corners)
    w0, w1, lw = _axis_weights(w, nw, attrs.align_corners)
    dt = x.dtype
    lh = lh.astype(dt)[:, None]
    lw = lw.astype(dt)
    top = x[:, :, h0]
    bottom = x[:, :, h1]
    rows_top = top[..., w0] * (1 - lw) + top[..., w1] * lw
    rows_bottom = bottom[..., w0] * (1 - lw) + bottom[..., w1] * lw
    return (rows_top * (1 - lh) + rows_bottom * lh).astype(dt, copy=False)


def _resize_type(attrs, in_types):
    """The output has the data's dtype; the `like` input's is not checked. MXNet resizes
    floating-point data only, which its kernel checks when it runs (graph inference passes
    an integer input, as here)."""
    t = in_types[0]
    return in_types, [t]


register(
    "_contrib_BilinearResize2D",
    inputs=_resize_inputs,
    params={
        "height": Param(p_int, 1),
        "width": Param(p_int, 1),
        "scale_height": Param(p_opt(p_float), None),
        "scale_width": Param(p_opt(p_float), None),
        "mode": Param(p_enum(*_MODES), "size"),
        "align_corners": Param(p_bool, True),
    },
    infer_shape=_resize_shape,
    infer_type=_resize_type,
)(bilinear_resize)


def _adaptive_size(attrs):
    size = attrs.output_size
    if len(size) == 0:
        return 1, 1
    if len(size) == 1:
        return size[0], size[0]
    if len(size) == 2:
        return size
    raise ShapeError(
        "AdaptiveAvgPooling2D: output_size must have 1 or 2 values, got {}".format(size)
    )


def _adaptive_shape(attrs, in_shapes):
    d = in_shapes[0]
    if d is None:
        return in_shapes, [None]
    if len(d) != 4:
        raise ShapeError("AdaptiveAvgPooling2D needs 4-D (NCHW) data, got {}".format(fmt_shape(d)))
    oh, ow = _adaptive_size(attrs)
    return in_shapes, [(d[0], d[1], oh, ow)]


def adaptive_avg_pool(attrs, x):
    """Average over windows [floor(i*in/out), ceil((i+1)*in/out)) of each spatial axis."""
    _adaptive_shape(attrs, [x.shape])
    oh, ow = _adaptive_size(attrs)
    h, w = x.shape[2], x.shape[3]
    hs = (np.arange(oh) * h) // oh
    he = -((-(np.arange(oh) + 1) * h) // oh)
    ws = (np.arange(ow) * w) // ow
    we = -((-(np.arange(ow) + 1) * w) // ow)
    if x.dtype.kind == "f" and not np.isfinite(x).all():
        # an integral image would spread a NaN or inf to every later window; MXNet sums each
        # window on its own
        out = np.empty(x.shape[:2] + (oh, ow), np.float64)
        with np.errstate(invalid="ignore"):
            for i in range(oh):
                for j in range(ow):
                    out[:, :, i, j] = x[:, :, hs[i] : he[i], ws[j] : we[j]].sum(
                        axis=(2, 3), dtype=np.float64
                    ) / ((he[i] - hs[i]) * (we[j] - ws[j]))
        return out.astype(x.dtype)
    integral = np.zeros(x.shape[:2] + (h + 1, w + 1), np.float64)
    integral[:, :, 1:, 1:] = x.cumsum(axis=2, dtype=np.float64).cumsum(axis=3)
    total = (
        integral[:, :, he][..., we]
        - integral[:, :, hs][..., we]
        - integral[:, :, he][..., ws]
        + integral[:, :, hs][..., ws]
    )
    area = np.multiply.outer(he - hs, we - ws)
    return (total / area).astype(x.dtype)


register(
    "_contrib_AdaptiveAvgPooling2D",
    params={"output_size": Param(p_shape, ())},
    infer_shape=_adaptive_shape,
)(adaptive_avg_pool)
