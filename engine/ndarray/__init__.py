"""mx.nd / mx.ndarray: eager NDArray operations, one function per registered op.

Functions appear here as ops are registered (`registry.on_register`): `foo` -> `mx.nd.foo`,
`_foo` -> `mx.nd._internal._foo`, `_contrib_foo` -> `mx.nd.contrib.foo`.
"""

import sys
import types
from typing import Any

from .. import registry as _registry
from ..base import MXNetError
from ..context import cpu_only as _cpu_only
from .ndarray import (
    NDArray,
    array,
    concatenate,
    empty,
    from_numpy,
    waitall,  # noqa: F401
    wrap,
)
from .register import make_nd_function
from .helpers import (
    add,
    subtract,
    multiply,
    divide,
    true_divide,
    modulo,
    power,  # noqa: F401
    maximum,
    minimum,
    equal,
    not_equal,
    greater,
    greater_equal,
    lesser,
    lesser_equal,
    logical_and,
    logical_or,
    logical_xor,
    _random_namespace,
)

_this = sys.modules[__name__]
# namespaces filled as ops register (Any: their attributes are made at run time)
contrib: Any = types.ModuleType(__name__ + ".contrib", "mx.nd.contrib: contrib operators")
_internal: Any = types.ModuleType(__name__ + "._internal", "mx.nd._internal: internal operators")
op: Any = types.ModuleType(__name__ + ".op", "mx.nd.op: all operators")
random: Any = _random_namespace(types.ModuleType(__name__ + ".random", "mx.nd.random: sampling"))
linalg: Any = types.ModuleType(__name__ + ".linalg", "mx.nd.linalg: linear algebra operators")
sys.modules[random.__name__] = random
sys.modules[linalg.__name__] = linalg
sys.modules[contrib.__name__] = contrib
sys.modules[_internal.__name__] = _internal
sys.modules[op.__name__] = op


def op_namespace():
    """The module holding every eager op function (for NDArray's fluent methods)."""
    return op


def _install(name, opdef):
    fn = make_nd_function(opdef, name)
    setattr(op, name, fn)
    if name.startswith("_contrib_"):
        setattr(contrib, name[len("_contrib_") :], fn)
        setattr(_internal, name, fn)
    elif name.startswith("_linalg_"):  # _linalg_gemm2 -> mx.nd.linalg.gemm2
        setattr(linalg, name[len("_linalg_") :], fn)
        setattr(_internal, name, fn)
    elif name.startswith("_"):
        setattr(_internal, name, fn)
    elif name not in _HELPERS:
        setattr(_this, name, fn)


_HELPERS = {
    "maximum",
    "minimum",
    "power",
    "add",
    "subtract",
    "multiply",
    "divide",
    "modulo",
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "lesser",
    "lesser_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "true_divide",
}


def zeros(shape, ctx=None, dtype=None, **kwargs) -> NDArray:
    """An array of zeros (float32 unless `dtype`)."""
    _cpu_only(ctx)
    return _internal._zeros(shape=shape, dtype="float32" if dtype is None else dtype, **kwargs)


def ones(shape, ctx=None, dtype=None, **kwargs) -> NDArray:
    """An array of ones (float32 unless `dtype`)."""
    _cpu_only(ctx)
    return _internal._ones(shape=shape, dtype="float32" if dtype is None else dtype, **kwargs)


def full(shape, val, ctx=None, dtype=None, out=None) -> NDArray:
    """An array filled with `val` (float32 unless `dtype`)."""
    _cpu_only(ctx)
    return _internal._full(
        shape=shape, value=float(val), dtype="float32" if dtype is None else dtype, out=out
    )


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=None):
    """MXNet's arange: float32 by default, like numpy's otherwise."""
    _cpu_only(ctx)
    return _internal._arange(
        start=start,
        stop=stop,
        step=step,
        repeat=repeat,
        dtype="float32" if dtype is None else dtype,
    )


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs) -> NDArray:
    """N x M identity-like matrix with ones on diagonal k (float32 unless `dtype`)."""
    _cpu_only(ctx)
    return _internal._eye(N=N, M=M, k=k, dtype="float32" if dtype is None else dtype, **kwargs)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=None) -> NDArray:
    """`num` evenly spaced values over [start, stop] (stop excluded if not endpoint)."""
    _cpu_only(ctx)
    return _internal._linspace(
        start=start,
        stop=stop,
        num=num,
        endpoint=endpoint,
        dtype="float32" if dtype is None else dtype,
    )


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """numpy-style split: an int gives equal sections, a tuple gives split points."""
    indices, sections = _split_v2_args(indices_or_sections)
    return _internal._split_v2(
        ary, indices=indices, axis=axis, squeeze_axis=squeeze_axis, sections=sections
    )


def _split_v2_args(indices_or_sections):
    if isinstance(indices_or_sections, int):
        return (), indices_or_sections
    if isinstance(indices_or_sections, tuple):
        return (0,) + tuple(indices_or_sections), 0
    raise ValueError("indices_or_sections must either int or tuple of ints")


op.split_v2 = split_v2  # the NDArray.split_v2 fluent method dispatches through mx.nd.op


def save(fname, data) -> None:
    """Save NDArrays in MXNet's binary .params format (see engine/serialization.py)."""
    from .. import serialization

    return serialization.save(fname, data)


def load(fname):
    """Load NDArrays saved by MXNet or by `save` (see engine/serialization.py)."""
    from .. import serialization

    return serialization.load(fname)


_NO_INPUTS = (
    "Check failed: !xs.empty(): There are no inputs in computation graph that require gradients."
)


_SUBGRAPH_NAMES = {
    ("_cond", 1): "then branch",
    ("_cond", 2): "else branch",
    ("_while_loop", 0): "loop condition",
}


def _refuse_inputless_subgraphs(sym) -> None:
    """MXNet's control-flow ops run some subgraphs as CachedOps of their own, and those refuse a
    graph of constants as the block's does (mxnet_facts.INPUTLESS_SUBGRAPHS_FAIL): a cond
    branch `lambda: F.ones((2, 3))` fails the hybridized call, whichever branch runs."""
    from ...mxnet_facts import INPUTLESS_SUBGRAPHS_FAIL
    from ..symbol.symbol import _topo

    for node in _topo(sym._outputs):
        op: str = node.op.name if node.op is not None else ""
        subgraphs = getattr(node.parsed, "subgraphs", ()) if op else ()
        for k, sub in enumerate(subgraphs):
            if k in INPUTLESS_SUBGRAPHS_FAIL.get(op, ()) and not sub.list_inputs():
                where = node.where()
                part = _SUBGRAPH_NAMES.get((op, k), f"subgraph {k}")
                error = MXNetError(
                    f"Error in operator {node.name}: {_NO_INPUTS} (its {part} is built from "
                    "constants only)" + (f"\n  created at {where}" if where else "")
                )
                error.source_line = node.source
                raise error
            _refuse_inputless_subgraphs(sub)


class CachedOp:
    """Runs a Symbol graph compiled once per input signature (MXNet's `mx.nd.CachedOp`).

    Call with NDArrays in `sym.list_inputs()` order; returns one NDArray or a list for several
    outputs. `flags` are MXNet's (`static_alloc`, `static_shape`, ...): with `static_shape`
    only one compiled plan is kept.
    """

    def __init__(self, sym, flags=()):
        from ..executor import PlanCache

        if not sym.list_inputs():
            # MXNet 1.9.1 builds the gradient graph here and refuses a graph of constants: a
            # hybridized block whose outputs use none of its inputs or parameters fails
            raise MXNetError(_NO_INPUTS)
        _refuse_inputless_subgraphs(sym)
        self._sym = sym
        self.flags = dict(flags)
        self._cache = PlanCache(sym, static_shape=_flag(self.flags.get("static_shape")))
        self._plans = self._cache.plans
        self._single = len(sym._outputs) == 1
        self._last = ()
        self._last_plan = None

    def __call__(self, *args, out=None, default_ctx=None):
        try:
            arrays = [a._data for a in args]
        except AttributeError:
            raise TypeError(
                "CachedOp only accepts NDArray inputs, got {}".format(
                    [type(a).__name__ for a in args]
                )
            ) from None
        # Fast signature check: parameters are the same numpy objects call after call, so
        # only arrays that changed identity need their shape and dtype compared.
        last = self._last
        plan = self._last_plan
        if plan is not None and len(arrays) == len(last):
            for a, b in zip(arrays, last):
                if a is not b and (a.shape != b.shape or a.dtype != b.dtype):
                    plan = None
                    break
        else:
            plan = None
        if plan is None:
            key = (*[a.shape for a in arrays], *[a.dtype for a in arrays])
            plan = self._plans.get(key)
            if plan is None:
                plan = self._cache.compile(arrays, key)
            self._last_plan = plan
        self._last = arrays
        try:
            outs = plan.run(*arrays)
        except (_registry.ShapeError, ValueError, IndexError) as err:
            # a kernel's own check at run time (index out of bound, singular matrix...):
            # MXNet reports it as MXNetError from the hybridized call too
            raise MXNetError("Error in a hybridized graph: {}".format(err)) from None
        if self._single:
            return wrap(outs[0])
        return [wrap(o) for o in outs]

    def bind_one(self, before, after):
        """`call(x)` = `self(*before, x, *after)` for fixed other NDArrays (a hybridized
        block's parameters); a new shape or dtype of `x` goes through the general call, which
        compiles (or raises) and becomes the remembered plan.

        An NDArray's numpy storage is fixed for its lifetime (nothing rebinds `_data`), and a
        fixed array can change neither shape nor dtype in place, so the other arrays are read
        once here and only `x` is checked per call: the batch-1 MLP spends about a tenth of
        its hybridized forward in the general call's argument list and signature loop."""
        head = [a._data for a in before]
        tail = [a._data for a in after]
        # (x's shape, x's dtype, plan), replaced as one tuple and read once per call, so a
        # thread never pairs one signature with another thread's plan
        state = [(None, None, None)]
        general = self.__call__
        plans = self._plans

        def call(x):
            """x: an NDArray (the caller checks its class)."""
            a = x._data
            shape, dtype, plan = state[0]
            if a.shape != shape or a.dtype != dtype:
                out = general(*before, x, *after)
                arrays = head + [a] + tail
                plan = plans.get((*[b.shape for b in arrays], *[b.dtype for b in arrays]))
                if plan is not None:
                    state[0] = (a.shape, a.dtype, plan)
                return out
            try:
                outs = plan.run(*head, a, *tail)
            except (_registry.ShapeError, ValueError, IndexError) as err:
                raise MXNetError("Error in a hybridized graph: {}".format(err)) from None
            if self._single:
                return wrap(outs[0])
            return [wrap(o) for o in outs]

        return call


def _flag(v) -> bool:
    return v is True or str(v).lower() in ("true", "1")


_registry.on_register(_install)
