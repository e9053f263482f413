"""Less common ops model code still reaches for: SequenceLast, SequenceReverse, UpSampling
(nearest), Crop, depth_to_space, space_to_depth, diag, moments, gamma, gammaln, erfinv,
cumsum, contrib.quadratic and contrib.index_copy.

Each follows MXNet 1.9.1, checked against it: SequenceReverse only supports axis 0 and leaves
steps past a sequence's length in place; UpSampling brings every input to the first input's
size times `scale` and concatenates (or sums) them; moments needs explicit axes and returns
the population variance.
"""

import math

import numpy as np

from ..registry import Param, ShapeError, p_bool, p_enum, p_float, p_int, p_opt, p_shape, register
from ._util import as_array, fmt_shape, norm_axis

# ----------------------------------------------------------------------------- sequences


def _seq_inputs(attrs):
    return ("data", "sequence_length") if attrs.use_sequence_length else ("data",)


def _lengths(attrs, data, sequence_length, batch_axis):
    t = data.shape[attrs.axis]
    if sequence_length is None:
        return np.full(data.shape[batch_axis], t, np.int64)
    ln = sequence_length.astype(np.int64)
    if ln.shape != (data.shape[batch_axis],):
        raise ShapeError(
            "sequence_length has shape {}, expected [{}] (the batch axis of data {})".format(
                fmt_shape(ln.shape), data.shape[batch_axis], fmt_shape(data.shape)
            )
        )
    return np.clip(ln, 1, t)


def _seq_last_shape(attrs, in_shapes):
    s = in_shapes[0]
    if attrs.axis not in (0, 1):
        raise ShapeError("SequenceLast: axis must be 0 or 1, got {}".format(attrs.axis))
    if s is None:
        return in_shapes, [None]
    if len(s) < 2:
        raise ShapeError(
            "SequenceLast needs data of at least 2 dimensions, got {}".format(fmt_shape(s))
        )
    ins = list(in_shapes)
    if attrs.use_sequence_length:
        ins[1] = (s[1 - attrs.axis],)
    return ins, [tuple(d for i, d in enumerate(s) if i != attrs.axis)]


def sequence_last(attrs, data, sequence_length=None):
    """The last valid step of each sequence along `axis` (its length's step, or the last)."""
    _seq_last_shape(
        attrs, [data.shape] + ([] if sequence_length is None else [sequence_length.shape])
    )
    b_ax = 1 - attrs.axis
    last = _lengths(attrs, data, sequence_length, b_ax) - 1
    idx = np.arange(data.shape[b_ax])
    return data[last, idx] if attrs.axis == 0 else data[idx, last]


register(
    "SequenceLast",
    inputs=_seq_inputs,
    params={"use_sequence_length": Param(p_bool, False), "axis": Param(p_int, 0)},
    infer_shape=_seq_last_shape,
    infer_type=lambda a, t: (t, [t[0]]),
)(sequence_last)


def _seq_rev_shape(attrs, in_shapes):
    s = in_shapes[0]
    if attrs.axis != 0:
        raise ShapeError(
            "SequenceReverse: Current implementation expects axis to be 0, got {}".format(
                attrs.axis
            )
        )
    ins = list(in_shapes)
    if s is not None and attrs.use_sequence_length:
        ins[1] = (s[1],)
    return ins, [s]


def sequence_reverse(attrs, data, sequence_length=None):
    """Reverse the first `length` steps of each sequence along axis 0 (all steps without
    use_sequence_length); later steps stay where they are."""
    _seq_rev_shape(
        attrs, [data.shape] + ([] if sequence_length is None else [sequence_length.shape])
    )
    if data.ndim < 2:
        raise ShapeError(
            "SequenceReverse needs data of at least 2 dimensions, got {}".format(
                fmt_shape(data.shape)
            )
        )
    t = data.shape[0]
    ln = _lengths(attrs, data, sequence_length, 1)
    steps = np.arange(t)[:, None]
    src = np.where(steps < ln[None, :], ln[None, :] - 1 - steps, steps)
    return data[src, np.arange(data.shape[1])[None, :]]


register(
    "SequenceReverse",
    inputs=_seq_inputs,
    params={"use_sequence_length": Param(p_bool, False), "axis": Param(p_int, 0)},
    infer_shape=_seq_rev_shape,
    infer_type=lambda a, t: (t, [t[0]]),
)(sequence_reverse)

# ----------------------------------------------------------------------------- UpSampling


def _up_shape(attrs, in_shapes):
    if attrs.sample_type != "nearest":
        raise ShapeError(
            "UpSampling: only sample_type='nearest' is implemented by the "
            "hybridlint engine (bilinear needs a learned weight input)"
        )
    first = in_shapes[0]
    if first is None:
        return in_shapes, [None]
    if len(first) != 4:
        raise ShapeError(
            "UpSampling: input data must be 4-D (NCHW), got {}".format(fmt_shape(first))
        )
    oh, ow = first[2] * attrs.scale, first[3] * attrs.scale
    channels = 0
    for s in in_shapes:
        if s is None:
            return in_shapes, [None]
        if len(s) != 4 or s[0] != first[0] or oh % s[2] or ow % s[3] or oh // s[2] != ow // s[3]:
            raise ShapeError(
                "UpSampling: input {} cannot be scaled to {}x{} (first input {} "
                "times scale {})".format(fmt_shape(s), oh, ow, fmt_shape(first), attrs.scale)
            )
        channels += s[1]
    if attrs.multi_input_mode == "sum":
        if any(s[1] != first[1] for s in in_shapes):
            raise ShapeError(
                "UpSampling(multi_input_mode='sum') needs inputs with the same number of channels"
            )
        channels = first[1]
    return in_shapes, [(first[0], channels, oh, ow)]


def upsampling(attrs, *xs):
    """Nearest-neighbour upsampling of every input to the first input's size times `scale`,
    concatenated along channels (or summed with multi_input_mode='sum')."""
    (shape,) = _up_shape(attrs, [x.shape for x in xs])[1]
    ups = []
    for x in xs:
        f = shape[2] // x.shape[2]
        ups.append(x.repeat(f, axis=2).repeat(f, axis=3) if f > 1 else x.copy())
    if attrs.multi_input_mode == "sum":
        out = ups[0]
        for u in ups[1:]:
            out = out + u
        return out
    return ups[0] if len(ups) == 1 else np.concatenate(ups, axis=1)


register(
    "UpSampling",
    inputs=None,
    key_var_num_args="num_args",
    params={
        "scale": Param(p_int),
        "num_filter": Param(p_int, 0),
        "sample_type": Param(p_enum("bilinear", "nearest")),
        "multi_input_mode": Param(p_enum("concat", "sum"), "concat"),
        "num_args": Param(p_int, 0),
        "workspace": Param(p_int, 512),
    },
    infer_shape=_up_shape,
)(upsampling)

# ----------------------------------------------------------------------------- depth/space


def _d2s_out(attrs, s, inverse):
    b = attrs.block_size
    if len(s) != 4:
        raise ShapeError(
            "{}: data must be 4-D (NCHW), got {}".format(
                "space_to_depth" if inverse else "depth_to_space", fmt_shape(s)
            )
        )
    n, c, h, w = s
    if b < 1:
        raise ShapeError("block_size must be positive, got {}".format(b))
    if inverse:
        if h % b or w % b:
            raise ShapeError(
                "space_to_depth: height {} and width {} must be divisible by block_size {}".format(
                    h, w, b
                )
            )
        return (n, c * b * b, h // b, w // b)
    if c % (b * b):
        raise ShapeError(
            "depth_to_space: channels {} must be divisible by block_size^2 = {}".format(c, b * b)
        )
    return (n, c // (b * b), h * b, w * b)


def depth_to_space(attrs, x):
    """(N, C, H, W) -> (N, C/b^2, H*b, W*b), channel blocks moved into space (DCR order)."""
    out = _d2s_out(attrs, x.shape, False)
    n, c, h, w = x.shape
    b = attrs.block_size
    return x.reshape(n, b, b, c // (b * b), h, w).transpose(0, 3, 4, 1, 5, 2).reshape(out)


def space_to_depth(attrs, x):
    """(N, C, H, W) -> (N, C*b^2, H/b, W/b), the inverse of depth_to_space."""
    out = _d2s_out(attrs, x.shape, True)
    n, c, h, w = x.shape
    b = attrs.block_size
    return x.reshape(n, c, h // b, b, w // b, b).transpose(0, 3, 5, 1, 2, 4).reshape(out)


register(
    "depth_to_space",
    params={"block_size": Param(p_int)},
    infer_shape=lambda a, s: (s, [None if s[0] is None else _d2s_out(a, s[0], False)]),
)(depth_to_space)
register(
    "space_to_depth",
    params={"block_size": Param(p_int)},
    infer_shape=lambda a, s: (s, [None if s[0] is None else _d2s_out(a, s[0], True)]),
)(space_to_depth)

# ----------------------------------------------------------------------------- diag / moments


from .reduce import kahan_nonfinite  # noqa: E402


def diag(attrs, x):
    """1-D input: a square matrix with it on diagonal k; N-D input: diagonal k of the
    (axis1, axis2) planes, appended as the last axis (numpy.diagonal's layout)."""
    if x.ndim == 0:
        raise ShapeError("diag needs at least a 1-D input")
    if x.ndim == 1:
        return np.diag(x, attrs.k)
    a1 = norm_axis(attrs.axis1, x.ndim, "diag")
    a2 = norm_axis(attrs.axis2, x.ndim, "diag")
    if a1 == a2:
        raise ShapeError("diag: axis1 and axis2 cannot refer to the same axis {}".format(a1))
    return np.diagonal(x, attrs.k, a1, a2).copy()


register("diag", params={"k": Param(p_int, 0), "axis1": Param(p_int, 0), "axis2": Param(p_int, 1)})(
    diag
)


def _moments_axes(attrs, ndim):
    if not attrs.axes:
        raise ShapeError(
            "Empty axes is not supported, if you would like to do global moments, "
            "please pass all axes to axes argument"
        )
    return tuple(sorted(norm_axis(a, ndim, "moments") for a in attrs.axes))


def _moments_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None, None]
    axes = _moments_axes(attrs, len(s))
    if attrs.keepdims:
        out = tuple(1 if i in axes else d for i, d in enumerate(s))
    else:
        out = tuple(d for i, d in enumerate(s) if i not in axes) or (1,)
    return in_shapes, [out, out]


def moments(attrs, x):
    """Mean and (population) variance over `axes`."""
    (shape, _) = _moments_shape(attrs, [x.shape])[1]
    axes = _moments_axes(attrs, x.ndim)
    mean = np.mean(x, axis=axes, keepdims=True, dtype=x.dtype)
    var = np.mean(np.square(x - mean), axis=axes, dtype=x.dtype)
    kahan_nonfinite(x, axes, mean)  # MXNet's Kahan-summed mean: NaN for a non-last inf
    return as_array(mean.reshape(shape), x.dtype), as_array(var.reshape(shape), x.dtype)


register(
    "moments",
    params={"axes": Param(p_opt(p_shape), None), "keepdims": Param(p_bool, False)},
    num_outputs=2,
    infer_shape=_moments_shape,
)(moments)

# ----------------------------------------------------------------------------- gamma


def _special(fn, name):
    def safe(v):
        try:
            return fn(v)
        except (ValueError, OverflowError):  # poles and overflow, as C's tgamma/lgamma
            return math.inf if v > 0 or name == "gammaln" else math.nan

    elementwise = np.frompyfunc(safe, 1, 1)

    def kernel(attrs, x):
        res = elementwise(x.astype(np.float64))
        return np.asarray(res, np.float64).astype(x.dtype)

    kernel.__doc__ = "Elementwise {} (math.{} per element in float64, cast back).".format(
        name, fn.__name__
    )
    return kernel


register("gamma", infer_shape=lambda a, s: (s, [s[0]]))(_special(math.gamma, "gamma"))
register("gammaln", infer_shape=lambda a, s: (s, [s[0]]))(_special(math.lgamma, "gammaln"))

# ----------------------------------------------------------------------------- contrib


def quadratic(attrs, x):
    """a*x^2 + b*x + c elementwise."""
    t = x.dtype.type
    with np.errstate(invalid="ignore", over="ignore"):
        res = (t(attrs.a) * x * x + t(attrs.b) * x + t(attrs.c)).astype(x.dtype, copy=False)
        inf = np.isinf(x)
        if inf.any():
            # MXNet's compiled kernel evaluates (a*x + b)*x + c: +-inf gives +-inf, not
            # inf - inf = NaN
            xi = x[inf]
            res[inf] = (t(attrs.a) * xi + t(attrs.b)) * xi + t(attrs.c)
    return res


register(
    "_contrib_quadratic",
    params={"a": Param(p_float, 0.0), "b": Param(p_float, 0.0), "c": Param(p_float, 0.0)},
    infer_shape=lambda a, s: (s, [s[0]]),
)(quadratic)


def _index_copy_shape(attrs, in_shapes):
    old, idx, new = in_shapes
    if old is not None and new is not None:
        if (
            len(old) != len(new)
            or tuple(old[1:]) != tuple(new[1:])
            or (idx is not None and tuple(idx) != (new[0],))
        ):
            raise ShapeError(
                "index_copy: new_tensor {} must be old_tensor's rows {} selected by "
                "index_vector {}".format(fmt_shape(new), fmt_shape(old), fmt_shape(idx))
            )
    return in_shapes, [old]


def index_copy(attrs, old, index, new):
    """A copy of old_tensor with rows index_vector[i] replaced by new_tensor[i]."""
    _index_copy_shape(attrs, [old.shape, index.shape, new.shape])
    out = old.copy()
    out[index.astype(np.int64)] = new
    return out


def _index_copy_type(attrs, in_types):
    """old_tensor and new_tensor must share a dtype (MXNet's kernel reads both as one type);
    index_vector may be of any dtype."""
    old, _, new = in_types
    if old is not None and new is not None and old != new:
        raise ShapeError(
            "Incompatible dtype at 2-th input: expected {}, got {}".format(old.name, new.name)
        )
    t = old if old is not None else new
    return [t, in_types[1], t], [t]


register(
    "_contrib_index_copy",
    inputs=("old_tensor", "index_vector", "new_tensor"),
    infer_shape=_index_copy_shape,
    infer_type=_index_copy_type,
)(index_copy)

# ----------------------------------------------------------------------------- erfinv / cumsum


def _erfinv64(y):
    """Inverse error function in float64: Giles' single-precision-style initial guess refined
    by two Newton steps on math.erf (vectorised), +-inf at +-1 and NaN outside [-1, 1]."""
    y = np.asarray(y, np.float64)
    out = np.full(y.shape, np.nan)
    inside = np.abs(y) < 1
    v = y[inside]
    w = -np.log((1.0 - v) * (1.0 + v))
    small = w < 5.0
    ws = np.where(small, w - 2.5, np.sqrt(np.maximum(w, 5.0)) - 3.0)
    ps = [
        2.81022636e-08,
        3.43273939e-07,
        -3.5233877e-06,
        -4.39150654e-06,
        0.00021858087,
        -0.00125372503,
        -0.00417768164,
        0.246640727,
        1.50140941,
    ]
    pl = [
        -0.000200214257,
        0.000100950558,
        0.00134934322,
        -0.00367342844,
        0.00573950773,
        -0.0076224613,
        0.00943887047,
        1.00167406,
        2.83297682,
    ]
    p_s = np.zeros_like(ws)
    p_l = np.zeros_like(ws)
    for a, b in zip(ps, pl):
        p_s = p_s * ws + a
        p_l = p_l * ws + b
    x = np.where(small, p_s, p_l) * v
    erf = np.frompyfunc(math.erf, 1, 1)
    for _ in range(2):
        err = np.asarray(erf(x), np.float64) - v
        x = x - err / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
    out[inside] = x
    out[y == 1] = np.inf
    out[y == -1] = -np.inf
    return out


def erfinv(attrs, x):
    """Elementwise inverse error function."""
    return _erfinv64(x).astype(x.dtype)


register("erfinv", infer_shape=lambda a, s: (s, [s[0]]))(erfinv)


def _cumsum_type(attrs, in_types):
    return in_types, [attrs.dtype if attrs.dtype is not None else in_types[0]]


def cumsum(attrs, a):
    """Cumulative sum along `axis` (of the flattened array when None), in `dtype`."""
    dt = attrs.dtype if attrs.dtype is not None else a.dtype
    if attrs.axis is None:
        return np.cumsum(a.reshape(-1), dtype=dt)
    if attrs.axis < 0:
        raise ShapeError(
            "cumsum: axis {} must be in range [0, {}) (MXNet 1.9.1's kernel "
            "rejects negative axes)".format(attrs.axis, a.ndim)
        )
    return np.cumsum(a, axis=norm_axis(attrs.axis, a.ndim, "cumsum"), dtype=dt)


register(
    "_np_cumsum",
    aliases=("cumsum",),
    inputs=("a",),
    params={"axis": Param(p_opt(p_int), None), "dtype": Param(p_opt(np.dtype), None)},
    infer_shape=lambda a, s: (
        s,
        [None if s[0] is None else ((int(np.prod(s[0])),) if a.axis is None else s[0])],
    ),
    infer_type=_cumsum_type,
)(cumsum)

# ----------------------------------------------------------------------------- Crop (legacy)


def _crop_box(attrs, shapes):
    d = shapes[0]
    if len(d) != 4:
        raise ShapeError("Crop: data must be 4-D (NCHW), got {}".format(fmt_shape(d)))
    if len(shapes) > 1:
        like = shapes[1]
        if len(like) != 4:
            raise ShapeError("Crop: crop_like must be 4-D, got {}".format(fmt_shape(like)))
        h, w = like[2], like[3]
    else:
        h, w = attrs.h_w
    if h > d[2] or w > d[3]:
        raise ShapeError("Crop: crop size {}x{} exceeds data {}".format(h, w, fmt_shape(d)))
    if attrs.center_crop:
        y, x = (d[2] - h) // 2, (d[3] - w) // 2
    else:
        y, x = attrs.offset
    if y + h > d[2] or x + w > d[3]:
        raise ShapeError(
            "Crop: offset {} with size {}x{} exceeds data {}".format(
                attrs.offset, h, w, fmt_shape(d)
            )
        )
    return y, x, h, w


def _crop_shape(attrs, in_shapes):
    if any(s is None for s in in_shapes):
        return in_shapes, [None]
    _, _, h, w = _crop_box(attrs, in_shapes)
    return in_shapes, [tuple(in_shapes[0][:2]) + (h, w)]


def crop(attrs, *xs):
    """Crop NCHW data to h_w (or to the second input's H, W) at `offset` or centred."""
    if len(xs) not in (1, 2):
        raise ShapeError("Crop takes data and optionally crop_like, got {} inputs".format(len(xs)))
    y, x, h, w = _crop_box(attrs, [a.shape for a in xs])
    return xs[0][:, :, y : y + h, x : x + w].copy()


def _crop_type(attrs, in_types):
    """Crop is a legacy (mshadow) op: every input must be float32 in MXNet."""
    for t in in_types:
        if t is not None and t != np.float32:
            raise ShapeError(
                "Check failed: in_type->at(i) == mshadow::default_type_flag || "
                "in_type->at(i) == -1: Unsupported data type {}".format(
                    {"float64": 1, "float16": 2, "uint8": 3, "int32": 4, "int8": 5, "int64": 6}.get(
                        t.name, -1
                    )
                )
            )
    return [np.dtype(np.float32)] * len(in_types), [np.dtype(np.float32)]


register(
    "Crop",
    inputs=None,
    key_var_num_args="num_args",
    params={
        "num_args": Param(p_int, 0),
        "offset": Param(p_shape, (0, 0)),
        "h_w": Param(p_shape, (0, 0)),
        "center_crop": Param(p_bool, False),
    },
    infer_shape=_crop_shape,
    infer_type=_crop_type,
)(crop)
