"""ROIPooling (Fast R-CNN's region max pooling), as MXNet 1.9.1's CPU kernel.

Each region (batch index, x1, y1, x2, y2) is scaled by spatial_scale and rounded half away from
zero (C's `round`), forced to at least 1x1, and split into pooled_size bins with floor/ceil
edges clipped to the map; a bin takes the maximum over its pixels, 0 when the bin is empty.
The argmax output MXNet keeps for the backward pass is hidden (counted in the graph JSON).
"""

import math

import numpy as np

from ..registry import Param, ShapeError, p_float, p_shape, register
from ._util import fmt_shape, json_outputs


def _c_round(v: np.float32) -> int:
    """C's round(): halves go away from zero (numpy rounds them to even)."""
    return int(math.copysign(math.floor(abs(float(v)) + 0.5), float(v)))


def _check(attrs):
    if len(attrs.pooled_size) != 2:
        raise ShapeError(
            "value {} for Parameter pooled_size has wrong dimensions, expected dimension=2".format(
                fmt_shape(attrs.pooled_size)
            )
        )
    if not 0 <= attrs.spatial_scale <= 1:
        raise ShapeError(
            "value {} for Parameter spatial_scale exceed bound [0,1]".format(attrs.spatial_scale)
        )


def _shape(attrs, in_shapes):
    _check(attrs)
    data, rois = in_shapes
    if data is not None and len(data) != 4:
        raise ShapeError("data should be a 4D tensor, got {}".format(fmt_shape(data)))
    if rois is not None and (len(rois) != 2 or rois[1] not in (0, 5)):
        raise ShapeError(
            "rois should be a 2D tensor of shape [batch, 5], got {}".format(fmt_shape(rois))
        )
    if data is None or rois is None:
        return in_shapes, [None]
    return in_shapes, [(rois[0], data[1]) + tuple(attrs.pooled_size)]


def _roi_pooling(attrs, data, rois):
    """Max pooling of data (N, C, H, W) over each region of rois (R, 5) -> (R, C, ph, pw)."""
    (shape,) = _shape(attrs, [data.shape, rois.shape])[1]
    ph, pw = attrs.pooled_size
    n, _, h, w = data.shape
    f = data.dtype.type if data.dtype.kind == "f" else np.float32
    scale = f(attrs.spatial_scale)
    out = np.zeros(shape, data.dtype)
    for r, roi in enumerate(rois.astype(f)):
        b = int(roi[0])
        if not 0 <= b < n:
            raise ShapeError(
                "ROIPooling: batch index {} of roi {} out of range [0, {})".format(b, r, n)
            )
        x1, y1, x2, y2 = (_c_round(roi[i] * scale) for i in range(1, 5))
        bin_h = f(max(y2 - y1 + 1, 1)) / f(ph)
        bin_w = f(max(x2 - x1 + 1, 1)) / f(pw)
        for i in range(ph):
            hs = min(max(int(math.floor(f(i) * bin_h)) + y1, 0), h)
            he = min(max(int(math.ceil(f(i + 1) * bin_h)) + y1, 0), h)
            for j in range(pw):
                ws = min(max(int(math.floor(f(j) * bin_w)) + x1, 0), w)
                we = min(max(int(math.ceil(f(j + 1) * bin_w)) + x1, 0), w)
                if he > hs and we > ws:
                    out[r, :, i, j] = data[b, :, hs:he, ws:we].max(axis=(1, 2))
    return out


register(
    "ROIPooling",
    inputs=("data", "rois"),
    params={"pooled_size": Param(p_shape), "spatial_scale": Param(p_float)},
    infer_shape=_shape,
)(_roi_pooling)
json_outputs("ROIPooling", lambda attrs: 2)
