"""Issue 12: iteration over a tensor (`for r in x`, `[f(r) for r in x]`, `zip(a, x)`,
`enumerate(x)`, `list(x)`, `map(f, x)`) is reported (HL008 in loop headers and comprehensions,
HL014 elsewhere) and rewritten to `F.split(x, num_outputs=n, axis=0, squeeze_axis=True)` only
when n is known (rules/_iteration_fix.py): safe when the analysis knows the first dimension,
unsafe when n is a model constant zip pairs the rows with; otherwise report only.

The rewrites are checked on random shapes, eagerly and hybridized, on the engine and on MXNet
1.9.1 (the `mxnet` cases run where MXNet is installed: /tmp/mxv/bin/python -m pytest ...).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fix_support
from fix_support import BACKENDS, backend_module, block_source, fix_settings
from fix_support import fix_source, lint_source
from hybridlint.rules.hl008_tensor_control_flow import TensorControlFlow
from hybridlint.rules.hl014_tensor_unpacking import TensorUnpacking

SETTINGS = fix_settings(8)


def net(body: str) -> str:
    return block_source(body)


def found(source: str, rule):
    return [(f.line, f.code, f.fix) for f in lint_source(source, rules=[rule])]


def fixed(source: str, rule) -> str:
    return fix_source(source, rules=[rule], unsafe=True).source


SPLIT3 = "F.split(y, num_outputs=3, axis=0, squeeze_axis=True)"


# -- what is rewritten, and how surely -------------------------------------------------------------
@pytest.mark.parametrize(
    "body, rule, safety, rewritten",
    [
        (
            "y = F.relu(x).reshape((3, -1, 4))\nreturn F.stack(*[F.relu(r) for r in y])",
            TensorControlFlow,
            "safe",
            f"return F.stack(*[F.relu(r) for r in {SPLIT3}])",
        ),
        (
            "y = F.relu(x).reshape((3, -1, 4))\nouts = []\nfor t, s in enumerate(y):\n    outs.append(s * t)\n"
            "return F.stack(*outs)",
            TensorControlFlow,
            "safe",
            f"for t, s in enumerate({SPLIT3}):",
        ),
        (
            "y = F.relu(x).reshape((3, -1))\nreturn F.add_n(*[a * b for a, b in zip(y, y)])",
            TensorControlFlow,
            "safe",
            f"zip({SPLIT3}, {SPLIT3})",
        ),
        (
            "y = F.relu(x).reshape((3, -1))\nreturn F.stack(*list(y))",
            TensorUnpacking,
            "safe",
            f"return F.stack(*list({SPLIT3}))",
        ),
        (
            "y = F.relu(x).reshape((3, -1))\nreturn F.stack(*map(F.relu, y))",
            TensorUnpacking,
            "safe",
            f"return F.stack(*map(F.relu, {SPLIT3}))",
        ),
        (
            "y = F.relu(x)\nreturn F.add_n(*[w * l for w, l in zip(self._weights, y)])",
            TensorControlFlow,
            "unsafe",
            "zip(self._weights, F.split(y, num_outputs=len(self._weights), axis=0, squeeze_axis=True))",
        ),
        (
            "y = F.relu(x)\nreturn F.add_n(*[a * b for a, b in zip([1, 2], y)])",
            TensorControlFlow,
            "unsafe",
            "zip([1, 2], F.split(y, num_outputs=2, axis=0, squeeze_axis=True))",
        ),
    ],
)
def test_known_count_is_rewritten(body, rule, safety, rewritten):
    source = net(body)
    assert [(code, fix) for _, code, fix in found(source, rule)] == [(rule.code, safety)]
    assert rewritten in fixed(source, rule)
    assert found(fixed(source, rule), rule) == []


@pytest.mark.parametrize(
    "body, rule",
    [
        # the count is not written anywhere: report only
        ("y = F.relu(x)\nreturn F.stack(*[F.relu(r) for r in y])", TensorControlFlow),
        (
            "y = F.relu(x)\nouts = []\nfor t, s in enumerate(y):\n    outs.append(s)\nreturn F.stack(*outs)",
            TensorControlFlow,
        ),
        ("y = F.relu(x)\nreturn F.stack(*list(y))", TensorUnpacking),
        # a one-dimensional tensor: eager rows have shape (1,), squeeze_axis gives ()
        ("y = F.relu(x).reshape((3,))\nreturn F.stack(*[r * 2 for r in y])", TensorControlFlow),
        # one row: split(num_outputs=1) returns the array itself, which would be iterated again
        ("y = F.relu(x).reshape((1, -1))\nreturn F.stack(*[r * 2 for r in y])", TensorControlFlow),
        # reversed() needs the group's length: not rewritten
        (
            "y = F.relu(x).reshape((3, -1))\nreturn F.stack(*[r for r in reversed(y)])",
            TensorControlFlow,
        ),
        # the other operand of zip is a local list of unknown length
        (
            "y = F.relu(x)\nws = self.make()\nreturn F.add_n(*[w * l for w, l in zip(ws, y)])",
            TensorControlFlow,
        ),
    ],
)
def test_unknown_count_is_reported_without_fix(body, rule):
    source = net(body)
    assert [(code, fix) for _, code, fix in found(source, rule)] == [(rule.code, None)]


@pytest.mark.parametrize(
    "body",
    [
        # an input only iterated may be a list of arrays (gluon passes feature maps so): not reported
        "return F.stack(*[self.heads[t](s) for t, s in enumerate(x)])",
        "return F.add_n(*[w * l for w, l in zip(self._weights, x)])",
        # already split: iterating the outputs is how a multi-output operator is used
        "return F.stack(*[r for r in F.split(x, num_outputs=3, axis=0, squeeze_axis=True)])",
    ],
)
def test_not_reported(body):
    source = net(body)
    assert found(source, TensorControlFlow) == [] and found(source, TensorUnpacking) == []


# -- the rewrites compute what the original computes eagerly ---------------------------------------
def build(source, lib):
    return fix_support.build(source, lib, names=())


def run(klass, lib, array, hybridize):
    return fix_support.run(klass, [lib.nd.array(array)], hybridize, initialize=True).asnumpy()


CASES = {
    "comprehension": (
        "y = F.relu(x).reshape(({n}, -1, {c}))\nreturn F.stack(*[F.sigmoid(r) * 2 for r in y], axis=1)",
        TensorControlFlow,
    ),
    "enumerate": (
        "y = x.reshape(({n}, -1, {c}))\nouts = []\nfor t, s in enumerate(y):\n    outs.append(s * (t + 1))\n"
        "return F.concat(*outs, dim=1)",
        TensorControlFlow,
    ),
    "zip": (
        "y = F.relu(x).reshape(({n}, -1, {c}))\nreturn F.add_n(*[a * b for a, b in zip(y, y)])",
        TensorControlFlow,
    ),
    "zip-literal": (
        "y = F.relu(x).reshape(({n}, -1, {c}))\nreturn F.add_n(*[a * w for w, a in zip([{weights}], y)])",
        TensorControlFlow,
    ),
    "list": (
        "y = F.tanh(x).reshape(({n}, -1, {c}))\nreturn F.stack(*list(y), axis=2)",
        TensorUnpacking,
    ),
    "map": (
        "y = x.reshape(({n}, -1, {c}))\nreturn F.concat(*map(F.relu, y), dim=0)",
        TensorUnpacking,
    ),
}


@pytest.mark.parametrize("lib_name", BACKENDS)
@pytest.mark.parametrize("case", sorted(CASES))
@SETTINGS
@given(n=st.integers(2, 4), rows=st.integers(1, 3), c=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_rewrite_equals_the_eager_original(lib_name, case, n, rows, c, seed):
    lib = backend_module(lib_name)
    template, rule = CASES[case]
    weights = ", ".join(str(0.5 + k) for k in range(n))
    source = net(template.format(n=n, c=c, weights=weights))
    rewritten = fixed(source, rule)
    assert rewritten != source
    array = np.random.RandomState(seed).normal(size=(n * rows * c,)).astype("float32")
    want = run(build(source, lib), lib, array, False)
    for hybridize in (False, True):
        got = run(build(rewritten, lib), lib, array, hybridize)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("lib_name", BACKENDS)
def test_the_original_differs_hybridized(lib_name):
    """The hazard is real: hybridized, the comprehension sees one element, the whole tensor."""
    lib = backend_module(lib_name)
    source = net(CASES["comprehension"][0].format(n=3, c=2))
    array = np.arange(12, dtype="float32")
    eager = run(build(source, lib), lib, array, False)
    try:
        hybrid = run(build(source, lib), lib, array, True)
    except Exception:  # noqa: BLE001 -- failing hybridized is the hazard too
        return
    assert hybrid.shape != eager.shape or not np.array_equal(hybrid, eager)
