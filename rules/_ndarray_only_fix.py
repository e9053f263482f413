"""Rewrites of MXNet 1.9.1's NDArray-only functions (`equal`, `concatenate`, `moveaxis`, ...) to
operators both namespaces have, per the table in hybridlint/mxnet_facts.py. Shared by HL006
(`nd.equal(a, b)`) and HL015 (`F.equal(a, b)`): both become `F.broadcast_equal(a, b)`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple

import libcst as cst

from ._build import call, integer, tuple_of
from ..mxnet_facts import BINARY
from .base import SAFE, UNSAFE
from .values import SCALAR, TENSOR, call_argument, literal_int, parent_map

if TYPE_CHECKING:  # pragma: no cover
    from .base import Rule

Fix = Tuple[cst.BaseExpression, str]  # (replacement, safety)

_COMPARISONS: Dict[str, Callable[[], cst.BaseCompOp]] = {
    "==": cst.Equal,
    "!=": cst.NotEqual,
    ">": cst.GreaterThan,
    ">=": cst.GreaterThanEqual,
    "<": cst.LessThan,
    "<=": cst.LessThanEqual,
}
_ARITHMETIC: Dict[str, Callable[[], cst.BaseBinaryOp]] = {
    "+": cst.Add,
    "-": cst.Subtract,
    "*": cst.Multiply,
    "/": cst.Divide,
    "%": cst.Modulo,
}
# expressions that need no parentheses as an operand of a binary operator or comparison
_ATOMS = (
    cst.Name,
    cst.Attribute,
    cst.Call,
    cst.Subscript,
    cst.Integer,
    cst.Float,
    cst.SimpleString,
    cst.Tuple,
    cst.List,
)
# parents in which a binary operation or comparison needs no parentheses
_OPEN_PARENTS = (cst.Arg, cst.Return, cst.Assign, cst.AnnAssign, cst.Element, cst.Expr)


def ndarray_only_fix(rule: "Rule", node: cst.Call, op: str, ns: str) -> Optional[Fix]:
    """The F spelling of the NDArray-only call `node` of `op` ("equal", "contrib.isnan"), with
    the namespace parameter `ns`, and its safety; None when no exact spelling is known."""
    if any(arg.star for arg in node.args):
        return None
    if op in BINARY:
        return _binary(rule, node, op, ns)
    if op == "concatenate":
        return _concatenate(node, ns)
    if op == "moveaxis":
        return _moveaxis(rule, node, ns)
    if op == "empty":
        return _empty(node, ns)
    if op in ("contrib.isnan", "contrib.isinf", "contrib.isfinite"):
        return _float_class(rule, node, op, ns)
    return None


def _only(node: cst.Call, names: Tuple[str, ...]) -> Optional[List[Optional[cst.Arg]]]:
    """The arguments of `node` by the signature `names`, or None with any other argument."""
    keywords = [a.keyword.value for a in node.args if a.keyword is not None]
    positional = [a for a in node.args if a.keyword is None]
    if len(positional) > len(names) or any(k not in names for k in keywords):
        return None
    return [call_argument(node, i, name) for i, name in enumerate(names)]


def _number(expr: cst.BaseExpression) -> bool:
    """An int or float literal (`2`, `-0.5`): a Symbol's scalar operators take it as the NDArray
    helper does (a bool, say, they refuse: `Invalid Parameter format for scalar`)."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float))


def _operand(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, _ATOMS) or getattr(expr, "lpar", None) or _number(expr):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _placed(rule: "Rule", node: cst.Call, expr: cst.BaseExpression) -> cst.BaseExpression:
    """`expr` (an operator expression taking `node`'s place) in parentheses unless its place is
    an argument, an element, an assigned or returned value or a statement of its own."""
    statement = rule.statement
    parent = parent_map(statement).get(node) if statement is not None else None
    if isinstance(parent, _OPEN_PARENTS) or node.lpar:
        return expr.with_changes(lpar=node.lpar, rpar=node.rpar)
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _operator(rule: "Rule", node: cst.Call, symbol: str, left, right) -> cst.BaseExpression:
    left, right = _operand(left), _operand(right)
    expr: cst.BaseExpression
    if symbol in _COMPARISONS:
        expr = cst.Comparison(
            left=left,
            comparisons=[cst.ComparisonTarget(operator=_COMPARISONS[symbol](), comparator=right)],
        )
    else:
        expr = cst.BinaryOperation(left=left, operator=_ARITHMETIC[symbol](), right=right)
    return _placed(rule, node, expr)


def _binary(rule: "Rule", node: cst.Call, op: str, ns: str) -> Optional[Fix]:
    args = _only(node, ("lhs", "rhs"))
    if args is None or args[0] is None or args[1] is None:
        return None
    lhs, rhs = args[0].value, args[1].value
    broadcast, symbol = BINARY[op]
    kinds = [rule.value(lhs).kind, rule.value(rhs).kind]
    if kinds == [TENSOR, TENSOR]:
        # two NDArrays: the broadcast operator; an input that may be a number makes it unsafe
        safety = SAFE if rule.is_tensor(lhs) and rule.is_tensor(rhs) else UNSAFE
        return call(f"{ns}.{broadcast}", [lhs, rhs]), safety
    if symbol is not None and TENSOR in kinds and SCALAR in kinds:
        number = rhs if kinds[1] == SCALAR else lhs
        return _operator(rule, node, symbol, lhs, rhs), SAFE if _number(number) else UNSAFE
    return None


def _concatenate(node: cst.Call, ns: str) -> Optional[Fix]:
    args = _only(node, ("arrays", "axis", "always_copy"))
    if args is None or args[0] is None:
        return None
    arrays = args[0].value
    if isinstance(arrays, cst.List) and all(isinstance(e, cst.Element) for e in arrays.elements):
        new_args = [cst.Arg(value=e.value) for e in arrays.elements]
    else:  # the helper asserts a list: `*arrays` passes the same arrays
        new_args = [cst.Arg(value=arrays, star="*")]
    axis = args[1].value if args[1] is not None else cst.Integer("0")  # F.concat's default is 1
    value = literal_int(axis)
    if value is not None and value < 0:
        return None  # the helper slices shapes with it and builds a wrong shape
    fixed = call(f"{ns}.concat", keywords=[("dim", axis)])
    return fixed.with_changes(
        args=new_args + list(fixed.args)
    ), SAFE if value is not None else UNSAFE


def _moveaxis(rule: "Rule", node: cst.Call, ns: str) -> Optional[Fix]:
    args = _only(node, ("tensor", "source", "destination"))
    if args is None or any(a is None for a in args):
        return None
    tensor, source, destination = (a.value for a in args if a is not None)
    s, d = literal_int(source), literal_int(destination)
    if s is None or d is None:
        return None
    shape = rule.value(tensor).shape
    if shape is not None:
        ndim = len(shape)
        if not (-ndim <= s < ndim and -ndim <= d < ndim):
            return None  # the helper raises ValueError
        s, d = s % ndim, d % ndim
        order = [n for n in range(ndim) if n != s]
        order.insert(d, s)
        axes = tuple_of([integer(n) for n in order])
        return call(f"{ns}.transpose", [tensor], [("axes", axes)]), SAFE
    if abs(s - d) == 1 and (s >= 0) == (d >= 0):
        # an axis moved next to its place is swapped with its neighbour, whatever the ndim
        return call(f"{ns}.swapaxes", [tensor], [("dim1", source), ("dim2", destination)]), SAFE
    return None


def _empty(node: cst.Call, ns: str) -> Optional[Fix]:
    args = _only(node, ("shape", "ctx", "dtype", "stype"))
    if args is None or args[0] is None:
        return None
    stype = args[3]
    if stype is not None and not (
        isinstance(stype.value, cst.Name) and stype.value.value == "None"
    ):
        return None
    dtype = args[2]
    keywords = [("dtype", dtype.value)] if dtype is not None else []
    # uninitialised memory becomes zeros, and a ctx= is dropped: unsafe
    return call(f"{ns}.zeros", [args[0].value], keywords), UNSAFE


def _float_class(rule: "Rule", node: cst.Call, op: str, ns: str) -> Optional[Fix]:
    args = _only(node, ("data",))
    if args is None or args[0] is None or not isinstance(args[0].value, cst.Name):
        return None  # the rewrite names the argument twice: only a plain name
    x = args[0].value
    inf = call("float", [cst.SimpleString('"inf"')])
    absolute = call(f"{ns}.abs", [x])
    if op == "contrib.isnan":  # `data != data`: NDArray.__ne__ is broadcast_not_equal
        return call(f"{ns}.broadcast_not_equal", [x, x]), SAFE
    if op == "contrib.isinf":  # `data.abs() == np.inf`
        return _operator(rule, node, "==", absolute, inf), SAFE
    finite = cst.Comparison(
        left=absolute, comparisons=[cst.ComparisonTarget(operator=cst.NotEqual(), comparator=inf)]
    )
    # logical_and(data.abs() != np.inf, data == data), both NDArrays: broadcast_logical_and
    return call(
        f"{ns}.broadcast_logical_and", [finite, call(f"{ns}.broadcast_equal", [x, x])]
    ), SAFE
