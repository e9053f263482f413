"""mx.nd's Python-level helpers that accept NDArrays or scalars on either side (mx.nd.add,
mx.nd.maximum, ...) and the mx.nd.random namespace, as in MXNet's ndarray.py/random.py."""

import numbers

from ..base import _type_name
from ..context import cpu_only
from .ndarray import NDArray, wrap

__all__ = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "true_divide",
    "modulo",
    "power",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "lesser",
    "lesser_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
]


def _ufunc(lhs, rhs, broadcast_op: str, scalar_op: str, rscalar_op: str, py_fn):
    from . import _internal, op

    if isinstance(lhs, numbers.Number) and isinstance(rhs, numbers.Number):
        return py_fn(lhs, rhs)
    if isinstance(lhs, numbers.Number):
        # (typeshed's numbers.Number has no __float__; the numbers seen here all do)
        return getattr(_internal, rscalar_op)(rhs, scalar=float(lhs))  # type: ignore[arg-type]
    if isinstance(rhs, numbers.Number):
        return getattr(_internal, scalar_op)(lhs, scalar=float(rhs))  # type: ignore[arg-type]
    if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
        return getattr(op, broadcast_op)(lhs, rhs)
    raise TypeError("type {} and {} not supported".format(_type_name(lhs), _type_name(rhs)))


def _make(name, broadcast_op, scalar_op, rscalar_op, py_fn):
    def helper(lhs, rhs):
        return _ufunc(lhs, rhs, broadcast_op, scalar_op, rscalar_op, py_fn)

    helper.__name__ = name
    helper.__doc__ = "Elementwise {} with broadcasting; either side may be a scalar.".format(name)
    return helper


def _cmp(fn):
    return lambda a, b: 1.0 if fn(a, b) else 0.0


add = _make("add", "broadcast_add", "_plus_scalar", "_plus_scalar", lambda a, b: a + b)
subtract = _make("subtract", "broadcast_sub", "_minus_scalar", "_rminus_scalar", lambda a, b: a - b)
multiply = _make("multiply", "broadcast_mul", "_mul_scalar", "_mul_scalar", lambda a, b: a * b)
divide = _make("divide", "broadcast_div", "_div_scalar", "_rdiv_scalar", lambda a, b: a / b)
true_divide = divide
modulo = _make("modulo", "broadcast_mod", "_mod_scalar", "_rmod_scalar", lambda a, b: a % b)
power = _make("power", "broadcast_power", "_power_scalar", "_rpower_scalar", pow)
maximum = _make("maximum", "broadcast_maximum", "_maximum_scalar", "_maximum_scalar", max)
minimum = _make("minimum", "broadcast_minimum", "_minimum_scalar", "_minimum_scalar", min)
equal = _make(
    "equal", "broadcast_equal", "_equal_scalar", "_equal_scalar", _cmp(lambda a, b: a == b)
)
not_equal = _make(
    "not_equal",
    "broadcast_not_equal",
    "_not_equal_scalar",
    "_not_equal_scalar",
    _cmp(lambda a, b: a != b),
)
greater = _make(
    "greater", "broadcast_greater", "_greater_scalar", "_lesser_scalar", _cmp(lambda a, b: a > b)
)
greater_equal = _make(
    "greater_equal",
    "broadcast_greater_equal",
    "_greater_equal_scalar",
    "_lesser_equal_scalar",
    _cmp(lambda a, b: a >= b),
)
lesser = _make(
    "lesser", "broadcast_lesser", "_lesser_scalar", "_greater_scalar", _cmp(lambda a, b: a < b)
)
lesser_equal = _make(
    "lesser_equal",
    "broadcast_lesser_equal",
    "_lesser_equal_scalar",
    "_greater_equal_scalar",
    _cmp(lambda a, b: a <= b),
)
logical_and = _make(
    "logical_and",
    "broadcast_logical_and",
    "_logical_and_scalar",
    "_logical_and_scalar",
    lambda a, b: float(bool(a) and bool(b)),
)
logical_or = _make(
    "logical_or",
    "broadcast_logical_or",
    "_logical_or_scalar",
    "_logical_or_scalar",
    lambda a, b: float(bool(a) or bool(b)),
)
logical_xor = _make(
    "logical_xor",
    "broadcast_logical_xor",
    "_logical_xor_scalar",
    "_logical_xor_scalar",
    lambda a, b: float(bool(a) != bool(b)),
)


# ----------------------------------------------------------------------------- mx.nd.random


def _random_namespace(module):
    """Fill `module` (mx.nd.random) with MXNet's sampling functions."""

    def uniform(low=0, high=1, shape=(), dtype=None, ctx=None, out=None, **kwargs):
        from . import _internal

        cpu_only(ctx)

        return _internal._random_uniform(
            low=low, high=high, shape=shape, dtype=dtype or "float32", out=out, **kwargs
        )

    def normal(loc=0, scale=1, shape=(), dtype=None, ctx=None, out=None, **kwargs):
        from . import _internal

        cpu_only(ctx)

        return _internal._random_normal(
            loc=loc, scale=scale, shape=shape, dtype=dtype or "float32", out=out, **kwargs
        )

    def randn(*shape, loc=0, scale=1, dtype=None, ctx=None, out=None, **kwargs):
        return normal(loc, scale, shape, dtype, ctx, out, **kwargs)

    def shuffle(data, **kwargs):
        from ..random import generator

        idx = generator().permutation(data.shape[0])
        return wrap(data._data[idx])

    module.uniform = uniform
    module.normal = normal
    module.randn = randn
    module.shuffle = shuffle
    return module
