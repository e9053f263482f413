"""Keep lines that fixes made long within the project's line length (issue 14).

Rewrites such as ``x + y`` -> ``F.broadcast_add(x, y)`` lengthen lines; a project formatted to
88 or 100 columns would then fail its formatter check after ``hybridlint --fix``. This module
re-renders such a line the way black would break it, with LibCST (no string surgery):

* only lines a fix changed are touched, and only when they now exceed the limit and did not
  before (or grew): lines the user wrote long are the user's business, and so is a trailing
  comment that made a line long before the fix: if its code still fits, it is left as it is
  (black would move the comment after the closing bracket of a three-line call, blind round
  11);
* only a line that is one whole simple statement (``y = F.op(...)``, ``return F.op(...)``,
  a trailing comment allowed) is broken; a line inside a multi-line statement or a compound
  statement header is left long;
* the break is inside brackets: around a returned or assigned bare tuple or conditional
  expression (black's invisible parentheses; a conditional expression that still does not fit
  puts ``if`` and ``else`` on lines of their own), else a call's, outermost call first: "hanging" (arguments on the
  next line, indented +4, the closing bracket on its own line), else one argument per line
  with a trailing comma (black's "exploded" form); when an argument's line is still too long,
  its own brackets (a call's, a list comprehension's) break a level deeper, before any inner
  bracket is tried alone, as black does. A statement without a call or bare tuple is left
  long (black would not break it either);
* the result must compile to the same AST as the long line, or the line is left as it was.

Indentation characters (form feeds, tabs) and the line's ending (LF/CRLF) are kept.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import io
import re
import tokenize
from typing import List, Optional, Set, Tuple

import libcst as cst

from .config import DEFAULT_LINE_LENGTH  # black's 88, one definition

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
    for tag, i1, i2, j1, j2 in _changes(before, after, 0, len(before), 0, len(after)):
        for j in range(j1, j2):
            width = len(_body(after[j]))
            if width <= limit:
                continue
            i = i1 + (j - j1)
            old = len(_body(before[i])) if tag == "replace" and i < i2 else 0
            if old <= limit or (width > old and _code_width(after[j]) > limit):
                grown.add(j)  # (a line long before whose code still fits: its comment is)
    return grown


def _code_width(line: str) -> int:
    """The width of the line's code without a trailing comment (the whole line when it does
    not tokenize alone: a line inside a bracket or string another line opened)."""
    body = _body(line)
    if "#" not in body:
        return len(body)
    try:
        for token in tokenize.generate_tokens(io.StringIO(body + "\n").readline):
            if token.type == tokenize.COMMENT:
                return len(body[: token.start[1]].rstrip())
    except (tokenize.TokenError, SyntaxError):  # (IndentationError is a SyntaxError)
        pass
    return len(body)


_Opcode = Tuple[str, int, int, int, int]


def _changes(a: List[str], b: List[str], alo: int, ahi: int, blo: int, bhi: int) -> List[_Opcode]:
    """The changed blocks (difflib opcodes other than "equal") of ``a[alo:ahi]`` ->
    ``b[blo:bhi]``, in linear time for what fixes do (issue 22: one whole-file difflib per
    fix made ``--fix`` quadratic, since difflib is quadratic in a file's repeated lines).

    As patience diff does: the common head and tail are equal; lines that occur once on each
    side are anchors (their longest run in the same order is kept); difflib compares only
    what lies between two anchors, which for fixes is a statement or a few.
    """
    while alo < ahi and blo < bhi and a[alo] == b[blo]:
        alo, blo = alo + 1, blo + 1
    while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
        ahi, bhi = ahi - 1, bhi - 1
    if alo == ahi or blo == bhi:
        if alo == ahi and blo == bhi:
            return []
        return [("insert" if alo == ahi else "delete", alo, ahi, blo, bhi)]
    anchors = _anchors(a, b, alo, ahi, blo, bhi)
    if not anchors:
        matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi], autojunk=False)
        return [
            (tag, i1 + alo, i2 + alo, j1 + blo, j2 + blo)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"
        ]
    found: List[_Opcode] = []
    for i, j in anchors + [(ahi, bhi)]:
        found += _changes(a, b, alo, i, blo, j)
        alo, blo = i + 1, j + 1
    return found


def _anchors(
    a: List[str], b: List[str], alo: int, ahi: int, blo: int, bhi: int
) -> List[Tuple[int, int]]:
    """(i, j) of the lines unique in both ranges, the longest chain increasing in both."""
    count: dict = {}
    for i in range(alo, ahi):
        entry = count.get(a[i])
        count[a[i]] = [i, -1] if entry is None else [-1, -1]
    for j in range(blo, bhi):
        entry = count.get(b[j])
        if entry is not None and entry[0] >= 0:
            entry[1] = j if entry[1] == -1 else -2
    pairs = sorted((i, j) for i, j in count.values() if i >= 0 and j >= 0)
    # longest increasing subsequence of the j's (patience sorting)
    tails: List[int] = []
    tail_index: List[int] = []
    previous: List[int] = []
    for index, (_, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_index.append(index)
        else:
            tails[k], tail_index[k] = j, index
        previous.append(tail_index[k - 1] if k else -1)
    chain: List[Tuple[int, int]] = []
    index = tail_index[-1] if tail_index else -1
    while index >= 0:
        chain.append(pairs[index])
        index = previous[index]
    return chain[::-1]


def _parenthesized(indent: str) -> cst.ParenthesizedWhitespace:
    """A line break followed by ``indent`` (the statement parsed alone has no block indent)."""
    return cst.ParenthesizedWhitespace(last_line=cst.SimpleWhitespace(indent))


def _break_items(items: list, inner: str, outer: str, exploded: bool) -> list:
    """Call arguments or tuple elements: hanging (only a break before the closing bracket)
    or exploded (one a line, black's magic trailing comma after the last)."""
    last = len(items) - 1
    out = []
    for index, item in enumerate(items):
        comma = item.comma if isinstance(item.comma, cst.Comma) else None
        if index < last:
            if exploded:
                item = item.with_changes(
                    comma=(comma or cst.Comma()).with_changes(
                        whitespace_before=cst.SimpleWhitespace(""),
                        whitespace_after=_parenthesized(inner),
                    )
                )
        elif exploded or comma is not None:
            item = item.with_changes(
                comma=(comma or cst.Comma()).with_changes(
                    whitespace_before=cst.SimpleWhitespace(""),
                    whitespace_after=_parenthesized(outer),
                )
            )
            if isinstance(item, cst.Arg):
                item = item.with_changes(whitespace_after_arg=cst.SimpleWhitespace(""))
        elif isinstance(item, cst.Arg):
            item = item.with_changes(whitespace_after_arg=_parenthesized(outer))
        else:  # a tuple element without a comma: its value ends the line
            item = item.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        out.append(item)
    return out


# black's split priorities of binary operators (its MATH_PRIORITIES): an operation breaks
# before the operators of its own group; ** is never a place to break
_PRECEDENCE = {
    cst.BitOr: 9,
    cst.BitXor: 8,
    cst.BitAnd: 7,
    cst.LeftShift: 6,
    cst.RightShift: 6,
    cst.Add: 5,
    cst.Subtract: 5,
    cst.Multiply: 4,
    cst.Divide: 4,
    cst.FloorDivide: 4,
    cst.Modulo: 4,
    cst.MatrixMultiply: 4,
}


def _precedence(operator: cst.BaseBinaryOp) -> int:
    return _PRECEDENCE.get(type(operator), 0)


def _split_operators(node: cst.BinaryOperation, level: int, indent: str) -> cst.BinaryOperation:
    """``node`` with a line break (to ``indent``) before each operator of precedence
    ``level`` on its left spine (``a + b - c`` is ``(a + b) - c``)."""
    if level == 0 or _precedence(node.operator) != level or node.lpar:
        return node
    left = node.left
    if isinstance(left, cst.BinaryOperation):
        left = _split_operators(left, level, indent)
    operator = node.operator.with_changes(
        whitespace_before=_parenthesized(indent), whitespace_after=cst.SimpleWhitespace(" ")
    )
    return node.with_changes(left=left, operator=operator)


_NO_TARGET = cst.Pass()  # a target no tree holds: nothing is broken but what a subclass says


class _Breaker(cst.CSTTransformer):
    """Re-renders one call, bare tuple, conditional expression or list comprehension (the
    ``target``) broken inside its brackets; with ``nested``, also one of its descendants,
    a level deeper (black's way when one level leaves a line too long: the arguments a line
    each, then the long argument's own brackets)."""

    def __init__(
        self,
        target: cst.CSTNode,
        outer: str,
        exploded: bool,
        nested: Optional[Tuple[cst.CSTNode, bool]] = None,
    ) -> None:
        super().__init__()
        self.target, self.outer, self.exploded = target, outer, exploded
        self.inner = outer + "    "
        self.nested = nested

    def _level(self, node: cst.CSTNode) -> bool:
        """Whether ``node`` is broken, and if so sets the indentation and form it gets."""
        if node is self.target:
            return True
        if self.nested is not None and node is self.nested[0]:
            # the descendant starts a line of the target's items: one level deeper
            self._saved = (self.outer, self.inner, self.exploded)
            self.outer, self.inner = self.inner, self.inner + "    "
            self.exploded = self.nested[1]
            return True
        return False

    def _done(self, node: cst.CSTNode) -> None:
        if self.nested is not None and node is self.nested[0]:
            self.outer, self.inner, self.exploded = self._saved

    def leave_ListComp(self, original_node: cst.ListComp, updated_node: cst.ListComp):
        """``[elt for i in xs]`` -> ``[`` elt / for i in xs / ``]``, a line each (black)."""
        if not self._level(original_node):
            return updated_node
        for_in = updated_node.for_in.with_changes(whitespace_before=_parenthesized(self.inner))
        broken = updated_node.with_changes(
            lbracket=cst.LeftSquareBracket(whitespace_after=_parenthesized(self.inner)),
            rbracket=cst.RightSquareBracket(whitespace_before=_parenthesized(self.outer)),
            for_in=for_in,
        )
        self._done(original_node)
        return broken

    def leave_BinaryOperation(
        self, original_node: cst.BinaryOperation, updated_node: cst.BinaryOperation
    ) -> cst.BinaryOperation:
        """An argument ``a - b * c`` -> ``a`` / ``- b * c``: a line before each operator of
        the operation's own (lowest) precedence, at the argument's indentation (black's
        delimiter split)."""
        if not self._level(original_node):
            return updated_node
        broken = _split_operators(updated_node, _precedence(updated_node.operator), self.outer)
        self._done(original_node)
        return broken

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.Call:
        if not self._level(original_node):
            return updated_node
        broken = self._call(updated_node)
        self._done(original_node)
        return broken

    def _call(self, updated_node: cst.Call) -> cst.Call:
        args = _break_items(list(updated_node.args), self.inner, self.outer, self.exploded)
        if not self.exploded and not isinstance(args[-1].comma, cst.Comma):
            args[-1] = args[-1].with_changes(whitespace_after_arg=_parenthesized(self.outer))
        return updated_node.with_changes(
            whitespace_before_args=_parenthesized(self.inner), args=args
        )

    def leave_IfExp(self, original_node: cst.IfExp, updated_node: cst.IfExp) -> cst.IfExp:
        """``y = A if C else B`` -> ``y = (`` A if C else B ``)``, exploded: A, ``if C`` and
        ``else B`` a line each (black's parentheses around a conditional expression)."""
        if original_node is not self.target:
            return updated_node
        if self.exploded:
            updated_node = updated_node.with_changes(
                whitespace_before_if=_parenthesized(self.inner),
                whitespace_before_else=_parenthesized(self.inner),
            )
        return updated_node.with_changes(
            lpar=[cst.LeftParen(whitespace_after=_parenthesized(self.inner))],
            rpar=[cst.RightParen(whitespace_before=_parenthesized(self.outer))],
        )

    def leave_Tuple(self, original_node: cst.Tuple, updated_node: cst.Tuple) -> cst.Tuple:
        """``return a, b`` -> ``return (`` a, b ``)``: black's invisible parentheses made
        visible (parentheses around a bare tuple do not change it)."""
        if original_node is not self.target:
            return updated_node
        elements = _break_items(list(updated_node.elements), self.inner, self.outer, self.exploded)
        rpar_before = (
            _parenthesized(self.outer)
            if not self.exploded and not isinstance(elements[-1].comma, cst.Comma)
            else cst.SimpleWhitespace("")
        )
        return updated_node.with_changes(
            elements=elements,
            lpar=[cst.LeftParen(whitespace_after=_parenthesized(self.inner))],
            rpar=[cst.RightParen(whitespace_before=rpar_before)],
        )


def _chain_dots(value: cst.BaseExpression) -> List[cst.Attribute]:
    """The attribute accesses of a method chain that follow a closing bracket, outermost
    first: ``.b`` and ``.c`` of ``a(x).b(y).c(z)`` or ``x[0].b(y).c()``, none of ``self.f.g(x)``
    (black's dot delimiters; a dot after a name is no place to break)."""
    dots: List[cst.Attribute] = []
    node: cst.BaseExpression = value
    while True:
        if isinstance(node, cst.Call):
            node = node.func
        elif isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.Attribute):
            if isinstance(node.value, (cst.Call, cst.Subscript)) and not node.value.lpar:
                dots.append(node)
            node = node.value
        else:
            return dots


class _Fluent(_Breaker):
    """``y = a(x).b(y).c(z)`` -> ``y = (`` / ``a(x)`` / ``.b(y)`` / ``.c(z)`` / ``)``: black's
    "fluent interface" form of an assigned or returned chain of two or more method calls after
    a bracket (black's invisible parentheses made visible, a line before each such dot); with
    ``piece``, also that call of a piece broken inside its brackets, a level deeper."""

    def __init__(
        self,
        value: cst.BaseExpression,
        dots: List[cst.Attribute],
        outer: str,
        piece: Optional[cst.Call] = None,
        exploded: bool = False,
    ) -> None:
        super().__init__(piece if piece is not None else _NO_TARGET, outer + "    ", exploded)
        self.value, self.dots, self.chain_outer = value, set(dots), outer

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.Attribute:
        if original_node not in self.dots:
            return updated_node
        return updated_node.with_changes(
            dot=cst.Dot(
                whitespace_before=_parenthesized(self.outer),
                whitespace_after=cst.SimpleWhitespace(""),
            )
        )

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        # the chain's outermost node (a call or subscript) gets the parentheses, whatever its type
        updated = super().on_leave(original_node, updated_node)
        if original_node is self.value and isinstance(updated, cst.BaseExpression):
            return updated.with_changes(
                lpar=[cst.LeftParen(whitespace_after=_parenthesized(self.outer))],
                rpar=[cst.RightParen(whitespace_before=_parenthesized(self.chain_outer))],
            )
        return updated


def _fluent_chain(
    statement: cst.CSTNode,
) -> Optional[Tuple[cst.BaseExpression, List[cst.Attribute]]]:
    """The value an assignment or return statement gives, and its dots, when it is a
    method chain black breaks at its dots (two or more dot delimiters, no parentheses)."""
    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    small = statement.body[0]
    value = small.value if isinstance(small, (cst.Assign, cst.Return)) else None
    if value is None or value.lpar:
        return None
    dots = _chain_dots(value)
    return (value, dots) if len(dots) >= 2 else None


class _Candidates(cst.CSTVisitor):
    """Where a statement can break: the bare tuple or conditional expression it returns or
    assigns (as black does first), then calls with arguments, outermost (pre-order) first."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: List[cst.CSTNode] = []

    def visit_Return(self, node: cst.Return) -> None:
        self._bare_tuple(node.value)

    def visit_Assign(self, node: cst.Assign) -> None:
        self._bare_tuple(node.value)

    def _bare_tuple(self, value: Optional[cst.BaseExpression]) -> None:
        if isinstance(value, cst.Tuple) and not value.lpar and value.elements:
            self.nodes.append(value)
        elif isinstance(value, cst.IfExp) and not value.lpar:
            self.nodes.append(value)

    def visit_Call(self, node: cst.Call) -> None:
        if node.args:
            self.nodes.append(node)

    def visit_ListComp(self, node: cst.ListComp) -> None:
        self.nodes.append(node)

    def visit_Arg(self, node: cst.Arg) -> None:
        # an argument that is an arithmetic operation breaks before its operators (below)
        if isinstance(node.value, cst.BinaryOperation) and not node.value.lpar:
            self.nodes.append(node.value)


def _same_code(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False


def wrap_line(line: str, limit: int) -> Optional[List[str]]:
    """The statement on ``line`` (with its ending) broken within ``limit`` columns, as lines
    with the same ending; None when there is no natural break (see the module docstring)."""
    body = _body(line)
    ending = line[len(body) :] or "\n"
    stripped = body.lstrip(" \t\f")
    prefix = body[: len(body) - len(stripped)]
    outer = prefix.replace("\f", "")
    try:
        module = cst.parse_module(stripped + "\n")
    except cst.ParserSyntaxError:
        return None
    if len(module.body) != 1 or not isinstance(module.body[0], cst.SimpleStatementLine):
        return None
    try:
        return _wrapped(module, stripped, prefix, outer, ending, limit)
    except (RecursionError, MemoryError):  # nested deeper than the stack: left unbroken
        return None


def _wrapped(
    module: cst.Module, stripped: str, prefix: str, outer: str, ending: str, limit: int
) -> Optional[List[str]]:
    collector = _Candidates()
    module.visit(collector)
    fallback: Optional[List[str]] = None

    def render(breaker: cst.CSTTransformer) -> Optional[List[str]]:
        code = module.visit(breaker).code
        if not _same_code(stripped, code):
            return None
        pieces = code.split("\n")[:-1]
        return [text + ending for text in [prefix + pieces[0]] + pieces[1:]]

    def fits(lines: List[str]) -> bool:
        return all(len(_body(text)) <= limit for text in lines)

    chain = _fluent_chain(module.body[0])
    if chain is not None:  # black's first choice for such a chain, when its lines fit
        value, dots = chain
        inside = set(_descendants(value))
        pieces = [node for node in collector.nodes if node is value or node in inside]
        for piece, exploded in [(None, False)] + [
            (node, form) for node in pieces if isinstance(node, cst.Call) for form in (False, True)
        ]:
            lines = render(_Fluent(value, dots, outer, piece, exploded))
            if lines is not None and fits(lines):
                return lines
    for node in collector.nodes:
        if isinstance(node, (cst.ListComp, cst.BinaryOperation)):
            continue  # only inside a call's arguments (below): alone black would not
        for exploded in (False, True):
            lines = render(_Breaker(node, outer, exploded))
            if lines is None:
                continue
            if fits(lines):
                return lines
            if fallback is None and exploded:
                fallback = lines
        if not isinstance(node, cst.Call):
            continue
        # one level left a line too long: its arguments a line each, and one of them broken
        # inside its own brackets, a level deeper (before any inner bracket alone: black).
        # Only inside the arguments: a call of the callee chain (`a(...).b(...)` of
        # `a(...).b(...).c(x)`) stays on the first line, where it is a candidate of its own
        # below (black's omitted trailers: `a(...).b(` / args / `).c(x)`)
        inside = {d for arg in node.args for d in _descendants(arg)}
        for child in collector.nodes:
            if child not in inside:
                continue
            for child_exploded in (False, True):
                if isinstance(child, (cst.ListComp, cst.BinaryOperation)) and child_exploded:
                    continue  # a comprehension, an operation: one broken form
                # a lone argument gets no trailing comma (black adds one only where it
                # splits at commas)
                lines = render(_Breaker(node, outer, len(node.args) > 1, (child, child_exploded)))
                if lines is not None and fits(lines):
                    return lines
    return fallback


def _descendants(node: cst.CSTNode):
    for child in node.children:
        yield child
        yield from _descendants(child)


def wrap_fixed_lines(before: str, after: str, limit: int = DEFAULT_LINE_LENGTH) -> str:
    """``after`` (``before`` with fixes applied) with the lines the fixes made too long
    broken at a natural point; every other line is returned byte for byte."""
    return wrap_fixed_lines_mapped(before, after, limit)[0]


class PositionMap:
    """Where a position of the unwrapped text is in the wrapped one (1-based lines, 1-based
    character columns, as findings give them): lines after a broken one move down, and a
    position on a broken line goes to the same character of its pieces."""

    def __init__(self) -> None:
        # per line of the unwrapped text: (first line in the wrapped text, 0-based) and, for
        # a broken line, its body and the bodies of its pieces joined with "\n"
        self._lines: List[Tuple[int, Optional[Tuple[str, str]]]] = []
        self._added = 0  # lines the breaks added

    def add(self, first: int, broken: Optional[Tuple[str, str]] = None) -> None:
        self._lines.append((first, broken))
        if broken is not None:
            self._added += broken[1].count("\n")

    def position(self, line: int, col: int) -> Tuple[int, int]:
        """``(line, col)`` of the unwrapped text -> the same place in the wrapped text."""
        if not 0 < line <= len(self._lines):  # past the end (a finding at end of file)
            return (line + self._added if line > 0 else line), col
        first, broken = self._lines[line - 1]
        if broken is None:
            return first + 1, col
        old, new = broken
        offset = _moved_offset(old, new, max(col - 1, 0))
        row = new.count("\n", 0, offset)
        start = new.rfind("\n", 0, offset) + 1
        return first + row + 1, offset - start + 1


def _moved_offset(old: str, new: str, offset: int) -> int:
    """Offset ``offset`` of ``old`` in ``new``, which is ``old`` with whitespace, line breaks,
    brackets and commas inserted or removed: the matching character, or where the text
    after it resumes."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for a, b, size in matcher.get_matching_blocks():
        if offset < a + size:
            return b + max(offset - a, 0)
    return len(new)


def wrap_fixed_lines_mapped(
    before: str, after: str, limit: int = DEFAULT_LINE_LENGTH
) -> Tuple[str, PositionMap]:
    """:func:`wrap_fixed_lines`, and where each position of ``after`` went (``--fix
    --verify`` moves the findings it made on the unwrapped text)."""
    old, new = _split(before), _split(after)
    grown = _grown_lines(old, new, limit)
    where = PositionMap()
    if not grown:
        for index in range(len(new)):
            where.add(index)
        return after, where
    out: List[str] = []
    for index, line in enumerate(new):
        wrapped = wrap_line(line, limit) if index in grown else None
        if wrapped is None:
            where.add(len(out))
            out.append(line)
        else:
            if not line.endswith(("\n", "\r")):  # the file's last line had no ending
                wrapped[-1] = _body(wrapped[-1])
            where.add(len(out), (_body(line), "\n".join(_body(piece) for piece in wrapped)))
            out.extend(wrapped)
    return "".join(out), where
