"""Rewrites of Python iteration over a tensor (issue 12): `for r in x`, `[f(r) for r in x]`,
`zip(a, x)`, `enumerate(x)`, `list(x)`, `map(f, x)`.

An NDArray iterates over its first axis; a Symbol over its outputs (a single-output Symbol
yields itself, once). HL008 reports loops and comprehensions over a tensor, HL014 the other
ways Python iterates one; both ask this module for a rewrite. The tensor becomes
`F.split(x, num_outputs=n, axis=0, squeeze_axis=True)`, whose n outputs are the rows of x in
both modes, when n is known:

- **safe**: the analysis knows x's first dimension (a literal reshape target, a creation of a
  literal shape, a parameter of declared shape) and x has two or more axes (a one-dimensional
  NDArray iterates into rows of shape (1,), `squeeze_axis` gives shape ()), n >= 2 (split
  with one output returns the array itself, which would be iterated again);
- **unsafe**: `zip(a, x)` with `a` a model attribute (`self.heads`, `self._weights`) or a
  literal list of k >= 2 items: n = `len(self.heads)` / k. zip stops at the shorter, so the
  rewrite is exact when x has exactly that many rows, and raises (squeeze_axis needs the axis
  length to equal n) where the original silently used fewer or more: not provable, so unsafe.
  Likewise `enumerate(x)` in a loop or comprehension whose body indexes a model attribute
  with the enumerate index (`[self.heads[t](r) for t, r in enumerate(x)]`, the `for` form
  too): working code has at most `len(self.heads)` rows (one more raises IndexError), n =
  `len(self.heads)`, exact when x has exactly that many rows, raising when fewer: unsafe.

Otherwise the count is not written in the code and nothing is rewritten (report only).
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import libcst as cst

from ._build import call, integer
from ._outputs import single_output
from .base import SAFE, UNSAFE
from .values import NameBindings, walk_nodes

# builtins that iterate their positional arguments (from the given index on) element by element
ITERATING_ARGS = {"zip": 0, "enumerate": 0, "list": 0, "tuple": 0, "map": 1}


def plan_iteration(rule, iterable: cst.BaseExpression) -> Optional[Tuple[cst.BaseExpression, str]]:
    """The rewrite of an iterable that iterates a tensor (a loop header, a comprehension's `in`,
    an iterating builtin's call): (replacement of `iterable`, safety), or None."""
    if rule.namespace is None:
        return None
    if not isinstance(iterable, cst.Call):
        planned = _count(rule, iterable, ())
        return (_split(rule.namespace, iterable, planned[0]), planned[1]) if planned else None
    name = iterable.func.value if isinstance(iterable.func, cst.Name) else None
    if name not in ITERATING_ARGS or name in rule.env or any(a.star for a in iterable.args):
        return None
    positional = [a for a in iterable.args if a.keyword is None]
    if name != "zip" and len(positional) != ITERATING_ARGS[name] + 1:
        return None
    targets = positional[ITERATING_ARGS[name] :]
    others = [a.value for a in targets] if name == "zip" else []
    if name == "enumerate" and len(iterable.args) == 1:
        indexed = _indexed_attribute(rule, iterable)
        others = [indexed] if indexed is not None else []
    new_args: List[cst.Arg] = []
    safety, changed = SAFE, False
    for arg in iterable.args:
        if arg in targets and rule.is_tensor(arg.value):
            planned = _count(rule, arg.value, [o for o in others if o is not arg.value])
            if planned is None:
                return None
            new_args.append(arg.with_changes(value=_split(rule.namespace, arg.value, planned[0])))
            safety = UNSAFE if planned[1] == UNSAFE else safety
            changed = True
        else:
            new_args.append(arg)
    if not changed:
        return None
    return iterable.with_changes(args=new_args), safety


def _split(namespace: str, tensor: cst.BaseExpression, count: cst.BaseExpression) -> cst.Call:
    return call(
        f"{namespace}.split",
        [tensor],
        [("num_outputs", count), ("axis", integer(0)), ("squeeze_axis", cst.Name("True"))],
    )


def _count(
    rule, tensor: cst.BaseExpression, others: Sequence[cst.BaseExpression]
) -> Optional[Tuple[cst.BaseExpression, str]]:
    """The number of rows of `tensor` and how sure it is (see the module docstring)."""
    if not rule.is_tensor(tensor) or not _single(rule, tensor):
        return None
    shape = rule.value(tensor).shape
    if shape is not None and len(shape) >= 2 and isinstance(shape[0], int) and shape[0] >= 2:
        return integer(shape[0]), SAFE
    for other in others:
        if (
            isinstance(other, cst.Attribute)
            and isinstance(other.value, cst.Name)
            and other.value.value == "self"
        ):
            return call("len", [other], []), UNSAFE
        if (
            isinstance(other, (cst.List, cst.Tuple))
            and len(other.elements) >= 2
            and all(isinstance(e, cst.Element) for e in other.elements)
        ):
            return integer(len(other.elements)), UNSAFE
    return None


def _single(rule, tensor: cst.BaseExpression) -> bool:
    """Not a call that may have several outputs (a child block, a multi-output operator)."""
    if isinstance(tensor, (cst.Name, cst.BinaryOperation, cst.UnaryOperation, cst.Attribute)):
        return True
    return single_output(rule, tensor)


_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


def _indexed_attribute(rule, iterable: cst.Call) -> Optional[cst.Attribute]:
    """`self.<a>` when `iterable` (an `enumerate(x)`) heads a loop or a comprehension of the
    statement being walked, binding `t, r`, and the body (the loop's, the comprehension's
    element and conditions) subscripts `self.<a>[t]` with `t` bound nowhere else there;
    `<a>` not a Parameter (indexing one fails whatever the count)."""
    statement = rule.statement
    target: Optional[cst.BaseExpression] = None
    area: Optional[cst.CSTNode] = None
    if isinstance(statement, cst.For) and statement.iter is iterable:
        target, area = statement.target, statement.body
    elif statement is not None:
        for node in walk_nodes(statement):
            comp = getattr(node, "for_in", None) if isinstance(node, _COMPREHENSIONS) else None
            while comp is not None and comp.iter is not iterable:
                comp = comp.inner_for_in
            if comp is not None:
                target, area = comp.target, node
                break
    if (
        area is None
        or not isinstance(target, (cst.Tuple, cst.List))
        or len(target.elements) != 2
        or not isinstance(target.elements[0], cst.Element)
        or not isinstance(target.elements[0].value, cst.Name)
    ):
        return None
    index = target.elements[0].value.value
    binds = _Binds(index)
    area.visit(binds)
    if binds.count != (0 if isinstance(statement, cst.For) and area is statement.body else 1):
        return None  # rebound in the body, or an inner comprehension binds it again
    klass = rule.facts.klass if rule.facts is not None else None
    parameters = klass.parameters if klass is not None else {}
    for node in walk_nodes(area):
        if (
            isinstance(node, cst.Subscript)
            and isinstance(node.value, cst.Attribute)
            and isinstance(node.value.value, cst.Name)
            and node.value.value.value == "self"
            and node.value.attr.value not in parameters
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.Name)
            and node.slice[0].slice.value.value == index
        ):
            return cst.Attribute(value=cst.Name("self"), attr=cst.Name(node.value.attr.value))
    return None


class _Binds(NameBindings):
    """Counts the bindings of one name."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name, self.count = name, 0

    def bind_name(self, name: cst.Name) -> None:
        self.count += name.value == self.name
