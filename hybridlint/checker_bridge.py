"""The one place the product surface reaches into the equivalence checker.

The checker (``hybridlint.checker``) is optional at run time: it is imported lazily, only for
``--verify`` and ``hybridlint verify``, and when it cannot be imported the user gets one clear
"verification is not available" error (exit 2) instead of a traceback. The names used here are
the checker's contract in docs/architecture.md. ``verify_file`` is what the runner calls for
each file under ``--fix/--diff --verify``: it turns the checker's outcome into findings (HL903
for a block that still fails hybridized), per-fix proof lines and per-file errors, so that a
checker problem on one file never ends the run.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from .config import Config, ConfigError
from .ftypes import RUNNER_CODES, Finding, VerifiedFile


class VerificationUnavailable(Exception):
    """The checker cannot be imported (not installed, or broken)."""


REQUIRED = (
    "verify_fixes",
    "check_file",
    "examples_from_config",
    "parse_target",
    "parse_input_option",
    "parse_kwarg_options",
    "Example",
    "CheckerSession",
)
STILL_FAILS = ("hybrid_error", "mismatch", "eager_error")


def load_checker() -> Any:
    """Import ``hybridlint.checker`` and check it offers what the CLI calls."""
    try:
        from . import checker
    except Exception as exc:  # any import-time failure means the same thing to the user
        raise VerificationUnavailable(
            f"verification is not available: hybridlint.checker cannot be imported ({exc})"
        ) from exc
    missing = [name for name in REQUIRED if not hasattr(checker, name)]
    if missing:
        raise VerificationUnavailable(
            "verification is not available: hybridlint.checker lacks " + ", ".join(missing)
        )
    return checker


def examples_table(config: Config) -> Dict[str, List[Any]]:
    """The configured ``examples`` (``[tool.hybridlint.examples]``), parsed once per run: the
    path of each file relative to the project root (``/``-separated, as ``config.relpath``
    gives it) -> its examples. A malformed table is a :class:`ConfigError`."""
    checker = load_checker()
    try:
        table = checker.examples_from_config(dict(config.examples))
    except ValueError as exc:
        raise ConfigError(f"{config.path}: examples: {exc}") from exc
    parsed: Dict[str, List[Any]] = {}
    for key, examples in table.items():  # the first key naming a file wins
        parsed.setdefault(os.path.normpath(key).replace(os.sep, "/"), list(examples))
    return parsed


def examples_for(config: Config, path: str) -> List[Any]:
    """The configured examples of one file (``hybridlint verify FILE::CLASS``)."""
    return list(examples_table(config).get(config.relpath(path), ()))


def verify_file(
    text: str,
    path: str,
    codes: Sequence[str],
    examples: Sequence[Any],
    *,
    unsafe: bool,
    backend: str = "engine",
    timeout: Optional[float] = None,
    fixed: Optional[Tuple[str, bool, Any]] = None,
) -> VerifiedFile:
    """Run ``verify_fixes`` on one file with its ``examples`` (from :func:`examples_table`);
    never raises for a checker problem on that file.

    ``fixed`` is ``(text, unsafe, FixResult)``: ``fix_source(text, path, select=codes,
    unsafe=unsafe)`` as the runner's worker already made it (for the checker's first fix:
    every fix, unwrapped). The checker gets a fixer that answers that call from it, so the
    file is not fixed again; every other call goes to ``fix_source``."""
    checker = load_checker()
    try:
        outcome = checker.verify_fixes(
            text,
            path,
            list(examples),
            unsafe=unsafe,
            select=list(codes),
            backend=backend,
            timeout=timeout,
            fixer=_reusing_fixer(path, codes, fixed),
        )
    except VerificationUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - one file's checker failure must not end the run
        if os.environ.get("HYBRIDLINT_DEBUG") == "1":
            raise
        return VerifiedFile(
            text, error=f"checker error: {type(exc).__name__}: {exc}", internal=True
        )
    result = VerifiedFile(
        outcome.source, len(outcome.applied), _annotated(outcome), len(outcome.rejected)
    )
    result.notes = [
        f"{path}:{p.finding.line}:{p.finding.col}: {p.finding.code} fix {p.detail}"
        for p in sorted(outcome.proofs, key=lambda p: (p.finding.line, p.finding.col))
    ]
    cannot = []
    for label, report in zip(outcome.labels, outcome.reports):
        if report.ok:
            result.notes.append(f"{path}::{label}: equal after verification ({_what_ran(report)})")
        elif report.status in STILL_FAILS:
            result.failing += 1
            result.findings.append(_still_fails(path, label, report, outcome.source))
            result.notes.append(
                f"{path}::{label}: still fails: {(report.reason or '').replace(' [fixed]', '')}"
            )
        else:
            cannot.append(f"{label}: {report.reason}")
            result.notes.append(f"{path}::{label}: cannot run: {report.reason}")
    if outcome.status == "unverified" and not cannot:
        cannot.append(outcome.reason or "the original cannot be run")
    if cannot:
        result.error = "the checker cannot run " + "; ".join(cannot)
    result.findings.sort(key=lambda f: (f.line, f.col, f.code))
    return result


def _reusing_fixer(
    path: str, codes: Sequence[str], fixed: Optional[Tuple[str, bool, Any]]
) -> Callable[..., Any]:
    """``fix_source`` for the checker, memoised for calls without ``accept``/``rules`` (the
    checker asks for "every fix" of the original more than once), seeded with the worker's
    fix. Each answer is a fresh FixResult (the caller may keep or change its lists)."""
    from .linter import FixResult, fix_source

    known: Dict[tuple, Any] = {}
    if fixed is not None:
        text, unsafe, result = fixed
        known[_fix_key(text, path, codes, (), unsafe, None)] = result

    def fixer(
        source: str,
        file: str = "<string>",
        *,
        select=None,
        ignore=(),
        unsafe: bool = False,
        accept=None,
        rules=None,
        line_length=None,
    ):
        if accept is not None or rules is not None:
            return fix_source(
                source,
                file,
                select=select,
                ignore=ignore,
                unsafe=unsafe,
                accept=accept,
                rules=rules,
                line_length=line_length,
            )
        key = _fix_key(source, file, select, ignore, unsafe, line_length)
        if key not in known:
            known[key] = fix_source(
                source, file, select=select, ignore=ignore, unsafe=unsafe, line_length=line_length
            )
        done = known[key]
        return FixResult(done.source, list(done.applied), list(done.remaining), list(done.initial))

    return fixer


def _fix_key(source: str, path: str, select, ignore, unsafe: bool, line_length) -> tuple:
    return (
        source,
        path,
        None if select is None else tuple(select),
        tuple(ignore or ()),
        bool(unsafe),
        line_length,
    )


def _what_ran(report) -> str:
    trip = ", exported" if report.roundtrip else ""
    return f"eager, hybridized{trip}; max abs diff {report.max_abs_diff:.3g}"


def _annotated(outcome) -> list:
    """Remaining findings, with "(fix not applied: <why>)" on the fixes verification refused,
    plus the checker's run-time findings (dynamic lint) static analysis missed."""
    why = {(r.finding.code, r.finding.line): r.reason for r in outcome.rejected}
    findings = [
        replace(f, message=f"{f.message} (fix not applied: {why[(f.code, f.line)]})")
        if (f.code, f.line) in why
        else f
        for f in outcome.remaining
    ]
    static = {(f.code, f.line) for f in findings}
    findings += [f for f in outcome.runtime_findings if (f.code, f.line) not in static]
    return findings


def _still_fails(path: str, label: str, report, source: str):
    """HL903 at the user's line that failed (else the block's definition)."""
    where = report.source_line
    own = where is not None and where.filename.replace(" [fixed]", "") == path
    line = where.lineno if own else _definition_line(source, label.split("#")[0])
    lines = source.splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    col = len(text) - len(text.lstrip()) + 1
    reason = (report.reason or report.status).replace(" [fixed]", "")
    return Finding(
        "HL903",
        RUNNER_CODES["HL903"][0],
        f"{label} still fails with its example after --verify: {reason}",
        line,
        col,
        line,
        max(col, len(text.rstrip()) + 1),
        None,
        path,
    )


def _definition_line(source: str, name: str) -> int:
    match = re.search(
        rf"^[ \t]*(?:class|def)[ \t]+{re.escape(name.split('.')[-1])}\b", source, re.M
    )
    return source.count("\n", 0, match.start()) + 1 if match else 1
