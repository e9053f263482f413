"""MXNet's linalg family (mx.nd.linalg / F.linalg): gemm (alpha*op(A)@op(B) + beta*C), gemm2,
potrf, potri, trsm, trmm, syrk, sumlogdiag, extractdiag, makediag, extracttrian, maketrian,
inverse, det and slogdet, batched over the leading axes; gemm's `axis` names the rows axis of the
matrices (-2 by default), as in MXNet. Factorisations run in float64 and are cast back."""

import numpy as np

from ..registry import Param, ShapeError, p_bool, p_float, p_int, register
from ._util import fmt_shape, json_outputs, norm_axis


def _rows_last(x, axis):
    """Move the rows axis to -2 (where matmul expects it)."""
    ax = norm_axis(axis, x.ndim, "linalg_gemm")
    return x if ax == x.ndim - 2 else np.moveaxis(x, ax, -2)


def _mm_shape(attrs, a, b):
    if len(a) < 2 or len(a) != len(b):
        raise ShapeError(
            "linalg_gemm: A {} and B {} must have the same rank >= 2".format(
                fmt_shape(a), fmt_shape(b)
            )
        )
    ax = norm_axis(attrs.axis, len(a), "linalg_gemm")
    if ax == len(a) - 1:
        raise ShapeError("linalg_gemm: axis cannot be the last axis")
    perm = [i for i in range(len(a)) if i != ax]
    perm.insert(len(a) - 2, ax)
    pa, pb = [a[i] for i in perm], [b[i] for i in perm]
    m, k = (pa[-1], pa[-2]) if attrs.transpose_a else (pa[-2], pa[-1])
    k2, n = (pb[-1], pb[-2]) if attrs.transpose_b else (pb[-2], pb[-1])
    if pa[:-2] != pb[:-2] or (k and k2 and k != k2):
        raise ShapeError(
            "linalg_gemm: incompatible A {} and B {} (transpose_a={}, "
            "transpose_b={}, axis={})".format(
                fmt_shape(a), fmt_shape(b), attrs.transpose_a, attrs.transpose_b, attrs.axis
            )
        )
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
        raise ShapeError(
            "linalg_gemm: C has shape {}, expected {}".format(
                fmt_shape(c.shape), fmt_shape(out_shape)
            )
        )
    res = _product(attrs, a, b)
    if attrs.beta != 0:  # BLAS gemm does not read C when beta == 0 (NaN in C ignored)
        res += c.dtype.type(attrs.beta) * c
    return res


_GEMM_PARAMS = {
    "transpose_a": Param(p_bool, False),
    "transpose_b": Param(p_bool, False),
    "alpha": Param(p_float, 1.0),
    "axis": Param(p_int, -2),
}


def _gemm2_shape(attrs, s):
    if s[0] is None or s[1] is None:
        return s, [None]
    return s, [_mm_shape(attrs, s[0], s[1])]


def _gemm_shape(attrs, s):
    if s[0] is None or s[1] is None:
        return s, [s[2]]
    out = _mm_shape(attrs, s[0], s[1])
    if s[2] is not None and tuple(s[2]) != out:
        raise ShapeError(
            "linalg_gemm: C has shape {}, expected {}".format(fmt_shape(s[2]), fmt_shape(out))
        )
    return [s[0], s[1], out], [out]


register(
    "_linalg_gemm2",
    aliases=("linalg_gemm2",),
    inputs=("A", "B"),
    params=dict(_GEMM_PARAMS),
    infer_shape=_gemm2_shape,
)(gemm2)
register(
    "_linalg_gemm",
    aliases=("linalg_gemm",),
    inputs=("A", "B", "C"),
    params=dict(_GEMM_PARAMS, beta=Param(p_float, 1.0)),
    infer_shape=_gemm_shape,
)(gemm)

# ----------------------------------------------------------------------------- more of linalg
# Matrices are the last two axes; leading axes are a batch. Computed in float64, cast back.


def _square(a, what):
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ShapeError(
            "{}: input must be a (batch of) square matrices, got {}".format(
                what, fmt_shape(a.shape)
            )
        )


def _f64(a):
    return a.astype(np.float64)


def _lapack(fn, what, *args):
    """Run a numpy.linalg routine; its LinAlgError becomes MXNet's operator error."""
    try:
        return fn(*args)
    except np.linalg.LinAlgError as err:
        raise ShapeError(
            "{} failed in lapack on cpu ({}): the input matrix is either not "
            "symmetric positive definite or singular".format(what, err)
        ) from None


def _tri(a, lower):
    return np.tril(a) if lower else np.triu(a)


def potrf(attrs, a):
    """Cholesky factor: lower (or upper) triangular L with A = L L^T (or U^T U)."""
    _square(a, "linalg_potrf")
    lo = _lapack(np.linalg.cholesky, "linalg_potrf", _f64(a))
    return (lo if attrs.lower else np.swapaxes(lo, -1, -2)).astype(a.dtype)


def potri(attrs, a):
    """Inverse of B = L L^T from its Cholesky factor L (lower) or U (upper)."""
    _square(a, "linalg_potri")
    t = _tri(_f64(a), attrs.lower)
    b = (
        np.matmul(t, np.swapaxes(t, -1, -2))
        if attrs.lower
        else np.matmul(np.swapaxes(t, -1, -2), t)
    )
    return _lapack(np.linalg.inv, "linalg_potri", b).astype(a.dtype)


def _op(t, transpose):
    return np.swapaxes(t, -1, -2) if transpose else t


def trsm(attrs, a, b):
    """Solve op(A) X = alpha B (or X op(A) = alpha B with rightside), A triangular."""
    _square(a, "linalg_trsm")
    t = _op(_tri(_f64(a), attrs.lower), attrs.transpose)
    rhs = attrs.alpha * _f64(b)
    if attrs.rightside:  # X t = rhs  <=>  t^T X^T = rhs^T
        x = np.swapaxes(
            _lapack(
                np.linalg.solve, "linalg_trsm", np.swapaxes(t, -1, -2), np.swapaxes(rhs, -1, -2)
            ),
            -1,
            -2,
        )
    else:
        x = _lapack(np.linalg.solve, "linalg_trsm", t, rhs)
    return x.astype(b.dtype)


def trmm(attrs, a, b):
    """alpha op(A) B (or alpha B op(A) with rightside), A triangular."""
    _square(a, "linalg_trmm")
    t = _op(_tri(_f64(a), attrs.lower), attrs.transpose)
    res = np.matmul(_f64(b), t) if attrs.rightside else np.matmul(t, _f64(b))
    return (attrs.alpha * res).astype(b.dtype)


def syrk(attrs, a):
    """alpha A A^T (or alpha A^T A with transpose)."""
    x = _f64(a)
    res = (
        np.matmul(np.swapaxes(x, -1, -2), x)
        if attrs.transpose
        else np.matmul(x, np.swapaxes(x, -1, -2))
    )
    return (attrs.alpha * res).astype(a.dtype)


def sumlogdiag(attrs, a):
    """Sum of the logs of the diagonal."""
    _square(a, "linalg_sumlogdiag")
    res = np.log(np.diagonal(_f64(a), axis1=-2, axis2=-1)).sum(-1)
    return np.asarray(res).reshape(a.shape[:-2] or (1,)).astype(a.dtype)


def extractdiag(attrs, a):
    """Diagonal `offset` of each matrix."""
    _square(a, "linalg_extractdiag")
    return np.diagonal(a, attrs.offset, axis1=-2, axis2=-1).copy()


def makediag(attrs, a):
    """Square matrices with the last axis on diagonal `offset`."""
    n = a.shape[-1] + abs(attrs.offset)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    i = np.arange(a.shape[-1])
    rows, cols = (i, i + attrs.offset) if attrs.offset >= 0 else (i - attrs.offset, i)
    out[..., rows, cols] = a
    return out


def _trian_index(n, offset, lower):
    """Row-major positions of the lower triangle; the upper one is the transpose's."""
    if lower:
        return np.tril_indices(n, offset)
    r, c = np.tril_indices(n, -offset)
    return c, r


def extracttrian(attrs, a):
    """The triangle (lower, or upper) from diagonal `offset`, flattened as MXNet orders it."""
    _square(a, "linalg_extracttrian")
    r, c = _trian_index(a.shape[-1], attrs.offset, attrs.lower)
    return np.ascontiguousarray(a[..., r, c])


def maketrian(attrs, a):
    """Inverse of extracttrian: square matrices with the triangle filled from the last axis."""
    m = a.shape[-1]
    t = int((np.sqrt(8 * m + 1) - 1) / 2)
    if t * (t + 1) // 2 != m:
        raise ShapeError("linalg_maketrian: last axis {} is not a triangular number".format(m))
    n = t + abs(attrs.offset)
    out = np.zeros(a.shape[:-1] + (n, n), a.dtype)
    r, c = _trian_index(n, attrs.offset, attrs.lower)
    out[..., r, c] = a
    return out


def inverse(attrs, a):
    """Matrix inverse."""
    _square(a, "linalg_inverse")
    return _lapack(np.linalg.inv, "linalg_inverse", _f64(a)).astype(a.dtype)


def det(attrs, a):
    """Determinant."""
    _square(a, "linalg_det")
    return np.asarray(np.linalg.det(_f64(a))).reshape(a.shape[:-2] or (1,)).astype(a.dtype)


def slogdet(attrs, a):
    """(sign, log |det|)."""
    _square(a, "linalg_slogdet")
    sign, logdet = np.linalg.slogdet(_f64(a))
    shape = a.shape[:-2] or (1,)
    return (
        np.asarray(sign).reshape(shape).astype(a.dtype),
        np.asarray(logdet).reshape(shape).astype(a.dtype),
    )


def _batch_scalar(attrs, s):
    return s, [None if s[0] is None else (tuple(s[0][:-2]) or (1,))]


_SIDE = {
    "transpose": Param(p_bool, False),
    "rightside": Param(p_bool, False),
    "lower": Param(p_bool, True),
    "alpha": Param(p_float, 1.0),
}
_SAME = lambda a, s: (s, [s[0]])  # noqa: E731 - tiny shape rule

register(
    "_linalg_potrf",
    aliases=("linalg_potrf",),
    inputs=("A",),
    params={"lower": Param(p_bool, True)},
    infer_shape=_SAME,
)(potrf)
register(
    "_linalg_potri",
    aliases=("linalg_potri",),
    inputs=("A",),
    params={"lower": Param(p_bool, True)},
    infer_shape=_SAME,
)(potri)
register(
    "_linalg_trsm",
    aliases=("linalg_trsm",),
    inputs=("A", "B"),
    params=dict(_SIDE),
    infer_shape=lambda a, s: (s, [s[1]]),
)(trsm)
register(
    "_linalg_trmm",
    aliases=("linalg_trmm",),
    inputs=("A", "B"),
    params=dict(_SIDE),
    infer_shape=lambda a, s: (s, [s[1]]),
)(trmm)
register(
    "_linalg_syrk",
    aliases=("linalg_syrk",),
    inputs=("A",),
    params={"transpose": Param(p_bool, False), "alpha": Param(p_float, 1.0)},
    infer_shape=lambda a, s: (
        s,
        [
            None
            if s[0] is None
            else tuple(s[0][:-2]) + ((s[0][-1],) * 2 if a.transpose else (s[0][-2],) * 2)
        ],
    ),
)(syrk)
register(
    "_linalg_sumlogdiag", aliases=("linalg_sumlogdiag",), inputs=("A",), infer_shape=_batch_scalar
)(sumlogdiag)
register(
    "_linalg_extractdiag",
    aliases=("linalg_extractdiag",),
    inputs=("A",),
    params={"offset": Param(p_int, 0)},
)(extractdiag)
register(
    "_linalg_makediag",
    aliases=("linalg_makediag",),
    inputs=("A",),
    params={"offset": Param(p_int, 0)},
)(makediag)
register(
    "_linalg_extracttrian",
    aliases=("linalg_extracttrian",),
    inputs=("A",),
    params={"offset": Param(p_int, 0), "lower": Param(p_bool, True)},
)(extracttrian)
register(
    "_linalg_maketrian",
    aliases=("linalg_maketrian",),
    inputs=("A",),
    params={"offset": Param(p_int, 0), "lower": Param(p_bool, True)},
)(maketrian)
register("_linalg_inverse", aliases=("linalg_inverse",), inputs=("A",), infer_shape=_SAME)(inverse)
register(
    "_linalg_det",
    aliases=("linalg_det",),
    inputs=("A",),
    output_names=("output0",),
    infer_shape=_batch_scalar,
)(det)
register(
    "_linalg_slogdet",
    aliases=("linalg_slogdet",),
    inputs=("A",),
    num_outputs=2,
    infer_shape=lambda a, s: (s, _batch_scalar(a, s)[1] * 2),
)(slogdet)
json_outputs("_linalg_det", lambda attrs: 3)  # and the hidden LU factors and pivots
json_outputs("_linalg_slogdet", lambda attrs: 4)
