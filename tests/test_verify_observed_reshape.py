"""A varargs reshape the trace observes becomes a fix (HL011), like HL007 and HL003 do.

gluonnlp's CacheCell gets its arrays from `super(lm_model.__class__, lm_model).hybrid_forward`
(static analysis cannot tell them from anything else) and writes `encoder_hs[-1].reshape(-3,
-2)`: hybridized, MXNet binds -2 to Reshape's `reverse` and raises. With that evidence the
rewrite `.reshape((-3, -2))` is exact (NDArray takes both forms the same way), so it is a
candidate fix, proven like any other."""

import textwrap

import pytest

from hybridlint.checker import CheckerSession, examples_from_config, verify_fixes
from hybridlint.checker.dynamic import TraceEvents, events_from_failure
from hybridlint.checker.observed import rewrite
from hybridlint.checker.report import SourceLine
from tests.checker_support import backend_params

SOURCE = textwrap.dedent("""\
    from mxnet import gluon


    class Base(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x), x


    class Net(Base):
        def hybrid_forward(self, F, x):
            out, _ = super(Net, self).hybrid_forward(F, x)
            return out.reshape(-1, 4) * 2 + out.reshape(2, -1, keep_highest=False).sum()
""")


@pytest.mark.parametrize(
    "message",
    [
        # MXNet 1.9.1 and the bundled engine, for `sym.reshape(-3, -2)`
        "Invalid Parameter format for reverse expect boolean but value='-2', in operator "
        'Reshape(name="", reverse="-2", shape="-3")',
        "Operator Reshape: invalid value -2 for parameter 'reverse': expect boolean",
    ],
)
def test_a_reshape_parameter_error_is_an_observed_varargs_reshape(message):
    events = TraceEvents({"net.py"})
    events_from_failure(RuntimeError(message), SourceLine("net.py", 12, "  x"), events)
    assert [code for code, *_ in events.events] == ["HL011"]


def test_only_a_varargs_reshape_of_the_line_is_rewritten():
    line = SOURCE.splitlines().index(
        "        return out.reshape(-1, 4) * 2 + out.reshape(2, -1, keep_highest=False).sum()"
    )
    fixed = rewrite(SOURCE, {(line + 1, "HL011"): [None]})
    assert "out.reshape((-1, 4)) * 2 + out.reshape(2, -1, keep_highest=False)" in fixed


@pytest.mark.parametrize("backend", backend_params())
def test_the_observed_fix_is_proven_by_the_example(backend):
    source = SOURCE.replace(" + out.reshape(2, -1, keep_highest=False).sum()", "")
    examples = examples_from_config({"net.py::Net": {"inputs": [[2, 3, 4]]}})["net.py"]
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(source, "net.py", examples, backend=backend, session=session)
    assert "out.reshape((-1, 4)) * 2" in outcome.source, outcome.reports
    assert [r.status for r in outcome.reports] == ["equal"]
    (proof,) = outcome.proofs
    assert proof.finding.code == "HL011" and "proven by example Net" in proof.detail
