"""NDArray: MXNet's eager array, backed by one numpy array.

Operators broadcast (as MXNet's NDArray operators do, unlike Symbol's), scalars are cast to the
array's dtype first (int32 * 2.5 multiplies by 2, as in MXNet), results of a 0-d computation are
shape (1,) because MXNet 1.x has no scalars.
"""

import operator
from typing import Any, Tuple

import numpy as np

from ..base import MXNetError, mx_real_t, _type_name
from ..context import Context, cpu, cpu_only
from ..registry import fmt_shape as _fmt_shape

__all__ = ["NDArray", "array", "empty", "wrap", "waitall", "concatenate", "from_numpy"]

_ndarray_new = object.__new__
_np_ndarray = np.ndarray
_CPU = cpu()


def wrap(data: np.ndarray) -> "NDArray":
    """Fast constructor used by every op: no copy, no checks."""
    nd = _ndarray_new(NDArray)
    nd._data = data
    return nd


# MXNet's eager dtype check failure; register.py's type_mismatch words its verdicts with it
_ASSIGN_FAILED = "Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node  at "


def _dtype_error(op_name: str, want: np.dtype, got: np.dtype) -> MXNetError:
    """MXNet's imperative dtype check of a binary operator (`a + b` runs broadcast_add, whose
    inputs must share one dtype: numpy would promote float32 + float64 to float64)."""
    return MXNetError(
        "Error in operator {}: {}1-th input: expected {}, got {}".format(
            op_name, _ASSIGN_FAILED, want.name, got.name
        )
    )


def _broadcast_op(op_name: str):
    """The registered `op_name` OpDef (broadcast_add ...), looked up on first use: the ops
    register after this module is imported."""
    from ..registry import get_op

    return get_op(op_name)


def _binary(np_fn, as_dtype=False, op_name="broadcast_op"):
    """An NDArray operator: NDArray or scalar operand (cast to the array's dtype). An NDArray
    operand runs the registered `op_name` kernel (the broadcast op MXNet's operator calls,
    so the operator and `mx.nd.<op_name>` cannot drift apart) after MXNet's dtype and
    broadcast checks, which keep the operator's own messages."""
    opdef = []

    def op(self, other):
        a = self._data
        if isinstance(other, NDArray):
            b = other._data
            if b.dtype is not a.dtype and b.dtype != a.dtype:
                raise _dtype_error(op_name, a.dtype, b.dtype)
            if a.shape != b.shape:
                _check_broadcast(a.shape, b.shape)
            if not opdef:
                opdef.append(_broadcast_op(op_name))
                opdef.append(opdef[0].parse({}))
            r = opdef[0].kernel(opdef[1], a, b)  # keeps a's dtype
        else:
            if isinstance(other, (int, float, bool, np.generic)):
                b = a.dtype.type(other)
            elif isinstance(other, np.ndarray):
                b = other.astype(a.dtype, copy=False)
            else:
                return NotImplemented
            r = np_fn(a, b)
            if as_dtype:
                r = r.astype(a.dtype)
        return wrap(r if type(r) is _np_ndarray else np.asarray(r, dtype=a.dtype).reshape(1))

    return op


def _rbinary(np_fn):
    def op(self, other):
        a = self._data
        if isinstance(other, (int, float, bool, np.generic)):
            r = np_fn(a.dtype.type(other), a)
        elif isinstance(other, np.ndarray):
            r = np_fn(other.astype(a.dtype, copy=False), a)
        else:
            return NotImplemented
        return wrap(r if type(r) is _np_ndarray else np.asarray(r, dtype=a.dtype).reshape(1))

    return op


def _inplace(np_fn, op_name="broadcast_op"):
    """`a op= b`: an NDArray operand runs the registered `op_name` op's out= kernel into `a`
    (as MXNet runs the broadcast op with out=self); a scalar is cast to a's dtype first."""
    opdef = []

    def op(self, other):
        a = self._data
        if isinstance(other, NDArray):
            b = other._data
            if b.dtype is not a.dtype and b.dtype != a.dtype:
                raise _dtype_error(op_name, a.dtype, b.dtype)
            if not opdef:
                opdef.append(_broadcast_op(op_name))
                opdef.append(opdef[0].parse({}))
            run = opdef[0].out_kernel
        elif isinstance(other, (int, float, bool, np.generic)):
            b = a.dtype.type(other)
            run = None
        else:
            return NotImplemented
        try:
            if run is not None:
                run(opdef[1], a, a, b)
            else:
                np_fn(a, b, out=a, casting="unsafe")
        except ValueError:
            raise MXNetError(
                "in-place operation: shape {} cannot receive a result broadcast with {}".format(
                    _fmt_shape(a.shape), _fmt_shape(np.shape(b))
                )
            ) from None
        return self

    return op


def _check_broadcast(lhs, rhs) -> None:
    """MXNet's broadcast rule: same ndim after left-padding, each pair equal or one is 1."""
    n = max(len(lhs), len(rhs))
    lp = (1,) * (n - len(lhs)) + tuple(lhs)
    rp = (1,) * (n - len(rhs)) + tuple(rhs)
    for x, y in zip(lp, rp):
        if x != y and x != 1 and y != 1:
            raise MXNetError(
                "Check failed: l == 1 || r == 1: operands could not be broadcast "
                "together with shapes {} {}".format(_fmt_shape(lhs), _fmt_shape(rhs))
            )


def _true_divide(a, b):
    """Integer division truncates toward zero and keeps the integer dtype, as MXNet's does."""
    if a.dtype.kind in "iu":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.true_divide(a, b).astype(a.dtype)
    return np.true_divide(a, b)


class NDArray:
    """An n-dimensional array on cpu(0), backed by numpy (`asnumpy()` returns a copy)."""

    __slots__ = ("_data", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, data, ctx=None, dtype=None):
        cpu_only(ctx)
        if isinstance(data, NDArray):
            data = data._data
        self._data = np.array(data, dtype=dtype)

    # ----------------------------------------------------------------- properties
    @property
    def shape(self):
        return self._data.shape

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def dtype(self):
        """The numpy scalar type (np.float32), as MXNet returns it, not an np.dtype."""
        return self._data.dtype.type

    @property
    def context(self) -> Context:
        return _CPU

    ctx = context

    @property
    def stype(self) -> str:
        return "default"

    @property
    def grad(self):
        return None

    @property
    def T(self) -> "NDArray":
        if self._data.ndim < 2:
            return self
        return wrap(np.ascontiguousarray(self._data.T))

    @property
    def handle(self):
        return id(self._data)

    # ----------------------------------------------------------------- conversion
    def asnumpy(self) -> np.ndarray:
        return self._data.copy()

    def asscalar(self):
        if self._data.size != 1:
            raise ValueError("The current array is not a scalar")
        return self._data.reshape(-1)[0]

    def wait_to_read(self) -> None:
        """Computation is synchronous here; nothing to wait for."""

    def wait_to_write(self) -> None:
        """Computation is synchronous here; nothing to wait for."""

    def astype(self, dtype, copy: bool = True) -> "NDArray":
        dt = np.dtype(dtype)
        if not copy and dt == self._data.dtype:
            return self
        return wrap(self._data.astype(dt))

    def copy(self) -> "NDArray":
        return wrap(self._data.copy())

    def copyto(self, other):
        if isinstance(other, NDArray):
            if other is self:
                return self
            if other.shape != self.shape:
                raise MXNetError(
                    "copyto: shape mismatch {} vs {}".format(
                        _fmt_shape(self.shape), _fmt_shape(other.shape)
                    )
                )
            other._data[...] = self._data
            return other
        if isinstance(other, Context):
            cpu_only(other)
            return self.copy()
        raise TypeError("copyto does not support type " + _type_name(other))

    def as_in_context(self, context) -> "NDArray":
        cpu_only(context)
        return self

    as_in_ctx = as_in_context

    def attach_grad(self, grad_req="write", stype=None) -> None:
        """Inference-only engine: gradients are not tracked."""

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        """The engine computes no gradients: a clear gap (code that needs them, a module's
        demo of a gradient, is verified with `--backend mxnet`), never a made-up gradient."""
        from ..base import engine_not_implemented

        engine_not_implemented("ndarray.NDArray.backward (gradients)")

    def detach(self) -> "NDArray":
        return wrap(self._data)

    def tostype(self, stype):
        if stype != "default":
            from ..base import engine_not_implemented

            engine_not_implemented("ndarray.tostype('%s')" % stype)
        return self

    # ----------------------------------------------------------------- python protocol
    def __repr__(self) -> str:
        shape_info = "x".join(str(d) for d in self._data.shape)
        return "\n%s\n<%s %s @%s>" % (
            str(self._data),
            type(self).__name__,
            shape_info,
            self.context,
        )

    __str__ = __repr__

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of unsized object")
        return self._data.shape[0]

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __bool__(self) -> bool:
        n = self._data.size
        if n == 0:
            return False
        if n == 1:
            return bool(self._data.reshape(-1)[0])
        raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")

    __nonzero__ = __bool__

    def __hash__(self) -> int:
        return id(self) // 16

    def __array__(self, dtype=None, copy=None):
        return self._data if dtype is None else self._data.astype(dtype)

    def __getstate__(self):
        return {"data": self._data}

    def __setstate__(self, state):
        self._data = state["data"]

    def __reduce__(self):
        return (_from_state, (self._data,))

    # ----------------------------------------------------------------- indexing
    def __getitem__(self, key):
        key = _index(key)
        r = self._data[key]
        if type(r) is not _np_ndarray:
            r = np.asarray(r, dtype=self._data.dtype)
        elif not r.flags.c_contiguous:
            r = r.copy()  # MXNet shares memory only for contiguous (first-axis) slices
        if r.ndim == 0:
            r = r.reshape(1)
        return wrap(r)

    def __setitem__(self, key, value):
        key = _index(key)
        if isinstance(value, NDArray):
            value = value._data
        if isinstance(value, np.ndarray) and _is_basic_key(key):
            value = _basic_value(value, self._data[key].shape)
        self._data[key] = value

    # ----------------------------------------------------------------- arithmetic
    __add__ = __radd__ = _binary(np.add, op_name="broadcast_add")
    __sub__ = _binary(np.subtract, op_name="broadcast_sub")
    __rsub__ = _rbinary(np.subtract)
    __mul__ = __rmul__ = _binary(np.multiply, op_name="broadcast_mul")
    __truediv__ = _binary(_true_divide, op_name="broadcast_div")
    __rtruediv__ = _rbinary(_true_divide)
    __div__ = __truediv__
    __rdiv__ = __rtruediv__
    __mod__ = _binary(np.mod, op_name="broadcast_mod")  # the divisor's sign, as MXNet's mod
    __rmod__ = _rbinary(np.mod)
    __pow__ = _binary(np.power, op_name="broadcast_power")
    __rpow__ = _rbinary(np.power)
    __eq__ = _binary(np.equal, True, "broadcast_equal")
    __ne__ = _binary(np.not_equal, True, "broadcast_not_equal")
    __lt__ = _binary(np.less, True, "broadcast_lesser")
    __le__ = _binary(np.less_equal, True, "broadcast_lesser_equal")
    __gt__ = _binary(np.greater, True, "broadcast_greater")
    __ge__ = _binary(np.greater_equal, True, "broadcast_greater_equal")
    __iadd__ = _inplace(np.add, "broadcast_add")
    __isub__ = _inplace(np.subtract, "broadcast_sub")
    __imul__ = _inplace(np.multiply, "broadcast_mul")
    __itruediv__ = _inplace(np.true_divide, "broadcast_div")
    __idiv__ = __itruediv__
    __imod__ = _inplace(np.mod, "broadcast_mod")

    def __neg__(self) -> "NDArray":
        return wrap(np.negative(self._data))

    def __abs__(self) -> "NDArray":
        return wrap(np.abs(self._data))

    def __pos__(self) -> "NDArray":
        return self

    # ----------------------------------------------------------------- fluent methods
    def reshape(self, *shape, **kwargs) -> "NDArray":
        """MXNet's reshape with special codes 0/-1/-2/-3/-4 and `reverse`.

        As MXNet 1.9.1's NDArray.reshape: the shape may be n ints (`x.reshape(2, 3)`, which a
        Symbol does NOT accept: there the ints bind to `shape, reverse, ...`), one tuple or
        list, or `shape=`; only `shape` and `reverse` are keywords. A target smaller than the
        array is MXNet's Python-side ValueError, a larger one its C++ check (MXNetError)."""
        dims: Any = shape  # n ints, or one tuple or list, or shape=
        if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
            dims = dims[0]
        elif not dims:
            dims = kwargs.get("shape")
            assert dims, "Shape must be provided."
        unknown = [k for k in kwargs if k not in ("shape", "reverse")]
        if unknown:
            raise TypeError(
                "Got unknown keywords in reshape: {}. Accepted keyword arguments are "
                "'shape' and 'reverse'.".format(", ".join(unknown))
            )
        codes = tuple(operator.index(d) for d in dims)  # MXNet: a c_int64 array (TypeError)
        from ..ops.shape import infer_reshape
        from ..registry import ShapeError

        try:
            new = infer_reshape(
                self._data.shape, codes, bool(kwargs.get("reverse", False)), check_size=False
            )
        except ShapeError as err:
            raise MXNetError(str(err)) from None
        size, target = self._data.size, int(np.prod(new, dtype=np.int64))
        if target > size:
            raise MXNetError(
                "NDArray.Reshape: Check failed: shape_.Size() >= shape.Size() ({} vs. "
                "{}) : target shape size is larger than the current shape".format(size, target)
            )
        if target != size:
            raise ValueError("Cannot reshape array of size {} into shape {}".format(size, dims))
        return wrap(self._data.reshape(new))

    # MXNet 1.9.1's NDArray writes these five with their own signatures instead of forwarding
    # to the operator with **kwargs (Symbol's do forward): an operator parameter such as
    # `lhs_axes=` or `name=` is a TypeError eagerly, though the same call works hybridized.
    def broadcast_to(self, shape) -> "NDArray":
        """MXNet 1.9.1's NDArray method is Python, not the operator: the shape may add
        leading axes (read as 1s), and each size is literal (a 0 fails here, where
        `nd.broadcast_to`'s 0 keeps the dim), checked with its message."""
        current = tuple(self.shape)
        message = (
            "operands could not be broadcast together with remapped shapes"
            "[original->remapped]: {} and requested shape {}".format(current, shape)
        )
        if len(shape) < len(current):
            raise ValueError(message)
        remapped = (1,) * (len(shape) - len(current)) + current
        if any(have != want and have != 1 for have, want in zip(remapped, shape)):
            raise ValueError(message)
        data = self.reshape(remapped) if remapped != current else self
        return _fluent("broadcast_to")(data, shape=tuple(shape))

    def broadcast_like(self, other) -> "NDArray":
        """`self.broadcast_to(other.shape)`, as MXNet 1.9.1's method is (no axes)."""
        return self.broadcast_to(other.shape)

    def expand_dims(self, axis, inplace=False) -> "NDArray":
        return _fluent("expand_dims")(self, axis=axis)

    def squeeze(self, axis=None, inplace=False) -> "NDArray":
        return _fluent("squeeze")(self, axis=axis)

    def flatten(self, inplace=False) -> "NDArray":
        return _fluent("flatten")(self)

    def __getattr__(self, name):
        if name in _FLUENT:
            op = _fluent(name)

            def method(*args, **kwargs):
                return op(self, *args, **kwargs)

            return method
        raise AttributeError("'NDArray' object has no attribute '%s'" % name)


# Methods MXNet's NDArray forwards to the op of the same name (resolved when called, so ops
# registered later by other modules are found).
_FLUENT = frozenset(
    """
zeros_like ones_like broadcast_axes repeat pad swapaxes split split_v2 slice slice_axis
slice_like take one_hot pick sort topk argsort argmax argmax_channel argmin clip abs sign
flatten shape_array size_array expand_dims tile transpose flip depth_to_space space_to_depth
diag sum nansum prod nanprod mean max min norm round rint fix floor ceil trunc sin cos tan
arcsin arccos arctan degrees radians sinh cosh tanh arcsinh arccosh arctanh exp expm1 log
log10 log2 log1p sqrt rsqrt cbrt rcbrt square reciprocal relu sigmoid softmax log_softmax
softmin squeeze broadcast_like reshape_like
""".split()
)


def _fluent(name):
    from . import op_namespace

    return getattr(op_namespace(), name)


def _from_state(data):
    return wrap(data)


def _index(key):
    """Turn NDArray indices into numpy ones (MXNet accepts NDArrays and lists as indices);
    a string or float key is MXNet's ValueError, not numpy's IndexError."""
    if isinstance(key, NDArray):
        return key._data.astype(np.int64)
    if isinstance(key, tuple):
        for k in key:
            _refuse_key(k)
        return tuple(k._data.astype(np.int64) if isinstance(k, NDArray) else k for k in key)
    _refuse_key(key)
    return key


def _refuse_key(key) -> None:
    if isinstance(key, (str, float, dict, set)):
        raise ValueError(
            "NDArray does not support slicing with key {} of type {}.".format(key, type(key))
        )


def _is_basic_key(key) -> bool:
    """Integers, slices and Ellipsis only (MXNet's basic indexing without None)."""
    parts = key if isinstance(key, tuple) else (key,)
    return all(
        k is Ellipsis
        or isinstance(k, slice)
        or (isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)))
        for k in parts
    )


def _basic_value(value: np.ndarray, region: Tuple[int, ...]) -> np.ndarray:
    """An array value for `x[key] = value` (basic `key`) made as MXNet 1.9.1's
    `_prepare_value_nd` makes it: the region's shape without its integer axes, (1,) when
    every axis is an integer (`x[b, k, 0] = y[i]`: the (1,) NDArray indexing returns fits,
    where numpy 2 refuses a sequence for one element); leading size-1 axes beyond that are
    dropped, then the value is broadcast to it (MXNet's `broadcast_to`, its ValueError)."""
    shape = region or (1,)
    while value.ndim > len(shape) and value.shape[0] == 1:
        value = value.reshape(value.shape[1:])
    if value.size == 0:
        return value.reshape(region)
    cur = (1,) * (len(shape) - value.ndim) + value.shape
    if value.ndim > len(shape) or any(c not in (1, s) for c, s in zip(cur, shape)):
        raise ValueError(
            "operands could not be broadcast together with remapped shapes"
            "[original->remapped]: {} and requested shape {}".format(value.shape, shape)
        )
    return np.broadcast_to(value.reshape(cur), shape).reshape(region)


def array(source_array, ctx=None, dtype=None) -> NDArray:
    """mx.nd.array: a copy of `source_array`, float32 unless `dtype` (or an NDArray source)."""
    cpu_only(ctx)
    if isinstance(source_array, NDArray):
        dt = source_array._data.dtype if dtype is None else np.dtype(dtype)
        return wrap(source_array._data.astype(dt))
    dt = mx_real_t if dtype is None else np.dtype(dtype)
    try:
        data = np.array(source_array, dtype=dt)
    except (TypeError, ValueError) as err:
        raise TypeError("source_array must be array like object: {}".format(err)) from None
    if data.ndim == 0:
        data = data.reshape(1)
    return wrap(data)


def from_numpy(ndarray, zero_copy: bool = True) -> NDArray:
    """An NDArray over a numpy array (shared unless zero_copy=False)."""
    return wrap(ndarray if zero_copy else ndarray.copy())


def empty(shape, ctx=None, dtype=None) -> NDArray:
    """An uninitialised NDArray (float32 unless `dtype`)."""
    cpu_only(ctx)
    if isinstance(shape, int):
        shape = (shape,)
    return wrap(np.empty(shape, dtype=mx_real_t if dtype is None else np.dtype(dtype)))


def waitall() -> None:
    """Computation is synchronous here; nothing to wait for."""


def concatenate(arrays, axis: int = 0, always_copy: bool = True) -> NDArray:
    """Join NDArrays along `axis` (MXNet's Python helper)."""
    return wrap(np.concatenate([a._data for a in arrays], axis=axis))
