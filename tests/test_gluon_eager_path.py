"""The lean eager call path of HybridBlock (block.py:_EagerCall) behaves exactly like the
general one: every change of parameters, hooks, contexts or arguments is seen.

The path caches a non-hybridized block's parameter dict; these tests change what the cache
could get wrong between two calls and compare with what the general path (and MXNet 1.9.1)
gives. The `mxnet`-marked test runs the same sequence on real MXNet.
"""

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine import gluon
from hybridlint.engine.gluon import nn


def _dense(units=2, in_units=3):
    net = nn.Dense(units, in_units=in_units)
    net.initialize(mx.init.One())
    return net


def test_lean_path_is_installed_and_gives_the_general_result():
    net = _dense()
    x = mx.nd.ones((1, 3))
    first = net(x).asnumpy()
    assert net._fast is not None
    np.testing.assert_allclose(net(x).asnumpy(), first)
    np.testing.assert_allclose(first, [[3.0, 3.0]])


def test_reinitialise_set_data_load_and_cast_are_seen(tmp_path):
    net = _dense()
    x = mx.nd.ones((1, 3))
    net(x)
    net(x)
    net.initialize(mx.init.Constant(2.0), force_reinit=True)
    np.testing.assert_allclose(net(x).asnumpy(), [[6.0, 6.0]])
    net.weight.set_data(mx.nd.zeros((2, 3)))
    np.testing.assert_allclose(net(x).asnumpy(), [[0.0, 0.0]])
    other = _dense()
    other.initialize(mx.init.Constant(3.0), force_reinit=True)
    other.save_parameters(str(tmp_path / "p.params"))
    net.load_parameters(str(tmp_path / "p.params"))
    np.testing.assert_allclose(net(x).asnumpy(), [[9.0, 9.0]])  # Dense bias: "zeros" init
    net.cast("float64")
    out = net(mx.nd.ones((1, 3), dtype="float64"))
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.asnumpy(), [[9.0, 9.0]])


def test_deferred_initialisation_inside_a_sequential():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize(mx.init.One())
    for _ in range(3):  # the first call initialises the children while the parent runs
        np.testing.assert_allclose(net(mx.nd.ones((1, 3))).asnumpy(), [[12.0, 12.0]])
    assert net[0].weight.shape == (4, 3)


def test_hooks_registered_after_lean_calls_run():
    net = _dense()
    x = mx.nd.ones((1, 3))
    net(x)
    net(x)
    calls = []
    pre = net.register_forward_pre_hook(lambda blk, inp: calls.append("pre"))
    post = net.register_forward_hook(lambda blk, inp, out: calls.append(out.shape))
    net(x)
    assert calls == ["pre", (1, 2)]
    pre.detach()
    post.detach()
    net(x)
    net(x)
    assert calls == ["pre", (1, 2)]


def test_child_hooks_inside_a_sequential_run_every_call():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
    net.initialize()
    x = mx.nd.ones((2, 3))
    net(x)
    net(x)
    seen = []
    net[1].register_forward_hook(lambda blk, inp, out: seen.append(inp[0].shape))
    net(x)
    net(x)
    assert seen == [(2, 4), (2, 4)]


def test_assigning_a_new_parameter_is_seen():
    class Scale(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.s = self.params.get("s", shape=(1,), init=mx.init.One())

        def hybrid_forward(self, F, x, **params):
            return F.broadcast_mul(x, params["s"]) + sum(
                F.sum(v) for k, v in params.items() if k != "s"
            )

    blk = Scale(prefix="scale_")
    blk.initialize()
    x = mx.nd.ones((2,))
    blk(x)
    blk(x)
    blk.t = blk.params.get("t", shape=(1,), init=mx.init.Constant(5.0))
    blk.t.initialize()
    np.testing.assert_allclose(blk(x).asnumpy(), [6.0, 6.0])


def test_rebound_hybrid_forward_and_none_results_run_once():
    calls = []

    class Side(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            calls.append(1)
            return None

    blk = Side()
    x = mx.nd.ones((1,))
    assert blk(x) is None
    assert blk(x) is None
    assert len(calls) == 2  # never twice per call
    blk.hybrid_forward = lambda F, x: x * 3
    np.testing.assert_allclose(blk(x).asnumpy(), [3.0])


def test_other_arguments_take_the_general_path():
    class Two(gluon.HybridBlock):
        def hybrid_forward(self, F, a, b=None):
            return a if b is None else a + b

    blk = Two()
    a = mx.nd.ones((2,))
    blk(a)
    blk(a)
    np.testing.assert_allclose(blk(a, a).asnumpy(), [2.0, 2.0])
    np.testing.assert_allclose(blk(a, None).asnumpy(), [1.0, 1.0])
    with pytest.raises(ValueError, match="mixed NDArrays and Symbols"):
        blk(a, mx.sym.var("b"))
    out = blk(mx.sym.var("a"))
    assert isinstance(out, mx.sym.Symbol)


def test_enclosing_context_is_seen_inside_hybrid_forward():
    seen = []

    class Ctx(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            seen.append(mx.context.current_context())
            return x

    blk = Ctx()
    x = mx.nd.ones((1,))
    blk(x)
    blk(x)
    with mx.cpu(1):
        blk(x)
    assert seen == [mx.cpu(0)] * 3  # forward enters x.context (cpu(0)) as MXNet does


def test_hybridize_after_lean_eager_calls_and_back():
    net = _dense()
    x = mx.nd.ones((1, 3))
    net(x)
    net(x)
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), [[3.0, 3.0]])
    np.testing.assert_allclose(net(x).asnumpy(), [[3.0, 3.0]])
    assert net._cached_op is not None
    net.hybridize(False)
    net.weight.set_data(mx.nd.full((2, 3), 2.0))
    np.testing.assert_allclose(net(x).asnumpy(), [[6.0, 6.0]])
    np.testing.assert_allclose(net(x).asnumpy(), [[6.0, 6.0]])


def test_overridden_forward_keeps_the_general_path():
    class Fwd(nn.Dense):
        def forward(self, x):
            return super().forward(x) * 2

    blk = Fwd(2, in_units=3)
    blk.initialize(mx.init.One())
    x = mx.nd.ones((1, 3))
    blk(x)
    np.testing.assert_allclose(blk(x).asnumpy(), [[6.0, 6.0]])
    assert blk._fast is None


@pytest.mark.mxnet
def test_same_sequence_as_real_mxnet():
    mx_real = pytest.importorskip("mxnet")
    results = []
    for lib in (mx_real, mx):
        net = lib.gluon.nn.HybridSequential()
        with net.name_scope():
            net.add(lib.gluon.nn.Dense(4, activation="relu"), lib.gluon.nn.Dense(2))
        net.initialize(lib.init.Constant(0.5))
        x = lib.nd.array(np.arange(6, dtype=np.float32).reshape(2, 3))
        got = [net(x).asnumpy(), net(x).asnumpy()]
        net[0].weight.set_data(lib.nd.ones((4, 3)))
        got.append(net(x).asnumpy())
        net.initialize(lib.init.One(), force_reinit=True)
        got.append(net(x).asnumpy())
        net[1].bias.set_data(lib.nd.array([1.0, -1.0]))
        got.append(net(x).asnumpy())
        results.append(got)
    for theirs, ours in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6)


# Dense/Conv with activation="relu" apply the relu to their own fresh FullyConnected or
# Convolution output in place once the Activation child's lean eager path is installed
# (nn/activations.py:_activate_fresh): same values, and the child's hooks, hybridization and
# subclasses still take the ordinary call.


def _relu_layers():
    dense = nn.Dense(5, activation="relu", in_units=4)
    conv = nn.Conv2D(3, kernel_size=3, activation="relu", in_channels=2)
    for layer in (dense, conv):
        layer.initialize(mx.init.Uniform(1.0))
    rng = np.random.RandomState(4)
    return [(dense, rng.randn(6, 4)), (conv, rng.randn(2, 2, 6, 6))]


def _reference(layer, x):
    """The layer's relu by hand: its pre-activation with no activation applied."""
    data = mx.nd.array(x, dtype=layer.weight.data().dtype)
    if isinstance(layer, nn.Dense):
        pre = mx.nd.FullyConnected(
            data, layer.weight.data(), layer.bias.data(), num_hidden=layer._units
        )
    else:
        pre = mx.nd.Convolution(data, layer.weight.data(), layer.bias.data(), **layer._kwargs)
    return np.maximum(pre.asnumpy(), 0), pre.asnumpy()


@pytest.mark.parametrize("index", [0, 1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_of_a_layer_runs_in_place_with_the_same_values(monkeypatch, index, dtype):
    layer, x = _relu_layers()[index]
    layer.cast(dtype)
    calls = []
    real = nn.Activation.hybrid_forward
    monkeypatch.setattr(
        nn.Activation, "hybrid_forward", lambda self, F, x: calls.append(1) or real(self, F, x)
    )
    want, _ = _reference(layer, x.astype(dtype))
    outs = [layer(mx.nd.array(x, dtype=dtype)).asnumpy() for _ in range(3)]
    for out in outs:
        np.testing.assert_array_equal(out, want.astype(dtype))
        assert out.dtype == np.dtype(dtype)
    assert len(calls) == 1  # the first call installs the child's lean path; then in place
    layer.hybridize()
    np.testing.assert_allclose(layer(mx.nd.array(x, dtype=dtype)).asnumpy(), want, rtol=1e-6)


@pytest.mark.parametrize("index", [0, 1])
def test_relu_child_hooks_see_the_pre_activation_every_call(index):
    layer, x = _relu_layers()[index]
    want, pre = _reference(layer, x)
    layer(mx.nd.array(x))  # the in-place path is ready...
    seen = []
    layer.act.register_forward_hook(
        lambda blk, inp, out: seen.append((inp[0].asnumpy(), out.asnumpy()))
    )
    for _ in range(2):  # ...and the hook turns it off
        np.testing.assert_array_equal(layer(mx.nd.array(x)).asnumpy(), want)
    assert len(seen) == 2
    for inp, out in seen:
        np.testing.assert_allclose(inp, pre, rtol=1e-6)  # not overwritten by the relu
        assert (inp < 0).any()
        np.testing.assert_array_equal(out, want)


def test_a_hybridized_relu_child_runs_its_own_graph():
    layer, x = _relu_layers()[0]
    layer(mx.nd.array(x))
    layer.act.hybridize()
    want, _ = _reference(layer, x)
    for _ in range(2):
        np.testing.assert_array_equal(layer(mx.nd.array(x)).asnumpy(), want)
    assert layer.act._cached_op is not None
