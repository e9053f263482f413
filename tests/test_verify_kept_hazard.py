"""A fix proven eagerly is kept when the block then fails hybridized at a hazard of the original
that the fixes only uncovered, on the very line they changed (blind round 13, MXNetSeg's
DiceLoss): `F.multiply(prob, mask.astype(prob.dtype))` - HL015's `F.broadcast_mul` is right,
and the hybridized run then stops at `.dtype`, which has no fix. The fix was rejected as if it
had broken the line; `--fix --unsafe-fixes` wrote it. A failure at an attribute the fixes
added is still the fixes' own."""

import pytest

from hybridlint.checker import CheckerSession, Example, verify_fixes
from hybridlint.checker.report import EquivalenceReport, SourceLine
from hybridlint.checker.verify import _kept_hazard
from tests.checker_support import backend_params

DICE = """\
from mxnet.gluon import HybridBlock


class Dice(HybridBlock):
    def hybrid_forward(self, F, prob, label):
        mask = F.expand_dims(label, axis=1) != 0
        prob = F.multiply(prob, mask.astype(prob.dtype))
        return prob.sum(axis=1)
"""


@pytest.mark.parametrize("backend", backend_params())
def test_the_uncovered_hazard_does_not_reject_the_fix(backend):
    examples = [Example("Dice", ((2, 3, 4), (2, 4)))]
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(DICE, "dice.py", examples, backend=backend, session=session)
    assert [f.code for f in outcome.applied] == ["HL015"]
    assert not outcome.rejected
    assert "F.broadcast_mul(prob, mask.astype(prob.dtype))" in outcome.source


def _report(line: int, message: str) -> EquivalenceReport:
    return EquivalenceReport(
        target="t",
        status="hybrid_error",
        error_type="AttributeError",
        error_message=message,
        source_line=SourceLine("dice.py", line),
    )


def test_an_attribute_the_fixes_added_is_theirs():
    lacks = "'Symbol' object has no attribute 'dtype'"
    original = "y = F.multiply(a, b.astype(a.dtype))\n"
    kept = "y = F.broadcast_mul(a, b.astype(a.dtype))\n"
    assert _kept_hazard(_report(1, lacks), original, kept)
    added = "y = F.broadcast_mul(a, b.astype(a.dtype).astype(b.dtype))\n"
    assert not _kept_hazard(_report(1, lacks), original, added)  # one more `.dtype` read
    assert not _kept_hazard(_report(1, lacks), "y = a * b\n", "y = F.broadcast_mul(a, b)\n")
    assert not _kept_hazard(_report(1, "shape mismatch"), original, kept)
