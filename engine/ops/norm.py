"""Normalisation ops: BatchNorm, LayerNorm, InstanceNorm, GroupNorm, L2Normalization.

Each infers its parameter shapes (gamma, beta, moving stats) backward from data, which is how
gluon's deferred init learns `in_channels`. Statistics are computed in the data dtype with
numpy's pairwise sums; MXNet's extra outputs follow its conventions exactly (BatchNorm's `var`
output is the *inverse* standard deviation; LayerNorm/GroupNorm output the standard deviation).
"""

from typing import Any, Dict

import numpy as np

from .. import autograd
from ..registry import (
    Param,
    ShapeError,
    get_op,
    merge_shape,
    p_bool,
    p_enum,
    p_float,
    p_int,
    p_opt,
    register,
)
from ._util import fmt_shape, json_outputs, norm_axis
from .reduce import kahan_nonfinite


def _fill_vec(in_shapes, idx, n, what, op):
    try:
        return merge_shape(in_shapes[idx], (n,))
    except ShapeError:
        raise ShapeError(
            "{}: {} has shape {}, expected {}".format(
                op, what, fmt_shape(in_shapes[idx]), fmt_shape((n,))
            )
        ) from None


def _check_inputs(shape_fn, attrs, arrays):
    """Run shape inference on concrete arrays; raise on any parameter of the wrong shape."""
    shapes = [a.shape for a in arrays]
    ins, _ = shape_fn(attrs, shapes)
    for given, want in zip(shapes, ins):
        if want is not None and given != want:
            raise ShapeError(
                "parameter shapes {} do not match the expected {}".format(
                    ", ".join(fmt_shape(s) for s in shapes), ", ".join(fmt_shape(s) for s in ins)
                )
            )


def _bcast(v, ndim, axis):
    shape = [1] * ndim
    shape[axis] = -1
    return v.reshape(shape)


# ----------------------------------------------------------------------------- BatchNorm


def _bn_shape(attrs, in_shapes):
    data = in_shapes[0]
    nout = 3 if attrs.output_mean_var else 1
    if data is None:
        return in_shapes, [None] * nout
    if not -len(data) <= attrs.axis < len(data):
        raise ShapeError(
            "Channel axis out of range: {} for data of shape {}".format(attrs.axis, fmt_shape(data))
        )
    c = data[attrs.axis % len(data)]
    names = ("gamma", "beta", "moving_mean", "moving_var")
    shapes = [data] + [_fill_vec(in_shapes, i + 1, c, names[i], "BatchNorm") for i in range(4)]
    return shapes, [data] + [(c,)] * (nout - 1)


def _bn_stats(attrs, x, gamma, beta, mean, var):
    """(axis, scale, shift, mean, invstd); float16 data is normalised with float32 statistics,
    as MXNet keeps BatchNorm's parameters and outputs mean/var in float32 then."""
    ax = attrs.axis % x.ndim
    pt = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
    if autograd.is_training() and not attrs.use_global_stats:
        axes = tuple(i for i in range(x.ndim) if i != ax)
        xs = x.astype(pt, copy=False)
        mean = xs.mean(axis=axes, dtype=pt)
        var = xs.var(axis=axes, dtype=pt)
    invstd = (1.0 / np.sqrt(var.astype(np.float64) + attrs.eps)).astype(pt)
    g = np.ones_like(invstd) if attrs.fix_gamma else gamma.astype(pt, copy=False)
    scale = g * invstd
    mean = mean.astype(pt, copy=False)
    shift = beta.astype(pt, copy=False) - mean * scale
    return ax, scale.astype(x.dtype, copy=False), shift.astype(x.dtype, copy=False), mean, invstd


def _bn_nonfinite(attrs, out, x, ax, scale, shift, mean, beta):
    """MXNet computes (x - mean) * scale + beta; the folded x * scale + (beta - mean * scale)
    is the same for finite statistics but gives inf - inf = NaN for an infinite scale. When
    the (per-channel, small) scale or shift is not finite, write MXNet's form into `out`
    (may be x itself) and return True. (contrib.SyncBatchNorm does compute the folded form.)"""
    if getattr(attrs, "folded", False) or (np.isfinite(scale).all() and np.isfinite(shift).all()):
        return False
    with np.errstate(invalid="ignore", over="ignore"):
        res = (x - _bcast(mean.astype(x.dtype, copy=False), x.ndim, ax)) * _bcast(
            scale, x.ndim, ax
        ) + _bcast(beta.astype(x.dtype, copy=False), x.ndim, ax)
    out[...] = res
    return True


def batch_norm(attrs, x, gamma, beta, moving_mean, moving_var):
    """Batch normalisation: moving statistics at inference (or with use_global_stats), batch
    statistics when training. fix_gamma=True (the op's default) ignores gamma."""
    if (
        x.ndim == 0
        or gamma.shape != (x.shape[attrs.axis % x.ndim],)
        or moving_var.shape != gamma.shape
        or beta.shape != gamma.shape
        or moving_mean.shape != gamma.shape
    ):
        _check_inputs(_bn_shape, attrs, [x, gamma, beta, moving_mean, moving_var])
    ax, scale, shift, mean, invstd = _bn_stats(attrs, x, gamma, beta, moving_mean, moving_var)
    out = x * _bcast(scale, x.ndim, ax)
    out += _bcast(shift, x.ndim, ax)
    _bn_nonfinite(attrs, out, x, ax, scale, shift, mean, beta)
    if attrs.output_mean_var:
        return out, mean.copy(), invstd
    return out


def batch_norm_out(attrs, out, x, gamma, beta, moving_mean, moving_var):
    """The same into a preallocated (possibly the input's) buffer."""
    ax, scale, shift, mean, _ = _bn_stats(attrs, x, gamma, beta, moving_mean, moving_var)
    if not _bn_nonfinite(attrs, out, x, ax, scale, shift, mean, beta):
        np.multiply(x, _bcast(scale, x.ndim, ax), out=out)
        out += _bcast(shift, x.ndim, ax)


def _bn_type(attrs, in_types):
    """MXNet: float16 data keeps float32 parameters and statistics; integer data fails."""
    t = in_types[0]
    if t is None:
        return in_types, [None]
    if t.kind != "f":
        raise ShapeError("BatchNorm does not support data type {}".format(t.name))
    p = np.dtype(np.float32) if t == np.float16 else t
    for i, given in enumerate(in_types[1:], 1):
        if given is not None and given != p:
            raise ShapeError(
                "BatchNorm: input {} has type {}, expected {}".format(i, given.name, p.name)
            )
    return [t, p, p, p, p], [t] + ([p, p] if attrs.output_mean_var else [])


# register()'s num_outputs and output_names for the norms with optional mean/var outputs
_BN_OUT: Dict[str, Any] = {
    "num_outputs": lambda a: 3 if a.output_mean_var else 1,
    "output_names": lambda a: ("output", "mean", "var") if a.output_mean_var else ("output",),
}

register(
    "BatchNorm",
    inputs=("data", "gamma", "beta"),
    aux=("moving_mean", "moving_var"),
    params={
        "eps": Param(p_float, 0.0010000000474974513),
        "momentum": Param(p_float, 0.9),
        "fix_gamma": Param(p_bool, True),
        "use_global_stats": Param(p_bool, False),
        "output_mean_var": Param(p_bool, False),
        "axis": Param(p_int, 1),
        "cudnn_off": Param(p_bool, False),
        "min_calib_range": Param(p_opt(p_float), None),
        "max_calib_range": Param(p_opt(p_float), None),
    },
    infer_shape=_bn_shape,
    infer_type=_bn_type,
    out_kernel=batch_norm_out,
    inplace=True,
    **_BN_OUT,
)(batch_norm)


def _bn_relu_4d(x):
    if x.ndim != 4:
        raise ShapeError(
            "BatchNormWithReLU operator only supports MKL-DNN Backend (4-D data), "
            "got data of shape {}".format(fmt_shape(x.shape))
        )


def batch_norm_relu(attrs, x, gamma, beta, moving_mean, moving_var):
    """contrib.BatchNormWithReLU: BatchNorm (same parameters and statistics) then relu; like
    MXNet 1.9.1's (oneDNN-only) kernel it takes 4-D data only."""
    _bn_relu_4d(x)
    res = batch_norm(attrs, x, gamma, beta, moving_mean, moving_var)
    out = res[0] if isinstance(res, tuple) else res
    np.maximum(out, 0, out=out)
    return res


def batch_norm_relu_out(attrs, out, x, gamma, beta, moving_mean, moving_var):
    _bn_relu_4d(x)
    batch_norm_out(attrs, out, x, gamma, beta, moving_mean, moving_var)
    np.maximum(out, 0, out=out)


register(
    "_contrib_BatchNormWithReLU",
    inputs=("data", "gamma", "beta"),
    aux=("moving_mean", "moving_var"),
    params=dict(get_op("BatchNorm").params),
    infer_shape=_bn_shape,
    infer_type=_bn_type,
    out_kernel=batch_norm_relu_out,
    inplace=True,
    **_BN_OUT,
)(batch_norm_relu)

# ----------------------------------------------------------------------------- LayerNorm


def _ln_shape(attrs, in_shapes):
    data = in_shapes[0]
    nout = 3 if attrs.output_mean_var else 1
    if data is None:
        return in_shapes, [None] * nout
    ax = norm_axis(attrs.axis, len(data), "LayerNorm")
    c = data[ax]
    shapes = [
        data,
        _fill_vec(in_shapes, 1, c, "gamma", "LayerNorm"),
        _fill_vec(in_shapes, 2, c, "beta", "LayerNorm"),
    ]
    red = tuple(1 if i == ax else d for i, d in enumerate(data))
    return shapes, [data] + [red] * (nout - 1)


def layer_norm(attrs, x, gamma, beta):
    """(x - mean) / sqrt(var + eps) * gamma + beta over `axis` (default -1)."""
    if x.ndim == 0:
        raise ShapeError("LayerNorm needs at least one dimension")
    ax = norm_axis(attrs.axis, x.ndim, "LayerNorm")
    if gamma.shape != (x.shape[ax],) or beta.shape != gamma.shape:
        _check_inputs(_ln_shape, attrs, [x, gamma, beta])
    mean = x.mean(axis=ax, keepdims=True, dtype=x.dtype)
    cen = x - mean
    var = np.mean(np.square(cen), axis=ax, keepdims=True, dtype=x.dtype)
    std = np.sqrt(var + x.dtype.type(attrs.eps))
    out = cen / std
    out *= _bcast(gamma.astype(x.dtype, copy=False), x.ndim, ax)
    out += _bcast(beta.astype(x.dtype, copy=False), x.ndim, ax)
    if attrs.output_mean_var:
        kahan_nonfinite(x, (ax,), mean)  # MXNet's Kahan-summed mean
        return out, mean, std
    return out


_NORM_OUT: Dict[str, Any] = {
    "num_outputs": lambda a: 3 if a.output_mean_var else 1,
    "output_names": lambda a: ("output", "mean", "std") if a.output_mean_var else ("output",),
}

register(
    "LayerNorm",
    inputs=("data", "gamma", "beta"),
    params={
        "axis": Param(p_int, -1),
        "eps": Param(p_float, 9.99999975e-06),
        "output_mean_var": Param(p_bool, False),
    },
    infer_shape=_ln_shape,
    **_NORM_OUT,
)(layer_norm)

# ----------------------------------------------------------------------------- InstanceNorm


def _in_shape(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return in_shapes, [None]
    if len(data) < 3:
        raise ShapeError(
            "InstanceNorm only accepts input tensors of 3 or more dimensions, got {}".format(
                fmt_shape(data)
            )
        )
    c = data[1]
    return [
        data,
        _fill_vec(in_shapes, 1, c, "gamma", "InstanceNorm"),
        _fill_vec(in_shapes, 2, c, "beta", "InstanceNorm"),
    ], [data]


def instance_norm(attrs, x, gamma, beta):
    """Normalise each (sample, channel) over the spatial axes, then scale and shift."""
    _check_inputs(_in_shape, attrs, [x, gamma, beta])
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axis=axes, keepdims=True, dtype=x.dtype)
    cen = x - mean
    var = np.mean(np.square(cen), axis=axes, keepdims=True, dtype=x.dtype)
    out = cen / np.sqrt(var + x.dtype.type(attrs.eps))
    out *= _bcast(gamma.astype(x.dtype, copy=False), x.ndim, 1)
    out += _bcast(beta.astype(x.dtype, copy=False), x.ndim, 1)
    return out


def _float32_only(attrs, in_types):
    """InstanceNorm is a legacy MXNet operator: float32 only."""
    for t in in_types:
        if t is not None and t != np.float32:
            raise ShapeError("InstanceNorm: unsupported data type {} (float32 only)".format(t.name))
    f = np.dtype(np.float32)
    return [f] * len(in_types), [f]


register(
    "InstanceNorm",
    inputs=("data", "gamma", "beta"),
    params={"eps": Param(p_float, 0.00100000005)},
    infer_shape=_in_shape,
    infer_type=_float32_only,
)(instance_norm)

# ----------------------------------------------------------------------------- GroupNorm


def _gn_shape(attrs, in_shapes):
    data = in_shapes[0]
    g = attrs.num_groups
    nout = 3 if attrs.output_mean_var else 1
    if data is None:
        return in_shapes, [None] * nout
    if len(data) < 2:
        raise ShapeError("GroupNorm needs data with a channel axis, got {}".format(fmt_shape(data)))
    if data[1] and data[1] % g:
        raise ShapeError(
            "GroupNorm: channels ({}) must be divisible by num_groups ({})".format(data[1], g)
        )
    # MXNet 1.x: gamma and beta have one entry per group
    shapes = [
        data,
        _fill_vec(in_shapes, 1, g, "gamma", "GroupNorm"),
        _fill_vec(in_shapes, 2, g, "beta", "GroupNorm"),
    ]
    return shapes, [data] + [(data[0], g)] * (nout - 1)


def group_norm(attrs, x, gamma, beta):
    """Normalise over each group of channels (and the spatial axes); gamma/beta per group."""
    _check_inputs(_gn_shape, attrs, [x, gamma, beta])
    n, c = x.shape[:2]
    g = attrs.num_groups
    xg = x.reshape(n, g, -1)
    mean = xg.mean(axis=2, keepdims=True, dtype=x.dtype)
    cen = xg - mean
    var = np.mean(np.square(cen), axis=2, keepdims=True, dtype=x.dtype)
    std = np.sqrt(var + x.dtype.type(attrs.eps))
    out = cen / std
    out *= gamma.astype(x.dtype, copy=False).reshape(1, g, 1)
    out += beta.astype(x.dtype, copy=False).reshape(1, g, 1)
    out = out.reshape(x.shape)
    if attrs.output_mean_var:
        kahan_nonfinite(xg, (2,), mean)  # MXNet's Kahan-summed mean
        return out, mean.reshape(n, g), std.reshape(n, g)
    return out


register(
    "GroupNorm",
    inputs=("data", "gamma", "beta"),
    params={
        "num_groups": Param(p_int, 1),
        "eps": Param(p_float, 9.99999975e-06),
        "output_mean_var": Param(p_bool, False),
    },
    infer_shape=_gn_shape,
    **_NORM_OUT,
)(group_norm)

# ----------------------------------------------------------------------------- L2Normalization


def _l2_axes(mode, ndim):
    if mode == "instance":
        return tuple(range(1, ndim))
    if mode == "channel":
        return (1,)
    return tuple(range(2, ndim))


def _l2_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is not None and (len(s) < 2 or attrs.mode == "spatial" and len(s) < 3):
        raise ShapeError(
            "L2Normalization (mode={}) needs data of at least {} dimensions, got {}".format(
                attrs.mode, 3 if attrs.mode == "spatial" else 2, fmt_shape(s)
            )
        )
    return in_shapes, [s]


def l2_normalization(attrs, x):
    """x / sqrt(sum(x^2) + eps) over all but the batch axis (instance), over channels
    (channel) or over the spatial axes (spatial)."""
    _l2_shape(attrs, [x.shape])
    axes = _l2_axes(attrs.mode, x.ndim)
    norm = np.sqrt(
        np.sum(np.square(x), axis=axes, keepdims=True, dtype=x.dtype) + x.dtype.type(attrs.eps)
    )
    return x / norm


register(
    "L2Normalization",
    params={
        "eps": Param(p_float, 1.00000001e-10),
        "mode": Param(p_enum("channel", "instance", "spatial"), "instance"),
    },
    infer_shape=_l2_shape,
)(l2_normalization)


def sync_batch_norm(attrs, x, gamma, beta, moving_mean, moving_var):
    """contrib.SyncBatchNorm: BatchNorm over axis 1 (the cross-device statistics only matter
    when training on several devices; on one device it is BatchNorm)."""
    return batch_norm(_SyncAttrs(attrs), x, gamma, beta, moving_mean, moving_var)


class _SyncAttrs:
    """SyncBatchNorm's attrs seen as BatchNorm's (axis 1, no calibration ranges)."""

    def __init__(self, attrs):
        self.__dict__.update(attrs.__dict__)
        self.axis = 1
        self.folded = True  # MXNet's SyncBatchNorm computes x * scale + shift


register(
    "_contrib_SyncBatchNorm",
    inputs=("data", "gamma", "beta"),
    aux=("moving_mean", "moving_var"),
    params={
        "eps": Param(p_float, 0.00100000005),
        "momentum": Param(p_float, 0.9),
        "fix_gamma": Param(p_bool, True),
        "use_global_stats": Param(p_bool, False),
        "output_mean_var": Param(p_bool, False),
        "ndev": Param(p_int, 1),
        "key": Param(str),
    },
    infer_shape=lambda a, s: _bn_shape(_SyncAttrs(a), s),
    infer_type=_bn_type,
    **_BN_OUT,
)(sync_batch_norm)

# MXNet's graph JSON counts hidden outputs (saved statistics) of these nodes
for _name in ("BatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm", "_contrib_SyncBatchNorm"):
    json_outputs(_name, lambda attrs: 3)
json_outputs("L2Normalization", lambda attrs: 2)

# ----------------------------------------------------------------------------- LRN


def _lrn_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is not None and len(s) != 4:
        raise ShapeError("LRN needs 4-D data (N, C, H, W), got {}".format(fmt_shape(s)))
    return in_shapes, [s]


def lrn(attrs, x):
    """Local response normalisation across channels: x / (knorm + alpha/nsize *
    sum of x^2 over the nsize channels centred on each one) ** beta."""
    if x.ndim != 4:
        raise ShapeError("LRN needs 4-D data (N, C, H, W), got {}".format(fmt_shape(x.shape)))
    n = attrs.nsize
    # the window is symmetric: (nsize-1)//2 channels each side (an even nsize loses one, as
    # MXNet's kernel does), while the scale still divides alpha by nsize
    half = (n - 1) // 2
    w = 2 * half + 1
    sq = np.square(x)
    padded = np.pad(sq, [(0, 0), (half, half)] + [(0, 0)] * (x.ndim - 2))
    # a sum of the w shifted channel slices (not a cumsum difference: a NaN or inf would
    # spread to every later channel, while MXNet's window sum keeps it to its neighbours)
    window = padded[:, 0 : x.shape[1]].astype(np.float64)
    for i in range(1, w):
        window += padded[:, i : i + x.shape[1]]
    scale = attrs.knorm + attrs.alpha / n * window
    return (x / scale**attrs.beta).astype(x.dtype)


register(
    "LRN",
    params={
        "alpha": Param(p_float, 9.99999975e-05),
        "beta": Param(p_float, 0.75),
        "knorm": Param(p_float, 2.0),
        "nsize": Param(p_int),
    },
    infer_shape=_lrn_shape,
)(lrn)
json_outputs("LRN", lambda attrs: 2)  # and the hidden normaliser
json_outputs("_contrib_BatchNormWithReLU", lambda attrs: 4)  # and a hidden relu workspace
