"""One finding's fix, alone, as text edits: what the language server's code actions apply and
what ``--format json``/``sarif`` carry with each finding (README.md, "Output formats").

A fix is computed by the fixer the CLI uses: ``fix_source(accept=...)`` accepting that finding
alone, so that applying its edits gives exactly what ``hybridlint --fix`` (``--unsafe-fixes``
for an unsafe fix) restricted to it writes. A finding is identified in every pass of the fixer
by :func:`fix_key` (as ``--verify``'s FixIdentity does). The change is then described as the
few spans of the text that differ (:func:`text_edits`), each as 1-based row and column
positions (code points, the findings' own columns), as ruff's JSON output writes its fixes.

Pure Python; the linter is imported only when a fix is computed.
"""

from __future__ import annotations

import bisect
import difflib
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .ftypes import Finding, FixSafety

LINE_BREAK = re.compile(r"\r\n|\r|\n")  # LSP's line ends (not str.splitlines': no \f, \x1c...)

FixKey = Tuple[str, int, int, str]
Edit = Tuple[int, int, str]  # start offset, end offset (exclusive), replacement


def line_starts(text: str) -> List[int]:
    """The offset where each line begins (line ends: \\n, \\r\\n, \\r)."""
    return [0] + [m.end() for m in LINE_BREAK.finditer(text)]


def minimal_edit(old: str, new: str) -> Edit:
    """``(start, end, replacement)``: the one span of ``old`` that differs from ``new`` (the
    text between their common prefix and suffix), never splitting a CRLF."""
    limit = min(len(old), len(new))
    start = 0
    while start < limit and old[start] == new[start]:
        start += 1
    end_old, end_new = len(old), len(new)
    while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
        end_old, end_new = end_old - 1, end_new - 1
    if start and old[start - 1] == "\r" and old[start : start + 1] == "\n":
        start -= 1
    if end_old < len(old) and old[end_old] == "\n" and end_old and old[end_old - 1] == "\r":
        if end_old > start:
            end_old, end_new = end_old + 1, end_new + 1
    return start, end_old, new[start:end_new]


def text_edits(old: str, new: str) -> List[Edit]:
    """The edits that make ``new`` of ``old``, in order and not overlapping: one per run of
    changed lines (a fix that also removes an import it made unused is two edits, not one
    spanning the file), each trimmed to the characters that differ."""
    if old == new:
        return []
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    old_at = [0]
    for line in old_lines:
        old_at.append(old_at[-1] + len(line))
    new_at = [0]
    for line in new_lines:
        new_at.append(new_at[-1] + len(line))
    edits: List[Edit] = []
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        begin, end = old_at[i1], old_at[i2]
        start, stop, replacement = minimal_edit(old[begin:end], new[new_at[j1] : new_at[j2]])
        edits.append((begin + start, begin + stop, replacement))
    return edits


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """``text`` with ``edits`` (in order, not overlapping) applied."""
    pieces, cursor = [], 0
    for start, end, replacement in edits:
        pieces += [text[cursor:start], replacement]
        cursor = end
    return "".join(pieces) + text[cursor:]


def position(starts: List[int], offset: int) -> Tuple[int, int]:
    """1-based (row, column) of an offset; ``starts``: :func:`line_starts` of the text."""
    index = bisect.bisect_right(starts, offset) - 1
    return index + 1, offset - starts[index] + 1


def fix_key(findings: Sequence[Finding], finding: Finding) -> FixKey:
    """A fix's identity in every pass of the fixer (checker.verify.FixIdentity): its rule,
    its line in the text ``findings`` were found in and, only when the rule has several
    findings on that line, its column (a fix nested in another's node is found by a later pass
    at another column), and only when several share that column too (``a * b + c``: one
    finding per operator), its message."""
    same_line = [f for f in findings if (f.code, f.line) == (finding.code, finding.line)]
    if len(same_line) < 2:
        return finding.code, finding.line, 0, ""
    same_col = sum(1 for f in same_line if f.col == finding.col)
    return finding.code, finding.line, finding.col, finding.message if same_col > 1 else ""


def fix_title(finding: Finding) -> str:
    """What applying the fix does, in words (a code action's title, the JSON fix's message)."""
    unsafe = " (unsafe)" if finding.fix is FixSafety.UNSAFE else ""
    return f"Fix {finding.code} ({finding.name}){unsafe}"


def single_fix(
    text: str,
    path: str,
    finding: Finding,
    findings: Sequence[Finding],
    *,
    select: Sequence[str],
    line_length: Optional[int] = None,
    project: Any = None,
) -> str:
    """The text after ``finding``'s fix alone (safe or unsafe), as ``hybridlint --fix``
    (``--unsafe-fixes`` for an unsafe one) restricted to it writes it. ``findings``: every
    finding of ``text`` (with these ``select``\\ ed rules), ``text`` in the linter's line ends
    (no lone CR: ``files.lone_cr_to_lf``)."""
    from .linter import fix_source

    key = fix_key(findings, finding)
    return fix_source(
        text,
        path,
        select=list(select),
        unsafe=finding.fix is FixSafety.UNSAFE,
        accept=lambda f: fix_key(findings, f) == key,
        line_length=line_length,
        project=project,
    ).source


def finding_key(finding: Finding) -> Tuple[Any, ...]:
    """What identifies a finding of one file between the worker and the reporters (its path
    and source line aside, which the runner fills in later)."""
    return (finding.code, finding.line, finding.col, finding.end_line, finding.end_col,
            finding.message)  # fmt: skip


def fix_details(finding: Finding, old: str, new: str) -> Dict[str, Any]:
    """The fix of ``finding`` that makes ``new`` of ``old``, as ruff's JSON writes a fix:
    ``{"applicability", "message", "edits": [{"location", "end_location", "content"}]}``,
    locations as 1-based ``{"row", "column"}`` (``end_location`` exclusive)."""
    starts = line_starts(old)

    def location(offset: int) -> Dict[str, int]:
        row, column = position(starts, offset)
        return {"row": row, "column": column}

    return {
        "applicability": str(finding.fix),
        "message": fix_title(finding),
        "edits": [
            {"location": location(start), "end_location": location(end), "content": content}
            for start, end, content in text_edits(old, new)
        ],
    }


def all_fix_details(
    text: str,
    path: str,
    findings: Sequence[Finding],
    *,
    select: Sequence[str],
    line_length: Optional[int] = None,
    project: Any = None,
    lone_cr: bool = False,
) -> Dict[Tuple[Any, ...], Dict[str, Any]]:
    """:func:`fix_details` of every finding of ``text`` that has a fix, by
    :func:`finding_key` (one ``fix_source`` run per fix: the runner asks only for the formats
    that print them). A fix that changes nothing, or that the fixer fails to make, has none.
    ``lone_cr``: ``text`` is a lone-CR file converted to LF (``files.lone_cr_to_lf``, same
    offsets): the edits' content is converted back."""
    from .files import lf_to_cr

    from .linter import SameFindingsMemo

    memo = SameFindingsMemo()  # kept across the fixes of this text, dropped after
    texts: Dict[FixKey, str] = {}
    details: Dict[Tuple[Any, ...], Dict[str, Any]] = {}
    for finding in findings:
        if finding.fix is None:
            continue
        key = fix_key(findings, finding)
        if key not in texts:
            try:
                with memo:  # every fix's first pass locates the same findings of `text`
                    texts[key] = single_fix(
                        text, path, finding, findings, select=select, line_length=line_length,
                        project=project,
                    )  # fmt: skip
            except Exception:  # noqa: BLE001 -- a fix the fixer cannot make has no edits
                texts[key] = text
        if texts[key] == text:
            continue
        found = fix_details(finding, text, texts[key])
        if lone_cr:
            for edit in found["edits"]:
                edit["content"] = lf_to_cr(edit["content"])
        details[finding_key(finding)] = found
    return details
