"""The checks the worker runs: one block (eager vs hybridized) or one fix (original vs fixed).

A job is a plain dict (it crosses a process boundary); the answer is an EquivalenceReport.
Every exception of user code is caught here and classified by the stage it happened in.
"""

from __future__ import annotations

import contextlib
import errno
import re
import sys
import threading
import traceback
import types
from typing import Any, Callable, Dict, List, Optional, Set

from . import boundary, execute
from .dynamic import TraceEvents, events_from_failure, failure_line, to_findings, watch_symbols
from .inputs import make_arrays, to_spec
from .loader import BackendUnavailable, backend, load_source
from .report import (
    FEWER_CALLS,
    EquivalenceReport,
    Status,
    compare_arrays,
    compare_calls,
    first_difference,
)

# MXNet 1.9.1 (and the engine) raise this when a HybridBlock gets a non-hybrid child: the
# hazard HL010 reports, at construction time rather than at hybridize().
HYBRID_CHILD = "Children of HybridBlock must also be HybridBlock"
# "module 'hybridlint.engine.ndarray' has no attribute 'sum'": an op the engine lacks.
_ENGINE_MODULE_GAP = re.compile(r"module 'hybridlint\.engine[\w.]*' has no attribute")


class Failed(Exception):
    """Carries a finished report out of a stage."""

    def __init__(self, report: EquivalenceReport):
        super().__init__(report.reason)
        self.report = report


def run_job(job: Dict[str, Any]) -> EquivalenceReport:
    """Run one job dict and always return a report (never raise for user-code problems)."""
    base = dict(target=job.get("label") or job.get("target", ""), backend=job["backend"])
    try:
        with backend(job["backend"]) as mx:
            if job["kind"] == "block":
                return _block_job(mx, job, base)
            if job["kind"] == "fix":
                return _fix_job(mx, job, base)
            raise ValueError(f"unknown job kind {job['kind']!r}")
    except Failed as failed:
        return failed.report
    except BackendUnavailable as exc:
        return EquivalenceReport("cannot_run", stage="backend", reason=str(exc), **base)


@contextlib.contextmanager
def executed_lines(filename: str, lines: Set[int], spans: Optional[Set] = None):
    """Record what of `filename` runs inside the block (sys.settrace): the lines, and with
    `spans` the (line, col, end_col) of every bytecode instruction executed (Python 3.11+
    positions, opcode events), so a rewrite in the branch of a one-line `a if c else b` that
    did not run does not count as run. Frames of other files are not traced."""
    positions: dict = {}

    def local(frame, event, arg):
        if event == "line":
            lines.add(frame.f_lineno)
        elif event == "opcode":
            code = frame.f_code
            table = positions.get(code)
            if table is None:
                table = positions[code] = list(code.co_positions())
            index = frame.f_lasti // 2
            if 0 <= index < len(table):
                line, end_line, col, end_col = table[index]
                if line is not None and line == end_line and col is not None:
                    spans.add((line, col, end_col))
        return local

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != filename:
            return None
        lines.add(frame.f_lineno)
        if spans is not None and hasattr(frame.f_code, "co_positions"):
            frame.f_trace_opcodes = True
        return local

    previous = sys.gettrace()
    sys.settrace(tracer)
    threading.settrace(tracer)
    try:
        yield lines
    finally:
        sys.settrace(previous)
        threading.settrace(previous)  # type: ignore[arg-type]  # None (no tracer) is valid


def _mkldnn_hint(message: str) -> Optional[str]:
    """What to say of a failure inside MXNet's MKL-DNN kernels: MXNet 1.9.1 fails or drifts
    on views of parameters (a sliced convolution weight: "The size of NDArray doesn't match
    the requested MKLDNN memory desc" at a second call, blind round 15's CondConv), in the
    original as in a fix. Not turned off for the user: its RNN layers fail without it."""
    if "mkldnn" not in message.lower():
        return None
    return (
        "a failure inside MXNet's MKL-DNN kernels, not of the rewrite; MXNET_MKLDNN_ENABLED=0 "
        "runs MXNet's reference kernels, but MXNet 1.9.1's RNN layers fail without MKL-DNN"
    )


def _stage(
    status: Status,
    stage: str,
    base: dict,
    user_files: Set[str],
    events: Optional[TraceEvents] = None,
    calls: Optional["CallIndex"] = None,
) -> Callable[[BaseException], Failed]:
    """Build the Failed for an exception raised in `stage`, classifying environment problems.
    With `calls`, a failure after the first call of a sequence says which call it was."""

    def fail(exc: BaseException) -> Failed:
        where = failure_line(exc, user_files, events.node_lines if events else None)
        reason, final = _environment_reason(exc), status
        if reason is not None:
            final = "cannot_run"
        elif stage == "build" and HYBRID_CHILD in str(exc):
            final = "hybrid_error"  # HL010: MXNet refuses a non-hybrid child at build time
        else:
            prefix, message = f"{type(exc).__name__}: ", _first_line(exc)
            if message.startswith(prefix):  # "MXNetError: MXNetError: ..." once only
                message = message[len(prefix) :]
            at = calls.describe() if calls is not None else ""
            reason = f"{stage} failed{at}: {prefix}{message}"
            what = boundary.hint(exc) or _mkldnn_hint(message)
            if what:
                reason += f" ({what})"
            if where is not None:
                reason += f" (at {where})"
        findings = []
        if events is not None:
            events_from_failure(exc, where, events)
            findings = _findings(events)
        return Failed(
            EquivalenceReport(
                final,
                stage=stage,
                error_type=type(exc).__name__,
                error_message=str(exc)[:4000],
                source_line=where,
                reason=reason,
                runtime_findings=findings,
                **base,
            )
        )

    return fail


def _is_engine_gap(exc: Optional[BaseException]) -> bool:
    """An engine gap (`hybridlint.engine.base.EngineGap`), or an error raised `from` one:
    recognised by type, never by message text. Without the engine imported none was raised."""
    base = sys.modules.get("hybridlint.engine.base")
    while exc is not None and base is not None:
        if isinstance(exc, base.EngineGap):
            return True
        exc = exc.__cause__
    return False


def _environment_reason(exc: BaseException) -> Optional[str]:
    """Problems that say nothing about the code's equivalence: the checker cannot run it."""
    if isinstance(exc, SystemExit):
        return f"user code called sys.exit({exc.code!r})"
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted"
    if isinstance(exc, MemoryError):
        return "user code ran out of memory (worker memory limit)"
    if isinstance(exc, OSError) and exc.errno == errno.EFBIG:
        return "user code exceeded the file-size limit (a file it wrote grew too large)"
    if isinstance(exc, RecursionError):
        return "user code exceeded the recursion limit"
    if isinstance(exc, ImportError):
        return f"missing import: {exc}"
    if _is_engine_gap(exc):
        return f"cannot verify on the engine: {exc} (run it on MXNet: --backend mxnet)"
    if isinstance(exc, AttributeError) and _ENGINE_MODULE_GAP.search(str(exc)):
        return (
            f"cannot verify on the engine: it lacks {exc} (an engine gap, not a verdict "
            "on the code; run it on MXNet: --backend mxnet)"
        )
    if isinstance(exc, BackendUnavailable):
        return str(exc)
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if not lines:
        return ""
    # MXNet's messages start with a stack-trace header; the useful part is the last line.
    best = next((ln for ln in lines if "Check failed" in ln or "Error in operator" in ln), lines[0])
    # "[04:28:02] ../src/operator/x.h:134: Check failed: ..." -> "Check failed: ..."
    best = re.sub(r"\[\d\d:\d\d:\d\d\] \S+:\d+: ", "", best.strip())
    return best.replace("MXNetError: MXNetError: ", "MXNetError: ")[:500]


def _findings(events: TraceEvents) -> list:
    try:
        return to_findings(events)
    except ImportError:  # linter not importable: keep the report itself
        return []


def _load(mx, source: str, filename: str, target: str, status: Status, stage: str, base: dict):
    files = {filename}
    try:
        module = load_source(source, filename)
        return execute.resolve(module, target)
    except BaseException as exc:  # user code may raise anything, even SystemExit
        # Failed is the verdict, carrying exc in its report (not chained: see _is_engine_gap)
        raise _stage(status, stage, base, files)(exc)  # noqa: B904


def _run(fn: Callable[[], Any], fail: Callable[[BaseException], Failed]) -> Any:
    try:
        return fn()
    except BaseException as exc:
        raise fail(exc)  # noqa: B904  (as in _load)


class CallIndex:
    """Which call of a sequence is running (execute.call_sequence reports it)."""

    def __init__(self) -> None:
        self.index = 0

    def __call__(self, index: int) -> None:
        self.index = index

    def describe(self) -> str:
        return f" at call {self.index + 1} of {execute.CALLS}" if self.index else ""


def _reference_calls(
    mx,
    block,
    arrays: List,
    seed: int,
    calls: CallIndex,
    fail: Callable[[BaseException], Failed],
    base: dict,
    fresh: bool = True,
) -> list:
    """The outputs the others are compared with: CALLS seeded calls of the eager reference.

    A reference that raises at a later call, not the first, is compared on the calls before
    it, said in `base`'s notes: an eager block that cannot be called twice (MXNet's
    autograd.Function allows one call per instance) fails so in plain eager use too,
    whatever hybridize does, and the hybridized question still has an answer. Only when the
    others run on `fresh` instances: a live block is hybridized as it is, its state spent by
    that eager call, and its hybridized failure would be blamed on hybridize."""
    outputs: list = []
    try:
        execute.call_sequence(mx, block, arrays, seed, calls, into=outputs)
    except BaseException as exc:
        if not outputs or not fresh or _environment_reason(exc) is not None:
            raise fail(exc)  # noqa: B904  (as in _run)
        base["notes"] = [
            *base.get("notes", []),
            f"{FEWER_CALLS} the original's eager call {len(outputs) + 1}, which raised "
            f"{type(exc).__name__}: {_first_line(exc)}",
        ]
    return outputs


def _at_call(index: int) -> str:
    """Where a call-for-call comparison differs, when it is not the first call."""
    if index <= 0:
        return ""
    return (
        f" at call {index + 1} of {execute.CALLS} (the first call agrees: the outputs change "
        "from call to call, e.g. state the block keeps on self, which hybridized code "
        "updates only while tracing)"
    )


def _run_hybridized(
    mx,
    block,
    arrays: List,
    events: TraceEvents,
    fail: Callable[[BaseException], Failed],
    seed: int,
    calls: CallIndex,
    count: int,
) -> Any:
    """Hybridize `block` and call it (a seeded sequence of `count` calls), recording the
    symbols user code builds into `events`."""

    frames: List[types.FrameType] = []

    def hybrid_calls():
        block.hybridize()
        with watch_symbols(mx, events), forward_frames(block, events.user_files, frames):
            return execute.call_sequence(mx, block, arrays, seed, calls, count)

    def fail_at_return(exc: BaseException) -> Failed:
        boundary.explain(exc, block, arrays, events.user_files)
        if _is_output_error(exc, events.user_files) and frames:
            # the graph's outputs are grouped after hybrid_forward returned: no user frame
            # is left in the traceback; the line it returned from is where they came from
            frame = frames[-1]
            exc.source_line = (frame.f_code.co_filename, frame.f_lineno)  # type: ignore[attr-defined]
        return fail(exc)

    return _run(hybrid_calls, fail_at_return)


# MXNet 1.9.1's symbol.Group (and the engine's) when hybrid_forward returns None among its
# outputs: the hybridized graph cannot have it as an output.
_NOT_SYMBOLS = "Expected a list of symbols as input"


def _is_output_error(exc: BaseException, user_files: Set[str]) -> bool:
    """The hybridized call failed grouping what the block returned, outside user code."""
    if not isinstance(exc, TypeError) or _NOT_SYMBOLS not in str(exc):
        return False
    frames = traceback.walk_tb(exc.__traceback__)
    return all(f.f_code.co_filename not in user_files for f, _ in frames)


@contextlib.contextmanager
def forward_frames(block: Any, user_files: Set[str], frames: List[types.FrameType]):
    """Keep the frames of `block`'s own `hybrid_forward` (a user function) as its calls start:
    once a call returned, its frame's f_lineno is the line it returned from. Only call events
    are looked at (no line tracing); a tracer already set (executed_lines) keeps running."""
    code = getattr(getattr(type(block), "hybrid_forward", None), "__code__", None)
    if code is None or code.co_filename not in user_files:
        yield
        return
    previous = sys.gettrace()

    def tracer(frame, event, arg):
        if event == "call" and frame.f_code is code:
            frames[:] = [frame]
        return previous(frame, event, arg) if previous is not None else None

    sys.settrace(tracer)
    try:
        yield
    finally:
        sys.settrace(previous)


def _probe(mx, block, arrays: List, seed: int) -> None:
    """One seeded call on an instance used only to learn its parameters (deferred shapes)."""
    execute.seed_everything(mx, seed)
    execute.call(mx, block, arrays)


def _initial_values(mx, make_block, arrays, seed, build_fail, eager_fail):
    """(instance not called yet, the parameter values every compared instance starts from,
    pending names, whether the instance must be given those values).

    Values known right after construction are read from that instance before any call. A
    block with parameters waiting for their shapes is called once on a probe instance (its
    state is then spent: a fresh one is built), so that every compared instance starts from
    set values and none draws random numbers for its initialisation inside its first call:
    the seeded random ops of its calls then draw the same numbers in each.
    """
    block = _run(make_block, build_fail)
    values, pending = execute.param_values(block)
    if not pending:
        return block, values, pending, False
    _run(lambda: _probe(mx, block, arrays, seed), eager_fail)
    values, pending = execute.param_values(block)
    return _run(make_block, build_fail), values, pending, True


def check_built_block(
    mx: types.ModuleType,
    make_block: Callable[[], Any],
    arrays: List,
    base: dict,
    user_files: Set[str],
    rtol: float,
    atol: float,
    roundtrip: bool = True,
    seed: int = 0,
    fresh: bool = True,
) -> EquivalenceReport:
    """Eager vs hybridized (vs exported) for one block; shared by file jobs and forked checks.

    With `fresh` (make_block builds a new instance each time), the eager and the hybridized
    run each get their own instance, with the same parameter values, and the same seeded
    sequence of calls, compared call for call. A live block (not `fresh`) is one instance:
    called eagerly, then hybridized.
    """
    build_fail = _stage("cannot_run", "build", base, user_files)
    calls = CallIndex()
    eager_fail = _stage("eager_error", "eager", base, user_files, calls=calls)
    load_fail = _stage("cannot_run", "set parameters", base, user_files)
    if fresh:
        block, values, pending, load = _initial_values(
            mx, make_block, arrays, seed, build_fail, eager_fail
        )
        if load:
            _run(lambda: execute.load_params(mx, block, values), load_fail)
    else:
        block = _run(make_block, build_fail)
    base = dict(base)
    eager = _reference_calls(mx, block, arrays, seed, calls, eager_fail, base, fresh)
    if fresh:
        block = _run(make_block, build_fail)
        _run(lambda: execute.load_params(mx, block, values), load_fail)
    events = TraceEvents(user_files)
    hybrid_fail = _stage("hybrid_error", "hybridize", base, user_files, events, calls)
    hybrid = _run_hybridized(mx, block, arrays, events, hybrid_fail, seed, calls, len(eager))
    diffs, at = compare_calls(eager, hybrid, rtol, atol)
    findings = _findings(events)
    if at >= 0:
        return EquivalenceReport(
            "mismatch",
            outputs=diffs,
            stage="hybridize",
            reason=f"hybridized differs from eager{_at_call(at)}: {first_difference(diffs)}",
            runtime_findings=findings,
            **base,
        )
    trip = []
    if roundtrip and isinstance(block, mx.gluon.HybridBlock) and _exports_its_outputs(mx, block):
        exported = _run(
            lambda: execute.export_roundtrip(mx, block, arrays, seed),
            _stage("hybrid_error", "export", base, user_files),
        )
        trip = compare_arrays(eager[0], exported, rtol, atol)
        if not all(d.equal for d in trip):
            return EquivalenceReport(
                "mismatch",
                outputs=diffs,
                roundtrip=trip,
                stage="export",
                reason="export -> SymbolBlock.imports differs from eager: "
                f"{first_difference(trip)}",
                runtime_findings=findings,
                **base,
            )
    return EquivalenceReport(
        "equal", outputs=diffs, roundtrip=trip, runtime_findings=findings, **base
    )


def _block_job(mx, job: dict, base: dict) -> EquivalenceReport:
    filename = job["filename"]
    factory = _load(mx, job["source"], filename, job["target"], "cannot_run", "load", base)
    arrays = make_arrays([to_spec(s) for s in job["inputs"]], job["seed"])
    return check_built_block(
        mx,
        lambda: execute.build(mx, factory, job.get("kwargs") or {}, job["seed"]),
        arrays,
        base,
        {filename},
        job["rtol"],
        job["atol"],
        job.get("roundtrip", True),
        job["seed"],
    )


def _fix_job(mx, job: dict, base: dict) -> EquivalenceReport:
    """Original eager vs fixed eager vs fixed hybridized: three fresh instances with the same
    parameter values (the original's, matched by name), each called the same seeded sequence
    of calls, compared call for call."""
    filename, fixed_name = job["filename"], job["filename"] + " [fixed]"
    kwargs, seed, rtol, atol = job.get("kwargs") or {}, job["seed"], job["rtol"], job["atol"]
    base = dict(base, comparison="original eager vs fixed")
    arrays = make_arrays([to_spec(s) for s in job["inputs"]], seed)
    orig_files, fixed_files = {filename}, {fixed_name}
    calls = CallIndex()

    factory = _load(
        mx, job["original"], filename, job["target"], "cannot_run", "load original", base
    )
    original, values, pending, load = _initial_values(
        mx,
        lambda: execute.build(mx, factory, kwargs, seed),
        arrays,
        seed,
        _stage("cannot_run", "build original", base, orig_files),
        _stage("cannot_run", "original eager", base, orig_files, calls=calls),
    )
    if load:
        _run(
            lambda: execute.load_params(mx, original, values),
            _stage("cannot_run", "set parameters", base, orig_files),
        )
    reference = _reference_calls(
        mx,
        original,
        arrays,
        seed,
        calls,
        _stage("cannot_run", "original eager", base, orig_files, calls=calls),
        base,
    )

    fixed_factory = _load(
        mx, job["fixed"], fixed_name, job["target"], "eager_error", "load fixed", base
    )
    build_fail = _stage("eager_error", "build fixed", base, fixed_files)
    eager_fail = _stage("eager_error", "fixed eager", base, fixed_files, calls=calls)
    copy_fail = _stage("cannot_run", "copy parameters", base, fixed_files)

    def make_fixed():
        return execute.build(mx, fixed_factory, kwargs, seed)

    def fresh_fixed():
        """A new fixed instance holding the original's parameter values."""
        block = _run(make_fixed, build_fail)
        _run(lambda: execute.load_params(mx, block, assign), copy_fail)
        return block

    ran: Set[int] = set()
    spans: Set = set()
    with executed_lines(fixed_name, ran, spans):
        fixed = _run(make_fixed, build_fail)
        assign, notes, complete = execute.plan_params(values, fixed, pending)
        if not complete:  # a parameter only the fix has, its shape set by the first call
            _run(lambda: _probe(mx, fixed, arrays, seed), eager_fail)
            assign, notes, _ = execute.plan_params(values, fixed, pending)
        fixed = fresh_fixed()
        fixed_eager = _run(
            lambda: execute.call_sequence(mx, fixed, arrays, seed, calls, len(reference)),
            eager_fail,
        )
    base = dict(base, notes=[*base.get("notes", []), *notes])
    diffs, at = compare_calls(reference, fixed_eager, rtol, atol)
    if at >= 0:
        return EquivalenceReport(
            "mismatch",
            outputs=diffs,
            stage="fixed eager",
            reason=f"the fix changes eager outputs{_at_call(at)}: {first_difference(diffs)}",
            executed=frozenset(ran),
            executed_spans=frozenset(spans),
            **base,
        )
    try:
        with executed_lines(fixed_name, ran, spans):
            report = _fixed_hybrid(
                mx,
                fresh_fixed(),
                reference,
                arrays,
                base,
                fixed_files,
                rtol,
                atol,
                job.get("roundtrip", True),
                seed,
            )
    except Failed as failed:
        report = failed.report
    report.executed, report.executed_spans = frozenset(ran), frozenset(spans)
    return report


def _exports_its_outputs(mx, block) -> bool:
    """Whether `export` writes the graph of what calling `block` returns. A user's class that
    overrides `forward` or `__call__` (ClusterNorm: `out, means, vars = super().forward(x)`,
    then returns `out`) may post-process the graph's outputs in Python, which an export cannot
    hold: its imported graph is hybrid_forward's, not the block's, so the round trip is not
    compared. Gluon's own overrides (recurrent cells count their calls, RNN layers fill
    default states) are not such post-processing: their blocks are compared as before."""
    for name in ("forward", "__call__"):
        owner = next(k for k in type(block).__mro__ if name in vars(k))
        if owner.__module__.split(".")[0] not in ("mxnet", "hybridlint"):
            return False
    return True


def _fixed_hybrid(
    mx, fixed, reference, arrays, base, files, rtol, atol, roundtrip: bool, seed: int
) -> EquivalenceReport:
    base = dict(base, comparison="original eager vs fixed hybridized")
    events = TraceEvents(files)
    calls = CallIndex()
    hybrid = _run_hybridized(
        mx,
        fixed,
        arrays,
        events,
        _stage("hybrid_error", "fixed hybridize", base, files, events, calls),
        seed,
        calls,
        len(reference),
    )
    diffs, at = compare_calls(reference, hybrid, rtol, atol)
    if at >= 0:
        return EquivalenceReport(
            "mismatch",
            outputs=diffs,
            stage="fixed hybridize",
            reason="the fixed block hybridized differs from the original"
            f"{_at_call(at)}: {first_difference(diffs)}",
            runtime_findings=_findings(events),
            **base,
        )
    trip = []
    if roundtrip and isinstance(fixed, mx.gluon.HybridBlock) and _exports_its_outputs(mx, fixed):
        exported = _run(
            lambda: execute.export_roundtrip(mx, fixed, arrays, seed),
            _stage("hybrid_error", "fixed export", base, files),
        )
        trip = compare_arrays(reference[0], exported, rtol, atol)
        if not all(d.equal for d in trip):
            return EquivalenceReport(
                "mismatch",
                outputs=diffs,
                roundtrip=trip,
                stage="fixed export",
                reason=f"export -> imports differs: {first_difference(trip)}",
                **base,
            )
    return EquivalenceReport("equal", outputs=diffs, roundtrip=trip, **base)
