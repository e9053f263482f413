"""The data types that cross hybridlint's layers (as Fixit's ``ftypes.py`` holds Fixit's).

A finding is one :class:`Finding` from the rule to the reporter: the linter core creates it
(``path`` set, ``source_line`` empty), the checker sends run-time ones over its wire, the
runner attaches the source line of the text it reports on (``with_source_line``), and the
cache, the baseline and every reporter read the same object. Fix safety is the
:class:`FixSafety` enum, a ``str`` enum, so a finding's ``fix`` still equals, hashes, prints
and serialises (JSON, SARIF, the cache) as ``"safe"``/``"unsafe"``.

The other types are the per-file results that flow one way through a run
(discover -> read -> lint -> fix -> verify -> report, docs/architecture.md):

* :class:`WorkResult` — what linting or fixing one source text produced (in a pool worker or
  in this process; plain, picklable data);
* :class:`VerifiedFile` — what ``--verify`` made of that file (checker_bridge);
* :class:`FileOutcome` — what happened to one file, as the reporters see it;
* :class:`RunResult` — the outcomes of a run, sorted by path.

This module imports nothing from hybridlint, so every layer (rules included) can use it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any, Dict, List, Optional, Tuple, Union


class FixSafety(str, enum.Enum):
    """How sure a fix is: ``safe`` fixes give the same outputs for every input and ``--fix``
    applies them; ``unsafe`` ones need ``--unsafe-fixes`` or a proof by ``--verify``."""

    SAFE = "safe"
    UNSAFE = "unsafe"

    # The members behave as their values everywhere text is expected: "safe", not
    # "FixSafety.SAFE" (f-strings, str()), and the hash of the string, so that a member and
    # its value are interchangeable as dict keys and set members (they compare equal).
    def __str__(self) -> str:
        return self.value

    def __format__(self, format_spec: str) -> str:
        return format(self.value, format_spec)

    def __hash__(self) -> int:
        return hash(self.value)


# The codes the runner itself reports (not a rule module): file problems and --verify.
RUNNER_CODES: Dict[str, Tuple[str, str]] = {
    "HL900": ("syntax-error", "file cannot be parsed"),
    "HL901": ("decode-error", "file is not valid text in its declared encoding"),
    "HL902": ("read-error", "file cannot be read"),
    "HL903": ("hybridize-failed", "a block with examples still fails after --fix/--diff --verify"),
}

# A finding's fields in the order the product surface writes them (JSON output, the cache).
REPORT_FIELDS = (
    "path",
    "code",
    "name",
    "message",
    "line",
    "col",
    "end_line",
    "end_col",
    "fix",
    "source_line",
)


@dataclass(frozen=True)
class Finding:
    """One finding: a rule's (or the runner's, or the checker's) report at a source range.

    Lines and columns are 1-based; ``end_col`` is exclusive. ``fix`` is the fix's safety,
    None when the finding has no fix. ``source_line`` is the reported text's line ``line``
    (filled by the runner, empty from the linter core).
    """

    code: str
    name: str
    message: str
    line: int
    col: int
    end_line: int
    end_col: int
    # a FixSafety member once built; typed to also take its text ("safe"), which the
    # checker's wire, the cache and older callers pass (FixSafety is a str)
    fix: Optional[Union[FixSafety, str]]
    path: str = "<string>"
    source_line: str = ""

    def __post_init__(self) -> None:
        # one type for the safety, whoever built the finding ("safe" from the cache or the
        # checker's wire, a member from the rules); an unknown text is a ValueError
        if self.fix is not None and not isinstance(self.fix, FixSafety):
            object.__setattr__(self, "fix", FixSafety(self.fix))

    def fixable(self, unsafe: bool = False) -> bool:
        """Whether ``--fix`` applies this finding's fix (with ``unsafe``: ``--unsafe-fixes``)."""
        return self.fix is FixSafety.SAFE or (unsafe and self.fix is FixSafety.UNSAFE)

    def with_source_line(self, path: str, lines: List[str]) -> "Finding":
        """This finding of file ``path``, with its line's text from ``lines`` (the reported
        text split into lines; out of range: empty)."""
        text = lines[self.line - 1] if 0 < self.line <= len(lines) else ""
        return replace(self, path=path, source_line=text)

    def to_dict(self) -> Dict[str, Any]:
        """Plain data in :data:`REPORT_FIELDS` order (``fix`` as its text, "safe"/"unsafe")."""
        data = {name: getattr(self, name) for name in REPORT_FIELDS}
        data["fix"] = None if self.fix is None else str(self.fix)  # "safe", a plain str
        return data


def Issue(
    path: str,
    code: str,
    name: str,
    message: str,
    line: int,
    col: int,
    end_line: int,
    end_col: int,
    fix: Optional[str],
    source_line: str = "",
) -> Finding:
    """Deprecated alias of the runner's former ``Issue`` class (path first): a :class:`Finding`."""
    return Finding(code, name, message, line, col, end_line, end_col, fix, path, source_line)


@dataclass
class WorkResult:
    """What linting or fixing one source text produced (``runner._work``; crosses processes).

    Exactly one of three shapes: ``internal_error`` (a linter bug), ``syntax_error``
    (``(line, col, message)``: HL900), or ``source`` with ``findings`` (what remains in
    ``source``) and, after fixing, the applied fixes.
    """

    source: str = ""
    findings: List[Finding] = field(default_factory=list)
    applied: List[Finding] = field(default_factory=list)  # positions in the original text
    revealed: int = 0  # applied fixes of findings the first lint did not count fixable
    syntax_error: Optional[Tuple[int, int, str]] = None
    internal_error: Optional[str] = None
    # --verify: (text, unsafe, FixResult) of fix_source(text, select=codes, unsafe=unsafe),
    # unwrapped: the checker's first fix of the file, which it reuses instead of fixing again
    fix_result: Any = None
    # --format json/sarif: the edits of each finding's fix alone (fixedits.all_fix_details)
    fix_edits: Dict[Tuple[Any, ...], Dict[str, Any]] = field(default_factory=dict)

    @property
    def fixed_codes(self) -> List[Tuple[str, str]]:
        return [(f.code, f.name) for f in self.applied]


@dataclass
class VerifiedFile:
    """What ``--verify`` made of one file (``checker_bridge.verify_file``)."""

    source: str
    applied: int = 0
    findings: List[Finding] = field(default_factory=list)  # lines of `source`
    rejected: int = 0
    notes: List[str] = field(default_factory=list)  # per-fix proofs and per-block verdicts
    error: Optional[str] = None  # e.g. a block the checker cannot run
    internal: bool = False  # a checker bug: exit 2
    failing: int = 0  # blocks that still fail (HL903)
    codes: List[Tuple[str, str]] = field(default_factory=list)  # (code, name) of each applied fix


@dataclass
class FileOutcome:
    """What happened to one file."""

    path: str
    issues: List[Finding] = field(default_factory=list)  # with path and source_line set
    fixed: int = 0  # fixes applied (written, or shown in the diff)
    # of those, fixes of findings that only appeared once earlier fixes were made (a nested
    # x[0][1]): `check` could not count them as fixable, so the summary names them apart
    revealed: int = 0
    fixed_codes: List[Tuple[str, str]] = field(default_factory=list)  # (code, name) per fix
    diff: Optional[str] = None
    error: Optional[str] = None  # e.g. a fix that could not be written
    rejected: int = 0  # fixes the checker refused under --verify
    internal: bool = False  # the error is a hybridlint bug (exit 2), not the user's problem
    encoding: Optional[str] = None  # the file's codec, for writing its diff as bytes
    verification: List[str] = field(default_factory=list)  # --verify: per-fix proofs, blocks
    # --format json/sarif: each finding's fix alone as edits of the reported text, by
    # fixedits.finding_key (findings without a fix, or whose fix changes nothing, have none)
    fix_edits: Dict[Tuple[Any, ...], Dict[str, Any]] = field(default_factory=dict)


@dataclass
class RunResult:
    """The outcome of a run, sorted by path; what the reporters and the baseline read."""

    outcomes: List[FileOutcome]
    files_checked: int
    # things the user should know that are not findings (a refused cache, an interrupted write)
    warnings: List[str] = field(default_factory=list)

    @property
    def issues(self) -> List[Finding]:
        return [issue for outcome in self.outcomes for issue in outcome.issues]

    @property
    def fixed(self) -> int:
        return sum(o.fixed for o in self.outcomes)

    @property
    def revealed(self) -> int:
        """Fixes of findings that appeared only after earlier fixes (not counted fixable)."""
        return sum(o.revealed for o in self.outcomes)
