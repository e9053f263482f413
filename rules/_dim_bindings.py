"""Names a function binds to dims of an array at its top level: `n = x.shape[k]`, `b, c, h, w =
x.shape`, `h, w = x.shape[2:]`, `h, w = x.shape[2], x.shape[3]` (`scan_function`).

HL001 rewrites what reads such names (creation ops, reshape targets, resizes: rules/hl001/
creation.py) and HL003 counts slice bounds written with them from the end of their axis
(rules/_own_dims.py). A binding holds for them only when it is `valid`: each name bound once,
there; read only after it; the array not assigned at or after it. Then every read of a name is
that dim of that array."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from .values import literal_factors, literal_int, shape_index, walk_nodes


@dataclass
class DimBinding:
    """`n = x.shape[k]` & co. at the top level: names -> axes of `data`."""

    statement: cst.SimpleStatementLine
    attributes: Tuple[cst.Attribute, ...]  # the `x.shape` nodes it reads (HL001 reports each)
    data: str
    axes: Dict[str, int]
    index: int
    rank: Optional[int] = None  # the rank the unpacking proves (b, c, h, w = x.shape)
    # `h = x.shape[2] * 2`: names bound to a dim times a positive int literal, (axis, factor);
    # never in `axes` (such a name is no dim: only a scaled resize reads it, creation.py)
    scaled: Dict[str, Tuple[int, int]] = field(default_factory=dict)

    @property
    def names(self) -> Set[str]:
        return set(self.axes) | set(self.scaled)


@dataclass
class FunctionScan:
    """A function's dim bindings, and the stores, loads and calls of its names by top-level
    statement index (None: in a nested scope; -1: a parameter)."""

    bindings: Dict[cst.CSTNode, DimBinding] = field(default_factory=dict)
    stores: Dict[str, List[Optional[int]]] = field(
        default_factory=dict
    )  # name -> statement index (None: nested)
    loads: Dict[str, List[Tuple[cst.Name, Optional[int]]]] = field(default_factory=dict)
    calls: List[cst.Call] = field(default_factory=list)
    by_name: Dict[str, DimBinding] = field(default_factory=dict)  # names bound to dims
    by_scaled: Dict[str, DimBinding] = field(default_factory=dict)  # names bound to dim * k

    statements: List[cst.CSTNode] = field(default_factory=list)  # the top-level statements

    def valid(self, binding: DimBinding) -> bool:
        """Bound once; loads only after it; the data not assigned after the binding before its
        names' last load, which may be in the plain assignment that rebinds the data (`x =
        F.contrib.BilinearResize2D(x, height=h * 2, width=w * 2)` reads the x the dims are of,
        then rebinds it: blind round 13's UpsampleConvLayer)."""
        loads: List[int] = []
        for name in binding.names:
            if self.stores.get(name, []) != [binding.index]:
                return False
            for _, index in self.loads.get(name, []):
                if index is None or index <= binding.index:
                    return False
                loads.append(index)
        later = []
        for index in self.stores.get(binding.data, []):
            if index is None:
                return False
            if index >= binding.index:
                later.append(index)
        if not later:
            return True
        first = min(later)
        if not loads or first == binding.index or max(loads) > first:
            return False
        return max(loads) < first or _rebinds_after_reading(self.statements[first])

    def load_ids(self, names: Set[str]) -> Set[int]:
        return {id(node) for name in names for node, _ in self.loads.get(name, [])}


class _Collector(cst.CSTVisitor):
    def __init__(self, scan: FunctionScan) -> None:
        self.scan = scan
        self.index: Optional[int] = None
        self.nested = 0

    def _where(self) -> Optional[int]:
        return None if self.nested else self.index

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.nested += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.nested -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.nested += 1

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self.nested -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.nested += 1

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.nested -= 1

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False  # `.attr` is no load of a name

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False  # a keyword is no load

    def visit_Name(self, node: cst.Name) -> None:
        self.scan.loads.setdefault(node.value, []).append((node, self._where()))

    def visit_Call(self, node: cst.Call) -> None:
        self.scan.calls.append(node)

    def _store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.scan.stores.setdefault(target.value, []).append(self._where())
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value)
        elif isinstance(target, cst.StarredElement):
            self._store(target.value)
        else:
            target.visit(self)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        self._store(node.target)
        return False

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        self._store(node.target)
        node.target.visit(self)  # also a load
        node.value.visit(self)
        return False

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._store(node.target)
        if node.value is not None:
            node.value.visit(self)
        return False

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        self._store(node.target)
        node.value.visit(self)
        return False

    def visit_For(self, node: cst.For) -> None:
        self._store(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._store(node.target)

    def visit_AsName(self, node: cst.AsName) -> bool:
        self._store(node.name)
        return False

    def visit_Global(self, node: cst.Global) -> None:
        for item in node.names:
            self.scan.stores.setdefault(item.name.value, []).append(None)

    visit_Nonlocal = visit_Global  # type: ignore[assignment]


def _rebinds_after_reading(statement: cst.CSTNode) -> bool:
    """One plain assignment (`x = f(x, h)`, `x += g(h)`): its value, every read in it, is
    evaluated before its target is bound (no walrus binds in between)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return False
    small = statement.body[0]
    if not isinstance(small, (cst.Assign, cst.AugAssign)):
        return False
    return not any(isinstance(n, cst.NamedExpr) for n in walk_nodes(small.value))


def scan_function(function: cst.FunctionDef) -> FunctionScan:
    """The dim bindings of `function` and the stores and loads of its names (module docstring)."""
    scan = FunctionScan()
    params = function.params
    for param in [*params.params, *params.kwonly_params, *params.posonly_params]:
        scan.stores.setdefault(param.name.value, []).append(-1)
    collector = _Collector(scan)
    body = function.body
    statements: Sequence[cst.CSTNode] = (
        body.body if isinstance(body, cst.IndentedBlock) else (body,)
    )
    scan.statements = list(statements)
    for index, statement in enumerate(statements):
        collector.index = index
        statement.visit(collector)
        binding = _binding(statement, index)
        if binding is not None:
            scan.bindings[statement] = binding
    for binding in scan.bindings.values():
        if scan.valid(binding):
            for name in binding.axes:
                scan.by_name[name] = binding
            for name in binding.scaled:
                scan.by_scaled[name] = binding
    return scan


def _scaled_shape_index(value: cst.BaseExpression) -> Optional[Tuple[cst.Attribute, int, int]]:
    """(the `x.shape` node, k, c) for `x.shape[k] * c` or `c * x.shape[k]`, c a positive int
    literal (an upsampling's output size: blind round 13's UpsampleConvLayer)."""
    for scaled, factor in literal_factors(value):
        dim = shape_index(scaled)
        if dim is not None:
            return dim[0], dim[1], factor
    return None


def _binding(statement: cst.CSTNode, index: int) -> Optional[DimBinding]:
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    target, value = assign.targets[0].target, assign.value
    if isinstance(target, cst.Name):
        dim = shape_index(value)
        if dim is None:
            scaled = _scaled_shape_index(value)
            if scaled is None or not isinstance(scaled[0].value, cst.Name):
                return None
            attribute, axis, factor = scaled
            return DimBinding(
                statement,
                (attribute,),
                attribute.value.value,  # type: ignore[attr-defined]
                {},
                index,
                scaled={target.value: (axis, factor)},
            )
        if not isinstance(dim[0].value, cst.Name):
            return None
        return DimBinding(statement, (dim[0],), dim[0].value.value, {target.value: dim[1]}, index)
    if not isinstance(target, (cst.Tuple, cst.List)) or not all(
        isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in target.elements
    ):
        return None
    names = [e.value.value for e in target.elements]  # type: ignore[attr-defined]
    bound = [n for n in names if n != "_"]
    if len(set(bound)) != len(bound) or not bound:
        return None
    start, rank = 0, None
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == len(names):
        # `h, w = x.shape[2], x.shape[3]`: each a dim of the same tensor
        dims: List[Tuple[cst.Attribute, str, int]] = []  # (the `x.shape` node, x, k)
        for e in value.elements:
            dim = shape_index(e.value)
            if dim is None or not isinstance(dim[0].value, cst.Name):
                return None
            dims.append((dim[0], dim[0].value.value, dim[1]))
        if len({d[1] for d in dims}) != 1:
            return None
        return DimBinding(
            statement,
            tuple(d[0] for d in dims),
            dims[0][1],
            {n: d[2] for n, d in zip(names, dims) if n != "_"},
            index,
        )
    if isinstance(value, cst.Attribute) and value.attr.value == "shape":
        attribute, rank = value, len(names)
    elif (
        isinstance(value, cst.Subscript)
        and isinstance(value.value, cst.Attribute)
        and value.value.attr.value == "shape"
        and len(value.slice) == 1
        and isinstance(value.slice[0].slice, cst.Slice)
    ):
        part = value.slice[0].slice
        begin = literal_int(part.lower) if part.lower is not None else 0
        if begin is None or part.upper is not None or part.step is not None:
            return None
        if begin < 0 and -begin != len(names):
            return None
        attribute, start = value.value, begin
        rank = begin + len(names) if begin >= 0 else None
    else:
        return None
    if not isinstance(attribute.value, cst.Name):
        return None
    return DimBinding(
        statement,
        (attribute,),
        attribute.value.value,
        {n: start + i for i, n in enumerate(names) if n != "_"},
        index,
        rank,
    )
