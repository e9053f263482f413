"""HL013's finding in MXNet 1.9.1's own code is real: VariationalDropoutCell keeps its dropout
masks on the cell. Eagerly, called step by step after reset(), every step reuses the first
step's mask (variational dropout); hybridized, the mask attribute holds the traced Symbol and the
cached graph draws a new mask at every step."""

import numpy as np
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
