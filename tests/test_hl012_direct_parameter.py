"""HL012: a Parameter or Constant built directly and stored on a HybridBlock (blind round 5's
gluon-reid NormLinear: `self.weight = Parameter('norm_weight', ...)`) works eagerly (gluon
passes its data by the attribute's name) and fails hybridized: `collect_params()` holds only
what `self.params` made, so MXNet 1.9.1 raises `AssertionError: Unknown input to HybridBlock:
norm_weight`; the engine must fail alike, and the fix (`self.params.get`) must hybridize and
compute the same."""

import numpy as np
import pytest

from fix_support import BACKENDS, backend_module, fix_source, lint_source

SOURCE = """\
class Net(gluon.HybridBlock):
    def __init__(self):
        super().__init__()
        with self.name_scope():
            self.weight = {}
            self.weight.initialize(init.Xavier())

    def hybrid_forward(self, F, x, weight):
        return F.FullyConnected(
            F.L2Normalization(x), F.L2Normalization(weight), no_bias=True, num_hidden=3
        )
"""
PARAMETER = SOURCE.format("gluon.Parameter('norm_weight', shape=(3, 4))")
CONSTANT = SOURCE.format("gluon.Constant('norm_weight', mx.nd.array(VALUES))").replace(
    "self.weight.initialize(init.Xavier())", "self.weight.initialize()"
)
VALUES = np.arange(12, dtype="float32").reshape(3, 4) - 5.0


def _run(source: str, mx, hybridize: bool):
    namespace = {"mx": mx, "gluon": mx.gluon, "init": mx.init, "VALUES": VALUES}
    exec(compile(source, "<fixture>", "exec"), namespace)
    net = namespace["Net"]()
    net.weight.set_data(mx.nd.array(VALUES))
    if hybridize:
        net.hybridize()
    x = np.random.RandomState(0).uniform(-1, 1, (2, 4)).astype("float32")
    return net(mx.nd.array(x)).asnumpy()


@pytest.mark.parametrize("source", [PARAMETER, CONSTANT], ids=["parameter", "constant"])
def test_reported_with_an_unsafe_fix(source):
    findings = [f for f in lint_source(source) if f.code == "HL012"]
    assert [(f.line, f.fix) for f in findings] == [(5, "unsafe")], findings
    assert "Unknown input to HybridBlock: norm_weight" in findings[0].message


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("source", [PARAMETER, CONSTANT], ids=["parameter", "constant"])
def test_the_original_fails_hybridized_and_the_fix_works(backend, source):
    mx = backend_module(backend)
    expected = _run(source, mx, False)
    with pytest.raises(AssertionError, match="Unknown input to HybridBlock: norm_weight"):
        _run(source, mx, True)
    fixed = fix_source(source, unsafe=True).source
    assert "self.params.get" in fixed, fixed
    for hybridize in (False, True):
        np.testing.assert_allclose(_run(fixed, mx, hybridize), expected, rtol=1e-6)
