"""Helpers shared by the op families (kept private: not an op module)."""

from math import prod
from typing import Any, Dict

import numpy as np

from ..registry import ShapeError


def _undispatched(fn):
    """The C implementation behind a numpy function. numpy < 1.25 (the MXNet environment
    pins 1.23) routes np.dot, np.copyto... through a Python-level __array_function__ wrapper
    that costs about 0.7 us a call on the benchmark machine: three of them are 7% of a
    hybridized batch-1 MLP forward. Kernels only ever pass plain ndarrays, so dispatch can
    never pick another implementation. numpy >= 1.25 dispatches in C; there the attribute
    is the same builtin (or absent, and the function is used as is)."""
    return getattr(fn, "_implementation", fn)


dot = _undispatched(np.dot)
copyto = _undispatched(np.copyto)


# Zero operands for max/min against 0 (relu). numpy vectorizes np.maximum/np.fmax only when
# both operands are contiguous arrays: against a scalar (or a stride-0 broadcast) it runs a
# scalar loop, about 3x slower on a LeNet activation (16x6x24x24 float32: 30 us vs 10 us on
# the benchmark machine). A zero operand of the input's own shape, cut from one shared
# read-only buffer per dtype, takes the vectorized loop; the buffer comes from calloc, so
# beyond a few pages it is the kernel's shared zero page and costs no real memory.
_ZERO_BLOCKS: Dict[Any, Any] = {}
_ZERO_MIN = 1024  # below this many elements the scalar loop is as fast
_ZERO_MAX_BYTES = 64 << 20  # bigger inputs keep the scalar (address space, not memory)


def zeros_operand(shape, dtype: np.dtype):
    """A read-only zero array of `shape` and `dtype` to pass to np.maximum/np.fmax in place
    of a scalar 0 (same values, the vectorized loop), or the dtype's scalar 0 when the array
    is small or huge. Note np.fmax's vectorized loop may return -0.0 for (-0.0, 0.0);
    np.maximum(x, zeros) returns +0.0 (as MXNet's relu) in every numpy supported."""
    size = prod(shape)
    if size < _ZERO_MIN or size * dtype.itemsize > _ZERO_MAX_BYTES:
        return dtype.type(0)
    flat = _ZERO_BLOCKS.get(dtype)
    if flat is None or flat.size < size:
        grown = max(
            size, 0 if flat is None else min(2 * flat.size, _ZERO_MAX_BYTES // dtype.itemsize)
        )
        flat = np.zeros(grown, dtype)
        flat.flags.writeable = False
        _ZERO_BLOCKS[dtype] = flat
    return flat[:size].reshape(shape)


def fmt_shape(s) -> str:
    """MXNet prints shapes as [2,3]."""
    return "None" if s is None else "[" + ",".join(str(d) for d in s) + "]"


def keep_dtype(res: np.ndarray, like: np.ndarray) -> np.ndarray:
    """MXNet ops keep the input dtype (int32 sqrt stays int32); numpy may promote."""
    return res if res.dtype == like.dtype else res.astype(like.dtype)


def as_array(res, dtype) -> np.ndarray:
    """A numpy scalar or 0-d result as MXNet's 1-element array."""
    if type(res) is not np.ndarray:
        res = np.asarray(res, dtype=dtype)
    if res.ndim == 0:
        res = res.reshape(1)
    return res


def norm_axis(axis: int, ndim: int, op: str) -> int:
    """A non-negative axis for an array of `ndim` dims, or ShapeError."""
    a = axis + ndim if axis < 0 else axis
    if not 0 <= a < ndim:
        raise ShapeError(
            "{}: axis {} is out of range for an input of {} dimensions".format(op, axis, ndim)
        )
    return a


def ufunc_inline(fn, scalar: bool = False, float_only: bool = True):
    """An `inline` code generator calling `fn(*inputs[, scalar], out=out)` directly in the
    compiled plan (skipping the kernel wrapper) when all dtypes are floats and agree."""

    def inline(step):
        dts = list(step.in_dtypes) + [step.out_dtype]
        if float_only and any(d.kind != "f" for d in dts):
            return None
        if any(d != dts[0] for d in dts):
            return None
        args = list(step.ins)
        if scalar:
            args.append(step.const(dts[0].type(step.attrs.scalar)))
        return ["{}({}, out={})".format(step.const(fn), ", ".join(args), step.out)]

    return inline


def json_outputs(op_name: str, count) -> None:
    """Declare how many outputs MXNet's graph JSON counts for `op_name` (node_row_ptr),
    including hidden ones the user never sees (BatchNorm's mean/var, Dropout's mask):
    `count(attrs) -> int`. Only Symbol.tojson reads it; execution ignores hidden outputs."""
    from ..registry import get_op

    get_op(op_name).json_num_outputs = count
