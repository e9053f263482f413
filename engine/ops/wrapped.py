"""Ops MXNet reaches through Python wrappers: `_eye` (mx.nd.eye / mx.sym.eye), `_linspace`
(linspace) and `_split_v2` (split_v2, numpy-style split points or equal sections); the wrappers
themselves live beside zeros/ones in engine/ndarray/__init__.py and engine/symbol/__init__.py."""

import numpy as np

from ..registry import Param, ShapeError, p_bool, p_dtype, p_float, p_int, p_shape, p_str, register
from ._util import fmt_shape, norm_axis


def _eye(attrs):
    """N x M (M=0: N) matrix with ones on diagonal k."""
    return np.eye(attrs.N, attrs.M or attrs.N, attrs.k, dtype=attrs.dtype)


register(
    "_eye",
    inputs=(),
    params={
        "N": Param(p_int),
        "M": Param(p_int, 0),
        "k": Param(p_int, 0),
        "ctx": Param(p_str, ""),
        "dtype": Param(p_dtype, np.dtype(np.float32)),
    },
    infer_shape=lambda a, s: ([], [(a.N, a.M or a.N)]),
    infer_type=lambda a, t: ([], [a.dtype]),
)(_eye)


def _linspace(attrs):
    """`num` evenly spaced values from start to stop (stop excluded unless endpoint)."""
    vals = np.linspace(
        attrs.start, attrs.stop, attrs.num, endpoint=attrs.endpoint, dtype=np.float64
    )
    return vals.astype(attrs.dtype)


register(
    "_linspace",
    inputs=(),
    params={
        "start": Param(p_float),
        "stop": Param(p_float),
        "num": Param(p_int),
        "endpoint": Param(p_bool, True),
        "ctx": Param(p_str, ""),
        "dtype": Param(p_dtype, np.dtype(np.float32)),
    },
    infer_shape=lambda a, s: ([], [(a.num,)]),
    infer_type=lambda a, t: ([], [a.dtype]),
)(_linspace)


def _split_bounds(attrs, n):
    if attrs.sections > 0:
        if n and n % attrs.sections:
            raise ShapeError(
                "split_v2: {} sections do not divide an axis of size {}".format(attrs.sections, n)
            )
        step = n // attrs.sections
        return [(i * step, (i + 1) * step) for i in range(attrs.sections)]
    idx = list(attrs.indices) + [n]
    if any(b < a for a, b in zip(idx, idx[1:])):
        raise ShapeError(
            "split_v2: split points {} must be increasing and within {}".format(
                attrs.indices[1:], n
            )
        )
    return list(zip(idx[:-1], idx[1:]))


def _split_v2_shape(attrs, in_shapes):
    s = in_shapes[0]
    nout = attrs.sections if attrs.sections > 0 else len(attrs.indices)
    if s is None:
        return in_shapes, [None] * nout
    ax = norm_axis(attrs.axis, len(s), "split_v2")
    outs = []
    for lo, hi in _split_bounds(attrs, s[ax]):
        part = list(s)
        part[ax] = hi - lo
        if attrs.squeeze_axis:
            if hi - lo != 1:
                raise ShapeError(
                    "split_v2 with squeeze_axis=True needs parts of size 1 on the "
                    "axis, got {} in {}".format(hi - lo, fmt_shape(s))
                )
            del part[ax]
        outs.append(tuple(part))
    return in_shapes, outs


def _split_v2(attrs, x):
    """Split along `axis` at `indices` (from 0) or into `sections` equal parts."""
    outs = _split_v2_shape(attrs, [x.shape])[1]
    ax = norm_axis(attrs.axis, x.ndim, "split_v2")
    parts = []
    for (lo, hi), shape in zip(_split_bounds(attrs, x.shape[ax]), outs):
        key = [slice(None)] * x.ndim
        key[ax] = slice(lo, hi)
        parts.append(x[tuple(key)].reshape(shape).copy())
    return tuple(parts)


register(
    "_split_v2",
    params={
        "indices": Param(p_shape),
        "axis": Param(p_int, 1),
        "squeeze_axis": Param(p_bool, False),
        "sections": Param(p_int, 0),
    },
    num_outputs=lambda a: a.sections if a.sections > 0 else len(a.indices),
    infer_shape=_split_v2_shape,
)(_split_v2)
