"""Ops without inputs that create arrays: _zeros, _ones, _full, _arange (mx.nd.zeros etc. are
Python wrappers around them, as in MXNet)."""

import numpy as np

from ..registry import Param, p_dtype, p_float, p_int, p_opt, p_shape, p_str, register

_CREATE_PARAMS = {
    "shape": Param(p_shape, ()),
    "ctx": Param(p_str, ""),
    "dtype": Param(p_dtype, np.dtype(np.float32)),
}


def _fixed_shape(attrs, in_shapes):
    """The `shape` parameter, partial if it holds 0s (MXNet 1.x's unknown dims: consumers
    such as FullyConnected fill them backward, gluon's hybridized begin_state relies on it)."""
    return [], [attrs.shape if attrs.shape else None]


def _dtype_attr(attrs, in_types):
    return [], [attrs.dtype]


def _zeros(attrs):
    """An array of zeros."""
    return np.zeros(attrs.shape, attrs.dtype)


def _ones(attrs):
    """An array of ones."""
    return np.ones(attrs.shape, attrs.dtype)


def _full(attrs):
    """An array filled with `value`."""
    return np.full(attrs.shape, attrs.value, attrs.dtype)


for _name, _fn, _extra in (
    ("_zeros", _zeros, {}),
    ("_ones", _ones, {}),
    ("_full", _full, {"value": Param(p_float)}),
):
    register(
        _name,
        inputs=(),
        params=dict(_CREATE_PARAMS, **_extra),
        infer_shape=_fixed_shape,
        infer_type=_dtype_attr,
    )(_fn)


def _arange_values(attrs) -> np.ndarray:
    start, stop, step = attrs.start, attrs.stop, attrs.step
    if stop is None:
        start, stop = 0.0, start
    vals = np.arange(start, stop, step, dtype=np.float64)
    if attrs.repeat > 1:
        vals = np.repeat(vals, attrs.repeat)
    return vals.astype(attrs.dtype)


def _arange(attrs):
    """Evenly spaced values in [start, stop) (each repeated `repeat` times)."""
    return _arange_values(attrs)


register(
    "_arange",
    inputs=(),
    params={
        "start": Param(p_float),
        "stop": Param(p_opt(p_float), None),
        "step": Param(p_float, 1.0),
        "repeat": Param(p_int, 1),
        "infer_range": Param(p_str, "False"),
        "ctx": Param(p_str, ""),
        "dtype": Param(p_dtype, np.dtype(np.float32)),
    },
    infer_shape=lambda attrs, s: ([], [_arange_values(attrs).shape]),
    infer_type=_dtype_attr,
)(_arange)
