"""Shape-driven array creation HL001 rewrites (issue 12): `F.zeros(x.shape)` and friends as
`*_like` ops, `F.arange(x.shape[k])` as `F.contrib.arange_like`.

A Symbol has no shape, but MXNet's `*_like` operators take the shape (and dtype) of another
array inside the graph. `F.zeros(x.shape)` is `F.zeros_like(x).astype('float32')`: the
creation op's default dtype is float32 while `zeros_like` keeps x's, hence the cast unless
the call asked for `dtype=x.dtype`. `F.full(x.shape, v)` is `F.ones_like(x) * v`.
`F.arange(x.shape[k])` (start 0, step 1) is `F.contrib.arange_like(x, axis=k)` cast to the
default float32. Each is exact for every input (checked on MXNet 1.9.1), so safe.
"""
from __future__ import annotations

from typing import List, Optional

import libcst as cst

from ._build import call, integer
from ._shape_rewrites import Plan
from .analysis import call_argument, literal_int
from .base import SAFE

_LIKE = {"zeros": "zeros_like", "ones": "ones_like", "full": "ones_like"}


def plan_creation(rule, node: cst.Call, namespace: Optional[str]) -> List[Plan]:
    """Plans for calls whose shape comes from a tensor: (the attribute node, the edits that
    remove it, their safety). Empty when no exact rewrite is known. Called by HL001 for every
    call; `namespace` is the function's F (None in a helper without one: only F-free fixes)."""
    op = _namespace_op(node.func, namespace)
    if op in _LIKE:
        return _plan_like(rule, node, op, namespace)
    if op == "arange":
        return _plan_arange(rule, node, namespace)
    return []


def _namespace_op(func: cst.BaseExpression, namespace: Optional[str]) -> Optional[str]:
    """`F.zeros` -> "zeros" when F is the function's namespace."""
    if namespace is not None and isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) \
            and func.value.value == namespace:
        return func.attr.value
    return None


def _tensor_attr(rule, expr: cst.BaseExpression, attrs) -> Optional[cst.BaseExpression]:
    """`x.shape` -> x when x is a tensor and the attribute is one of attrs."""
    if isinstance(expr, cst.Attribute) and expr.attr.value in attrs and rule.is_tensor(expr.value):
        return expr.value
    return None


def _same_name(a: Optional[cst.BaseExpression], b: cst.BaseExpression) -> bool:
    return isinstance(a, cst.Name) and isinstance(b, cst.Name) and a.value == b.value


def _parenthesize(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, (cst.BinaryOperation, cst.BooleanOperation, cst.Comparison, cst.IfExp,
                         cst.Lambda, cst.UnaryOperation)) and not expr.lpar:
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def _plan_like(rule, node: cst.Call, op: str, ns: str) -> List[Plan]:
    shape = call_argument(node, 0, "shape")
    if shape is None or _tensor_attr(rule, shape.value, ("shape",)) is None:
        return []
    data = shape.value.value  # type: ignore[union-attr]
    value = call_argument(node, 1, "val") if op == "full" else None
    dtype = call_argument(node, 2 if op == "full" else 1, "dtype")
    ctx = call_argument(node, None, "ctx")
    known = {shape, value, dtype, ctx} - {None}
    if len(node.args) != len(known) or (op == "full" and value is None):
        return []
    if ctx is not None and not _same_name(_tensor_attr(rule, ctx.value, ("context", "ctx")), data):
        return []
    result: cst.BaseExpression = call(f"{ns}.{_LIKE[op]}", [data])
    if dtype is None or not _same_name(_tensor_attr(rule, dtype.value, ("dtype",)), data):
        target = dtype.value if dtype is not None else cst.SimpleString("'float32'")
        result = cst.Call(func=cst.Attribute(value=result, attr=cst.Name("astype")), args=[cst.Arg(target)])
    if value is not None:
        result = cst.BinaryOperation(left=result, operator=cst.Multiply(
            whitespace_before=cst.SimpleWhitespace(" "), whitespace_after=cst.SimpleWhitespace(" ")),
            right=_parenthesize(value.value))
    edits = ((node, result),)
    return [(arg.value, edits, SAFE) for arg in (shape, dtype, ctx)
            if arg is not None and isinstance(arg.value, cst.Attribute)]


def _plan_arange(rule, node: cst.Call, ns: str) -> List[Plan]:
    """`F.arange(x.shape[k])`, `F.arange(0, x.shape[k])`, `F.arange(start=0, stop=x.shape[k])`."""
    start = call_argument(node, 0, "start")
    stop_arg = call_argument(node, 1, "stop")
    if stop_arg is None and len(node.args) == 1 and start is not None:
        stop_arg, start = start, None  # arange(n): the only argument is the stop
    if stop_arg is None or len(node.args) != (1 if start is None else 2) or (
            start is not None and literal_int(start.value) != 0):
        return []
    stop = stop_arg.value
    if not (isinstance(stop, cst.Subscript) and len(stop.slice) == 1 and isinstance(stop.slice[0].slice, cst.Index)):
        return []
    axis = literal_int(stop.slice[0].slice.value)
    data = _tensor_attr(rule, stop.value, ("shape",))
    if axis is None or data is None:
        return []
    result = call(f"{ns}.contrib.arange_like", [data], [("axis", integer(axis))])
    result = cst.Call(func=cst.Attribute(value=result, attr=cst.Name("astype")),
                      args=[cst.Arg(cst.SimpleString("'float32'"))])
    return [(stop.value, ((node, result),), SAFE)]
