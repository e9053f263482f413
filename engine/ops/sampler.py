"""Spatial-transformer ops: GridGenerator (affine / warp), BilinearSampler and
SpatialTransformer (affine grid + bilinear sampling), as MXNet 1.9.1's CPU kernels.

Grids hold normalised coordinates in [-1, 1] (x in channel 0, y in channel 1); sampling maps
them to (x+1)*(W-1)/2 and reads the four neighbours, each contributing only when it lies inside
the image (zero padding). Everything is one vectorised gather per call.
"""

import numpy as np

from ..registry import Param, ShapeError, p_bool, p_enum, p_opt, p_shape, register
from ._util import fmt_shape, json_outputs


def _target(attrs, what):
    t = attrs.target_shape
    if len(t) != 2 or t[0] <= 0 or t[1] <= 0:
        raise ShapeError("{}: target_shape must be (height, width) > 0, got {}".format(what, t))
    return t


def _affine_grid(theta, h, w):
    """(N, 6) affine parameters -> (N, 2, h, w) source coordinates."""
    xs = np.linspace(-1, 1, w, dtype=np.float64) if w > 1 else np.full(1, -1.0)
    ys = np.linspace(-1, 1, h, dtype=np.float64) if h > 1 else np.full(1, -1.0)
    gx, gy = np.meshgrid(xs, ys)
    dst = np.stack([gx.ravel(), gy.ravel(), np.ones(h * w)]).astype(theta.dtype)  # (3, hw)
    out = np.matmul(theta.reshape(-1, 2, 3), dst)
    return out.reshape(theta.shape[0], 2, h, w)


def _grid_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None]
    if attrs.transform_type == "affine":
        h, w = _target(attrs, "GridGenerator")
        if len(s) != 2 or (s[1] and s[1] != 6):
            raise ShapeError(
                "GridGenerator(affine): data must be (batch, 6), got {}".format(fmt_shape(s))
            )
        return in_shapes, [(s[0], 2, h, w)]
    if len(s) != 4 or (s[1] and s[1] != 2):
        raise ShapeError(
            "GridGenerator(warp): data must be a (batch, 2, H, W) flow, got {}".format(fmt_shape(s))
        )
    return in_shapes, [tuple(s)]


def grid_generator(attrs, data):
    """Sampling grid from affine parameters (N, 6) or from an optical flow (N, 2, H, W)."""
    _grid_shape(attrs, [data.shape])
    if attrs.transform_type == "affine":
        h, w = _target(attrs, "GridGenerator")
        return _affine_grid(data, h, w)
    n, _, h, w = data.shape
    jj = np.arange(w, dtype=data.dtype)
    ii = np.arange(h, dtype=data.dtype)[:, None]
    gx = (data[:, 0] + jj) / data.dtype.type((w - 1) / 2.0) - 1
    gy = (data[:, 1] + ii) / data.dtype.type((h - 1) / 2.0) - 1
    return np.stack([gx, gy], axis=1).astype(data.dtype)


register(
    "GridGenerator",
    params={
        "transform_type": Param(p_enum("affine", "warp")),
        "target_shape": Param(p_shape, (0, 0)),
    },
    infer_shape=_grid_shape,
)(grid_generator)
json_outputs("GridGenerator", lambda attrs: 2)


def _sample(data, grid):
    """Bilinear sampling of data (N, C, H, W) at grid (N, 2, h, w) with zero padding."""
    n, c, ih, iw = data.shape
    x = (grid[:, 0].astype(np.float64) + 1) * (iw - 1) / 2
    y = (grid[:, 1].astype(np.float64) + 1) * (ih - 1) / 2
    x0 = np.floor(x).astype(np.int64)
    y0 = np.floor(y).astype(np.int64)
    wx = 1 - (x - x0)
    wy = 1 - (y - y0)
    out = np.zeros((n, c) + grid.shape[2:], np.float64)
    batch = np.arange(n)[:, None, None]
    for dy, fy in ((0, wy), (1, 1 - wy)):
        for dx, fx in ((0, wx), (1, 1 - wx)):
            yy, xx = y0 + dy, x0 + dx
            inside = (yy >= 0) & (yy <= ih - 1) & (xx >= 0) & (xx <= iw - 1)
            vals = data[batch, :, np.clip(yy, 0, ih - 1), np.clip(xx, 0, iw - 1)]  # n,h,w,c
            weight = np.where(inside, fy * fx, 0.0)
            out += np.moveaxis(vals * weight[..., None], -1, 1)
    return out.astype(data.dtype)


def _sampler_shape(attrs, in_shapes):
    d, g = in_shapes
    if d is not None and len(d) != 4:
        raise ShapeError("BilinearSampler: data must be 4-D (NCHW), got {}".format(fmt_shape(d)))
    if g is not None and (len(g) != 4 or (g[1] and g[1] != 2)):
        raise ShapeError(
            "BilinearSampler: grid must be (batch, 2, H, W), got {}".format(fmt_shape(g))
        )
    if d is None or g is None:
        return in_shapes, [None]
    if d[0] and g[0] and d[0] != g[0]:
        raise ShapeError(
            "BilinearSampler: data {} and grid {} batch sizes differ".format(
                fmt_shape(d), fmt_shape(g)
            )
        )
    return in_shapes, [(d[0], d[1], g[2], g[3])]


def bilinear_sampler(attrs, data, grid):
    """Sample data at the normalised grid coordinates (zero outside the image)."""
    _sampler_shape(attrs, [data.shape, grid.shape])
    return _sample(data, grid)


register(
    "BilinearSampler",
    inputs=("data", "grid"),
    params={"cudnn_off": Param(p_opt(p_bool), None)},
    infer_shape=_sampler_shape,
)(bilinear_sampler)
json_outputs("BilinearSampler", lambda attrs: 2)


def _st_shape(attrs, in_shapes):
    d, loc = in_shapes
    h, w = _target(attrs, "SpatialTransformer")
    if d is not None and len(d) != 4:
        raise ShapeError("SpatialTransformer: data must be 4-D (NCHW), got {}".format(fmt_shape(d)))
    if loc is not None and (len(loc) != 2 or (loc[1] and loc[1] != 6)):
        raise ShapeError(
            "SpatialTransformer: loc must be (batch, 6), got {}".format(fmt_shape(loc))
        )
    if d is None:
        return in_shapes, [None]
    return [d, loc if loc is not None else (d[0], 6)], [(d[0], d[1], h, w)]


def spatial_transformer(attrs, data, loc):
    """Affine grid of target_shape from loc (N, 6), then bilinear sampling of data."""
    _st_shape(attrs, [data.shape, loc.shape])
    h, w = _target(attrs, "SpatialTransformer")
    return _sample(data, _affine_grid(loc, h, w))


register(
    "SpatialTransformer",
    inputs=("data", "loc"),
    params={
        "target_shape": Param(p_shape, (0, 0)),
        "transform_type": Param(p_enum("affine")),
        "sampler_type": Param(p_enum("bilinear")),
        "cudnn_off": Param(p_opt(p_bool), None),
    },
    infer_shape=_st_shape,
)(spatial_transformer)
json_outputs("SpatialTransformer", lambda attrs: 3)
