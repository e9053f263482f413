"""Asserts on shapes: `assert x1.shape == x2.shape`, `assert out.shape[0] == n` (HL001's fix).

A check of shapes cannot run on a Symbol (no `.shape`), and nothing in a graph can stop a call
with a Python exception. The rewrite deletes the statement, as an UNSAFE fix. The test reads
only shapes (`.shape`, `.shape[k]`, `.shape[a:b]`, `.ndim`, `.size` of tensors), Python values
(names that are not tensors, `self.attr`, literals) and `len(...)`, combined by comparisons,
`and`/`or`/`not` and arithmetic, so evaluating it has no effect and where it holds the code
after it computes the same without it. But where it fails, the original stopped a misuse with
its own message (`assert x.shape[1] == self._in_units, 'wrong width'`) and the fixed block
runs on, eagerly too, into another error or a silent broadcast: the user's check is gone. That
is a decision for the user (`--unsafe-fixes`), or for `--verify`, which applies the deletion
where an example runs it and the block then hybridizes. A test that reads a
tensor's values (`assert x.sum() > 0`) is HL008's, and one that calls anything else is left
as it is, reported only. (mxnet SDMLLoss `assert x1.shape == x2.shape`; gluoncv2 FractalBlock
`assert (out.shape[0] == curr_num_columns)`.)
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from .._examples import net_xy
from ..base import UNSAFE, Edit, Invalid, Valid, invalid_table
from ..values import syntax_children

_SHAPE_ATTRIBUTES = ("shape", "ndim", "size")


def plan_shape_assert(rule, attribute: cst.Attribute) -> Optional[Tuple[Tuple[Edit, ...], str]]:
    """The statement's removal when `attribute` sits in the test of a shape-only assert."""
    statement = rule.statement
    if not (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Assert)
        and rule.facts is not None
    ):
        return None
    test = statement.body[0].test
    if not _contains(test, attribute) or not _shape_only(rule, test):
        return None
    block = _block_of(rule.facts.node, statement)
    if block is None:
        return None
    position = next(i for i, s in enumerate(block) if s is statement)
    following = block[position + 1] if position + 1 < len(block) else None
    commented = any(line.comment is not None for line in statement.leading_lines)
    if following is None and (len(block) == 1 or commented):
        # the only statement of its block, or the comments above it have no statement to go
        # to: a `pass` keeps the block and the comments
        return ((statement, statement.with_changes(body=[cst.Pass()])),), UNSAFE
    edits: List[Edit] = [(statement, cst.RemovalSentinel.REMOVE)]
    if commented and isinstance(following, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
        # the comments above the assert stay, on the next statement
        lines = list(statement.leading_lines) + list(following.leading_lines)
        edits.append((following, following.with_changes(leading_lines=lines)))
    return tuple(edits), UNSAFE


def _shape_only(rule, expr: cst.BaseExpression) -> bool:
    """True when evaluating expr reads only shapes and Python values (module docstring)."""
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(expr, cst.Name):
        return expr.value in ("None", "True", "False") or not rule.is_tensor(expr)
    if isinstance(expr, cst.Attribute):
        if expr.attr.value in _SHAPE_ATTRIBUTES and rule.is_tensor(expr.value):
            return True
        return isinstance(expr.value, cst.Name) and expr.value.value == "self"
    if isinstance(expr, cst.Subscript):
        return (
            isinstance(expr.value, cst.Attribute)
            and expr.value.attr.value == "shape"
            and rule.is_tensor(expr.value.value)
            and all(_literal_slice(e.slice) for e in expr.slice)
        )
    if isinstance(expr, cst.Comparison):
        return _shape_only(rule, expr.left) and all(
            _shape_only(rule, c.comparator) for c in expr.comparisons
        )
    if isinstance(expr, cst.BooleanOperation):
        return _shape_only(rule, expr.left) and _shape_only(rule, expr.right)
    if isinstance(expr, cst.UnaryOperation):
        return _shape_only(rule, expr.expression)
    if isinstance(expr, cst.BinaryOperation):
        return _shape_only(rule, expr.left) and _shape_only(rule, expr.right)
    if isinstance(expr, (cst.Tuple, cst.List)):
        return all(isinstance(e, cst.Element) and _shape_only(rule, e.value) for e in expr.elements)
    if isinstance(expr, cst.Call):  # len(...) of something shape-only
        return (
            isinstance(expr.func, cst.Name)
            and expr.func.value == "len"
            and len(expr.args) == 1
            and _shape_only(rule, expr.args[0].value)
        )
    return False


def _literal_slice(part: cst.BaseSlice) -> bool:
    if isinstance(part, cst.Index):
        return isinstance(part.value, (cst.Integer, cst.UnaryOperation))
    if isinstance(part, cst.Slice):
        return all(
            v is None or isinstance(v, (cst.Integer, cst.UnaryOperation))
            for v in (part.lower, part.upper, part.step)
        )
    return False


def _contains(root: cst.CSTNode, target: cst.CSTNode) -> bool:
    stack: List[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if node is target:
            return True
        stack.extend(syntax_children(node))
    return False


def _block_of(root: cst.CSTNode, statement: cst.CSTNode) -> Optional[List[cst.CSTNode]]:
    """The statements of the block holding `statement` (by identity), or None."""
    stack: List[cst.CSTNode] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.IndentedBlock) and any(s is statement for s in node.body):
            return list(node.body)
        if isinstance(node, (cst.ClassDef, cst.Lambda)) or (
            isinstance(node, cst.FunctionDef) and node is not root
        ):
            continue
        stack.extend(syntax_children(node))
    return None


VALID: List[Valid] = []
INVALID = invalid_table(
    net_xy,
    ("assert x.shape == y.shape\nreturn x + y", 3, ("assert x.shape == y.shape\n", ""), UNSAFE),
    Invalid(
        net_xy(
            "n = 2\nif n > 1:\n    assert x.shape[-1] == y.shape[-1], 'widths'\nreturn F.broadcast_add(x, y)"
        ),
        line=5,
        fix=("assert x.shape[-1] == y.shape[-1], 'widths'", "pass"),
        safety=UNSAFE,
    ),
    # the comment above stays, on the statement after the assert
    Invalid(
        net_xy("# same rows\nassert x.shape[0] == y.shape[0]\nreturn x + y"),
        line=4,
        fix=("assert x.shape[0] == y.shape[0]\n", ""),
        safety=UNSAFE,
    ),
    # the test calls a function: it may do anything, reported only
    ("assert check(x.shape)\nreturn x", 3),
)
