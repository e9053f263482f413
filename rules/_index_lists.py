"""Attributes a class only ever sets to a literal list or tuple of ints (`self.rows = [0, 2]`).

An index with one picks several rows (`x[:, self.rows]`), which a Symbol cannot do but a
concatenation of one-row slices can (HL003). `ClassFacts.scalar_sequences` says an attribute
*may* be such a sequence (some write sets one); this says it always is, for every store the
class makes (`__init__` or any other method), so a rewrite that iterates it cannot meet a
number. Computed once per class (`ClassFacts.number_lists`).
"""

from __future__ import annotations

from typing import Iterable, Set

import libcst as cst

from .values import literal_shape, self_attribute_name, walk_nodes


def number_lists(methods: Iterable[cst.FunctionDef]) -> Set[str]:
    """Attributes every store of which, in `methods`, is a non-empty literal list or tuple of
    int literals; an attribute stored any other way (an unpacking, `+=`, `setattr`) is not."""
    literal: Set[str] = set()
    other: Set[str] = set()
    for method in methods:
        for node in walk_nodes(method.body):
            if isinstance(node, cst.Assign):
                for target in node.targets:
                    _record(target.target, node.value, literal, other)
            elif isinstance(node, cst.AnnAssign):
                _record(node.target, node.value, literal, other)
            elif isinstance(node, cst.AugAssign):
                _record(node.target, None, literal, other)
            elif (
                isinstance(node, cst.Call)
                and isinstance(node.func, cst.Name)
                and node.func.value == "setattr"
                and len(node.args) >= 2
                and isinstance(node.args[1].value, cst.SimpleString)
            ):
                other.add(str(node.args[1].value.evaluated_value))
    return literal - other


def _record(target: cst.BaseExpression, value, literal: Set[str], other: Set[str]) -> None:
    attr = self_attribute_name(target)
    if attr is not None:
        shape = literal_shape(value) if isinstance(value, (cst.List, cst.Tuple)) else None
        (literal if shape else other).add(attr)
        return
    if isinstance(target, (cst.Tuple, cst.List)):  # `self.a, b = ...`: not a literal store
        for element in target.elements:
            _record(element.value, None, literal, other)
    elif isinstance(target, cst.StarredElement):
        _record(target.value, None, literal, other)
