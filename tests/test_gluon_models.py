"""The realistic model files in testdata/models run on the engine (under as_mxnet(), as user
code would) eagerly and hybridized, export/import round-trip, and match real MXNet."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from hybridlint.engine import as_mxnet

MODELS = Path(__file__).resolve().parent.parent / "testdata" / "models"
NAMES = ["resnet_block", "attention", "ssd_head", "positional_encoding"]


def load(name: str, backend: str):
    """Import testdata/models/<name>.py as a fresh module, on the engine or real MXNet."""
    spec = importlib.util.spec_from_file_location(
        "hl_model_%s_%s" % (backend, name), MODELS / (name + ".py")
    )
    module = importlib.util.module_from_spec(spec)
    if backend == "engine":
        with as_mxnet():
            spec.loader.exec_module(module)
    else:
        spec.loader.exec_module(module)
    return module


def inputs_for(module, shapes, seed=0):
    rng = np.random.RandomState(seed)
    if hasattr(module, "example_inputs"):
        return module.example_inputs(rng)
    return [rng.normal(size=s).astype("float32") for s in shapes]


def run(net, module, inputs):
    out = net(*[module.mx.nd.array(i) for i in inputs])
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [o.asnumpy() for o in outs]


def seeded_params(net, module, inputs, seed=1):
    """Initialise, settle deferred shapes, then give every parameter seeded values."""
    net.initialize()
    run(net, module, inputs)
    rng = np.random.RandomState(seed)
    values = {}
    for name, p in sorted(net._collect_params_with_prefix().items()):
        if p.grad_req == "null" and not name.endswith(("running_mean", "running_var")):
            values[name] = p.data().asnumpy()  # constants keep their value
            continue
        value = rng.uniform(-0.5, 0.5, size=p.shape).astype("float32")
        if name.endswith("running_var"):
            value = np.abs(value) + 0.5
        p.set_data(module.mx.nd.array(value))
        values[name] = value
    return values


@pytest.mark.parametrize("name", NAMES)
def test_model_runs_eagerly_and_hybridized_on_the_engine(name, tmp_path):
    module = load(name, "engine")
    net, shapes = module.build()
    inputs = inputs_for(module, shapes)
    seeded_params(net, module, inputs)
    eager = run(net, module, inputs)
    net.hybridize()
    hybrid = run(net, module, inputs)
    again = run(net, module, inputs)
    assert len(eager) == len(hybrid)
    for e, h, a in zip(eager, hybrid, again):
        assert np.all(np.isfinite(e))
        np.testing.assert_allclose(h, e, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(a, h)
    net.export(str(tmp_path / name))
    names = ["data"] if len(shapes) == 1 else ["data%d" % i for i in range(len(shapes))]
    back = module.mx.gluon.SymbolBlock.imports(
        str(tmp_path / (name + "-symbol.json")), names, str(tmp_path / (name + "-0000.params"))
    )
    for got, want in zip(run(back, module, inputs), hybrid):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_attention_mask_hides_keys():
    module = load("attention", "engine")
    net, shapes = module.build()
    inputs = inputs_for(module, shapes)
    seeded_params(net, module, inputs)
    net.hybridize()
    _, attn = run(net, module, inputs)
    mask = np.repeat(inputs[2][:, None], 3, axis=1).reshape(-1, 4, 5)
    assert np.all(attn[mask == 0] == 0)
    np.testing.assert_allclose(attn.sum(-1), 1.0, rtol=1e-5)


@pytest.mark.mxnet
@pytest.mark.parametrize("name", NAMES)
def test_model_matches_real_mxnet(name):
    pytest.importorskip("mxnet")
    ours_mod, theirs_mod = load(name, "engine"), load(name, "mxnet")
    ours, shapes = ours_mod.build()
    theirs, _ = theirs_mod.build()
    inputs = inputs_for(ours_mod, shapes)
    values = seeded_params(ours, ours_mod, inputs)
    theirs.initialize()
    run(theirs, theirs_mod, inputs)
    theirs_params = theirs._collect_params_with_prefix()
    assert sorted(theirs_params) == sorted(values)
    for pname, p in theirs_params.items():
        p.set_data(theirs_mod.mx.nd.array(values[pname]))
    for hybrid in (False, True):
        if hybrid:
            ours.hybridize()
            theirs.hybridize()
        for got, want in zip(run(ours, ours_mod, inputs), run(theirs, theirs_mod, inputs)):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
