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
  literal arguments and the factory's literal defaults are bound to read kernel and padding;
- kept through a module class whose `hybrid_forward(self, F, x)` only chains children that keep
  the 1s (`x = self.conv(x)`, under any `if`, then `return x`: gluoncv2's `ConvBlock`, built by
  `conv1x1_block(...)`): its `__init__` is bound to the construction's literals as a factory's
  parameters are, each child it builds is judged the same way, and an activation given as a
  callable (`activation=lambda: nn.Activation("sigmoid")`, turned into a layer by a factory
  that tests it, `if isfunction(activation): return activation()`) is the layer the callable
  builds; a subclass of a shape-keeping gluon layer that does not override its forward
  (`class BatchNormExtra(nn.BatchNorm)`) keeps them too.

Anything else (a container, a module class doing anything but that chain, a layer whose
arguments are not literal, a factory whose call puts arguments in its `*args`/`**kwargs`:
`conv1x1(c, padding=1)` forwarding `**kwargs` to `nn.Conv2D(c, 1, **kwargs)` pads a 1x1 gate to
3x3) is not followed: an opaque child may upsample the gate back to (H, W) (PSPNet's pooling
branches).

A gate's shape form (`gate_form`) is the pooled array's with 1s on the spatial axes: HL007
compares it with the map it was pooled from (`x * pool(x)`: a 1 against x's dim), and calls any
other operand a feature map only by positive evidence (`shape_evidence`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Container, Dict, FrozenSet, Iterator, List, Mapping, Optional, Sequence

import libcst as cst

from ..mxnet_facts import SHAPE_PRESERVING_LAYERS
from ._shape_forms import Form
from .values import (
    TENSOR,
    Value,
    call_argument,
    last_name,
    literal_int,
    self_attribute_name,
    walk_nodes,
)

POOLED = "global_pool"  # a Value.shape_reason: 1s on every axis after the first two
POOL = "pool"  # a child that pools globally (`pool4`: arrays of rank 4)
KEEP = "keep"  # a child that keeps spatial 1s (channels may change)

GLOBAL_POOL_LAYERS = frozenset(
    f"Global{kind}Pool{rank}D" for kind in ("Avg", "Max") for rank in (1, 2, 3)
)
_CONVOLUTIONS = frozenset(("Conv1D", "Conv2D", "Conv3D"))
_UNKNOWN = object()  # a bound name whose value is not a literal
_EMPTY = object()  # a factory's `*args`/`**kwargs` that the call leaves empty
_DEPTH = 6  # factory functions and module classes followed at most this deep
_NO_CLASSES: Mapping[str, cst.ClassDef] = {}


@dataclass(frozen=True)
class _Callable:
    """A bound value that is a lambda without parameters (`activation=lambda: nn.ReLU()`):
    calling it builds what its body builds."""

    body: cst.BaseExpression


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
    construction: cst.BaseExpression,
    functions: Mapping[str, cst.FunctionDef],
    classes: Mapping[str, cst.ClassDef] = _NO_CLASSES,
) -> Optional[str]:
    """POOL<rank>, KEEP or None for the child `self.<a> = <construction>` builds (module docstring)."""
    return _effect(construction, {}, functions, 0, classes)


def _effect(
    expr: cst.BaseExpression,
    bound: Mapping[str, object],
    functions: Mapping[str, cst.FunctionDef],
    depth: int,
    classes: Mapping[str, cst.ClassDef] = _NO_CLASSES,
) -> Optional[str]:
    if not isinstance(expr, cst.Call) or depth > _DEPTH:
        return None
    name = last_name(expr.func)
    if isinstance(expr.func, cst.Name) and not expr.args:
        called = bound.get(expr.func.value)
        if isinstance(called, _Callable):  # `activation()`, activation a bound lambda
            return _effect(called.body, {}, functions, depth + 1, classes)
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
    if not isinstance(expr.func, cst.Name):
        return None
    if name in classes:
        return _class_effect(classes[name], expr, bound, functions, depth, classes)
    factory = functions.get(name)
    if factory is None:
        return None
    inner = _bind(factory, expr, bound)
    returns = list(_reached_returns(_statements(factory.body), inner))
    if not returns or any(r is None for r in returns):
        return None
    effects = {_effect(r, inner, functions, depth + 1, classes) for r in returns}  # type: ignore[arg-type]
    return effects.pop() if len(effects) == 1 else None


def _class_effect(
    klass: cst.ClassDef,
    call: cst.Call,
    bound: Mapping[str, object],
    functions: Mapping[str, cst.FunctionDef],
    depth: int,
    classes: Mapping[str, cst.ClassDef],
) -> Optional[str]:
    """KEEP when the module class `klass`, built by `call`, keeps a gate's spatial 1s: its
    hybrid_forward only chains children that keep them (module docstring); a subclass of a
    shape-keeping gluon layer that defines no forward of its own keeps them too."""
    methods = {
        s.name.value: s for s in klass.body.body if isinstance(s, cst.FunctionDef)
    }  # a class body of one line (`class A(B): pass`) has no FunctionDef
    forward = methods.get("hybrid_forward")
    if "forward" in methods:
        return None
    if forward is None:
        bases = [last_name(b.value) for b in klass.bases if b.keyword is None]
        keeps = bool(bases) and all(b in SHAPE_PRESERVING_LAYERS for b in bases)
        return KEEP if keeps and "__call__" not in methods else None
    params = forward.params
    if (
        len(params.params) != 3
        or isinstance(params.star_arg, (cst.Param, cst.ParamStar))
        or params.kwonly_params
        or params.star_kwarg is not None
        or params.posonly_params
    ):
        return None
    data = params.params[2].name.value
    statements = _statements(forward.body)
    if not _chains(statements, data, _EVERY_CHILD):
        return None  # no chain of children whatever they are: theirs need not be known
    init = methods.get("__init__")
    inner = _bind(init, call, bound, skip=1) if init is not None else {}
    kept = _kept_children(init, inner, functions, depth, classes) if init is not None else set()
    return KEEP if _chains(statements, data, kept) else None


class _EveryChild:
    """The set of every child attribute (`_passes` asks `self_attribute_name(...) in kept`,
    None for a call that is no child's): a forward that is no chain with every child kept is
    none with fewer, so the children's own effects (a walk of each child class, recursively)
    are worked out only for a forward that chains."""

    def __contains__(self, attr: object) -> bool:
        return attr is not None


_EVERY_CHILD = _EveryChild()


def _kept_children(
    init: cst.FunctionDef,
    bound: Mapping[str, object],
    functions: Mapping[str, cst.FunctionDef],
    depth: int,
    classes: Mapping[str, cst.ClassDef],
) -> set:
    """The attributes `__init__` binds only (every write, on any path) to children that keep a
    gate's spatial 1s."""
    effects: Dict[str, set] = {}
    for node in walk_nodes(init.body, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                attr = self_attribute_name(target.target)
                if attr is not None:
                    single = len(node.targets) == 1
                    effect = (
                        _effect(node.value, bound, functions, depth + 1, classes)
                        if single
                        else None
                    )
                    effects.setdefault(attr, set()).add(effect)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign)):
            attr = self_attribute_name(node.target)
            if attr is not None:
                effects.setdefault(attr, set()).add(None)
    return {attr for attr, found in effects.items() if found == {KEEP}}


def _chains(
    statements: Sequence[cst.BaseStatement], data: str, kept: Container[Optional[str]]
) -> bool:
    """Every statement passes `data` through kept children only: `data = self.<c>(data)`, an
    `if` of such statements (whatever its test: either way the 1s stay), `pass`, a docstring,
    and `return data` / `return self.<c>(data)`; the body ends with such a return."""
    if not statements:
        return False
    for statement in statements:
        if isinstance(statement, cst.If):
            branches: List[Sequence[cst.BaseStatement]] = [_statements(statement.body)]
            orelse = statement.orelse
            if isinstance(orelse, cst.If):
                return False  # `elif`: keep the form simple
            if orelse is not None:
                branches.append(_statements(orelse.body))
            if not all(_chains_open(b, data, kept) for b in branches):
                return False
            continue
        if not isinstance(statement, cst.SimpleStatementLine):
            return False
        for small in statement.body:
            if not _kept_step(small, data, kept):
                return False
    last = statements[-1]
    return isinstance(last, cst.SimpleStatementLine) and isinstance(last.body[-1], cst.Return)


def _chains_open(
    statements: Sequence[cst.BaseStatement], data: str, kept: Container[Optional[str]]
) -> bool:
    """A branch's statements: as `_chains`, without the final return."""
    return bool(statements) and all(
        isinstance(s, cst.SimpleStatementLine) and all(_kept_step(t, data, kept) for t in s.body)
        for s in statements
    )


def _kept_step(small: cst.BaseSmallStatement, data: str, kept: Container[Optional[str]]) -> bool:
    if isinstance(small, cst.Pass):
        return True
    if isinstance(small, cst.Expr):
        return isinstance(small.value, (cst.SimpleString, cst.ConcatenatedString))
    if isinstance(small, cst.Return):
        return small.value is not None and _passes(small.value, data, kept)
    if isinstance(small, cst.Assign):
        return (
            len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)
            and small.targets[0].target.value == data
            and _passes(small.value, data, kept)
        )
    return False


def _passes(expr: cst.BaseExpression, data: str, kept: Container[Optional[str]]) -> bool:
    """`data` itself, or `self.<c>(data)` with c a kept child."""
    if isinstance(expr, cst.Name):
        return expr.value == data
    return (
        isinstance(expr, cst.Call)
        and self_attribute_name(expr.func) in kept
        and len(expr.args) == 1
        and expr.args[0].keyword is None
        and not expr.args[0].star
        and isinstance(expr.args[0].value, cst.Name)
        and expr.args[0].value.value == data
    )


def _reached_returns(
    statements: Sequence[cst.BaseStatement], bound: Mapping[str, object]
) -> Iterator[Optional[cst.BaseExpression]]:
    """The values of the returns a call with `bound` parameters may reach: an `if` whose test
    `_truth` decides is followed into that branch alone (`if isfunction(activation): return
    activation()`), and statements after a branch that always returns are not reached. A
    return without a value yields None; nested defs and classes are not entered."""
    for statement in statements:
        if isinstance(statement, cst.If):
            decided = _truth(statement.test, bound)
            taken: List[Sequence[cst.BaseStatement]] = []
            orelse = statement.orelse
            other: Sequence[cst.BaseStatement] = (
                [orelse]
                if isinstance(orelse, cst.If)
                else _statements(orelse.body)
                if orelse
                else []
            )
            if decided is not False:
                taken.append(_statements(statement.body))
            if decided is not True:
                taken.append(other)
            for branch in taken:
                yield from _reached_returns(branch, bound)
            if all(_always_returns(b) for b in taken) and taken:
                return
            continue
        if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
            continue
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Return):
                    yield small.value
                    return
            continue
        for node in walk_nodes(statement, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            if isinstance(node, cst.Return):  # loops, try, with: every return they hold
                yield node.value


def _always_returns(statements: Sequence[cst.BaseStatement]) -> bool:
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return any(isinstance(s, (cst.Return, cst.Raise)) for s in last.body)
    if isinstance(last, cst.If) and last.orelse is not None:
        orelse = last.orelse
        other = [orelse] if isinstance(orelse, cst.If) else _statements(orelse.body)
        return _always_returns(_statements(last.body)) and _always_returns(other)
    return False


def _statements(suite: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    """A suite's statements; the small statements of a one-line suite (`if p: return q`) as
    one line."""
    if isinstance(suite, cst.IndentedBlock):
        return suite.body
    if isinstance(suite, cst.SimpleStatementSuite):
        return [cst.SimpleStatementLine(body=suite.body)]
    return []


_TYPES = {"str": str, "int": int, "float": float, "bool": bool}


def _truth(test: cst.BaseExpression, bound: Mapping[str, object]) -> Optional[bool]:
    """A factory's test evaluated on its bound literals, or None when it cannot be:
    `isfunction(p)` / `callable(p)`, `isinstance(p, str)` (int, float, bool; a tuple of
    those), `p is None`, `p is not None`, `p == "lit"`, `p != "lit"`, `not`, `and`, `or`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _truth(test.expression, bound)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation):
        left, right = _truth(test.left, bound), _truth(test.right, bound)
        if isinstance(test.operator, cst.And):
            return False if False in (left, right) else None if None in (left, right) else True
        return True if True in (left, right) else None if None in (left, right) else False
    if isinstance(test, cst.Call) and test.args and isinstance(test.args[0].value, cst.Name):
        value = bound.get(test.args[0].value.value, _UNKNOWN)
        if value is _UNKNOWN or value is _EMPTY:
            return None
        name = last_name(test.func)
        if name in ("isfunction", "callable") and len(test.args) == 1:
            return isinstance(value, _Callable)
        if name == "isinstance" and len(test.args) == 2:
            kinds = test.args[1].value
            items = [e.value for e in kinds.elements] if isinstance(kinds, cst.Tuple) else [kinds]
            names = [n.value for n in items if isinstance(n, cst.Name)]
            if len(names) != len(items) or not all(n in _TYPES for n in names):
                return None
            types = tuple(_TYPES[n] for n in names)
            if isinstance(value, _Callable) or value is None:
                return False
            if isinstance(value, bool):  # bool is an int to isinstance
                return bool in types or int in types
            return isinstance(value, types)
        return None
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        lhs = _literal(test.left, bound)
        rhs = _literal(test.comparisons[0].comparator, bound)
        if lhs is _UNKNOWN or rhs is _UNKNOWN or _EMPTY in (lhs, rhs):
            return None
        operator = test.comparisons[0].operator
        if isinstance(operator, (cst.Is, cst.IsNot)) and None in (lhs, rhs):
            same = lhs is rhs
            return same if isinstance(operator, cst.Is) else not same
        if isinstance(operator, (cst.Equal, cst.NotEqual)) and all(
            isinstance(v, (str, int)) for v in (lhs, rhs)
        ):
            same = type(lhs) is type(rhs) and lhs == rhs
            return same if isinstance(operator, cst.Equal) else not same
    return None


def _bind(
    function: cst.FunctionDef,
    call: cst.Call,
    outer: Mapping[str, object],
    skip: int = 0,
) -> Dict[str, object]:
    """The factory's parameters as literals: the call's arguments, else the defaults (`skip`
    leading parameters are not the call's: a constructor's `self`). A parameter the body
    rebinds, or a starred argument other than a factory's own empty `*args`/`**kwargs`, makes
    the value unknown. The factory's `*args`/`**kwargs` are `_EMPTY` when the call puts
    nothing there, else unknown (what they forward, `padding=1`, is not read)."""
    params = (list(function.params.posonly_params) + list(function.params.params))[skip:]
    named = [p.name.value for p in params + list(function.params.kwonly_params)]
    bound: Dict[str, object] = {}
    for param in params + list(function.params.kwonly_params):
        if param.default is not None:
            bound[param.name.value] = _literal(param.default, {})
    starred = any(a.star and _starred(a, outer) is not _EMPTY for a in call.args)
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


# function -> the names its body assigns: a pure memo (a factory or `__init__` is bound once
# per construction, and gluoncv2's `conv1x1_block` of `.common` builds most children of a zoo)
_STORED_NAMES: Dict[cst.CSTNode, FrozenSet[str]] = {}


def _stored_names(function: cst.FunctionDef) -> FrozenSet[str]:
    found = _STORED_NAMES.get(function)
    if found is None:
        names = set()
        for node in walk_nodes(function.body):
            if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign)):
                target = node.target
                if isinstance(target, cst.Name):
                    names.add(target.value)
        if len(_STORED_NAMES) >= 4096:
            _STORED_NAMES.clear()
        found = _STORED_NAMES[function] = frozenset(names)
    return found


def _literal(expr: cst.BaseExpression, bound: Mapping[str, object]) -> object:
    """An int, a string, a tuple of them, True/False/None, a lambda without parameters
    (`_Callable`), or a bound name's literal; else `_UNKNOWN`."""
    number = literal_int(expr)
    if number is not None:
        return number
    if isinstance(expr, cst.SimpleString):
        text = expr.evaluated_value
        return text if isinstance(text, str) else _UNKNOWN
    if isinstance(expr, cst.Lambda):
        params = expr.params
        empty = (
            not (params.params or params.posonly_params or params.kwonly_params)
            and not isinstance(params.star_arg, cst.Param)
            and params.star_kwarg is None
        )
        return _Callable(expr.body) if empty else _UNKNOWN
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
