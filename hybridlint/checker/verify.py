"""`--fix --verify`: keep only the fixes that running the code proves.

With examples, all fixes, safe and unsafe, are applied and the result is checked against the original on every example
(original eager vs fixed eager vs fixed hybridized, see check_fix). When that fails, the
applied fixes are bisected with `fix_source(accept=...)`: every subset tried is run, so the
source returned is always one that was checked. A fix is rejected when it changes outputs,
breaks the code, or the hybridized run still fails at a line the fix changed; a hybridize
failure elsewhere (a hazard no rule can fix) does not count against the fixes when the
original fails to hybridize as well.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Callable, Dict, FrozenSet, List, Optional, Sequence, Tuple

from .checks import check_fix, check_source
from .inputs import Example
from .report import EquivalenceReport
from .session import CheckerSession, shared_session

Key = Tuple[str, int, int]


@dataclass
class RejectedFix:
    """A fix the checker refused, with the report that shows why (measured differences)."""

    finding: object
    report: EquivalenceReport

    @property
    def reason(self) -> str:
        return self.report.reason or self.report.status


@dataclass
class VerifyOutcome:
    source: str
    applied: list = field(default_factory=list)
    rejected: List[RejectedFix] = field(default_factory=list)
    remaining: list = field(default_factory=list)
    reports: List[EquivalenceReport] = field(default_factory=list)
    status: str = "verified"            # "verified" | "expression-level" | "unverified"
    reason: Optional[str] = None        # why unverified

    @property
    def runtime_findings(self) -> list:
        """Dynamic lint of `source`: what tracing the hybridized graph showed, per line."""
        seen, out = set(), []
        for report in self.reports:
            for finding in report.runtime_findings:
                if (finding.code, finding.line) not in seen:
                    seen.add((finding.code, finding.line))
                    out.append(finding)
        return out


def _key(finding) -> Key:
    return (finding.code, finding.line, finding.col)


def verify_fixes(source: str, path: str, examples: Sequence[Example], *, unsafe: bool = False,
                 select=None, ignore=(), backend: str = "engine", rtol: float = 1e-5,
                 atol: float = 1e-6, seed: int = 0, session: Optional[CheckerSession] = None,
                 fixer: Optional[Callable] = None) -> VerifyOutcome:
    """Apply the fixes of `source` that keep outputs equal and hybridize; see module doc.

    `fixer` defaults to `hybridlint.linter.fix_source` (tests inject a deliberately wrong one).
    """
    if fixer is None:
        from hybridlint.linter import fix_source as fixer
    if examples:
        # Running the block on its examples proves or rejects each fix, whatever its static
        # safety ("unsafe" means exactly "needs verification"), so every fix is a candidate.
        # Without examples the expression-level check feeds tensors to each expression and
        # cannot see, e.g., that an input is a list of arrays: the requested safety stands.
        unsafe = True
    session = session or shared_session()
    every = fixer(source, path, select=select, ignore=ignore, unsafe=unsafe)
    if not every.applied:                  # nothing to prove; examples still give dynamic lint
        reports = check_source(source, path, examples, backend=backend, rtol=rtol, atol=atol,
                               seed=seed, session=session) if examples else []
        return VerifyOutcome(source, [], [], list(every.remaining), reports, "verified")
    if not examples:
        return _expression_level(source, path, every, fixer, dict(
            select=select, ignore=ignore, unsafe=unsafe), dict(
            backend=backend, rtol=rtol, atol=atol, session=session))
    baseline = check_source(source, path, examples, backend=backend, rtol=rtol, atol=atol,
                            seed=seed, session=session)
    blocker = next((r for r in baseline if r.status in ("cannot_run", "eager_error")), None)
    if blocker is not None:
        return _unverified(source, every, fixer, path, select, ignore, unsafe,
                           f"the original cannot be run: {blocker.summary()}", baseline)
    original_hybridizes = all(r.status != "hybrid_error" for r in baseline)
    search = _Search(source, path, examples, fixer, dict(select=select, ignore=ignore,
                                                         unsafe=unsafe),
                     dict(backend=backend, rtol=rtol, atol=atol, seed=seed, session=session),
                     original_hybridizes)
    kept = search.bisect(list(every.applied), [])
    final = search.fix(kept)
    reports = search.reports(kept) if kept else baseline
    return VerifyOutcome(final.source, list(final.applied), search.rejected,
                         list(final.remaining), reports, "verified")


def _expression_level(source, path, every, fixer, fix_options, check_options) -> VerifyOutcome:
    """No examples: verify each fix alone on its expression (see expression.py)."""
    from .expression import verify_expression_fix
    kept, rejected, reports = [], [], []
    for finding in every.applied:
        alone = fixer(source, path, accept=lambda f, k=_key(finding): _key(f) == k,
                      **fix_options)
        report = verify_expression_fix(source, alone.source, **check_options)
        report.target = f"{path}:{finding.line}:{finding.col} {finding.code}"
        report.runtime_findings = []      # lines of the generated expression block, not the file
        reports.append(report)
        (kept.append(finding) if report.ok else rejected.append(RejectedFix(finding, report)))
    keys = {_key(f) for f in kept}
    final = fixer(source, path, accept=lambda f: _key(f) in keys, **fix_options)
    return VerifyOutcome(final.source, list(final.applied), rejected, list(final.remaining),
                         reports, "expression-level")


def _unverified(source, every, fixer, path, select, ignore, unsafe, reason,
                reports=()) -> VerifyOutcome:
    report = EquivalenceReport("cannot_run", target=path, reason=reason)
    rejected = [RejectedFix(f, report) for f in every.applied]
    remaining = fixer(source, path, select=select, ignore=ignore, unsafe=unsafe,
                      accept=lambda f: False).remaining
    return VerifyOutcome(source, [], rejected, list(remaining), list(reports), "unverified",
                         reason)


class _Search:
    """Runs candidate fix sets (memoised) and bisects the failing ones."""

    def __init__(self, source, path, examples, fixer, fix_options, check_options,
                 original_hybridizes: bool):
        self.source, self.path, self.examples = source, path, examples
        self.fixer, self.fix_options, self.check_options = fixer, fix_options, check_options
        self.original_hybridizes = original_hybridizes
        self.rejected: List[RejectedFix] = []
        self._cache: Dict[FrozenSet[Key], List[EquivalenceReport]] = {}
        self._fixed: Dict[FrozenSet[Key], object] = {}

    def fix(self, findings: Sequence) -> object:
        keys = frozenset(_key(f) for f in findings)
        if keys not in self._fixed:
            self._fixed[keys] = self.fixer(self.source, self.path,
                                           accept=lambda f: _key(f) in keys, **self.fix_options)
        return self._fixed[keys]

    def reports(self, findings: Sequence) -> List[EquivalenceReport]:
        keys = frozenset(_key(f) for f in findings)
        if keys not in self._cache:
            fixed = self.fix(findings).source
            self._cache[keys] = [
                check_fix(self.source, fixed, ex.target, ex.specs(), kwargs=ex.kwargs,
                          path=self.path, **self.check_options) for ex in self.examples]
        return self._cache[keys]

    def acceptable(self, findings: Sequence) -> Tuple[bool, Optional[EquivalenceReport]]:
        fixed = self.fix(findings).source
        for report in self.reports(findings):
            if report.status == "equal":
                continue
            if report.status == "hybrid_error" and self._elsewhere(report, fixed):
                continue
            return False, report
        return True, None

    def _elsewhere(self, report: EquivalenceReport, fixed: str) -> bool:
        """A hybridize failure the fixes did not cause: the original fails too, at a line
        the fixes left unchanged."""
        if self.original_hybridizes or report.source_line is None:
            return False
        return _unchanged_line(self.source, fixed, report.source_line.lineno)

    def bisect(self, candidates: List, accepted: List) -> List:
        ok, report = self.acceptable(accepted + candidates)
        if ok:
            return candidates
        if len(candidates) == 1:
            self.rejected.append(RejectedFix(candidates[0], report))
            return []
        middle = len(candidates) // 2
        left = self.bisect(candidates[:middle], accepted)
        right = self.bisect(candidates[middle:], accepted + left)
        return left + right


def _unchanged_line(original: str, fixed: str, fixed_lineno: int) -> bool:
    """Is line `fixed_lineno` of `fixed` a line the fixes did not touch?"""
    matcher = difflib.SequenceMatcher(None, original.splitlines(), fixed.splitlines(),
                                      autojunk=False)
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if j1 < fixed_lineno <= j2:
            return tag == "equal"
    return False
