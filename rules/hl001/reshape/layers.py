"""What a block's `__init__` builds, as HL001's reshape flow reads it: its layers
(`self.<a> = <Call>`), the members of its sequential containers, and the constructor arguments
and int literals it stores on `self`."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from ...analysis import literal_int
from ...values import last_name, self_attribute_name, walk_nodes


def init_layers(klass) -> Dict[str, cst.Call]:
    """`self.<attr> = <Call>` of the class's `__init__` (the last write wins)."""
    if klass is None:
        return {}
    init = klass.methods.get("__init__")
    layers: Dict[str, cst.Call] = {}
    if init is None:
        return layers

    def walk(body: Sequence[cst.CSTNode]) -> None:
        for stmt in body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for small in stmt.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1:
                        name = self_attribute_name(small.targets[0].target)
                        if name is not None and isinstance(small.value, cst.Call):
                            layers[name] = small.value
                        elif name is not None:
                            layers.pop(name, None)
            elif isinstance(stmt, cst.With) and isinstance(stmt.body, cst.IndentedBlock):
                walk(stmt.body.body)
            elif isinstance(stmt, cst.BaseCompoundStatement):  # a conditional layer: not certain
                for node in assigned_self_attrs(stmt):
                    layers.pop(node, None)

    if isinstance(init.body, cst.IndentedBlock):
        walk(init.body.body)
    return layers


def assigned_self_attrs(stmt: cst.CSTNode) -> Set[str]:
    """The attributes `self.<a> = ...` assigns anywhere under `stmt` (one field walk: a LibCST
    visitor here was most of the flow's time on gluoncv2's models)."""
    found: Set[str] = set()
    for node in walk_nodes(stmt):
        if isinstance(node, cst.AssignTarget):
            name = self_attribute_name(node.target)
            if name is not None:
                found.add(name)
    return found


def stored_params(klass) -> Tuple[Dict[str, str], Dict[str, int]]:
    """Constructor parameter -> `self.<attr>` storing it as it is (`self._units = units`), and
    `self.<attr>` -> the positive int literal it is set to (each written once in `__init__`)."""
    out: Dict[str, str] = {}
    numbers: Dict[str, int] = {}
    init = klass.methods.get("__init__") if klass is not None else None
    if init is None or not isinstance(init.body, cst.IndentedBlock):
        return out, numbers
    params = {p.name.value for p in list(init.params.params) + list(init.params.kwonly_params)}
    writes: Dict[str, int] = {}
    for stmt in init.body.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
                    continue
                name = self_attribute_name(small.targets[0].target)
                if name is None:
                    continue
                attr = "self." + name
                writes[attr] = writes.get(attr, 0) + 1
                if isinstance(small.value, cst.Name) and small.value.value in params:
                    out.setdefault(small.value.value, attr)
                number = literal_int(small.value)
                if number is not None and number > 0:
                    numbers[attr] = number
    assigned = assigned_self_attrs(init.body)
    return (
        {p: a for p, a in out.items() if writes.get(a) == 1},
        {a: n for a, n in numbers.items() if writes.get(a) == 1 and a[5:] in assigned},
    )


_CONTAINERS = {"HybridSequential", "Sequential"}


def self_attr_in(node: cst.CSTNode, attrs: Set[str]) -> Optional[str]:
    """`"a"` for `self.a` when a is one of `attrs`, else None."""
    name = self_attribute_name(node) if isinstance(node, cst.BaseExpression) else None
    return name if name in attrs else None


class _ContainerUses(cst.CSTVisitor):
    """Uses of `self.<a>` for sequential containers a: in `__init__` (`init`), the layers
    `self.<a>.add(<Call>, ...)` adds; elsewhere, reads that leave it alone (an argument of
    `zip`, `len` or `enumerate`, an iterable, a subscript read). Anything else spoils a."""

    def __init__(self, attrs: Set[str], init: bool) -> None:
        self.attrs = attrs
        self.init = init
        self.added: Dict[str, List[cst.Call]] = {a: [] for a in attrs}
        self.spoiled: Set[str] = set()
        self._accounted: Set[int] = set()

    def _account(self, node: cst.CSTNode) -> None:
        if self_attr_in(node, self.attrs) is not None:
            self._accounted.add(id(node))

    def _target(self, target: cst.CSTNode) -> None:
        if self.init and self_attr_in(target, self.attrs) is not None:
            self._accounted.add(id(target))  # the assignment itself (`init_layers` reads it)
            return
        for node in walk_nodes(target):
            attr = self_attr_in(node, self.attrs)
            if attr is not None:
                self.spoiled.add(attr)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._target(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)
        if self.init:
            self._accounted.discard(id(node.target))

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self._target(node.target)
        self._accounted.discard(id(node.target))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if self.init and isinstance(func, cst.Attribute) and func.attr.value == "name_scope":
            self._account(func.value)  # `with self.<a>.name_scope():` changes no element
        elif self.init and isinstance(func, cst.Attribute) and func.attr.value == "add":
            attr = self_attr_in(func.value, self.attrs)
            if attr is not None:
                self._accounted.add(id(func.value))
                for arg in node.args:
                    if arg.keyword is None and not arg.star and isinstance(arg.value, cst.Call):
                        self.added[attr].append(arg.value)
                    else:
                        self.spoiled.add(attr)
        elif not self.init and isinstance(func, cst.Name):
            if func.value in ("zip", "len", "enumerate"):
                for arg in node.args:
                    if not arg.star:
                        self._account(arg.value)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if not self.init:
            self._account(node.iter)

    def visit_For(self, node: cst.For) -> None:
        if not self.init:
            self._account(node.iter)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if not self.init:
            self._account(node.value)  # (a store through it spoils it above)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        attr = self_attr_in(node, self.attrs)
        if attr is not None and id(node) not in self._accounted:
            self.spoiled.add(attr)


def containers(klass, layers: Dict[str, cst.Call]) -> Dict[str, List[cst.Call]]:
    """`self.<a> = nn.HybridSequential()` in `__init__` whose elements are all layers added
    there with `self.<a>.add(nn.Conv2D(...))` (in loops and branches too: each element is one
    of them) and which no method changes otherwise: a -> those layer calls."""
    attrs = {a for a, call in layers.items() if last_name(call.func) in _CONTAINERS}
    init = klass.methods.get("__init__") if klass is not None else None
    if not attrs or init is None:
        return {}
    uses = _ContainerUses(attrs, init=True)
    init.body.visit(uses)
    spoiled = set(uses.spoiled)
    for name, method in klass.methods.items():
        if name != "__init__":
            other = _ContainerUses(attrs, init=False)
            method.body.visit(other)
            spoiled |= other.spoiled
    return {a: calls for a, calls in uses.added.items() if a not in spoiled and calls}
