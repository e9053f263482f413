"""Top-level statements of a Python file found from the text, without parsing it.

Why: `ast.parse` of a whole model file costs about a fifth of a LibCST parse of it, and the
linter only needs (a) where the top-level statements are, to cut out the ones holding a
hybrid_forward, and (b) a small skeleton of the module (imports, class headers, bound names)
for the rules' module context. This scanner tracks strings, comments, brackets and line
continuations to find logical lines that start at column 0. It is an optimisation with an
exact fallback: it returns None when anything looks unusual, and the linter falls back to
`ast` whenever a region or the skeleton it produced does not parse.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import List, Optional

_INTERESTING = re.compile(r"[\"'#()\[\]{}\\\r\n:]")
_CONTINUES = re.compile(r"(?:else|elif|except|finally)\b")
_DEF = re.compile(r"(?:async[ \t]+)?def[ \t]+(\w+)")
_CLASS = re.compile(r"class[ \t]+(\w+)")
_OPEN, _CLOSE = "([{", ")]}"


@dataclass
class TopStatement:
    """One top-level statement: its lines (1-based, decorators included) and what it is."""

    first: int
    last: int
    kind: str  # "def", "class", "import" or "other"
    name: Optional[str] = None
    header: str = ""  # for def/class: the text from the keyword up to its colon


def _string_end(source: str, start: int) -> int:
    """Index just after the string literal whose opening quote is at `start`, or -1."""
    quote = source[start]
    if source.startswith(quote * 3, start):
        closing, position = quote * 3, start + 3
        while True:
            end = source.find(closing, position)
            if end < 0:
                return -1
            backslashes = 0
            while source[end - 1 - backslashes] == "\\":
                backslashes += 1
            if backslashes % 2 == 0:
                return end + 3
            position = end + 1
    position = start + 1
    while position < len(source):
        char = source[position]
        if char == "\\":
            position += 2
            continue
        if char == quote:
            return position + 1
        if char in "\r\n":
            return -1
        position += 1
    return -1


def scan(source: str) -> Optional[List[TopStatement]]:
    """The top-level statements of `source`, or None when the scan is not sure."""
    starts: List[int] = []  # offsets of logical lines starting at column 0
    header_colons: dict = {}  # statement start offset -> offset of its first depth-0 colon
    depth = 0
    position = 0
    current = 0  # start offset of the current logical line
    starts.append(0)
    length = len(source)
    while True:
        match = _INTERESTING.search(source, position)
        if match is None:
            break
        index = match.start()
        char = source[index]
        if char in "\"'":
            end = _string_end(source, index)
            if end < 0:
                return None
            position = end
        elif char == "#":
            newline = source.find("\n", index)
            carriage = source.find("\r", index)
            ends = [e for e in (newline, carriage) if e >= 0]
            position = min(ends) if ends else length
        elif char in _OPEN:
            depth += 1
            position = index + 1
        elif char in _CLOSE:
            depth -= 1
            if depth < 0:
                return None
            position = index + 1
        elif char == "\\":
            position = index + 2
            if source.startswith("\r\n", index + 1):
                position = index + 3
        elif char == ":":
            if depth == 0 and current not in header_colons:
                header_colons[current] = index
            position = index + 1
        else:  # a line end
            position = index + (2 if source.startswith("\r\n", index) else 1)
            if depth == 0:
                current = position
                starts.append(position)
    if depth != 0:
        return None
    return _statements(source, starts, header_colons)


def _statements(source: str, starts: List[int], header_colons: dict) -> List[TopStatement]:
    line_of = _line_numbers(source)
    statements: List[TopStatement] = []
    pending_decorator = False
    for offset in starts:
        if offset >= len(source):
            continue
        char = source[offset]
        if char in " \t\f\r\n#":
            continue  # indented (inside a block), blank or a comment line
        line = line_of(offset)
        text = source[offset : offset + 200]
        if pending_decorator or _CONTINUES.match(text):
            pending_decorator = pending_decorator and char == "@"
            if statements and not pending_decorator:
                _describe(statements[-1], source, offset, header_colons)
            continue
        if statements:
            statements[-1].last = line - 1
        statements.append(TopStatement(line, line, "other"))
        if char == "@":
            pending_decorator = True
        else:
            _describe(statements[-1], source, offset, header_colons)
    if statements:
        statements[-1].last = line_of(len(source) - 1) if source else 1
    return statements


def _describe(statement: TopStatement, source: str, offset: int, header_colons: dict) -> None:
    """Fill kind/name/header from the statement's keyword line at `offset`."""
    text = source[offset : offset + 200]
    for kind, pattern in (("def", _DEF), ("class", _CLASS)):
        found = pattern.match(text)
        if found:
            colon = header_colons.get(offset)
            statement.kind, statement.name = kind, found.group(1)
            statement.header = source[offset : colon + 1] if colon is not None else ""
            return
    if text.startswith(("import ", "from ")) and statement.kind == "other":
        statement.kind = "import"


def _line_numbers(source: str):
    """offset -> 1-based line number (line ends as Python counts them)."""
    ends = [m.end() for m in re.finditer(r"\r\n|\r|\n", source)]
    return lambda offset: bisect.bisect_right(ends, offset) + 1


def skeleton(source: str, statements: List[TopStatement], lines: List[str]) -> str:
    """A small module with the same imports, bindings and class headers (bodies elided, but
    for functions that may return an NDArray they make, `ModuleContext.ndarray_functions`, and
    short ones that may be a one-line test, `ModuleContext.predicates`)."""
    parts: List[str] = []
    for statement in statements:
        if statement.kind == "def" and (
            _may_return_ndarray(lines, statement) or _may_be_test(lines, statement)
        ):
            parts.append("".join(lines[statement.first - 1 : statement.last]).rstrip() + "\n")
        elif statement.kind in ("def", "class"):
            if not statement.header:
                return ""  # cannot elide safely: the caller falls back to ast
            parts.append(statement.header + " pass\n")
        else:
            parts.append("".join(lines[statement.first - 1 : statement.last]).rstrip() + "\n")
    return "".join(parts)


def _may_be_test(lines: List[str], statement: TopStatement) -> bool:
    return looks_like_test(lines[statement.first - 1 : statement.last])


def looks_like_test(lines: List[str]) -> bool:
    """A cheap text test of a function's lines: undecorated, a few code lines, returning a
    comparison (`ModuleContext.predicates` reads only such functions, on either parse path);
    blank and comment lines do not count."""
    code = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if len(code) > 8 or not code or code[0].lstrip().startswith("@"):
        return False
    joined = "".join(code)
    return "return" in joined and any(t in joined for t in (" is ", "==", "!=", "isinstance"))


def _may_return_ndarray(lines: List[str], statement: TopStatement) -> bool:
    """A cheap text test: the function returns something and mentions an mx.nd call."""
    text = "".join(lines[statement.first - 1 : statement.last])
    return "return" in text and ("nd." in text or "ndarray" in text)
