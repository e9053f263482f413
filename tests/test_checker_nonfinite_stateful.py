"""Issue 20, items 3 and 4: non-finite outputs cross the worker channel and compare by
position; a block whose outputs change from call to call (a counter on `self`, a random op)
is compared call for call on fresh instances under the same seed, each block on its own."""

import math
import textwrap

import numpy as np
import pytest

from hybridlint.checker import (
    CheckerSession,
    Example,
    InputSpec,
    check_block,
    check_fix,
    check_source,
    protocol,
    verify_fixes,
    wire,
)
from hybridlint.checker.report import EquivalenceReport, compare_arrays
from tests.checker_support import backend_params

# -- item 3: NaN and inf -----------------------------------------------------------------------


def _through_the_channel(report: EquivalenceReport) -> EquivalenceReport:
    body = protocol.encode({"type": "report", "report": wire.report_to_wire(report)})[4:]
    return wire.report_from_wire(protocol.decode(body)["report"])


def _oracle_equal(want: np.ndarray, have: np.ndarray, rtol: float, atol: float) -> bool:
    """Position by position, written independently of report.compare_arrays."""
    for w, h in zip(want.ravel().tolist(), have.ravel().tolist()):
        if math.isnan(w) or math.isnan(h):
            if not (math.isnan(w) and math.isnan(h)):
                return False
        elif math.isinf(w) or math.isinf(h):
            if w != h:
                return False
        elif abs(h - w) > atol + rtol * abs(w):
            return False
    return True


SPECIALS = [math.nan, math.inf, -math.inf, 0.0, 1.0, -2.5]


@pytest.mark.parametrize("seed", range(40))
def test_non_finite_outputs_compare_by_position_and_cross_the_channel(seed):
    rng = np.random.default_rng(seed)
    want = rng.normal(size=(3, 4)).astype(np.float32)
    mask = rng.random(want.shape) < 0.4
    want[mask] = rng.choice(SPECIALS, size=int(mask.sum()))
    have = want.copy()
    flip = rng.random(want.shape) < (0.15 if seed % 2 else 0.0)  # even seeds: identical
    have[flip] = rng.choice(SPECIALS, size=int(flip.sum()))
    (diff,) = compare_arrays([want], [have], 1e-5, 1e-6)
    assert diff.equal == _oracle_equal(want, have, 1e-5, 1e-6)
    for value in (diff.max_abs_diff, diff.max_rel_diff):
        assert not math.isnan(value) and value >= 0
    if seed % 2 == 0:
        assert diff.equal and diff.max_abs_diff == 0 and not diff.detail
    report = EquivalenceReport(
        "equal" if diff.equal else "mismatch", target="a.py::A", outputs=[diff], reason="r"
    )
    back = _through_the_channel(report)
    assert back == report
    assert isinstance(report.to_dict()["max_rel_diff"], (float, str))


def test_nan_against_a_number_is_a_difference_said_in_words():
    want = np.array([[1.0, math.nan], [math.inf, -math.inf]], np.float32)
    have = np.array([[1.0, 0.5], [math.inf, math.inf]], np.float32)
    (diff,) = compare_arrays([want], [have], 1e-5, 1e-6)
    assert not diff.equal and diff.max_abs_diff == math.inf
    assert diff.describe() == (
        "output 0: 0.5 where the reference has NaN at index [0, 1] "
        "(2 of 4 positions have NaN/inf in one run only)"
    )
    (diff,) = compare_arrays([np.float32(3.0)], [np.float32(math.nan)], 1e-5, 1e-6)
    assert diff.describe() == "output 0: NaN where the reference has 3 at the value"


LOSS = textwrap.dedent(
    """\
    from mxnet import gluon


    class StirlingLoss(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            logx = F.log(x)  # NaN below 0, -inf at 0
            return x * logx - x + 0.5 * F.log(2 * 3.14159 * x), 1 / F.relu(x)
    """
)
# zeros (log 0 = -inf, 1/0 = inf) and negatives (NaN) next to ordinary numbers
VALUES = InputSpec((2, 3), value=[[0.0, -1.0, 2.0], [0.5, 0.0, -3.0]])


@pytest.mark.parametrize("backend", backend_params())
def test_a_loss_with_nan_and_inf_outputs_is_equal_not_an_invalid_answer(backend):
    with CheckerSession(timeout=120) as session:
        (report,) = check_source(
            LOSS, "loss.py", [Example("StirlingLoss", (VALUES,))], backend=backend, session=session
        )
        assert report.ok, report.summary()
        assert report.max_abs_diff == 0 and report.max_rel_diff == 0
        # a "fix" that turns the NaN of log(-1) into a number is a difference with a reason
        wrong = LOSS.replace("F.log(x)", "F.log(F.abs(x))").replace("* x)", "* F.abs(x))")
        changed = check_fix(
            LOSS, wrong, "StirlingLoss", [VALUES], path="loss.py", backend=backend, session=session
        )
    assert changed.status == "mismatch" and changed.stage == "fixed eager", changed.summary()
    assert "where the reference has NaN at index [0, 1]" in changed.reason
    assert "invalid answer" not in changed.reason


# -- item 4: state and random ops --------------------------------------------------------------

BLOCKS = textwrap.dedent(
    """\
    from mxnet import gluon


    class Counter(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.n = 0

        def hybrid_forward(self, F, x):
            self.n += 1
            y = x * self.n
            y += 1
            return y


    class Noisy(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = gluon.nn.Dense(3, flatten=False)

        def hybrid_forward(self, F, x):
            noise = F.random.uniform(shape=(1, 3))
            return self.dense(x) + noise


    class Plain(gluon.HybridBlock):
        def hybrid_forward(self, F, x, y):
            return x * y
    """
)
EXAMPLES = [
    Example("Counter", ((2, 3),)),
    Example("Noisy", ((2, 3),)),
    Example("Plain", ((2, 3), (1, 3))),
]


def _fixed(source: str) -> str:
    return (
        source.replace("y += 1", "y = y + 1")
        .replace("self.dense(x) + noise", "F.broadcast_add(self.dense(x), noise)")
        .replace("return x * y", "return F.broadcast_mul(x, y)")
    )


@pytest.mark.parametrize("backend", backend_params())
def test_each_block_is_compared_call_for_call_on_fresh_instances(backend):
    fixed = _fixed(BLOCKS)
    with CheckerSession(timeout=120) as session:
        reports = {
            ex.target: check_fix(
                BLOCKS,
                fixed,
                ex.target,
                ex.specs(),
                path="blocks.py",
                backend=backend,
                session=session,
            )
            for ex in EXAMPLES
        }
    counter = reports["Counter"]
    # fresh instances, same calls: the fixed block eagerly is the original (y = y + 1 is
    # y += 1), but hybridized its counter moves only while tracing: the second call differs
    assert counter.status == "mismatch" and counter.stage == "fixed hybridize", counter.summary()
    assert "at call 2 of 2 (the first call agrees" in counter.reason
    # the random op draws the same numbers under the same seed: the correct fix is equal
    assert reports["Noisy"].ok, reports["Noisy"].summary()
    assert reports["Plain"].ok, reports["Plain"].summary()
    for name, report in reports.items():  # each verdict names its own block
        assert report.target == f"blocks.py::{name}"


RANDOM_OK = textwrap.dedent(
    """\
    from mxnet import gluon


    class Jitter(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = gluon.nn.Dense(4)

        def hybrid_forward(self, F, x):
            h = self.dense(x)
            return F.broadcast_add(h, F.random.normal(shape=(1, 4))), F.random.uniform(shape=(3,))


    def make_jitter():
        return Jitter()
    """
)


@pytest.mark.parametrize("backend", backend_params())
def test_a_block_with_random_ops_that_hybridizes_is_equal(backend, tmp_path):
    path = tmp_path / "jitter.py"
    path.write_text(RANDOM_OK)
    with CheckerSession(timeout=120) as session:
        (report,) = check_source(
            RANDOM_OK, str(path), [Example("Jitter", ((2, 5),))], backend=backend, session=session
        )
    assert report.ok, report.summary()
    assert report.roundtrip and all(d.equal for d in report.roundtrip)


STATEFUL_OK = textwrap.dedent(
    """\
    from mxnet import gluon


    class Tally(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.calls = 0

        def hybrid_forward(self, F, x):
            self.calls += 1
            return x * self.calls
    """
)


@pytest.mark.parametrize("backend", backend_params())
def test_a_counter_on_self_is_caught_at_the_second_call(backend):
    (report,) = check_source(
        STATEFUL_OK, "tally.py", [Example("Tally", ((2, 3),))], backend=backend
    )
    assert report.status == "mismatch" and report.stage == "hybridize", report.summary()
    assert "hybridized differs from eager at call 2 of 2" in report.reason


@pytest.mark.parametrize("backend", backend_params())
def test_one_stateful_block_does_not_take_the_other_blocks_fixes_down(backend):
    outcome = verify_fixes(BLOCKS, "blocks.py", EXAMPLES, backend=backend)
    verdicts = {(p.finding.code, p.finding.line): p.verdict for p in outcome.proofs}
    assert verdicts == {("HL004", 12): "rejected", ("HL007", 24): "proven", ("HL007", 29): "proven"}
    detail = next(p.detail for p in outcome.proofs if p.finding.code == "HL004")
    assert "at call 2 of 2" in detail
    assert "F.broadcast_add(self.dense(x), noise)" in outcome.source
    assert "F.broadcast_mul(x, y)" in outcome.source


def test_live_blocks_are_seeded_before_each_call_sequence():
    import hybridlint.engine as mx

    class LiveNoise(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.broadcast_add(x, F.random.uniform(shape=(1, 3)))

    report = check_block(LiveNoise(), (2, 3))
    assert report.ok, report.summary()


ONCE_ONLY = textwrap.dedent(
    """\
    from mxnet import gluon


    class OnceOnly(gluon.HybridBlock):
        # eagerly this block can be called once per instance (as an mx.autograd.Function
        # can): that fails without hybridize too, so only its first call is compared
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.spent = False

        def hybrid_forward(self, F, x):
            assert not self.spent, "called twice"
            self.spent = True
            return x * 2
    """
)


@pytest.mark.parametrize("backend", backend_params())
def test_a_block_that_raises_at_its_second_eager_call_is_compared_on_the_first(backend):
    (ok,) = check_source(ONCE_ONLY, "once.py", [Example("OnceOnly", ((2, 3),))], backend=backend)
    assert ok.ok, ok.summary()
    assert any("eager call 2, which raised AssertionError: called twice" in n for n in ok.notes)
    shape_read = ONCE_ONLY.replace("return x * 2", "return x.reshape(x.shape) * 2")
    (bad,) = check_source(shape_read, "once.py", [Example("OnceOnly", ((2, 3),))], backend=backend)
    # the hybridize failure is what is reported, at its line, not the eager second call
    assert bad.status == "hybrid_error" and "shape" in bad.reason, bad.summary()
    assert "called twice" not in bad.reason
    fixed = check_fix(
        shape_read, ONCE_ONLY, "OnceOnly", [InputSpec((2, 3))], path="once.py", backend=backend
    )
    assert fixed.ok, fixed.summary()


@pytest.mark.parametrize("backend", backend_params())
def test_a_block_that_raises_at_its_first_eager_call_is_still_an_eager_error(backend):
    first = ONCE_ONLY.replace("self.spent = False", "self.spent = True")
    (report,) = check_source(first, "once.py", [Example("OnceOnly", ((2, 3),))], backend=backend)
    assert report.status == "eager_error" and "called twice" in report.reason, report.summary()


def test_a_live_block_that_raises_at_its_second_eager_call_is_an_eager_error():
    # a live instance is hybridized as it is, its state spent by the eager calls: its
    # hybridized failure would be the eager one blamed on hybridize
    import hybridlint.engine as mx

    class OnceOnly(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.spent = False

        def hybrid_forward(self, F, x):
            assert not self.spent, "called twice"
            self.spent = True
            return x * 2

    report = check_block(OnceOnly(), (2, 3))
    assert report.status == "eager_error" and "called twice" in report.reason, report.summary()
