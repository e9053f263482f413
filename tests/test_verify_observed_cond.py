"""A cond predicate the hybridized graph cannot type becomes a fix (HL008), like HL007 does.

GluonNLP's HybridBeamSearchSampler (0.4.1 `sequence_sampler.py:709`, 0.10.0 `:718`) writes
`F.contrib.cond(F.sum(new_beam_alive_mask) == 0, ...)` on an int32 mask. Eagerly cond reads the
predicate as one Python scalar; hybridized, MXNet 1.9.1 types the predicate float32 and fails
dtype inference. No static rule knows the mask's dtype; a run does, and `.astype('float32')` on
the predicate keeps its truth for every integer and bool, so it is a candidate fix, proven like
any other."""

import textwrap

import pytest

from hybridlint.checker import CheckerSession, check_source, examples_from_config, verify_fixes
from hybridlint.checker.dynamic import TraceEvents, events_from_failure
from hybridlint.checker.observed import observed_fixes, rewrite
from hybridlint.checker.report import SourceLine
from hybridlint.ftypes import FixSafety
from tests.checker_support import backend_params

SOURCE = textwrap.dedent("""\
    from mxnet import gluon


    class Step(gluon.HybridBlock):
        def hybrid_forward(self, F, scores, alive):
            finished = F.sum(alive) == 0
            out = F.contrib.cond(finished, lambda: scores * 0, lambda: scores + 1)
            return F.contrib.cond(
                F.sum(alive)
                > 1,
                lambda: out,
                lambda: out * 2,
            )
""")
EXAMPLES = {"net.py::Step": {"inputs": [[2, 3], {"shape": [4], "dtype": "int32", "high": 2}]}}


@pytest.mark.parametrize(
    "message, dtype",
    [
        # MXNet 1.9.1, for an int32 predicate
        (
            "Error in operator step0__cond0: Error in operator step0_identity0: [04:10:09] "
            "../src/io/../operator/elemwise_op_common.h:134: Check failed: assign(&dattr, "
            "vec.at(i)): Incompatible attr in node step0_identity0 at 0-th output: expected "
            "int32, got float32",
            "int32",
        ),
        # the bundled engine
        (
            "Error in operator step1__cond0: cond: the predicate is uint8, MXNet needs it float32 "
            "(Incompatible attr: expected uint8, got float32); cast it with .astype('float32')",
            "uint8",
        ),
    ],
)
def test_a_cond_dtype_error_is_an_observed_predicate(message, dtype):
    events = TraceEvents({"net.py"})
    events_from_failure(RuntimeError(message), SourceLine("net.py", 7, "  x"), events)
    assert [
        (code, message.split("this one is ")[1][: len(dtype)]) for code, message, _ in events.events
    ] == [("HL008", dtype)]


def test_other_dtype_errors_are_not_a_cond_predicate():
    events = TraceEvents({"net.py"})
    message = "Error in operator net0_where0: Incompatible attr: expected float64, got float32"
    events_from_failure(RuntimeError(message), SourceLine("net.py", 7, "  x"), events)
    assert events.events == []


def test_the_predicate_of_the_line_is_cast_whatever_its_shape():
    fixed = rewrite(SOURCE, {(7, "HL008"): ["int32"], (9, "HL008"): ["int32"]})
    assert "F.contrib.cond(finished.astype('float32'), lambda" in fixed
    assert "(F.sum(alive)\n            > 1).astype('float32'),\n" in fixed
    compile(fixed, "net.py", "exec")


def _report(line: int, dtype: str):
    from types import SimpleNamespace

    finding = SimpleNamespace(
        path="net.py",
        line=line,
        code="HL008",
        message="observed at run time while tracing the hybridized graph: a hybridized cond "
        f"needs a float32 predicate, this one is {dtype}: cast it with .astype('float32')",
    )
    return SimpleNamespace(status="hybrid_error", error_message="", runtime_findings=[finding])


def test_a_float64_predicate_is_an_unsafe_fix():
    # float32 keeps the truth of every integer; a float64 below its range would become 0
    (exact,), _ = observed_fixes(SOURCE, "net.py", [_report(7, "int32")])
    (lossy,), _ = observed_fixes(SOURCE, "net.py", [_report(7, "float64")])
    assert (exact.fix, lossy.fix) == (FixSafety.SAFE, FixSafety.UNSAFE)
    assert (exact.line, exact.col, exact.end_col) == (7, 30, 38)


@pytest.mark.parametrize("backend", backend_params())
def test_the_observed_fix_is_proven_by_the_example(backend):
    examples = examples_from_config(EXAMPLES)["net.py"]
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(SOURCE, "net.py", examples, backend=backend, session=session)
    assert "F.contrib.cond(finished.astype('float32'), lambda" in outcome.source, outcome.reports
    assert "> 1).astype('float32')" in outcome.source
    assert [r.status for r in outcome.reports] == ["equal"]
    assert {p.finding.code for p in outcome.proofs} == {"HL008"}
    assert all("proven by example Step" in p.detail for p in outcome.proofs)


@pytest.mark.parametrize("backend", backend_params())
def test_the_cond_implementation_s_own_subscripts_are_not_the_user_s(backend):
    # cond takes `[0]` of its single-output branch graphs: that is not an HL003 of the user's
    examples = examples_from_config(EXAMPLES)["net.py"]
    with CheckerSession(timeout=60) as session:
        (report,) = check_source(SOURCE, "net.py", examples, backend=backend, session=session)
    assert report.status == "hybrid_error"
    assert [(f.code, f.line) for f in report.runtime_findings] == [("HL008", 7)]
