"""Module factory functions that build a child block (`conv1x1_block(...)` returning
`ConvBlock(...)`, `conv1x1(...)` returning `nn.Conv2D(...)`): gluon model zoos build most of
their layers so, and a child the analysis cannot see through is a tensor of unknown kind to
every rule. A factory is followed only when every return builds something of one kind."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, List

import libcst as cst

from .values import TENSOR, UNKNOWN_VALUE, Value, walk_nodes


def returns(function: cst.FunctionDef) -> List[cst.Return]:
    """The function's own return statements (not those of nested defs or classes), in source
    order (`walk_nodes` meets them last first: no return holds another)."""
    found = [
        node
        for node in walk_nodes(function.body, stop=(cst.FunctionDef, cst.ClassDef))
        if isinstance(node, cst.Return)
    ]
    return found[::-1]


def factory_value(
    function: cst.FunctionDef, value_of: Callable[[cst.BaseExpression], Value]
) -> Value:
    """What calling the block `function` returns yields: a tensor when every return statement
    returns a construction whose block yields a tensor (`value_of`), fresh only if every one
    is; unknown otherwise (a return of a parameter, `activation()`, a branch returning None)."""
    values = [
        value_of(r.value) if isinstance(r.value, cst.Call) else UNKNOWN_VALUE
        for r in returns(function)
    ]
    if not values or any(v.kind != TENSOR or v.items is not None for v in values):
        return UNKNOWN_VALUE
    return replace(values[0], fresh=all(v.fresh for v in values))
