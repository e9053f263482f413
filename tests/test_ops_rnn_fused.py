"""The fused `RNN` op and gluon's rnn.RNN/LSTM/GRU layers (engine/ops/rnn.py,
engine/gluon/rnn/rnn_layer.py): differential tests against real MXNet 1.9.1 (marked mxnet:
the op eagerly and as a graph, the layers with the same weights eagerly, hybridized, exported
and loaded both ways) and engine-only tests (deferred shapes, parameter names, the fused layer
against its unfused cells)."""

import json
import zlib

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.ops.rnn import param_size
from ops_diff import check_both, rand

MODES = ("rnn_tanh", "rnn_relu", "lstm", "gru")


def _op_case(rng, mode, layers, bidirectional, seq=4, batch=3, isize=5, hidden=4, **extra):
    d = 2 if bidirectional else 1
    proj = extra.get("projection_size")
    arrays = [
        rand(rng, seq, batch, isize),
        rand(rng, param_size(mode, layers, isize, hidden, bidirectional, proj), low=-0.6, high=0.6),
        rand(rng, layers * d, batch, proj or hidden, low=-1, high=1),
    ]
    if mode == "lstm":
        arrays.append(rand(rng, layers * d, batch, hidden, low=-1, high=1))
    kwargs = dict(
        state_size=hidden, num_layers=layers, mode=mode, bidirectional=bidirectional, **extra
    )
    return ("RNN", arrays, kwargs)


CASES = [
    (mode, layers, bi, so)
    for mode in MODES
    for layers in (1, 2)
    for bi in (False, True)
    for so in (False, True)
    if not (layers == 1 and bi and not so)
]


@pytest.mark.mxnet
@pytest.mark.parametrize("mode,layers,bi,state_outputs", CASES)
def test_rnn_op_matches_mxnet(mode, layers, bi, state_outputs):
    # zlib.crc32, not hash(): str hashes change per process, and the recorded MXNet results
    # (tests/recordings/) are keyed by the inputs, which must be the same every run.
    rng = np.random.RandomState(zlib.crc32(repr((mode, layers, bi, state_outputs)).encode()))
    check_both(_op_case(rng, mode, layers, bi, state_outputs=state_outputs))


@pytest.mark.mxnet
def test_rnn_op_ignores_clip_and_sequence_length_like_mxnet_cpu():
    """MXNet 1.9.1's CPU kernel accepts lstm_state_clip_* and sequence_length and ignores both."""
    rng = np.random.RandomState(3)
    name, arrays, kwargs = _op_case(
        rng,
        "lstm",
        1,
        False,
        state_outputs=True,
        lstm_state_clip_min=-0.05,
        lstm_state_clip_max=0.05,
    )
    check_both((name, arrays, kwargs))
    lengths = np.array([2, 4, 1], np.float32)
    check_both((name, arrays + [lengths], dict(kwargs, use_sequence_length=True)))


@pytest.mark.mxnet
def test_rnn_op_errors_like_mxnet():
    mx_real = pytest.importorskip("mxnet")
    rng = np.random.RandomState(4)
    _, arrays, kwargs = _op_case(rng, "gru", 1, False)
    arrays[1] = arrays[1][:-1]  # one parameter short
    for lib in (mx_real, mx):
        with pytest.raises(lib.base.MXNetError):
            lib.nd.RNN(*[lib.nd.array(a) for a in arrays], **kwargs).wait_to_read()
    with pytest.raises(mx_real.base.MXNetError):
        mx_real.nd.RNN(*[mx_real.nd.array(a) for a in arrays], **dict(kwargs, mode="lstmx"))
    with pytest.raises(mx.base.MXNetError):
        mx.nd.RNN(*[mx.nd.array(a) for a in arrays], **dict(kwargs, mode="lstmx"))


def test_rnn_op_infers_parameter_and_state_shapes():
    with mx.name.NameManager():
        sym = mx.sym.RNN(
            mx.sym.var("data"),
            mx.sym.var("p"),
            mx.sym.var("h"),
            mx.sym.var("c"),
            state_size=4,
            num_layers=2,
            mode="lstm",
            bidirectional=True,
            state_outputs=True,
        )
    args, outs, aux = sym.infer_shape(data=(7, 3, 5))
    assert args == [(7, 3, 5), (param_size("lstm", 2, 5, 4, True),), (4, 3, 4), (4, 3, 4)]
    assert outs == [(7, 3, 8), (4, 3, 4), (4, 3, 4)]
    assert sym.list_outputs() == ["rnn0_output", "rnn0_state_output", "rnn0_statecell_output"]
    # 4 gates * 4 hidden * ((5 + 4) + 2) per direction, then (8 + 4 + 2) for layer 2
    assert param_size("lstm", 2, 5, 4, True) == 2 * (16 * 11 + 16 * 14)


@pytest.mark.mxnet
@pytest.mark.parametrize("layers,bi", [(1, False), (2, True), (2, False)])
def test_lstm_projection_matches_mxnet(layers, bi):
    """(MXNet 1.9.1 segfaults on projection without state_outputs; gluon always asks for
    the states, and the engine gives the same output either way.)"""
    rng = np.random.RandomState(10 * layers + bi)
    name, arrays, kwargs = _op_case(
        rng, "lstm", layers, bi, state_outputs=True, projection_size=3, hidden=5
    )
    check_both((name, arrays, kwargs))
    alone = mx.nd.RNN(*[mx.nd.array(a) for a in arrays], **dict(kwargs, state_outputs=False))
    np.testing.assert_array_equal(
        alone.asnumpy(), mx.nd.RNN(*[mx.nd.array(a) for a in arrays], **kwargs)[0].asnumpy()
    )


def test_projection_with_other_modes_is_reported_as_an_engine_gap():
    """MXNet's CPU kernel runs GRU with projection_size without a defined meaning."""
    rng = np.random.RandomState(5)
    _, arrays, kwargs = _op_case(rng, "gru", 1, False)
    with pytest.raises(NotImplementedError):
        mx.nd.RNN(*[mx.nd.array(a) for a in arrays], projection_size=2, **kwargs)


# ----------------------------------------------------------------------------- gluon layers

LAYERS = [
    ("LSTM", {}),
    ("GRU", {}),
    ("RNN", {}),
    ("RNN", {"activation": "tanh"}),
    ("LSTM", {"num_layers": 2, "bidirectional": True, "layout": "NTC"}),
    ("GRU", {"num_layers": 2, "layout": "NTC"}),
    ("RNN", {"bidirectional": True}),
    ("LSTM", {"projection_size": 2, "num_layers": 2, "bidirectional": True}),
]


def _layer(lib, kind, kwargs, **more):
    return getattr(lib.gluon.rnn, kind)(4, prefix="layer_", **dict(kwargs, **more))


def _data(kwargs, rng, seq=5, batch=2, isize=3):
    shape = (batch, seq, isize) if kwargs.get("layout") == "NTC" else (seq, batch, isize)
    return rand(rng, *shape, low=-1, high=1)


@pytest.mark.mxnet
@pytest.mark.parametrize("kind,kwargs", LAYERS)
def test_layer_matches_mxnet_with_the_same_weights(kind, kwargs, tmp_path):
    mx_real = pytest.importorskip("mxnet")
    rng = np.random.RandomState(7)
    x = _data(kwargs, rng)
    want_layer = _layer(mx_real, kind, kwargs)
    want_layer.initialize(mx_real.init.Uniform(0.5))
    want = want_layer(mx_real.nd.array(x))
    path = str(tmp_path / "w.params")
    want_layer.save_parameters(path)
    got_layer = _layer(mx, kind, kwargs)
    got_layer.load_parameters(path)
    assert repr(got_layer) == repr(want_layer)
    assert {k: v.shape for k, v in got_layer.collect_params().items()} == {
        k: v.shape for k, v in want_layer.collect_params().items()
    }
    np.testing.assert_allclose(
        got_layer(mx.nd.array(x)).asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6
    )
    # given begin states: outputs and the final states
    states = [rand(rng, *info["shape"], low=-1, high=1) for info in want_layer.state_info(2)]
    want_out, want_states = want_layer(mx_real.nd.array(x), [mx_real.nd.array(s) for s in states])
    got_layer.hybridize()
    for _ in range(2):  # compile, then the cached plan
        got_out, got_states = got_layer(mx.nd.array(x), [mx.nd.array(s) for s in states])
        for g, w in zip([got_out] + got_states, [want_out] + want_states):
            np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.mxnet
@pytest.mark.parametrize("kind,kwargs", LAYERS[:1] + LAYERS[4:5])
def test_exported_files_load_both_ways(kind, kwargs, tmp_path):
    mx_real = pytest.importorskip("mxnet")
    rng = np.random.RandomState(8)
    x = _data(kwargs, rng)
    real = _layer(mx_real, kind, kwargs)
    real.initialize(mx_real.init.Uniform(0.5))
    real.hybridize()
    want = real(mx_real.nd.array(x))
    real.export(str(tmp_path / "real"))
    # the begin states are graph inputs too (data1, data2), as MXNet traces them
    states = [np.zeros(info["shape"], np.float32) for info in real.state_info(2)]
    names = ["data%d" % i for i in range(1 + len(states))]
    # MXNet's export runs in the engine ...
    ours = mx.gluon.SymbolBlock.imports(
        str(tmp_path / "real-symbol.json"), names, str(tmp_path / "real-0000.params")
    )
    np.testing.assert_allclose(
        ours(*[mx.nd.array(a) for a in [x] + states]).asnumpy(),
        want.asnumpy(),
        rtol=1e-5,
        atol=1e-6,
    )
    # ... and the engine's export of the same weights matches MXNet's graph and runs there
    layer = _layer(mx, kind, kwargs)
    layer.initialize()
    layer.hybridize()
    layer(mx.nd.array(x))
    for name, param in layer.collect_params().items():
        param.set_data(mx.nd.array(real.collect_params()[name].data().asnumpy()))
    layer(mx.nd.array(x))
    layer.export(str(tmp_path / "ours"))
    ours_json = json.loads(open(str(tmp_path / "ours-symbol.json")).read())
    real_json = json.loads(open(str(tmp_path / "real-symbol.json")).read())
    assert [(n["op"], n["name"], n.get("attrs", {}).get("shape")) for n in ours_json["nodes"]] == [
        (n["op"], n["name"], n.get("attrs", {}).get("shape")) for n in real_json["nodes"]
    ]
    assert ours_json["node_row_ptr"] == real_json["node_row_ptr"]
    back = mx_real.gluon.SymbolBlock.imports(
        str(tmp_path / "ours-symbol.json"), names, str(tmp_path / "ours-0000.params")
    )
    np.testing.assert_allclose(
        back(*[mx_real.nd.array(a) for a in [x] + states]).asnumpy(),
        want.asnumpy(),
        rtol=1e-5,
        atol=1e-6,
    )


class _Tagger(mx.gluon.HybridBlock):
    """A parent whose LSTM child learns its input size only from data."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embed = mx.gluon.nn.Dense(6, flatten=False)
            self.lstm = mx.gluon.rnn.LSTM(5, num_layers=2, bidirectional=True, layout="NTC")
            self.out = mx.gluon.nn.Dense(3, flatten=False)

    def hybrid_forward(self, F, x):
        return self.out(self.lstm(self.embed(x)))


@pytest.mark.parametrize("hybridize", [False, True])
def test_deferred_input_size_inside_a_parent(hybridize):
    net = _Tagger()
    net.initialize(mx.init.Uniform(0.3))
    if hybridize:
        net.hybridize()
    x = mx.nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 7, 4)).astype(np.float32))
    out = net(x)
    assert out.shape == (2, 7, 3)
    shapes = {k[len(net.lstm.prefix) :]: v.shape for k, v in net.lstm.collect_params().items()}
    assert shapes["l0_i2h_weight"] == (20, 6) and shapes["r0_i2h_weight"] == (20, 6)
    assert shapes["l1_i2h_weight"] == (20, 10) and shapes["r1_h2h_weight"] == (20, 5)
    # (the projected variant's shapes: test_layer_matches_mxnet_with_the_same_weights)
    other = _Tagger(prefix=net.prefix)
    other.initialize()
    other(x)
    for (_, a), (_, b) in zip(
        sorted(net.collect_params().items()), sorted(other.collect_params().items())
    ):
        b.set_data(a.data())
    if not hybridize:
        other.hybridize()
    np.testing.assert_allclose(other(x).asnumpy(), out.asnumpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind,kwargs", LAYERS[:3] + LAYERS[4:6])
def test_fused_layer_equals_its_unfused_cells(kind, kwargs):
    """The fused op and the step-by-step cells (built independently) agree on one weight set."""
    layer = _layer(mx, kind, kwargs)
    layer.initialize(mx.init.Uniform(0.5))
    x = _data(kwargs, np.random.RandomState(9))
    out = layer(mx.nd.array(x))
    stack = layer._unfuse()
    layout = kwargs.get("layout", "TNC")
    want, _ = stack.unroll(
        x.shape[layout.find("T")], mx.nd.array(x), layout=layout, merge_outputs=True
    )
    np.testing.assert_allclose(out.asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-6)


def test_layer_parameter_names_and_state_checks():
    layer = mx.gluon.rnn.GRU(4, num_layers=2, input_size=3, prefix="g_")
    assert list(layer.collect_params().keys()) == [
        "g_l0_i2h_weight",
        "g_l0_h2h_weight",
        "g_l0_i2h_bias",
        "g_l0_h2h_bias",
        "g_l1_i2h_weight",
        "g_l1_h2h_weight",
        "g_l1_i2h_bias",
        "g_l1_h2h_bias",
    ]
    assert layer.l1_i2h_weight.shape == (12, 4)
    assert sorted(layer._collect_params_with_prefix())[0] == "_unfused.0.h2h_bias"
    layer.initialize()
    x = mx.nd.zeros((5, 2, 3))
    with pytest.raises(ValueError, match="Invalid recurrent state shape"):
        layer(x, mx.nd.zeros((2, 3, 4)))
    out, states = layer(x, mx.nd.zeros((2, 2, 4)))
    assert out.shape == (5, 2, 4) and states[0].shape == (2, 2, 4)
