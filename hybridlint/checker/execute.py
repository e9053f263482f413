"""Running one block eagerly, hybridized and through export/imports (inside the worker).

Nothing here catches exceptions: `jobs.py` decides what each failure means (the same
exception is an `eager_error` in one stage and `cannot_run` in another).
"""

from __future__ import annotations

import os
import random
import sys
import tempfile
import types
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .inputs import build_children


class CheckFailure(Exception):
    """A stage failed: carries the stage name and the original exception."""

    def __init__(self, stage: str, exc: BaseException):
        super().__init__(f"{stage}: {type(exc).__name__}: {exc}")
        self.stage = stage
        self.exc = exc


class NotABlock(TypeError):
    """The target is not a Gluon Block (or a factory returning one)."""


def seed_everything(mx: types.ModuleType, seed: int) -> None:
    """Seed every generator user code or initializers may draw from."""
    mx.random.seed(seed)
    np.random.seed(seed)
    random.seed(seed)


def resolve(module: types.ModuleType, target: str) -> Any:
    """`Outer.Inner` -> the object, from a loaded user module."""
    obj: Any = module
    for part in target.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise LookupError(f"{target!r} is not defined in the module") from None
    return obj


def build(mx: types.ModuleType, factory: Any, kwargs: Dict[str, Any], seed: int) -> Any:
    """Construct and initialise a block the same way for every run with the same seed."""
    seed_everything(mx, seed)
    if callable(factory) and not _is_block(mx, factory):
        # a backbone or base cell given as `{ block = "Backbone" }`: built from the module
        # that defines the block under check (the fixed file's own classes for a fixed run)
        namespace = (
            vars(sys.modules[factory.__module__]) if factory.__module__ in sys.modules else {}
        )
        block = factory(**build_children(kwargs, namespace))
    else:
        block = factory
    if not _is_block(mx, block):
        raise NotABlock(
            f"{getattr(factory, '__name__', factory)!r} does not make a Gluon "
            f"Block (got {type(block).__name__})"
        )
    seed_everything(mx, seed)
    block.initialize()
    return block


def _is_block(mx: types.ModuleType, obj: Any) -> bool:
    return isinstance(obj, mx.gluon.Block)


def call(mx: types.ModuleType, block: Any, arrays: Sequence[Any]) -> List[Optional[np.ndarray]]:
    """Call the block on fresh NDArray copies (a block may mutate its inputs in place).

    Arguments are positional, as MXNet 1.9.1's `Block.__call__(*args)` takes them; lists and
    tuples of arrays keep their structure, plain values (ints, None, ...) pass as they are.
    """
    return flatten_outputs(block(*[to_ndarrays(mx, a) for a in arrays]))


def to_ndarrays(mx: types.ModuleType, value: Any) -> Any:
    """numpy arrays -> fresh NDArrays, through lists and tuples."""
    if isinstance(value, np.ndarray):
        return mx.nd.array(value, dtype=value.dtype)
    if isinstance(value, (list, tuple)):
        return type(value)(to_ndarrays(mx, v) for v in value)
    return value


def flat_arrays(value: Any) -> List[np.ndarray]:
    """The arrays of (nested) inputs in Gluon's flattening order, without None and scalars."""
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in flat_arrays(v)]
    return []


def flatten_outputs(result: Any) -> List[Optional[np.ndarray]]:
    """Outputs as a flat list of numpy arrays (nested tuples/lists as Gluon allows).

    None stays in its place: an eager call may return it (gluonts representations return
    `(data, None, [])`), and None must then meet None in the other run (only hybridized
    does MXNet refuse it: "Expected a list of symbols as input"). An empty list or tuple adds
    nothing, as Gluon's own flattening of outputs does (hybridized, `()` comes back `[]`).
    """
    if result is None:
        return [None]
    if isinstance(result, (list, tuple)):
        return [a for item in result for a in flatten_outputs(item)]
    if hasattr(result, "asnumpy"):
        return [result.asnumpy()]
    raise TypeError(f"the block returned {type(result).__name__}, not NDArrays")


def export_roundtrip(
    mx: types.ModuleType, block: Any, arrays: Sequence[np.ndarray], seed: int
) -> List[Optional[np.ndarray]]:
    """export() the hybridized block, load it back with SymbolBlock.imports, run it once
    (seeded as the first call of a sequence)."""
    with tempfile.TemporaryDirectory(prefix="hybridlint-export-") as tmp:
        prefix = os.path.join(tmp, "model")
        block.export(prefix, epoch=0)
        sym_file, param_file = prefix + "-symbol.json", prefix + "-0000.params"
        flat = flat_arrays(list(arrays))
        input_names = _input_names(len(flat))
        imported = mx.gluon.SymbolBlock.imports(sym_file, input_names, param_file)
        seed_everything(mx, seed)
        return call(mx, imported, flat)


def _input_names(count: int) -> List[str]:
    """Gluon names exported inputs `data` (one input) or `data0`, `data1`, ... (several):
    one name per array of the flattened inputs (None is not an input of the graph)."""
    if count == 1:
        return ["data"]
    return [f"data{i}" for i in range(count)]


# Each instance the checker compares is called this many times, with the same inputs: a block
# whose outputs change from call to call (a counter on `self`) shows it at the second call,
# where a hybridized graph, traced once, keeps what the first call saw.
CALLS = 2


def call_sequence(
    mx: types.ModuleType,
    block: Any,
    arrays: Sequence[Any],
    seed: int,
    on_call: Optional[Callable[[int], None]] = None,
    count: int = CALLS,
    into: Optional[List[List[Optional[np.ndarray]]]] = None,
) -> List[List[Optional[np.ndarray]]]:
    """The outputs of `count` calls on `block`, every generator seeded before the first:
    random ops (F.random.*, a sampler) draw the same numbers in every instance compared this
    way. `on_call(i)` is told which call is about to run (a failure names it); the outputs
    are appended to `into` when given, so a caller still has those of the calls before one
    that raised."""
    seed_everything(mx, seed)
    outputs = [] if into is None else into
    for i in range(count):
        if on_call is not None:
            on_call(i)
        outputs.append(call(mx, block, arrays))
    return outputs


def relative_params(block: Any) -> Dict[str, Any]:
    """Parameters keyed by where they sit in the block tree (`body.0.weight`), as
    `save_parameters` names them: the key identifies a parameter across fresh instances of
    one class and across the original and the fixed block.

    Gluon's own names do not: each instance gets its own prefix (net0_, net1_), and a child
    built outside `name_scope()` takes a global one (convblock4_) whose counter grows with
    every instance, so two instances built with the same kwargs name the same parameter
    differently, and one's unprefixed child can even carry the name another's prefixed child
    has once the root prefix is cut off. A parameter reached twice (shared) keeps its first
    key; one the tree walk does not reach (not an attribute of its block) is keyed by its
    name without the root block's prefix.
    """
    out: Dict[str, Any] = {}
    seen = set()
    walk = getattr(block, "_collect_params_with_prefix", None)
    for key, param in (walk() if callable(walk) else {}).items():
        if id(param) not in seen:
            seen.add(id(param))
            out[key] = param
    prefix = getattr(block, "prefix", "") or ""
    for name, param in block.collect_params().items():
        if id(param) in seen:
            continue
        seen.add(id(param))
        key = name[len(prefix) :] if prefix and name.startswith(prefix) else name
        while key in out:  # never one key for two parameters
            key = "~" + key
        out[key] = param
    return out


def param_values(block: Any) -> Tuple[Dict[str, np.ndarray], List[str]]:
    """(values, pending): every initialised parameter's value as a numpy array (keyed as
    `relative_params` keys them), and the parameters still waiting for their shape (deferred
    initialisation: the first call that uses them sets it).

    Values leave the backend through `asnumpy()`: plain numpy in the default layout, whatever
    layout MXNet keeps the parameter in after a call (MKL-DNN reorders convolution weights).
    """
    values, pending = {}, []
    for name, param in relative_params(block).items():
        try:
            data = param.data()
        except Exception:  # DeferredInitializationError (an MXNetError in both backends)
            pending.append(name)
            continue
        values[name] = data.asnumpy()
    return values, pending


def plan_params(
    values: Dict[str, np.ndarray], target: Any, pending: Sequence[str] = ()
) -> Tuple[Dict[str, np.ndarray], List[str], bool]:
    """Which value each parameter of `target` takes: (assignment, notes, complete).

    Same key (`relative_params`) first; the rest pair up in registration order when shapes
    agree (a fix renaming an attribute changes the key but not the order). Parameters only
    the fixed block has (constants added by a fix) keep theirs. `complete` is False when a
    parameter without a key match has an unknown shape (deferred):
    the plan must then be made on an instance whose shapes are known (after a call).
    `pending`: parameters of the source no call initialised (unused): the same names in
    the target are left alone too.
    """
    dst = relative_params(target)
    assign: Dict[str, np.ndarray] = {}
    notes: List[str] = []
    leftover_dst = []
    for name, param in dst.items():
        if name in pending:
            continue
        if name in values and _fits(values[name].shape, _declared_shape(param)):
            assign[name] = values[name]
        else:
            leftover_dst.append(name)
    leftover_src = [n for n in values if n not in assign]
    complete = True
    for name in list(leftover_dst):
        if _is_constant(dst[name]):
            continue  # a constant a fix added: it keeps its own value
        shape = _declared_shape(dst[name])
        if shape is None or 0 in shape:
            complete = False
            continue
        match = next((s for s in leftover_src if values[s].shape == shape), None)
        if match is not None:
            assign[name] = values[match]
            leftover_src.remove(match)
            leftover_dst.remove(name)
            notes.append(f"parameter {name} took the value of {match} (matched by order)")
    for name in leftover_dst:
        if not _is_constant(dst[name]):
            notes.append(
                f"parameter {name} exists only in the fixed block; it keeps its own initial value"
            )
    return assign, notes, complete


def load_params(mx: types.ModuleType, block: Any, assign: Dict[str, np.ndarray]) -> None:
    """Initialise parameters of a block not called yet from numpy values.

    Each value goes in as a fresh default-layout NDArray the way `Block.load_parameters` puts
    a saved value in (`Parameter._load_init`, in MXNet 1.9.1 and the engine): a parameter
    waiting for its shape takes the value's shape and is initialised at once (its first call
    then draws no random numbers for it and infers nothing), an initialised one gets the
    value copied in; a dtype the fixed block declares differently is cast to it, as
    `set_data` did. Copying into the parameters of a block that already ran is what fails in
    MXNet ("Check failed: to.IsDefaultData()") once MKL-DNN keeps them in its own layout.
    """
    params = relative_params(block)
    for name, value in assign.items():
        param, data = params[name], mx.nd.array(value, dtype=value.dtype)
        if hasattr(param, "_load_init"):
            param._load_init(data, None, cast_dtype=True, dtype_source="current")
        else:
            param.set_data(data)


def _declared_shape(param: Any) -> Optional[Tuple[int, ...]]:
    """The parameter's shape, 0 for dimensions not known yet; None when nothing is known."""
    shape = getattr(param, "shape", None)
    return None if shape is None else tuple(int(d) if d is not None else 0 for d in shape)


def _fits(shape: Tuple[int, ...], declared: Optional[Tuple[int, ...]]) -> bool:
    if declared is None:
        return True
    return len(shape) == len(declared) and all(d in (0, s) for s, d in zip(shape, declared))


def _is_constant(param: Any) -> bool:
    """gluon.Constant (params.get_constant): a value fixed by the code, not initialised."""
    return any(cls.__name__ == "Constant" for cls in type(param).__mro__)
