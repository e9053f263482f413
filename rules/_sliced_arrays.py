"""Gluon inputs proven arrays by slice arithmetic: `s[1:] - s[:-1]` (issues 20/21).

An item of `*states` (or an input named like a list, or one with a default) is of unknown kind:
gluon passes lists of arrays the same way as arrays, so `s[1:]` alone may be a list's slice.
But both slices of one name meeting in `-`, `*`, `/`, `//`, `**` or `@` prove the name is not a
list, tuple or None: eagerly `[a, b][1:] - [a, b][:-1]` raises TypeError (and `None[1:]` too),
so working code holds an array there. Hybridized, a gluon input that is an array is a Symbol, on
which `[1:]` selects OUTPUTS (gluon's TemporalActivationRegularizationLoss then builds a graph
with no outputs: TypeError: Expected a list of symbols as input).

The evidence is kept to names that hold a gluon input where they are sliced: a hybrid_forward
parameter the body never rebinds, or the target of a `for` or comprehension that iterates such a
parameter directly (`states`, `states[-1:]`, `reversed(states)`), never rebound otherwise. A
local name may hold a numpy constant, which survives the arithmetic and is no graph input.

A numpy array survives the arithmetic too, and gluon lets one reach an eager hybrid_forward
beside an NDArray input: that is why a fix resting on this evidence alone is unsafe
(`F.slice` raises on a numpy array where the original worked).
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set

import libcst as cst

from ..cstwalk import visit_only
from .values import NameBindings, parent_map, target_names, walk_nodes

# a list, tuple, str or None raises TypeError under these whatever the other slice holds
_RAISING_ON_SEQUENCES = (
    cst.Subtract,
    cst.Multiply,
    cst.Divide,
    cst.FloorDivide,
    cst.Power,
    cst.MatrixMultiply,
)
_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def _sliced_name(expr: cst.BaseExpression) -> Optional[cst.Name]:
    """`n[a:b]` (one slice, not an index): the Name `n`."""
    if (
        isinstance(expr, cst.Subscript)
        and isinstance(expr.value, cst.Name)
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Slice)
    ):
        return expr.value
    return None


class _BindingCounts(NameBindings):
    """How many times a body binds each plain name: the binding forms of `NameBindings`, plus
    `except ... as` and `import ... as` (every `as`), not below nested defs, classes and
    lambdas (their names bind here, their bodies are another scope)."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: Dict[str, int] = {}

    def bind_name(self, name: cst.Name) -> None:
        self.counts[name.value] = self.counts.get(name.value, 0) + 1

    def visit_WithItem(self, node: cst.WithItem) -> None:
        pass  # its `as` name is counted by visit_AsName

    def visit_AsName(self, node: cst.AsName) -> None:
        self.bind(node.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:  # type: ignore[override]
        self.bind_name(node.name)
        return False

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.bind_name(node.name)
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False


def _binding_counts(body: cst.CSTNode) -> Dict[str, int]:
    """How many times the body binds each plain name (outside nested scopes)."""
    counter = _BindingCounts()
    visit_only(body, counter)
    return counter.counts


def sliced_arrays(node: cst.FunctionDef, inputs: Set[str]) -> Set[cst.Name]:
    """The Name nodes, bases of `n[a:b] <op> n[c:d]`, that hold a gluon input proven an array
    by that arithmetic. `inputs`: the hybrid_forward's input names (after F)."""
    pairs: List[cst.Name] = []
    for sub in walk_nodes(node.body, stop=_SCOPES):
        if isinstance(sub, cst.BinaryOperation) and isinstance(sub.operator, _RAISING_ON_SEQUENCES):
            left, right = _sliced_name(sub.left), _sliced_name(sub.right)
            if left is not None and right is not None and left.value == right.value:
                pairs += [left, right]
    if not pairs:
        return set()
    bindings = _binding_counts(node.body)
    parents = parent_map(node.body)
    return {name for name in pairs if _holds_input(name, parents, inputs, bindings)}


def _holds_input(
    name: cst.Name,
    parents: Dict[cst.CSTNode, cst.CSTNode],
    inputs: Set[str],
    bindings: Dict[str, int],
) -> bool:
    """`name` holds a never-rebound input, or an item of one iterated by its only binding."""
    child: cst.CSTNode = name
    parent = parents.get(child)
    while parent is not None:
        if isinstance(parent, _COMPREHENSIONS):
            comp = getattr(parent, "for_in", None)
            while comp is not None:
                if name.value in target_names(comp.target):
                    return isinstance(comp.target, cst.Name) and _iterates_input(
                        comp.iter, inputs, bindings, name.value
                    )
                comp = comp.inner_for_in
        elif isinstance(parent, cst.For) and child is not parent.iter:
            if name.value in target_names(parent.target):
                return isinstance(parent.target, cst.Name) and _iterates_input(
                    parent.iter, inputs, bindings, name.value
                )
        child, parent = parent, parents.get(parent)
    return name.value in inputs and bindings.get(name.value, 0) == 0


def _iterates_input(
    iterable: cst.BaseExpression, inputs: Set[str], bindings: Dict[str, int], target: str
) -> bool:
    """`for target in p`, `p[a:b]` or `reversed(p)`, p a never-rebound input, the target bound
    nowhere else."""
    if bindings.get(target, 0) != 1:
        return False
    if isinstance(iterable, cst.Call) and isinstance(iterable.func, cst.Name):
        if iterable.func.value != "reversed" or len(iterable.args) != 1:
            return False
        iterable = iterable.args[0].value
    base = _sliced_name(iterable)
    if base is not None:
        iterable = base
    return (
        isinstance(iterable, cst.Name)
        and iterable.value in inputs
        and bindings.get(iterable.value, 0) == 0
    )
