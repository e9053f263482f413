"""Issue 20, item 7: with real MXNet as the backend, the checker hands the original's parameter
values to the fixed block in a form MXNet accepts (MKL-DNN keeps convolution weights in its
own layout once a block ran: copying into them failed with "Check failed:
to.IsDefaultData()"), and a block that still fails is reported at the user's failing line."""

import textwrap

import pytest

from hybridlint.checker import CheckerSession, Example, check_fix, check_source, verify_fixes
from tests.checker_support import backend_params

NET = textwrap.dedent(
    """\
    from mxnet import gluon


    class Net(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.conv = gluon.nn.Conv1D(8, 3, padding=1)
                self.bn = gluon.nn.BatchNorm()
                self.conv3 = gluon.nn.Conv3D(4, 3, padding=1, in_channels=2)
                self.conv2 = gluon.nn.Conv2D(4, 3, padding=1)
                self.scale = self.params.get("scale", shape=(8,), init="ones")

        def hybrid_forward(self, F, x, v, scale):
            y = self.bn(self.conv(x))
            z = self.conv3(v).mean(axis=(2, 3, 4))
            w = self.conv2(v.mean(axis=2)).mean(axis=(2, 3))
            return y * scale.reshape((1, -1, 1)), z + w
    """
)
INPUTS = [(2, 3, 8), (2, 2, 4, 4, 4)]
FIXED = NET.replace(
    "y * scale.reshape((1, -1, 1))", "F.broadcast_mul(y, scale.reshape((1, -1, 1)))"
)
# a hazard no fix removes, next to the one that is fixed: the block still fails there
HAZARD = "        if F.sum(z) > 0:\n            z = z + 0\n"
STILL_ORIGINAL = NET.replace("        return y *", HAZARD + "        return y *")
STILL_FAILS = FIXED.replace(
    "        return F.broadcast_mul", HAZARD + "        return F.broadcast_mul"
)
IF_LINE = STILL_FAILS.splitlines().index("        if F.sum(z) > 0:") + 1


@pytest.mark.parametrize("backend", backend_params())
def test_the_original_parameters_reach_conv1d_and_conv3d_weights(backend):
    assert FIXED != NET
    with CheckerSession(timeout=120) as session:
        (baseline,) = check_source(
            NET, "net.py", [Example("Net", tuple(INPUTS))], backend=backend, session=session
        )
        report = check_fix(
            NET, FIXED, "Net", INPUTS, path="net.py", backend=backend, session=session
        )
    assert baseline.status == "hybrid_error", baseline.summary()
    assert report.ok, report.summary()
    assert report.roundtrip and all(d.equal for d in report.roundtrip)
    assert report.target == "net.py::Net" and not report.notes


@pytest.mark.parametrize("backend", backend_params())
def test_a_block_that_still_fails_is_reported_at_its_failing_line(backend):
    assert STILL_ORIGINAL != NET and STILL_FAILS != FIXED
    report = check_fix(STILL_ORIGINAL, STILL_FAILS, "Net", INPUTS, path="net.py", backend=backend)
    assert report.status == "hybrid_error" and report.stage == "fixed hybridize", report.summary()
    assert report.source_line is not None, report.summary()
    assert report.source_line.lineno == IF_LINE
    assert "IsDefaultData" not in (report.error_message or "")


@pytest.mark.parametrize("backend", backend_params())
def test_fix_verify_proves_the_fix_of_a_convolution_block(backend):
    outcome = verify_fixes(NET, "net.py", [Example("Net", tuple(INPUTS))], backend=backend)
    assert [(p.finding.code, p.verdict) for p in outcome.proofs] == [("HL007", "proven")], [
        p.detail for p in outcome.proofs
    ]
    assert "F.broadcast_mul(y, scale.reshape((1, -1, 1)))" in outcome.source
    assert all(r.ok for r in outcome.reports), [r.summary() for r in outcome.reports]
