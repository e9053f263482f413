"""Inputs of hybrid_forward that the body uses as tensors (issue 21 item 1).

gluon passes a list of arrays as one input the same way it passes an array, so an input is
only *assumed* a tensor by its position (`Value.assumed`), and nothing derived from it was
certain: `y = x * 2; y += x` got no finding although it raises NotImplementedForSymbol
hybridized. This module decides, after the first walk of a hybrid_forward, which assumed inputs
the body uses the way tensors are used, while the name still holds the input itself (the walk's
environment before each statement says so):

- strong: a use a list does not survive eagerly: a plain argument of an `F.<op>(...)` call, an
  attribute only arrays have (`x.reshape(...)`, `x.shape`), `-x`, `x - y`, `x / y`, `x ** 2`;
- weak: `x + y`, `x * 2`, comparisons, `x += ...`: lists join, repeat and compare too.

Either makes the input a tensor, unless the body also gives evidence of a list anywhere: `len(x)`,
iterating it, a list, tuple or dict method (`x.append`, `x.items()`), `isinstance(x, ...)`,
`x + [...]`, `list(x)`, `... in x`, a string key (`x["a"]`). An input with only weak uses is
one where a list is still possible: `analyze` records it with the call-site tensors
(`FunctionFacts.caller_tensors`), so fixes that rest on it are unsafe, never safe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Set, Tuple

import libcst as cst

from ..cstwalk import walk
from .values import (
    COMPARISON_OPERATORS,
    EAGER_NAMESPACES,
    SYMBOL_NAMESPACES,
    TENSOR,
    UNKNOWN_VALUE,
    Env,
    dotted_name,
    iterated_names,
    namespace_call,
)

if TYPE_CHECKING:  # pragma: no cover
    from .analysis import FunctionFacts

_CONTAINER_ATTRIBUTES = frozenset(dir(list)) | frozenset(dir(tuple)) | frozenset(dir(dict))
# operators a list (or tuple) raises TypeError on, whatever the other operand
_STRONG_OPERATORS = (
    cst.Subtract,
    cst.Divide,
    cst.FloorDivide,
    cst.Power,
    cst.MatrixMultiply,
    cst.BitAnd,
    cst.BitOr,
    cst.BitXor,
)
# exact types (concrete LibCST classes: a set lookup instead of an ABC isinstance per node)
_SCOPES = frozenset({cst.FunctionDef, cst.Lambda, cst.ClassDef})
_COMPREHENSIONS = frozenset({cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp})


def tensors_by_use(facts: "FunctionFacts", initial: Env) -> Tuple[Set[str], Set[str]]:
    """(inputs the body uses as tensors and never as lists, those of them with a strong use).

    `initial` is the environment the walk started from: a use counts only where the name
    still holds that value (`x = x[0]` rebinds it to something else)."""
    candidates = {name for name, value in initial.items() if value.kind == TENSOR and value.assumed}
    if not candidates:
        return set(), set()
    finder = _InputUses(candidates, facts, initial)
    walk(facts.node.body, finder, trivia=False)  # read-only (LibCST's visit rebuilds): issue 22
    used = (finder.weak | finder.strong) - finder.lists
    return used, used & finder.strong


class _InputUses(cst.CSTVisitor):
    """Sorts the mentions of the candidate inputs into weak and strong tensor uses (at their
    original binding, outside nested scopes and eager-only code) and list evidence (anywhere)."""

    def __init__(self, names: Set[str], facts: "FunctionFacts", initial: Env) -> None:
        self.names, self.facts, self.initial = names, facts, initial
        self.weak: Set[str] = set()
        self.strong: Set[str] = set()
        self.lists: Set[str] = set()
        self.statements: List[cst.CSTNode] = []
        self.path: List[cst.CSTNode] = []  # the nodes from the body down to the one visited
        self.hidden = 0  # inside a nested scope, an eager-only subtree or a shadowing comprehension
        self.hides: List[bool] = []  # per node of the path: it raised `hidden`

    # -- where we are -----------------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        self.path.append(node)
        if node in self.facts.env_at:
            self.statements.append(node)
        hides = type(node) in _SCOPES or node in self.facts.skip or self._shadows(node)
        self.hides.append(hides)
        self.hidden += hides
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.hidden -= self.hides.pop()
        if self.statements and self.statements[-1] is original_node:
            self.statements.pop()
        self.path.pop()

    def _shadows(self, node: cst.CSTNode) -> bool:
        if type(node) not in _COMPREHENSIONS:
            return False
        comp = getattr(node, "for_in", None)
        while comp is not None:
            for target in _names_in(comp.target):
                if target in self.names:
                    return True
            comp = comp.inner_for_in
        return False

    def _input(self, expr: Optional[cst.CSTNode]) -> Optional[str]:
        """The candidate `expr` names while it still holds the input itself, else None."""
        if not isinstance(expr, cst.Name) or expr.value not in self.names or self.hidden:
            return None
        env: Env = self.facts.env_at.get(self.statements[-1], {}) if self.statements else {}
        if env.get(expr.value, UNKNOWN_VALUE) != self.initial[expr.value]:
            return None
        return expr.value

    def _mine(self, expr: Optional[cst.CSTNode]) -> Optional[str]:
        """The candidate `expr` names, wherever it is (for list evidence)."""
        if isinstance(expr, cst.Name) and expr.value in self.names:
            return expr.value
        return None

    def _list(self, expr: Optional[cst.CSTNode]) -> None:
        name = self._mine(expr)
        if name is not None:
            self.lists.add(name)

    def _certain(self, expr: cst.BaseExpression) -> bool:
        """`expr` is certainly a tensor where it stands (a list next to one raises eagerly)."""
        env = self.facts.env_at.get(self.statements[-1]) if self.statements else None
        return env is not None and self.facts.value(expr, env).is_tensor

    def _use(self, name: str, strong: bool) -> None:
        """Record a use of the node on top of the path (an operation on the input): strong when
        its result meets a certain tensor or an operator, whose arrays a list would not be."""
        if not strong:
            child = self.path[-1]
            for parent in reversed(self.path[:-1]):
                if isinstance(parent, cst.BinaryOperation):
                    other = parent.right if parent.left is child else parent.left
                    if self._certain(other):
                        strong = True
                        break
                elif isinstance(parent, cst.AugAssign):  # `z -= y + 1`: next to z
                    strong = parent.value is child and self._certain(parent.target)
                    break
                elif isinstance(parent, cst.Arg):
                    call = self.path[self.path.index(parent) - 1]
                    strong = isinstance(call, cst.Call) and _operator(call, self.facts.namespace)
                    break
                elif not isinstance(parent, (cst.UnaryOperation, cst.Element, cst.List, cst.Tuple)):
                    break
                child = parent
        (self.strong if strong else self.weak).add(name)

    # -- tensor uses -------------------------------------------------------------------------
    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        strong = isinstance(node.operator, _STRONG_OPERATORS)
        for mine, other in ((node.left, node.right), (node.right, node.left)):
            if isinstance(other, (cst.List, cst.Tuple, cst.ListComp)):
                self._list(mine)  # `x + [y]`: list concatenation
            name = self._input(mine)
            if name is not None:
                self._use(name, strong or self._certain(other))

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        name = self._input(node.expression)
        if name is not None and not isinstance(node.operator, cst.Not):
            self.strong.add(name)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left] + [c.comparator for c in node.comparisons]
        for comparison, right in zip(node.comparisons, operands[1:]):
            if isinstance(comparison.operator, (cst.In, cst.NotIn)):
                self._list(right)  # `k in x`: a container
        if len(operands) == 2 and isinstance(node.comparisons[0].operator, COMPARISON_OPERATORS):
            for operand, other in zip(operands, reversed(operands)):
                name = self._input(operand)
                if name is not None:
                    self._use(name, self._certain(other))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        for part, other in ((node.target, node.value), (node.value, node.target)):
            name = self._input(part)
            if name is not None:
                self._use(name, self._certain(other))
        if isinstance(node.value, (cst.List, cst.Tuple, cst.ListComp)):
            self._list(node.target)  # `x += [y]`

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if node.attr.value in _CONTAINER_ATTRIBUTES:
            self._list(node.value)
            return
        name = self._input(node.value)
        if name is not None:
            self.strong.add(name)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Name) and func.value in ("len", "list", "tuple", "isinstance"):
            if node.args:
                self._list(node.args[0].value)
        if isinstance(func, cst.Name):  # `zip(x, y)`, `enumerate(x)`: iterated
            self.lists.update(n for n in iterated_names(node) if n in self.names)
        for arg in node.args:
            if arg.star:
                self._list(arg.value)
        if namespace_call(node, self.facts.namespace) is not None:
            for arg in node.args:
                used = self._input(arg.value) if not arg.star else None
                if used is not None:
                    self.strong.add(used)

    # -- list evidence -----------------------------------------------------------------------
    def visit_For(self, node: cst.For) -> None:
        for name in iterated_names(node.iter):
            if name in self.names:
                self.lists.add(name)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        for name in iterated_names(node.iter):
            if name in self.names:
                self.lists.add(name)

    def visit_StarredElement(self, node: cst.StarredElement) -> None:
        self._list(node.value)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if (
            len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(
                node.slice[0].slice.value,
                (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString),
            )
        ):
            self._list(node.value)  # `x["key"]`: a mapping


def _operator(call: cst.Call, namespace: Optional[str]) -> bool:
    """`F.<op>(...)`, `nd.<op>(...)`, `mx.sym.<op>(...)`: its plain arguments are arrays."""
    name = dotted_name(call.func)
    if name is None or "." not in name or name.rpartition(".")[2] in ("array", "asarray"):
        return False
    head = name.rpartition(".")[0]
    return (
        head.split(".")[0] == namespace
        or head in EAGER_NAMESPACES | SYMBOL_NAMESPACES
        or head.rpartition(".")[0] in EAGER_NAMESPACES | SYMBOL_NAMESPACES
    )


def _names_in(target: cst.BaseExpression) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _names_in(e.value)]
    return []
