"""Activation-like ops beyond `Activation`: LeakyReLU (leaky, prelu, elu, selu, gelu, rrelu),
softmax / log_softmax / softmin (axis, temperature, dtype, length), SoftmaxActivation and
Dropout.

Dropout has an in-place `out_kernel`: hybridized at inference it usually costs nothing (it runs
on its dying input's buffer); eagerly it returns a copy, as MXNet does. When training (or
mode='always') it draws a mask from the engine generator at call time, so a hybridized graph
honours `autograd.train_mode()`.
"""

import math

import numpy as np

from .. import autograd
from .. import random as _random
from ..registry import (
    Param,
    ShapeError,
    elemwise_shape,
    float_only,
    merge_shape,
    p_bool,
    p_dtype,
    p_enum,
    p_float,
    p_int,
    p_opt,
    p_shape,
    register,
)
from ._util import fmt_shape, json_outputs, norm_axis

# ----------------------------------------------------------------------------- LeakyReLU

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_LAMBDA = 1.0507009873554804934193349852946


def _lrelu_inputs(attrs):
    return ("data", "gamma") if attrs.act_type == "prelu" else ("data",)


def _lrelu_shape(attrs, in_shapes):
    data = in_shapes[0]
    nout = 2 if attrs.act_type == "rrelu" else 1
    if attrs.act_type != "prelu":
        return in_shapes, [data] * nout
    gamma = in_shapes[1]
    if data is not None and gamma is None:
        gamma = (data[1] if len(data) > 1 else data[0],)
    elif data is not None and gamma is not None and len(gamma) == 1 and gamma[0] not in (0, 1):
        want = data[1] if len(data) > 1 else data[0]
        try:
            gamma = merge_shape(gamma, (want,))
        except ShapeError:
            raise ShapeError(
                "LeakyReLU(prelu): gamma has shape {}, expected [{}] (channels "
                "of data {}) or [1]".format(fmt_shape(gamma), want, fmt_shape(data))
            ) from None
    return [data, gamma], [data]


def _erf_vec(x):
    """Vectorised erf (Abramowitz & Stegun 7.1.26, |error| < 1.5e-7, evaluated in float64):
    GELU on transformer-sized activations would take seconds with per-element math.erf."""
    a = np.abs(x.astype(np.float64))
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    return np.copysign(1.0 - poly * np.exp(-a * a), x)


def _neg_part(x, fn):
    """Apply `fn` to the negative entries only (exp never overflows on the positive ones)."""
    out = x.copy()
    neg = x < 0
    out[neg] = fn(x[neg])
    return out


def leaky_relu(attrs, x, gamma=None):
    """LeakyReLU family: leaky (x or slope*x), prelu (learned slope `gamma` per channel),
    elu, selu, gelu, and rrelu (at inference the mean slope (lower+upper)/2)."""
    t = attrs.act_type
    dt = x.dtype.type
    if t == "leaky":
        # max(x, slope*x) for slopes up to 1 (min beyond): one temporary, no mask
        out = x * dt(attrs.slope)
        return (np.maximum if attrs.slope <= 1 else np.minimum)(out, x, out=out)
    if t == "prelu":
        if gamma.size == 1:
            g = gamma.reshape(()).astype(x.dtype)
        else:
            if x.ndim < 2 or gamma.shape != (x.shape[1],):
                _lrelu_shape(attrs, [x.shape, gamma.shape])
                raise ShapeError(
                    "LeakyReLU(prelu): gamma {} does not match data {}".format(
                        fmt_shape(gamma.shape), fmt_shape(x.shape)
                    )
                )
            g = gamma.astype(x.dtype, copy=False).reshape((1, -1) + (1,) * (x.ndim - 2))
        return np.where(x > 0, x, x * g).astype(x.dtype, copy=False)
    if t == "elu":
        return _neg_part(x, lambda v: dt(attrs.slope) * np.expm1(v))
    if t == "selu":
        out = _neg_part(x, lambda v: dt(_SELU_ALPHA) * np.expm1(v))
        out *= dt(_SELU_LAMBDA)
        return out
    if t == "gelu":
        return (0.5 * x * (1.0 + _erf_vec(x / math.sqrt(2.0)))).astype(x.dtype)
    # rrelu: second output is the slope used (MXNet leaves it uninitialised at inference)
    if autograd.is_training():
        slope = (
            _random.generator()
            .uniform(attrs.lower_bound, attrs.upper_bound, size=x.shape)
            .astype(x.dtype)
        )
    else:
        slope = np.full(x.shape, (attrs.lower_bound + attrs.upper_bound) / 2.0, x.dtype)
    return np.where(x > 0, x, x * slope), slope


register(
    "LeakyReLU",
    inputs=_lrelu_inputs,
    params={
        "act_type": Param(p_enum("elu", "gelu", "leaky", "prelu", "rrelu", "selu"), "leaky"),
        "slope": Param(p_float, 0.25),
        "lower_bound": Param(p_float, 0.125),
        "upper_bound": Param(p_float, 0.333999991),
    },
    num_outputs=lambda a: 2 if a.act_type == "rrelu" else 1,
    output_names=lambda a: ("output", "mask") if a.act_type == "rrelu" else ("output",),
    infer_shape=_lrelu_shape,
    random=True,
)(leaky_relu)  # rrelu draws slopes when training

# ----------------------------------------------------------------------------- softmax family


def _softmax_inputs(attrs):
    return ("data", "length") if attrs.use_length else ("data",)


def _softmax_shape(attrs, in_shapes):
    data = in_shapes[0]
    if not attrs.use_length:
        return in_shapes, [data]
    if data is None:
        return in_shapes, [None]
    ax = norm_axis(attrs.axis, len(data), "softmax")
    want = tuple(d for i, d in enumerate(data) if i != ax)
    try:
        length = merge_shape(in_shapes[1], want)
    except ShapeError:
        raise ShapeError(
            "softmax: length has shape {}, expected {} (data {} without axis {})".format(
                fmt_shape(in_shapes[1]), fmt_shape(want), fmt_shape(data), attrs.axis
            )
        ) from None
    return [data, length], [data]


def _softmax_type(attrs, in_types):
    t = in_types[0]
    out = attrs.dtype if attrs.dtype is not None else t
    return list(in_types), [out]


def _scaled(attrs, x):
    if attrs.temperature is not None and attrs.temperature != 1.0:
        return x / x.dtype.type(attrs.temperature)
    return x


def _length_mask(attrs, x, length, ax):
    """Boolean mask, True where the position along `ax` is below `length`."""
    pos = np.arange(x.shape[ax]).reshape((-1,) + (1,) * (x.ndim - ax - 1))
    return pos < np.expand_dims(length, ax).astype(np.int64)


def _reduce_keep(ufunc, x, ax):
    """ufunc-reduce along `ax`, keeping the axis. numpy reduces a short *last* axis row by
    row (6x slower than the elementwise chain over its columns used here for <= 32)."""
    n = x.shape[ax]
    if ax == x.ndim - 1 and 1 < n <= 32:
        acc = x[..., 0].copy()
        for i in range(1, n):
            ufunc(acc, x[..., i], out=acc)
        return acc[..., None]
    return ufunc.reduce(x, axis=ax, keepdims=True)


def _softmax_fast(x, ax, log):
    """Plain softmax/log_softmax of float data along `ax` with in-place temporaries."""
    z = x - _reduce_keep(np.maximum, x, ax)
    if log:
        z -= np.log(_reduce_keep(np.add, np.exp(z), ax))
        return z
    np.exp(z, out=z)
    z /= _reduce_keep(np.add, z, ax)
    return z


def _softmax_core(attrs, x, length, log, sign=1.0):
    float_only(x.dtype)  # MXNet's kernel checks it when it runs; graph inference passes
    ax = norm_axis(attrs.axis, x.ndim, "softmax")
    if (
        length is None
        and sign > 0
        and x.dtype.kind == "f"
        and x.size
        and (attrs.dtype is None or attrs.dtype == x.dtype)
        and (attrs.temperature is None or attrs.temperature == 1.0)
    ):
        return _softmax_fast(x, ax, log)
    if attrs.dtype is not None and attrs.dtype != x.dtype:
        x = x.astype(attrs.dtype)
    z = _scaled(attrs, x)
    if sign < 0:
        z = -z
    mask = None
    if length is not None:
        if length.dtype.kind not in "iu":
            raise ShapeError(
                "softmax: length only supports integer types, not {}".format(length.dtype.name)
            )
        _softmax_shape(attrs, [x.shape, length.shape])
        mask = _length_mask(attrs, x, length, ax)
        z = np.where(mask, z, x.dtype.type(-np.inf))
    with np.errstate(invalid="ignore", over="ignore"):
        m = np.max(z, axis=ax, keepdims=True)
        if mask is not None:
            # rows whose valid part is empty: max 0 (they output 0); a real +inf stays, as
            # in MXNet's masked softmax (exp(inf - inf) = NaN over the valid part)
            m = np.where(m == -np.inf, 0, m).astype(x.dtype)
        e = np.exp(z - m)
        s = np.sum(e, axis=ax, keepdims=True, dtype=x.dtype)
        if log:
            out = z - m - np.log(s)
        else:
            out = e / s
    if mask is not None:
        out = np.where(mask, out, 0).astype(x.dtype)
    return out.astype(x.dtype, copy=False)


def softmax(attrs, x, length=None):
    """exp(x/T) normalised along `axis` (only the first `length` entries with use_length;
    the rest are 0); `dtype` sets the output type."""
    return _softmax_core(attrs, x, length, log=False)


def log_softmax(attrs, x):
    """log(softmax(x)) along `axis`, computed stably."""
    _no_length_shape(attrs, [x.shape])
    return _softmax_core(attrs, x, None, log=True)


def softmin(attrs, x):
    """softmax(-x) along `axis`."""
    _no_length_shape(attrs, [x.shape])
    return _softmax_core(attrs, x, None, log=False, sign=-1.0)


_SOFTMAX_PARAMS = {
    "axis": Param(p_int, -1),
    "temperature": Param(p_opt(p_float), None),
    "dtype": Param(p_opt(p_dtype), None),
    "use_length": Param(p_opt(p_bool), False),
}

register(
    "softmax",
    inputs=_softmax_inputs,
    params=dict(_SOFTMAX_PARAMS),
    infer_shape=_softmax_shape,
    infer_type=_softmax_type,
)(softmax)


def _no_length_shape(attrs, in_shapes):
    """log_softmax/softmin take no `length` input in MXNet 1.9.1; use_length=True fails."""
    if attrs.use_length:
        raise ShapeError(
            "use_length=True needs a `length` input, which only softmax takes "
            "(MXNet 1.9.1's log_softmax/softmin fail the same way)"
        )
    return in_shapes, [in_shapes[0]]


for _name, _fn in (("log_softmax", log_softmax), ("softmin", softmin)):
    register(
        _name, params=dict(_SOFTMAX_PARAMS), infer_shape=_no_length_shape, infer_type=_softmax_type
    )(_fn)


def softmax_activation(attrs, x):
    """Softmax over the last axis (mode='instance': what MXNet 1.9.1 computes for N-D input)
    or over axis 1 ('channel')."""
    if attrs.mode == "channel":
        if x.ndim < 2:
            raise ShapeError(
                "SoftmaxActivation(mode='channel') needs at least 2-D data, got {}".format(
                    fmt_shape(x.shape)
                )
            )
        ax, z = 1, x
    else:
        ax, z = x.ndim - 1, x
    m = np.max(z, axis=ax, keepdims=True)
    e = np.exp(z - m)
    e /= np.sum(e, axis=ax, keepdims=True, dtype=x.dtype)
    return e.reshape(x.shape)


register(
    "SoftmaxActivation",
    params={"mode": Param(p_enum("channel", "instance"), "instance")},
    infer_shape=elemwise_shape,
)(softmax_activation)

# ----------------------------------------------------------------------------- Dropout


def _dropping(attrs) -> bool:
    return attrs.p > 0 and (attrs.mode == "always" or autograd.is_training())


def _scaled_mask(attrs, x):
    shape = list(x.shape)
    for a in attrs.axes:
        shape[norm_axis(a, x.ndim, "Dropout")] = 1
    keep = _random.generator().random_sample(tuple(shape)) >= attrs.p
    return (keep / (1.0 - attrs.p)).astype(x.dtype) if attrs.p < 1 else np.zeros(shape, x.dtype)


def dropout(attrs, x):
    """Identity at inference (mode='training'); when training, or always with mode='always',
    zero each entry with probability p and scale the rest by 1/(1-p); `axes` share one mask
    value along those axes (variational dropout). Eagerly the result is a new array, as in
    MXNet (in-place arithmetic on it must not change the input)."""
    if not _dropping(attrs):
        return x.copy()
    return x * _scaled_mask(attrs, x)


def dropout_out(attrs, out, x):
    """The hybridized path: usually run in place on a dying input, so inference costs nothing;
    the training decision is taken at call time, never at compile time."""
    if not _dropping(attrs):
        if out is not x:
            np.copyto(out, x)
        return out
    return np.multiply(x, _scaled_mask(attrs, x), out=out)


register(
    "Dropout",
    params={
        "p": Param(p_float, 0.5),
        "mode": Param(p_enum("always", "training"), "training"),
        "axes": Param(p_shape, ()),
        "cudnn_off": Param(p_opt(p_bool), False),
    },
    infer_shape=elemwise_shape,
    out_kernel=dropout_out,
    inplace=True,
    random=True,
)(dropout)
json_outputs("Dropout", lambda attrs: 2)  # output and the hidden mask
