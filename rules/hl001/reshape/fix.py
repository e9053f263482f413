"""Reshape targets written from a tensor's shape -> MXNet's special codes (HL001's fix).

Reads a reshape target (`x.reshape((b, l, h, u // h))` after `b, l, u = x.shape`, or
`x.reshape((x.shape[0] * x.shape[1], -1))`) into the monomials of `codes`, asks it for
an exact code sequence and renders it back with the user's own expressions for literal sizes:
`x.reshape((0, 0, h, -1))`. Everything that is not certainly such a target gives None.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Sequence, Tuple

import libcst as cst

from ..._build import call, integer, source_of, strip_parens
from .codes import INFER, Dim, Ref, Term, const, symbol, synthesize
from ...analysis import SCALAR, UNKNOWN, literal_int
from ...base import SAFE, UNSAFE, Edit, FixSafety


def _shape_of(expr: cst.BaseExpression) -> Optional[str]:
    """`x.shape` -> "x" (a plain name only)."""
    if (
        isinstance(expr, cst.Attribute)
        and expr.attr.value == "shape"
        and isinstance(expr.value, cst.Name)
    ):
        return expr.value.value
    return None


def is_scaling(expr: cst.BinaryOperation) -> bool:
    """`a * b` or `a // b`: the forms of a reshape size written from other sizes."""
    return isinstance(expr.operator, (cst.Multiply, cst.FloorDivide))


def as_floor_division(expr: cst.BaseExpression) -> Optional[cst.BinaryOperation]:
    """`int(a / b)` read as `a // b` (srgan's `int(depth / 4)`): for positive sizes below
    2**53 the float quotient truncates to the floor quotient, so the size is the same."""
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "int"
        and len(expr.args) == 1
        and expr.args[0].keyword is None
        and not expr.args[0].star
    ):
        inner = expr.args[0].value
        if isinstance(inner, cst.BinaryOperation) and isinstance(inner.operator, cst.Divide):
            return inner.with_changes(operator=cst.FloorDivide(), lpar=[], rpar=[])
    return None


def scaled_dim(
    expr: cst.BinaryOperation, dim: Callable[[cst.BaseExpression], Optional[Dim]]
) -> Optional[Dim]:
    """The dim of `a * b` / `a // b` (see :func:`is_scaling`), each side read by `dim`; None
    when a side is not a dim. Both readers of reshape targets (this module's and the flow's)
    take sizes apart this way."""
    left, right = dim(expr.left), dim(expr.right)
    if left is None or right is None:
        return None
    return left * right if isinstance(expr.operator, cst.Multiply) else left / right


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
        expr = as_floor_division(expr) or expr
        number = literal_int(expr)
        if number is not None:
            return const(number) if number > 0 else None
        if (
            isinstance(expr, cst.Subscript)
            and _shape_of(expr.value) == self.data
            and len(expr.slice) == 1
            and isinstance(expr.slice[0].slice, cst.Index)
        ):
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
        if isinstance(expr, cst.BinaryOperation) and is_scaling(expr):
            return scaled_dim(expr, self.dim)
        if isinstance(expr, (cst.Name, cst.Attribute)):  # an external size: a number, not an array
            kind = self.rule.value(expr).kind
            if kind not in (SCALAR, UNKNOWN) or "shape" in source_of(expr).split("."):
                return None
            return symbol("ext:" + source_of(expr))
        return None


def codes_for(
    rule,
    data: cst.BaseExpression,
    elements: Sequence[cst.BaseExpression],
    axes: Optional[Dict[str, int]] = None,
    ndim: Optional[int] = None,
) -> Optional[List[cst.BaseExpression]]:
    """The target `elements` of a reshape of `data` as code expressions, or None.

    `axes` maps names unpacked from `data.shape` to their axis; `ndim` is the rank when an
    unpacking gave it (else the source may have more axes than the target names)."""
    if not isinstance(data, cst.Name):
        return None
    reader = _Reader(rule, data.value, axes or {}, ndim)
    read = [reader.term(e) for e in elements]
    terms = [t for t in read if t is not None]
    if len(terms) != len(read) or reader.highest < 0:
        return None
    count = ndim if ndim is not None else reader.highest + 1
    codes = synthesize(["s%d" % i for i in range(count)], terms, rest=ndim is None)
    if codes is None:
        return None
    return [strip_parens(elements[c.index]) if isinstance(c, Ref) else integer(c) for c in codes]


def reshape_like_plan(rule, node: cst.Call) -> Optional[Tuple[Edit, cst.Attribute, FixSafety]]:
    """`x.reshape(y.shape)`, `F.reshape(x, y.shape)`, `F.reshape(x, shape=y.shape)` with `y` a
    tensor -> `F.reshape_like(x, y)` (`x.reshape_like(y)` in a helper without F): MXNet's
    reshape_like takes the whole shape of `y` and checks the sizes, as NDArray.reshape does
    (safe). A slice of literal bounds, `y.shape[0:2]`, -> `F.reshape_like(x, y, rhs_begin=0,
    rhs_end=2)` (blind round 18's SequenceLoss): unsafe, since a Python slice past y's rank
    is shorter where reshape_like's range is an error."""
    func = node.func
    namespace = rule.namespace
    args = node.args
    if any(a.star for a in args) or not isinstance(func, cst.Attribute):
        return None
    through_f = isinstance(func.value, cst.Name) and func.value.value == namespace
    if (
        not through_f
        and func.attr.value == "reshape"
        and len(args) == 1
        and (args[0].keyword is None or args[0].keyword.value == "shape")
    ):
        data, shape = func.value, args[0].value
    elif (
        through_f
        and func.attr.value in ("reshape", "Reshape")
        and len(args) == 2
        and (args[0].keyword is None or args[0].keyword.value == "data")
        and (args[1].keyword is None or args[1].keyword.value == "shape")
    ):
        data, shape = args[0].value, args[1].value
    else:
        return None
    bounds: List[Tuple[str, cst.BaseExpression]] = []
    if isinstance(shape, cst.Subscript):
        sliced = _literal_slice(shape)
        if sliced is None:
            return None
        bounds, shape = sliced
    if not (
        isinstance(shape, cst.Attribute)
        and shape.attr.value == "shape"
        and rule.is_tensor(shape.value)
        and rule.is_tensor(data)
    ):
        return None
    like = shape.value
    if rule.own_namespace is not None:  # (a helper without F: the fluent method, no F given)
        new = call(f"{namespace}.reshape_like", [data, like], bounds)
    else:
        new = call("reshape_like", [like], bounds)
        new = new.with_changes(func=cst.Attribute(value=data, attr=cst.Name("reshape_like")))
    return (node, new), shape, (UNSAFE if bounds else SAFE)


def _literal_slice(
    node: cst.Subscript,
) -> Optional[Tuple[List[Tuple[str, cst.BaseExpression]], cst.BaseExpression]]:
    """`y.shape[a:b]` with int literals (or nothing) for a and b and no step: the bounds as
    reshape_like's rhs_begin/rhs_end keywords, and `y.shape`."""
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Slice):
        return None
    piece = node.slice[0].slice
    if piece.step is not None:
        return None
    bounds: List[Tuple[str, cst.BaseExpression]] = []
    for name, bound in (("rhs_begin", piece.lower), ("rhs_end", piece.upper)):
        if bound is None:
            continue
        if literal_int(bound) is None:
            return None
        bounds.append((name, bound))
    return (bounds, node.value) if bounds else None
