"""gluon.rnn cells on the engine against real MXNet 1.9.1: stepping (eager and hybridized),
unroll in both layouts, merged or not, with valid_length, stacked/modified/bidirectional
cells, and unroll traced inside a hybridized block."""

import numpy as np
import pytest

import hybridlint.engine as mx

X = np.random.RandomState(0).normal(size=(2, 3, 4)).astype("float32")


def seeded(block, lib, seed=1):
    """Settle deferred shapes with one unroll, then give every parameter seeded values."""
    block.initialize()
    block.unroll(3, lib.nd.array(X), merge_outputs=True)
    rng = np.random.RandomState(seed)
    for _, p in sorted(block.collect_params().items()):
        p.set_data(lib.nd.array(rng.uniform(-0.5, 0.5, size=p.shape).astype("float32")))
    return block


def stack(lib):
    rnn = lib.gluon.rnn
    cell = rnn.HybridSequentialRNNCell(prefix="s_")
    with cell.name_scope():
        cell.add(rnn.LSTMCell(4))
        cell.add(rnn.DropoutCell(0.0))
        cell.add(rnn.ResidualCell(rnn.GRUCell(4)))
    return cell


def plain_stack(lib):
    rnn = lib.gluon.rnn
    cell = rnn.SequentialRNNCell(prefix="p_")
    with cell.name_scope():
        cell.add(rnn.RNNCell(3, activation="relu"))
        cell.add(rnn.GRUCell(2))
    return cell


CELLS = [
    ("rnn", lambda lib: lib.gluon.rnn.RNNCell(5, prefix="c_")),
    ("rnn_relu", lambda lib: lib.gluon.rnn.RNNCell(5, activation="relu", prefix="c_")),
    ("lstm", lambda lib: lib.gluon.rnn.LSTMCell(5, prefix="c_")),
    ("gru", lambda lib: lib.gluon.rnn.GRUCell(5, prefix="c_")),
    ("hybrid_stack", stack),
    ("plain_stack", plain_stack),
]


def unrolls(cell, lib):
    """Every unroll variant's outputs and states, as numpy."""
    results = []
    out, st = cell.unroll(3, lib.nd.array(X), merge_outputs=True)
    results += [out] + list(st)
    outs, st = cell.unroll(3, lib.nd.array(X.transpose(1, 0, 2)), layout="TNC", merge_outputs=False)
    results += list(outs) + list(st)
    out, st = cell.unroll(3, lib.nd.array(X), merge_outputs=True, valid_length=lib.nd.array([2, 3]))
    results += [out] + list(st)
    return [r.asnumpy() for r in results]


@pytest.mark.mxnet
@pytest.mark.parametrize("name, factory", CELLS, ids=[c[0] for c in CELLS])
def test_unroll_matches_real_mxnet(name, factory):
    mx_real = pytest.importorskip("mxnet")
    ours, theirs = seeded(factory(mx), mx), seeded(factory(mx_real), mx_real)
    assert sorted(ours.collect_params()) == sorted(theirs.collect_params())
    assert repr(ours) == repr(theirs)
    for got, want in zip(unrolls(ours, mx), unrolls(theirs, mx_real)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name, factory", CELLS[:4], ids=[c[0] for c in CELLS[:4]])
def test_hybridized_step_equals_eager_step(name, factory):
    cell = seeded(factory(mx), mx)
    states = cell.begin_state(batch_size=2)
    eager_out, eager_states = cell(mx.nd.array(X[:, 0]), states)
    cell.hybridize()
    for _ in range(2):
        out, new_states = cell(mx.nd.array(X[:, 0]), states)
        np.testing.assert_allclose(out.asnumpy(), eager_out.asnumpy(), rtol=1e-5, atol=1e-6)
        for a, b in zip(new_states, eager_states):
            np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)
    sym_out, sym_states = cell(mx.sym.var("x"), [mx.sym.var("s%d" % i) for i in range(len(states))])
    assert "c_i2h_weight" in sym_out.list_arguments() and len(sym_states) == len(states)


def make_encoder(lib):
    """A bidirectional LSTM/GRU encoder unrolled inside hybrid_forward with given states."""
    rnn = lib.gluon.rnn

    class Encoder(lib.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.cell = rnn.BidirectionalCell(
                    rnn.LSTMCell(3, prefix="l_"), rnn.GRUCell(3, prefix="r_")
                )

        def hybrid_forward(self, F, x, h, c, g):
            out, _ = self.cell.unroll(3, x, begin_state=[h, c, g], merge_outputs=True)
            return out

    return Encoder(prefix="enc_")


def encoder_inputs(lib):
    zeros = lib.nd.zeros((2, 3))
    return [lib.nd.array(X), zeros, zeros, zeros]


def test_unroll_inside_a_hybridized_block_with_given_states():
    enc = make_encoder(mx)
    enc.initialize(mx.init.Xavier())
    eager = enc(*encoder_inputs(mx)).asnumpy()
    enc.hybridize()
    hybrid = enc(*encoder_inputs(mx)).asnumpy()
    assert eager.shape == (2, 3, 6)
    np.testing.assert_allclose(hybrid, eager, rtol=1e-5, atol=1e-6)
    assert enc._cached_graph[1].list_inputs()[:1] == ["data0"]


@pytest.mark.mxnet
def test_hybridized_encoder_matches_real_mxnet():
    mx_real = pytest.importorskip("mxnet")
    ours, theirs = make_encoder(mx), make_encoder(mx_real)
    ours.initialize()
    theirs.initialize()
    ours(*encoder_inputs(mx))
    theirs(*encoder_inputs(mx_real))
    rng = np.random.RandomState(3)
    for name, p in sorted(theirs.collect_params().items()):
        value = rng.uniform(-0.5, 0.5, size=p.shape).astype("float32")
        p.set_data(mx_real.nd.array(value))
        ours.collect_params()[name].set_data(mx.nd.array(value))
    ours.hybridize()
    theirs.hybridize()
    np.testing.assert_allclose(
        ours(*encoder_inputs(mx)).asnumpy(),
        theirs(*encoder_inputs(mx_real)).asnumpy(),
        rtol=1e-5,
        atol=1e-6,
    )


def test_unroll_inside_a_hybridized_block_with_default_states():
    """begin_state is zeros(shape=(0, hidden)): the batch dim comes from graph inference."""

    class Enc(mx.gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.cell = mx.gluon.rnn.GRUCell(6)

        def hybrid_forward(self, F, x):
            return self.cell.unroll(3, x, merge_outputs=True)[0]

    enc = Enc()
    enc.initialize()
    eager = enc(mx.nd.array(X)).asnumpy()
    enc.hybridize()
    np.testing.assert_allclose(enc(mx.nd.array(X)).asnumpy(), eager, rtol=1e-5, atol=1e-6)


def test_unknown_names_say_not_implemented():
    # the fused layers exist now (tests/test_ops_rnn_fused.py); under as_mxnet() a name MXNet
    # lacks too is MXNet's AttributeError (tests/test_compat_names.py)
    with pytest.raises(NotImplementedError, match="mxnet.gluon.rnn.NoSuchCell"):
        mx.gluon.rnn.NoSuchCell
