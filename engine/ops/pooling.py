"""Pooling (max, avg, sum, lp; 1-D/2-D/3-D; global; valid/full conventions).

The input is padded once (with -inf for max, 0 otherwise; the 'full' convention pads the right
edge further so the last, partial window exists), viewed as (N, C, *out, *kernel) with strides
and reduced over the kernel axes: no Python loop over batch, channels or positions. Average
pooling divides by MXNet's window size: clipped to the padded input when count_include_pad
(default), to the real input otherwise; the divisor is separable, an outer product of one
small vector per spatial axis.
"""

from math import prod
from typing import Any, Dict

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..registry import Param, ShapeError, p_bool, p_enum, p_int, p_opt, p_shape, register
from ._util import copyto, fmt_shape, json_outputs

_FIRST = {3: "NCW", 4: "NCHW", 5: "NCDHW"}
_LAST = {3: "NWC", 4: "NHWC", 5: "NDHWC"}


def nan_to_lowest(out: np.ndarray) -> np.ndarray:
    """Finish a max pooling computed with np.fmax the way MXNet's ends: its running max only
    takes a value greater than the current one, starting from the lowest finite value, so NaN
    never wins (np.fmax skips NaN too) and a window of NaN or -inf only stays at the lowest
    value (where np.fmax gives NaN or -inf). One min over the (small) pooled result (NaN
    propagates into it), the fix-up only when needed."""
    if out.dtype.kind == "f" and out.size:
        lowest = np.finfo(out.dtype).min
        if not out.min() >= lowest:
            np.fmax(out, lowest, out=out)
    return out


def _geometry(attrs, shape):
    """(kernel, stride, pad, out spatial) for channel-first `shape`, MXNet's rules."""
    nd = len(shape) - 2
    sp = shape[2:]
    if attrs.global_pool:
        return tuple(sp), (1,) * nd, (0,) * nd, (1,) * nd
    k = attrs.kernel
    if len(k) != nd:
        raise ShapeError(
            "Pooling: a {}-D kernel {} needs {}-D input ({}), got data of shape {}".format(
                len(k), k, len(k) + 2, _FIRST.get(len(k) + 2, "?"), fmt_shape(shape)
            )
        )
    stride = attrs.stride or (1,) * nd
    pad = attrs.pad or (0,) * nd
    if min(stride) < 1 or min(k) < 1:
        raise ShapeError("Pooling: kernel {} and stride {} must be positive".format(k, stride))
    if len(stride) != nd or len(pad) != nd:
        raise ShapeError(
            "Pooling: stride {} and pad {} must have as many dimensions as kernel {}".format(
                stride, pad, k
            )
        )
    if attrs.pooling_convention == "same":
        raise ShapeError(
            "Pooling: pooling_convention 'same' is not supported by the hybridlint "
            "engine (MXNet 1.9.1's own CPU kernel fails on it); use 'valid' or "
            "'full'"
        )
    out = []
    for i, d in enumerate(sp):
        if not d:
            out.append(0)
            continue
        if k[i] > d + 2 * pad[i]:
            raise ShapeError(
                "kernel size ({}) exceeds input ({} padded to {})".format(k[i], d, d + 2 * pad[i])
            )
        span = d + 2 * pad[i] - k[i]
        if attrs.pooling_convention == "valid":
            out.append(1 + span // stride[i])
        elif attrs.pooling_convention == "full":
            out.append(1 + -(-span // stride[i]))
        else:
            out.append(-(-(d + 2 * pad[i]) // stride[i]))
    return tuple(k), tuple(stride), tuple(pad), tuple(out)


def _channel_last(attrs, ndim) -> bool:
    lay = attrs.layout
    if lay is None:
        return False
    if lay in _LAST.values():
        if lay != _LAST.get(ndim):
            raise ShapeError("Pooling: layout {} does not match {}-D data".format(lay, ndim))
        return True
    if lay != _FIRST.get(ndim):
        raise ShapeError("Pooling: layout {} does not match {}-D data".format(lay, ndim))
    return False


def _to_first(shape):
    return (shape[0], shape[-1]) + tuple(shape[1:-1])


def _pool_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None]
    if not 3 <= len(s) <= 5:
        raise ShapeError(
            "Pooling: Input data should be 3D in (batch, channel, x) Or 4D in "
            "(batch, channel, y, x) Or 5D in (batch, channel, d, y, x), got {}".format(fmt_shape(s))
        )
    if attrs.pool_type == "lp" and attrs.p_value is None:
        raise ShapeError("Pooling: pool_type 'lp' needs p_value")
    last = _channel_last(attrs, len(s))
    first = _to_first(s) if last else tuple(s)
    _, _, _, out = _geometry(attrs, first)
    oshape = first[:2] + out
    if last:
        oshape = (oshape[0],) + oshape[2:] + (oshape[1],)
    return in_shapes, [oshape]


def _window_sizes(n_out, k, s, p, d, include_pad):
    """Per-output-position window size along one axis, as MXNet's pool.h computes it."""
    start = np.arange(n_out) * s - p
    end = np.minimum(start + k, d + p)
    if include_pad:
        return end - start
    return np.minimum(end, d) - np.maximum(start, 0)


def _windows(attrs, x):
    """(strided view (N, C, *out, *kernel), kernel, stride, pad, out)."""
    k, stride, pad, out = _geometry(attrs, x.shape)
    nd = len(k)
    sp = x.shape[2:]
    extra = [max(0, (out[i] - 1) * stride[i] + k[i] - (sp[i] + 2 * pad[i])) for i in range(nd)]
    if any(pad) or any(extra):
        if attrs.pool_type == "max":
            # MXNet starts max windows at the lowest finite value: a window lying wholly in the
            # padding of the 'full' convention yields it, never -inf
            fill = np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min
        else:
            fill = 0
        x = np.pad(
            x,
            [(0, 0), (0, 0)] + [(pad[i], pad[i] + extra[i]) for i in range(nd)],
            constant_values=fill,
        )
    st = x.strides
    view = as_strided(
        x,
        x.shape[:2] + out + k,
        st[:2] + tuple(st[2 + i] * stride[i] for i in range(nd)) + st[2:],
        writeable=False,
    )
    return view, k, stride, pad, out


def _reduce_windows(view, nd, ufunc, out=None):
    """Reduce the trailing `nd` kernel axes of `view` with `ufunc` (np.fmax or np.add)."""
    res = _reduce_windows_raw(view, nd, ufunc, out)
    return nan_to_lowest(res) if ufunc is np.fmax else res


def _reduce_windows_raw(view, nd, ufunc, out=None):
    """`_reduce_windows` before max pooling's NaN fix-up.

    numpy's reductions over several non-contiguous axes of a strided view are ~40x slower
    than a chain of elementwise ops over the kernel taps, so small kernels go tap by tap
    (each tap is a strided (N, C, *out) view); large ones (global pooling) reduce as usual.
    """
    kshape = view.shape[view.ndim - nd :]
    taps = 1
    for d in kshape:
        taps *= d
    if taps > 64:
        axes = tuple(range(view.ndim - nd, view.ndim))
        return ufunc.reduce(view, axis=axes, out=out)
    it = np.ndindex(*kshape)
    first = next(it)
    lead = (Ellipsis,)
    if out is None:
        out = view[lead + first].copy()
    else:
        out[...] = view[lead + first]
    for tap in it:
        ufunc(out, view[lead + tap], out=out)
    return out


def _global_reduce(x, ufunc, out=None):
    """Global pooling: one reduction over the contiguous flattened spatial axis."""
    flat = x.reshape(x.shape[0], x.shape[1], -1)
    res = ufunc.reduce(flat, axis=2, dtype=x.dtype)
    res = res.reshape(x.shape[:2] + (1,) * (x.ndim - 2))
    if out is not None:
        out[...] = res
        return out
    return res


def _pool_first(attrs, x, out=None):
    pt = attrs.pool_type
    if attrs.global_pool and pt in ("max", "sum", "avg"):
        res = _global_reduce(x, np.fmax if pt == "max" else np.add, out)
        if pt == "max":
            nan_to_lowest(res)
        if pt == "avg":
            n = 1
            for d in x.shape[2:]:
                n *= d
            if x.dtype.kind == "f":
                res /= x.dtype.type(n)
            else:
                res //= n
        return res
    view, k, stride, pad, osp = _windows(attrs, x)
    nd = len(k)
    if pt == "max":
        return _reduce_windows(view, nd, np.fmax, out)
    if pt == "lp":
        pv = attrs.p_value
        powed = view**pv if pv != 1 else view
        res = _reduce_windows(powed, nd, np.add)
        res = (
            np.sqrt(res)
            if pv == 2
            else (np.cbrt(res) if pv == 3 else res if pv == 1 else res ** (1.0 / pv))
        )
        res = res.astype(x.dtype, copy=False)
    else:
        res = _reduce_windows(view, nd, np.add, out)
        if pt == "avg":
            include = True if attrs.count_include_pad is None else attrs.count_include_pad
            div = None
            for i in range(nd):
                w = _window_sizes(osp[i], k[i], stride[i], pad[i], x.shape[2 + i], include)
                div = w if div is None else np.multiply.outer(div, w)
            if nd < 3:
                # empty windows ('full' convention) give 0 in MXNet's 1-D/2-D kernels; its
                # 3-D kernel divides 0 by 0 and gives NaN, which we keep
                div = np.maximum(div, 1)
            if x.dtype.kind == "f":
                with np.errstate(invalid="ignore", divide="ignore"):
                    res /= div.astype(x.dtype)
            else:
                res[...] = res // div
    if out is not None and res is not out:
        out[...] = res
        return out
    return res


_TAPS: Dict[Any, Any] = {}


def _tap_plan(attrs, x):
    """For channel-first max/sum/avg pooling with a small kernel: the basic slice of the
    (padded) input for every kernel tap, the padding to apply and avg's divisor, cached per
    (attrs, shape, dtype). Hybridized models run pooling thousands of times on one shape;
    this removes the per-call geometry work, leaving a fill, a copy and a few ufunc calls."""
    key = (attrs, x.shape, x.dtype)
    plan = _TAPS.get(key)
    if plan is not None:
        return plan
    plan = False
    if (
        attrs.pool_type in ("max", "sum", "avg")
        and not attrs.global_pool
        and (attrs.layout is None or attrs.layout in _FIRST.values())
        and x.ndim >= 3
    ):
        k, stride, pad, out = _geometry(attrs, x.shape)
        nd = len(k)
        sp = x.shape[2:]
        if prod(k) <= 64 and all(out):
            extra = [
                max(0, (out[i] - 1) * stride[i] + k[i] - (sp[i] + 2 * pad[i])) for i in range(nd)
            ]
            padded = None
            if any(pad) or any(extra):
                padded = (
                    x.shape[:2] + tuple(sp[i] + 2 * pad[i] + extra[i] for i in range(nd)),
                    (slice(None), slice(None))
                    + tuple(slice(pad[i], pad[i] + sp[i]) for i in range(nd)),
                    _pad_value(attrs, x.dtype),
                )
            taps = [
                (slice(None), slice(None))
                + tuple(
                    slice(t[i], t[i] + (out[i] - 1) * stride[i] + 1, stride[i]) for i in range(nd)
                )
                for t in np.ndindex(*k)
            ]
            div = None
            if attrs.pool_type == "avg":
                div = (
                    x.dtype.type(prod(k))
                    if padded is None
                    else _avg_divisor(attrs, k, stride, pad, out, sp).astype(x.dtype)
                )
            sep = None
            if attrs.pool_type == "max":
                src_sp = padded[0][2:] if padded is not None else sp
                sep = separable_max_stages(x.shape[:2] + tuple(src_sp), k, stride, out)
            plan = (
                np.fmax if attrs.pool_type == "max" else np.add,
                taps,
                div,
                x.dtype.kind == "f",
                padded,
                sep,
                x.shape[:2] + out,
            )
    if len(_TAPS) > 256:
        _TAPS.clear()
    _TAPS[key] = plan
    return plan


def _pad_value(attrs, dtype):
    if attrs.pool_type != "max":
        return 0
    # MXNet starts max windows at the lowest finite value: a window lying wholly in the padding
    # of the 'full' convention yields it, never -inf
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _avg_divisor(attrs, k, stride, pad, out, sp):
    """MXNet's per-window divisor: the window clipped to the padded input (count_include_pad,
    the default) or to the input; empty windows give 0 in 1-D/2-D and 0/0 = NaN in 3-D."""
    include = True if attrs.count_include_pad is None else attrs.count_include_pad
    div = None
    for i in range(len(k)):
        w = _window_sizes(out[i], k[i], stride[i], pad[i], sp[i], include)
        div = w if div is None else np.multiply.outer(div, w)
    if len(k) < 3:
        div = np.maximum(div, 1)
    return div


def separable_max_stages(shape, k, stride, out):
    """Max pooling of a channel-first array of `shape` (windows starting at 0 on each spatial
    axis) as one max over the kernel taps of one axis at a time: `(pre, stages)`, `pre` the
    basic slice applying the axes whose kernel is 1, each stage `(tap slices, result shape)`
    reducing one axis, the first spatial axis first: its taps are whole contiguous rows, so
    the largest stage reads memory in order (about 1.3x faster on LeNet's pools than the last
    axis first, which was already about 1.6x faster than one copy and three maxima). With
    np.fmax the value is the tap-by-tap one (NaN skipped; `nan_to_lowest` finishes windows of
    NaN only). Which of +0.0 and -0.0 wins a tie is not MXNet's (first in row-major order):
    numpy's maximum/fmax do not promise an order, and a zero's sign is all that differs."""
    nd = len(k)
    full = (slice(None),) * (2 + nd)
    pre = list(full)
    cur = list(shape)
    for i in range(nd):
        if k[i] == 1:
            pre[2 + i] = slice(0, (out[i] - 1) * stride[i] + 1, stride[i])
            cur[2 + i] = out[i]
    stages = []
    for i in range(nd):
        if k[i] == 1:
            continue
        slices = []
        for t in range(k[i]):
            sl = list(full)
            sl[2 + i] = slice(t, t + (out[i] - 1) * stride[i] + 1, stride[i])
            slices.append(tuple(sl))
        cur[2 + i] = out[i]
        stages.append((slices, tuple(cur)))
    return tuple(pre), stages


def run_separable_max(sep, src, out):
    """`out` = the max pooling of `src` planned by `separable_max_stages` (np.fmax, before
    `nan_to_lowest`)."""
    pre, stages = sep
    src = src[pre]
    if not stages:
        copyto(out, src)
        return out
    last = len(stages) - 1
    for idx, (slices, shape) in enumerate(stages):
        dst = out if idx == last else np.empty(shape, src.dtype)
        np.fmax(src[slices[0]], src[slices[1]], out=dst)
        for t in slices[2:]:
            np.fmax(dst, src[t], out=dst)
        src = dst
    return out


def _run_taps(plan, x, out):
    ufunc, taps, div, is_float, padded, sep, _ = plan
    if padded is not None:
        shape, interior, fill = padded
        src = np.full(shape, fill, x.dtype)
        src[interior] = x
    else:
        src = x
    if sep is not None:
        return nan_to_lowest(run_separable_max(sep, src, out))
    copyto(out, src[taps[0]])
    for t in taps[1:]:
        ufunc(out, src[t], out=out)
    if ufunc is np.fmax:
        nan_to_lowest(out)
    if div is not None:
        if is_float:
            with np.errstate(invalid="ignore", divide="ignore"):
                out /= div
        else:
            out //= div
    return out


def pooling(attrs, x):
    """Max/avg/sum/lp pooling over the spatial axes (MXNet's `Pooling`)."""
    plan = _tap_plan(attrs, x)
    if plan:
        return _run_taps(plan, x, np.empty(plan[6], x.dtype))
    _pool_shape(attrs, [x.shape])
    if _channel_last(attrs, x.ndim):
        perm = (0, x.ndim - 1) + tuple(range(1, x.ndim - 1))
        res = _pool_first(attrs, x.transpose(perm))
        back = (0,) + tuple(range(2, x.ndim)) + (1,)
        return np.ascontiguousarray(res.transpose(back))
    return _pool_first(attrs, x)


def pooling_out(attrs, out, x):
    """Pooling into a preallocated buffer (channel-first layouts reduce straight into it)."""
    plan = _tap_plan(attrs, x)
    if plan:
        return _run_taps(plan, x, out)
    if attrs.layout is None or attrs.layout in _FIRST.values():
        if x.ndim != len(attrs.kernel) + 2 and not attrs.global_pool:
            _pool_shape(attrs, [x.shape])
        _pool_first(attrs, x, out=out)
    else:
        out[...] = pooling(attrs, x)
    return out


register(
    "Pooling",
    params={
        "kernel": Param(p_shape, ()),
        "pool_type": Param(p_enum("avg", "lp", "max", "sum"), "max"),
        "global_pool": Param(p_bool, False),
        "cudnn_off": Param(p_bool, False),
        "pooling_convention": Param(p_enum("full", "same", "valid"), "valid"),
        "stride": Param(p_shape, ()),
        "pad": Param(p_shape, ()),
        "p_value": Param(p_opt(p_int), None),
        "count_include_pad": Param(p_opt(p_bool), None),
        "layout": Param(p_opt(p_enum("NCDHW", "NCHW", "NCW", "NDHWC", "NHWC", "NWC")), None),
    },
    infer_shape=_pool_shape,
    out_kernel=pooling_out,
)(pooling)


def _pool_json_outputs(attrs) -> int:
    """MXNet's oneDNN build gives max pooling a hidden workspace output when it can run it:
    an explicit 1-3-D kernel and a channel-first (or default) layout."""
    if (
        attrs.pool_type == "max"
        and 1 <= len(attrs.kernel) <= 3
        and attrs.layout in (None, "NCW", "NCHW", "NCDHW")
    ):
        return 2
    return 1


json_outputs("Pooling", _pool_json_outputs)
