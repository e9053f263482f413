"""A read-only walk of a LibCST tree that does not rebuild it (issue 22 item 4).

``node.visit(visitor)`` rebuilds every node it passes (LibCST's visit is also its transform:
each parent is constructed again from its visited children, with validation), which made a
rule's search of a class for a few calls cost more than the linter's own walk of it. Rules
that only collect (a ``CSTVisitor`` with ``visit_<Type>`` methods and no ``leave_`` or
attribute hooks) can use :func:`visit_only`, which hands the visitor the same nodes and
honours a ``False`` return (skip the children); only the order of siblings may differ, so the
visitor's result must not depend on it (a list of found nodes that is sorted or only tested
for being empty, a count, a flag).
"""

from __future__ import annotations

import dataclasses
from typing import Dict, List, Tuple, Type

import libcst as cst

_FIELDS: Dict[Type[cst.CSTNode], Tuple[str, ...]] = {}


def _field_names(kind: Type[cst.CSTNode]) -> Tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(field.name for field in dataclasses.fields(kind))
    return names


def visit_only(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Call ``visitor.on_visit`` on ``node`` and every node below it (not below a node whose
    visit returned False), without rebuilding the tree and without recursion."""
    stack: List[cst.CSTNode] = [node]
    while stack:
        current = stack.pop()
        if not visitor.on_visit(current):
            continue
        for name in _field_names(type(current)):
            value = getattr(current, name)
            if isinstance(value, cst.CSTNode):
                stack.append(value)
            elif isinstance(value, (list, tuple)):
                stack.extend(item for item in value if isinstance(item, cst.CSTNode))
