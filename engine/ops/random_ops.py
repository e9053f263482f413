"""Random sampling ops (`_random_uniform`, `_random_normal`, MXNet's names and aliases).

They draw from the engine generator (`engine.random.generator()`, reseeded by
`mx.random.seed`) and are marked `random`, so the executor never folds them into constants.
MXNet's random streams differ from numpy's: only shapes, dtypes and distributions match.
"""

import numpy as np

from ..random import generator
from ..registry import Param, p_dtype, p_float, p_shape, p_str, register

_COMMON = {
    "shape": Param(p_shape, ()),
    "ctx": Param(p_str, ""),
    "dtype": Param(p_dtype, np.dtype(np.float32)),
}


def _shape(attrs, in_shapes):
    return [], [attrs.shape if attrs.shape and 0 not in attrs.shape else None]


def _dtype(attrs, in_types):
    return [], [attrs.dtype]


def _uniform(attrs):
    """Samples from U[low, high)."""
    return generator().uniform(attrs.low, attrs.high, attrs.shape).astype(attrs.dtype)


def _normal(attrs):
    """Samples from N(loc, scale^2)."""
    return generator().normal(attrs.loc, attrs.scale, attrs.shape).astype(attrs.dtype)


register(
    "_random_uniform",
    aliases=("random_uniform", "uniform", "_sample_uniform_noinput"),
    inputs=(),
    params=dict(_COMMON, low=Param(p_float, 0.0), high=Param(p_float, 1.0)),
    infer_shape=_shape,
    infer_type=_dtype,
    random=True,
)(_uniform)
register(
    "_random_normal",
    aliases=("random_normal", "normal"),
    inputs=(),
    params=dict(_COMMON, loc=Param(p_float, 0.0), scale=Param(p_float, 1.0)),
    infer_shape=_shape,
    infer_type=_dtype,
    random=True,
)(_normal)
