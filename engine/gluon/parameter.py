"""`gluon.Parameter`, `gluon.Constant`, `gluon.ParameterDict` with MXNet 1.9.1's behaviour.

A Parameter holds its value as one NDArray (the engine has a single device, cpu(0)); shape
inference may leave dims at 0 until the first forward pass fills them ("deferred
initialisation"), exactly as in MXNet, so `Dense(120)` without `in_units` works eagerly and
hybridized. Error messages and assertion types follow MXNet, because user code and the
equivalence checker compare against what real MXNet raises.
"""

import warnings
from typing import Any, List, Optional, Tuple, cast

import numpy as np

from .. import context as _context
from .. import initializer
from ..base import MXNetError, mx_real_t
from ..ndarray import NDArray
from ..symbol import Symbol
from .utils import shape_is_known

__all__ = ["DeferredInitializationError", "Parameter", "Constant", "ParameterDict", "tensor_types"]


# Bumped whenever any Parameter's arrays are replaced (not merely overwritten in place), so a
# hybridized block's cached argument list knows when it must be rebuilt.
_EPOCH = [0]


class DeferredInitializationError(MXNetError):
    """Error for unfinished deferred initialization."""


def _check(cond: bool, msg: str) -> None:
    """MXNet uses `assert` for these checks; raise AssertionError the same way, even under -O."""
    if not cond:
        raise AssertionError(msg)


def _as_ctx_list(ctx) -> List[_context.Context]:
    if ctx is None:
        return [_context.current_context()]
    if isinstance(ctx, _context.Context):
        return [ctx]
    return list(ctx)


class Parameter:
    """A named weight of a Block: shape, dtype, initializer, and (once initialised) its value."""

    def __init__(
        self,
        name: str,
        grad_req: str = "write",
        shape=None,
        dtype=mx_real_t,
        lr_mult: float = 1.0,
        wd_mult: float = 1.0,
        init=None,
        allow_deferred_init: bool = False,
        differentiable: bool = True,
        stype: str = "default",
        grad_stype: str = "default",
    ):
        self._var: Optional[Symbol] = None
        self._data: Optional[List[NDArray]] = None
        self._grad: Optional[List[NDArray]] = None
        self._ctx_list: Optional[List[_context.Context]] = None
        # () or (init, ctx, default_init, data): what initialize() recorded for later
        self._deferred_init: Tuple[Any, ...] = ()
        self._differentiable = differentiable
        self._allow_deferred_init = allow_deferred_init
        self._grad_req = ""  # set (checked) by the grad_req setter below
        if isinstance(shape, int):
            shape = (shape,)
        self._shape = shape
        self.name = name
        self._dtype = dtype
        self.lr_mult = lr_mult
        self.wd_mult = wd_mult
        self.grad_req = grad_req
        self.init = init
        for what, value in (("grad_stype", grad_stype), ("stype", stype)):
            _check(
                value in ("default", "row_sparse", "csr"),
                "%s for Parameter '%s' must be one of 'default', 'row_sparse', or 'csr', "
                "but got '%s'" % (what, name, value),
            )
        if stype != "default":
            from ..base import engine_not_implemented

            engine_not_implemented("gluon.Parameter(stype=%r)" % stype)
        self._grad_stype = grad_stype
        self._stype = stype

    def __repr__(self) -> str:
        return "Parameter {name} (shape={shape}, dtype={dtype})".format(
            name=self.name, shape=self.shape, dtype=self.dtype
        )

    @property
    def grad_req(self) -> str:
        return self._grad_req

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        _check(
            req in ("write", "add", "null"),
            "grad_req must be one of 'write', 'add', or 'null', but got '%s'" % req,
        )
        if not self._differentiable:
            req = "null"
        if self._grad_req == req:
            return
        self._grad_req = req
        if req == "null":
            self._grad = None

    @property
    def dtype(self):
        return self._dtype

    @dtype.setter
    def dtype(self, dtype) -> None:
        self.cast(dtype)

    @property
    def shape(self):
        return self._shape

    @shape.setter
    def shape(self, new_shape) -> None:
        if self._shape is None:
            self._shape = new_shape
            return
        _check(
            len(self._shape) == len(new_shape)
            and all(j in (-1, 0, i) for i, j in zip(new_shape, self._shape)),
            "Expected shape %s is incompatible with given shape %s."
            % (str(new_shape), str(self._shape)),
        )
        self._shape = tuple(new_shape)

    def row_sparse_data(self, row_id):
        from ..base import engine_not_implemented

        engine_not_implemented("gluon.Parameter.row_sparse_data")

    def list_row_sparse_data(self, row_id):
        from ..base import engine_not_implemented

        engine_not_implemented("gluon.Parameter.list_row_sparse_data")

    # ------------------------------------------------------------------ value access
    def _check_and_get(self, arr_list, ctx):
        if arr_list is not None:
            if ctx is list:
                return arr_list
            if ctx is None:
                if len(arr_list) == 1:
                    return arr_list[0]
                ctx = _context.current_context()
            if ctx in self._ctx_list:
                return arr_list[self._ctx_list.index(ctx)]
            raise RuntimeError(
                "Parameter '%s' was not initialized on context %s. It was only initialized "
                "on %s." % (self.name, str(ctx), str(self._ctx_list))
            )
        if self._deferred_init:
            raise DeferredInitializationError(
                "Parameter '%s' has not been initialized yet because initialization was "
                "deferred. Actual initialization happens during the first forward pass. "
                "Please pass one batch of data through the network before accessing "
                "Parameters. You can also avoid deferred initialization by specifying "
                "in_units, num_features, etc., for network layers." % (self.name)
            )
        raise RuntimeError(
            "Parameter '%s' has not been initialized. Note that you should initialize "
            "parameters and create Trainer with Block.collect_params() instead of "
            "Block.params because the later does not include Parameters of nested child "
            "Blocks" % (self.name)
        )

    def data(self, ctx=None):
        """The value as an NDArray (raises if uninitialised or still deferred)."""
        data = self._data
        if data is not None and ctx is None and len(data) == 1:
            return data[0]
        return self._check_and_get(data, ctx)

    def list_data(self) -> list:
        return self._check_and_get(self._data, list)

    def grad(self, ctx=None):
        """Gradient buffer (zeros: the engine runs inference only)."""
        if self._data is not None and self._grad is None:
            if self.grad_req == "null":
                raise RuntimeError(
                    "Cannot get gradient array for Parameter '%s' because "
                    "grad_req='null'" % (self.name)
                )
            self._init_grad()
        return self._check_and_get(self._grad, ctx)

    def list_grad(self) -> list:
        if self._data is not None and self._grad is None:
            if self.grad_req == "null":
                raise RuntimeError(
                    "Cannot get gradient array for Parameter '%s' because "
                    "grad_req='null'" % (self.name)
                )
            self._init_grad()
        return self._check_and_get(self._grad, list)

    def list_ctx(self) -> list:
        if self._data is None:
            if self._deferred_init:
                return self._deferred_init[1]
            raise RuntimeError("Parameter '%s' has not been initialized" % self.name)
        return cast(List[_context.Context], self._ctx_list)  # set together with _data

    def zero_grad(self) -> None:
        if self._grad is None:
            return
        for g in self._grad:
            g[:] = 0

    def _init_grad(self) -> None:
        from .. import ndarray

        if self.grad_req == "null":
            self._grad = None
            return
        self._grad = [
            ndarray.zeros(shape=i.shape, dtype=i.dtype, ctx=i.context)
            for i in cast(List[NDArray], self._data)
        ]  # called once data is set

    # ------------------------------------------------------------------ initialisation
    def initialize(
        self, init=None, ctx=None, default_init=None, force_reinit: bool = False
    ) -> None:
        """Create the value now, or record how to once shape inference has run."""
        if default_init is None:
            default_init = initializer.Uniform()
        if self._data is not None and not force_reinit:
            warnings.warn(
                "Parameter '%s' is already initialized, ignoring. "
                "Set force_reinit=True to re-initialize." % self.name,
                stacklevel=2,
            )
            return
        self._data = self._grad = None
        _EPOCH[0] += 1
        ctx = _as_ctx_list(ctx)
        if init is None:
            init = default_init if self.init is None else self.init
        if not shape_is_known(self.shape):
            if self._allow_deferred_init:
                self._deferred_init = (init, ctx, default_init, None)
                return
            raise ValueError(
                "Cannot initialize Parameter '%s' because it has invalid shape: "
                "%s." % (self.name, str(self.shape))
            )
        self._deferred_init = (init, ctx, default_init, None)
        self._finish_deferred_init()

    def _finish_deferred_init(self) -> None:
        if not self._deferred_init:
            return
        init, ctx, default_init, data = self._deferred_init
        self._deferred_init = ()
        _check(
            shape_is_known(self.shape),
            "Cannot initialize Parameter '%s' because it has invalid shape: %s. Please "
            "specify in_units, in_channels, etc for `Block`s." % (self.name, str(self.shape)),
        )
        if data is None:
            from .. import ndarray

            data = ndarray.zeros(shape=self.shape, dtype=self.dtype, ctx=_context.cpu())
            initializer.create(default_init)(
                initializer.InitDesc(self.name, {"__init__": init}), data
            )
        self._init_impl(data, ctx)

    def _init_impl(self, data, ctx_list) -> None:
        self._ctx_list = list(ctx_list)
        self._data = [data.copyto(ctx) for ctx in self._ctx_list]
        self._grad = None
        _EPOCH[0] += 1

    def _load_init(
        self, data, ctx, cast_dtype: bool = False, dtype_source: str = "current"
    ) -> None:
        """(Re)initialise from loaded data, checking shape and dtype as MXNet does."""
        if cast_dtype:
            _check(dtype_source in ("current", "saved"), "dtype_source must be current or saved")
        if self.shape:
            for self_dim, data_dim in zip(self.shape, data.shape):
                _check(
                    self_dim in (0, data_dim),
                    "Failed loading Parameter '%s' from saved params: shape incompatible "
                    "expected %s vs saved %s" % (self.name, str(self.shape), str(data.shape)),
                )
            self.shape = tuple(i if i != 0 else j for i, j in zip(self.shape, data.shape))
        if self.dtype:
            if cast_dtype and np.dtype(self.dtype).type != data.dtype:
                if dtype_source == "current":
                    data = data.astype(self.dtype, copy=False)
                else:
                    self.dtype = data.dtype
            else:
                _check(
                    np.dtype(self.dtype).type == data.dtype,
                    "Failed loading Parameter '%s' from saved params: dtype incompatible "
                    "expected %s vs saved %s. Set cast_dtype=True to cast the dtype of saved "
                    "params." % (self.name, str(self.dtype), str(data.dtype)),
                )
        if isinstance(ctx, _context.Context):
            ctx = [ctx]
        if self._data is None:
            if self._deferred_init:
                _check(
                    ctx is None or set(ctx) == set(self._deferred_init[1]),
                    "Failed to load Parameter '%s' on %s because it was previous "
                    "initialized on %s." % (self.name, str(ctx), str(self.list_ctx())),
                )
                ctx = self._deferred_init[1]
            elif ctx is None:
                ctx = [_context.cpu()]
            self._init_impl(data, ctx)
        else:
            _check(
                ctx is None or set(ctx) == set(self.list_ctx()),
                "Failed to load Parameter '%s' on %s because it was previous initialized "
                "on %s." % (self.name, str(ctx), str(self.list_ctx())),
            )
            self.set_data(data)
        self._deferred_init = ()

    def set_data(self, data) -> None:
        """Overwrite the value in place (shape must be compatible)."""
        self.shape = data.shape
        if self._data is None:
            _check(bool(self._deferred_init), "Parameter '%s' has not been initialized" % self.name)
            self._deferred_init = self._deferred_init[:3] + (data,)
            return
        for arr in self._check_and_get(self._data, list):
            arr[:] = data

    def reset_ctx(self, ctx) -> None:
        """Move to other contexts (only cpu exists in the engine)."""
        ctx = _as_ctx_list(ctx)
        if self._data:
            data = self._reduce()
            self._init_impl(data, ctx)
        elif self._deferred_init:
            init, _, default_init, data = self._deferred_init
            self._deferred_init = (init, ctx, default_init, data)
        else:
            raise ValueError(
                "Cannot reset context for Parameter '%s' because it has not been "
                "initialized." % self.name
            )

    def _reduce(self):
        """The value on cpu (MXNet averages copies across devices; we hold one)."""
        block = self.list_data()
        return block[0].copyto(_context.cpu())

    def var(self):
        """The Symbol variable standing for this parameter in a traced graph."""
        if self._var is None:
            from .. import symbol

            self._var = symbol.var(
                self.name,
                shape=self.shape,
                dtype=self.dtype,
                lr_mult=self.lr_mult,
                wd_mult=self.wd_mult,
                init=self.init,
                stype=self._stype,
            )
        return self._var

    def cast(self, dtype) -> None:
        self._dtype = dtype
        self._var = None
        if self._data is None:
            return
        self._data = [i.astype(dtype) for i in self._data]
        self._grad = None
        _EPOCH[0] += 1


class Constant(Parameter):
    """A non-trainable value (grad_req 'null') initialised from a fixed array."""

    def __init__(self, name: str, value):
        from .. import ndarray

        if not hasattr(value, "asnumpy"):
            value = ndarray.array(value)
        self.value = value

        class Init(initializer.Initializer):
            def _init_weight(self, _, arr):
                value.copyto(arr)

        init_name = "Constant_{}_{}".format(name, id(self))
        initializer.alias(init_name)(Init)
        super().__init__(
            name, grad_req="null", shape=value.shape, dtype=value.dtype, init=init_name
        )

    def __repr__(self) -> str:
        return "Constant {name} (shape={shape}, dtype={dtype})".format(
            name=self.name, shape=self.shape, dtype=self.dtype
        )

    @property
    def grad_req(self) -> str:
        return "null"

    @grad_req.setter
    def grad_req(self, req: str) -> None:
        self._grad_req = "null"
        if req != "null":
            warnings.warn(
                'Constant parameter "{}" does not support grad_req other than '
                '"null", and new value "{}" is ignored.'.format(self.name, req),
                stacklevel=1,
            )


# What Gluon accepts as a tensor argument.
tensor_types = (Symbol, NDArray)


from .parameter_dict import ParameterDict  # noqa: E402  (it builds on Parameter/Constant)
