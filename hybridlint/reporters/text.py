"""Text output for people: ``path:line:col: CODE [*] message``, the source line with a caret,
and a one-line summary.

The same lines are produced with and without a terminal; on a terminal rich adds colour, when
piped the output is plain text (rich is not even imported), so it is stable for scripts and
tests. Lines are never wrapped, which keeps ``path:line:col`` clickable.
"""

from __future__ import annotations

from collections import Counter
from typing import List, Optional, TextIO, Tuple

from . import ReportContext
from ..ftypes import Finding, RunResult

Segment = Tuple[str, Optional[str]]  # text and rich style


def _caret_line(issue: Finding) -> str:
    """Spaces (tabs kept, so the caret lines up) then ``^`` under the reported range."""
    line = issue.source_line.rstrip("\r\n")
    start = max(issue.col - 1, 0)
    prefix = "".join(ch if ch == "\t" else " " for ch in line[:start])
    if issue.end_line == issue.line and issue.end_col > issue.col:
        width = issue.end_col - issue.col
    else:
        width = max(len(line) - start, 1)
    return prefix + "^" * max(width, 1)


def _visible(line: str) -> str:
    """The line with each control character (an escape sequence in a string literal, a form
    feed) shown as U+FFFD, one for one, so the terminal gets no control codes and the caret
    below still lines up."""
    if line.isprintable():
        return line
    return "".join(ch if ch == "\t" or ch.isprintable() else "\ufffd" for ch in line)


def _issue_lines(issue: Finding, ctx: ReportContext) -> List[List[Segment]]:
    mark = [("[*] ", "bold cyan")] if ctx.fixable(issue) else []
    head = [
        (f"{issue.path}:{issue.line}:{issue.col}:", "bold"),
        (" ", None),
        (issue.code, "bold red"),
        (" ", None),
        *mark,
        (issue.message, None),
    ]
    if ctx.quiet or not issue.source_line.strip():
        return [head]
    gutter = " " * len(str(issue.line))
    return [
        head,
        [(f"{issue.line} | ", "blue"), (_visible(issue.source_line.rstrip("\r\n")), None)],
        [(f"{gutter} | ", "blue"), (_caret_line(issue), "bold red")],
        [],
    ]


def _statistics_lines(result: RunResult, ctx: ReportContext) -> List[List[Segment]]:
    """``count  CODE  [*] N fixable  name`` per rule, most findings first: N counts the rule's
    findings the summary counts as fixable (so the rules' N add up to its "N fixable")."""
    counts = Counter(i.code for i in result.issues)
    names = {i.code: i.name for i in result.issues}
    fixable = Counter(i.code for i in result.issues if ctx.fixable(i))
    width = len(str(max(counts.values()))) if counts else 1
    fix_width = len(str(max(fixable.values()))) if fixable else 0
    blank = " " * len(f"[*] {'0' * fix_width} fixable") if fixable else ""

    def mark(code: str) -> str:
        return f"[*] {fixable[code]:>{fix_width}} fixable" if fixable[code] else blank

    return [
        [
            (f"{count:>{width}}", None),
            ("  ", None),
            (code, "bold red"),
            ("  ", None),
            *([(mark(code), "bold cyan"), ("  ", None)] if fixable else []),
            (names[code], None),
        ]
        for code, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def _fixes_lines(result: RunResult) -> List[List[Segment]]:
    """``--show-fixes``: what was fixed, per file and code (as ruff prints it)."""
    lines: List[List[Segment]] = [[(f"Fixed {plural(result.fixed, 'finding')}:", "bold")]]
    for outcome in result.outcomes:
        if not outcome.fixed:
            continue
        lines.append([("- ", None), (f"{outcome.path}:", "bold")])
        counts = Counter(outcome.fixed_codes)
        for (code, name), count in sorted(counts.items()):
            lines.append([(f"    {count} × ", None), (code, "bold red"), (f" ({name})", None)])
        if not counts:  # (an outcome that counts fixes without naming them)
            lines.append([(f"    {plural(outcome.fixed, 'fix', 'fixes')}", None)])
    lines.append([])
    return lines


def summary(result: RunResult, ctx: ReportContext) -> str:
    """The one-line summary ("All checks passed." or what was found and what can be fixed)."""
    issues = result.issues
    parts = []
    if ctx.fix_mode and result.fixed:
        parts.append(fixes_sentence(result.fixed, result.revealed))
    errors = sum(1 for o in result.outcomes if o.error)
    if not issues and errors:  # not "All checks passed": some file was not (fully) handled
        parts.append("No findings left." if parts else "No findings.")
    elif not issues:
        files = plural(result.files_checked, "file")
        parts.append(f"All checks passed ({files} checked)." if not parts else "No findings left.")
    else:
        with_findings = len({i.path for i in issues})
        parts.append(f"Found {plural(len(issues), 'finding')} in {plural(with_findings, 'file')}.")
        # what the same command would fix: under --verify, not the fixes it left out
        safe = sum(1 for i in issues if i.fixable(False))
        unsafe = sum(1 for i in issues if i.fixable(True) and not i.fixable(False))
        command = "hybridlint --fix --verify" if ctx.verify else "hybridlint --fix"
        # (the unsafe count said as fixes, never as "N more" alone: blind round 13 read "1
        # finding ... 1 more with --unsafe-fixes" as a second finding)
        if ctx.unsafe_fixes and safe + unsafe:
            parts.append(f"[*] {safe + unsafe} fixable with `{command} --unsafe-fixes`.")
        elif safe and unsafe:
            parts.append(
                f"[*] {safe} fixable with `{command}` ({unsafe} more with `--unsafe-fixes`)."
            )
        elif safe:
            parts.append(f"[*] {safe} fixable with `{command}`.")
        elif unsafe:
            parts.append(f"{unsafe} fixable with `{command} --unsafe-fixes`.")
    rejected = sum(o.rejected for o in result.outcomes)
    if rejected:
        parts.append(not_proven(rejected, "not applied"))
    if ctx.baselined:
        parts.append(f"{plural(ctx.baselined, 'finding')} tolerated by the baseline.")
    if errors:
        parts.append(f"{plural(errors, 'file')} with errors (see above).")
    return " ".join(parts)


def fixes_sentence(fixed: int, revealed: int, files: Optional[int] = None) -> str:
    """What ``--fix`` fixed ("Fixed N findings."), or with ``files`` what ``--diff`` would fix
    ("Would fix N findings in F files."): N is the count ``check`` printed as fixable, and the
    ``revealed`` fixes among ``fixed`` (of findings that only appeared once earlier fixes were
    made, which check could not count) are named apart, so that all three agree."""
    counted = plural(fixed - revealed, "finding")
    if files is None:
        head, more = f"Fixed {counted}", "revealed"
    else:
        head, more = f"Would fix {counted} in {plural(files, 'file')}", "reveal"
    if revealed:
        return f"{head}, and {revealed} more that those fixes {more}."
    return f"{head}."


def not_proven(count: int, what: str) -> str:
    """``--verify``'s count of fixes it did not apply (``what``: "not applied", "left out")."""
    them = "it" if count == 1 else "them"
    return (
        f"{plural(count, 'fix', 'fixes')} {what}: the equivalence checker could not prove {them}."
    )


def plural(count: int, word: str, many: str = "") -> str:
    """``1 file``, ``2 files`` (``many``: the plural when it is not ``word`` + s)."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def report(result: RunResult, out: TextIO, ctx: ReportContext) -> None:
    if ctx.statistics:
        lines = _statistics_lines(result, ctx)
    else:
        lines = [line for issue in result.issues for line in _issue_lines(issue, ctx)]
    lines += [[(f"{o.path}: error: {o.error}", "bold red")] for o in result.outcomes if o.error]
    if ctx.show_fixes and ctx.fix_mode and result.fixed:
        lines += _fixes_lines(result)
    if not ctx.quiet:
        lines.append([(summary(result, ctx), "bold")])
    if ctx.color:
        _write_rich(lines, out)
    else:
        out.write("".join("".join(text for text, _ in line) + "\n" for line in lines))


def _write_rich(lines: List[List[Segment]], out: TextIO) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(file=out, highlight=False, soft_wrap=True, force_terminal=True)
    for line in lines:
        console.print(Text.assemble(*[(text, style or "") for text, style in line]))
