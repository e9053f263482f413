"""Issue 12: the row count of `enumerate(x)` from a model list the body indexes with the
enumerate index (`[self.heads[t](r) for t, r in enumerate(x)]`, the `for` form too): working
code has at most len(self.heads) rows, so x becomes
`F.split(x, num_outputs=len(self.heads), axis=0, squeeze_axis=True)`, unsafe like
`zip(self.heads, x)` (rules/_iteration_fix.py).

The rewrites are checked on random shapes, eagerly and hybridized, on the engine and on MXNet
1.9.1 (the `mxnet` cases run where MXNet is installed: /tmp/mxv/bin/python -m pytest ...).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fix_support
from fix_support import BACKENDS, backend_module, block_source, fix_settings
from fix_support import fix_source, lint_source  # memoized: each backend reuses the result
from hybridlint.rules.hl008_tensor_control_flow import TensorControlFlow

SETTINGS = fix_settings(8)
ACTIVATIONS = ("relu", "sigmoid", "tanh", "softrelu")
HEADS = (
    "self.heads = nn.HybridSequential()\nfor act in {acts}:\n    self.heads.add(nn.Activation(act))"
)
SPLIT = "F.split(y, num_outputs=len(self.heads), axis=0, squeeze_axis=True)"


def net(body: str, n: int = 3) -> str:
    return block_source(body, init=HEADS.format(acts=repr(ACTIVATIONS[:n])))


def found(source: str):
    return [(f.code, f.fix) for f in lint_source(source, rules=[TensorControlFlow])]


def fixed(source: str) -> str:
    return fix_source(source, rules=[TensorControlFlow], unsafe=True).source


COMPREHENSION = "y = F.relu(x)\nreturn F.stack(*[self.heads[t](s) for t, s in enumerate(y)])"
LOOP = (
    "y = F.relu(x)\nouts = []\nfor t, s in enumerate(y):\n    outs.append(self.heads[t](s) * 2)\n"
    "return F.stack(*outs)"
)


@pytest.mark.parametrize("body", [COMPREHENSION, LOOP], ids=["comprehension", "loop"])
def test_indexed_model_list_gives_the_count(body):
    source = net(body)
    assert found(source) == [("HL008", "unsafe")]
    rewritten = fixed(source)
    assert f"enumerate({SPLIT})" in rewritten.replace("\n", "").replace("        ", "")
    assert found(rewritten) == []


@pytest.mark.parametrize(
    "body",
    [
        # the index is not the enumerate index as it was bound: rebound in the loop body
        "y = F.relu(x)\nouts = []\nfor t, s in enumerate(y):\n    t = 0\n"
        "    outs.append(self.heads[t](s))\nreturn F.stack(*outs)",
        # an inner comprehension binds the same name again
        "y = F.relu(x)\nreturn F.stack(*[self.heads[t](s) + F.add_n(*[s for t in range(2)]) "
        "for t, s in enumerate(y)])",
        # a shifted index (t + 1) or another index: the count is not len(self.heads)
        "y = F.relu(x)\nreturn F.stack(*[self.heads[t + 1](s) for t, s in enumerate(y)])",
        "y = F.relu(x)\nreturn F.stack(*[self.heads[0](s) * t for t, s in enumerate(y)])",
        # enumerate from another start
        "y = F.relu(x)\nreturn F.stack(*[self.heads[t](s) for t, s in enumerate(y, 1)])",
    ],
    ids=["rebound", "inner-rebinding", "shifted", "other-index", "start"],
)
def test_no_count_without_the_plain_index(body):
    assert found(net(body)) == [("HL008", None)]


def test_bare_input_is_not_reported():
    """The input only iterated may be a list of arrays (issue 11's policy): nothing to fix."""
    body = "return F.stack(*[self.heads[t](s) for t, s in enumerate(x)])"
    assert found(net(body)) == []


# -- the rewrites compute what the original computes eagerly ---------------------------------------
@pytest.mark.parametrize("lib_name", BACKENDS)
@pytest.mark.parametrize("form", ["comprehension", "loop"])
@SETTINGS
@given(n=st.integers(2, 4), rows=st.integers(1, 3), c=st.integers(1, 3), seed=st.integers(0, 2**16))
def test_rewrite_equals_the_eager_original(lib_name, form, n, rows, c, seed):
    lib = backend_module(lib_name)
    body = {"comprehension": COMPREHENSION, "loop": LOOP}[form]
    body = body.replace("y = F.relu(x)", "y = F.relu(x) - 0.5")  # rows unknown to the analysis
    source = net(body, n)
    rewritten = fixed(source)
    assert "num_outputs=len(self.heads)" in rewritten
    array = np.random.RandomState(seed).normal(size=(n, rows, c)).astype("float32")
    original = fix_support.build(source, lib, names=("nn",))
    want = fix_support.run(original, [lib.nd.array(array)], False).asnumpy()
    for hybridize in (False, True):
        klass = fix_support.build(rewritten, lib, names=("nn",))
        got = fix_support.run(klass, [lib.nd.array(array)], hybridize).asnumpy()
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("lib_name", BACKENDS)
def test_the_original_differs_hybridized(lib_name):
    """The hazard is real: hybridized, the comprehension sees one element, the whole tensor."""
    lib = backend_module(lib_name)
    body = COMPREHENSION.replace("y = F.relu(x)", "y = F.relu(x) - 0.5")
    klass = fix_support.build(net(body), lib, names=("nn",))
    array = lib.nd.array(np.arange(12, dtype="float32").reshape((3, 2, 2)))
    eager = fix_support.run(klass, [array], False).asnumpy()
    try:
        hybrid = fix_support.run(klass, [array], True).asnumpy()
    except Exception:  # noqa: BLE001 -- failing hybridized is the hazard too
        return
    assert hybrid.shape != eager.shape or not np.array_equal(hybrid, eager)
