"""Reshape targets written from a tensor's shape -> MXNet's special codes (HL001's fix).

Reads a reshape target (`x.reshape((b, l, h, u // h))` after `b, l, u = x.shape`, or
`x.reshape((x.shape[0] * x.shape[1], -1))`) into the monomials of `_reshape_codes`, asks it for
an exact code sequence and renders it back with the user's own expressions for literal sizes:
`x.reshape((0, 0, h, -1))`. Everything that is not certainly such a target gives None.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import libcst as cst

from ._build import integer, strip_parens, tuple_of
from ._reshape_codes import INFER, Dim, Ref, Term, const, symbol, synthesize
from .analysis import SCALAR, UNKNOWN, literal_int
from .base import Edit


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def _shape_of(expr: cst.BaseExpression) -> Optional[str]:
    """`x.shape` -> "x" (a plain name only)."""
    if isinstance(expr, cst.Attribute) and expr.attr.value == "shape" and isinstance(expr.value, cst.Name):
        return expr.value.value
    return None


class _Reader:
    """One target element -> a term over the source axes s0, s1, ... and external sizes."""

    def __init__(self, rule, data: str, axes: Dict[str, int], ndim: Optional[int]) -> None:
        self.rule, self.data, self.axes, self.ndim = rule, data, axes, ndim
        self.highest = -1

    def term(self, expr: cst.BaseExpression) -> Optional[Term]:
        number = literal_int(expr)
        if number is not None:
            return INFER if number == -1 else const(number) if number > 0 else None
        return self.dim(expr)

    def dim(self, expr: cst.BaseExpression) -> Optional[Dim]:
        expr = strip_parens(expr)
        number = literal_int(expr)
        if number is not None:
            return const(number) if number > 0 else None
        if isinstance(expr, cst.Subscript) and _shape_of(expr.value) == self.data and len(expr.slice) == 1 \
                and isinstance(expr.slice[0].slice, cst.Index):
            axis = literal_int(expr.slice[0].slice.value)
            if axis is not None and axis < 0 and self.ndim is not None:
                axis += self.ndim
            if axis is None or axis < 0 or (self.ndim is not None and axis >= self.ndim):
                return None
            self.highest = max(self.highest, axis)
            return symbol("s%d" % axis)
        if isinstance(expr, cst.Name) and expr.value in self.axes:
            self.highest = max(self.highest, self.axes[expr.value])
            return symbol("s%d" % self.axes[expr.value])
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Multiply, cst.FloorDivide)):
            left, right = self.dim(expr.left), self.dim(expr.right)
            if left is None or right is None:
                return None
            return left * right if isinstance(expr.operator, cst.Multiply) else left / right
        if isinstance(expr, (cst.Name, cst.Attribute)):   # an external size: a number, not an array
            kind = self.rule.value(expr).kind
            if kind not in (SCALAR, UNKNOWN) or "shape" in _code(expr).split("."):
                return None
            return symbol("ext:" + _code(expr))
        return None


def codes_for(rule, data: cst.BaseExpression, elements: Sequence[cst.BaseExpression],
              axes: Optional[Dict[str, int]] = None, ndim: Optional[int] = None
              ) -> Optional[List[cst.BaseExpression]]:
    """The target `elements` of a reshape of `data` as code expressions, or None.

    `axes` maps names unpacked from `data.shape` to their axis; `ndim` is the rank when an
    unpacking gave it (else the source may have more axes than the target names)."""
    if not isinstance(data, cst.Name):
        return None
    reader = _Reader(rule, data.value, axes or {}, ndim)
    terms = [reader.term(e) for e in elements]
    if any(t is None for t in terms) or reader.highest < 0:
        return None
    count = ndim if ndim is not None else reader.highest + 1
    codes = synthesize(["s%d" % i for i in range(count)], terms, rest=ndim is None)  # type: ignore[arg-type]
    if codes is None:
        return None
    return [strip_parens(elements[c.index]) if isinstance(c, Ref) else integer(c) for c in codes]


# ---- `b, l, d = x.shape` used only in reshapes of x ---------------------------------------
class _Scan(cst.CSTVisitor):
    """Reshapes of `data` (fluent, varargs or `F.reshape(data, shape=...)`), loads and stores
    of the watched names and stores of `data`, in one function body."""

    def __init__(self, data: str, names: Sequence[str], namespace: Optional[str]) -> None:
        self.data, self.names, self.namespace = data, set(names), namespace
        self.reshapes: List[Tuple[cst.Call, Optional[cst.BaseExpression]]] = []
        self.loads = 0
        self.stores = 0
        self.data_stores = 0
        self.nested = 0

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.nested += 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self.nested += 1

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names:
            self.loads += 1

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._store(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._store(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._store(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._store(node.target)

    def _store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.stores += target.value in self.names
            self.data_stores += target.value == self.data
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value)
        elif isinstance(target, cst.StarredElement):
            self._store(target.value)

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value == "reshape" and isinstance(func.value, cst.Name) \
                and func.value.value == self.data and node.args and not any(a.keyword or a.star for a in node.args):
            if len(node.args) == 1 and isinstance(node.args[0].value, (cst.Tuple, cst.List)):
                self.reshapes.append((node, node.args[0].value))
            elif len(node.args) > 1:
                self.reshapes.append((node, None))
        elif isinstance(func, cst.Attribute) and func.attr.value in ("reshape", "Reshape") \
                and isinstance(func.value, cst.Name) and func.value.value == self.namespace:
            args = {a.keyword.value if a.keyword else i: a for i, a in enumerate(node.args)}
            data = args.get(0) or args.get("data")
            shape = args.get(1) or args.get("shape")
            if data is not None and shape is not None and isinstance(data.value, cst.Name) \
                    and data.value.value == self.data and isinstance(shape.value, (cst.Tuple, cst.List)) \
                    and set(args) <= {0, 1, "data", "shape"}:
                self.reshapes.append((node, shape.value))


def _elements(container: cst.BaseExpression) -> List[cst.BaseExpression]:
    return [e.value for e in container.elements]  # type: ignore[attr-defined]


def unpacking_fix(rule, attribute: cst.Attribute) -> Optional[List[Edit]]:
    """`b, l, d = x.shape` whose names serve only as reshape targets of `x`: every such
    reshape gets its codes and the unpacking goes away (edits), else None."""
    statement = rule.statement
    data = _shape_of(attribute)
    facts = rule.facts
    if data is None or facts is None or not isinstance(statement, cst.SimpleStatementLine) \
            or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if not (isinstance(assign, cst.Assign) and assign.value is attribute and len(assign.targets) == 1
            and isinstance(assign.targets[0].target, (cst.Tuple, cst.List))):
        return None
    targets = assign.targets[0].target.elements
    if not all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in targets):
        return None   # a starred target: the rank is not known
    axes = {e.value.value: i for i, e in enumerate(targets) if e.value.value != "_"}
    scan = _Scan(data, list(axes), rule.namespace)
    facts.node.body.visit(scan)
    if scan.nested or scan.stores != len(axes) or scan.data_stores or not scan.reshapes:
        return None
    edits: List[Edit] = [(statement, cst.RemovalSentinel.REMOVE)]
    used = 0
    for call, container in scan.reshapes:
        elements = _elements(container) if container is not None else [a.value for a in call.args]
        counter = _Scan(data, list(axes), rule.namespace)
        for element in elements:
            element.visit(counter)
        if not counter.loads:
            continue
        codes = codes_for(rule, cst.Name(data), elements, axes, len(targets))
        if codes is None:
            return None
        used += counter.loads
        if container is not None:
            new = container.with_changes(elements=[e.with_changes(value=c) for e, c in
                                                   zip(container.elements, codes)]) \
                if len(codes) == len(elements) else tuple_of(codes)
            edits.append((container, new))
        else:
            edits.append((call, call.with_changes(args=[cst.Arg(tuple_of(codes))])))
    # the names are used only inside those reshape targets (loads counted the unpacking too)
    if used != scan.loads - len(axes):
        return None
    return edits


class _ShapeAttributes(cst.CSTVisitor):
    def __init__(self, data: str) -> None:
        self.data = data
        self.found: List[cst.Attribute] = []

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if _shape_of(node) == self.data:
            self.found.append(node)


def reshape_plan(rule, data: cst.BaseExpression, container: Optional[cst.BaseExpression],
                 varargs_call: Optional[cst.Call]) -> Optional[Tuple[Edit, List[cst.Attribute]]]:
    """For a reshape of `data` whose target reads `data.shape[i]`: (the edit writing the
    target as codes, the `data.shape` nodes it removes), or None."""
    if not isinstance(data, cst.Name):
        return None
    elements = _elements(container) if container is not None else [a.value for a in varargs_call.args]  # type: ignore[union-attr]
    attributes = _ShapeAttributes(data.value)
    for element in elements:
        element.visit(attributes)
    if not attributes.found:
        return None
    codes = codes_for(rule, data, elements)
    if codes is None:
        return None
    if container is not None:
        new = container.with_changes(elements=[e.with_changes(value=c) for e, c in zip(container.elements, codes)]) \
            if len(codes) == len(elements) else tuple_of(codes)
        return (container, new), attributes.found
    return (varargs_call, varargs_call.with_changes(args=[cst.Arg(tuple_of(codes))])), attributes.found  # type: ignore[union-attr]


def reshape_like_plan(rule, node: cst.Call) -> Optional[Tuple[Edit, cst.Attribute]]:
    """`x.reshape(y.shape)`, `F.reshape(x, y.shape)`, `F.reshape(x, shape=y.shape)` with `y` a
    tensor -> `F.reshape_like(x, y)` (`x.reshape_like(y)` in a helper without F): MXNet's
    reshape_like takes the whole shape of `y` and checks the sizes, as NDArray.reshape does."""
    func = node.func
    namespace = rule.namespace
    args = node.args
    if any(a.star for a in args) or not isinstance(func, cst.Attribute):
        return None
    through_f = isinstance(func.value, cst.Name) and func.value.value == namespace
    if not through_f and func.attr.value == "reshape" and len(args) == 1 \
            and (args[0].keyword is None or args[0].keyword.value == "shape"):
        data, shape = func.value, args[0].value
    elif through_f and func.attr.value in ("reshape", "Reshape") and len(args) == 2 \
            and (args[0].keyword is None or args[0].keyword.value == "data") \
            and (args[1].keyword is None or args[1].keyword.value == "shape"):
        data, shape = args[0].value, args[1].value
    else:
        return None
    if not (isinstance(shape, cst.Attribute) and shape.attr.value == "shape"
            and rule.is_tensor(shape.value) and rule.is_tensor(data)):
        return None
    like = shape.value
    if namespace is not None:
        new = cst.Call(func=cst.Attribute(value=cst.Name(namespace), attr=cst.Name("reshape_like")),
                       args=[cst.Arg(data, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
                             cst.Arg(like)])
    else:
        new = cst.Call(func=cst.Attribute(value=data, attr=cst.Name("reshape_like")), args=[cst.Arg(like)])
    return (node, new), shape
