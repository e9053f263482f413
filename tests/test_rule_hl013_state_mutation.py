"""HL013's finding in MXNet 1.9.1's own code is real: VariationalDropoutCell keeps its dropout
masks on the cell. Eagerly, called step by step after reset(), every step reuses the first
step's mask (variational dropout); hybridized, the mask attribute holds the traced Symbol and the
cached graph draws a new mask at every step."""

import numpy as np
import libcst as cst
import pytest


def _steps(mx, hybrid: bool):
    from mxnet.gluon import rnn
    from mxnet.gluon.contrib.rnn import VariationalDropoutCell

    mx.random.seed(1)
    cell = VariationalDropoutCell(rnn.RNNCell(4, activation="relu", prefix="r_"), drop_inputs=0.5)
    cell.initialize(mx.init.Uniform(1))
    x = mx.nd.ones((1, 8))
    states = cell.begin_state(batch_size=1, func=mx.nd.zeros)
    cell(x, states)  # shapes known: set h2h to 0
    cell.base_cell.h2h_weight.set_data(mx.nd.zeros((4, 4)))  # so a step's output = its mask
    if hybrid:
        cell.hybridize()
    cell.reset()
    outs = []
    with mx.autograd.record():  # dropout active
        for _ in range(4):
            out, states = cell(x, states)
            outs.append(out.asnumpy())
    return outs, cell.drop_inputs_mask


@pytest.mark.mxnet
def test_variational_dropout_cell_redraws_its_mask_every_step_when_hybridized():
    mx = pytest.importorskip("mxnet")
    eager, mask = _steps(mx, hybrid=False)
    assert all(np.array_equal(eager[0], o) for o in eager[1:]) and isinstance(mask, mx.nd.NDArray)
    hybrid, mask = _steps(mx, hybrid=True)
    assert not all(np.array_equal(hybrid[0], o) for o in hybrid[1:])
    assert isinstance(mask, mx.sym.Symbol)


def _zoneout_unroll(mx, hybrid: bool):
    """MXNet 1.9.1's ZoneoutCell(zoneout_outputs=0.5) unrolled over 5 steps of ones in training:
    a zoned-out unit keeps the previous step's output (eagerly)."""
    from mxnet.gluon import rnn

    mx.random.seed(3)
    cell = rnn.ZoneoutCell(rnn.RNNCell(4, activation="relu", prefix="r_"), zoneout_outputs=0.5)
    cell.initialize(mx.init.Constant(0.3))
    if hybrid:
        cell.hybridize()
    with mx.autograd.record():
        outs, _ = cell.unroll(5, mx.nd.ones((2, 5, 3)), layout="NTC", merge_outputs=True)
    return outs.asnumpy(), cell._prev_output


@pytest.mark.mxnet
def test_zoneout_cell_forgets_the_previous_output_when_hybridized():
    """`self._prev_output = output` runs once, while tracing: the cached graph was built with
    `_prev_output` None, so every later step zones out to zeros instead of the previous
    output, silently (the attribute is left holding a Symbol)."""
    mx = pytest.importorskip("mxnet")
    eager, prev = _zoneout_unroll(mx, hybrid=False)
    assert isinstance(prev, mx.nd.NDArray)
    assert (eager[:, 1:] == 0).sum() == 0  # zoned-out units keep a (positive) earlier output
    hybrid, prev = _zoneout_unroll(mx, hybrid=True)
    assert isinstance(prev, mx.sym.Symbol)
    assert (hybrid[:, 1:] == 0).sum() > 0  # zoned out to the traced zeros_like
    assert np.allclose(eager[:, 0], hybrid[:, 0])  # the first step is the traced one


@pytest.mark.mxnet
def test_hl013_reports_zoneout_cells_previous_output():
    """The real ZoneoutCell's store is reported with the reason (it is read back next call)."""
    pytest.importorskip("mxnet")
    import inspect

    from mxnet.gluon.rnn import rnn_cell

    from hybridlint.linter import lint_source
    from hybridlint.rules.hl013_state_mutation import StateMutation

    source = inspect.getsource(rnn_cell)
    line = source.splitlines().index("        self._prev_output = output") + 1
    findings = [f for f in lint_source(source, rules=[StateMutation]) if f.line == line]
    assert len(findings) == 1
    assert "the cached graph keeps what `self._prev_output` held at the first call" in (
        findings[0].message
    )


@pytest.mark.parametrize(
    "test, unset",
    [
        ("not isinstance(self.gen, HybridBlock)", True),
        ("self.gen is None", True),
        ("not self.gen", True),
        ("isinstance(self.gen, HybridBlock)", False),
        ("self.gen is not None", False),
        ("self.calls < 10", False),
        ("not isinstance(self.other, HybridBlock)", False),
    ],
)
def test_a_recompute_under_an_unset_test_is_a_one_time_fill(test, unset):
    """GluonCV's Faster R-CNN makes its target generator on first use (`if not isinstance(
    self._target_generator, Block): self._target_generator = self._target_generator()`, in a
    property hybrid_forward calls): after the first call, eager or traced, the test is false,
    so the recompute is no per-call state (two false HL013 on the realworld corpus)."""
    from hybridlint.rules.hl013_state_mutation import _filled_once

    source = f"def f(self):\n    if {test}:\n        self.gen = self.gen()\n    return self.gen\n"
    function = cst.parse_module(source).body[0]
    assign = function.body.body[0].body.body[0].body[0]
    assert isinstance(assign, cst.Assign)
    assert _filled_once(function, assign, "gen") is unset
