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
from dataclasses import dataclass, field, replace
from typing import Any, List, Optional, Sequence

from .config import Config


class VerificationUnavailable(Exception):
    """The checker cannot be imported (not installed, or broken)."""


REQUIRED = ("verify_fixes", "check_file", "examples_from_config", "parse_target",
            "parse_input_option", "parse_kwarg_options", "Example", "CheckerSession")
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


def examples_for(config: Config, path: str) -> List[Any]:
    """The configured ``examples`` (``[tool.hybridlint.examples]``) for one file.

    The checker parses the table (``examples_from_config``) and keys it by the path as written
    in the configuration, relative to the project root.
    """
    checker = load_checker()
    table = checker.examples_from_config(dict(config.examples))
    rel = config.relpath(path)
    for key, examples in table.items():
        if os.path.normpath(key).replace(os.sep, "/") == rel:
            return list(examples)
    return []


@dataclass
class VerifiedFile:
    """What ``--verify`` made of one file (plain data for the runner)."""

    source: str
    applied: int = 0
    findings: list = field(default_factory=list)   # linter Findings, lines of `source`
    rejected: int = 0
    notes: List[str] = field(default_factory=list)  # per-fix proofs and per-block verdicts
    error: Optional[str] = None                    # e.g. a block the checker cannot run
    internal: bool = False                          # a checker bug: exit 2
    failing: int = 0                                # blocks that still fail (HL903)


def verify_file(text: str, path: str, codes: Sequence[str], config: Config, *,
                unsafe: bool, backend: str = "engine",
                timeout: Optional[float] = None) -> VerifiedFile:
    """Run ``verify_fixes`` on one file; never raises for a checker problem on that file."""
    checker = load_checker()
    try:
        examples = examples_for(config, path)
        outcome = checker.verify_fixes(text, path, examples, unsafe=unsafe, select=list(codes),
                                       backend=backend, timeout=timeout)
    except VerificationUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - one file's checker failure must not end the run
        if os.environ.get("HYBRIDLINT_DEBUG") == "1":
            raise
        return VerifiedFile(text, error=f"checker error: {type(exc).__name__}: {exc}",
                            internal=True)
    result = VerifiedFile(outcome.source, len(outcome.applied), _annotated(outcome),
                          len(outcome.rejected))
    result.notes = [f"{path}:{p.finding.line}:{p.finding.col}: {p.finding.code} fix "
                    f"{p.detail}" for p in
                    sorted(outcome.proofs, key=lambda p: (p.finding.line, p.finding.col))]
    cannot = []
    for label, report in zip(outcome.labels, outcome.reports):
        if report.ok:
            result.notes.append(f"{path}::{label}: equal after verification "
                                f"({_what_ran(report)})")
        elif report.status in STILL_FAILS:
            result.failing += 1
            result.findings.append(_still_fails(path, label, report, outcome.source))
            result.notes.append(f"{path}::{label}: still fails: "
                                f"{(report.reason or '').replace(' [fixed]', '')}")
        else:
            cannot.append(f"{label}: {report.reason}")
            result.notes.append(f"{path}::{label}: cannot run: {report.reason}")
    if outcome.status == "unverified" and not cannot:
        cannot.append(outcome.reason or "the original cannot be run")
    if cannot:
        result.error = "the checker cannot run " + "; ".join(cannot)
    result.findings.sort(key=lambda f: (f.line, f.col, f.code))
    return result


def _what_ran(report) -> str:
    trip = ", exported" if report.roundtrip else ""
    return f"eager, hybridized{trip}; max abs diff {report.max_abs_diff:.3g}"


def _annotated(outcome) -> list:
    """Remaining findings, with "(fix not applied: <why>)" on the fixes verification refused,
    plus the checker's run-time findings (dynamic lint) static analysis missed."""
    why = {(r.finding.code, r.finding.line): r.reason for r in outcome.rejected}
    findings = [replace(f, message=f"{f.message} (fix not applied: {why[(f.code, f.line)]})")
                if (f.code, f.line) in why else f for f in outcome.remaining]
    static = {(f.code, f.line) for f in findings}
    findings += [f for f in outcome.runtime_findings if (f.code, f.line) not in static]
    return findings


def _still_fails(path: str, label: str, report, source: str):
    """HL903 at the user's line that failed (else the block's definition)."""
    from .linter import Finding
    where = report.source_line
    own = where is not None and where.filename.replace(" [fixed]", "") == path
    line = where.lineno if own else _definition_line(source, label.split("#")[0])
    lines = source.splitlines()
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    col = len(text) - len(text.lstrip()) + 1
    reason = (report.reason or report.status).replace(" [fixed]", "")
    return Finding("HL903", "hybridize-failed",
                   f"{label} still fails with its example after --verify: {reason}",
                   line, col, line, max(col, len(text.rstrip()) + 1), None, path)


def _definition_line(source: str, name: str) -> int:
    match = re.search(rf"^[ \t]*(?:class|def)[ \t]+{re.escape(name.split('.')[-1])}\b", source,
                      re.M)
    return source.count("\n", 0, match.start()) + 1 if match else 1
