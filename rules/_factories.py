"""Module factory functions that build a child block (`conv1x1_block(...)` returning
`ConvBlock(...)`, `conv1x1(...)` returning `nn.Conv2D(...)`): gluon model zoos build most of
their layers so, and a child the analysis cannot see through is a tensor of unknown kind to
every rule. A factory is followed only when every return builds something of one kind."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, List, Optional

import libcst as cst

from .values import TENSOR, UNKNOWN_VALUE, Value, bound_targets, target_names, walk_nodes


def returns(function: cst.FunctionDef) -> List[cst.Return]:
    """The function's own return statements (not those of nested defs or classes), in source
    order (`walk_nodes` meets them last first: no return holds another)."""
    found = [
        node
        for node in walk_nodes(function.body, stop=(cst.FunctionDef, cst.ClassDef))
        if isinstance(node, cst.Return)
    ]
    return found[::-1]


def bound_call(function: cst.FunctionDef, expr: Optional[cst.BaseExpression]) -> Optional[cst.Call]:
    """The construction `expr` stands for in `function`: `expr` itself when it is a call, the
    call a name is bound to when the function binds it once, by a plain assignment (`layer =
    nn.HybridSequential(prefix=...)`, then `layer.add(...)`, `return layer`: gluon's
    `_make_layer`); None otherwise."""
    if isinstance(expr, cst.Call):
        return expr
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    if not isinstance(expr, cst.Name) or any(p.name.value == expr.value for p in every):
        return None
    calls: List[cst.BaseExpression] = []
    stores = 0
    for node in walk_nodes(function.body, stop=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if isinstance(target.target, cst.Name) and target.target.value == expr.value:
                    calls.append(node.value)
        stores += sum(expr.value in target_names(t) for t in bound_targets(node))
    if stores != 1 or len(calls) != 1 or not isinstance(calls[0], cst.Call):
        return None
    return calls[0]


def factory_value(
    function: cst.FunctionDef, value_of: Callable[[cst.BaseExpression], Value]
) -> Value:
    """What calling the block `function` returns yields: a tensor when every return statement
    returns a construction (`bound_call`) whose block yields a tensor (`value_of`), fresh only
    if every one is; unknown otherwise (a return of a parameter, `activation()`, a branch
    returning None)."""
    built = [bound_call(function, r.value) for r in returns(function)]
    values = [value_of(call) if call is not None else UNKNOWN_VALUE for call in built]
    if not values or any(v.kind != TENSOR or v.items is not None for v in values):
        return UNKNOWN_VALUE
    return replace(values[0], fresh=all(v.fresh for v in values))
