"""The rules' own examples against real MXNet 1.9.1 (the ground truth).

For every INVALID example of HL001-HL004 that runs eagerly: hybridized it must fail or compute
something else (the finding is real); where the rule fixes it safely, the fixed block, eager and
hybridized, must equal the original eager output; an unsafe fix must at least hybridize.
For every VALID example that runs eagerly and on which no rule at all reports anything, the
hybridized block must agree with it (nothing was missed that actually breaks). Examples whose
point is an eager-only branch (they differ by design) or an input that gluon passes as a list
(the harness feeds single arrays) are skipped with that reason.
"""

import re
import inspect

import numpy as np
import pytest

from hybridlint.linter import fix_source, lint_source
from hybridlint.rules import ALL_RULES

MY_RULES = [rule for rule in ALL_RULES if rule.code in ("HL001", "HL002", "HL003", "HL004")]
INVALID = [
    pytest.param(rule, example, id=f"{rule.code}-invalid-{i}")
    for rule in MY_RULES
    for i, example in enumerate(rule.INVALID)
]
VALID = [
    pytest.param(rule, example, id=f"{rule.code}-valid-{i}")
    for rule in MY_RULES
    for i, example in enumerate(rule.VALID)
]
SHAPE = (2, 3, 4)


def run_block(source: str, mx, hybridize: bool):
    namespace = {"HybridBlock": mx.gluon.HybridBlock, "mx": mx, "nd": mx.nd, "nn": mx.gluon.nn}
    exec(compile(source, "<example>", "exec"), namespace)
    net = namespace["Net"]()
    mx.random.seed(0)  # the same initial weights in every run of a block
    net.initialize()
    params = inspect.signature(net.hybrid_forward).parameters
    names = [
        n
        for n, p in list(params.items())[1:]
        if p.default is inspect.Parameter.empty
        and p.kind == p.POSITIONAL_OR_KEYWORD
        and n not in net._reg_params
    ]
    rng = np.random.RandomState(0)
    arrays = [mx.nd.array(rng.uniform(1, 2, SHAPE)) for _ in names]
    if hybridize:
        net.hybridize()
    out = net(*arrays)
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [o.asnumpy() for o in outs]


def same(a, b) -> bool:
    return len(a) == len(b) and all(x.shape == y.shape and np.allclose(x, y) for x, y in zip(a, b))


@pytest.mark.mxnet
@pytest.mark.parametrize("rule, example", INVALID)
def test_invalid_examples_really_break_and_fixes_really_work(rule, example):
    mx = pytest.importorskip("mxnet")
    try:
        eager = run_block(example.code, mx, hybridize=False)
    except Exception:
        pytest.skip("the example does not run eagerly as written (a fragment)")
    try:
        hybrid = run_block(example.code, mx, hybridize=True)
        broken = not same(eager, hybrid)
    except Exception:
        broken = True
    assert broken, "flagged, but hybridizes with the eager result"
    if example.fixed is not None:
        fixed = fix_source(example.code, rules=[rule], unsafe=True).source
        hybrid_fixed = run_block(fixed, mx, hybridize=True)
        if example.safety == "safe":
            assert same(hybrid_fixed, eager)
            assert same(run_block(fixed, mx, hybridize=False), eager)


@pytest.mark.mxnet
@pytest.mark.parametrize("rule, example", VALID)
def test_valid_examples_that_run_also_hybridize(rule, example):
    mx = pytest.importorskip("mxnet")
    if "class Net" not in example.code or lint_source(re.sub(r"#.*", "", example.code)):
        pytest.skip(
            "not a complete block, or some rule reports it (suppressed or another rule's hazard)"
        )
    if re.search(r"isinstance\(|F is |F == ", example.code):
        pytest.skip("eager-only branch: differs from the hybridized run by design")
    if re.search(r"def hybrid_forward\(self, F, [^)]*(state|hidden|cache|mem)", example.code):
        pytest.skip("an input gluon passes as a list; the harness feeds single arrays")
    if "gluon may pass" in example.code:
        pytest.skip(
            "an input nothing proves an array is not reported (it may be a list); the harness feeds arrays"
        )
    if re.search(r"def hybridize\(|use_np|F\.np\.", example.code):
        pytest.skip(
            "a block that refuses hybridize() or runs in numpy mode: not legacy hybridizable code"
        )
    try:
        eager = run_block(example.code, mx, hybridize=False)
    except Exception:
        pytest.skip("the example does not run eagerly as written (a fragment)")
    assert same(run_block(example.code, mx, hybridize=True), eager)
