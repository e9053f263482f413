"""Array transforms: clip, Cast/cast, broadcast_to/broadcast_like/broadcast_axis, tile, repeat,
reverse/flip, SwapAxis/swapaxes, reshape_like, pad, smooth_l1, contrib.arange_like and
contrib.div_sqrt_dim.

MXNet quirks kept on purpose: broadcast_to's 0 keeps a dim but the rank must already match;
reverse and broadcast_axis reject negative axes in 1.9.1; clip casts its bounds to the input
dtype first; casting floats to narrow ints wraps around like C (via int64), not saturates.
"""

import math

import numpy as np

from ..registry import (
    Param,
    ShapeError,
    elemwise_shape,
    p_axis,
    p_bool,
    p_enum,
    p_float,
    p_int,
    p_opt,
    p_shape,
    register,
)
from ._util import fmt_shape, norm_axis


# ----------------------------------------------------------------------------- clip / cast


def clip(attrs, x):
    """Clip to [a_min, a_max] (bounds cast to the input dtype first, as MXNet does)."""
    lo, hi = x.dtype.type(attrs.a_min), x.dtype.type(attrs.a_max)
    return np.clip(x, lo, hi).astype(x.dtype, copy=False)


def clip_out(attrs, out, x):
    np.clip(x, x.dtype.type(attrs.a_min), x.dtype.type(attrs.a_max), out=out)


register(
    "clip",
    params={"a_min": Param(p_float), "a_max": Param(p_float)},
    infer_shape=elemwise_shape,
    out_kernel=clip_out,
    inplace=True,
    elementwise=True,
)(clip)

_CAST_TYPES = ("bool", "float16", "float32", "float64", "int32", "int64", "int8", "uint8")


def _p_cast_dtype(v):
    dt = np.dtype(v)
    if dt.name not in _CAST_TYPES:
        raise ValueError("dtype must be one of {}, got {!r}".format(list(_CAST_TYPES), dt.name))
    return dt


def cast(attrs, x):
    """Convert to `dtype`; floats into narrow integer types wrap like a C cast. MXNet's x86
    float->int conversion (cvtt*) gives the lowest int32 (int64 for int64) for NaN, +-inf and
    values out of that range, which narrower types then truncate (to 0 for int8/uint8)."""
    dt = attrs.dtype
    if x.dtype.kind == "f" and dt.kind in "iu":
        wide = np.int64 if dt.itemsize == 8 else np.int32
        limit = 2.0 ** (63 if dt.itemsize == 8 else 31)
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(x) < limit)
            if bad.any():
                x = np.where(bad, 0, x)
                r = x.astype(np.int64).astype(wide)
                r[bad] = np.iinfo(wide).min
                return r.astype(dt)
            if dt.itemsize < 8:
                return x.astype(np.int64).astype(dt)
    return x.astype(dt)


register(
    "Cast",
    aliases=("cast",),
    params={"dtype": Param(_p_cast_dtype)},
    infer_shape=elemwise_shape,
    infer_type=lambda a, t: (t, [a.dtype]),
)(cast)

# amp_cast / amp_multicast: the casts AMP inserts into converted models. Only floating
# inputs are cast (integers pass through); multicast brings every float input to the widest
# float type among them (the narrowest with cast_narrow).


def _amp_target(attrs, t):
    return attrs.dtype if t is not None and t.kind == "f" else t


def amp_cast(attrs, x):
    """Cast floating data to `dtype`; other data unchanged (a copy)."""
    return x.astype(attrs.dtype) if x.dtype.kind == "f" else x.copy()


register(
    "amp_cast",
    params={"dtype": Param(_p_cast_dtype)},
    infer_shape=elemwise_shape,
    infer_type=lambda a, t: (t, [_amp_target(a, t[0])]),
)(amp_cast)


def _multicast_type(attrs, in_types):
    floats = [t for t in in_types if t is not None and t.kind == "f"]
    if not floats:
        return in_types, list(in_types)
    pick = min if attrs.cast_narrow else max
    target = pick(floats, key=lambda t: t.itemsize)
    return in_types, [target if t is not None and t.kind == "f" else t for t in in_types]


def amp_multicast(attrs, *xs):
    """Cast every floating input to the widest (cast_narrow: narrowest) float type present."""
    if len(xs) != attrs.num_outputs:
        raise ShapeError(
            "amp_multicast: num_outputs={} but {} inputs".format(attrs.num_outputs, len(xs))
        )
    _, types = _multicast_type(attrs, [x.dtype for x in xs])
    return tuple(x.astype(t) for x, t in zip(xs, types))


register(
    "amp_multicast",
    inputs=None,
    key_var_num_args="num_outputs",
    params={"num_outputs": Param(p_int), "cast_narrow": Param(p_bool, False)},
    num_outputs=lambda a: a.num_outputs,
    infer_shape=lambda a, s: (s, list(s)),
    infer_type=_multicast_type,
)(amp_multicast)

# ----------------------------------------------------------------------------- broadcasting

_MAX_NDIM = 5  # MXNET_SPECIAL_MAX_NDIM: broadcast kernels handle 5 compacted dims


def _check_compact(big, small):
    """MXNet's BroadcastReduceShapeCompact: merge runs of broadcast / kept axes; more than
    five runs fail ("Too many reduction axes"), e.g. tiling three axes of a 3-D array."""
    if math.prod(small) == 1:
        return
    runs = 0
    bprod = sprod = 1
    for b, sm in zip(big, small):
        red = b != sm
        if (red and sprod > 1) or (not red and bprod != sprod):
            runs += 1
            bprod = sprod = 1
        bprod *= b
        if not red:
            sprod *= b
    if bprod > 1 or sprod > 1:
        runs += 1
    if runs > _MAX_NDIM:
        raise ShapeError(
            "Too many reduction axes from {} to {}".format(fmt_shape(big), fmt_shape(small))
        )


def _broadcast_to_out(attrs, s):
    target = attrs.shape
    if len(s) != len(target):
        raise ShapeError(
            "Operand of shape {} cannot be broadcasted to {}".format(
                fmt_shape(s), fmt_shape(target)
            )
        )
    out = []
    for a, t in zip(s, target):
        t = a if t == 0 else t
        if a and a != t and a != 1:
            raise ShapeError(
                "Array cannot be broadcasted from {} to {}".format(fmt_shape(s), fmt_shape(target))
            )
        out.append(t)
    return tuple(out)


def broadcast_to(attrs, x):
    """Broadcast size-1 axes to `shape` (a 0 in `shape` keeps that dim)."""
    out = _broadcast_to_out(attrs, x.shape)
    _check_compact(out, x.shape)
    return np.broadcast_to(x, out).copy()


register(
    "broadcast_to",
    params={"shape": Param(p_shape, ())},
    infer_shape=lambda a, s: (s, [None if s[0] is None else _broadcast_to_out(a, s[0])]),
)(broadcast_to)


def _broadcast_like_out(attrs, lhs, rhs):
    if attrs.lhs_axes is None and attrs.rhs_axes is None:
        if len(lhs) != len(rhs):
            raise ShapeError(
                "Operand of shape {} cannot be broadcasted to {}".format(
                    fmt_shape(lhs), fmt_shape(rhs)
                )
            )
        out = []
        for a, b in zip(lhs, rhs):
            if a != b and a != 1 and a and b:
                raise ShapeError(
                    "Array cannot be broadcasted from {} to {}".format(
                        fmt_shape(lhs), fmt_shape(rhs)
                    )
                )
            out.append(b if a == 1 or not a else a)
        return tuple(out)
    la, ra = attrs.lhs_axes or (), attrs.rhs_axes or ()
    if len(la) != len(ra):
        raise ShapeError(
            "broadcast_like: lhs_axes {} and rhs_axes {} must have the same length".format(la, ra)
        )
    out = list(lhs)
    for a, b in zip(la, ra):
        ia = norm_axis(a, len(lhs), "broadcast_like")
        ib = norm_axis(b, len(rhs), "broadcast_like")
        if lhs[ia] != 1 and lhs[ia] != rhs[ib]:
            raise ShapeError(
                "broadcast_like: lhs axis {} has size {}, cannot broadcast to {}".format(
                    a, lhs[ia], rhs[ib]
                )
            )
        out[ia] = rhs[ib]
    return tuple(out)


def broadcast_like(attrs, lhs, rhs):
    """Broadcast lhs to rhs's shape (or only lhs_axes to the sizes of rhs_axes)."""
    out = _broadcast_like_out(attrs, lhs.shape, rhs.shape)
    _check_compact(out, lhs.shape)
    return np.broadcast_to(lhs, out).copy()


register(
    "broadcast_like",
    inputs=("lhs", "rhs"),
    params={"lhs_axes": Param(p_opt(p_shape), None), "rhs_axes": Param(p_opt(p_shape), None)},
    infer_shape=lambda a, s: (
        s,
        [None if s[0] is None or s[1] is None else _broadcast_like_out(a, s[0], s[1])],
    ),
    infer_type=lambda a, t: (t, [t[0]]),
)(broadcast_like)


def _broadcast_axis_out(attrs, s):
    axes, sizes = attrs.axis, attrs.size
    if len(axes) != len(sizes):
        raise ShapeError(
            "broadcast_axis: axis {} and size {} must have the same length".format(axes, sizes)
        )
    out = list(s)
    for a, n in zip(axes, sizes):
        if not 0 <= a < len(s):
            raise ShapeError(
                "broadcast_axis: axis {} must be in range [0, {}) (MXNet 1.9.1 "
                "does not accept negative axes here)".format(a, len(s))
            )
        if s[a] != 1:
            raise ShapeError(
                "broadcast_axis: axis {} has size {}, only size-1 axes can be broadcast".format(
                    a, s[a]
                )
            )
        out[a] = n
    return tuple(out)


def broadcast_axis(attrs, x):
    """Broadcast the size-1 axes `axis` to the sizes `size`."""
    out = _broadcast_axis_out(attrs, x.shape)
    _check_compact(out, x.shape)
    return np.broadcast_to(x, out).copy()


register(
    "broadcast_axis",
    aliases=("broadcast_axes",),
    params={"axis": Param(p_shape, ()), "size": Param(p_shape, ())},
    infer_shape=lambda a, s: (s, [None if s[0] is None else _broadcast_axis_out(a, s[0])]),
)(broadcast_axis)

# ----------------------------------------------------------------------------- tile / repeat


def _tile_out(attrs, s):
    reps = attrs.reps
    n = max(len(s), len(reps))
    s2 = (1,) * (n - len(s)) + tuple(s)
    r2 = (1,) * (n - len(reps)) + tuple(reps)
    return tuple(a * b for a, b in zip(s2, r2))


def tile(attrs, x):
    """Repeat the whole array `reps` times per axis (numpy.tile's rank promotion)."""
    n = max(x.ndim, len(attrs.reps))
    dims = (1,) * (n - x.ndim) + x.shape
    reps = (1,) * (n - len(attrs.reps)) + tuple(attrs.reps)
    # MXNet tiles by broadcasting (1, d0, 1, d1, ...) to (r0, d0, r1, d1, ...)
    _check_compact(
        tuple(v for r, d in zip(reps, dims) for v in (r, d)), tuple(v for d in dims for v in (1, d))
    )
    return np.tile(x, attrs.reps)


register(
    "tile",
    params={"reps": Param(p_shape)},
    infer_shape=lambda a, s: (s, [None if s[0] is None else _tile_out(a, s[0])]),
)(tile)


def _repeat_out(attrs, s):
    if attrs.axis is None:
        return (math.prod(s) * attrs.repeats,)
    ax = norm_axis(attrs.axis, len(s), "repeat")
    return tuple(d * attrs.repeats if i == ax else d for i, d in enumerate(s))


def repeat(attrs, x):
    """Repeat each element `repeats` times along `axis` (the flattened array when None)."""
    if attrs.repeats < 0:
        raise ShapeError("repeat: repeats must be non-negative, got {}".format(attrs.repeats))
    ax = None if attrs.axis is None else norm_axis(attrs.axis, x.ndim, "repeat")
    return np.repeat(x, attrs.repeats, axis=ax)


register(
    "repeat",
    params={"repeats": Param(p_int), "axis": Param(p_opt(p_int), None)},
    infer_shape=lambda a, s: (s, [None if s[0] is None else _repeat_out(a, s[0])]),
)(repeat)

# ----------------------------------------------------------------------------- reverse / swap


def _reverse_axes(attrs, ndim):
    axes = attrs.axis if isinstance(attrs.axis, tuple) else (attrs.axis,)
    for a in axes:
        if not 0 <= a < ndim:
            raise ShapeError(
                "reverse: axis {} must be in range [0, {}) (MXNet 1.9.1 does not "
                "accept negative axes here)".format(a, ndim)
            )
    return axes


def reverse(attrs, x):
    """Reverse the order of elements along `axis` (an int or a tuple)."""
    return np.flip(x, _reverse_axes(attrs, x.ndim)).copy()


def _reverse_shape(attrs, in_shapes):
    if in_shapes[0] is not None:
        _reverse_axes(attrs, len(in_shapes[0]))
    return in_shapes, [in_shapes[0]]


register("reverse", aliases=("flip",), params={"axis": Param(p_axis)}, infer_shape=_reverse_shape)(
    reverse
)


def _swap_out(attrs, s):
    a = norm_axis(attrs.dim1, len(s), "SwapAxis")
    b = norm_axis(attrs.dim2, len(s), "SwapAxis")
    out = list(s)
    out[a], out[b] = out[b], out[a]
    return tuple(out)


def swapaxes(attrs, x):
    """Interchange axes dim1 and dim2."""
    a = norm_axis(attrs.dim1, x.ndim, "SwapAxis")
    b = norm_axis(attrs.dim2, x.ndim, "SwapAxis")
    return np.swapaxes(x, a, b).copy()


register(
    "SwapAxis",
    aliases=("swapaxes",),
    params={"dim1": Param(p_int, 0), "dim2": Param(p_int, 0)},
    infer_shape=lambda a, s: (s, [None if s[0] is None else _swap_out(a, s[0])]),
)(swapaxes)

# ----------------------------------------------------------------------------- reshape_like


def _span(begin, end, n, what):
    b = 0 if begin is None else (begin + n if begin < 0 else begin)
    e = n if end is None else (end + n if end < 0 else end)
    if not 0 <= b <= e <= n:
        raise ShapeError(
            "reshape_like: {}_begin/{}_end ({}, {}) out of range for {} dimensions".format(
                what, what, begin, end, n
            )
        )
    return b, e


def _reshape_like_out(attrs, lhs, rhs):
    lb, le = _span(attrs.lhs_begin, attrs.lhs_end, len(lhs), "lhs")
    rb, re_ = _span(attrs.rhs_begin, attrs.rhs_end, len(rhs), "rhs")
    out = tuple(lhs[:lb]) + tuple(rhs[rb:re_]) + tuple(lhs[le:])
    if 0 not in lhs and 0 not in out and math.prod(lhs) != math.prod(out):
        raise ShapeError(
            "Cannot reshape lhs with shape {} to new shape {} because they have "
            "different size.".format(fmt_shape(lhs), fmt_shape(out))
        )
    return out


def reshape_like(attrs, lhs, rhs):
    """Reshape lhs's dims [lhs_begin, lhs_end) to rhs's dims [rhs_begin, rhs_end) (all by
    default)."""
    return lhs.reshape(_reshape_like_out(attrs, lhs.shape, rhs.shape))


register(
    "reshape_like",
    inputs=("lhs", "rhs"),
    view=True,
    params={k: Param(p_opt(p_int), None) for k in ("lhs_begin", "lhs_end", "rhs_begin", "rhs_end")},
    infer_shape=lambda a, s: (
        s,
        [None if s[0] is None or s[1] is None else _reshape_like_out(a, s[0], s[1])],
    ),
    infer_type=lambda a, t: (t, [t[0]]),
)(reshape_like)

# ----------------------------------------------------------------------------- pad


def _pad_out(attrs, s):
    pw = attrs.pad_width
    if len(s) not in (4, 5) or len(pw) != 2 * len(s):
        raise ShapeError(
            "pad: only 4-D and 5-D input with pad_width of twice its rank is "
            "supported, got data {} and pad_width {}".format(fmt_shape(s), pw)
        )
    if any(pw[:4]):
        raise ShapeError(
            "pad: padding the first two axes is not supported (pad_width {})".format(pw)
        )
    return tuple(d + pw[2 * i] + pw[2 * i + 1] for i, d in enumerate(s))


def pad(attrs, x):
    """Pad the spatial axes (constant, edge or reflect), pad_width as (before, after) pairs."""
    _pad_out(attrs, x.shape)
    pw = attrs.pad_width
    widths = [(pw[2 * i], pw[2 * i + 1]) for i in range(x.ndim)]
    if attrs.mode == "constant":
        return np.pad(
            x, widths, mode="constant", constant_values=x.dtype.type(attrs.constant_value)
        )
    return np.pad(x, widths, mode=attrs.mode)


register(
    "Pad",
    aliases=("pad",),
    params={
        "mode": Param(p_enum("constant", "edge", "reflect")),
        "pad_width": Param(p_shape),
        "constant_value": Param(p_float, 0.0),
    },
    infer_shape=lambda a, s: (s, [None if s[0] is None else _pad_out(a, s[0])]),
)(pad)

# ----------------------------------------------------------------------------- losses / contrib


def smooth_l1(attrs, x):
    """0.5*(sigma*x)^2 where |x| < 1/sigma^2, else |x| - 0.5/sigma^2 (sigma = `scalar`)."""
    s2 = attrs.scalar * attrs.scalar
    a = np.abs(x)
    quad = x.dtype.type(0.5 * s2) * np.square(x)
    lin = a - x.dtype.type(0.5 / s2)
    return np.where(a < x.dtype.type(1.0 / s2), quad, lin).astype(x.dtype, copy=False)


register("smooth_l1", params={"scalar": Param(p_float, 1.0)}, infer_shape=elemwise_shape)(smooth_l1)


def _arange_like_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None]
    if attrs.axis is None:
        return in_shapes, [tuple(s)]
    return in_shapes, [(s[norm_axis(attrs.axis, len(s), "arange_like")],)]


def arange_like(attrs, x):
    """start + step * (i // repeat) for i over the input's size (or the size of `axis`),
    shaped like the input (or 1-D), in the input's dtype."""
    (shape,) = _arange_like_shape(attrs, [x.shape])[1]
    n = math.prod(shape)
    dt = x.dtype.type
    # MXNet computes in the data type: for int data, start and step are truncated first
    steps = (np.arange(n, dtype=np.int64) // attrs.repeat).astype(x.dtype)
    return (dt(attrs.start) + dt(attrs.step) * steps).astype(x.dtype).reshape(shape)


register(
    "_contrib_arange_like",
    params={
        "start": Param(p_float, 0.0),
        "step": Param(p_float, 1.0),
        "repeat": Param(p_int, 1),
        "ctx": Param(str, ""),
        "axis": Param(p_opt(p_int), None),
    },
    infer_shape=_arange_like_shape,
)(arange_like)


def div_sqrt_dim(attrs, x):
    """x / sqrt(x.shape[-1]) (scaled dot-product attention's scaling), in x's dtype."""
    return (x / math.sqrt(x.shape[-1])).astype(x.dtype)


register("_contrib_div_sqrt_dim", infer_shape=elemwise_shape)(div_sqrt_dim)
