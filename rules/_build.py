"""Small helpers for building replacement nodes in fixes (shared by rule modules).

Replacements are built from LibCST nodes, reusing the user's own sub-expressions so their
formatting and comments survive; only the new scaffolding is generated.
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple

import libcst as cst


def attr_chain(dotted: str) -> cst.BaseExpression:
    """ "F.contrib.arange_like" -> the Attribute chain."""
    parts = dotted.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def call(
    func: str,
    positional: Sequence[cst.BaseExpression] = (),
    keywords: Sequence[Tuple[str, cst.BaseExpression]] = (),
) -> cst.Call:
    """`func(positional..., key=value...)` with ruff/black spacing (`key=value`)."""
    args = [cst.Arg(value=value) for value in positional]
    args += [keyword_arg(key, value) for key, value in keywords]
    return cst.Call(func=attr_chain(func), args=args)


def keyword_arg(key: str, value: cst.BaseExpression) -> cst.Arg:
    """The argument `key=value`, spaced as ruff and black write it."""
    return cst.Arg(
        value=value,
        keyword=cst.Name(key),
        equal=cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""),
            whitespace_after=cst.SimpleWhitespace(""),
        ),
    )


def with_keyword(node: cst.Call, key: str, value: cst.BaseExpression) -> cst.Call:
    """`node` with `key=value` appended to its arguments (after `, ` when it has some)."""
    args = list(node.args)
    if args:
        args[-1] = args[-1].with_changes(
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        )
    return node.with_changes(args=args + [keyword_arg(key, value)])


def integer(value: Optional[int]) -> cst.BaseExpression:
    """An int literal (negative as unary minus) or None."""
    if value is None:
        return cst.Name("None")
    if value < 0:
        return cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer(str(-value)))
    return cst.Integer(str(value))


def tuple_of(values: Sequence[cst.BaseExpression]) -> cst.Tuple:
    """`(a,)` / `(a, b)`: a one-element tuple keeps its trailing comma."""
    elements = [cst.Element(value=value) for value in values]
    if len(elements) == 1:
        elements[0] = elements[0].with_changes(comma=cst.Comma())
    return cst.Tuple(elements=elements)


def strip_parens(node: cst.BaseExpression) -> cst.BaseExpression:
    """The expression without its own surrounding parentheses (an empty tuple keeps them:
    they are the tuple)."""
    if isinstance(node, cst.Tuple) and not node.elements:
        return node
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


def source_of(node: cst.CSTNode) -> str:
    """The source text of `node` as it would print on its own (no module around it)."""
    return cst.Module([]).code_for_node(node)
