"""A constant parameter for an array a helper method makes (HL005): threaded to the helper.

Gluon passes parameters to hybrid_forward only. When a helper method of the block makes an
array from values fixed at construction (`F.array(1. - np.greater_equal.outer(
np.arange(self._n), np.arange(self._n)).astype(np.float32))`, gluonfr's RangeLoss), the array
becomes a constant parameter built in `__init__` from the same expression, hybrid_forward takes
it, passes it to every call of the helper as a keyword argument, and the helper takes it in
place of the creation. This module decides when that is exact and builds the edits.
"""

from __future__ import annotations

import builtins
from typing import Callable, List, Optional, Set

import libcst as cst

from . import _constant_param as const
from ._build import with_keyword
from .base import Edit

_BUILTINS = set(dir(builtins))
# statements under which code may not run on every call (a value made there could fail in
# __init__ for a configuration that never makes it)
_CONDITIONAL = (cst.If, cst.While, cst.Try)


def construction_value(
    expr: cst.BaseExpression, klass: cst.ClassDef, module_name: Callable[[str], bool]
) -> bool:
    """`expr` can be computed in `__init__` to the same value: it reads only names the module
    binds or imports (`np`), builtins, and `self.<a>` attributes `__init__` sets once, before
    the constant's place, and no other method sets (`const.init_attribute`); no other `self`
    use, no local or parameter of the function it sits in."""
    found = const.own_init(klass)
    if found is None:
        return False
    init: cst.FunctionDef = found  # (narrowed for the visitor below)
    ok = [True]

    class Reads(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            if isinstance(node.value, cst.Name) and node.value.value == "self":
                if not const.init_attribute(klass, init, node.attr.value):
                    ok[0] = False
                return False
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if not (module_name(node.value) or node.value in _BUILTINS):
                ok[0] = False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)  # (not the keyword's name)
            return False

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            ok[0] = False
            return False

    expr.visit(Reads())
    return ok[0]


def runs_always(function: cst.FunctionDef, target: cst.CSTNode) -> bool:
    """`target` (inside `function`) runs on every call: it is under no if/while/try, and the
    function has no `return`/`raise` but its last top-level statement (an early exit would
    skip it)."""
    if _conditional_path(function.body, target) is not False:
        return False
    body = list(function.body.body) if isinstance(function.body, cst.IndentedBlock) else []
    exits: List[cst.CSTNode] = []

    class Exits(cst.CSTVisitor):
        def visit_Return(self, node: cst.Return) -> None:
            exits.append(node)

        def visit_Raise(self, node: cst.Raise) -> None:
            exits.append(node)

        def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
            return False  # (a nested function's own returns)

        def visit_Lambda(self, node: cst.Lambda) -> bool:
            return False

    for stmt in body:
        stmt.visit(Exits())
    last = body[-1] if body else None
    allowed = list(last.body) if isinstance(last, cst.SimpleStatementLine) else []
    return all(e in allowed for e in exits)


def _conditional_path(root: cst.CSTNode, target: cst.CSTNode) -> Optional[bool]:
    """Whether `target` inside `root` sits under an if/while/try (None: not found)."""
    found: List[bool] = []
    stack: List[cst.CSTNode] = []

    class Path(cst.CSTVisitor):
        def on_visit(self, node: cst.CSTNode) -> bool:
            if found:
                return False
            if node is target:
                found.append(any(isinstance(s, _CONDITIONAL) for s in stack))
                return False
            stack.append(node)
            return True

        def on_leave(self, original_node: cst.CSTNode) -> None:
            if stack and stack[-1] is original_node:
                stack.pop()

    root.visit(Path())
    return found[0] if found else None


def _self_calls(node: cst.CSTNode, method: str) -> List[cst.Call]:
    calls: List[cst.Call] = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            func = call.func
            if (
                isinstance(func, cst.Attribute)
                and isinstance(func.value, cst.Name)
                and func.value.value == "self"
                and func.attr.value == method
            ):
                calls.append(call)

    node.visit(Calls())
    return calls


def _mentions(node: cst.CSTNode, method: str) -> int:
    count = [0]

    class Mentions(cst.CSTVisitor):
        def visit_Attribute(self, attr: cst.Attribute) -> None:
            if (
                isinstance(attr.value, cst.Name)
                and attr.value.value == "self"
                and attr.attr.value == method
            ):
                count[0] += 1

    node.visit(Mentions())
    return count[0]


def taken(klass: cst.ClassDef, helper: cst.FunctionDef, forward: cst.FunctionDef) -> Set[str]:
    """Names the constant must not take: the class's attributes, every name of the helper and
    of hybrid_forward (whose signatures both gain it)."""
    return const.taken_names(klass, helper) | const.taken_names(klass, forward)


def threading_edits(
    klass: cst.ClassDef,
    helper: cst.FunctionDef,
    creation: cst.CSTNode,
    name: str,
    statement: cst.BaseStatement,
) -> Optional[List[Edit]]:
    """The edits outside the helper's body that pass constant `name` to it: `statement`
    (`self.<name> = self.params.get_constant(...)`) at the end of `__init__`, `<name>` added to
    hybrid_forward's and the helper's signatures, and `<name>=<name>` to every call of the
    helper. None unless every mention of the helper in the class is a call in hybrid_forward
    outside if/while/try, the creation is outside if/while/try in the helper, and the class
    has its own `__init__` calling super().__init__."""
    methods = {
        s.name.value: s
        for s in (klass.body.body if isinstance(klass.body, cst.IndentedBlock) else ())
        if isinstance(s, cst.FunctionDef)
    }
    forward = methods.get("hybrid_forward")
    init = const.own_init(klass)
    method = helper.name.value
    if forward is None or init is None or methods.get(method) is not helper:
        return None
    calls = _self_calls(forward, method)
    if not calls or _mentions(klass, method) != len(calls):
        return None  # called elsewhere too (another method, a callback): not threaded there
    if not runs_always(helper, creation) or not all(runs_always(forward, c) for c in calls):
        return None
    if any(a.star == "**" for call in calls for a in call.args):
        return None
    insert = const.init_edit(init, statement)
    if insert is None:
        return None
    edits: List[Edit] = [
        insert,
        const.signature_edit(forward, name),
        const.signature_edit(helper, name),
    ]
    for call in calls:
        edits.append((call, with_keyword(call, name, cst.Name(name))))
    return edits
