"""Dense linear algebra ops of MXNet's linalg family used in model code: linalg_gemm
(alpha*op(A)@op(B) + beta*C) and linalg_gemm2 (alpha*op(A)@op(B)), batched over the leading
axes; `axis` names the rows axis of the matrices (-2 by default), as in MXNet."""
import numpy as np

from ..registry import Param, ShapeError, p_bool, p_float, p_int, register
from ._util import fmt_shape, norm_axis


def _rows_last(x, axis):
    """Move the rows axis to -2 (where matmul expects it)."""
    ax = norm_axis(axis, x.ndim, "linalg_gemm")
    return x if ax == x.ndim - 2 else np.moveaxis(x, ax, -2)


def _mm_shape(attrs, a, b):
    if len(a) < 2 or len(a) != len(b):
        raise ShapeError("linalg_gemm: A {} and B {} must have the same rank >= 2".format(
            fmt_shape(a), fmt_shape(b)))
    ax = norm_axis(attrs.axis, len(a), "linalg_gemm")
    if ax == len(a) - 1:
        raise ShapeError("linalg_gemm: axis cannot be the last axis")
    perm = [i for i in range(len(a)) if i != ax]
    perm.insert(len(a) - 2, ax)
    pa, pb = [a[i] for i in perm], [b[i] for i in perm]
    m, k = (pa[-1], pa[-2]) if attrs.transpose_a else (pa[-2], pa[-1])
    k2, n = (pb[-1], pb[-2]) if attrs.transpose_b else (pb[-2], pb[-1])
    if pa[:-2] != pb[:-2] or (k and k2 and k != k2):
        raise ShapeError("linalg_gemm: incompatible A {} and B {} (transpose_a={}, "
                         "transpose_b={}, axis={})".format(fmt_shape(a), fmt_shape(b),
                                                           attrs.transpose_a,
                                                           attrs.transpose_b, attrs.axis))
    out = list(pa[:-2]) + [m, n]
    # move the rows axis back where it was
    rows = out.pop(len(out) - 2)
    out.insert(ax, rows)
    return tuple(out)


def _product(attrs, a, b):
    x, y = _rows_last(a, attrs.axis), _rows_last(b, attrs.axis)
    if attrs.transpose_a:
        x = np.swapaxes(x, -1, -2)
    if attrs.transpose_b:
        y = np.swapaxes(y, -1, -2)
    res = np.matmul(x, y)
    if attrs.alpha != 1.0:
        res *= res.dtype.type(attrs.alpha)
    ax = norm_axis(attrs.axis, a.ndim, "linalg_gemm")
    return res if ax == a.ndim - 2 else np.ascontiguousarray(np.moveaxis(res, -2, ax))


def gemm2(attrs, a, b):
    """alpha * op(A) @ op(B), batched over the leading axes."""
    _mm_shape(attrs, a.shape, b.shape)
    return _product(attrs, a, b)


def gemm(attrs, a, b, c):
    """alpha * op(A) @ op(B) + beta * C, batched over the leading axes."""
    out_shape = _mm_shape(attrs, a.shape, b.shape)
    if c.shape != out_shape:
        raise ShapeError("linalg_gemm: C has shape {}, expected {}".format(
            fmt_shape(c.shape), fmt_shape(out_shape)))
    res = _product(attrs, a, b)
    res += c.dtype.type(attrs.beta) * c
    return res


_GEMM_PARAMS = {"transpose_a": Param(p_bool, False), "transpose_b": Param(p_bool, False),
                "alpha": Param(p_float, 1.0), "axis": Param(p_int, -2)}


def _gemm2_shape(attrs, s):
    if s[0] is None or s[1] is None:
        return s, [None]
    return s, [_mm_shape(attrs, s[0], s[1])]


def _gemm_shape(attrs, s):
    if s[0] is None or s[1] is None:
        return s, [s[2]]
    out = _mm_shape(attrs, s[0], s[1])
    if s[2] is not None and tuple(s[2]) != out:
        raise ShapeError("linalg_gemm: C has shape {}, expected {}".format(
            fmt_shape(s[2]), fmt_shape(out)))
    return [s[0], s[1], out], [out]


register("_linalg_gemm2", aliases=("linalg_gemm2",), inputs=("A", "B"),
         params=dict(_GEMM_PARAMS), infer_shape=_gemm2_shape)(gemm2)
register("_linalg_gemm", aliases=("linalg_gemm",), inputs=("A", "B", "C"),
         params=dict(_GEMM_PARAMS, beta=Param(p_float, 1.0)), infer_shape=_gemm_shape)(gemm)
