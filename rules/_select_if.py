"""A Python `if` on a number read out of a tensor that only picks a tensor's next value: a
select (HL002's rewrite of `.asscalar()` in such a test, issue 20).

Gradient clipping by norm, written eagerly (accel-brain-base's DRCNLoss and SSDA losses):

    norm = F.norm(arr)
    if norm.asscalar() > self._threshold:
        arr = arr * self._threshold / norm

`asscalar()` fails on a Symbol, and a graph cannot branch in Python. But this `if` only
decides which value `arr` holds next, which a graph can select:

    arr = F.where(
        F.broadcast_like(
            F.reshape(F.cast(norm, dtype="float64") > self._threshold, shape=(1,)),
            arr, lhs_axes=(0,), rhs_axes=(0,),
        ),
        arr * self._threshold / norm,
        arr,
    )

- **The pattern**: an `if` with no `elif`/`else`, and not itself an `elif`, whose test is one
  comparison `T.asscalar() OP v` or `v OP T.asscalar()` (OP one of `< <= > >= == !=`, v a
  value that is not a tensor and calls nothing), whose body is one assignment `a = E` of a
  tensor E to a name a that holds a tensor before the `if`, with no comment inside the `if`
  (it would be lost). Not `T.asnumpy() OP v`: numpy compares an array in T's own dtype or in
  float64 depending on both, which the rewrite could not follow.
- **The rewrite**: the `if` becomes `a = F.where(C, E, a)`, C being
  `F.broadcast_like(F.reshape(F.cast(T, dtype="float64") OP v, shape=(1,)), a, lhs_axes=(0,), rhs_axes=(0,))`.
- **Exactness**: `asscalar()` succeeds eagerly only on a one-element T, of any rank and dtype.
  Its number is a numpy scalar, which numpy 1.x (MXNet 1.9.1's) compares with a Python v in
  float64; MXNet's scalar comparison would cast v to T's dtype instead (an int32 0 `>= 0.5`
  holds there), hence the cast. The comparison is a one-element 0/1 array; reshaped to (1,)
  and repeated along a's first axis it is the 1-D condition MXNet 1.9.1's `where` takes for an
  a of any rank, in any dtype (a `broadcast_mul` with `ones_like(a)` fails on a T of another
  dtype than a's, or of a higher rank). `where` takes E where it holds and a elsewhere: the
  value the `if` leaves in a, when E has a's shape and dtype (`where` requires them; an E the
  test decides the shape of fails here and is for `--verify` to say).
- **Safety: unsafe.** E is now computed when the test is false too: an effect, a warning or
  a failure in E happens where the original skipped it, and gradients through `where` see
  E's infinities (a zero norm).
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

import libcst as cst

from ._build import call, tuple_of
from .base import Edit
from .values import COMPARISON_OPERATORS, parent_map, walk_nodes


def plan_select_if(rule, node: cst.Call, tensor: cst.BaseExpression) -> Optional[Tuple[Edit, ...]]:
    """The edit turning the `if` whose test compares `node` (`tensor.asscalar()`) into a
    select (module docstring), else None."""
    facts, ns = rule.facts, rule.namespace
    if facts is None or ns is None:
        return None
    parents: Dict[cst.CSTNode, cst.CSTNode] = parent_map(facts.node)
    above = parents.get(node)
    test = parents.get(above) if isinstance(above, cst.ComparisonTarget) else above
    if not isinstance(test, cst.Comparison):
        return None
    statement = parents.get(test)
    if (
        not isinstance(statement, cst.If)
        or statement.test is not test
        or statement.orelse is not None
        or isinstance(parents.get(statement), cst.If)  # an `elif`: its `if` would be lost
    ):
        return None
    if not isinstance(node.func, cst.Attribute) or node.func.attr.value != "asscalar":
        return None  # `asnumpy() OP v` compares in a dtype numpy picks from T's (module docstring)
    # numpy 1.x (MXNet 1.9.1's) compares T's number with a Python v in float64; MXNet's scalar
    # comparison would cast v to T's dtype (int32 `0 >= 0.5` holds there)
    wide = call(f"{ns}.cast", [tensor], [("dtype", cst.SimpleString('"float64"'))])
    compared = _compared(test, node, wide)
    body = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else ()
    if compared is None or len(body) != 1 or not isinstance(body[0], cst.SimpleStatementLine):
        return None
    line = body[0]
    if len(line.body) != 1 or not isinstance(line.body[0], cst.Assign) or _has_comment(statement):
        return None
    assign = line.body[0]
    if len(assign.targets) != 1 or not isinstance(assign.targets[0].target, cst.Name):
        return None
    target = assign.targets[0].target
    # a tensor before the `if` (the analysis's value at the test), and E one (`where` needs it)
    if not rule.is_tensor(target) or not rule.is_tensor(assign.value):
        return None
    other = compared.comparisons[0].comparator if compared.left is wide else compared.left
    if rule.is_tensor(other) or any(isinstance(n, cst.Call) for n in walk_nodes(other)):
        return None
    one = tuple_of([cst.Integer("0")])
    mask = call(
        f"{ns}.broadcast_like",
        [
            call(f"{ns}.reshape", [compared], [("shape", tuple_of([cst.Integer("1")]))]),
            cst.Name(target.value),
        ],
        [("lhs_axes", one), ("rhs_axes", one)],
    )
    select = _exploded(
        call(f"{ns}.where", [mask, assign.value, cst.Name(target.value)]),
        _indent(rule, statement, parents),
    )
    new = cst.SimpleStatementLine(
        body=[assign.with_changes(value=select)], leading_lines=statement.leading_lines
    )
    return ((statement, new),)


def _indent(rule, statement: cst.If, parents: Dict[cst.CSTNode, cst.CSTNode]) -> str:
    """The `if`'s indentation: its blocks' inside the function, and a method's 4 columns."""
    width = 4 if rule.facts.klass is not None else 0
    current = parents.get(statement)
    while current is not None:
        if isinstance(current, cst.IndentedBlock):
            width += len(current.indent if current.indent is not None else "    ")
        current = parents.get(current)
    return " " * width


def _exploded(select: cst.Call, indent: str) -> cst.Call:
    """`F.where(` / one argument a line / `)`, black's form: E keeps a line of its own after
    the `if`'s, so what `--verify` observes in E maps back to E's line in the original."""
    inner = cst.ParenthesizedWhitespace(last_line=cst.SimpleWhitespace(indent + "    "))
    outer = cst.ParenthesizedWhitespace(last_line=cst.SimpleWhitespace(indent))
    comma = cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=inner)
    last = cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=outer)
    args = [a.with_changes(comma=comma) for a in select.args[:-1]]
    args.append(select.args[-1].with_changes(comma=last))
    return select.with_changes(whitespace_before_args=inner, args=args)


def _compared(
    test: cst.Comparison, node: cst.Call, tensor: cst.BaseExpression
) -> Optional[cst.Comparison]:
    """The test with `tensor` in place of `tensor.asscalar()`, when it is one comparison."""
    if len(test.comparisons) != 1 or not isinstance(
        test.comparisons[0].operator, COMPARISON_OPERATORS
    ):
        return None
    target = test.comparisons[0]
    if test.left is node:
        return test.with_changes(left=tensor)
    if target.comparator is node:
        return test.with_changes(comparisons=[target.with_changes(comparator=tensor)])
    return None


def _has_comment(statement: cst.If) -> bool:
    """Whether a `#` is written inside the `if` (a comment, or one in a string: conservative)."""
    return "#" in cst.Module(body=[]).code_for_node(statement.with_changes(leading_lines=()))
