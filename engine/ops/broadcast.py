"""The broadcast_* binary family: numpy broadcasting restricted to MXNet's rule (each dim pair
equal or one of them 1, shapes left-padded to the same rank); results keep the lhs dtype."""

import numpy as np

from ..registry import ShapeError, register
from ._util import fmt_shape, keep_dtype, ufunc_inline
from .elemwise import _int_safe_divide, _logical, _to_dtype


def broadcast_shape(attrs, in_shapes):
    """Output shape of a broadcast binary op; unknown (None/0) dims stay unknown."""
    lhs, rhs = in_shapes
    if lhs is None or rhs is None:
        return in_shapes, [None]
    n = max(len(lhs), len(rhs))
    lp = (1,) * (n - len(lhs)) + tuple(lhs)
    rp = (1,) * (n - len(rhs)) + tuple(rhs)
    out = []
    for a, b in zip(lp, rp):
        if a == b or b == 1:
            out.append(a)
        elif a == 1:
            out.append(b)
        elif a == 0 or b == 0:
            out.append(0)
        else:
            raise ShapeError(
                "operands could not be broadcast together with shapes {} {}".format(
                    fmt_shape(lhs), fmt_shape(rhs)
                )
            )
    return in_shapes, [tuple(out)]


BROADCAST = {
    "broadcast_add": (np.add, ("broadcast_plus",)),
    "broadcast_sub": (np.subtract, ("broadcast_minus",)),
    "broadcast_mul": (np.multiply, ()),
    "broadcast_div": (_int_safe_divide, ()),
    "broadcast_mod": (np.mod, ()),
    "broadcast_power": (np.power, ()),
    "broadcast_maximum": (np.maximum, ()),
    "broadcast_minimum": (np.minimum, ()),
    "broadcast_hypot": (np.hypot, ()),
    "broadcast_equal": (_to_dtype(np.equal), ()),
    "broadcast_not_equal": (_to_dtype(np.not_equal), ()),
    "broadcast_greater": (_to_dtype(np.greater), ()),
    "broadcast_greater_equal": (_to_dtype(np.greater_equal), ()),
    "broadcast_lesser": (_to_dtype(np.less), ()),
    "broadcast_lesser_equal": (_to_dtype(np.less_equal), ()),
    "broadcast_logical_and": (_logical(np.logical_and), ()),
    "broadcast_logical_or": (_logical(np.logical_or), ()),
    "broadcast_logical_xor": (_logical(np.logical_xor), ()),
}


def _kernels(name, fn):
    def kernel(attrs, a, b):
        if a.shape != b.shape:
            broadcast_shape(attrs, [a.shape, b.shape])
        r = fn(a, b)
        return keep_dtype(r, a)

    def out_kernel(attrs, out, a, b):
        fn(a, b, out=out)

    kernel.__doc__ = "Elementwise {} with MXNet broadcasting.".format(name[len("broadcast_") :])
    return kernel, out_kernel


for _name, (_fn, _aliases) in BROADCAST.items():
    _k, _ok = _kernels(_name, _fn)
    register(
        _name,
        inputs=("lhs", "rhs"),
        aliases=_aliases,
        infer_shape=broadcast_shape,
        out_kernel=_ok,
        elementwise=True,
        inline=ufunc_inline(_fn),
    )(_k)
