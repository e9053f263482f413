"""Eager-only guards: which branches of an `if` only ever run on NDArrays."""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

from .values import EAGER_NAMESPACES, SYMBOL_NAMESPACES, dotted_name


def classify_guard(test: cst.BaseExpression, namespace: Optional[str]) -> Tuple[bool, bool]:
    """(body is eager-only, orelse is eager-only) for `if test:`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        body, orelse = classify_guard(test.expression, namespace)
        return orelse, body
    if isinstance(test, cst.BooleanOperation):
        left = classify_guard(test.left, namespace)
        right = classify_guard(test.right, namespace)
        if isinstance(test.operator, cst.And):
            return left[0] or right[0], False
        return left[0] and right[0], left[1] or right[1]
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comp = test.comparisons[0]
        sides = [dotted_name(test.left), dotted_name(comp.comparator)]
        if namespace is None or namespace not in sides:
            return False, False
        other = sides[1] if sides[0] == namespace else sides[0]
        positive = isinstance(comp.operator, (cst.Is, cst.Equal))
        negative = isinstance(comp.operator, (cst.IsNot, cst.NotEqual))
        if other in EAGER_NAMESPACES:
            return (True, False) if positive else (False, True) if negative else (False, False)
        if other in SYMBOL_NAMESPACES:
            return (False, True) if positive else (True, False) if negative else (False, False)
        return False, False
    if isinstance(test, cst.Call) and dotted_name(test.func) == "isinstance" and len(test.args) == 2:
        types = test.args[1].value
        names = ([dotted_name(e.value) for e in types.elements]
                 if isinstance(types, cst.Tuple) else [dotted_name(types)])
        if names and all(n is not None and n.split(".")[-1] == "NDArray" for n in names):
            return True, False
        if names and all(n is not None and n.split(".")[-1] == "Symbol" for n in names):
            return False, True
    return False, False


def always_exits(block: cst.BaseSuite) -> bool:
    """True when a block ends in raise or return (the code after its `if` is the other case)."""
    if not isinstance(block, cst.IndentedBlock) or not block.body:
        return isinstance(block, cst.SimpleStatementSuite) and bool(block.body) and isinstance(
            block.body[-1], (cst.Raise, cst.Return))
    last = block.body[-1]
    return isinstance(last, cst.SimpleStatementLine) and bool(last.body) and isinstance(
        last.body[-1], (cst.Raise, cst.Return))


