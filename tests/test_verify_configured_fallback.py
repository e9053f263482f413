"""A shape read in a fallback the block's default configuration never takes, taken by an
example's configuration, is fixed as HL001 fixes it where the default takes it.

gluoncv2's DANet (and its other segmentation nets) write `in_size = self.in_size if
self.fixed_size else x.shape[2:]` with `fixed_size=True` by default: HL001 is silent there by
design (the read runs only in a configuration the caller chooses). An example built with
`fixed_size=False` runs it and the hybridized trace fails at that line; `--verify` then lets
the rules see that fallback as taken (hybridlint/checker/configured.py) and proves the fix."""

import textwrap

import pytest

from hybridlint.checker import CheckerSession, examples_from_config, verify_fixes
from hybridlint.checker.configured import taken_fallbacks
from hybridlint.linter import lint_source
from hybridlint.rules.guards import fallbacks_taken
from tests.checker_support import backend_params

_CLASS = """

class {name}(gluon.HybridBlock):
    def __init__(self, in_size=(8, 8), fixed_size=True, **kwargs):
        super().__init__(**kwargs)
        self.in_size = in_size
        self.fixed_size = fixed_size

    def hybrid_forward(self, F, x):
        in_size = self.in_size if self.fixed_size else x.shape[2:]{pre}
        return F.contrib.BilinearResize2D({data}, height=in_size[0], width=in_size[1])
"""
# Net is built with fixed_size=False by the example; Other, the same code, by nobody
SOURCE = (
    "from mxnet import gluon\n"
    + _CLASS.format(name="Net", pre="\n        y = F.relu(x)", data="y")
    + "\n"
    + _CLASS.format(name="Other", pre="", data="x")
)


def _examples(fixed_size: bool):
    table = {"net.py::Net": {"kwargs": {"fixed_size": fixed_size}, "inputs": [[2, 3, 6, 5]]}}
    return examples_from_config(table)["net.py"]


def test_the_default_configuration_keeps_hl001_silent():
    assert [f.code for f in lint_source(SOURCE, "net.py")] == []


@pytest.mark.parametrize("backend", backend_params())
def test_an_example_that_takes_the_fallback_gets_it_fixed_and_proven(backend):
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(
            SOURCE, "net.py", _examples(fixed_size=False), backend=backend, session=session
        )
    assert [r.status for r in outcome.reports] == ["equal"], outcome.reports
    assert (
        "if self.fixed_size else F.contrib.BilinearResize2D(y, like=x, mode='like')"
        in outcome.source
    )
    (proof,) = outcome.proofs
    assert proof.finding.code == "HL001" and proof.finding.line == 11
    assert "proven by example Net" in proof.detail
    # the same fallback in a class no example built that way is left as it was
    assert outcome.source.count("x.shape[2:]") == 1


@pytest.mark.parametrize("backend", backend_params())
def test_an_example_in_the_default_configuration_changes_nothing(backend):
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(
            SOURCE, "net.py", _examples(fixed_size=True), backend=backend, session=session
        )
    assert outcome.source == SOURCE and not outcome.proofs


def test_only_the_conditionals_on_an_observed_line_are_taken():
    class Finding:
        code, path, line = "HL001", "net.py", 11

    class Report:
        runtime_findings = [Finding()]

    assert taken_fallbacks(SOURCE, "net.py", [Report()]) == frozenset(
        {("Net", "self.in_sizeifself.fixed_sizeelsex.shape[2:]")}
    )


BEHIND = textwrap.dedent("""\
    from mxnet import gluon


    class Net(gluon.HybridBlock):
        def __init__(self, in_size=(8, 8), fixed_size=True, out_size=(4, 4), **kwargs):
            super().__init__(**kwargs)
            self.in_size = in_size
            self.fixed_size = fixed_size
            self.out_size = out_size

        def hybrid_forward(self, F, x):
            in_size = self.in_size if self.fixed_size else x.shape[2:]
            y = F.contrib.BilinearResize2D(F.relu(x), height=in_size[0], width=in_size[1])
            out_size = self.out_size if self.out_size is not None else x.shape[2:]
            return F.contrib.BilinearResize2D(y, height=out_size[0], width=out_size[1])
""")


@pytest.mark.parametrize("backend", backend_params())
def test_a_fallback_behind_the_first_failure_is_taken_in_the_next_round(backend):
    # the trace stops at line 12; line 14's read shows once line 12 is fixed
    table = {
        "net.py::Net": {"kwargs": {"fixed_size": False, "out_size": None}, "inputs": [[1, 2, 5, 3]]}
    }
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(
            BEHIND,
            "net.py",
            examples_from_config(table)["net.py"],
            backend=backend,
            session=session,
        )
    assert [r.status for r in outcome.reports] == ["equal"], outcome.reports
    assert "x.shape" not in outcome.source
    assert sorted(p.finding.line for p in outcome.proofs) == [12, 14]


# black's form of a long conditional, a comment inside its parentheses: ast's segment of the
# IfExp ends before them, LibCST's node holds them (its parentheses' whitespace)
COMMENTED = SOURCE.replace(
    "in_size = self.in_size if self.fixed_size else x.shape[2:]\n        y",
    "in_size = (  # the input's own size\n"
    "            self.in_size if self.fixed_size else x.shape[2:]  # when not fixed\n"
    "        )\n        y",
    1,
)


def test_a_comment_inside_the_parentheses_does_not_hide_the_taken_fallback():
    class Finding:
        code, path, line = "HL001", "net.py", 12

    class Report:
        runtime_findings = [Finding()]

    assert COMMENTED != SOURCE
    with fallbacks_taken(taken_fallbacks(COMMENTED, "net.py", [Report()])):
        found = lint_source(COMMENTED, "net.py")
    assert [(f.code, f.line) for f in found] == [("HL001", 12)]


def test_the_findings_memo_of_verify_keys_on_the_taken_fallbacks():
    """`--verify` fixes a text many times inside one SameFindingsMemo (hybridlint/checker_bridge
    .py): a location of its findings made with no fallback taken must not answer a lint that
    takes one, nor the reverse."""
    from hybridlint.linter import SameFindingsMemo, fix_source

    class Finding:
        code, path, line = "HL001", "net.py", 11

    class Report:
        runtime_findings = [Finding()]

    taken = taken_fallbacks(SOURCE, "net.py", [Report()])
    assert taken
    with SameFindingsMemo():
        plain = lint_source(SOURCE, "net.py")
        with fallbacks_taken(taken):
            seen = lint_source(SOURCE, "net.py")
            fixed = fix_source(SOURCE, "net.py", accept=lambda f: True).source
        again = lint_source(SOURCE, "net.py")
    assert plain == again == []
    assert [(f.code, f.line) for f in seen] == [("HL001", 11)]
    assert "x.shape" in fixed.split("class Other")[1] and fixed != SOURCE
