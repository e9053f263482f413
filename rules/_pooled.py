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

Anything else (a module class, a container, a layer whose arguments are not literal, a factory
whose call puts arguments in its `*args`/`**kwargs`: `conv1x1(c, padding=1)` forwarding `**kwargs`
to `nn.Conv2D(c, 1, **kwargs)` pads a 1x1 gate to 3x3) is not followed: an opaque child may
upsample the gate back to (H, W) (PSPNet's pooling branches).

A gate's shape form (`gate_form`) is the pooled array's with 1s on the spatial axes: HL007
compares it with the map it was pooled from (`x * pool(x)`: a 1 against x's dim), and calls any
other operand a feature map only by positive evidence (`shape_evidence`).
"""

from __future__ import annotations

from typing import Dict, Mapping, Optional

import libcst as cst

from ..mxnet_facts import SHAPE_PRESERVING_LAYERS
from ._shape_forms import Form
from ._factories import returns as _factory_returns
from .values import TENSOR, Value, call_argument, last_name, literal_int, syntax_children

POOLED = "global_pool"  # a Value.shape_reason: 1s on every axis after the first two
POOL = "pool"  # a child that pools globally (`pool4`: arrays of rank 4)
KEEP = "keep"  # a child that keeps spatial 1s (channels may change)

GLOBAL_POOL_LAYERS = frozenset(
    f"Global{kind}Pool{rank}D" for kind in ("Avg", "Max") for rank in (1, 2, 3)
)
_CONVOLUTIONS = frozenset(("Conv1D", "Conv2D", "Conv3D"))
_UNKNOWN = object()  # a bound name whose value is not a literal
_EMPTY = object()  # a factory's `*args`/`**kwargs` that the call leaves empty
_DEPTH = 4  # factory functions followed at most this deep


def op_gate(op: str, call: cst.Call, source: Optional[Form]) -> Optional[Value]:
    """The gate `F.<op>(x, ...)` makes of an array of form `source` when it pools globally:
    AdaptiveAvgPooling2D to output_size 1 (or (1, 1)) of an (N, C, H, W) array, Pooling with a
    literal `global_pool=True` (NCW, NCHW or NCDHW); None for any other op."""
    if op == "contrib.AdaptiveAvgPooling2D":
        size = call_argument(call, 1, "output_size")
        if size is not None and _ones(_literal(size.value, {})):
            return _gate(gate_form(source, True, 4))
    if op == "Pooling":
        flag = call_argument(call, None, "global_pool")
        if flag is not None and _literal(flag.value, {}) is True and _channels_first(call):
            return _gate(gate_form(source, True))
    return None


def child_gate(effect: Optional[str], source: Value) -> Optional[Value]:
    """The gate a child of shape effect `effect` (`child_effect`) returns for its argument
    `source`: a global pooling's, or a gate kept by a child that keeps its 1s; None when the
    child makes no gate (its own value stands)."""
    if effect is not None and effect.startswith(POOL):
        return _gate(gate_form(source.form, True, int(effect[len(POOL) :])))
    if effect == KEEP and source.shape_reason == POOLED:
        return _gate(gate_form(source.form, False))
    return None


def _gate(form: Optional[Form]) -> Value:
    return Value(TENSOR, None, POOLED, fresh=True, form=form)


def gate_form(
    source: Optional[Form], keep_channels: bool, rank: Optional[int] = None
) -> Optional[Form]:
    """The form of a global pooling of an array of form `source` (`keep_channels`), or of a
    child that keeps a gate's spatial 1s (a 1x1 convolution may change the channels: unknown).
    Global pooling needs a batch, a channel and a spatial axis (ranks below 3 are invalid); a
    layer that pools 2-D (`GlobalAvgPool2D`) takes only `rank` 4."""
    if source is None:
        return None
    per_rank = tuple(
        None
        if dims is None or len(dims) < 3 or rank not in (None, len(dims))
        else (dims[0], dims[1] if keep_channels else None) + (1,) * (len(dims) - 2)
        for dims in source[1]
    )
    return None if all(d is None for d in per_rank) else (source[0], per_rank)


def _channels_first(call: cst.Call) -> bool:
    """A pooling call without a `layout`, or with a literal one starting "NC" (the spatial
    axes last): `GlobalAvgPool2D(layout='NHWC')` pools to (N, 1, 1, C), not followed."""
    layout = call_argument(call, None, "layout")
    if layout is None:
        return True
    value = layout.value.evaluated_value if isinstance(layout.value, cst.SimpleString) else None
    return isinstance(value, str) and value.startswith("NC")


def child_effect(
    construction: cst.BaseExpression, functions: Mapping[str, cst.FunctionDef]
) -> Optional[str]:
    """POOL<rank>, KEEP or None for the child `self.<a> = <construction>` builds (module docstring)."""
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
    if name in GLOBAL_POOL_LAYERS:  # `pool<rank>`: the rank of the array it pools
        return f"{POOL}{int(name[-2]) + 2}" if _channels_first(expr) else None
    if name in SHAPE_PRESERVING_LAYERS:
        return KEEP
    if name in _CONVOLUTIONS:
        if any(a.star and _starred(a, bound) is not _EMPTY for a in expr.args):
            return None  # `nn.Conv2D(c, 1, **kwargs)`: padding may be in kwargs
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
    parameter the body rebinds, or any starred argument, makes the value unknown. The
    factory's `*args`/`**kwargs` are `_EMPTY` when the call puts nothing there, else unknown
    (what they forward, `padding=1`, is not read)."""
    params = list(function.params.posonly_params) + list(function.params.params)
    named = [p.name.value for p in params + list(function.params.kwonly_params)]
    bound: Dict[str, object] = {}
    for param in params + list(function.params.kwonly_params):
        if param.default is not None:
            bound[param.name.value] = _literal(param.default, {})
    starred = any(a.star for a in call.args)
    positional = [a for a in call.args if a.keyword is None and not a.star]
    keywords = {a.keyword.value: a for a in call.args if a.keyword is not None}
    extra = (len(positional) > len(params), any(k not in named for k in keywords))
    for star, filled in zip((function.params.star_arg, function.params.star_kwarg), extra):
        if isinstance(star, cst.Param):
            bound[star.name.value] = _UNKNOWN if filled or starred else _EMPTY
    if starred:  # `conv1x1(**cfg)`: any parameter may be filled
        return {k: _UNKNOWN for k in [*bound, *named]}
    for param, arg in zip(params, positional):
        bound[param.name.value] = _literal(arg.value, outer)
    for keyword, arg in keywords.items():
        if keyword in named:
            bound[keyword] = _literal(arg.value, outer)
    rebound = _stored_names(function)
    return {k: (_UNKNOWN if k in rebound else v) for k, v in bound.items()}


def _starred(arg: cst.Arg, bound: Mapping[str, object]) -> object:
    """What a `*x`/`**x` argument holds: `_EMPTY` for a factory's own empty varargs."""
    return bound.get(arg.value.value, _UNKNOWN) if isinstance(arg.value, cst.Name) else _UNKNOWN


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
    for child in syntax_children(node):
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
