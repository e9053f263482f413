"""The HL011+ examples against real MXNet 1.9.1 (the ground truth) and the engine.

Every block is called twice with the same inputs, eagerly and hybridized, its parameters
changed in between (as a training step does): state mutated while tracing (HL013) and
parameter values frozen into the graph (HL012) show only in the second call, when the
hybridized block no longer runs the Python body. For every INVALID example that runs eagerly (for some input
shapes, tried in order): hybridized it must fail, or give other outputs, or leave the block's own
attributes (those the example names as `self.<attr>`, parameters and children aside) in
another state; where the rule fixes it, the fixed block must equal the original eager run,
eagerly and hybridized. For every VALID example that runs eagerly and on which no rule reports
anything, the hybridized block's outputs must agree with it (outputs only: HL013's VALID
examples include a tensor kept on the block for a lambda child, a Symbol by design). Examples
that do not run eagerly as written are skipped, saying so.
"""

import itertools
import re

import numpy as np
import pytest

from hybridlint.linter import fix_source
from hybridlint.rules import ALL_RULES

from ground_truth_support import (
    BACKENDS,
    backend,
    input_count,
    net_class,
    settle,
    skip_unless_comparable,
)

MY_RULES = [rule for rule in ALL_RULES if "HL011" <= rule.code <= "HL014"]
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
SHAPES = [(2, 3), (3, 4), (2, 3, 4), (3,), (2, 4), (4, 3)]


def _plain(value, mx):
    """A block attribute as comparable data (arrays by value, Symbols by kind)."""
    if isinstance(value, mx.nd.NDArray):
        return ("array", value.asnumpy().tolist())
    if isinstance(value, mx.sym.Symbol):
        return ("symbol",)
    if isinstance(value, (list, tuple)):
        return [_plain(v, mx) for v in value]
    if isinstance(value, (int, float, str, bool, type(None))):
        return value
    return type(value).__name__


def run(klass, mx, shapes, hybridize: bool, attributes=()):
    """Outputs of two calls with the same inputs (parameters + 1 in between) and the named
    attributes afterwards."""
    net = klass()
    mx.random.seed(0)  # the same parameter values in every run (original, fixed, hybridized)
    net.initialize()
    if hybridize:
        net.hybridize()
    rng = np.random.RandomState(0)
    inputs = [mx.nd.array(rng.randint(1, 4, size=s).astype("float32")) for s in shapes]
    outputs = []
    for call in range(2):
        out = net(*inputs)
        outputs += [o.asnumpy() for o in (out if isinstance(out, (list, tuple)) else [out])]
        if call == 0:  # a training step: a value frozen into the graph at tracing goes stale
            for param in net.collect_params().values():
                param.set_data(param.data() + 1)
    state = {name: _plain(getattr(net, name, None), mx) for name in attributes}
    return outputs, state


def state_attributes(source: str, klass) -> list:
    """`self.<attr>` names of the example that are neither parameters nor children."""
    net = klass()
    names = sorted(set(re.findall(r"self\.(\w+)", source)))
    return [
        n
        for n in names
        if n not in net._reg_params
        and n not in net._children
        and not callable(getattr(net, n, None))
    ]


def eager_reference(source: str, mx):
    """(input shapes, attributes, eager outputs and state) for the first shapes that run."""
    try:
        klass = net_class(source, mx)
        attributes = state_attributes(source, klass)
    except Exception as error:  # noqa: BLE001
        pytest.skip(f"the example does not build as written ({type(error).__name__})")
    settle(mx)  # an earlier test's pending asynchronous error must not fail these shapes
    for shapes in itertools.product(SHAPES, repeat=input_count(klass)):
        try:
            return list(shapes), attributes, run(klass, mx, shapes, False, attributes)
        except Exception:  # noqa: BLE001 - try the next shapes
            settle(mx)
    pytest.skip("the example does not run eagerly as written (a fragment)")


def same(a, b) -> bool:
    (outs_a, state_a), (outs_b, state_b) = a, b
    return (
        state_a == state_b
        and len(outs_a) == len(outs_b)
        and all(
            x.shape == y.shape and np.allclose(x, y, rtol=1e-5, atol=1e-6)
            for x, y in zip(outs_a, outs_b)
        )
    )


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("rule, example", INVALID)
def test_invalid_examples_really_break_and_fixes_really_work(rule, example, name):
    mx = backend(name)
    shapes, attributes, eager = eager_reference(example.code, mx)
    try:
        broken = not same(run(net_class(example.code, mx), mx, shapes, True, attributes), eager)
    except Exception:  # noqa: BLE001 - failing hybridized is the finding
        settle(mx)
        broken = True
    assert broken, "flagged, but hybridizes with the eager result"
    if example.fixed is not None:
        fixed = net_class(fix_source(example.code, rules=[rule], unsafe=True).source, mx)
        assert same(run(fixed, mx, shapes, True, attributes), eager)
        assert same(run(fixed, mx, shapes, False, attributes), eager)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("rule, example", VALID)
def test_valid_examples_that_run_also_hybridize(rule, example, name):
    mx = backend(name)
    skip_unless_comparable(example.code)
    shapes, _, eager = eager_reference(example.code, mx)  # outputs only: a VALID example may
    hybrid = run(net_class(example.code, mx), mx, shapes, True)  # keep a Symbol by design
    assert same(hybrid, (eager[0], {}))
