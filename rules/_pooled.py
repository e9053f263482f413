"""Global pooling and the layers that keep its 1s: HL007's (B, C, 1, 1) evidence (issue 20).

A squeeze-and-excitation gate (`w = pool(x)`, then 1x1 convolutions and activations, then
`x * w`) multiplies a (B, C, H, W) map by a (B, C', 1, 1) gate: NDArray broadcasts, Symbol's
elementwise `_Mul` raises `Incompatible attr` under MXNet 1.9.1. The analysis marks such a gate
with the shape reason `POOLED` only where the shape is proven from what the code says:

- a global pooling: `F.contrib.AdaptiveAvgPooling2D(x, output_size=1)`, `F.Pooling(x,
  global_pool=True)`, or a child built as `nn.GlobalAvgPool2D()` / `GlobalMaxPool{1,2,3}D()`;
- kept through a child that maps spatial 1s to 1s: a shape-preserving gluon layer (activation,
  batch norm, dropout) or a convolution whose kernel is 1 and padding 0 (an output dim is
  `(1 + 2p - d(k-1) - 1) // s + 1`, 1 for k=1, p=0 at any stride), also when a module factory
  function builds the layer (`conv1x1(...)` returning `nn.Conv2D(kernel_size=1, ...)`): its
  literal arguments and the factory's literal defaults are bound to read kernel and padding.

Anything else (a module class, a container, a layer whose arguments are not literal) is not
followed: an opaque child may upsample the gate back to (H, W) (PSPNet's pooling branches).
"""

from __future__ import annotations

from typing import Dict, Mapping, Optional

import libcst as cst

from ..mxnet_facts import SHAPE_PRESERVING_LAYERS
from ._factories import returns as _factory_returns
from .values import call_argument, last_name, literal_int

POOLED = "global_pool"  # a Value.shape_reason: 1s on every axis after the first two
POOL = "pool"  # a child that pools globally
KEEP = "keep"  # a child that keeps spatial 1s (channels may change)

GLOBAL_POOL_LAYERS = frozenset(
    f"Global{kind}Pool{rank}D" for kind in ("Avg", "Max") for rank in (1, 2, 3)
)
_CONVOLUTIONS = frozenset(("Conv1D", "Conv2D", "Conv3D"))
_UNKNOWN = object()  # a bound name whose value is not a literal
_DEPTH = 4  # factory functions followed at most this deep


def pooled_op(op: str, call: cst.Call) -> bool:
    """Whether `F.<op>(...)` pools globally: AdaptiveAvgPooling2D to output_size 1 (or (1, 1)),
    Pooling with a literal `global_pool=True`."""
    if op == "contrib.AdaptiveAvgPooling2D":
        size = call_argument(call, 1, "output_size")
        return size is not None and _ones(_literal(size.value, {}))
    if op == "Pooling":
        flag = call_argument(call, None, "global_pool")
        return flag is not None and _literal(flag.value, {}) is True
    return False


def child_effect(
    construction: cst.BaseExpression, functions: Mapping[str, cst.FunctionDef]
) -> Optional[str]:
    """POOL, KEEP or None for the child `self.<a> = <construction>` builds (module docstring)."""
    return _effect(construction, {}, functions, 0)


def _effect(
    expr: cst.BaseExpression,
    bound: Mapping[str, object],
    functions: Mapping[str, cst.FunctionDef],
    depth: int,
) -> Optional[str]:
    if not isinstance(expr, cst.Call) or depth > _DEPTH:
        return None
    name = last_name(expr.func)
    if name in GLOBAL_POOL_LAYERS:
        return POOL
    if name in SHAPE_PRESERVING_LAYERS:
        return KEEP
    if name in _CONVOLUTIONS:
        kernel = call_argument(expr, 1, "kernel_size")
        padding = call_argument(expr, 3, "padding")
        if kernel is None or not _ones(_literal(kernel.value, bound)):
            return None
        if padding is not None and not _zeros(_literal(padding.value, bound)):
            return None
        return KEEP
    factory = functions.get(name) if isinstance(expr.func, cst.Name) else None
    if factory is None:
        return None
    returns = [r.value for r in _factory_returns(factory)]
    if not returns or any(r is None for r in returns):
        return None
    inner = _bind(factory, expr, bound)
    effects = {_effect(r, inner, functions, depth + 1) for r in returns}  # type: ignore[arg-type]
    return effects.pop() if len(effects) == 1 else None


def _bind(
    function: cst.FunctionDef, call: cst.Call, outer: Mapping[str, object]
) -> Dict[str, object]:
    """The factory's parameters as literals: the call's arguments, else the defaults. A
    parameter the body rebinds, or any starred argument, makes the value unknown."""
    params = list(function.params.posonly_params) + list(function.params.params)
    bound: Dict[str, object] = {}
    for param in params + list(function.params.kwonly_params):
        if param.default is not None:
            bound[param.name.value] = _literal(param.default, {})
    if any(a.star for a in call.args):
        return {p.name.value: _UNKNOWN for p in params}
    positional = [a for a in call.args if a.keyword is None]
    for param, arg in zip(params, positional):
        bound[param.name.value] = _literal(arg.value, outer)
    for arg in call.args:
        if arg.keyword is not None:
            bound[arg.keyword.value] = _literal(arg.value, outer)
    rebound = _stored_names(function)
    return {k: (_UNKNOWN if k in rebound else v) for k, v in bound.items()}


def _stored_names(function: cst.FunctionDef) -> set:
    names = set()
    for node in _walk(function.body):
        if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
            target = node.target
            if isinstance(target, cst.Name):
                names.add(target.value)
    return names


def _walk(node: cst.CSTNode):
    yield node
    for child in node.children:
        yield from _walk(child)


def _literal(expr: cst.BaseExpression, bound: Mapping[str, object]) -> object:
    """An int, a tuple of them, True/False/None, or a bound name's literal; else `_UNKNOWN`."""
    number = literal_int(expr)
    if number is not None:
        return number
    if isinstance(expr, (cst.Tuple, cst.List)):
        items = tuple(_literal(e.value, bound) for e in expr.elements)
        return _UNKNOWN if _UNKNOWN in items else items
    if isinstance(expr, cst.Name):
        if expr.value in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[expr.value]
        return bound.get(expr.value, _UNKNOWN)
    return _UNKNOWN


def _ones(value: object) -> bool:
    items = value if isinstance(value, tuple) else (value,)
    return bool(items) and all(type(v) is int and v == 1 for v in items)


def _zeros(value: object) -> bool:
    items = value if isinstance(value, tuple) else (value,)
    return bool(items) and all(type(v) is int and v == 0 for v in items)
