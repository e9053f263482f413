"""Block / HybridBlock behaviour on the engine: naming, tracing once, graph inputs, nesting.

Engine-only tests state MXNet 1.9.1's documented behaviour; the `mxnet`-marked ones run the
same script on real MXNet and on the engine and compare everything printed.
"""

import contextlib
import io
import json
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hybridlint.engine as mx
from hybridlint.engine import gluon
from hybridlint.engine.gluon import nn


class TutorialNet(gluon.HybridBlock):
    """The HybridBlock of the "Fast, portable neural networks" tutorial (seed 002)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.fc1 = nn.Dense(256)
            self.fc2 = nn.Dense(128)
            self.fc3 = nn.Dense(2)

    def hybrid_forward(self, F, x):
        print("type(x): {}, F: {}".format(type(x).__name__, F.__name__))
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def captured(fn):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        result = fn()
    return out.getvalue(), result


def test_tutorial_net_traces_once_when_hybridized():
    net = TutorialNet()
    net.collect_params().initialize()
    x = mx.nd.array(np.random.RandomState(0).normal(size=(1, 512)))
    eager_prints, eager = captured(lambda: [net(x), net(x)])
    assert eager_prints == "type(x): NDArray, F: mxnet.ndarray\n" * 2
    net.hybridize()
    first, hybrid1 = captured(lambda: net(x))
    later, hybrid2 = captured(lambda: [net(x), net(x)])
    assert first == "type(x): Symbol, F: mxnet.symbol\n"
    assert later == ""
    np.testing.assert_allclose(hybrid1.asnumpy(), eager[0].asnumpy(), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(hybrid2[1].asnumpy(), eager[0].asnumpy(), rtol=1e-5, atol=1e-7)


def test_a_new_input_shape_reuses_the_graph_without_retracing():
    net = TutorialNet()
    net.initialize()
    net.hybridize()
    captured(lambda: net(mx.nd.ones((1, 512))))
    prints, out = captured(lambda: net(mx.nd.ones((3, 512))))
    assert prints == "" and out.shape == (3, 2)


def test_mlp_graph_matches_the_json_printed_in_the_tutorial():
    """Seed 002 prints the symbol JSON of its HybridSequential MLP: same nodes, ops, attrs."""
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(256, activation="relu"))
        net.add(nn.Dense(128, activation="relu"))
        net.add(nn.Dense(2))
    graph = json.loads(net(mx.sym.var("data")).tojson())
    p = net.prefix
    ops = [(n["op"], n["name"]) for n in graph["nodes"]]
    assert ops == [
        ("null", "data"),
        ("null", p + "dense0_weight"),
        ("null", p + "dense0_bias"),
        ("FullyConnected", p + "dense0_fwd"),
        ("Activation", p + "dense0_relu_fwd"),
        ("null", p + "dense1_weight"),
        ("null", p + "dense1_bias"),
        ("FullyConnected", p + "dense1_fwd"),
        ("Activation", p + "dense1_relu_fwd"),
        ("null", p + "dense2_weight"),
        ("null", p + "dense2_bias"),
        ("FullyConnected", p + "dense2_fwd"),
    ]
    nodes = {n["name"]: n for n in graph["nodes"]}
    assert nodes[p + "dense0_weight"]["attrs"] == {
        "__dtype__": "0",
        "__lr_mult__": "1.0",
        "__shape__": "(256, 0)",
        "__storage_type__": "0",
        "__wd_mult__": "1.0",
    }
    assert nodes[p + "dense0_bias"]["attrs"]["__init__"] == "zeros"
    assert nodes[p + "dense1_fwd"]["attrs"] == {
        "flatten": "True",
        "no_bias": "False",
        "num_hidden": "128",
    }
    assert nodes[p + "dense0_relu_fwd"]["attrs"] == {"act_type": "relu"}
    assert graph["arg_nodes"] == [0, 1, 2, 5, 6, 9, 10]
    assert graph["heads"] == [[11, 0, 0]]


def test_parameter_names_follow_prefixes_and_name_scope():
    top = nn.Dense(3)
    assert top.weight.name == top.prefix + "weight"
    assert top.prefix.startswith("dense") and top.prefix.endswith("_")
    net = TutorialNet(prefix="net_")
    assert list(net.collect_params().keys()) == [
        "net_dense0_weight",
        "net_dense0_bias",
        "net_dense1_weight",
        "net_dense1_bias",
        "net_dense2_weight",
        "net_dense2_bias",
    ]
    seq = nn.HybridSequential(prefix="s_")
    with seq.name_scope():
        seq.add(nn.Dense(2), nn.Activation("relu"), nn.Conv2D(2, 3), nn.MaxPool2D(), nn.Dense(2))
    assert [c.prefix for c in seq._children.values()] == [
        "s_dense0_",
        "s_relu0_",
        "s_conv0_",
        "s_pool0_",
        "s_dense1_",
    ]
    a, b = TutorialNet(), TutorialNet()
    assert int(b.prefix[len("tutorialnet") : -1]) == int(a.prefix[len("tutorialnet") : -1]) + 1


def test_collect_params_select_is_a_regex_match():
    net = TutorialNet(prefix="m_")
    assert list(net.collect_params(".*weight").keys()) == [
        "m_dense0_weight",
        "m_dense1_weight",
        "m_dense2_weight",
    ]
    assert list(net.collect_params("m_dense1_.*|m_dense2_bias").keys()) == [
        "m_dense1_weight",
        "m_dense1_bias",
        "m_dense2_bias",
    ]


def test_deferred_shape_inference_eager_and_hybridized():
    for hybridize in (False, True):
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Dense(120), nn.Dense(10, in_units=120))
        net.initialize()
        with pytest.raises(gluon.DeferredInitializationError):
            net[0].weight.data()
        if hybridize:
            net.hybridize()
        out = net(mx.nd.ones((4, 7, 3)))
        assert out.shape == (4, 10)
        assert net[0].weight.shape == (120, 21)
        assert net[0].weight.data().shape == (120, 21)


def test_parameters_are_keyword_arguments_data_eagerly_var_symbolically():
    seen = []

    class Scale(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.w = self.params.get("w", shape=(1, 3), init=mx.init.One())

        def hybrid_forward(self, F, x, w):
            seen.append(type(w).__name__ + ":" + (w.name if type(w).__name__ == "Symbol" else ""))
            return F.broadcast_mul(x, w)

    blk = Scale(prefix="sc_")
    blk.initialize()
    blk(mx.nd.ones((2, 3)))
    blk.hybridize()
    blk(mx.nd.ones((2, 3)))
    assert seen == ["NDArray:", "Symbol:sc_w"]


def test_graph_inputs_are_data_or_data0_data1():
    class Two(gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return F.broadcast_add(a, b), a

    two = Two()
    two.hybridize()
    out = two(mx.nd.ones((2,)), mx.nd.ones((2,)))
    assert isinstance(out, list) and len(out) == 2
    assert two._cached_graph[1].list_inputs() == ["data0", "data1"]
    one = nn.Dense(2, in_units=2)
    one.initialize()
    one.hybridize()
    one(mx.nd.ones((1, 2)))
    assert one._cached_graph[1].list_inputs()[0] == "data"


def test_nested_hybrid_blocks_inline_into_one_graph():
    net = TutorialNet(prefix="outer_")
    net.initialize()
    net.hybridize()
    captured(lambda: net(mx.nd.ones((1, 5))))
    graph = net._cached_graph[1]
    ops = [n["op"] for n in json.loads(graph.tojson())["nodes"] if n["op"] != "null"]
    assert ops == ["FullyConnected", "relu", "FullyConnected", "relu", "FullyConnected"]
    # children were called symbolically inside the parent's trace, not via their own cache
    assert all(c._cached_op is None for c in net._children.values())


def test_plain_block_hybridize_hybridizes_hybrid_children():
    class Outer(gluon.Block):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.inner = TutorialNet()

        def forward(self, x):
            return self.inner(x) * 2

    net = Outer()
    net.initialize()
    net.hybridize()
    assert net.inner._active
    first, _ = captured(lambda: net(mx.nd.ones((1, 4))))
    second, _ = captured(lambda: net(mx.nd.ones((1, 4))))
    assert first.count("Symbol") == 1 and second == ""


def test_hybrid_block_refuses_non_hybrid_children():
    net = nn.HybridSequential()
    with pytest.raises(ValueError, match="Children of HybridBlock must also be HybridBlock"):
        net.add(nn.Sequential())


def test_hooks_run_and_disable_the_fast_path():
    net = nn.Dense(2, in_units=3)
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((1, 3))
    net(x)
    net(x)
    assert net._fast is not None
    calls = []
    handle = net.register_forward_hook(lambda blk, inp, out: calls.append(out.shape))
    net(x)
    assert calls == [(1, 2)] and net._fast is None
    handle.detach()
    net(x)
    assert calls == [(1, 2)]


def test_fast_path_sees_reinitialised_and_loaded_parameters(tmp_path):
    net = nn.Dense(2, in_units=3)
    net.initialize()
    net.hybridize()
    x = mx.nd.ones((1, 3))
    net(x)
    net(x)
    net.initialize(mx.init.One(), force_reinit=True)
    np.testing.assert_allclose(net(x).asnumpy(), [[3.0, 3.0]])
    net.weight.set_data(mx.nd.zeros((2, 3)))
    np.testing.assert_allclose(net(x).asnumpy(), [[0.0, 0.0]])
    other = nn.Dense(2, in_units=3)
    other.initialize(mx.init.Constant(2.0))
    other.save_parameters(str(tmp_path / "p.params"))
    net.load_parameters(str(tmp_path / "p.params"))
    np.testing.assert_allclose(net(x).asnumpy(), [[6.0, 6.0]])


def test_fast_path_follows_new_shapes_and_dtypes_and_raises_on_bad_ones():
    """The hybridized one-input path checks only the data argument against the last plan
    (CachedOp.bind_one): a new batch size must compile a new plan, going back must reuse the
    old one, and a bad shape or dtype must raise MXNet's error on every call."""
    net = nn.Dense(2, in_units=3)
    net.initialize(mx.init.One())
    net.hybridize()
    for rows in (1, 4, 1, 4):
        x = mx.nd.ones((rows, 3))
        np.testing.assert_allclose(net(x).asnumpy(), np.full((rows, 2), 3.0))
    assert net._fast is not None and len(net._cached_op._cache.plans) == 2
    for _ in range(2):
        with pytest.raises(mx.base.MXNetError, match="dtype"):  # float32 parameters
            net(mx.nd.ones((2, 3), dtype="float64"))
        with pytest.raises(mx.base.MXNetError):
            net(mx.nd.ones((2, 5)))
    np.testing.assert_allclose(net(mx.nd.ones((1, 3))).asnumpy(), [[3.0, 3.0]])


def test_mixed_symbol_and_ndarray_inputs_are_refused():
    class Two(gluon.HybridBlock):
        def hybrid_forward(self, F, a, b):
            return a + b

    with pytest.raises(ValueError, match="mixed NDArrays and Symbols"):
        Two()(mx.nd.ones((1,)), mx.sym.var("b"))


def test_unused_parameter_warns_when_building_the_cache():
    class Unused(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.w = self.params.get("w", shape=(2,))

        def hybrid_forward(self, F, x, w):
            return x * 2

    blk = Unused(prefix="u_")
    blk.initialize()
    blk.hybridize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        blk(mx.nd.ones((2,)))
    assert any("Parameter u_w is not used by any computation" in str(w.message) for w in caught)


def test_export_before_a_hybridized_forward_raises():
    net = nn.Dense(2, in_units=2)
    net.initialize()
    with pytest.raises(RuntimeError, match="Please first call block.hybridize"):
        net.export("nowhere")


SCRIPT = textwrap.dedent("""
    import sys, json, importlib
    mx = importlib.import_module(sys.argv[1])
    nn = mx.gluon.nn

    class Net(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super(Net, self).__init__(**kwargs)
            with self.name_scope():
                self.fc1 = nn.Dense(256)
                self.fc2 = nn.Dense(128, activation='tanh')
                self.fc3 = nn.Dense(2)
                self.extra = self.params.get('extra', shape=(2, 2))

        def hybrid_forward(self, F, x, extra):
            print('type(x): {}, F: {}'.format(type(x).__name__, F.__name__))
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return F.dot(self.fc3(x), extra, transpose_b=True), x

    net = Net()
    net.collect_params().initialize()
    print(net)
    print(net.collect_params())
    x = mx.nd.ones((1, 512))
    for _ in range(2):
        y = net(x)
    net.hybridize()
    for _ in range(2):
        y = net(x)
    print(type(y).__name__, [o.shape for o in y])
    s = net(mx.sym.var('data'))
    print(s, s[0].list_arguments(), s[1].list_outputs())
    g = json.loads(net._cached_graph[1].tojson())
    g['attrs'] = None
    print(json.dumps(g, sort_keys=True))
    seq = nn.HybridSequential()
    with seq.name_scope():
        seq.add(nn.Dense(4, activation='relu'), nn.Dropout(0.5), nn.Dense(3))
    print(seq)
    print(seq[1:])
    print(len(seq), seq[0].name, seq[1].name, seq[2].name)
    print(nn.Sequential().name, nn.HybridSequential().prefix)
    small = nn.HybridSequential()
    with small.name_scope():
        small.add(nn.Conv2D(4, 3, activation='relu'), nn.BatchNorm(), nn.MaxPool2D(),
                  nn.Dense(10, activation='relu'), nn.Dense(3))
    small.initialize()
    small.summary(mx.nd.ones((2, 3, 8, 8)))
    """)


@pytest.mark.mxnet
def test_same_prints_names_and_graph_as_real_mxnet(tmp_path):
    pytest.importorskip("mxnet")
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)

    def run(module):
        proc = subprocess.run(
            [sys.executable, str(script), module], capture_output=True, text=True, timeout=120
        )
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert run("hybridlint.engine") == run("mxnet")


def test_fast_path_keeps_the_output_structure():
    class Outs(gluon.HybridBlock):
        def __init__(self, shape, **kw):
            super().__init__(**kw)
            self.shape = shape

        def hybrid_forward(self, F, x):
            if self.shape == "one-list":
                return [x * 2]
            if self.shape == "two":
                return x * 2, x + 1
            return x * 2

    x = mx.nd.ones((2,))
    for shape, check in (
        ("single", lambda o: o.shape == (2,)),
        ("one-list", lambda o: isinstance(o, list) and len(o) == 1),
        ("two", lambda o: isinstance(o, list) and len(o) == 2),
    ):
        blk = Outs(shape)
        blk.hybridize()
        results = [blk(x) for _ in range(3)]
        assert blk._fast is not None
        assert all(check(r) for r in results), shape
        assert type(results[0]) is type(results[2])


_leaf = st.sampled_from(["nd", "none"])
nested = st.recursive(_leaf, lambda kids: st.lists(kids, min_size=1, max_size=3), max_leaves=6)


def _materialise(spec):
    if spec == "nd":
        return mx.nd.ones((1,))
    if spec == "none":
        return None
    return [_materialise(s) for s in spec]


def _same_structure(a, b):
    if isinstance(a, list):
        return (
            isinstance(b, list)
            and len(a) == len(b)
            and all(_same_structure(x, y) for x, y in zip(a, b))
        )
    return a is b


@settings(max_examples=60, deadline=None)
@given(nested)
def test_flatten_then_regroup_is_the_identity(spec):
    from hybridlint.engine.gluon.block import _flatten, _regroup

    value = _materialise(spec)
    flat, fmt = _flatten(value, "input")
    assert all(v is None or isinstance(v, mx.nd.NDArray) for v in flat)
    assert _same_structure(_regroup(flat, fmt), value)


def test_nested_list_inputs_trace_with_numbered_data_names():
    class Pairwise(gluon.HybridBlock):
        def hybrid_forward(self, F, pair, third):
            return F.broadcast_add(pair[0], pair[1]) * third

    blk = Pairwise()
    args = ([mx.nd.ones((2,)), mx.nd.ones((2,)) * 2], mx.nd.ones((2,)) * 3)
    eager = blk(*args).asnumpy()
    blk.hybridize()
    np.testing.assert_array_equal(blk(*args).asnumpy(), eager)
    assert blk._cached_graph[1].list_inputs() == ["data0", "data1", "data2"]
    with pytest.raises(ValueError, match="does not match the cached version"):
        blk(mx.nd.ones((2,)), mx.nd.ones((2,)))


def test_symbol_block_called_on_symbols_composes():
    net = TutorialNet(prefix="tn_")
    net.initialize()
    data = mx.sym.var("data")
    with contextlib.redirect_stdout(io.StringIO()):
        out = net(data)
    block = gluon.SymbolBlock(out, data, params=net.collect_params())
    composed = block(mx.sym.var("other"))
    assert "other" in composed.list_arguments() and "data" not in composed.list_arguments()
