"""What the rule ground-truth tests (tests/test_rule_ground_truth_*.py) share: running a rule
example's source as a block on real MXNet 1.9.1 or on the engine."""

import inspect
import logging
import re

import numpy as np
import pytest

from hybridlint.linter import lint_source

BACKENDS = [
    pytest.param("engine", id="engine"),
    pytest.param("mxnet", id="mxnet", marks=pytest.mark.mxnet),
]


def backend(name):
    """Real MXNet (skipped when absent) or the bundled engine."""
    if name == "mxnet":
        return pytest.importorskip("mxnet")
    import hybridlint.engine as engine

    return engine


def net_class(source: str, mx):
    """The example's `Net` class, its module names bound to ``mx``'s (the engine's modules
    stand for mxnet's while the source runs)."""
    namespace = {
        "HybridBlock": mx.gluon.HybridBlock,
        "mx": mx,
        "nd": mx.nd,
        "np": np,
        "nn": mx.gluon.nn,
        "gluon": mx.gluon,
        "logging": logging,
    }
    if mx.__name__.startswith("hybridlint"):
        from hybridlint.engine import as_mxnet

        with as_mxnet():
            exec(compile(source, "<example>", "exec"), namespace)
    else:
        exec(compile(source, "<example>", "exec"), namespace)
    return namespace["Net"]


def input_count(klass) -> int:
    """hybrid_forward's inputs: positional parameters after F that are not gluon parameters."""
    registered = klass()._reg_params
    params = list(inspect.signature(klass.hybrid_forward).parameters.values())[2:]
    return sum(
        1
        for p in params
        if p.default is inspect.Parameter.empty
        and p.kind == p.POSITIONAL_OR_KEYWORD
        and p.name not in registered
    )


def settle(mx) -> None:
    """MXNet runs operators asynchronously: let a failed run's pending errors surface here,
    not in a later, unrelated test."""
    try:
        mx.nd.waitall()
    except Exception:  # noqa: BLE001
        pass


def skip_unless_comparable(code: str) -> None:
    """Skip a VALID example whose hybridized run is not expected to equal its eager run: one a
    rule reports once its suppression comments are removed, one with an eager-only branch, or
    one that is not a `Net` block."""
    if lint_source(re.sub(r"#.*", "", code)):
        pytest.skip("some rule reports it (suppressed, or another rule's hazard)")
    if re.search(r"isinstance\(|F is |F == ", code) or "class Net" not in code:
        pytest.skip("eager-only branch (differs by design) or not a block")
