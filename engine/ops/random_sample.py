"""Random ops parametrised by arrays (MXNet 1.9.1's `sample_op.cc`, `multisample_op.cc`,
`sample_multinomial_op.cc`): `_random_uniform_like`/`_random_normal_like` (mx.nd.random.
uniform_like/normal_like), `_sample_uniform`/`_sample_normal` (sample_uniform/sample_normal:
one draw of `shape` per element of the parameter arrays) and `_sample_multinomial`
(sample_multinomial, mx.nd.random.multinomial).

They draw from the engine generator (`mx.random.seed` makes them reproducible) and are marked
`random`, so the executor never folds them. MXNet's random streams differ from numpy's: only
shapes, dtypes, distributions and seeding behaviour match (tests/test_ops_coverage_random.py).
"""

import numpy as np

from .. import ndarray as _nd
from .. import symbol as _sym
from ...mxnet_facts import DEFAULTS_DIFFER
from ..random import generator
from ..registry import (
    Param,
    ShapeError,
    merge_shape,
    p_bool,
    p_dtype,
    p_enum,
    p_float,
    p_opt,
    p_shape,
    register,
)
from ._util import fmt_shape, json_outputs

# ----------------------------------------------------------------------------- *_like


def _like_shape(attrs, in_shapes):
    return in_shapes, [in_shapes[0]]


def _uniform_like(attrs, data):
    """Samples from U[low, high) of data's shape and dtype."""
    return generator().uniform(attrs.low, attrs.high, data.shape).astype(data.dtype)


def _normal_like(attrs, data):
    """Samples from N(loc, scale^2) of data's shape and dtype."""
    return generator().normal(attrs.loc, attrs.scale, data.shape).astype(data.dtype)


register(
    "_random_uniform_like",
    inputs=("data",),
    params={"low": Param(p_float, 0.0), "high": Param(p_float, 1.0)},
    infer_shape=_like_shape,
    random=True,
)(_uniform_like)
register(
    "_random_normal_like",
    inputs=("data",),
    params={"loc": Param(p_float, 0.0), "scale": Param(p_float, 1.0)},
    infer_shape=_like_shape,
    random=True,
)(_normal_like)

# ----------------------------------------------------------------------------- _sample_*

_SAMPLE_DTYPE = p_opt(p_enum("None", "float16", "float32", "float64"))


def _sample_shape(attrs, in_shapes):
    try:
        common = merge_shape(in_shapes[0], in_shapes[1])
    except ShapeError:
        raise ShapeError(
            "the parameter arrays must have the same shape, got {} and {}".format(
                fmt_shape(in_shapes[0]), fmt_shape(in_shapes[1])
            )
        ) from None
    if common is None:
        return in_shapes, [None]
    return [common, common], [tuple(common) + tuple(attrs.shape)]


def _sample_type(attrs, in_types):
    first = next((t for t in in_types if t is not None), None)
    out = np.dtype(np.float32) if attrs.dtype in (None, "None") else np.dtype(attrs.dtype)
    return [first] * len(in_types), [out]


def _sampler(draw):
    def kernel(attrs, a, b):
        _sample_shape(attrs, [a.shape, b.shape])
        _, (dtype,) = _sample_type(attrs, [a.dtype, b.dtype])
        extra = tuple(attrs.shape)
        a = a.reshape(a.shape + (1,) * len(extra)).astype(np.float64)
        b = b.reshape(b.shape + (1,) * len(extra)).astype(np.float64)
        return draw(a, b, a.shape[: a.ndim - len(extra)] + extra).astype(dtype)

    return kernel


def _sample_normal(attrs, mu, sigma):
    """Per element i, `shape` samples from N(mu[i], sigma[i]^2)."""
    return _sampler(lambda m, s, shape: generator().normal(m, s, shape))(attrs, mu, sigma)


def _sample_uniform(attrs, low, high):
    """Per element i, `shape` samples from U[low[i], high[i])."""
    return _sampler(lambda lo, hi, shape: generator().uniform(lo, hi, shape))(attrs, low, high)


_SAMPLE_PARAMS = {"shape": Param(p_shape, ()), "dtype": Param(_SAMPLE_DTYPE, None)}
register(
    "_sample_normal",
    aliases=("sample_normal",),
    inputs=("mu", "sigma"),
    params=_SAMPLE_PARAMS,
    infer_shape=_sample_shape,
    infer_type=_sample_type,
    random=True,
)(_sample_normal)
register(
    "_sample_uniform",
    aliases=("sample_uniform",),
    inputs=("low", "high"),
    params=_SAMPLE_PARAMS,
    infer_shape=_sample_shape,
    infer_type=_sample_type,
    random=True,
)(_sample_uniform)

# ----------------------------------------------------------------------------- multinomial


def _multi_outputs(attrs) -> int:
    return 2 if attrs.get_prob else 1


def _multi_shape(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return in_shapes, [None] * _multi_outputs(attrs)
    if len(data) < 1 or not data[-1]:
        raise ShapeError(
            "sample_multinomial: data must have a non-empty last axis, got {}".format(
                fmt_shape(data)
            )
        )
    out = tuple(data[:-1]) + tuple(attrs.shape)
    out = out or (1,)
    return in_shapes, [out] * _multi_outputs(attrs)


def _multi_type(attrs, in_types):
    return in_types, [attrs.dtype, in_types[0]][: _multi_outputs(attrs)]


def _sample_multinomial(attrs, data):
    """Indices drawn from the categorical distributions in data's last axis; with get_prob
    also their log-probabilities. As MXNet: the first index whose running sum reaches a
    uniform draw (probabilities are not renormalised; a draw past their sum picks the last)."""
    (out_shape,) = _multi_shape(attrs, [data.shape])[1][:1]
    k = data.shape[-1]
    dist = data.reshape(-1, k)
    m = int(np.prod(attrs.shape)) if attrs.shape else 1
    cdf = np.cumsum(dist.astype(np.float64), axis=1).astype(np.float32)
    draws = generator().uniform(size=(dist.shape[0], m)).astype(np.float32)
    idx = np.stack([np.searchsorted(c, u, side="left") for c, u in zip(cdf, draws)])
    idx = np.minimum(idx, k - 1)
    out = idx.reshape(out_shape).astype(attrs.dtype)
    if not attrs.get_prob:
        return out
    with np.errstate(divide="ignore"):
        prob = np.log(np.take_along_axis(dist, idx, axis=1))
    return out, prob.reshape(out_shape).astype(data.dtype)


register(
    "_sample_multinomial",
    aliases=("sample_multinomial",),
    inputs=("data",),
    num_outputs=_multi_outputs,
    params={
        "shape": Param(p_shape, ()),
        "get_prob": Param(p_bool, False),
        "dtype": Param(p_dtype, np.dtype(np.int32)),
    },
    infer_shape=_multi_shape,
    infer_type=_multi_type,
    random=True,
)(_sample_multinomial)
json_outputs("_sample_multinomial", _multi_outputs)

# ------------------------------------------------------------ mx.nd.random / mx.sym.random


def _multinomial(module, get_prob_default: bool):
    def multinomial(data, shape=(), get_prob=get_prob_default, out=None, dtype="int32", **kwargs):
        """Samples from the categorical distributions in data's last axis."""
        return module._internal._sample_multinomial(
            data, shape=shape, get_prob=get_prob, dtype=dtype, **kwargs
        )

    return multinomial


def _expose() -> None:
    """mx.nd.random.X / mx.sym.random.X for `_random_X`, made under the public name so that
    symbols are auto-named as in MXNet (`uniform_like0`)."""
    from ..ndarray.register import make_nd_function
    from ..registry import get_op
    from ..symbol import _make_sym_function

    for public in ("uniform_like", "normal_like"):
        opdef = get_op("_random_" + public)
        setattr(_nd.random, public, make_nd_function(opdef, public))
        setattr(_sym.random, public, _make_sym_function(opdef, public))
    # mx.nd's and mx.sym's get_prob defaults differ, as in MXNet 1.9.1 (mxnet_facts)
    _, _, nd_default, sym_default = DEFAULTS_DIFFER["random.multinomial"]
    _nd.random.multinomial = _multinomial(_nd, bool(nd_default))
    _sym.random.multinomial = _multinomial(_sym, bool(sym_default))


_expose()
