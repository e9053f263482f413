"""Core dense ops: FullyConnected, dot, batch_dot.

FullyConnected infers its weight and bias shapes backward from data and num_hidden, which is
how gluon's deferred initialisation learns `in_units`.
"""

from math import prod

import numpy as np

from ..registry import Param, ShapeError, get_op, merge_shape, p_bool, p_int, p_str, register
from ._util import as_array, fmt_shape
from ._util import dot as _dot  # the undispatched np.dot (this module defines the op `dot`)


def _fc_inputs(attrs):
    return ("data", "weight") if attrs.no_bias else ("data", "weight", "bias")


def fc_shape(attrs, in_shapes):
    """FullyConnected shapes, filling weight (num_hidden, in_units) and bias from data."""
    data = in_shapes[0]
    nh = attrs.num_hidden
    out = None
    in_units = 0
    if data is not None:
        if attrs.flatten:
            rest = data[1:]
            in_units = 0 if 0 in rest else prod(rest)
            out = (data[0], nh)
        else:
            in_units = data[-1]
            out = tuple(data[:-1]) + (nh,)
    try:
        w = merge_shape(in_shapes[1], (nh, in_units))
    except ShapeError:
        raise ShapeError(
            "Shape inconsistent, Provided = {}, inferred shape = {} (weight of "
            "data {} with num_hidden={})".format(
                fmt_shape(in_shapes[1]), fmt_shape((nh, in_units)), fmt_shape(data), nh
            )
        ) from None
    shapes = [data, w]
    if not attrs.no_bias:
        try:
            shapes.append(merge_shape(in_shapes[2], (nh,)))
        except ShapeError:
            raise ShapeError(
                "Shape inconsistent, Provided = {}, inferred shape = {} (bias)".format(
                    fmt_shape(in_shapes[2]), fmt_shape((nh,))
                )
            ) from None
    if data is None and w[1] and not attrs.flatten:
        shapes[0] = None
    return shapes, [out]


def _fc_check(attrs, x, w):
    inu = w.shape[1] if w.ndim == 2 else -1
    expect = x.size // x.shape[0] if attrs.flatten and x.ndim else x.shape[-1]
    if w.shape != (attrs.num_hidden, expect) or inu != expect:
        raise ShapeError(
            "Shape inconsistent, Provided = {}, inferred shape = {}".format(
                fmt_shape(w.shape), fmt_shape((attrs.num_hidden, expect))
            )
        )


def fully_connected(attrs, x, w, b=None):
    """Y = X W^T + b, X flattened to 2-D unless flatten=False."""
    if attrs.flatten:
        x2 = x.reshape(x.shape[0], -1) if x.ndim != 2 else x
    else:
        x2 = x.reshape(-1, x.shape[-1])
    if x2.shape[1] != w.shape[-1] or w.shape[0] != attrs.num_hidden:
        _fc_check(attrs, x, w)
    y = _dot(x2, w.T)
    if b is not None:
        if b.shape != (attrs.num_hidden,):
            raise ShapeError(
                "Shape inconsistent, Provided = {}, inferred shape = {}".format(
                    fmt_shape(b.shape), fmt_shape((attrs.num_hidden,))
                )
            )
        y += b
    if not attrs.flatten and x.ndim != 2:
        y = y.reshape(x.shape[:-1] + (attrs.num_hidden,))
    return y


def fully_connected_out(attrs, out, x, w, b=None):
    """The same into a preallocated buffer (the executor's path; shapes already checked)."""
    if attrs.flatten:
        x2 = x.reshape(x.shape[0], -1) if x.ndim != 2 else x
        o2 = out
    else:
        x2 = x.reshape(-1, x.shape[-1])
        o2 = out.reshape(-1, attrs.num_hidden)
    _dot(x2, w.T, out=o2)
    if b is not None:
        o2 += b


def fully_connected_inline(step):
    """dot into the output buffer, then the bias added in place: two numpy calls."""
    if len({d for d in step.in_dtypes} | {step.out_dtype}) != 1 or step.out_dtype.kind != "f":
        return None
    x, w = step.ins[0], step.ins[1]
    xs = step.in_shapes[0]
    out = step.out
    if step.attrs.flatten and len(xs) != 2:
        x = "{}.reshape({}, -1)".format(x, xs[0])
    elif not step.attrs.flatten and len(xs) != 2:
        x = "{}.reshape(-1, {})".format(x, xs[-1])
        out = "{}.reshape(-1, {})".format(out, step.attrs.num_hidden)
    lines = ["{}({}, {}.T, out={})".format(step.const(_dot), x, w, out)]
    if not step.attrs.no_bias:
        lines.append("{}({}, {}, out={})".format(step.const(np.add), out, step.ins[2], out))
    return lines


register(
    "FullyConnected",
    inputs=_fc_inputs,
    inline=fully_connected_inline,
    params={
        "num_hidden": Param(p_int),
        "no_bias": Param(p_bool, False),
        "flatten": Param(p_bool, True),
    },
    infer_shape=fc_shape,
    out_kernel=fully_connected_out,
)(fully_connected)


def _fc_backward(attrs, in_shapes, out_shapes):
    """MXNet's FullyConnectedShape also fills data's first dim from a known output's (a
    begin state zeros(shape=(0, hidden)) learns its batch size from the step's other FC)."""
    data, out = in_shapes[0], out_shapes[0]
    if data is None or not out or data[0] or not out[0]:
        return in_shapes
    return [(out[0],) + tuple(data[1:])] + list(in_shapes[1:])


get_op("FullyConnected").infer_shape_backward = _fc_backward


# ----------------------------------------------------------------------------- dot


def _dot_operands(attrs, a, b):
    if attrs.transpose_a:
        a = a.T
    if attrs.transpose_b:
        b = b.T
    return a, b


def dot_shape(attrs, in_shapes):
    """dot output shape (transpose flags reverse an operand's axes)."""
    a, b = in_shapes
    if a is None or b is None:
        return in_shapes, [None]
    ta = tuple(reversed(a)) if attrs.transpose_a else tuple(a)
    tb = tuple(reversed(b)) if attrs.transpose_b else tuple(b)
    if ta[-1] and tb[0] and ta[-1] != tb[0]:
        raise ShapeError(
            "dot shape error: lhs {} rhs {} (transpose_a={}, transpose_b={})".format(
                fmt_shape(a), fmt_shape(b), attrs.transpose_a, attrs.transpose_b
            )
        )
    out = ta[:-1] + tb[1:]
    return in_shapes, [out if out else (1,)]


def dot(attrs, a, b):
    """dot of N-D arrays: sum over the last axis of lhs and the first axis of rhs."""
    a2, b2 = _dot_operands(attrs, a, b)
    if a2.shape[-1] != b2.shape[0]:
        dot_shape(attrs, [a.shape, b.shape])
    if a2.ndim <= 2 and b2.ndim <= 2:
        return as_array(_dot(a2, b2), a.dtype)
    return as_array(np.tensordot(a2, b2, axes=1), a.dtype)


_DOT_PARAMS = {
    "transpose_a": Param(p_bool, False),
    "transpose_b": Param(p_bool, False),
    "forward_stype": Param(p_str, "None"),
}
register("dot", inputs=("lhs", "rhs"), params=_DOT_PARAMS, infer_shape=dot_shape)(dot)


def batch_dot_shape(attrs, in_shapes):
    """batch_dot output shape (transpose flags swap the last two axes)."""
    a, b = in_shapes
    if a is None or b is None:
        return in_shapes, [None]
    if len(a) < 3 or len(a) != len(b):
        raise ShapeError(
            "batch_dot expects inputs of the same rank >= 3, got {} and {}".format(
                fmt_shape(a), fmt_shape(b)
            )
        )
    m, k = (a[-1], a[-2]) if attrs.transpose_a else (a[-2], a[-1])
    k2, n = (b[-1], b[-2]) if attrs.transpose_b else (b[-2], b[-1])
    if a[:-2] != b[:-2] or (k and k2 and k != k2):
        raise ShapeError(
            "batch_dot shape error: lhs {} rhs {} (transpose_a={}, transpose_b={})".format(
                fmt_shape(a), fmt_shape(b), attrs.transpose_a, attrs.transpose_b
            )
        )
    return in_shapes, [tuple(a[:-2]) + (m, n)]


def batch_dot(attrs, a, b):
    """Batched matrix product over the leading axes (transpose flags swap the last two)."""
    if a.ndim < 3 or a.ndim != b.ndim:
        batch_dot_shape(attrs, [a.shape, b.shape])
    x = np.swapaxes(a, -1, -2) if attrs.transpose_a else a
    y = np.swapaxes(b, -1, -2) if attrs.transpose_b else b
    if x.shape[:-2] != y.shape[:-2] or x.shape[-1] != y.shape[-2]:
        batch_dot_shape(attrs, [a.shape, b.shape])
    return np.matmul(x, y)


register("batch_dot", inputs=("lhs", "rhs"), params=_DOT_PARAMS, infer_shape=batch_dot_shape)(
    batch_dot
)
