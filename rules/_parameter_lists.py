"""Attributes a class's `__init__` fills with Parameters kept in a list.

gluon passes `hybrid_forward` only the Parameters set as attributes (`self.w =
self.params.get(...)`), so a Parameter kept in a list (`self.ws[i]`) gets no argument: its
`.data()` is an NDArray even under hybridize (HL012). Computed once per class
(`ClassFacts.parameter_lists`).
"""

from __future__ import annotations

from typing import List, Optional, Set, Tuple

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
    getters: Set[str] = set()  # names bound to a params.get call
    appended: List[Tuple[str, cst.BaseExpression]] = []  # `self.<a>.append(<item>)`
    found: Set[str] = set()
    for node in walk_nodes(init.body):  # one walk; the appends are judged after it
        if isinstance(node, cst.Assign):
            if _is_params_get(node.value):
                getters.update(
                    t.target.value for t in node.targets if isinstance(t.target, cst.Name)
                )
            elif isinstance(node.value, cst.ListComp) and _is_params_get(node.value.elt):
                found.update(
                    a for t in node.targets if (a := self_attribute_name(t.target)) is not None
                )
        elif (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "append"
            and len(node.args) == 1
        ):
            attr = self_attribute_name(node.func.value)
            if attr is not None:
                appended.append((attr, node.args[0].value))
    for attr, item in appended:
        if _is_params_get(item) or (isinstance(item, cst.Name) and item.value in getters):
            found.add(attr)
    return found
