"""Jupyter notebooks (``.ipynb``): their code cells are linted, and fixed in place.

The code cells are joined into one module (a later cell uses an earlier cell's imports and
classes, as the kernel does), each cell after a marker comment line. IPython syntax is masked
as IPython itself finds it, at the start of a logical line only: line magics (``%time f()``),
shell escapes (``!pip list``), ``x = !ls``/``x = %who_ls`` and ``obj?`` help become a comment
(or ``pass`` where a statement is needed: a magic as a loop's only body) on the same line, so
lines and columns keep their place; a ``%`` or ``!`` that starts a continuation line inside
brackets, or a line inside a string, is Python (``(a\\n % b)`` is a modulo) and is left alone.
A cell magic's cell is not Python (``%%bash``) and is skipped, except the cell magics whose
body is Python (``%%time``, ``%%timeit``, ``%%capture``, ``%%prun``): their first line is
masked. Each finding is reported at its line in its cell with the message prefixed ``cell N:``
(N counts code cells from 1, as Jupyter shows execution order, not markdown). A cell Python
cannot parse (Python 2's ``print x``) is HL900 at its line in that cell, and left out of the
module: every other cell is still linted. A file that is not a notebook (not JSON, no cells)
is HL900.

``--fix`` fixes the joined module, splits it back into cells at the markers, restores the
masked lines and rewrites only the ``"source"`` values of the cells that changed, textually:
every other byte of the file (outputs, metadata, indentation, key order, escapes, the last
newline) stays as it was, and a notebook with nothing to fix is not touched. The new JSON must
load to the old notebook with those sources replaced, or nothing is written. ``--diff`` shows
one diff per changed cell (``--- nb.ipynb:cell 3``).
"""

from __future__ import annotations

import ast
import bisect
import difflib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple


class NotebookError(ValueError):
    """Not a notebook hybridlint can read."""


# JSON nesting beyond which a file is not read as a notebook (HL900): nbformat 4 nests a few
# levels (cells, outputs, data, metadata; widget and plot outputs some more); json.loads
# recurses once a level, RecursionError from ~1,000, which would end the whole run (notebooks
# are read in the main process).
MAX_JSON_DEPTH = 500
_JSON_TOKEN = re.compile(r'"(?:[^"\\]+|\\.)*"?|[\[\]{}]')


def json_depth(text: str, limit: int = MAX_JSON_DEPTH) -> int:
    """How deep brackets nest in the JSON ``text`` (strings skipped), counted up to the first
    level beyond ``limit``: iteratively, whatever the depth; malformed text is json.loads's."""
    depth = deepest = 0
    for token in _JSON_TOKEN.findall(text):
        if token in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    break
        elif token in "]}":
            depth -= 1
    return deepest


def load(text: str) -> Any:
    """The notebook's JSON data (NotebookError when it is not a notebook)."""
    openers = text.count("[") + text.count("{")
    if openers > MAX_JSON_DEPTH and json_depth(text) > MAX_JSON_DEPTH:
        raise NotebookError(
            f"not a notebook: JSON nested more than {MAX_JSON_DEPTH} levels deep "
            "(nbformat 4 nests a few levels)"
        )
    try:
        data = json.loads(text)
    except RecursionError:  # not expected after the depth check: kept as a file's problem
        raise NotebookError("not a notebook: JSON nested too deeply to read") from None
    except ValueError as exc:
        raise NotebookError(f"not a notebook: invalid JSON ({exc})") from None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        raise NotebookError("not a notebook: no list of cells (nbformat 4)")
    return data


# --- IPython syntax ------------------------------------------------------------------------

_PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})
_ASSIGN_MAGIC = re.compile(r"\s*[A-Za-z_][\w.,\s\[\]()*]*?=\s*[%!]")  # x = !ls, x = %who_ls
_HELP = re.compile(r"\s*(?:\?.*|%?[\w.\[\]]+\s*\?\??\s*)$")  # ?obj, obj?, obj??
_MAGIC_TAG = "# hybridlint:magic:"
_MAGIC_LINE = re.compile(r"^[ \t]*(?:pass  )?# hybridlint:magic:(\d+)[ \t]*$")
_CELL_TAG = "# hybridlint:cell:"
_CELL_LINE = re.compile(r"^# hybridlint:cell:(\d+)\n", re.M)


def _is_magic(line: str) -> bool:
    stripped = line.lstrip()
    if stripped.startswith(("%", "!", "?")):
        return True
    return bool(_ASSIGN_MAGIC.match(line) or _HELP.match(line))


def _magic_lines(lines: Sequence[str], first: int = 0) -> List[int]:
    """The indexes of the lines (from ``first``) that IPython reads as magics: lines starting
    a logical line (outside brackets, strings and backslash continuations) that start with
    ``%``/``!``/``?`` or are ``x = !cmd`` or ``obj?``."""
    found = []
    depth, quote, continued = 0, "", False
    for index in range(first, len(lines)):
        line = lines[index]
        if depth == 0 and not quote and not continued and _is_magic(line):
            found.append(index)
            continue
        continued = False
        j, n = 0, len(line.rstrip("\r"))
        while j < n:
            char = line[j]
            if quote:
                if char == "\\":
                    j += 2
                elif line.startswith(quote, j):
                    j += len(quote)
                    quote = ""
                else:
                    j += 1
                continue
            if char == "#":
                break
            if char in "\"'":
                quote = line[j : j + 3] if line[j : j + 3] in ('"""', "'''") else char
                j += len(quote)
                continue
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(depth - 1, 0)
            elif char == "\\" and j == n - 1:
                continued = True
            j += 1
        if len(quote) == 1 and not line.rstrip("\r").endswith("\\"):
            quote = ""  # an unterminated one-line string: Python's error, not a continuation
    return found


@dataclass
class Cell:
    """One code cell: its number (code cells from 1), its index among all cells, its source
    as written, and what the module holds of it."""

    number: int
    index: int
    source: str
    as_list: bool  # "source" is a list of lines in the JSON (nbformat writes it so)
    masked: str = ""  # the Python the module holds ("" for a skipped or unparsable cell)
    magics: Dict[int, str] = field(default_factory=dict)  # placeholder number -> its line
    skipped: bool = False  # a cell magic whose body is not Python (%%bash)
    error: Optional[Tuple[int, int, str]] = None  # (line, col, message): cannot parse

    @property
    def linted(self) -> bool:
        return not self.skipped and self.error is None


def _mask(cell: Cell, counter: List[int]) -> None:
    """Fill ``cell.masked``/``magics``/``skipped``/``error`` from its source."""
    lines = cell.source.split("\n")
    first = 0
    if lines[0].lstrip().startswith("%%"):
        name = lines[0].lstrip()[2:].split(maxsplit=1)
        if not name or name[0] not in _PYTHON_CELL_MAGICS:
            cell.skipped = True
            return
        first = 1
    magic = ([0] if first else []) + _magic_lines(lines, first)
    for index in magic:
        counter[0] += 1
        cell.magics[counter[0]] = lines[index]
    numbers = dict(zip(magic, cell.magics))
    error: Optional[Tuple[int, int, str]] = None
    for statement in (False, True):  # a comment, as a blank line; else `pass` (a loop's body)
        masked = list(lines)
        for index, number in numbers.items():
            indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
            masked[index] = (indent + "pass  " if statement else "") + f"{_MAGIC_TAG}{number}"
        text = "\n".join(masked)
        problem = _parse_problem(text)
        if problem is None:
            cell.masked = text
            return
        error = error or problem
        if not numbers:
            break
    cell.error = error


def _parse_problem(text: str) -> Optional[Tuple[int, int, str]]:
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return exc.lineno or 1, exc.offset or 1, exc.msg
    except (ValueError, MemoryError, RecursionError) as exc:
        return 1, 1, str(exc) or type(exc).__name__
    return None


# --- the notebook as one module --------------------------------------------------------------


@dataclass
class Notebook:
    """A notebook's code cells and the module they make."""

    data: Any
    cells: List[Cell]

    def module(self) -> Tuple[str, List[int]]:
        """The linted cells as one module, each after its marker line, and the first line
        (1-based) of each cell in it."""
        return _assemble([c.masked for c in self.cells], [c.linted for c in self.cells])

    def split(self, fixed: str) -> Optional[Tuple[List[str], List[int]]]:
        """The fixed module back as each cell's new source (magics restored) and each cell's
        first line in ``fixed``; None when the fix moved a marker or a masked line (then
        nothing can be written back)."""
        parts = _CELL_LINE.split(fixed)
        numbers = parts[1::2]
        if parts[0] or numbers != [str(c.number) for c in self.cells]:
            return None
        sources, starts, line = [], [], 1
        for cell, text in zip(self.cells, parts[2::2]):
            line += 1
            starts.append(line)
            line += text.count("\n")
            if not cell.linted:
                if text:
                    return None
                sources.append(cell.source)
                continue
            if not cell.masked.endswith("\n") and text.endswith("\n"):
                text = text[:-1]  # the newline the module added
            if text == cell.masked:
                sources.append(cell.source)
                continue
            restored, seen = [], []
            for new_line in text.split("\n"):
                match = _MAGIC_LINE.match(new_line)
                if match:
                    seen.append(int(match.group(1)))
                    new_line = cell.magics.get(seen[-1], new_line)
                restored.append(new_line)
            if sorted(seen) != sorted(cell.magics):
                return None
            sources.append("\n".join(restored))
        return sources, starts


def _assemble(texts: Sequence[str], linted: Sequence[bool]) -> Tuple[str, List[int]]:
    parts, starts, line = [], [], 1
    for number, (text, keep) in enumerate(zip(texts, linted), 1):
        text = text if keep else ""
        if text and not text.endswith("\n"):
            text += "\n"
        parts.append(f"{_CELL_TAG}{number}\n{text}")
        starts.append(line + 1)
        line += 1 + text.count("\n")
    return "".join(parts), starts


def read(text: str) -> Notebook:
    """The notebook in ``text``: its code cells masked and parsed (NotebookError when the
    file is not a notebook)."""
    data = load(text)
    cells: List[Cell] = []
    counter = [0]
    for index, item in enumerate(data["cells"]):
        if not isinstance(item, dict) or item.get("cell_type") != "code":
            continue
        source = item.get("source", "")
        as_list = isinstance(source, list)
        if as_list:
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            continue
        cell = Cell(len(cells) + 1, index, source, as_list)
        _mask(cell, counter)
        cells.append(cell)
    return Notebook(data, cells)


def locate(line: int, starts: List[int]) -> Tuple[int, int]:
    """``(cell number from 1, line in the cell from 1)`` of a line of the joined module."""
    index = max(bisect.bisect_right(starts, line) - 1, 0)
    return index + 1, line - starts[index] + 1


# --- writing the fixed cells back --------------------------------------------------------------

_WS = re.compile(r"[ \t\n\r]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_CONTAINER_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.S)
_SCALAR = re.compile(r"[^\s,\]}]+")


def _ws(text: str, i: int) -> int:
    match = _WS.match(text, i)
    assert match is not None
    return match.end()


def _string_end(text: str, i: int) -> int:
    match = _STRING.match(text, i)
    if match is None:
        raise NotebookError("unexpected JSON")
    return match.end()


def _value_end(text: str, i: int) -> int:
    if text[i] == '"':
        return _string_end(text, i)
    if text[i] in "[{":
        depth = 0
        for token in _CONTAINER_TOKEN.finditer(text, i):
            value = token.group(0)
            if value in "[{":
                depth += 1
            elif value in "]}":
                depth -= 1
                if depth == 0:
                    return token.end()
        raise NotebookError("unexpected JSON")
    match = _SCALAR.match(text, i)
    if match is None:
        raise NotebookError("unexpected JSON")
    return match.end()


def _members(text: str, i: int):
    """``(key, value start, value end)`` of each member of the object at ``text[i]``."""
    if text[i] != "{":
        raise NotebookError("unexpected JSON")
    i = _ws(text, i + 1)
    while text[i] != "}":
        end = _string_end(text, i)
        key = json.loads(text[i:end])
        i = _ws(text, end)
        i = _ws(text, i + 1)  # the colon
        end = _value_end(text, i)
        yield key, i, end
        i = _ws(text, end)
        if text[i] == ",":
            i = _ws(text, i + 1)


def _items(text: str, i: int) -> List[Tuple[int, int]]:
    """``(start, end)`` of each item of the array at ``text[i]``."""
    if text[i] != "[":
        raise NotebookError("unexpected JSON")
    spans = []
    i = _ws(text, i + 1)
    while text[i] != "]":
        end = _value_end(text, i)
        spans.append((i, end))
        i = _ws(text, end)
        if text[i] == ",":
            i = _ws(text, i + 1)
    return spans


def _source_spans(text: str) -> Dict[int, Tuple[int, int]]:
    """Where each cell's ``"source"`` value is in ``text`` (by the cell's index)."""
    spans: Dict[int, Tuple[int, int]] = {}
    for key, start, _ in _members(text, _ws(text, 0)):
        if key != "cells":
            continue
        spans = {}  # json.loads keeps a repeated key's last value
        for index, (item, _) in enumerate(_items(text, start)):
            if text[item] != "{":
                continue
            for name, value, end in _members(text, item):
                if name == "source":
                    spans[index] = (value, end)
    return spans


def _lines(source: str, like: Sequence[str]) -> List[str]:
    """``source`` as a list of lines as the notebook splits its sources (nbformat:
    ``splitlines(keepends=True)``; at newlines only when every line but the last ends so)."""
    if all(item.endswith("\n") for item in like[:-1]):
        parts = source.split("\n")
        lines = [part + "\n" for part in parts[:-1]]
        return lines + ([parts[-1]] if parts[-1] else [])
    return source.splitlines(keepends=True)


def _render(text: str, span: Tuple[int, int], source: str, ascii_only: bool) -> Tuple[str, Any]:
    """The JSON text of a cell's new ``source`` in the style of its old value at ``span``
    (unchanged lines keep their old text, escapes included), and the value it loads to."""
    start, end = span
    if text[start] != "[":
        return json.dumps(source, ensure_ascii=ascii_only), source
    items = _items(text, start)
    old = [json.loads(text[s:e]) for s, e in items]
    lines = _lines(source, old)
    if not lines:
        return "[]", lines
    if not items:
        return json.dumps(lines, ensure_ascii=ascii_only), lines
    known = {value: text[s:e] for value, (s, e) in zip(old, items)}
    prefix = text[start + 1 : items[0][0]]
    suffix = text[items[-1][1] : end - 1]
    if len(items) > 1:
        separator = text[items[0][1] : items[1][0]]
    else:
        separator = "," + prefix if "\n" in prefix else ", "
    rendered = [known.get(line) or json.dumps(line, ensure_ascii=ascii_only) for line in lines]
    return "[" + prefix + separator.join(rendered) + suffix + "]", lines


_NON_ASCII_ESCAPE = re.compile(r"\\u(?!00[0-7])[0-9a-fA-F]{4}")


def rewrite(text: str, notebook: Notebook, sources: Sequence[str]) -> str:
    """``text`` with the ``"source"`` of each cell whose source changed replaced, every other
    byte kept. Raises NotebookError when the result would not load to the notebook with just
    those sources replaced."""
    changed = {c.index: s for c, s in zip(notebook.cells, sources) if s != c.source}
    if not changed:
        return text
    spans = _source_spans(text)
    ascii_only = text.isascii() and bool(_NON_ASCII_ESCAPE.search(text))
    expected = load(text)
    pieces, last = [], 0
    for index in sorted(changed):
        if index not in spans:
            raise NotebookError("a changed cell has no source in the file")
        start, end = spans[index]
        rendered, value = _render(text, (start, end), changed[index], ascii_only)
        pieces += [text[last:start], rendered]
        last = end
        expected["cells"][index]["source"] = value
    new = "".join(pieces) + text[last:]
    problem = json_problem(new)
    if problem is not None:
        raise NotebookError(f"the rewritten notebook is {problem}")
    if json.loads(new) != expected:
        raise NotebookError("the rewritten notebook does not load to the fixed cells")
    return new


def json_problem(text: str) -> Optional[str]:
    """Why ``text`` is not a notebook's JSON, or None (what a notebook's write checks)."""
    try:
        load(text)
    except NotebookError as exc:
        return str(exc)
    return None


def cell_diff(path: str, cell: int, before: str, after: str) -> str:
    """A unified diff of one cell's source, headed ``--- PATH:cell N`` / ``+++ PATH:cell N``."""
    name = f"{path}:cell {cell}"
    out = []
    for line in difflib.unified_diff(
        _lines(before, []), _lines(after, []), fromfile=name, tofile=name
    ):
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
