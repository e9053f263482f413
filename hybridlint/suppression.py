"""Suppression comments: what they suppress, and the ones that suppress nothing (HL100).

Forms (case-insensitive):

* ``# hybridlint: ignore[HL003, HL004]`` / ``# hybridlint: ignore`` (every code): on the line of
  a finding, or on the first line of the statement holding it;
* ``# noqa: HL003`` / bare ``# noqa``: the same, for codes shared with flake8 and ruff comments;
* ``# hybridlint: ignore-file[HL003]`` / ``# hybridlint: ignore-file``: anywhere in the file,
  on a line of its own, for the whole file (as ruff's ``# ruff: noqa``); after code on a
  line it acts on that line only.

Codes are prefixes (``HL00`` covers HL001-HL009), as in ``--select``. A suppression that names
no rule (``ignore[HL0003]``) or that suppresses no finding is itself reported as HL100
(``unused-suppression``, like ruff's RUF100), with a safe fix that removes it, so a typo can
never silently leave a hazard unsuppressed while looking handled. ``# noqa`` comments belong to
other tools as well: a bare one is never reported, and only its HL codes are checked.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Set, Tuple

CODE = "HL100"
NAME = "unused-suppression"
MESSAGE = "a suppression comment that suppresses nothing, or names no rule"
EXPLANATION = """
## What it does
Reports `# hybridlint: ignore[...]`, `# hybridlint: ignore-file[...]` and the HL codes of
`# noqa: ...` comments that suppress no finding, or that name a code no rule has
(`ignore[HL0003]`, a typo for HL003).

## Why it matters
A mistyped suppression suppresses nothing, while it reads as if the hazard were handled; a
suppression left behind after the code was fixed hides the next real finding on that line.

## Example
```python
y = x[0]  # hybridlint: ignore[HL0003]
```

## Fix
The unused or unknown codes are removed from the comment; a comment left with no code is
removed. Codes of rules that are not selected are not checked (they may be used by another
configuration), and a bare `# noqa` is left to the tools that also read it.

## Fix safety
Safe: only a comment changes.
"""

_DIRECTIVE = re.compile(
    r"#\s*(?:hybridlint:\s*(?P<kind>ignore-file|ignore)|(?P<noqa>noqa))\b"
    r"(?:\s*(?:\[(?P<bracket>[^\]]*)\]|:\s*(?P<colon>[A-Za-z0-9_]+(?:[ \t]*,[ \t]*[A-Za-z0-9_]+)*)))?",
    re.IGNORECASE,
)
_CODE_LIKE = re.compile(r"^[A-Za-z]+[0-9]*$")


@dataclass(eq=False)
class Directive:
    """One suppression comment: where it is, what it names and which of those it used."""

    line: int  # 1-based
    start: int  # 0-based column of its ``#``
    end: int  # 0-based column just after it
    kind: str  # "line", "file" or "noqa"
    codes: Optional[List[str]]  # upper-cased; None for a bare directive (every code)
    used: Set[str] = field(default_factory=set)  # codes (or "" for bare) that suppressed

    def matches(self, code: str) -> Optional[str]:
        if self.codes is None:
            return ""
        return next((c for c in self.codes if code.startswith(c)), None)


class Suppressions:
    """The suppression comments of one source, and which findings they suppressed."""

    def __init__(self, lines: List[str]):
        self.by_line: Dict[int, List[Directive]] = {}
        self.file_level: List[Directive] = []
        comments = None  # line -> column of its comment; False when tokenizing failed
        for number, text in enumerate(lines, 1):
            if "#" not in text:
                continue
            for match in _DIRECTIVE.finditer(text):
                if comments is None:
                    comments = _comment_columns(lines)
                if comments is not False and match.start() < comments.get(number, len(text)):
                    continue  # inside a string, not a comment
                directive = _directive(number, match, text)
                if directive.kind == "file" and not text[: match.start()].strip():
                    self.file_level.append(directive)  # a comment line of its own
                else:  # after code, ignore-file acts on its line only
                    self.by_line.setdefault(number, []).append(directive)

    def suppresses(self, code: str, lines: Iterable[int]) -> bool:
        """Whether a finding of ``code`` reported on any of ``lines`` is suppressed (and
        remember which directive did it)."""
        candidates = list(self.file_level)
        for number in lines:
            candidates.extend(self.by_line.get(number, ()))
        hit = False
        for directive in candidates:
            token = directive.matches(code)
            if token is not None:
                directive.used.add(token)
                hit = True
        return hit

    def unused(
        self, enabled: Callable[[str], bool], known: Callable[[str], bool]
    ) -> List[Tuple[Directive, List[str], str]]:
        """``(directive, codes to remove, message)`` for every directive that names an
        unknown code or suppresses nothing among the enabled codes."""
        found: List[Tuple[Directive, List[str], str]] = []
        directives = self.file_level + [d for ds in self.by_line.values() for d in ds]
        for directive in sorted(directives, key=lambda d: (d.line, d.start)):
            if directive.codes is None:
                if directive.kind != "noqa" and not directive.used:
                    found.append((directive, [], "suppression comment suppresses nothing"))
                continue
            unknown = [c for c in directive.codes if c.startswith("HL") and not known(c)]
            unused = [
                c
                for c in directive.codes
                if c.startswith("HL") and known(c) and c not in directive.used and enabled(c)
            ]
            if directive.kind != "noqa":
                unknown += [c for c in directive.codes if not c.startswith("HL")]
            if unknown or unused:
                parts = []
                if unknown:
                    parts.append(
                        "names no rule: " + ", ".join(unknown) + " (run `hybridlint rules`)"
                    )
                if unused:
                    parts.append("suppresses nothing here: " + ", ".join(unused))
                found.append((directive, unknown + unused, "suppression " + "; ".join(parts)))
        return found


def _comment_columns(lines: List[str]):
    """Where each line's comment starts, from Python's tokenizer (False if it fails: then
    every match counts, as before this check existed)."""
    columns: Dict[int, int] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO("".join(lines)).readline):
            if token.type == tokenize.COMMENT:
                columns[token.start[0]] = token.start[1]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return False
    return columns


def _directive(number: int, match: "re.Match[str]", text: str) -> Directive:
    raw = match.group("bracket") if match.group("bracket") is not None else match.group("colon")
    codes = None
    if raw is not None:
        codes = [c.strip().upper() for c in re.split(r"[,\s]+", raw) if c.strip()]
        if match.group("colon") is not None:
            codes = [c for c in codes if _CODE_LIKE.match(c)]
        if not codes and match.group("bracket") is None:
            codes = None
    if match.group("noqa"):
        kind = "noqa"
    else:
        kind = "file" if match.group("kind").lower() == "ignore-file" else "line"
    return Directive(number, match.start(), match.end(), kind, codes)


def remove_codes(text: str, items: List[Tuple[Directive, List[str]]]) -> Optional[str]:
    """``text`` with the given codes (all of a bare directive's) removed from its suppression
    comments; None when that would change anything but comments (a "comment" inside a
    string), so that a fix can never change what the code does."""
    lines = text.splitlines(keepends=True)
    for directive, codes in sorted(items, key=lambda i: (i[0].line, -i[0].start)):
        line = lines[directive.line - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body) :]
        head, tail = body[: directive.start], body[directive.end :]
        keep = [c for c in (directive.codes or []) if c not in codes]
        if keep:
            name = {"noqa": "noqa", "file": "hybridlint: ignore-file"}.get(
                directive.kind, "hybridlint: ignore"
            )
            new = (
                f"# {name}: {', '.join(keep)}"
                if directive.kind == "noqa"
                else f"# {name}[{', '.join(keep)}]"
            )
            body = head + new + tail
        elif tail.strip().lstrip("#").strip():
            body = head + "# " + tail.strip().lstrip("#").strip()
        else:
            body = head.rstrip()
        lines[directive.line - 1] = body + ending
    new_text = "".join(lines)
    try:
        if ast.dump(ast.parse(new_text)) != ast.dump(ast.parse(text)):
            return None
    except (SyntaxError, ValueError):
        return None
    return new_text
