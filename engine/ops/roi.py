"""contrib.ROIAlign (Mask R-CNN's region feature extraction), as MXNet 1.9.1's CPU kernel.

Each region (batch index, x1, y1, x2, y2) is scaled by spatial_scale (and shifted by half a
pixel when aligned), split into pooled_size bins, and every bin averages bilinear samples on a
sample_ratio x sample_ratio grid (adaptive, ceil(roi size / pooled size), when -1). Samples
more than one pixel outside the map are 0, others are clamped to the border, like the
reference. One vectorised gather per region: the loop is over regions, not pixels or channels.
"""

import math

import numpy as np

from ..registry import Param, ShapeError, p_bool, p_float, p_int, p_shape, register
from ._util import fmt_shape


def _pooled(attrs):
    p = attrs.pooled_size
    if len(p) != 2:
        raise ShapeError(
            "ROIAlign: pooled_size {} has wrong dimensions, expected 2 (height, width)".format(p)
        )
    return p


def _roi_shape(attrs, in_shapes):
    data, rois = in_shapes
    if not 0 <= attrs.spatial_scale <= 1:
        raise ShapeError(
            "ROIAlign: value {} for spatial_scale exceeds bound [0, 1]".format(attrs.spatial_scale)
        )
    if attrs.position_sensitive:
        raise ShapeError(
            "ROIAlign: position_sensitive=True is not implemented by the hybridlint engine"
        )
    if data is not None and len(data) != 4:
        raise ShapeError("ROIAlign: data must be 4-D (NCHW), got {}".format(fmt_shape(data)))
    if rois is not None and (len(rois) != 2 or rois[1] not in (0, 5)):
        raise ShapeError(
            "ROIAlign: rois must be (num_rois, 5) [batch, x1, y1, x2, y2], got {}".format(
                fmt_shape(rois)
            )
        )
    if data is None or rois is None:
        return in_shapes, [None]
    ph, pw = _pooled(attrs)
    return in_shapes, [(rois[0], data[1], ph, pw)]


def _axis_samples(start, bin_size, pooled, grid):
    """Sample coordinates along one axis, (pooled * grid,), in float32 as MXNet computes."""
    f = np.float32
    p = np.arange(pooled, dtype=f)[:, None]
    g = np.arange(grid, dtype=f)[None, :]
    return (f(start) + p * f(bin_size) + (g + f(0.5)) * f(bin_size) / f(grid)).reshape(-1)


def _interp_axis(coord, size):
    """(low index, high index, weight of high, valid) for bilinear sampling along one axis."""
    valid = (coord >= -1.0) & (coord <= size)
    c = np.maximum(coord, 0.0)
    low = np.floor(c).astype(np.int64)
    edge = low >= size - 1
    low = np.where(edge, size - 1, low)
    high = np.where(edge, size - 1, low + 1)
    c = np.where(edge, low.astype(np.float64), c)
    return low, high, c - low, valid


def roi_align(attrs, data, rois):
    """Bilinear region pooling of data (N, C, H, W) over rois (R, 5) -> (R, C, ph, pw)."""
    (shape,) = _roi_shape(attrs, [data.shape, rois.shape])[1]
    ph, pw = _pooled(attrs)
    n, c, h, w = data.shape
    out = np.zeros(shape, data.dtype)
    f = np.float32  # the region geometry in float32, rounding as MXNet's
    off = f(0.5) if attrs.aligned else f(0)
    ss = f(attrs.spatial_scale)
    for r, roi in enumerate(rois.astype(np.float32)):
        b = int(roi[0])
        if not 0 <= b < n:
            continue
        x1, y1, x2, y2 = (roi[i] * ss - off for i in range(1, 5))
        rw, rh = x2 - x1, y2 - y1
        if not attrs.aligned:
            rw, rh = max(rw, f(1)), max(rh, f(1))
        bh, bw = rh / f(ph), rw / f(pw)
        gh = attrs.sample_ratio if attrs.sample_ratio > 0 else int(math.ceil(rh / f(ph)))
        gw = attrs.sample_ratio if attrs.sample_ratio > 0 else int(math.ceil(rw / f(pw)))
        if gh <= 0 or gw <= 0:
            continue
        ylo, yhi, ly, yok = _interp_axis(_axis_samples(y1, bh, ph, gh), h)
        xlo, xhi, lx, xok = _interp_axis(_axis_samples(x1, bw, pw, gw), w)
        fm = data[b].astype(np.float64)
        top = fm[:, ylo][:, :, xlo] * (1 - lx) + fm[:, ylo][:, :, xhi] * lx
        bot = fm[:, yhi][:, :, xlo] * (1 - lx) + fm[:, yhi][:, :, xhi] * lx
        val = top * (1 - ly)[:, None] + bot * ly[:, None]
        val = val * (yok[:, None] & xok[None, :])
        out[r] = val.reshape(c, ph, gh, pw, gw).sum(axis=(2, 4)) / max(gh * gw, 1)
    return out


register(
    "_contrib_ROIAlign",
    inputs=("data", "rois"),
    params={
        "pooled_size": Param(p_shape),
        "spatial_scale": Param(p_float),
        "sample_ratio": Param(p_int, -1),
        "position_sensitive": Param(p_bool, False),
        "aligned": Param(p_bool, False),
    },
    infer_shape=_roi_shape,
)(roi_align)
