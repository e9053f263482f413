"""gluon.contrib.rnn (LSTMPCell, VariationalDropoutCell) and gluon.rnn.ZoneoutCell against real
MXNet 1.9.1: same weights give the same numbers (eagerly and hybridized, inference mode);
in training mode, where dropout masks are random, the defining property of each cell is
checked in both libraries (values are never compared across libraries there)."""

import numpy as np
import pytest

import hybridlint.engine as mx

X = np.random.RandomState(0).uniform(-1, 1, (2, 5, 3)).astype(np.float32)


def _lstmp(lib):
    return lib.gluon.contrib.rnn.LSTMPCell(6, 4, prefix="lstmp_")


def _zoneout(lib):
    return lib.gluon.rnn.ZoneoutCell(lib.gluon.rnn.GRUCell(4, prefix="gru_"), 0.3, 0.4)


def _vardrop(lib):
    return lib.gluon.contrib.rnn.VariationalDropoutCell(
        lib.gluon.rnn.LSTMCell(4, prefix="lstm_"),
        drop_inputs=0.3,
        drop_states=0.2,
        drop_outputs=0.4,
    )


def _vardrop_no_states(lib):
    return lib.gluon.contrib.rnn.VariationalDropoutCell(
        lib.gluon.rnn.RNNCell(4, prefix="rnn_"), drop_inputs=0.3, drop_outputs=0.4
    )


CELLS = [_lstmp, _zoneout, _vardrop, _vardrop_no_states]


def _unrolled(lib, make):
    class Net(lib.gluon.HybridBlock):
        def __init__(self):
            super().__init__(prefix="net_")
            with self.name_scope():
                self.cell = make(lib)

        def hybrid_forward(self, F, x):
            out, states = self.cell.unroll(5, x, layout="NTC", merge_outputs=True)
            return [out] + list(states)

    return Net()


@pytest.mark.mxnet
@pytest.mark.parametrize("make", CELLS)
def test_inference_matches_mxnet_with_the_same_weights(make, tmp_path):
    mx_real = pytest.importorskip("mxnet")
    real = _unrolled(mx_real, make)
    real.initialize(mx_real.init.Uniform(0.5))
    want = real(mx_real.nd.array(X))
    real.save_parameters(str(tmp_path / "p.params"))
    ours = _unrolled(mx, make)
    ours.load_parameters(str(tmp_path / "p.params"))
    assert repr(ours.cell) == repr(real.cell)
    assert sorted(ours.collect_params()) == sorted(real.collect_params())
    for hybridize in (False, True):
        if hybridize:
            ours.hybridize()
        got = ours(mx.nd.array(X))
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


def _steps(lib, cell, x, states=None):
    """Step the cell by hand (one output per step)."""
    cell.reset()
    if states is None:
        states = cell.begin_state(batch_size=x.shape[0], func=lib.nd.zeros)
    outs = []
    for t in range(x.shape[1]):
        out, states = cell(lib.nd.array(x[:, t]), states)
        outs.append(out.asnumpy())
    return outs


@pytest.mark.parametrize("lib_name", ["engine", "mxnet"])
def test_zoneout_keeps_the_previous_output_or_takes_the_new(lib_name):
    lib = mx if lib_name == "engine" else pytest.importorskip("mxnet")
    base = lib.gluon.rnn.GRUCell(8, prefix="gru_")
    cell = lib.gluon.rnn.ZoneoutCell(base, zoneout_outputs=0.5)
    cell.initialize(lib.init.Uniform(0.5))
    x = np.random.RandomState(1).uniform(-1, 1, (4, 6, 3)).astype(np.float32)
    with lib.autograd.record():  # training mode: masks are drawn
        zoned = _steps(lib, cell, x)
    base._modified = False  # the same weights, stepped plainly
    plain = _steps(lib, base, x)
    prev = np.zeros_like(plain[0])
    kept = taken = 0
    for z, p in zip(zoned, plain):  # output zoneout leaves states alone
        new = np.isclose(z, p, rtol=1e-5, atol=1e-6)
        old = np.isclose(z, prev, rtol=1e-5, atol=1e-6)
        assert (new | old).all()
        taken += int((new & ~old).sum())
        kept += int((old & ~new).sum())
        prev = z
    assert kept > 0 and taken > 0


@pytest.mark.parametrize("lib_name", ["engine", "mxnet"])
def test_variational_dropout_reuses_one_mask_per_sequence(lib_name):
    lib = mx if lib_name == "engine" else pytest.importorskip("mxnet")
    cell = lib.gluon.contrib.rnn.VariationalDropoutCell(
        lib.gluon.rnn.RNNCell(16, prefix="rnn_"), drop_outputs=0.5
    )
    cell.initialize(lib.init.Uniform(0.5))
    x = np.random.RandomState(2).uniform(-1, 1, (3, 5, 4)).astype(np.float32)
    with lib.autograd.record():
        outs = _steps(lib, cell, x)
    zeros = [o == 0 for o in outs]
    assert 0 < zeros[0].mean() < 1
    for z in zeros[1:]:
        np.testing.assert_array_equal(z, zeros[0])
    with lib.autograd.record():  # a new sequence draws a new mask
        again = _steps(lib, cell, x)
    assert not np.array_equal(again[0] == 0, zeros[0])


def test_contrib_rnn_gaps_are_reported():
    with pytest.raises(NotImplementedError, match="gluon.contrib.rnn.Conv2DLSTMCell"):
        mx.gluon.contrib.rnn.Conv2DLSTMCell
    with mx.as_mxnet():
        from mxnet.gluon.contrib.rnn import LSTMPCell, VariationalDropoutCell  # noqa: F401
        from mxnet.gluon.rnn import ZoneoutCell  # noqa: F401


HELPERS = [
    "_cells_state_info",
    "_cells_begin_state",
    "_get_begin_state",
    "_format_sequence",
    "_mask_sequence_variable_length",
    "_reverse_sequences",
]


@pytest.mark.mxnet
@pytest.mark.parametrize("name", HELPERS)
def test_rnn_cell_helpers_have_mxnets_signatures(name):
    import inspect

    mx_real = pytest.importorskip("mxnet")
    ours = getattr(mx.gluon.rnn.rnn_cell, name)
    theirs = getattr(mx_real.gluon.rnn.rnn_cell, name)
    assert inspect.signature(ours) == inspect.signature(theirs)


def test_a_custom_cell_built_on_the_helpers_unrolls():
    """A cell in the style of MXNet's contrib cells: merge, mask and reverse via the helpers."""
    from hybridlint.engine.gluon.rnn.rnn_cell import (
        _format_sequence,
        _get_begin_state,
        _reverse_sequences,
    )

    cell = mx.gluon.rnn.GRUCell(3)
    cell.initialize()
    x = mx.nd.array(np.random.RandomState(4).uniform(-1, 1, (2, 4, 5)).astype(np.float32))
    steps, axis, F, batch = _format_sequence(4, x, "NTC", False)
    assert len(steps) == 4 and axis == 1 and batch == 2
    states = _get_begin_state(cell, F, None, steps, batch)
    assert [s.shape for s in states] == [(2, 3)]
    backwards = _reverse_sequences(steps, 4)
    np.testing.assert_array_equal(backwards[0].asnumpy(), steps[3].asnumpy())
