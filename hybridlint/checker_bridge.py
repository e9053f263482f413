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

import ast
import difflib
import os
import re
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from .config import Config, ConfigError
from .fixedits import single_fix
from .ftypes import RUNNER_CODES, Finding, VerifiedFile

if TYPE_CHECKING:  # the checker is imported when a run verifies, not at start-up
    from .checker.report import EquivalenceReport


class VerificationUnavailable(Exception):
    """The checker cannot be imported (not installed, or broken), or the backend asked for
    cannot be: one error for the run, never one per block."""


def require_backend(backend: str) -> None:
    """``--backend mxnet`` without MXNet: one clear error before any block starts (the
    checker's workers run this interpreter, so MXNet is found there or nowhere). Only looked
    up, not imported: importing MXNet costs seconds, and the workers do it anyway."""
    if backend != "mxnet":
        return
    import importlib.util

    try:
        found, why = importlib.util.find_spec("mxnet") is not None, "No module named 'mxnet'"
    except (ImportError, ValueError) as exc:  # a broken package (mxnet.__spec__ unset...)
        found, why = False, str(exc)
    if not found:
        raise VerificationUnavailable(
            f"--backend mxnet: cannot import mxnet ({why}); install MXNet 1.9.1 "
            "(pip install 'mxnet==1.9.1') or use the bundled engine (--backend engine, "
            "the default)"
        )


@dataclass(frozen=True)
class UnprovenFinding(Finding):
    """A finding whose fix ``--verify`` did not apply: the checker rejected it or could not
    prove it. It keeps its rule's fix safety (JSON ``fix``), but is not fixable in this run:
    the same ``--fix --verify`` would leave it out again, so it gets no ``[*]`` and does not
    count as fixable (the summary counts it as "not applied")."""

    def fixable(self, unsafe: bool = False) -> bool:
        return False


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
# A hybridized failure that no input avoids: NDArray-only code met a Symbol. On an inferred
# example it is HL903 as on a configured one; other failures there (a shape MXNet refuses, an
# output gluon cannot hold) may come from the made-up input, and are notes.
_NDARRAY_ONLY = re.compile(
    r"'Symbol' object has no attribute|NotImplementedForSymbol|not implemented for Symbol|"
    r"must have NDArray type"
)


def _ndarray_only(report: Any) -> bool:
    return report.status == "hybrid_error" and bool(
        _NDARRAY_ONLY.search(report.error_message or report.reason or "")
    )


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
    line_length: Optional[int] = None,
    project: Any = None,
    infer: bool = True,
    example_key: Optional[str] = None,
) -> VerifiedFile:
    """Run ``verify_fixes`` on one file with its ``examples`` (from :func:`examples_table`);
    never raises for a checker problem on that file.

    ``fixed`` is ``(text, unsafe, FixResult)``: ``fix_source(text, path, select=codes,
    unsafe=unsafe)`` as the runner's worker already made it (for the checker's first fix:
    every fix, unwrapped). The checker gets a fixer that answers that call from it, so the
    file is not fixed again; every other call goes to ``fix_source`` (with ``project``, the
    runner's ``hybridlint.project.FileProject`` of the file, when given).

    With ``line_length`` the proven result is wrapped as ``--fix`` wraps its own (lines the
    fixes made too long are broken, hybridlint/wrap.py) and the findings move with their
    lines. The proof holds for the wrapped text: a break changes no AST node (each broken
    line is checked to compile to the same AST as the long one, and the whole file is
    checked again here; when it differs the proven text is kept unwrapped). ``example_key``:
    the file as `[tool.hybridlint.examples]` keys name it (the notes' suggested entries)."""
    checker = load_checker()
    from .linter import SameFindingsMemo

    try:
        # the fixer is called with many subsets of the fixes of the same text: their first
        # passes share one location of its findings (a fifth of --verify's time on a small file)
        with SameFindingsMemo():
            outcome = checker.verify_fixes(
                text,
                path,
                list(examples),
                unsafe=unsafe,
                select=list(codes),
                backend=backend,
                timeout=timeout,
                fixer=_reusing_fixer(path, codes, fixed, project),
                infer=infer,
            )
    except VerificationUnavailable:
        raise
    except Exception as exc:  # noqa: BLE001 - one file's checker failure must not end the run
        if os.environ.get("HYBRIDLINT_DEBUG") == "1":
            raise
        return VerifiedFile(
            text, error=f"checker error: {type(exc).__name__}: {exc}", internal=True
        )
    twin = partial(_same_fix, outcome.source, path, list(codes), project, {})
    result = VerifiedFile(
        outcome.source,
        len(outcome.applied),
        _annotated(outcome, text, twin),
        len(outcome.rejected),
    )
    result.codes = [(f.code, f.name) for f in outcome.applied]
    result.notes = [
        f"{path}:{p.finding.line}:{p.finding.col}: {p.finding.code} fix {p.detail}"
        for p in sorted(outcome.proofs, key=lambda p: (p.finding.line, p.finding.col))
    ]
    cannot = []
    failing: List[Tuple[str, EquivalenceReport]] = []
    result.notes += [
        f"{path}: the inferred example {why}" for why in getattr(outcome, "dropped", ())
    ]
    made = iter(getattr(outcome, "inferred", ()))  # a checker may predate inference
    for label, report in zip(outcome.labels, outcome.reports):
        how = ""  # how an inferred example was made: one note with its result when equal
        if _inferred_label(label):
            how = f"no example is configured; inferred {next(made, '')}"
        if report.ok:
            equal = f"equal after verification ({_what_ran(report)})"
            result.notes.append(
                f"{path}::{label}: {how}: {equal}" if how else f"{path}::{label}: {equal}"
            )
            continue
        if how:
            result.notes.append(f"{path}::{label}: {how}, which the original runs eagerly")
        if report.status in STILL_FAILS and _inferred_label(label) and not _ndarray_only(report):
            # An input the checker made up may not be one the block's callers pass (a
            # container called with one of its two inputs): a note, not an HL903 finding.
            result.notes.append(
                f"{path}::{label}: still fails on the inferred example: "
                f"{(report.reason or '').replace(' [fixed]', '')} (configure an example in "
                "[tool.hybridlint.examples] to check the block as its callers call it)"
            )
        elif report.status in STILL_FAILS:
            result.failing += 1
            failing.append((label, report))
            result.notes.append(
                f"{path}::{label}: still fails: {(report.reason or '').replace(' [fixed]', '')}"
            )
        else:
            cannot.append(f"{label}: {report.reason}")
            result.notes.append(f"{path}::{label}: cannot run: {report.reason}")
    result.findings += _still_fails(path, failing, outcome.source)
    result.notes += _unrun_notes(path, example_key or path, outcome)
    if outcome.status == "unverified" and not cannot:
        cannot.append(outcome.reason or "the original cannot be run")
    if cannot:
        result.error = "the checker cannot run " + "; ".join(cannot)
    if line_length is not None and outcome.applied:
        _wrap(result, text, line_length, path)
    result.findings.sort(key=lambda f: (f.line, f.col, f.code))
    return result


def _wrap(result: VerifiedFile, original: str, line_length: int, path: str) -> None:
    """Break the lines the proven fixes made longer than ``line_length`` (as ``--fix`` does)
    and move the findings made on the unwrapped text with them, with the places the final
    run's reports name (:func:`_moved_lines`)."""
    from .wrap import wrap_fixed_lines_mapped

    wrapped, where = wrap_fixed_lines_mapped(original, result.source, line_length)
    if wrapped == result.source or not _same_ast(wrapped, result.source):
        return
    moved = []
    for finding in result.findings:
        line, col = where.position(finding.line, finding.col)
        if finding.end_col > 1:  # end_col is exclusive: move the last character, then past it
            end_line, last = where.position(finding.end_line, finding.end_col - 1)
            end_col = last + 1
        else:
            end_line, end_col = where.position(finding.end_line, finding.end_col)
        message = finding.message
        if finding.code == "HL903":
            message = _moved_lines(message, finding.path or path, where)
        moved.append(
            replace(
                finding, message=message, line=line, col=col, end_line=end_line, end_col=end_col
            )
        )
    result.notes = [
        _moved_lines(note, path, where)
        if note.startswith(f"{path}::")
        else _ELSEWHERE.sub(lambda m: f"{m[1]}{where.position(int(m[2]), 1)[0]}", note)
        for note in result.notes
    ]
    result.source, result.findings = wrapped, moved


# a proof note's "the block still fails hybridized elsewhere, at line N" names a line of the
# final (unwrapped) text (verify._proof_detail), unlike the fix's own place before it
_ELSEWHERE = re.compile(r"(still fails hybridized elsewhere, at line )(\d+)")


def _moved_lines(text: str, path: str, where: Any) -> str:
    """`text` with the places of `path` it names (`path:line[:col]`) moved to where wrapping
    put them. Only for what the run of the final, unwrapped text reported: HL903's "still
    fails ... (at block.py:115: ...)" beside a finding moved to line 119 sent the user to
    the wrong statement. A proof note's own place (`path:line:col: CODE fix ...`) is in the
    original file's lines, as every fix's place is, and a rejected fix's reason describes
    a text that was never written: neither is moved."""

    def file_place(match: "re.Match[str]") -> str:
        line, col = where.position(int(match.group(2)), int(match.group(3) or 1))
        return f"{match.group(1)}:{line}" + (f":{col}" if match.group(3) else "")

    if not path:
        return text
    # not the tail of another file's name (`am.py:3`, MXNet's `gluon/m.py:3`)
    return re.sub(rf"(?<![\w.\-/\\])({re.escape(path)}):(\d+)(?::(\d+))?", file_place, text)


def _same_ast(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False


def _reusing_fixer(
    path: str, codes: Sequence[str], fixed: Optional[Tuple[str, bool, Any]], project: Any = None
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
                project=project if file == path else None,
            )
        key = _fix_key(source, file, select, ignore, unsafe, line_length)
        if key not in known:
            known[key] = fix_source(
                source,
                file,
                select=select,
                ignore=ignore,
                unsafe=unsafe,
                line_length=line_length,
                project=project if file == path else None,
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
    from .checker.report import FEWER_CALLS

    trip = ", exported" if report.roundtrip else ""
    fewer = [n for n in report.notes if n.startswith(FEWER_CALLS)]
    return f"eager, hybridized{trip}; max abs diff {report.max_abs_diff:.3g}" + "".join(
        f"; {n}" for n in fewer
    )


def _unrun_notes(path: str, key: str, outcome: Any) -> List[str]:
    """One note per block holding a fix --verify left unapplied that no example ran, with
    the example to configure under ``key`` (the file's path as the examples table names it,
    relative to the project root; ``inferred.unrun_blocks``): without one, the fix stays out
    however plainly right it is, and the user cannot tell why from the finding alone."""
    unapplied = {f.line for f in outcome.remaining if f.fix is not None}
    if not unapplied:
        return []
    from .checker.inferred import unrun_blocks

    ran = {label.partition("#")[0] for label in outcome.labels}
    blocks = unrun_blocks(outcome.source, unapplied, ran)
    return [
        f"{path}::{name}: no example ran it, so --verify cannot prove its fixes; configure "
        f'one in [tool.hybridlint.examples]: "{key}::{name}" = {value}'
        for name, value in blocks
    ]


def _same_fix(
    source: str,
    path: str,
    codes: List[str],
    project,
    texts: Dict[int, str],
    a: Finding,
    b: Finding,
    found,
) -> bool:
    """Whether findings `a` and `b` of `source` offer the very same fix (HL002 and HL005
    both offer the center loss's bincount rewrite): each alone writes the same text."""
    for finding in (a, b):
        if id(finding) not in texts:  # `texts`: one file's, each refused finding's text once
            try:
                texts[id(finding)] = single_fix(
                    source, path, finding, found, select=codes, project=project
                )
            except Exception:  # noqa: BLE001 - a twin unknown is a twin not claimed
                texts[id(finding)] = source
    return texts[id(a)] == texts[id(b)] != source


def _annotated(outcome, original: str, twin=None) -> list:
    """Remaining findings, with "(fix not applied: <why>)" on the fixes verification refused
    and on a finding whose fix is the very same as a refused one's (`twin`: the search tried
    that edit once, under the other code), plus the checker's run-time findings (dynamic
    lint) static analysis missed.

    A refused fix is named at its line in `original`, a remaining finding at its line in the
    fixed text: where the proven fixes changed the number of lines above it (a call over
    three lines rewritten on one), the two are matched through the lines the fixes left."""
    why = {(r.finding.code, r.finding.line): r.reason for r in outcome.rejected}
    to_original = _lines_before_fixes(original, outcome.source) if why else {}

    def refused(finding: Finding) -> Optional[str]:
        line = to_original.get(finding.line, finding.line)
        return why.get((finding.code, line))

    findings = [
        _unproven(f, reason) if (reason := refused(f)) is not None else f for f in outcome.remaining
    ]
    if twin is not None and why:
        remaining = list(outcome.remaining)  # findings[i] is remaining[i], or it refused
        refused_ones = [f for f in remaining if refused(f) is not None]
        for index, finding in enumerate(remaining):
            if finding.fix is None or refused(finding) is not None:
                continue
            for other in refused_ones:
                if other.line == finding.line and twin(finding, other, remaining):
                    findings[index] = _unproven(finding, refused(other) or "")
                    break
    static = {(f.code, f.line) for f in findings}
    findings += [f for f in outcome.runtime_findings if (f.code, f.line) not in static]
    return findings


def _lines_before_fixes(original: str, fixed: str) -> Dict[int, int]:
    """{line of `fixed`: the line of `original` it comes from}: lines the fixes left map to
    themselves, a rewritten block's lines to the block's lines in order (its last one for a
    block that grew)."""
    out: Dict[int, int] = {}
    matcher = difflib.SequenceMatcher(
        None, original.splitlines(), fixed.splitlines(), autojunk=False
    )
    for _tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(j2 - j1):
            out[j1 + k + 1] = i1 + min(k, max(i2 - i1 - 1, 0)) + 1
    return out


def _unproven(finding: Finding, reason: str) -> UnprovenFinding:
    fields = {name: getattr(finding, name) for name in finding.__dataclass_fields__}
    fields["message"] = f"{finding.message} (fix not applied: {reason})"
    return UnprovenFinding(**fields)


def _still_fails(
    path: str, failing: Sequence[Tuple[str, "EquivalenceReport"]], source: str
) -> List[Finding]:
    """HL903 at the user's line that failed (else the block's definition): one finding per
    block, line and reason, naming every example that failed there alike (a block whose
    examples all fail at one line is one problem, as ruff reports one diagnostic a place)."""
    groups: Dict[Tuple[str, int, str], List[str]] = {}
    reasons: Dict[Tuple[str, int, str], str] = {}  # the first example's, shown
    differing = set()  # keys whose examples' reasons differ in their numbers
    for label, report in failing:
        where = report.source_line
        block = label.split("#")[0]
        if where is not None and where.filename.replace(" [fixed]", "") == path:
            line = where.lineno
        else:
            line = _definition_line(source, block)
        reason = (report.reason or report.status).replace(" [fixed]", "")
        # alike up to numbers: operator names (`net3_split0`) and shapes differ per example
        key = (block, line, re.sub(r"\d+", "#", reason))
        groups.setdefault(key, []).append(label)
        if reasons.setdefault(key, reason) != reason:
            differing.add(key)
    lines = source.splitlines()
    findings = []
    for key, labels in groups.items():
        line, reason = key[1], reasons[key]
        if key in differing:
            reason += f" (as {labels[0]} reports it)"
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        col = len(text) - len(text.lstrip()) + 1
        what = (
            f"{labels[0]} still fails with its example"
            if len(labels) == 1
            else f"{', '.join(labels)} still fail with their examples"
        )
        if reason.startswith("eager failed"):  # the original, before any fix (blind round 12)
            what = (
                f"{labels[0]} cannot run its example"
                if len(labels) == 1
                else f"{', '.join(labels)} cannot run their examples"
            )
            message = (
                f"{what}: the original block fails eagerly, before any fix, so --verify "
                f"proves nothing here ({reason}); check the example, or run real MXNet "
                "with --backend mxnet if the bundled engine is what fails"
            )
        else:
            if all(_inferred_label(label) for label in labels):
                what = (
                    f"{labels[0]} still fails with the example --verify inferred (see its note)"
                    if len(labels) == 1
                    else f"{', '.join(labels)} still fail with the examples --verify inferred"
                )
            message = f"{what} after --verify: {reason}"
        findings.append(
            Finding(
                "HL903",
                RUNNER_CODES["HL903"][0],
                message,
                line,
                col,
                line,
                max(col, len(text.rstrip()) + 1),
                None,
                path,
            )
        )
    return findings


def _inferred_label(label: str) -> bool:
    """`Net#inferred`, `Net#inferred2`: an example --verify inferred (verify.example_labels)."""
    return re.search(r"#inferred\d*$", label) is not None


def _definition_line(source: str, name: str) -> int:
    match = re.search(
        rf"^[ \t]*(?:class|def)[ \t]+{re.escape(name.split('.')[-1])}\b", source, re.M
    )
    return source.count("\n", 0, match.start()) + 1 if match else 1
