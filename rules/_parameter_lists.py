"""Attributes a class's `__init__` fills with Parameters kept in a list.

gluon passes `hybrid_forward` only the Parameters set as attributes (`self.w =
self.params.get(...)`), so a Parameter kept in a list (`self.ws[i]`) gets no argument: its
`.data()` is an NDArray even under hybridize (HL012). Computed once per class
(`ClassFacts.parameter_lists`).
"""

from __future__ import annotations

from typing import Optional, Set

import libcst as cst

from .values import dotted_name, self_attribute_name, walk_nodes


def _is_params_get(expr: cst.BaseExpression) -> bool:
    """`self.params.get(...)` / `self.params.get_constant(...)`."""
    return isinstance(expr, cst.Call) and dotted_name(expr.func) in (
        "self.params.get",
        "self.params.get_constant",
    )


def parameter_lists(init: Optional[cst.FunctionDef]) -> Set[str]:
    """Attributes `__init__` fills with Parameters in a list: `self.ws = [self.params.get(...)
    for ...]`, or `self.ws = []` then `self.ws.append(self.params.get(...))` (directly or
    through a name). gluon passes hybrid_forward only the Parameters set as attributes, so
    these have no argument: their `.data()` is an NDArray under hybridize too."""
    if init is None:
        return set()
    getters = {  # names bound to a params.get call
        target.target.value
        for node in walk_nodes(init.body)
        if isinstance(node, cst.Assign) and _is_params_get(node.value)
        for target in node.targets
        if isinstance(target.target, cst.Name)
    }
    found: Set[str] = set()
    for node in walk_nodes(init.body):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.ListComp):
            if _is_params_get(node.value.elt):
                found.update(
                    a for t in node.targets if (a := self_attribute_name(t.target)) is not None
                )
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "append"
            and len(node.args) == 1
        ):
            item = node.args[0].value
            attr = self_attribute_name(node.func.value)
            if attr is not None and (
                _is_params_get(item) or (isinstance(item, cst.Name) and item.value in getters)
            ):
                found.add(attr)
    return found
