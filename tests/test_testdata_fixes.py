"""testdata/hazards -> testdata/fixed: the README's first example, proven by running it.

(a) `hybridlint --fix --unsafe-fixes` rewrites every hazard file into its testdata/fixed twin
    byte for byte (the core and the CLI), and fixing the result changes nothing;
(b) on the bundled engine, and (c) on real MXNet 1.9.1: every original runs eagerly but fails
    or diverges hybridized; every fixed model hybridizes, and its hybridized outputs equal the
    ORIGINAL's eager outputs (same inputs, parameters copied by name, rtol 1e-5).

resnet_block's original uses `nn.Sequential` children, which MXNet 1.9.1 refuses when the
HybridBlock is built (HL010); its eager reference is computed with that check lifted for
the construction only, i.e. the code exactly as the author wrote it, run imperatively.
"""

import contextlib
import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest

from hybridlint.linter import fix_source

ROOT = Path(__file__).resolve().parent.parent / "testdata"
HAZARDS = ROOT / "hazards"
FIXED = ROOT / "fixed"
NAMES = sorted(p.stem for p in HAZARDS.glob("*.py"))
BUILT_WITH_NON_HYBRID_CHILDREN = {"resnet_block"}  # HL010: refused at construction by 1.9.1
BACKENDS = [
    pytest.param("engine", id="engine"),
    pytest.param("mxnet", id="mxnet", marks=pytest.mark.mxnet),
]


def test_every_hazard_has_a_fixed_twin():
    assert NAMES == sorted(p.stem for p in FIXED.glob("*.py")) and len(NAMES) >= 4


# -- (a) the fix reproduces testdata/fixed ---------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_fix_reproduces_fixed_file_and_reaches_a_fixed_point(name):
    path = HAZARDS / (name + ".py")
    original = path.read_text()
    # line_length: the CLI's default (black's 88), so lines the fixes lengthen are wrapped
    result = fix_source(original, str(path), unsafe=True, line_length=88)
    assert result.source == (FIXED / (name + ".py")).read_text()
    assert result.applied, "the hazard file must hold fixable hazards"
    assert not [f for f in result.remaining if f.fix], result.remaining
    again = fix_source(result.source, str(path), unsafe=True, line_length=88)
    assert again.source == result.source and not again.applied


def test_cli_fix_writes_the_fixed_files(tmp_path):
    from click.testing import CliRunner

    from hybridlint.cli import cli

    work = tmp_path / "hazards"
    shutil.copytree(HAZARDS, work)
    outcome = CliRunner().invoke(
        cli, ["check", "--fix", "--unsafe-fixes", "--no-cache", "-j", "1", "--exit-zero", str(work)]
    )
    assert outcome.exit_code == 0, outcome.output
    for name in NAMES:
        assert (work / (name + ".py")).read_bytes() == (FIXED / (name + ".py")).read_bytes(), name


# -- (b)/(c) running them ------------------------------------------------------------------
def load(folder: Path, name: str, backend: str):
    """Import <folder>/<name>.py as a fresh module, on the engine (as_mxnet) or real MXNet."""
    if backend == "mxnet":
        pytest.importorskip("mxnet")
    spec = importlib.util.spec_from_file_location(
        f"hl_{folder.name}_{backend}_{name}", folder / (name + ".py")
    )
    module = importlib.util.module_from_spec(spec)
    if backend == "engine":
        from hybridlint.engine import as_mxnet

        with as_mxnet():
            spec.loader.exec_module(module)
            import mxnet
    else:
        spec.loader.exec_module(module)
        import mxnet
    # the MXNet the module ran with: a fixed file may no longer import `mx` itself (--fix
    # drops `import mxnet as mx` once its fixes removed the last reader)
    module.hl_mx = mxnet
    return module


@contextlib.contextmanager
def non_hybrid_children_allowed(module):
    """Let a HybridBlock register plain Block children (MXNet's check lifted), for building
    the original's eager reference only."""
    hybrid = module.hl_mx.gluon.HybridBlock
    saved = hybrid.__dict__["register_child"]
    hybrid.register_child = module.hl_mx.gluon.Block.register_child
    try:
        yield
    finally:
        hybrid.register_child = saved


def inputs_for(module, shapes):
    rng = np.random.RandomState(0)
    if hasattr(module, "example_inputs"):
        return module.example_inputs(rng)
    return [rng.normal(size=s).astype("float32") for s in shapes]


def run(net, module, inputs):
    out = net(*[module.hl_mx.nd.array(i) for i in inputs])
    return [o.asnumpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def seeded(net, module, inputs):
    """Initialise, settle deferred shapes, give every trainable parameter and running
    statistic seeded values; returns {full name: value} (constants keep theirs)."""
    net.initialize()
    run(net, module, inputs)
    rng = np.random.RandomState(1)
    values = {}
    for name, param in sorted(net.collect_params().items()):
        if param.grad_req == "null" and not name.endswith(("running_mean", "running_var")):
            values[name] = param.data().asnumpy()
            continue
        value = rng.uniform(-0.5, 0.5, size=param.shape).astype("float32")
        if name.endswith("running_var"):
            value = np.abs(value) + 0.5
        param.set_data(module.hl_mx.nd.array(value))
        values[name] = value
    return values


def build_original(name: str, backend: str):
    module = load(HAZARDS, name, backend)
    if name in BUILT_WITH_NON_HYBRID_CHILDREN:
        with pytest.raises(ValueError, match="Children of HybridBlock must also be HybridBlock"):
            module.build()
        with non_hybrid_children_allowed(module):
            net, shapes = module.build()
    else:
        net, shapes = module.build()
    return module, net, shapes


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_original_runs_eagerly_but_not_hybridized(name, backend):
    module, net, shapes = build_original(name, backend)
    inputs = inputs_for(module, shapes)
    seeded(net, module, inputs)
    eager = run(net, module, inputs)
    assert all(np.all(np.isfinite(e)) for e in eager)
    if name in BUILT_WITH_NON_HYBRID_CHILDREN:
        return  # refused at construction (checked in build_original)
    net.hybridize()
    try:
        hybrid = run(net, module, inputs)
    except Exception:  # noqa: BLE001 - any hybridize failure is the point
        return
    diverges = len(hybrid) != len(eager) or any(
        h.shape != e.shape or not np.allclose(h, e, rtol=1e-5, atol=1e-6)
        for h, e in zip(hybrid, eager)
    )
    assert diverges, f"{name}: the hazard file hybridizes with equal outputs on {backend}"


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NAMES)
def test_fixed_hybridizes_and_equals_original_eager(name, backend):
    module, original, shapes = build_original(name, backend)
    inputs = inputs_for(module, shapes)
    values = seeded(original, module, inputs)
    expected = run(original, module, inputs)

    fixed_module = load(FIXED, name, backend)
    fixed, _ = fixed_module.build()
    fixed.initialize()
    run(fixed, fixed_module, inputs)  # deferred shapes
    params = fixed.collect_params()
    for pname, value in values.items():
        params[pname].set_data(fixed_module.hl_mx.nd.array(value))
    added = set(params.keys()) - set(values)
    assert all(params[p].grad_req == "null" for p in added), added  # only HL005's constants are new
    fixed.hybridize()
    for _ in range(2):  # the second call runs the cached graph
        got = run(fixed, fixed_module, inputs)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.shape == e.shape and g.dtype == e.dtype
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-6)
