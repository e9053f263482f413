"""Jupyter notebooks (``.ipynb``): their code cells are linted, not fixed.

The code cells are joined into one module (a later cell uses an earlier cell's imports and
classes, as the kernel does), IPython magics and shell escapes (``%time``, ``!pip``, ``%%bash``
cells) blanked to keep line numbers, and linted as one source. Each finding is reported at its
line in its cell with the message prefixed ``cell N:`` (N counts code cells from 1, as Jupyter
shows execution order, not markdown). A cell Python cannot parse is HL900 at its line; a file
that is not a notebook (not JSON, no cells) is HL900 too. ``--fix`` does not rewrite notebooks
(their JSON also holds outputs and metadata); the findings are reported without ``[*]``.
"""

from __future__ import annotations

import ast
import bisect
import json
import re
from typing import List, Optional, Tuple

_MAGIC = ("%", "!")


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


def code_cells(text: str) -> List[str]:
    """The source of each code cell, magics blanked (a cell magic blanks its whole cell)."""
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
    sources = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        if isinstance(source, list):
            source = "".join(s for s in source if isinstance(s, str))
        if not isinstance(source, str):
            continue
        lines = source.split("\n")
        if lines and lines[0].lstrip().startswith("%%"):
            lines = [""] * len(lines)
        sources.append(
            "\n".join("" if line.lstrip().startswith(_MAGIC) else line for line in lines)
        )
    return sources


def joined(cells: List[str]) -> Tuple[str, List[int]]:
    """The cells as one module, and the first line (1-based) of each cell in it."""
    starts, parts, line = [], [], 1
    for source in cells:
        starts.append(line)
        text = source if source.endswith("\n") else source + "\n"
        parts.append(text)
        line += text.count("\n")
    return "".join(parts), starts


def locate(line: int, starts: List[int]) -> Tuple[int, int]:
    """``(cell number from 1, line in the cell from 1)`` of a line of the joined module."""
    index = max(bisect.bisect_right(starts, line) - 1, 0)
    return index + 1, line - starts[index] + 1


def syntax_error(cells: List[str]) -> Optional[Tuple[int, int, int, str]]:
    """``(cell, line, col, message)`` of the first cell Python cannot parse, or None."""
    for number, source in enumerate(cells, 1):
        try:
            ast.parse(source)
        except SyntaxError as exc:
            return number, exc.lineno or 1, exc.offset or 1, exc.msg
        except (ValueError, MemoryError, RecursionError) as exc:
            return number, 1, 1, str(exc) or type(exc).__name__
    return None
