"""Keep lines that fixes made long within the project's line length (issue 14).

Rewrites such as ``x + y`` -> ``F.broadcast_add(x, y)`` lengthen lines; a project formatted to
88 or 100 columns would then fail its formatter check after ``hybridlint --fix``. This module
re-renders such a line the way black would break it, with LibCST (no string surgery):

* only lines a fix changed are touched, and only when they now exceed the limit and did not
  before (or grew): lines the user wrote long are the user's business;
* only a line that is one whole simple statement (``y = F.op(...)``, ``return F.op(...)``,
  a trailing comment allowed) is broken; a line inside a multi-line statement or a compound
  statement header is left long;
* the break is inside a call's brackets, outermost call first: "hanging" (arguments on the
  next line, indented +4, the closing bracket on its own line), else one argument per line
  with a trailing comma (black's "exploded" form). A statement without a call is left long;
* the result must compile to the same AST as the long line, or the line is left as it was.

Indentation characters (form feeds, tabs) and the line's ending (LF/CRLF) are kept.
"""
from __future__ import annotations

import ast
import difflib
import re
from typing import List, Optional, Set

import libcst as cst

DEFAULT_LINE_LENGTH = 88  # black's default, used when no configuration sets one

_ENDING = re.compile(r"(\r\n|\r|\n)\Z")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def _split(text: str) -> List[str]:
    return _LINE.findall(text)


def _body(line: str) -> str:
    return _ENDING.sub("", line)


def _grown_lines(before: List[str], after: List[str], limit: int) -> Set[int]:
    """Indices in ``after`` of lines a fix changed that now exceed ``limit`` and did not
    before (or are longer than the line they replace)."""
    grown: Set[int] = set()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or tag == "delete":
            continue
        for j in range(j1, j2):
            width = len(_body(after[j]))
            if width <= limit:
                continue
            i = i1 + (j - j1)
            old = len(_body(before[i])) if tag == "replace" and i < i2 else 0
            if old <= limit or width > old:
                grown.add(j)
    return grown


def _parenthesized(indent: str) -> cst.ParenthesizedWhitespace:
    """A line break followed by ``indent`` (the statement parsed alone has no block indent)."""
    return cst.ParenthesizedWhitespace(last_line=cst.SimpleWhitespace(indent))


class _Breaker(cst.CSTTransformer):
    """Re-renders one call (the ``target``) broken inside its brackets."""

    def __init__(self, target: cst.Call, outer: str, exploded: bool) -> None:
        super().__init__()
        self.target, self.outer, self.exploded = target, outer, exploded

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if original_node is not self.target:
            return updated_node
        inner = self.outer + "    "
        args = list(updated_node.args)
        last = len(args) - 1
        new_args = []
        for index, arg in enumerate(args):
            if index < last:
                if self.exploded:
                    comma = arg.comma if isinstance(arg.comma, cst.Comma) else cst.Comma()
                    arg = arg.with_changes(comma=comma.with_changes(
                        whitespace_before=cst.SimpleWhitespace(""),
                        whitespace_after=_parenthesized(inner)))
            elif self.exploded:  # black's magic trailing comma
                arg = arg.with_changes(
                    comma=cst.Comma(whitespace_after=_parenthesized(self.outer)),
                    whitespace_after_arg=cst.SimpleWhitespace(""))
            elif isinstance(arg.comma, cst.Comma):
                arg = arg.with_changes(comma=arg.comma.with_changes(
                    whitespace_after=_parenthesized(self.outer)))
            else:
                arg = arg.with_changes(whitespace_after_arg=_parenthesized(self.outer))
            new_args.append(arg)
        return updated_node.with_changes(whitespace_before_args=_parenthesized(inner),
                                         args=new_args)


class _Calls(cst.CSTVisitor):
    """Calls with arguments, outermost (pre-order) first."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: List[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        if node.args:
            self.calls.append(node)


def _same_code(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError):
        return False


def wrap_line(line: str, limit: int) -> Optional[List[str]]:
    """The statement on ``line`` (with its ending) broken within ``limit`` columns, as lines
    with the same ending; None when there is no natural break (see the module docstring)."""
    body = _body(line)
    ending = line[len(body):] or "\n"
    stripped = body.lstrip(" \t\f")
    prefix = body[:len(body) - len(stripped)]
    outer = prefix.replace("\f", "")
    try:
        module = cst.parse_module(stripped + "\n")
    except cst.ParserSyntaxError:
        return None
    if len(module.body) != 1 or not isinstance(module.body[0], cst.SimpleStatementLine):
        return None
    collector = _Calls()
    module.visit(collector)
    fallback: Optional[List[str]] = None
    for call in collector.calls:
        for exploded in (False, True):
            code = module.visit(_Breaker(call, outer, exploded)).code
            if not _same_code(stripped, code):
                continue
            pieces = code.split("\n")[:-1]
            lines = [prefix + pieces[0]] + pieces[1:]
            if all(len(text) <= limit for text in lines):
                return [text + ending for text in lines]
            if fallback is None and exploded:
                fallback = [text + ending for text in lines]
    return fallback


def wrap_fixed_lines(before: str, after: str, limit: int = DEFAULT_LINE_LENGTH) -> str:
    """``after`` (``before`` with fixes applied) with the lines the fixes made too long
    broken at a natural point; every other line is returned byte for byte."""
    old, new = _split(before), _split(after)
    grown = _grown_lines(old, new, limit)
    if not grown:
        return after
    out: List[str] = []
    for index, line in enumerate(new):
        wrapped = wrap_line(line, limit) if index in grown else None
        if wrapped is None:
            out.append(line)
        else:
            if not line.endswith(("\n", "\r")):  # the file's last line had no ending
                wrapped[-1] = _body(wrapped[-1])
            out.extend(wrapped)
    return "".join(out)
