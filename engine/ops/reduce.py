"""Reductions: sum, mean, max, min, prod, nansum, nanprod (axis, keepdims, exclude), norm
(ord 1/2, axis, keepdims, out_dtype), argmax, argmin, argmax_channel.

MXNet's conventions, which differ from numpy's: reducing everything gives shape (1,) (never a
0-d array); `axis=()` also means every axis; `exclude=True` reduces the axes *not* listed; the
result keeps the input dtype (int32 sum and mean stay int32); argmax/argmin return indices in
the input's dtype (float32 for float input), not int64.
"""

import numpy as np

from ..registry import Param, ShapeError, p_axis, p_bool, p_dtype, p_int, p_opt, register
from ._util import as_array, fmt_shape, norm_axis


def _axes(attrs, ndim, op):
    """The tuple of axes to reduce (None = all), validated as MXNet does."""
    axis = attrs.axis
    if axis is None or axis == ():
        return None
    axes = axis if isinstance(axis, tuple) else (axis,)
    norm = []
    for a in axes:
        b = norm_axis(a, ndim, op)
        if b in norm:
            raise ShapeError("{}: axis {} appears more than once in {}".format(op, a, axis))
        norm.append(b)
    if getattr(attrs, "exclude", False):
        return tuple(i for i in range(ndim) if i not in norm)
    return tuple(sorted(norm))


def _reduced_shape(shape, axes, keepdims):
    if axes is None:
        axes = tuple(range(len(shape)))
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    out = tuple(d for i, d in enumerate(shape) if i not in axes)
    return out or (1,)


def _reduce_shape_fn(op):
    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is None:
            return in_shapes, [None]
        return in_shapes, [_reduced_shape(s, _axes(attrs, len(s), op), attrs.keepdims)]

    return infer


def _make_reduce(op, fn):
    def kernel(attrs, x):
        axes = _axes(attrs, x.ndim, op)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            res = fn(x, axes)
        res = np.asarray(res)
        if res.dtype != x.dtype:
            res = res.astype(x.dtype)
        return as_array(res.reshape(_reduced_shape(x.shape, axes, attrs.keepdims)), x.dtype)

    kernel.__doc__ = (
        "MXNet's `{}` over `axis` (all axes by default; the complement with "
        "exclude=True), keeping the input dtype.".format(op)
    )
    return kernel


def _mean(x, axes):
    if x.dtype.kind in "iu":
        n = x.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
        return np.sum(x, axis=axes, dtype=x.dtype) // max(n, 1)
    return np.mean(x, axis=axes, dtype=x.dtype)


def _extreme(fn):
    def reduce(x, axes):
        if x.size == 0:
            raise ShapeError("cannot take the max/min of an empty array")
        return fn(x, axis=axes)

    return reduce


def kahan_nonfinite(x, axes, res, skip_nan=False):
    """Where MXNet sums with mshadow's Kahan-compensated reducer (nansum, moments' and the
    norm layers' means), an infinity that is not the last summed element of its group makes
    the compensation term NaN and the whole sum NaN (only a trailing +-inf survives). Sets
    those entries of `res` (the reduction over `axes`, keepdims or not) to NaN in place;
    `skip_nan`: NaN elements are skipped, not summed (nansum). Only runs on non-finite x."""
    if x.dtype.kind != "f" or np.isfinite(x).all():
        return res
    if axes is None:
        axes = tuple(range(x.ndim))
    keep = [a for a in range(x.ndim) if a not in axes]
    xt = np.transpose(x, keep + list(axes)).reshape([x.shape[a] for a in keep] + [-1])
    idx = np.arange(xt.shape[-1])
    if skip_nan:
        last = np.where(np.isnan(xt), -1, idx).max(axis=-1, initial=-1)
    else:
        last = xt.shape[-1] - 1
    bad = (np.isinf(xt) & (idx != np.expand_dims(last, -1))).any(axis=-1)
    if bad.any():
        flat = res.reshape(-1)
        flat[bad.reshape(-1)] = np.nan
    return res


def _nansum(x, axes):
    """np.nansum, with MXNet's Kahan-summed nansum's NaN for infinities (kahan_nonfinite)."""
    res = np.asarray(np.nansum(x, axis=axes, dtype=x.dtype))
    if res.ndim == 0:
        res = res.reshape(1)
    return kahan_nonfinite(x, axes, res, skip_nan=True)


_REDUCE = {
    "sum": (lambda x, a: np.sum(x, axis=a, dtype=x.dtype), ("sum_axis",)),
    "mean": (_mean, ()),
    "max": (_extreme(np.max), ("max_axis",)),
    "min": (_extreme(np.min), ("min_axis",)),
    "prod": (lambda x, a: np.prod(x, axis=a, dtype=x.dtype), ()),
    "nansum": (_nansum, ()),
    "nanprod": (lambda x, a: np.nanprod(x, axis=a, dtype=x.dtype), ()),
}

_REDUCE_PARAMS = {
    "axis": Param(p_opt(p_axis), None),
    "keepdims": Param(p_bool, False),
    "exclude": Param(p_bool, False),
}

for _name, (_fn, _aliases) in _REDUCE.items():
    register(
        _name, aliases=_aliases, params=dict(_REDUCE_PARAMS), infer_shape=_reduce_shape_fn(_name)
    )(_make_reduce(_name, _fn))

# ----------------------------------------------------------------------------- norm


def _norm_check(attrs):
    if attrs.ord not in (1, 2):
        raise ShapeError("norm: only ord=1 and ord=2 are supported, got ord={}".format(attrs.ord))
    axis = attrs.axis
    if isinstance(axis, tuple) and len(axis) > 2:
        raise ShapeError(
            "norm: axis must be None, an integer or a tuple of 1 or 2 integers, got {}".format(axis)
        )


def _norm_shape(attrs, in_shapes):
    _norm_check(attrs)
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None]
    return in_shapes, [_reduced_shape(s, _axes(attrs, len(s), "norm"), attrs.keepdims)]


def _norm_type(attrs, in_types):
    t = in_types[0]
    return list(in_types), [attrs.out_dtype if attrs.out_dtype is not None else t]


def norm(attrs, x):
    """L1 (ord=1) or L2 (ord=2, default) norm over `axis` (all axes by default; flattened)."""
    _norm_check(attrs)
    axes = _axes(attrs, x.ndim, "norm")
    acc = np.float64 if x.dtype == np.float16 else x.dtype
    if attrs.ord == 1:
        res = np.asarray(np.sum(np.abs(x), axis=axes, dtype=acc)).reshape(
            _reduced_shape(x.shape, axes, False)
        )
        kahan_nonfinite(x, axes, res)  # MXNet's L1 norm is a Kahan sum
    else:
        xa = x.astype(acc, copy=False)
        res = np.sqrt(np.sum(xa * xa, axis=axes, dtype=acc))
        if not np.isfinite(xa).all():
            # MXNet's nrm2 reducer scales by the running max |x|: a second infinity in a
            # group gives (inf/inf)^2 = NaN.
            n_inf = np.isinf(xa).sum(axis=axes)
            res = np.where(n_inf >= 2, np.nan, res)
    out_t = attrs.out_dtype if attrs.out_dtype is not None else x.dtype
    res = np.asarray(res).astype(out_t, copy=False)
    return as_array(res.reshape(_reduced_shape(x.shape, axes, attrs.keepdims)), out_t)


register(
    "norm",
    params={
        "ord": Param(p_int, 2),
        "axis": Param(p_opt(p_axis), None),
        "out_dtype": Param(p_opt(p_dtype), None),
        "keepdims": Param(p_bool, False),
    },
    infer_shape=_norm_shape,
    infer_type=_norm_type,
)(norm)

# ----------------------------------------------------------------------------- argmax / argmin


def _arg_axis(attrs, ndim, op):
    if attrs.axis is None:
        return None
    return norm_axis(attrs.axis, ndim, op)


def _arg_shape_fn(op):
    def infer(attrs, in_shapes):
        s = in_shapes[0]
        if s is None:
            return in_shapes, [None]
        a = _arg_axis(attrs, len(s), op)
        return in_shapes, [_reduced_shape(s, None if a is None else (a,), attrs.keepdims)]

    return infer


def _make_arg(op, fn):
    def kernel(attrs, x):
        a = _arg_axis(attrs, x.ndim, op)
        if x.size == 0:
            raise ShapeError(
                "{}: cannot reduce an empty array of shape {}".format(op, fmt_shape(x.shape))
            )
        res = fn(x.reshape(-1) if a is None else x, axis=0 if a is None else a)
        shape = _reduced_shape(x.shape, None if a is None else (a,), attrs.keepdims)
        return as_array(np.asarray(res).astype(x.dtype).reshape(shape), x.dtype)

    kernel.__doc__ = (
        "Index of the {} along `axis` (over the flattened input when None), in "
        "the input's dtype.".format("maximum" if op == "argmax" else "minimum")
    )
    return kernel


for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    register(
        _name,
        params={"axis": Param(p_opt(p_int), None), "keepdims": Param(p_bool, False)},
        infer_shape=_arg_shape_fn(_name),
    )(_make_arg(_name, _fn))


def argmax_channel(attrs, x):
    """argmax over axis 1 (the channel axis), indices in the input dtype."""
    if x.ndim < 2 or x.size == 0:
        raise ShapeError("argmax_channel needs a non-empty array of at least 2 dimensions")
    return as_array(np.argmax(x, axis=1).astype(x.dtype), x.dtype)


register(
    "argmax_channel",
    infer_shape=lambda a, s: (s, [None if s[0] is None else (tuple(s[0][:1] + s[0][2:]) or (1,))]),
)(argmax_channel)
