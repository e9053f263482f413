"""HybridBlock.export / SymbolBlock.imports: the engine's files load in real MXNet 1.9.1 and
MXNet's load in the engine, with the same outputs (rtol 1e-5).

Models are built by the same function on both libraries (`lib` is `mxnet` or the engine) with
explicit prefixes, so parameter names agree and values can be copied across by name.
"""

import json
import re

import numpy as np
import pytest

import hybridlint.engine as mx


def mlp(lib):
    nn = lib.gluon.nn
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(16, activation="relu"), nn.Dense(8, activation="tanh"), nn.Dense(3))
    return net, [(2, 5)]


def two_inputs(lib):
    class TwoIn(lib.gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.proj = lib.gluon.nn.Dense(4, in_units=3, flatten=False)
                self.scale = self.params.get("scale", shape=(1, 4), init=lib.init.One())
                self.offset = self.params.get_constant("offset", [[0.5, -0.5, 1.0, 0.0]])

        def hybrid_forward(self, F, a, b, scale, offset):
            h = F.broadcast_mul(self.proj(a), scale)
            h = F.broadcast_add(h, offset)
            return F.batch_dot(h, b, transpose_b=True), F.sigmoid(h)

    return TwoIn(prefix="two_"), [(2, 3, 3), (2, 5, 4)]


def convnet(lib):
    nn = lib.gluon.nn
    net = nn.HybridSequential(prefix="cnn_")
    with net.name_scope():
        net.add(
            nn.Conv2D(4, kernel_size=3, padding=1),
            nn.BatchNorm(),
            nn.Activation("relu"),
            nn.MaxPool2D(pool_size=2),
            nn.Conv2D(6, kernel_size=3, use_bias=False),
            nn.GlobalAvgPool2D(),
            nn.Flatten(),
            nn.Dense(3),
        )
    return net, [(2, 3, 8, 8)]


def unicode_names(lib):
    """Non-ASCII and characters dmlc escapes (quote, backslash, tab, LF) or writes raw (0x01)
    in block prefixes, a parameter and an op name; quotes inside attribute values (__init__)."""

    class Scaled(lib.gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.proj = lib.gluon.nn.Dense(4, in_units=3, prefix='dénse"q\\b\t_')
                self.scale = self.params.get(
                    "échelle\x01\n", shape=(1, 4), lr_mult=0.5, init=lib.init.Constant(0.25)
                )

        def hybrid_forward(self, F, x, scale):
            return F.broadcast_mul(F.relu(self.proj(x), name="活性化"), scale)

    return Scaled(prefix="模型é_"), [(2, 3)]


MODELS = [mlp, two_inputs, convnet, unicode_names]


def read_graph(path):
    """A -symbol.json file as dmlc writes it: UTF-8, control characters other than CR/LF/tab
    raw inside strings (so not strict JSON)."""
    return json.loads(path.read_bytes().decode("utf-8"), strict=False)


def random_inputs(shapes, seed=0):
    rng = np.random.RandomState(seed)
    return [rng.normal(size=s).astype("float32") for s in shapes]


def run(net, lib, inputs):
    out = net(*[lib.nd.array(i) for i in inputs])
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [o.asnumpy() for o in outs]


def materialise(net, lib, inputs, seed=1):
    """Initialise, run once (deferred shapes), then set seeded random parameter values."""
    net.initialize()
    run(net, lib, inputs)
    rng = np.random.RandomState(seed)
    for name, p in sorted(net.collect_params().items()):
        value = rng.uniform(0.5, 1.5, size=p.shape).astype("float32")
        if name.endswith(("running_mean", "weight", "bias")):
            value -= 1.0
        p.set_data(lib.nd.array(value))
    return {n: p.data().asnumpy() for n, p in net.collect_params().items()}


@pytest.mark.parametrize("model", MODELS)
def test_engine_export_then_engine_imports(tmp_path, model):
    net, shapes = model(mx)
    inputs = random_inputs(shapes)
    materialise(net, mx, inputs)
    net.hybridize()
    expected = run(net, mx, inputs)
    net.export(str(tmp_path / "m"), epoch=3)
    names = ["data"] if len(shapes) == 1 else ["data%d" % i for i in range(len(shapes))]
    back = mx.gluon.SymbolBlock.imports(
        str(tmp_path / "m-symbol.json"), names, str(tmp_path / "m-0003.params")
    )
    for got, want in zip(run(back, mx, inputs), expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    saved = mx.nd.load(str(tmp_path / "m-0003.params"))
    graph = read_graph(tmp_path / "m-symbol.json")
    args = {n["name"] for n in graph["nodes"] if n["op"] == "null"} - set(names)
    assert {k[4:] for k in saved} == args
    assert all(k.startswith(("arg:", "aux:")) for k in saved)


@pytest.mark.mxnet
@pytest.mark.parametrize("model", MODELS)
def test_same_outputs_and_files_as_real_mxnet(tmp_path, model):
    mx_real = pytest.importorskip("mxnet")
    ours, shapes = model(mx)
    theirs, _ = model(mx_real)
    inputs = random_inputs(shapes)
    values = materialise(ours, mx, inputs)
    materialise(theirs, mx_real, inputs)
    for name, p in theirs.collect_params().items():
        p.set_data(mx_real.nd.array(values[name]))
    for hybrid in (False, True):
        if hybrid:
            ours.hybridize()
            theirs.hybridize()
        for got, want in zip(run(ours, mx, inputs), run(theirs, mx_real, inputs)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    ours.export(str(tmp_path / "ours"))
    theirs.export(str(tmp_path / "theirs"))
    assert sorted(mx.nd.load(str(tmp_path / "ours-0000.params"))) == sorted(
        mx_real.nd.load(str(tmp_path / "theirs-0000.params"))
    )
    ours_graph = read_graph(tmp_path / "ours-symbol.json")
    theirs_graph = read_graph(tmp_path / "theirs-symbol.json")
    assert [(n["op"], n["name"]) for n in ours_graph["nodes"]] == [
        (n["op"], n["name"]) for n in theirs_graph["nodes"]
    ]
    assert ours_graph["arg_nodes"] == theirs_graph["arg_nodes"]
    assert ours_graph["heads"] == theirs_graph["heads"]
    if model is not two_inputs:  # its Constant's __init__ attribute embeds an object id
        # Known difference: MXNet counts how often an aux state (BatchNorm's running
        # stats) was fed to an op in the input entry's third field; the engine writes 0.
        def unversioned(text):
            return re.sub(r"\[(\d+), (\d+), \d+\]", r"[\1, \2, 0]", text)

        ours_text = unversioned((tmp_path / "ours-symbol.json").read_bytes().decode("utf-8"))
        theirs_text = unversioned((tmp_path / "theirs-symbol.json").read_bytes().decode("utf-8"))
        ours_graph = json.loads(ours_text, strict=False)
        theirs_graph = json.loads(theirs_text, strict=False)
        if ours_graph["node_row_ptr"] != theirs_graph["node_row_ptr"]:
            del ours_graph["node_row_ptr"], theirs_graph["node_row_ptr"]
            assert ours_graph == theirs_graph
            pytest.xfail(
                "known engine gap: MXNet's BatchNorm node has 3 outputs (2 hidden) "
                "counted in node_row_ptr; the engine registry has no hidden outputs"
            )
        assert ours_text == theirs_text
    if model in (mlp, unicode_names):  # nothing version-dependent: the very same bytes
        assert (tmp_path / "ours-symbol.json").read_bytes() == (
            tmp_path / "theirs-symbol.json"
        ).read_bytes()


@pytest.mark.mxnet
@pytest.mark.parametrize("model", MODELS)
def test_engine_export_loads_in_real_mxnet(tmp_path, model):
    mx_real = pytest.importorskip("mxnet")
    net, shapes = model(mx)
    inputs = random_inputs(shapes)
    materialise(net, mx, inputs)
    net.hybridize()
    expected = run(net, mx, inputs)
    net.export(str(tmp_path / "eng"), epoch=1)
    names = ["data"] if len(shapes) == 1 else ["data%d" % i for i in range(len(shapes))]
    loaded = mx_real.gluon.SymbolBlock.imports(
        str(tmp_path / "eng-symbol.json"), names, str(tmp_path / "eng-0001.params")
    )
    for got, want in zip(run(loaded, mx_real, inputs), expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.mxnet
@pytest.mark.parametrize("model", MODELS)
def test_real_mxnet_export_loads_in_the_engine(tmp_path, model):
    mx_real = pytest.importorskip("mxnet")
    net, shapes = model(mx_real)
    inputs = random_inputs(shapes)
    materialise(net, mx_real, inputs)
    net.hybridize()
    expected = run(net, mx_real, inputs)
    net.export(str(tmp_path / "real"), epoch=2)
    names = ["data"] if len(shapes) == 1 else ["data%d" % i for i in range(len(shapes))]
    loaded = mx.gluon.SymbolBlock.imports(
        str(tmp_path / "real-symbol.json"), names, str(tmp_path / "real-0002.params")
    )
    for hybrid in (False, True):
        if hybrid:
            loaded.hybridize()
        for got, want in zip(run(loaded, mx, inputs), expected):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_symbol_block_from_internals_shares_parameters():
    net, shapes = mlp(mx)
    inputs = random_inputs(shapes)
    materialise(net, mx, inputs)
    data = mx.sym.var("data")
    internals = net(data).get_internals()
    feat = mx.gluon.SymbolBlock(
        internals["mlp_dense0_relu_fwd_output"], data, params=net.collect_params()
    )
    hidden = feat(mx.nd.array(inputs[0])).asnumpy()
    w = net[0].weight.data().asnumpy()
    b = net[0].bias.data().asnumpy()
    np.testing.assert_allclose(hidden, np.maximum(inputs[0] @ w.T + b, 0), rtol=1e-5, atol=1e-6)


def test_imports_with_wrong_names_or_missing_file_fail_clearly(tmp_path):
    net, shapes = mlp(mx)
    inputs = random_inputs(shapes)
    materialise(net, mx, inputs)
    net.hybridize()
    run(net, mx, inputs)
    net.export(str(tmp_path / "m"))
    with pytest.raises(AssertionError, match="is missing in file"):
        mx.gluon.SymbolBlock.imports(
            str(tmp_path / "m-symbol.json"), ["input"], str(tmp_path / "m-0000.params")
        )
    with pytest.raises(Exception, match="m-0001.params"):
        mx.gluon.SymbolBlock.imports(
            str(tmp_path / "m-symbol.json"), ["data"], str(tmp_path / "m-0001.params")
        )


def half_embedding(lib):
    """A float16 Embedding (a translator's): its saved weight is float16, while the inputs of
    an imported graph are untyped (float32 by inference); imports reads the saved dtype."""

    class Translator(lib.gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.embedding = lib.gluon.nn.Embedding(20, 6, dtype="float16")
                self.out = lib.gluon.nn.Dense(3, flatten=False)

        def hybrid_forward(self, F, tokens):
            return self.out(F.cast(self.embedding(tokens), "float32"))

    return Translator(prefix="translator_")


@pytest.mark.parametrize("lib_name", ["engine", pytest.param("mxnet", marks=pytest.mark.mxnet)])
def test_imports_reads_the_saved_dtype_of_a_float16_parameter(tmp_path, lib_name):
    lib = mx if lib_name == "engine" else pytest.importorskip("mxnet")
    net = half_embedding(lib)
    net.initialize()
    tokens = lib.nd.array([[1, 5, 3, 0], [2, 7, 9, 19]])
    net.hybridize()
    expected = net(tokens).asnumpy()
    net.export(str(tmp_path / "t"))
    back = lib.gluon.SymbolBlock.imports(
        str(tmp_path / "t-symbol.json"), ["data"], str(tmp_path / "t-0000.params")
    )
    assert back.collect_params()["translator_embedding0_weight"].dtype == np.float16
    np.testing.assert_allclose(back(tokens).asnumpy(), expected, rtol=1e-6)
