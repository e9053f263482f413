"""Issue 21 items 1, 5 and 7, reported and fixed, on the engine and on MXNet 1.9.1.

Item 1: an input used as tensors are used (arithmetic) is a tensor: `y = x * 2; y += x` is
reported (NotImplementedForSymbol hybridized) and its fix, unsafe while a list is still possible,
keeps the eager result. Item 5: `nd.broadcast_to(t, shape=x.shape)` becomes `F.broadcast_like`
in one step, so `--fix` reveals nothing that `check` did not offer. Item 7: in a helper that
takes no F, `nd.log1p(nd.exp(x))` becomes `x.exp().log1p()`, which works in both modes.
"""

import numpy as np
import pytest

import fix_support
from fix_support import BACKENDS, engine_gaps_skipped, fix_source, lint_source
from fix_support import backend_module as backend

HEAD = "import mxnet as mx\nfrom mxnet import nd\n\n\n"
X = np.array([[0.5, -1.0, 2.0], [3.0, 2.0, -0.5]], dtype="float32")

INPLACE = fix_support.block_source("y = x * 2\ny += x\nreturn y", inputs="x", head=HEAD)
BROADCAST = fix_support.block_source(
    "m = x.max(keepdims=True)\nreturn nd.broadcast_to(m, shape=x.shape)", inputs="x", head=HEAD
)
HELPER = (
    HEAD + "def softplus(x):\n    return nd.log1p(nd.exp(x))\n\n\n"
    "class Net(mx.gluon.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
    "        return softplus(F.relu(x))\n"
)


def outputs(source, lib, hybridize):
    net = fix_support.build(source, lib, names=("mx", "nd"))()
    net.initialize()
    if hybridize:
        net.hybridize()
    with engine_gaps_skipped(lib):
        return net(lib.nd.array(X)).asnumpy()


@pytest.mark.parametrize(
    "source, code, safety",
    [(INPLACE, "HL004", "unsafe"), (BROADCAST, "HL006", "safe"), (HELPER, "HL006", "safe")],
)
def test_reported_with_a_fix_and_fixed_in_one_pass(source, code, safety):
    findings = [f for f in lint_source(source) if f.code == code]
    assert findings and {f.fix for f in findings} == {safety}, findings
    result = fix_source(source, unsafe=True)
    assert lint_source(result.source) == []
    if code == "HL006":
        assert "nd." not in result.source and (".exp().log1p()" in result.source) == (
            source is HELPER
        )


def test_a_list_input_is_not_taken_for_a_tensor_by_its_arithmetic():
    source = fix_support.block_source("y = x * 2\ny += x\nn = len(x)\nreturn y", inputs="x")
    assert lint_source(source) == []


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("source", [INPLACE, BROADCAST, HELPER])
def test_the_fix_keeps_the_eager_result_in_both_modes(name, source):
    lib = backend(name)
    want = outputs(source, lib, False)
    fixed = fix_source(source, unsafe=True).source
    for hybridize in (False, True):
        np.testing.assert_array_equal(outputs(fixed, lib, hybridize), want, err_msg=fixed)


@pytest.mark.mxnet
@pytest.mark.parametrize("source", [INPLACE, BROADCAST, HELPER])
def test_mxnet_the_original_fails_hybridized(source):
    mx = pytest.importorskip("mxnet")
    outputs(source, mx, False)
    with pytest.raises(Exception):  # noqa: B017 - NotImplementedForSymbol / AssertionError
        outputs(source, mx, True)
