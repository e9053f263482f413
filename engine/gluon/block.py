"""`gluon.Block` and `gluon.HybridBlock` with MXNet 1.9.1's semantics (SymbolBlock lives in
symbol_block.py, nested-argument helpers in _args.py, `summary` in summary.py).

The parts hybridlint relies on most:
- naming: prefixes come from the enclosing `name_scope()` (`net0_dense0_`) or a global counter
  per class name (`dense0_`), and ops traced inside a block's scope are named with its prefix;
- hybridization: the first call of an active HybridBlock traces `hybrid_forward` once with
  `F = mx.sym` (inputs `data` or `data0, data1, ...`, parameters as `var()`), and builds an
  `mx.nd.CachedOp`; later calls run that plan without calling Python `hybrid_forward`;
- the hybridized call path is tiny: `_FastCall` holds the argument template in the CachedOp's
  input order so a call is a type check, one list copy and the plan (see benchmarks/).
"""

import linecache
import os
import re
import threading
import traceback
import warnings
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional, Tuple

from .. import name as _name
from .. import ndarray, symbol
from ..base import MXNetError, engine_not_implemented
from .._fastpaths import FAST as _FAST
from ..compat import proxy_of
from ..context import _CPU0
from ..context import _CURRENT as _CONTEXT_LOCAL
from ..ndarray import NDArray
from .parameter import _EPOCH, DeferredInitializationError, Parameter, ParameterDict
from ._args import _flatten, _gather_type_ctx_info, _regroup
from .utils import HookHandle, _indent

__all__ = ["Block", "HybridBlock"]

# The `F` handed to hybrid_forward: mxnet.ndarray / mxnet.symbol as user code sees them.
_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _name_user_line(err: Exception) -> None:
    """Add the innermost user frame of `err`'s traceback ("created at file:line: text") to
    its message and as `err.source_line`, unless it names one already (graph errors do).
    Errors that format their own message (NotImplementedForSymbol: MXNet's exact text) only
    get the attribute."""
    if getattr(err, "source_line", None):
        return
    where = None
    for frame, lineno in traceback.walk_tb(err.__traceback__):
        filename = frame.f_code.co_filename
        if not filename.startswith(_ENGINE_DIR):
            where = (filename, lineno, linecache.getline(filename, lineno).strip())
    if where is None:
        return
    err.source_line = where  # type: ignore[attr-defined]  # any exception type: see above
    if err.args and str(err) == str(err.args[0]):
        err.args = ("{}\n  created at {}:{}: {}".format(err.args[0], *where),) + tuple(err.args[1:])


_F_NDARRAY = proxy_of(ndarray)
_F_SYMBOL = proxy_of(symbol)


class _BlockScope:
    """Scope collecting child Blocks: hands out prefixes (`dense0_`) inside `name_scope()`."""

    _current = threading.local()

    def __init__(self, block: "Block"):
        self._block = block
        self._counter: Dict[str, int] = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix: Optional[str], params: Optional[ParameterDict], hint: str):
        """The (prefix, ParameterDict) of a new Block, as MXNet derives them."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = _name.current().get(None, hint) + "_"
            if params is None:
                params = ParameterDict(prefix)
            else:
                params = ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = "%s%d_" % (hint, count)
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = _name.Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, ptype, value, trace):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(ptype, value, trace)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


# ----------------------------------------------------------------------------- Block


class Block:
    """Base class of all layers and models (see MXNet's `gluon.Block`)."""

    def __init__(self, prefix: Optional[str] = None, params: Optional[ParameterDict] = None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        # Blocks; typed loosely so a subclass's children keep their own API (cells: reset())
        self._children: "OrderedDict[str, Any]" = OrderedDict()
        self._reg_params: Dict[str, Parameter] = {}
        self._forward_hooks: "OrderedDict[int, Callable[..., Any]]" = OrderedDict()
        self._forward_pre_hooks: "OrderedDict[int, Callable[..., Any]]" = OrderedDict()

    def __repr__(self) -> str:
        modstr = "\n".join(
            [
                "  ({key}): {block}".format(key=key, block=_indent(repr(block), 2))
                for key, block in self.__dict__.items()
                if isinstance(block, Block)
            ]
        )
        return "{name}(\n{modstr}\n)".format(name=self.__class__.__name__, modstr=modstr)

    def __setattr__(self, name: str, value) -> None:
        """Registers child Blocks and Parameters assigned as attributes."""
        if hasattr(self, name):
            existing = getattr(self, name)
            if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
                raise TypeError(
                    "Changing attribute type for {name} from {type1} to {type2}"
                    "is not allowed.".format(name=name, type1=type(existing), type2=type(value))
                )
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            if name in self._reg_params:
                raise AssertionError(
                    "Overriding Parameter attribute %s is not allowed. If you want to share "
                    "parameters between blocks, please set 'params' at Block construction "
                    "instead." % name
                )
            self._reg_params[name] = value
        super().__setattr__(name, value)

    def _check_container_with_block(self) -> None:
        children = set(self._children.values())

        def unregistered(data) -> bool:
            if isinstance(data, (list, tuple)):
                return any(unregistered(e) for e in data)
            if isinstance(data, dict):
                return any(unregistered(v) for v in data.values())
            if isinstance(data, Block):
                return data not in children
            return False

        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith("__") or k == "_children"):
                if unregistered(v):
                    warnings.warn(
                        '"{name}" is an unregistered container with Blocks. Note that '
                        "Blocks inside the list, tuple or dict will not be registered "
                        "automatically. Make sure to register them using "
                        "register_child() or switching to "
                        "nn.Sequential/nn.HybridSequential instead. ".format(
                            name=self.__class__.__name__ + "." + k
                        ),
                        stacklevel=3,
                    )

    def _alias(self) -> str:
        return self.__class__.__name__.lower()

    @property
    def prefix(self) -> str:
        return self._prefix

    @property
    def name(self) -> str:
        return self._name

    def name_scope(self) -> _BlockScope:
        """`with self.name_scope():` gives children and ops this block's prefix."""
        return self._scope

    @property
    def params(self) -> ParameterDict:
        """This block's own parameters (not its children's)."""
        return self._params

    def collect_params(self, select: Optional[str] = None) -> ParameterDict:
        """This block's and all descendants' parameters, optionally filtered by a regex."""
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        if not select:
            ret.update(self.params)
        else:
            pattern = re.compile(select)
            ret.update({name: value for name, value in self.params.items() if pattern.match(name)})
        for cld in self._children.values():
            ret.update(cld.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix: str = "") -> dict:
        """Structural names (`features.0.weight`) as save_parameters writes them."""
        if prefix:
            prefix += "."
        ret = {prefix + key: val for key, val in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def save_parameters(self, filename: str, deduplicate: bool = False) -> None:
        """Save parameter values under structural names (no prefixes)."""
        params = self._collect_params_with_prefix()
        if deduplicate:
            reverse: Dict[Parameter, List[str]] = {}
            for k, v in params.items():
                reverse.setdefault(v, []).append(k)
            params = {v[0]: k for k, v in reverse.items()}
        arg_dict = {key: val._reduce() for key, val in params.items()}
        ndarray.save(filename, arg_dict)

    def save_params(self, filename: str) -> None:
        """Deprecated MXNet API: prefixed names (stripped of this block's prefix)."""
        warnings.warn(
            "save_params is deprecated. Please use save_parameters. Note that if you "
            "want load from SymbolBlock later, please use export instead. For "
            "details, see https://mxnet.incubator.apache.org/tutorials/gluon/save_lo"
            "ad_params.html",
            stacklevel=1,
        )  # (MXNet's: no stacklevel)
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_parameters(
        self,
        filename: str,
        ctx=None,
        allow_missing: bool = False,
        ignore_extra: bool = False,
        cast_dtype: bool = False,
        dtype_source: str = "current",
    ) -> None:
        """Load a file written by save_parameters (or, legacy, by save_params/export)."""
        loaded = ndarray.load(filename)
        if isinstance(loaded, list):
            raise ValueError(
                "Cannot load parameters from '%s': the file holds an unnamed "
                "list of arrays, not a name -> array dict" % filename
            )
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any("." in i for i in loaded.keys()):
            del loaded
            self.collect_params().load(
                filename,
                ctx,
                allow_missing,
                ignore_extra,
                self.prefix,
                cast_dtype=cast_dtype,
                dtype_source=dtype_source,
            )
            return
        from .utils import _brief_print_list

        if not allow_missing:  # a shared parameter is loaded under any of its names (MXNet 1.6+)
            names_of: Dict[int, List[str]] = {}
            for key, value in params.items():
                names_of.setdefault(id(value), []).append(key)
            for name, param in params.items():
                if not any(n in loaded for n in names_of[id(param)]):
                    raise AssertionError(
                        "Parameter '%s' is missing in file '%s', which contains parameters: "
                        "%s. Set allow_missing=True to ignore missing parameters."
                        % (name, filename, _brief_print_list(loaded.keys()))
                    )
        for name in loaded:
            if not ignore_extra and name not in params:
                raise ValueError(
                    "Parameter '%s' loaded from file '%s' is not present in ParameterDict, "
                    "which contains parameters %s. Set ignore_extra=True to ignore. "
                    % (name, filename, _brief_print_list(self._params.keys()))
                )
            if name in params:
                params[name]._load_init(
                    loaded[name], ctx, cast_dtype=cast_dtype, dtype_source=dtype_source
                )

    def load_params(
        self, filename: str, ctx=None, allow_missing: bool = False, ignore_extra: bool = False
    ) -> None:
        """Deprecated MXNet API: same as load_parameters."""
        warnings.warn("load_params is deprecated. Please use load_parameters.", stacklevel=1)
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def register_child(self, block: "Block", name: Optional[str] = None) -> None:
        """Register block as a child (attributes do this automatically)."""
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_pre_hook(self, hook) -> HookHandle:
        """`hook(block, inputs)` runs before forward."""
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def register_forward_hook(self, hook) -> HookHandle:
        """`hook(block, inputs, outputs)` runs after forward."""
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def apply(self, fn) -> "Block":
        """Apply fn to every descendant, then to self."""
        for cld in self._children.values():
            cld.apply(fn)
        fn(self)
        return self

    def initialize(
        self, init=None, ctx=None, verbose: bool = False, force_reinit: bool = False
    ) -> None:
        """`collect_params().initialize(...)`; default initializer Uniform(0.07)."""
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active: bool = True, **kwargs) -> None:
        """A plain Block cannot be traced: hybridize its HybridBlock children instead."""
        for cld in self._children.values():
            cld.hybridize(active, **kwargs)

    def cast(self, dtype) -> None:
        for child in self._children.values():
            child.cast(dtype)
        for _, param in self.params.items():
            param.cast(dtype)

    def __call__(self, *args):
        """Calls forward (positional arguments only), with the registered hooks."""
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        return out

    def forward(self, *args):
        """Override with the computation on NDArrays."""
        raise NotImplementedError

    def register_op_hook(self, callback, monitor_all: bool = False):
        engine_not_implemented("gluon.Block.register_op_hook")

    def summary(self, *inputs) -> None:
        """Print each layer's output shape and parameter counts, as MXNet's summary does.

        The network must be initialized and not hybridized."""
        from .summary import print_summary

        print_summary(self, *inputs)

    def save(self, prefix: str):
        engine_not_implemented("gluon.Block.save")

    def load(self, prefix: str):
        engine_not_implemented("gluon.Block.load")


# ----------------------------------------------------------------------------- HybridBlock

_MISS = object()  # a lean call path's "these arguments are not mine": take the general path


class _EagerCall:
    """The eager (not hybridized) call reduced to its minimum: `hybrid_forward(F, *args,
    **params)` with the parameter dict built once.

    The general eager path costs, per block and call, the hooks loops, the nested walk of the
    arguments, a `with ctx:` and one `Parameter.data(ctx)` per parameter (context checks,
    deferred-initialisation checks) - about as much as the numpy work of a small layer, paid
    again by every child of a Sequential. None of it changes between calls once the
    parameters are initialised, so it is done once and checked by one integer:
    - `epoch` snapshots `parameter._EPOCH`, bumped whenever any Parameter's arrays are
      replaced (initialize/force_reinit, deferred init finishing, cast, reset_ctx, loading
      into an uninitialised parameter); `set_data` and loads into initialised parameters
      write into the same NDArrays the dict holds, so they need no invalidation;
    - registering a hook, `hybridize()`, `cast()`, assigning a Parameter or a child block
      drop it (`_fast = None`); it is only built when there are no hooks, the block is not
      active, and `forward` is HybridBlock's own (`_gluon_lean_call_ok`);
    - `run` takes only flat NDArray arguments and only when the current context is cpu(0)
      (or none): the general path enters `with x.context:` (always cpu(0) in the engine), so
      inside `hybrid_forward` `current_context()` reads the same; any other case
      (Symbols, None or nested arguments, an enclosing `with mx.cpu(1):`) returns `_MISS`
      and the general path decides, with MXNet's checks and messages.
    `hybrid_forward` is looked up on the block at each call (an instance may rebind it), and
    its result is returned as is (even None), so a call never runs `hybrid_forward` twice.
    """

    __slots__ = ("epoch", "run")

    def __init__(self, params: dict):
        self.epoch = _EPOCH[0]
        self.run = _eager_run(params)


def _eager_run(params: dict):
    def run(
        block, args, nd_class=NDArray, miss=_MISS, local=_CONTEXT_LOCAL, cpu0=_CPU0, F=_F_NDARRAY
    ):
        if not args:
            return miss
        for a in args:
            if a.__class__ is not nd_class:
                return miss
        cur = local.value
        if cur is not None and cur is not cpu0:
            return miss
        return block.hybrid_forward(F, *args, **params)

    return run


class _FastCall:
    """The hybridized call reduced to its minimum: CachedOp arguments in input order.

    Built after a successful cached call, when inputs are a flat list of NDArrays, all
    parameters are initialised and nothing (hooks, an overridden forward) needs Python.
    `epoch` snapshots `parameter._EPOCH`, which changes whenever any parameter's arrays are
    replaced (initialize, cast, load into a new array), so stale arrays are never used.
    `run(block, args)` returns the outputs, or `_MISS` when the arguments do not fit the
    cached plan (other count, not NDArrays) and the general path must decide.
    """

    __slots__ = ("epoch", "run")

    def __init__(self, block: "HybridBlock", nargs: int):
        self.epoch = _EPOCH[0]
        template: List[Any] = []
        data_pos: List[Tuple[int, Any]] = []
        for pos, (is_arg, item) in enumerate(block._cached_op_args):
            if is_arg:
                template.append(None)
                data_pos.append((pos, item))
            else:
                template.append(item.data())
        op = block._cached_op
        single = block._out_format == 0
        if nargs == 1 and single and len(data_pos) == 1:
            self.run = _run_one(
                op, tuple(template[: data_pos[0][0]]), tuple(template[data_pos[0][0] + 1 :])
            )
        else:
            self.run = _run_many(op, template, data_pos, nargs, single)


def _run_one(op, before: tuple, after: tuple):
    """One NDArray in, one out: the case the batch-1 benchmark measures (the CachedOp entry
    bound to the parameters checks only the data argument)."""
    call = op.bind_one(before, after)

    def run(block, args, nd_class=NDArray, miss=_MISS):
        if len(args) == 1 and args[0].__class__ is nd_class:
            return call(args[0])
        return miss

    return run


def _run_many(op, template: list, data_pos: list, nargs: int, single: bool):
    def run(block, args, nd_class=NDArray, miss=_MISS):
        if len(args) != nargs:
            return miss
        cargs = template[:]
        for pos, i in data_pos:
            arg = args[i]
            if arg.__class__ is not nd_class:
                return miss
            cargs[pos] = arg
        out = op(*cargs)
        if single:
            return out
        return list(out) if isinstance(out, (list, tuple)) else [out]

    return run


class HybridBlock(Block):
    """A Block whose `hybrid_forward(F, x, ...)` runs on NDArrays and traces on Symbols."""

    def __init__(self, prefix: Optional[str] = None, params: Optional[ParameterDict] = None):
        super().__init__(prefix=prefix, params=params)
        self._cached_graph: Tuple[Any, ...] = ()
        self._cached_op: Optional[ndarray.CachedOp] = None
        self._cached_op_args: List[Tuple[bool, Any]] = []
        self._out_format = None
        self._in_format = None
        self._active = False
        self._flags: List[Tuple[str, Any]] = []
        self._fast: Optional[Any] = None  # a _FastCall or an _EagerCall

    def __call__(self, *args):
        fast = self._fast
        if fast is not None and fast.epoch == _EPOCH[0]:
            out = fast.run(self, args)
            if out is not _MISS:
                return out
        return Block.__call__(self, *args)

    def __setattr__(self, name: str, value) -> None:
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()
        elif isinstance(value, Parameter):
            self._fast = None  # the eager lean path's parameter dict is stale

    def register_child(self, block: Block, name: Optional[str] = None) -> None:
        if not isinstance(block, HybridBlock):
            raise ValueError(
                "Children of HybridBlock must also be HybridBlock, but %s has type %s. If you "
                "are using Sequential, please try HybridSequential instead."
                % (str(block), str(type(block)))
            )
        super().register_child(block, name)
        self._clear_cached_op()

    def register_forward_pre_hook(self, hook) -> HookHandle:
        self._fast = None
        return super().register_forward_pre_hook(hook)

    def register_forward_hook(self, hook) -> HookHandle:
        self._fast = None
        return super().register_forward_hook(hook)

    def _clear_cached_op(self) -> None:
        self._cached_graph = ()
        self._cached_op = None
        self._cached_op_args = []
        self._fast = None

    def hybridize(
        self,
        active: bool = True,
        backend=None,
        clear: bool = True,
        static_alloc: bool = False,
        static_shape: bool = False,
        inline_limit: int = 2,
        forward_bulk_size=None,
        backward_bulk_size=None,
        **kwargs,
    ) -> None:
        """Turn tracing on (or off) here and in every child."""
        if backend is not None:
            engine_not_implemented("gluon.HybridBlock.hybridize(backend=...)")
        self._active = active
        self._flags = [
            ("static_alloc", static_alloc),
            ("static_shape", static_shape),
            ("inline_limit", inline_limit),
        ]
        if forward_bulk_size is not None:
            self._flags.append(("forward_bulk_size", forward_bulk_size))
        if backward_bulk_size is not None:
            self._flags.append(("backward_bulk_size", backward_bulk_size))
        if clear:
            self._clear_cached_op()
        self._fast = None
        if active and self._forward_hooks or self._forward_pre_hooks:
            warnings.warn(
                '"{block}" is being hybridized while still having forward '
                'hook/pre-hook. If "{block}" is a child of HybridBlock, the hooks '
                "will not take effect.".format(block=self),
                stacklevel=1,
            )
        Block.hybridize(
            self,
            active,
            static_alloc=static_alloc,
            static_shape=static_shape,
            inline_limit=inline_limit,
            forward_bulk_size=forward_bulk_size,
            backward_bulk_size=backward_bulk_size,
        )

    def cast(self, dtype) -> None:
        self._clear_cached_op()
        super().cast(dtype)

    # ------------------------------------------------------------------ tracing
    def _get_graph(self, *args):
        if not self._cached_graph:
            flatten_args, self._in_format = _flatten(args, "input")
            real_arg_num = sum(ele is not None for ele in flatten_args)
            if real_arg_num == 0:
                raise ValueError(
                    "All args are None and we do not support such a case. Received args={}".format(
                        args
                    )
                )
            flatten_inputs, symbol_inputs, cnt = [], [], 0
            for arg in flatten_args:
                if arg is None:
                    flatten_inputs.append(None)
                    continue
                arg_sym = symbol.var("data{}".format(cnt) if real_arg_num > 1 else "data")
                cnt += 1
                flatten_inputs.append(arg_sym)
                symbol_inputs.append(arg_sym)
            grouped_inputs = _regroup(flatten_inputs, self._in_format)
            params = {i: j.var() for i, j in self._reg_params.items()}
            try:
                with self.name_scope():
                    out = self.hybrid_forward(_F_SYMBOL, *grouped_inputs, **params)
            except MXNetError as err:  # an op call refused while tracing: name the line
                _name_user_line(err)
                raise
            out, self._out_format = _flatten(out, "output")
            self._cached_graph = symbol_inputs, symbol.Group(out)
        return self._cached_graph

    def _build_cache(self, *args) -> None:
        data, out = self._get_graph(*args)
        data_names = {d.name: i for i, d in enumerate(data)}
        input_names = out.list_inputs()
        expected_names = set(input_names)
        params = self.collect_params()
        param_names = set(params.keys())
        for name in expected_names:
            if name not in param_names and name not in data_names:
                raise AssertionError("Unknown input to HybridBlock: %s" % name)
        used_data_names = [i for i in data_names if i in expected_names]
        if len(used_data_names) != len(data_names):
            unused = ", ".join(
                ["%d-th" % i for name, i in data_names.items() if name not in expected_names]
            )
            warnings.warn(
                "The %s input to HybridBlock is not used by any computation. Is this "
                "intended?" % unused,
                stacklevel=4,
            )
        used_param_names = [i for i in param_names if i in expected_names]
        if len(used_param_names) != len(param_names):
            unused = ", ".join(list(param_names - set(used_param_names)))
            warnings.warn(
                "Parameter %s is not used by any computation. Is this intended?" % unused,
                stacklevel=4,
            )
        flat_args, _ = _flatten(args, "input")
        try:
            for name in input_names:
                if name in params:
                    params[name].data()
        except DeferredInitializationError:
            self._deferred_infer_shape(*flat_args)
            for name in input_names:
                if name in params:
                    params[name]._finish_deferred_init()
        data_indices, param_indices = [], []
        self._cached_op_args = []
        for i, name in enumerate(input_names):
            if name in data_names:
                data_indices.append(i)
                self._cached_op_args.append((True, data_names[name]))
            else:
                param_indices.append(i)
                self._cached_op_args.append((False, params[name]))
        flags = [("data_indices", data_indices), ("param_indices", param_indices)] + self._flags
        self._cached_op = ndarray.CachedOp(out, flags)

    def _deferred_infer_shape(self, *args) -> None:
        try:
            self.infer_shape(*args)
        except NotImplementedError:
            raise  # an op the engine lacks: let the checker say "cannot verify"
        except Exception as e:  # MXNet wraps every inference failure this way
            error = ValueError(
                "Deferred initialization failed because shape cannot be inferred. {}".format(e)
            )
            error.source_line = getattr(e, "source_line", None)  # type: ignore[attr-defined]
            raise error from e

    def _call_cached_op(self, *args):
        if self._cached_op is None:
            self._build_cache(*args)
        flat, fmt = _flatten(args, "input")
        if fmt != self._in_format:
            if len(self._in_format) > len(fmt):
                valid = all(self._in_format[i] == -1 for i in range(len(fmt), len(self._in_format)))
                valid = valid and (fmt == self._in_format[: len(fmt)])
            elif len(self._in_format) < len(fmt):
                valid = all(fmt[i] == -1 for i in range(len(self._in_format), len(fmt)))
                valid = valid and (fmt[: len(self._in_format)] == self._in_format)
            else:
                valid = False
            if not valid:
                raise ValueError(
                    "The argument structure of HybridBlock does not match the "
                    "cached version. Stored format = {}, input format = {}".format(
                        fmt, self._in_format
                    )
                )
        args_without_none = [ele for ele in flat if ele is not None]
        cargs = [args_without_none[i] if is_arg else i.data() for is_arg, i in self._cached_op_args]
        out = self._cached_op(*cargs)
        if isinstance(out, NDArray):
            out = [out]
        result = _regroup(out, self._out_format)
        self._maybe_enable_fast(fmt)
        return result

    def _maybe_enable_fast(self, fmt) -> None:
        """Install the lean call path when nothing in this block needs the general one."""
        fast = self._fast
        if (
            (fast is not None and fast.epoch == _EPOCH[0])
            or self._forward_hooks
            or self._forward_pre_hooks
            or not _FAST[0]
        ):  # reference layer: no lean path
            return  # a stale fast path (parameters replaced anywhere) is rebuilt below
        if not getattr(type(self).forward, "_gluon_lean_call_ok", False):
            return
        if not isinstance(fmt, list) or any(f != 0 for f in fmt):
            return
        out_fmt = self._out_format
        if out_fmt != 0 and (not isinstance(out_fmt, list) or any(f != 0 for f in out_fmt)):
            return
        try:
            self._fast = _FastCall(self, len(fmt))
        except (DeferredInitializationError, RuntimeError):
            self._fast = None

    def _infer_attrs(self, infer_fn: str, attr: str, *args) -> None:
        inputs, out = self._get_graph(*args)
        args, _ = _flatten(args, "input")
        args_without_none = [ele for ele in args if ele is not None]
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            arg_attrs, _, aux_attrs = getattr(out, infer_fn)(
                **{i.name: getattr(j, attr) for i, j in zip(inputs, args_without_none)}
            )
            if arg_attrs is None:
                raise ValueError(
                    w[0].message if w else "cannot infer %s of the block's parameters" % attr
                )
        sdict = dict(zip(out.list_arguments(), arg_attrs))
        sdict.update(dict(zip(out.list_auxiliary_states(), aux_attrs)))
        for i in self.collect_params().values():
            if i.name not in sdict:
                raise KeyError(i.name)
            setattr(i, attr, sdict[i.name])

    def infer_shape(self, *args) -> None:
        """Fill unknown parameter shapes from the input shapes."""
        self._infer_attrs("infer_shape", "shape", *args)

    def infer_type(self, *args) -> None:
        """Fill parameter dtypes from the input dtypes."""
        self._infer_attrs("infer_type", "dtype", *args)

    def export(self, path: str, epoch: int = 0, remove_amp_cast: bool = True) -> None:
        """Write `path-symbol.json` and `path-%04d.params` (arg:/aux: names) like MXNet."""
        if not self._cached_graph:
            raise RuntimeError(
                "Please first call block.hybridize() and then run forward with "
                "this block at least once before calling export."
            )
        sym = self._cached_graph[1]
        sym.save("%s-symbol.json" % path, remove_amp_cast=remove_amp_cast)
        arg_names = set(sym.list_arguments())
        aux_names = set(sym.list_auxiliary_states())
        arg_dict = {}
        for is_arg, param in self._cached_op_args:
            if is_arg:
                continue
            name = param.name
            if name in arg_names:
                arg_dict["arg:{}".format(name)] = param._reduce()
            elif name not in aux_names:
                warnings.warn(
                    'Parameter "{name}" is not found in the graph. '.format(name=name), stacklevel=3
                )
            else:
                arg_dict["aux:%s" % name] = param._reduce()
        ndarray.save("%s-%04d.params" % (path, epoch), arg_dict)

    def optimize_for(self, x, *args, backend=None, **kwargs):
        engine_not_implemented("gluon.HybridBlock.optimize_for")

    def forward(self, x, *args):
        """Eager: call hybrid_forward with NDArrays (or the cached plan when active);
        symbolic: call it with Symbols and parameter vars inside this block's name scope."""
        if not args and x.__class__ is NDArray:  # the common case, without the walk
            has_symbol, has_ndarray, first_ctx = False, True, x.context
            ctx_set = (first_ctx,)
        else:
            has_symbol, has_ndarray, ctx_set, first_ctx = _gather_type_ctx_info([x] + list(args))
        if has_symbol and has_ndarray:
            raise ValueError(
                "In HybridBlock, we do not support mixed NDArrays and Symbols "
                "types for the input. Please check the type of the args.\n"
            )
        if not has_symbol and not has_ndarray:
            raise ValueError(
                "In HybridBlock, there must be one NDArray or one Symbol in the "
                "input. Please check the type of the args.\n"
            )
        if has_ndarray:
            ctx = first_ctx
            if self._active:
                if len(ctx_set) > 1:
                    raise ValueError(
                        "Find multiple contexts in the input, After hybridized, "
                        "the HybridBlock only supports one input context. You can "
                        "print the ele.ctx in the input arguments to inspect their "
                        "contexts. Find all contexts = {}".format(ctx_set)
                    )
                with ctx:
                    return self._call_cached_op(x, *args)
            with ctx:
                try:
                    params = {k: v.data(ctx) for k, v in self._reg_params.items()}
                except DeferredInitializationError:
                    self._deferred_infer_shape(x, *args)
                    for _, v in self.params.items():
                        v._finish_deferred_init()
                    params = {k: v.data(ctx) for k, v in self._reg_params.items()}
                fast = self._fast
                if (
                    (fast is None or fast.epoch != _EPOCH[0])
                    and not self._forward_hooks
                    and not self._forward_pre_hooks
                    and _FAST[0]
                    and getattr(type(self).forward, "_gluon_lean_call_ok", False)
                ):
                    self._fast = _EagerCall(params)
                return self.hybrid_forward(_F_NDARRAY, x, *args, **params)
        params = {i: j.var() for i, j in self._reg_params.items()}
        with self.name_scope():
            return self.hybrid_forward(_F_SYMBOL, x, *args, **params)

    # subclasses overriding forward lose the lean path (a marker on the function object)
    forward._gluon_lean_call_ok = True  # type: ignore[attr-defined]

    def hybrid_forward(self, F, x, *args, **kwargs):
        """Override with the computation written against `F` (mx.nd or mx.sym)."""
        raise NotImplementedError
