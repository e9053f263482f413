"""`--fix --verify`: keep only the fixes that running the code proves.

The unit of proof is the block, not the fix: with examples, every candidate fix (static,
safe and unsafe, and those the hybridized trace observes, observed.py) is applied at once and
the result is checked against the original on every example (original eager vs fixed eager vs
fixed hybridized, see check_fix); a block with three hazards hybridizes only with all three
fixed. When that fails, the fixes are bisected with `fix_source(accept=...)`: every subset
tried is run, so the source returned is always one that was checked. Fixes are named by rule
and original line (FixIdentity), so a fix that a later fixing pass applies inside another
fix's rewrite is the same fix in every subset.

A fix is rejected when it changes outputs, breaks the code, or the hybridized run still fails
at a line the fixes changed; a hybridize failure elsewhere (a hazard no rule can fix) does not
count against the fixes when the original fails to hybridize as well, and neither does the
failure of an example that ran none of the rewritten lines (another block's own problem: a
stateful or random block, an original that cannot run). The trace stops at its first failure,
so after applying every fix the checker observes again, in rounds, until nothing new shows.

Passing the examples proves a fix only if an example ran it: the worker records which lines of
the fixed source executed, and where (instruction positions), during the build, eager and
hybridized runs, and a fix whose rewritten code none of the examples executed (a class without
examples, a branch not taken) is treated as in a file without examples: an expression-level
check, and for an unsafe fix only with --unsafe-fixes; otherwise it is not applied, and `proofs`
says so. A safe fix that check cannot run either is applied as `--fix` applies it, and said to
be unverified: `--verify` leaves out what it proves wrong, never what it merely cannot check.
What a proof claims is read from the run of the source as written.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Set,
    Tuple,
    cast,
)

from .checks import check_fix, check_source
from .configured import taken_fallbacks, with_taken_fallbacks
from .jobs import HYBRID_CHILD
from .observed import Plan, is_observed, observed_fixes, planned_fixes, with_observed
from .inferred import infer_examples
from .inputs import Example
from .report import EquivalenceReport
from .session import CheckerSession, shared_session

if TYPE_CHECKING:
    from hybridlint.linter import FixResult

Key = Tuple[str, int, int, int, int, bool]  # rule, line, (col, end line, end col), observed

# The note of a safe fix that neither an example nor the expression-level check could run.
# `--verify` applies what `--fix` applies unless it proves it wrong: leaving such a fix out
# made `--fix --verify` fix fewer blocks than plain `--fix` (benchmarks/e2e, verify-bare).
UNCHECKED = "applied unverified, as --fix applies a safe fix"

# The stages of a check where the fixed code itself failed or differed eagerly (jobs._fix_job).
_EAGER = ("load fixed", "build fixed", "fixed eager")


@dataclass
class RejectedFix:
    """A fix the checker refused (or could not prove), with the report that shows why."""

    finding: object
    report: EquivalenceReport

    @property
    def reason(self) -> str:
        return self.report.reason or self.report.status


@dataclass
class FixProof:
    """What verification says about one fix: `verdict` is "proven" (an example ran the
    rewritten code and the outputs were equal), "expression-level" (no example ran it; the
    rewritten expression alone was checked on generated shapes), "unchecked" (a safe fix
    neither could check: applied, as `--fix` applies it), "not-run" (an unsafe fix nothing
    checked: not applied), "rejected" or "unverified" (the original cannot run)."""

    finding: object
    verdict: str
    detail: str
    examples: Tuple[str, ...] = ()

    @property
    def applied(self) -> bool:
        return self.verdict in ("proven", "expression-level", "unchecked")


@dataclass
class VerifyOutcome:
    source: str
    applied: list = field(default_factory=list)
    rejected: List[RejectedFix] = field(default_factory=list)
    remaining: list = field(default_factory=list)
    reports: List[EquivalenceReport] = field(default_factory=list)
    status: str = "verified"  # "verified" | "expression-level" | "unverified"
    reason: Optional[str] = None  # why unverified
    proofs: List[FixProof] = field(default_factory=list)
    labels: List[str] = field(default_factory=list)  # one per example, as in `reports`
    inferred: List[str] = field(default_factory=list)  # how inferred examples were made
    dropped: List[str] = field(default_factory=list)  # inferred examples left out, and why

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


class FixIdentity:
    """A fix's identity across the subsets of fixes the search tries: its rule, its line in
    the original source and, only where one rule has several fixes on that line, its span
    there (start and end: `y * g + b` holds two HL007 fixes that start at one column).

    fix_source reports and accepts findings at their place in the original source, also a
    fix nested in another fix's node (an HL011 inside the operands HL007 rewrites, a `-`
    inside a `/`), which a later pass applies where its column has moved: each subset of
    fixes names it the same way."""

    def __init__(self, findings: Sequence = ()) -> None:
        spans: Dict[Tuple[str, int], Set[Tuple[int, int, int]]] = {}
        for finding in findings:
            if not is_observed(finding):  # one observed fix per rule and line
                spans.setdefault((finding.code, finding.line), set()).add(_span(finding))
        self.several = {where for where, found in spans.items() if len(found) > 1}

    def __call__(self, finding) -> Key:
        where = (finding.code, finding.line)
        span = _span(finding) if where in self.several else (0, 0, 0)
        # An observed fix and a static fix of one rule on one line are two fixes (HL007 on
        # `XX + YY` seen at run time, HL007 on the `- 2 * XY` around it found statically).
        return (*where, *span, is_observed(finding))


def _span(finding) -> Tuple[int, int, int]:
    return finding.col, finding.end_line, finding.end_col


def example_labels(examples: Sequence[Example]) -> List[str]:
    """`Net`, or `Net#1`, `Net#2` when a block has several examples; `Net#inferred` for the
    example the checker inferred for it, `Net#inferred2` for a second one (its configuration
    variant: inferred.py)."""
    counts: Dict[str, int] = {}
    for example in examples:
        if example.inferred:
            continue
        counts[example.target] = counts.get(example.target, 0) + 1
    seen: Dict[str, int] = {}
    inferred: Dict[str, int] = {}
    labels = []
    for example in examples:
        if example.inferred:
            inferred[example.target] = inferred.get(example.target, 0) + 1
            number = inferred[example.target]
            labels.append(f"{example.target}#inferred{number if number > 1 else ''}")
            continue
        seen[example.target] = seen.get(example.target, 0) + 1
        labels.append(
            example.target
            if counts[example.target] == 1
            else f"{example.target}#{seen[example.target]}"
        )
    return labels


def verify_fixes(
    source: str,
    path: str,
    examples: Sequence[Example],
    *,
    unsafe: bool = False,
    select=None,
    ignore=(),
    backend: str = "engine",
    rtol: float = 1e-5,
    atol: float = 1e-6,
    seed: int = 0,
    session: Optional[CheckerSession] = None,
    fixer: Optional[Callable] = None,
    timeout: Optional[float] = None,
    infer: bool = True,
) -> VerifyOutcome:
    """Apply the fixes of `source` that running the code proves; see the module doc.

    `unsafe` is the user's --unsafe-fixes. With examples every fix is a candidate, but a fix
    counts as proven only when an example ran its rewritten lines; the others are treated as
    in a file without examples (expression-level check; unsafe ones only with `unsafe`).
    `fixer` defaults to `hybridlint.linter.fix_source` (tests inject a deliberately wrong one).
    With no `examples` and `infer`, the blocks holding fixes get examples inferred from the
    code where it allows (inferred.py); their labels end in `#inferred`.
    """
    if fixer is None:
        from hybridlint.linter import fix_source

        fixer = fix_source
    session = session or shared_session()
    check_options: Dict[str, Any] = dict(
        backend=backend, rtol=rtol, atol=atol, session=session, timeout=timeout
    )
    options = dict(unsafe=unsafe, select=select, ignore=ignore, seed=seed)
    if examples or not infer:
        baseline = check_source(source, path, examples, seed=seed, **check_options)
        return _verify(source, path, examples, baseline, fixer, check_options, **options)
    found = _inferred(source, path, fixer, select, ignore, seed, check_options)
    dropped: List[str] = []
    while True:
        outcome = _verify(
            source,
            path,
            [f.example for f in found],
            [f.report for f in found],
            fixer,
            check_options,
            **options,
        )
        doubted = _doubting(outcome, found, path)
        if not doubted:
            outcome.inferred = [f.described for f in found]
            outcome.dropped = dropped
            return outcome
        # A safe fix --fix would apply, refused on an input no caller may pass (the
        # contract of WeightedLevelFusion is one level per weight; a made-up input broke it):
        # that example judges nothing, and the file is verified again without it.
        for example, reason in doubted:
            twins = [f for f in found if f.example.target == example.example.target]
            where = "on its block's inferred examples" if len(twins) > 1 else "on it"
            dropped.append(
                f"{example.described} was left out: {where} the safe fix {reason} (an "
                "inferred input may not be one the block's callers pass; the fix is judged as "
                "without it)"
            )
        found = [f for f in found if f not in [e for e, _ in doubted]]


def _doubting(outcome: "VerifyOutcome", found: Sequence, path: str) -> List[Tuple[Any, str]]:
    """The inferred examples on which a safe fix was refused, each with the first such fix.
    A report names its block, not which of the block's examples refused: of a block with a
    configuration variant (inferred.py), the variant is doubted first, so that the first
    example is judged on its own again, as it was without the variant."""
    out: List[Tuple[Any, str]] = []
    doubted: Set[str] = set()
    for inferred in reversed(found):
        label = f"{path}::{inferred.example.target}"
        if label in doubted:
            continue
        for rejected in outcome.rejected:
            finding: Any = rejected.finding
            if finding.fix == "safe" and rejected.report.target == label:
                out.append(
                    (
                        inferred,
                        f"{finding.code} at line {finding.line} was refused: {rejected.reason}",
                    )
                )
                doubted.add(label)
                break
    return out[::-1]


def _verify(
    source: str,
    path: str,
    examples: Sequence[Example],
    baseline: List[EquivalenceReport],
    fixer: Callable,
    check_options: Dict[str, Any],
    *,
    unsafe: bool,
    select,
    ignore,
    seed: int,
) -> VerifyOutcome:
    """verify_fixes with its examples run once on the original (`baseline`)."""
    labels = example_labels(examples)
    plain_fixer = base_fixer = fixer
    taken: FrozenSet[Tuple[str, str]] = frozenset()
    observed: List = []
    plan: Plan = {}
    if baseline:
        # A shape read in a fallback the block's own configuration never takes, which an
        # example's configuration did take (configured.py): the rules see it as taken.
        taken = taken_fallbacks(source, path, baseline)
        if taken:
            fixer = base_fixer = with_taken_fallbacks(plain_fixer, taken)
        # Hazards the trace observed (HL007 with exact shapes, HL003 on a Symbol) become
        # candidate fixes, proven like the static ones. Those seen only on a block built from
        # guessed constructor arguments too: each observed rewrite is exact on NDArray in
        # every configuration (`F.broadcast_add` of equal shapes is `+`), so a guess no
        # caller makes can add a rewrite that keeps every value, never one that changes one.
        # Keeping them as reports instead lost four real fixes of the e2e sets without
        # examples (BiSeNet's, LEDNet's gates; measured 2026-11-30).
        static = fixer(source, path, select=select, ignore=ignore, unsafe=True)
        found, found_plan = observed_fixes(source, path, baseline, static.applied)
        observed, plan = _selected_observations(found, found_plan, select, ignore)
        if observed:
            fixer = with_observed(base_fixer, source, observed, plan)
    every = fixer(source, path, select=select, ignore=ignore, unsafe=bool(examples) or unsafe)
    if not every.applied:  # nothing to prove; examples still give dynamic lint
        return VerifyOutcome(
            source, [], [], list(every.remaining), baseline, "verified", labels=labels
        )
    if not examples:
        return _expression_level(
            source,
            path,
            every.applied,
            fixer,
            dict(select=select, ignore=ignore, unsafe=unsafe),
            check_options,
            "no example is configured for this file",
            others=every.initial,
        )
    # An example whose original cannot run judges nothing, but it does not stop the others:
    # each block's proof stands alone (its report stays in the outcome: the file's error).
    runnable = [i for i, r in enumerate(baseline) if r.status not in ("cannot_run", "eager_error")]
    if not runnable:
        # No example judges anything: the fixes are checked as in a file without examples
        # (a safe fix no check can run is applied as `--fix` applies it, so `--verify` does no
        # worse than `--fix`), and the examples' reports stay: the file's error, exit 2.
        reason = f"the original cannot be run: {baseline[0].summary()}"
        fallback = _expression_level(
            source,
            path,
            every.applied,
            fixer,
            dict(select=select, ignore=ignore, unsafe=unsafe),
            check_options,
            reason,
            others=every.initial,
        )
        fallback.reports = list(baseline) + fallback.reports
        fallback.labels, fallback.status, fallback.reason = list(labels), "unverified", reason
        return fallback
    # per example: a failure of the fixed code at a line the fixes left is excused only on an
    # example whose original fails hybridized too (a configuration variant is built to take a
    # failing branch; the first example must still be judged strictly)
    original_hybridizes = [baseline[i].status != "hybrid_error" for i in runnable]
    search = _Search(
        source,
        path,
        [examples[i] for i in runnable],
        fixer,
        dict(select=select, ignore=ignore, unsafe=True),
        dict(seed=seed, **check_options),
        original_hybridizes,
    )
    judged = [labels[i] for i in runnable]
    search.identify(every.applied)
    if any(r.stage == "build" and HYBRID_CHILD in (r.error_message or "") for r in baseline):
        # HL010: the original cannot even be built. Its eager reference is the original with
        # only the container swap (Sequential -> HybridSequential runs the same children in
        # the same order eagerly); every fix, that one included, is checked against it.
        search.reference = fixer(
            source,
            path,
            select=select,
            ignore=ignore,
            unsafe=True,
            accept=lambda f: f.code == "HL010",
        ).source
    # The hybridized trace stops at its first failure: a hazard behind it shows only once the
    # fixes before it are applied. Run every fix, observe again, until nothing new is seen.
    for _ in range(_OBSERVATION_ROUNDS):
        more, more_plan = _observed_behind(search, every.applied, plan, select, ignore)
        # a fallback read behind the first failure (FastSCNN's second `x.shape[2:]`)
        more_taken = taken_fallbacks(
            search.fix(every.applied).source, path, search.reports(every.applied)
        )
        if not more and more_taken <= taken:
            break
        if more_taken - taken:
            taken = taken | more_taken
            base_fixer = with_taken_fallbacks(plain_fixer, taken)
        observed = [f for f in observed if (f.line, f.code) not in more_plan] + more
        plan = {**plan, **more_plan}
        search.fixer = fixer = with_observed(base_fixer, source, observed, plan)
        every = fixer(source, path, select=select, ignore=ignore, unsafe=True)
        search.identify(every.applied)
    kept = search.bisect(_one_per_key(every.applied, search.key), [])
    proofs = [FixProof(r.finding, "rejected", f"rejected: {r.reason}") for r in search.rejected]
    proven, not_run = search.exercised(kept)
    extra: List = []
    if not_run:
        # An unsafe fix no example ran is left out, and so is every other unexercised fix of
        # its lines (a later pass may have rewritten what that fix wrote).
        held = {f.line for f in not_run if f.fix == "unsafe" and not unsafe}
        if all(e.inferred for e in examples):
            # no example of the user's: as in a file without examples (before inference),
            # where unsafe fixes are no candidates, a safe fix on their line is checked alone
            tried = [f for f in not_run if f.line not in held or f.fix != "unsafe"]
            held = set()
        else:
            tried = [f for f in not_run if f.line not in held]
        for finding in not_run:
            if finding not in tried:
                report = EquivalenceReport(
                    "cannot_run",
                    target=path,
                    stage="coverage",
                    reason=(
                        f"no example ran the rewritten code at line {finding.line} (examples: "
                        f"{', '.join(judged)});"
                        " an unsafe fix is applied only when an example runs it (or with "
                        "--unsafe-fixes, after an expression-level check)"
                    ),
                )
                search.rejected.append(RejectedFix(finding, report))
                proofs.append(FixProof(finding, "not-run", f"not applied: {report.reason}"))
        if tried:
            level = _expression_level(
                source,
                path,
                tried,
                fixer,
                search.fix_options,
                check_options,
                "no example ran the rewritten code at "
                f"line(s) {', '.join(str(n) for n in sorted({f.line for f in tried}))}",
                search.key,
                others=every.initial,
            )
            extra = [p.finding for p in level.proofs if p.applied]
            search.rejected += level.rejected
            proofs += level.proofs
    final_set = list(proven) + extra
    passes, failure = search.acceptable(final_set) if extra else (True, None)
    if not passes:  # never return an unchecked source
        why = "the checked fixes with this one no longer pass the examples"
        proofs = _refused(extra, proofs, search.rejected, failure, why)
        final_set = list(proven)
    if final_set and len(final_set) < len(kept):
        passes, failure = search.acceptable(final_set)
        if not passes:
            # Leaving out the fixes no example ran changed what the others do (coverage
            # missed a dependency): nothing here is proven as it would be written.
            why = "without the fixes no example ran, the others no longer pass"
            proofs = _refused(final_set, proofs, search.rejected, failure, why)
            proven, final_set = [], []
    final = search.fix(final_set)
    # What a proven fix claims is read from the run of the set actually written, never from
    # an intermediate set: a fix is "== fixed hybridized" only if its block passes as written.
    final_reports = search.reports(final_set) if final_set else [baseline[i] for i in runnable]
    proofs += search.proofs(proven, judged, final_reports)
    proofs = _claims_as_written(proofs, final.applied, search.key)
    reports = list(baseline)
    for index, report in zip(runnable, final_reports):
        reports[index] = report
    return VerifyOutcome(
        final.source,
        list(final.applied),
        search.rejected,
        list(final.remaining),
        reports,
        "verified",
        proofs=proofs,
        labels=labels,
    )


_OBSERVATION_ROUNDS = 4


def _claims_as_written(proofs: List[FixProof], written: Sequence, key: Callable) -> List[FixProof]:
    """`proofs`, where one says its fix is applied but the text written does not hold that
    fix, said not applied: a note must describe the file as written (a later pass's fix that
    the final fixing run did not reach was once noted "applied unverified" while the file kept
    the hazard and the summary still offered the fix)."""
    keys = {key(f) for f in written}
    out = []
    for proof in proofs:
        if proof.applied and key(proof.finding) not in keys:
            proof = FixProof(
                proof.finding,
                "not-run",
                f"not applied: the fixes written with it did not reach it (it was {proof.detail})",
            )
        out.append(proof)
    return out


def _refused(
    findings: Sequence,
    proofs: List[FixProof],
    rejected: List[RejectedFix],
    failure: Optional[EquivalenceReport],
    why: str,
) -> List[FixProof]:
    """`proofs` with each of `findings` said rejected for `why` (its earlier proof replaced),
    and each added to `rejected`: the outcome's list is what the summary counts and what
    marks the finding's fix as not applied (checker_bridge), not the proofs."""
    failure = failure or EquivalenceReport("mismatch")
    report = EquivalenceReport(
        failure.status,
        target=failure.target,
        stage=failure.stage,
        reason=why + (f" ({failure.reason})" if failure.reason else ""),
    )
    kept = [p for p in proofs if not any(p.finding is f for f in findings)]
    rejected += [RejectedFix(f, report) for f in findings]
    return kept + [FixProof(f, "rejected", f"rejected: {why}") for f in findings]


def _selected_observations(found, plan: Plan, select, ignore):
    kept = [
        f for f in found if (select is None or f.code in select) and f.code not in (ignore or ())
    ]
    return kept, {(f.line, f.code): plan[(f.line, f.code)] for f in kept}


def _observed_behind(search: "_Search", applied: Sequence, plan: Plan, select, ignore):
    """Hazards the hybridized runs of every fix applied still show: observed fixes at the
    original's lines (where observed rewrites are planned), new ones or ones that grow a
    line's plan (a second subscript, an operator a static fix left as it was: `XX + YY`
    inside the `(XX + YY) - 2 * XY` that HL007 rewrote). Returns (findings, their plans)."""
    fixed = search.fix(applied).source
    reports = search.reports(applied)
    if not any(r.status in ("hybrid_error", "mismatch") for r in reports):
        return [], {}
    found, found_plan = observed_fixes(fixed, search.path, reports)
    back = _to_original_lines(search.source, fixed)
    by_line: Dict[Tuple[int, str], List] = {}
    for finding in found:
        line = back.get(finding.line)
        if line is None:
            continue
        old = plan.get((line, finding.code), [])
        details = old + [d for d in found_plan[(finding.line, finding.code)] if d not in old]
        if details != old:
            by_line[(line, finding.code)] = details
    if not by_line:
        return [], {}
    # The findings are remade on the original's text, whose lines the plan rewrites.
    return _selected_observations(
        planned_fixes(search.source, search.path, by_line), by_line, select, ignore
    )


def _to_original_lines(original: str, fixed: str) -> Dict[int, int]:
    """{line of `fixed`: the line of `original` it comes from}, for unchanged lines and for
    lines a fix replaced (one for one, or the nearest of a replaced block)."""
    out: Dict[int, int] = {}
    matcher = difflib.SequenceMatcher(
        None, original.splitlines(), fixed.splitlines(), autojunk=False
    )
    for _tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i2 == i1:
            continue  # inserted lines come from no line of the original
        for j in range(j1, j2):
            out[j + 1] = i1 + min(j - j1, i2 - i1 - 1) + 1
    return out


def _changed_fixed_lines(original: str, fixed: str) -> Set[int]:
    """Lines (1-based) of `fixed` that are not an unchanged line of `original`."""
    unchanged = _unchanged_to_original(original, fixed)
    return {n for n in range(1, len(fixed.splitlines()) + 1) if n not in unchanged}


def _unchanged_to_original(original: str, fixed: str) -> Dict[int, int]:
    """{line of `fixed`: the same line of `original`} for the lines the fixes left as they were."""
    out: Dict[int, int] = {}
    matcher = difflib.SequenceMatcher(
        None, original.splitlines(), fixed.splitlines(), autojunk=False
    )
    for tag, i1, i2, j1, _j2 in matcher.get_opcodes():
        if tag == "equal":
            for k in range(i2 - i1):
                out[j1 + k + 1] = i1 + k + 1
    return out


def _one_per_key(findings: Sequence, key: FixIdentity) -> List:
    """The fixes to search over: one per identity, in order."""
    seen: Set[Key] = set()
    out = []
    for finding in findings:
        if key(finding) not in seen:
            seen.add(key(finding))
            out.append(finding)
    return out


_NO_EXAMPLES = "cannot verify without example inputs: "


def _expression_level(
    source, path, candidates, fixer, fix_options, check_options, why: str, key=None, others=()
) -> VerifyOutcome:
    """Verify fixes on their expressions, on generated shapes (see expression.py).

    Fixes whose expressions overlap (an HL011 inside the operands HL007 rewrites, a `-`
    nested in a `/`) are checked together first: one alone cannot make the expression
    hybridize while the other's hazard is still in it. A fix that fails alone where the
    expression holds another hazard (another fix, or a finding of `others`, the original's) is
    not judged by that failure: it is not applied, said so, never "rejected". Names the
    analysis knows to hold Python numbers are fed numbers, and arrays whose shape it knows in
    part (a parameter's declared shape) only such shapes (hybridlint/name_kinds.py)."""
    key = key or FixIdentity(candidates)
    from ..name_kinds import name_kinds
    from .expression import changed_region, line_offsets, verify_expression_fix

    lines = {n for f in candidates for n in range(f.line, f.end_line + 1)}
    numbers_at, shapes_at, sequences_at = name_kinds(source, path, lines)

    def lines_of(findings) -> Iterator[int]:
        return (n for f in findings for n in range(f.line, f.end_line + 1))

    def numbers(findings) -> Set[str]:
        return {name for n in lines_of(findings) for name in numbers_at.get(n, ())}

    def sequences(findings) -> Set[str]:
        return {name for n in lines_of(findings) for name in sequences_at.get(n, ())}

    def shapes(findings) -> Dict[str, tuple]:
        return {k: v for n in lines_of(findings) for k, v in shapes_at.get(n, {}).items()}

    def fixed_with(findings) -> str:
        keys = {key(f) for f in findings}
        return fixer(source, path, accept=lambda f: key(f) in keys, **fix_options).source

    alone = {id(f): fixed_with([f]) for f in candidates}
    regions = {id(f): changed_region(source, alone[id(f)]) for f in candidates}
    offsets = line_offsets(source)
    verdicts: Dict[int, Tuple[EquivalenceReport, str]] = {}
    for group in _overlapping(candidates, regions):
        if len(group) < 2:
            continue
        report = verify_expression_fix(
            source,
            fixed_with(group),
            numbers=numbers(group),
            sequences=sequences(group),
            shapes=shapes(group),
            statements=all(f.fix == "safe" for f in group),
            **check_options,
        )
        if report.ok:
            for finding in group:
                mates = ", ".join(
                    dict.fromkeys(
                        f"{f.code} at {f.line}:{f.col}" for f in group if f is not finding
                    )
                )
                verdicts[id(finding)] = (report, f"together with {mates}")
    kept, rejected, reports, proofs = [], [], [], []
    for finding in candidates:
        together = ""
        if id(finding) in verdicts:
            report, together = verdicts[id(finding)]
        else:
            report = verify_expression_fix(
                source,
                alone[id(finding)],
                numbers=numbers([finding]),
                sequences=sequences([finding]),
                shapes=shapes([finding]),
                statements=finding.fix == "safe",
                **check_options,
            )
            # Another hazard in the expression can make the fixed one fail hybridized, never
            # make the fix fail or differ eagerly: that verdict stays the fix's own (a safe
            # fix it proves wrong must not be applied unverified below).
            if not report.ok and report.status != "cannot_run" and report.stage not in _EAGER:
                hazards = _other_hazards(finding, regions, candidates, others, offsets)
                if hazards:
                    report = EquivalenceReport(
                        "cannot_run",
                        target="<expression>",
                        stage="expression",
                        reason=(
                            "cannot verify without example inputs: the expression also holds "
                            f"{hazards}, which this fix alone does not remove ({report.reason})"
                        ),
                    )
        report.target = f"{path}:{finding.line}:{finding.col} {finding.code}"
        report.runtime_findings = []  # lines of the generated expression block, not the file
        reports.append(report)
        if report.ok:
            kept.append(finding)
            note = report.notes[-1] if report.notes else "expression-level check"
            if together:
                note = f"{together}: {note}"
            proofs.append(
                FixProof(
                    finding, "expression-level", f"proven at expression level only ({why}): {note}"
                )
            )
        elif report.status == "cannot_run" and finding.fix == "safe":
            # no verdict, and the rule promises a safe fix keeps working code working: it is
            # applied as `--fix` applies it, and said to be unverified
            kept.append(finding)
            proofs.append(FixProof(finding, "unchecked", f"{UNCHECKED} ({why}): {report.reason}"))
        elif report.status == "cannot_run":  # no verdict: the unsafe fix is just not proven
            rejected.append(RejectedFix(finding, report))
            # two reasons, said as two: why no example judged it, then why the check without
            # examples could not either (`cannot verify without example inputs: ...`)
            fallback = (report.reason or "").replace(_NO_EXAMPLES, "", 1)
            proofs.append(
                FixProof(
                    finding,
                    "not-run",
                    f"not applied ({why}; checked without example inputs instead, it cannot "
                    f"be: {fallback})",
                )
            )
        else:
            rejected.append(RejectedFix(finding, report))
            proofs.append(
                FixProof(finding, "rejected", f"rejected: {report.reason or report.status}")
            )
    keys = {key(f) for f in kept}
    final = fixer(source, path, accept=lambda f: key(f) in keys, **fix_options)
    return VerifyOutcome(
        final.source,
        list(final.applied),
        rejected,
        list(final.remaining),
        reports,
        "expression-level",
        proofs=_claims_as_written(proofs, final.applied, key),
    )


def _overlapping(candidates: Sequence, regions: Dict[int, Optional[Tuple[int, int]]]) -> List[List]:
    """The candidates in groups whose changed expressions overlap (transitively), in order;
    a fix without a region (not a change inside one expression) is a group of its own."""
    groups: List[List] = []
    spans: List[Tuple[int, int]] = []
    for finding in candidates:
        region = regions[id(finding)]
        joined = None
        if region is not None:
            for index, span in enumerate(spans):
                if region[0] < span[1] and span[0] < region[1]:
                    joined = index
                    break
        if joined is None:
            groups.append([finding])
            spans.append(region if region is not None else (-1, -1))
        else:
            groups[joined].append(finding)
            low, high = spans[joined]
            spans[joined] = (min(low, region[0]), max(high, region[1]))  # type: ignore[index]
    return groups


def _other_hazards(finding, regions, candidates, others, starts: List[int]) -> str:
    """The other findings inside the expression `finding`'s fix changes ("HL001 at 212:40"),
    or "": fixes whose changed expressions overlap it, and findings of `others` (the findings
    of the original source, with or without a fix of their own) whose span lies in it."""
    region = regions[id(finding)]
    if region is None:
        return ""
    inside = []
    for other in candidates:
        span = regions[id(other)]
        if (
            other is not finding
            and span is not None
            and span[0] < region[1]
            and region[0] < span[1]
        ):
            inside.append(other)
    for other in others:
        if other.line >= len(starts) or other.end_line >= len(starts):
            continue
        start = starts[other.line - 1] + other.col - 1
        end = starts[other.end_line - 1] + other.end_col - 1
        if region[0] <= start and end <= region[1]:
            inside.append(other)
    places = {(f.code, f.line, f.col): None for f in inside}  # in order, once each
    places.pop((finding.code, finding.line, finding.col), None)
    return ", ".join(f"{code} at {line}:{col}" for code, line, col in places)


class _Search:
    """Runs candidate fix sets (memoised) and bisects the failing ones."""

    def __init__(
        self,
        source,
        path,
        examples,
        fixer,
        fix_options,
        check_options,
        original_hybridizes: Sequence[bool],
    ):
        self.source, self.path, self.examples = source, path, examples
        self.fixer, self.fix_options, self.check_options = fixer, fix_options, check_options
        self.original_hybridizes = original_hybridizes
        self.reference = source  # what each candidate's eager outputs must equal
        self.rejected: List[RejectedFix] = []
        self.key = FixIdentity()
        self._cache: Dict[FrozenSet[Key], List[EquivalenceReport]] = {}
        self._fixed: Dict[FrozenSet[Key], FixResult] = {}

    def identify(self, findings: Sequence) -> None:
        """Name fixes after the full set `findings` (see FixIdentity); forget what was run
        under other names."""
        self.key = FixIdentity(findings)
        self._cache.clear()
        self._fixed.clear()

    def fix(self, findings: Sequence) -> FixResult:
        keys = frozenset(self.key(f) for f in findings)
        if keys not in self._fixed:
            self._fixed[keys] = self.fixer(
                self.source, self.path, accept=lambda f: self.key(f) in keys, **self.fix_options
            )
        return self._fixed[keys]

    def reports(self, findings: Sequence) -> List[EquivalenceReport]:
        keys = frozenset(self.key(f) for f in findings)
        if keys not in self._cache:
            fixed = self.fix(findings).source
            self._cache[keys] = [
                check_fix(
                    self.reference,
                    fixed,
                    ex.target,
                    ex.specs(),
                    kwargs=ex.kwargs,
                    path=self.path,
                    **self.check_options,
                )
                for ex in self.examples
            ]
        return self._cache[keys]

    def regions(self, finding, findings: Sequence) -> List[Tuple[int, Optional[tuple]]]:
        """Where `finding`'s rewrite stands in the source fixed with all of `findings`: what
        the fix alone changes, found in the whole rewrite; for a fix that cannot be applied
        alone (nested in another fix's rewrite, applied by a later pass), the lines its
        original lines became."""
        fixed = self.fix(findings).source
        alone = self.fix([finding]).source
        if alone != self.source:
            regions = fixed_regions(self.source, alone, fixed)
            if regions:
                return regions
        first, last = finding.line, max(finding.line, finding.end_line)
        lines = _lines_from(self.source, fixed, first, last) or _after_deletion(
            self.source, fixed, first
        )
        return [(n, None) for n in lines]

    def exercised(self, kept: List):
        """Split the kept fixes into those an example ran and the others."""
        if not kept:
            return [], []
        reports = self.reports(kept)
        proven, not_run = [], []
        for finding in kept:
            regions = self.regions(finding, kept)
            if any(exercised(regions, report) for report in reports):
                proven.append(finding)
            else:
                not_run.append(finding)
        return proven, not_run

    def proofs(
        self, proven: Sequence, labels: Sequence[str], reports: Sequence[EquivalenceReport]
    ) -> List[FixProof]:
        """One proof per proven fix, worded from the reports of the source as written."""
        out = []
        for finding in proven:
            regions = self.regions(finding, proven)
            ran = tuple(
                label for label, report in zip(labels, reports) if exercised(regions, report)
            )
            ran = ran or tuple(labels)  # ran in the search's set; coverage moved with a peer
            detail = _proof_detail(ran, [r for label, r in zip(labels, reports) if label in ran])
            out.append(FixProof(finding, "proven", detail + self.deletion(finding), ran))
        return out

    def deletion(self, finding) -> str:
        """`; it deletes line 22 of the original: assert ...` for a fix that only deletes
        lines (an assert on shapes): the written file has no line of it to point at, and the
        notes of three deleted asserts were three identical lines (blind round 11)."""
        old = self.source.splitlines()
        alone = self.fix([finding]).source.splitlines()
        gone: List[int] = []
        for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(
            None, old, alone, autojunk=False
        ).get_opcodes():
            if tag == "delete":
                gone += [i for i in range(i1, i2) if old[i].strip()]
            elif tag != "equal":
                return ""
        if not gone:
            return ""
        where = f"line {gone[0] + 1}" if len(gone) == 1 else f"lines {gone[0] + 1}-{gone[-1] + 1}"
        return f"; it deletes {where} of the original: {old[gone[0]].strip()}"

    def acceptable(self, findings: Sequence) -> Tuple[bool, Optional[EquivalenceReport]]:
        fixed = self.fix(findings).source
        changed: Optional[Set[int]] = None
        for index, report in enumerate(self.reports(findings)):
            if report.status == "equal":
                continue
            if report.status == "hybrid_error" and self._elsewhere(report, fixed, index):
                continue
            if changed is None:
                changed = _changed_fixed_lines(self.source, fixed)
            if report.executed and not (changed & set(report.executed)):
                # This example ran none of the rewritten lines: its failure is its own (a
                # block whose output changes from call to call, one a fix elsewhere in the
                # file cannot reach), and it judges none of these fixes.
                continue
            return False, report
        return True, None

    def _elsewhere(self, report: EquivalenceReport, fixed: str, index: int) -> bool:
        """A hybridize failure the fixes did not cause: the original fails too on that
        example (`index`), at a line the fixes left unchanged, or at a Symbol-less attribute
        or method the original reads as often as the fixed code does (`_kept_hazard`)."""
        if self.original_hybridizes[index] or report.source_line is None:
            return False
        if _kept_hazard(report, self.source, fixed):
            return True
        return _unchanged_line(self.source, fixed, report.source_line.lineno)

    def bisect(self, candidates: List, accepted: List) -> List:
        ok, report = self.acceptable(accepted + candidates)
        if ok:
            return candidates
        if len(candidates) == 1:
            # not acceptable: acceptable() returned the refusing report
            self.rejected.append(RejectedFix(candidates[0], cast(EquivalenceReport, report)))
            return []
        middle = len(candidates) // 2
        left = self.bisect(candidates[:middle], accepted)
        right = self.bisect(candidates[middle:], accepted + left)
        return left + right


def _inferred(source, path, fixer, select, ignore, seed, check_options) -> list:
    """Examples inferred for the blocks of the file, those that hold a fix first (any fix: the
    unsafe ones are what an example lets --verify prove), each with the report of the
    original's run on it. A block with no fix is run too: what fails there hybridized with
    no finding to say so is a run-time finding, as on a configured example."""
    lines = {f.line for f in fixer(source, path, select=select, ignore=ignore, unsafe=True).applied}
    return infer_examples(
        source,
        sorted(lines),
        lambda batch: check_source(source, path, batch, seed=seed, **check_options),
    )


def _proof_detail(ran: Sequence[str], reports: Sequence[EquivalenceReport]) -> str:
    names = ", ".join(ran)
    failing = [r for r in reports if not r.ok]
    if failing:
        where = failing[0].source_line
        return (
            f"proven eagerly by example {names} (original eager == fixed eager); the block "
            f"still fails hybridized elsewhere"
            + (f", at line {where.lineno}" if where else "")
            + " (the original fails hybridized too, maybe at another line)"
        )
    trip = " == exported" if any(r.roundtrip for r in reports) else ""
    diff = max(r.max_abs_diff for r in reports)
    return (
        f"proven by example {names}: original eager == fixed eager == fixed "
        f"hybridized{trip} (max abs diff {diff:.3g})"
    )


def fixed_regions(original: str, alone: str, fixed: str) -> List[Tuple[int, Optional[tuple]]]:
    """What one fix wrote in `fixed` (all fixes applied): (line, (start, end) byte columns of
    the changed part, or None for the whole line). The changed blocks of original->fixed that
    overlap the change original->alone (that fix only); a line replaced one-for-one gets the
    span between the common prefix and suffix of its old and new text."""
    changed: Set[int] = set()
    inserts: Set[int] = set()
    a_lines, f_lines = original.splitlines(), fixed.splitlines()
    expressions = _parents(fixed)
    for tag, i1, i2, _j1, _j2 in difflib.SequenceMatcher(
        None, a_lines, alone.splitlines(), autojunk=False
    ).get_opcodes():
        if tag != "equal":
            (changed.update(range(i1, i2)) if i2 > i1 else inserts.add(i1))
    out: List[Tuple[int, Optional[tuple]]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, a_lines, f_lines, autojunk=False
    ).get_opcodes():
        if tag == "equal" or not (
            changed.intersection(range(i1, i2)) or any(i1 <= a <= i2 for a in inserts)
        ):
            continue
        for j in range(j1, j2):
            span = None
            if i2 - i1 == j2 - j1:
                span = _changed_span(a_lines[i1 + j - j1], f_lines[j])
            out.append((j + 1, span and _enclosing(expressions, j + 1, span)))
    return out


def _parents(source: str):
    """(every AST node, {child: parent}) of `source`, or ([], {}) if it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [], {}
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    return list(ast.walk(tree)), parents


_CONDITIONAL = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _enclosing(tree, line: int, span: tuple) -> Optional[tuple]:
    """Byte columns on `line` of what must have run for the rewrite at `span` to have run:
    the branch of the nearest conditional expression around it (`a if c else b`, the later
    operands of `and`/`or`, a lambda or comprehension), else the statement around it; None
    (use the whole line) when that is not on one line."""
    nodes, parents = tree
    best: Any = None  # an ast.expr (parsed: its end positions are set)
    for node in nodes:
        if not isinstance(node, ast.expr) or node.end_col_offset is None:
            continue
        if (
            node.lineno == node.end_lineno == line
            and node.col_offset <= span[0]
            and span[1] <= node.end_col_offset
            and (
                best is None
                or node.end_col_offset - node.col_offset < best.end_col_offset - best.col_offset
            )
        ):
            best = node
    child, node = best, parents.get(best)
    while best is not None and node is not None:
        conditional = (
            (isinstance(node, ast.IfExp) and child in (node.body, node.orelse))
            or (isinstance(node, ast.BoolOp) and child in node.values[1:])
            or isinstance(node, _CONDITIONAL)
        )
        if conditional or isinstance(node, ast.stmt):
            target = child if conditional else node
            if not isinstance(target, (ast.expr, ast.stmt)):
                # a comprehension's `for ... in ...` (or a lambda's arguments): no position of
                # its own; the comprehension (lambda) as a whole is what ran
                target = node
            if target.lineno == target.end_lineno == line:
                return target.col_offset, target.end_col_offset
            return None
        child, node = node, parents.get(node)
    return None


def _changed_span(old: str, new: str) -> Optional[tuple]:
    a, b = old.encode("utf-8"), new.encode("utf-8")
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    end = len(b) - suffix
    return (prefix, end) if end > prefix else None


def exercised(regions: Sequence[Tuple[int, Optional[tuple]]], report: EquivalenceReport) -> bool:
    """Did the run of `report` execute what the fix wrote? Where instruction positions were
    recorded, an instruction inside the smallest expression holding the rewrite must have run
    (the untaken branch of a one-line `a if c else b` did not; the `return` around it does
    not count); otherwise the line."""
    for line, span in regions:
        if line not in report.executed:
            continue
        if span is None:
            return True
        spans = [(c, e) for (n, c, e) in report.executed_spans if n == line]
        if not spans or any(span[0] <= c and e <= span[1] for c, e in spans):
            return True
    return False


def _lines_from(original: str, fixed: str, first: int, last: int) -> List[int]:
    """The lines (1-based) of `fixed` that lines first..last of `original` became."""
    out: List[int] = []
    matcher = difflib.SequenceMatcher(
        None, original.splitlines(), fixed.splitlines(), autojunk=False
    )
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i1 < last and first - 1 < max(i2, i1 + 1):  # overlaps [first-1, last)
            if tag == "equal":
                lo, hi = max(i1, first - 1), min(i2, last)
                out.extend(j1 + (k - i1) + 1 for k in range(lo, hi))
            else:
                out.extend(range(j1 + 1, j2 + 1))
    return out


def _after_deletion(original: str, fixed: str, line: int) -> List[int]:
    """For a fix that deleted statement `line` (HL001's shape-only assert): a line of `fixed`
    that ran only if control passed where the deleted statement stood: the next statement of
    the same block (same indentation, blank and comment lines passed over); when the deletion
    ended its block, the statement before it in that block, if it is one line that passes
    control on (not a compound header, `return`, `raise`, `break` or `continue`); [] otherwise."""
    a_lines, f_lines = original.splitlines(), fixed.splitlines()
    if not 0 < line <= len(a_lines):
        return []
    indent = len(a_lines[line - 1]) - len(a_lines[line - 1].lstrip())
    matcher = difflib.SequenceMatcher(None, a_lines, f_lines, autojunk=False)
    for tag, i1, i2, j1, _j2 in matcher.get_opcodes():
        if tag == "delete" and i1 <= line - 1 < i2:
            after = _statement_line(f_lines, range(j1, len(f_lines)))
            if after is not None and _indent(f_lines[after]) == indent:
                return [after + 1]
            if after is not None and _indent(f_lines[after]) > indent:
                return []
            before = _statement_line(f_lines, range(j1 - 1, -1, -1))
            if before is None or _indent(f_lines[before]) != indent:
                return []
            text = f_lines[before].strip()
            passes_on = not text.endswith((":", "\\", "(", "[", "{", ",")) and not re.match(
                r"(return|raise|break|continue)\b", text
            )
            return [before + 1] if passes_on else []
    return []


def _statement_line(lines: List[str], indices: Iterable[int]) -> Optional[int]:
    """The first index in `indices` of a line that is neither blank nor a comment."""
    for j in indices:
        text = lines[j].lstrip()
        if text and not text.startswith("#"):
            return j
    return None


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip())


_SYMBOL_LACKS = re.compile(
    r"'Symbol' object has no attribute '(\w+)'|Function (\w+) is not implemented for Symbol"
)


def _kept_hazard(report: EquivalenceReport, original: str, fixed: str) -> bool:
    """Whether the hybridized run failed at an attribute or method a Symbol lacks that the
    failing line reads and the fixes added nowhere (the file reads `.name` no more often
    than the original): a hazard of the original the fixes uncovered on a line they changed
    (MXNetSeg's DiceLoss: `F.multiply(prob, mask.astype(prob.dtype))`, HL015's fix proven
    eagerly, then `.dtype` failing, which has no fix; blind round 13 saw the fix rejected)."""
    found = _SYMBOL_LACKS.search(report.error_message or "")
    if found is None or report.source_line is None:
        return False
    read = re.compile(r"\.\s*" + (found.group(1) or found.group(2)) + r"\b")
    lines = fixed.splitlines()
    number = report.source_line.lineno
    if not 0 < number <= len(lines) or not read.search(lines[number - 1]):
        return False
    return len(read.findall(fixed)) <= len(read.findall(original))


def _unchanged_line(original: str, fixed: str, fixed_lineno: int) -> bool:
    """Is line `fixed_lineno` of `fixed` a line the fixes did not touch?"""
    return fixed_lineno in _unchanged_to_original(original, fixed)
