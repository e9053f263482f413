"""Every rule's VALID / INVALID examples (declared beside each rule's code), one harness.

Lint: an INVALID example is reported at its line with its fix safety, and fixing it with its
rule alone gives its `fixed` text, once and for all; a VALID example is not reported.

Ground truth, on real MXNet 1.9.1 and on the bundled engine. Every block is called twice with
the same inputs, its parameters changed in between (as a training step does): parameter values
frozen into the graph (HL012) and state mutated while tracing (HL013) show only in the second
call. For every INVALID example that runs eagerly (for some input shapes, tried in order):
hybridized it must fail, or give other outputs, or leave the block's own attributes (those it
names as `self.<attr>`, parameters and children aside) in another state; for print, whose harm
is a side effect, it must print `<Symbol ...>` once and then nothing. Where the rule fixes it,
the fixed block must equal the original eager run, eagerly and hybridized. For every VALID
example that runs eagerly and on which no rule reports anything, the hybridized outputs must
agree with the eager ones (outputs only: a VALID example may keep a Symbol on the block by
design). HL010's examples cannot be built by MXNet at all: the original must raise at
construction and the fixed block must equal the original built with the check lifted.
Examples the harness cannot run are skipped, saying why.
"""

import ast
import re

import numpy as np
import pytest

from hybridlint.linter import fix_source, lint_source
from hybridlint.rules import ALL_RULES

from fix_support import children_check_lifted
from ground_truth_support import (
    BACKENDS,
    backend,
    eager_reference,
    list_input,
    net_class,
    prints_once_while_tracing,
    run,
    same,
    settle,
    skip_unless_comparable,
    unused_input,
)

VALID = [
    pytest.param(rule, example, id=f"{rule.code}-valid-{i}")
    for rule in ALL_RULES
    for i, example in enumerate(rule.VALID)
]
INVALID = [
    pytest.param(rule, example, id=f"{rule.code}-invalid-{i}")
    for rule in ALL_RULES
    for i, example in enumerate(rule.INVALID)
]
CHILD_RULE = next(rule for rule in ALL_RULES if rule.code == "HL010")
# Rules whose fixes are about the block's own state: their fixed blocks must also leave the
# attributes as the eager original does (other fixes may drop or re-type an attribute).
STATE_RULES = ("HL012", "HL013")
# Hazards no rule reports yet, found by this harness (a real miss: strict xfail, so the test
# fails once a rule learns it and the entry must go). Keyed by the example text.
KNOWN_MISSES = {
    "F.linalg.slogdet(x)[1] + F.moments(x, axes=0)[0]": "HL007 does not know that slogdet "
    "of a 2-D input gives shape (1,): `(1,) + (2,)` broadcasts eagerly, fails hybridized",
    "return t[0] + t[:, ::2][-1]": "HL003's exact fix leaves `(2,) + (1,)` in a helper, which "
    "HL007 does not see: it broadcasts eagerly and fails hybridized",
}
# Rules whose hazard the harness's two plain calls do not show, and the test that shows it.
SHOWN_ELSEWHERE = {
    "HL016": "the branch differs only when autograd's mode changes between calls "
    "(tests/test_rule_hl016_autograd_mode_branch.py)",
    "HL018": "an input used as a Python value fails only when a caller passes it "
    "(tests/test_rule_hl018_non_array_input_output.py)",
}


def test_rules_are_in_code_order_with_unique_codes_and_examples():
    codes = [rule.code for rule in ALL_RULES]
    assert codes == sorted(codes) and len(set(codes)) == len(codes)
    for rule in ALL_RULES:
        assert rule.name and rule.message, rule.code  # their docs: tests/test_rule_docs.py
        assert rule.VALID and rule.INVALID, rule.code


@pytest.mark.parametrize("rule, example", VALID)
def test_valid_example_has_no_finding(rule, example):
    findings = lint_source(example.code, rules=[rule])
    assert findings == []


@pytest.mark.parametrize("rule, example", INVALID)
def test_invalid_example_is_reported_and_fixed(rule, example):
    findings = lint_source(example.code, rules=[rule])
    assert findings, "expected a finding"
    first = findings[0]
    assert (first.code, first.line) == (rule.code, example.line)
    assert first.fix == example.safety
    result = fix_source(example.code, rules=[rule], unsafe=True)
    if example.fixed is None:
        assert result.source == example.code
        return
    assert result.source == example.fixed
    ast.parse(result.source)
    again = fix_source(result.source, rules=[rule], unsafe=True)
    assert again.source == result.source, "fixing twice changed the source"
    assert not any(f.fix for f in again.remaining), "a fixable finding is left after fixing"


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("rule, example", [p for p in INVALID if p.values[0] is not CHILD_RULE])
def test_invalid_example_really_breaks_and_its_fix_really_works(
    rule, example, name, capsys, request
):
    mx = backend(name)
    mark_known_miss(request, example.code)
    if rule.code in SHOWN_ELSEWHERE:
        pytest.skip(SHOWN_ELSEWHERE[rule.code])
    shapes, attributes, eager = eager_reference(example.code, mx)
    if re.search(r"print\(|log(ging|ger)?\.", example.code):
        if "print(" not in example.code:
            pytest.skip("logging: a side effect the harness does not capture")
        assert prints_once_while_tracing(example.code, mx, shapes, capsys)
    else:
        try:
            hybrid = run(net_class(example.code, mx), mx, shapes, True, attributes)
            broken = not same(hybrid, eager)
        except Exception:  # noqa: BLE001 - failing hybridized is the finding
            settle(mx)
            broken = True
        assert broken, "flagged, but hybridizes with the eager result"
    if example.fixed is None:
        return
    fixed_source = fix_source(example.code, unsafe=True).source
    if list_input(fixed_source):
        pytest.skip("the fix unpacks an input gluon passes as a list; the harness feeds arrays")
    fixed = net_class(fixed_source, mx)
    try:
        hybrid = run(fixed, mx, shapes, True, attributes)
    except Exception:
        settle(mx)
        if unused_input(fixed_source):
            pytest.skip("an input is unused: MXNet's CachedOp then fails on its own")
        raise
    fixed_eager = run(fixed, mx, shapes, False, attributes)
    if example.safety != "safe":  # may compute something else (aliasing, undefined values)
        assert same(hybrid, fixed_eager), "the fixed block differs hybridized from eager"
        return
    state = rule.code in STATE_RULES
    assert same(hybrid, eager, state), "the fixed block, hybridized, computes something else"
    assert same(fixed_eager, eager, state), "the fixed block, eager, computes something else"


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("rule, example", VALID)
def test_valid_example_that_runs_also_hybridizes(rule, example, name, request):
    mx = backend(name)
    mark_known_miss(request, example.code)
    skip_unless_comparable(example.code)
    shapes, _, eager = eager_reference(example.code, mx)
    try:
        hybrid = run(net_class(example.code, mx), mx, shapes, True)
    except Exception:
        settle(mx)
        if unused_input(example.code):
            pytest.skip("an input is unused: MXNet's CachedOp then fails on its own")
        raise
    assert same(hybrid, eager, state=False)


def mark_known_miss(request, code: str) -> None:
    for snippet, reason in KNOWN_MISSES.items():
        if snippet in code:
            request.applymarker(pytest.mark.xfail(strict=True, reason=reason))


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize(
    "example", [pytest.param(e, id=f"HL010-invalid-{i}") for i, e in enumerate(CHILD_RULE.INVALID)]
)
def test_hl010_example_is_refused_by_mxnet_and_its_fix_builds_the_same_model(example, name):
    mx = backend(name)
    original = net_class(example.code, mx)
    with pytest.raises(ValueError, match="Children of HybridBlock must also be HybridBlock"):
        original()
    if example.fixed is None:
        return
    fixed = net_class(fix_source(example.code, rules=[CHILD_RULE], unsafe=True).source, mx)
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, size=(2, 3)))
    with children_check_lifted(mx):
        reference = original()
    reference.initialize()
    expected = reference(x).asnumpy()
    values = {k: p.data() for k, p in reference._collect_params_with_prefix().items()}
    for hybridize in (False, True):
        net = fixed()
        net.initialize()
        net(x)
        for k, p in net._collect_params_with_prefix().items():  # structural names
            p.set_data(values[k])
        if hybridize:
            net.hybridize()
        np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)
