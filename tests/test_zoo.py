"""Acceptance: the precision corpus testdata/zoo draws no finding and is provably correct.

testdata/zoo holds hybridize-safe model code written the way real model zoos write it
(GluonCV ResNet/MobileNet/SSD/YOLO/FPN, GluonNLP attention/transformer, insightface margin
heads, gluon losses, unrolled RNN cells). Every file must

* draw zero findings from `lint_source` and from the CLI (a CI gate that cries wolf on this
  code would be switched off), and
* run eagerly and hybridized with equal outputs, on the engine and on real MXNet 1.9.1, so a
  file that is not in fact hybridize-safe cannot hide in the corpus.

Each zoo file has `build() -> (net, input_shapes)` and optionally `example_inputs(rng)`.
"""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from hybridlint.cli import cli
from hybridlint.linter import lint_source

ROOT = Path(__file__).resolve().parent.parent
ZOO = ROOT / "testdata" / "zoo"
NAMES = sorted(p.stem for p in ZOO.glob("*.py"))


def test_corpus_is_there():
    assert len(NAMES) >= 8


@pytest.mark.parametrize("name", NAMES)
def test_zoo_file_draws_no_finding(name):
    path = ZOO / (name + ".py")
    source = path.read_text(encoding="utf-8")
    assert "hybrid_forward" in source
    assert lint_source(source, str(path)) == []


def test_zoo_is_clean_through_the_cli_runner():
    result = CliRunner().invoke(cli, ["--no-cache", str(ZOO)])
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output


def test_zoo_is_clean_through_a_real_subprocess():
    proc = subprocess.run(
        [sys.executable, "-m", "hybridlint", "--no-cache", "--format", "json", str(ZOO)],
        capture_output=True,
        text=True,
        cwd=str(ROOT),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def load(name, backend):
    spec = importlib.util.spec_from_file_location(
        "hl_zoo_%s_%s" % (backend, name), ZOO / (name + ".py")
    )
    module = importlib.util.module_from_spec(spec)
    if backend == "engine":
        from hybridlint.engine import as_mxnet

        with as_mxnet():
            spec.loader.exec_module(module)
    else:
        spec.loader.exec_module(module)
    return module


def flatten(out):
    if isinstance(out, (list, tuple)):
        return [leaf for item in out for leaf in flatten(item)]
    return [out]


def inputs_for(module, shapes):
    rng = np.random.RandomState(0)
    if hasattr(module, "example_inputs"):
        return module.example_inputs(rng)
    return [rng.normal(size=s).astype("float32") for s in shapes]


def run(mx, net, inputs):
    return [o.asnumpy() for o in flatten(net(*[mx.nd.array(i, dtype=i.dtype) for i in inputs]))]


def seed_parameters(mx, net, inputs):
    """Initialise, settle deferred shapes, then give every learned parameter seeded values
    (default initialisers leave biases and BatchNorm statistics at 0/1, which would hide
    differences); constants keep their values."""
    net.initialize()
    run(mx, net, inputs)
    rng = np.random.RandomState(1)
    for name, param in sorted(net._collect_params_with_prefix().items()):
        if param.grad_req == "null" and not name.endswith(("running_mean", "running_var")):
            continue
        value = rng.uniform(-0.5, 0.5, size=param.shape).astype("float32")
        if name.endswith("running_var"):
            value = np.abs(value) + 0.5
        param.set_data(mx.nd.array(value))


def eager_and_hybrid(name, backend):
    if backend == "engine":
        import hybridlint.engine as mx
    else:
        import mxnet as mx
    module = load(name, backend)
    net, shapes = module.build()
    inputs = inputs_for(module, shapes)
    seed_parameters(mx, net, inputs)
    eager = run(mx, net, inputs)
    net.hybridize()
    hybrid = run(mx, net, inputs)
    assert len(eager) == len(hybrid)
    for e, h in zip(eager, hybrid):
        assert e.shape == h.shape and e.dtype == h.dtype
        assert np.all(np.isfinite(e))
        np.testing.assert_allclose(h, e, rtol=1e-5, atol=1e-5)
    return eager


@pytest.mark.parametrize("name", NAMES)
def test_zoo_file_hybridizes_equal_to_eager_on_the_engine(name):
    outputs = eager_and_hybrid(name, "engine")
    # the outputs carry information: not every output is one constant value
    assert any(np.ptp(o) > 0 for o in outputs if o.size > 1)


@pytest.mark.mxnet
@pytest.mark.parametrize("name", NAMES)
def test_zoo_file_hybridizes_equal_to_eager_on_real_mxnet(name):
    pytest.importorskip("mxnet")
    mxnet_outputs = eager_and_hybrid(name, "mxnet")
    engine_outputs = eager_and_hybrid(name, "engine")
    assert len(mxnet_outputs) == len(engine_outputs)
    for got, want in zip(engine_outputs, mxnet_outputs):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


# -- real MXNet 1.9.1's own hybrid code ------------------------------------------------------
# MXNet's gluon package (nn, rnn, contrib, model_zoo, loss: ~90 hybrid_forward methods) is
# hybridize-safe code written by MXNet's authors, with four exceptions found by hybridlint and
# confirmed below: PoissonNLLLoss(compute_full=True) (in-place `*=`/`+=`), SDMLLoss (reads
# `.shape` and `.context`), contrib's VariationalDropoutCell (HL013: masks stored on the
# cell while tracing; called step by step hybridized, it draws a new mask every step) and
# ZoneoutCell (HL013: `_prev_output` is the traced Symbol; a standalone hybridized unroll
# zones out to zeros; both in tests/test_rule_hl013_state_mutation.py). Every other finding
# would be a false positive.
MXNET_TRUE_POSITIVES = {
    (
        "gluon/contrib/rnn/rnn_cell.py",
        "HL013",
        "self.drop_inputs_mask = F.Dropout(F.ones_like(inputs),",
    ),
    (
        "gluon/contrib/rnn/rnn_cell.py",
        "HL013",
        "self.drop_states_mask = F.Dropout(F.ones_like(states[0]),",
    ),
    (
        "gluon/contrib/rnn/rnn_cell.py",
        "HL013",
        "self.drop_outputs_mask = F.Dropout(F.ones_like(output),",
    ),
    ("gluon/rnn/rnn_cell.py", "HL013", "self._prev_output = output"),
    ("gluon/loss.py", "HL004", "stirling_factor *= target_gt_1"),
    ("gluon/loss.py", "HL004", "loss += stirling_factor"),
    ("gluon/loss.py", "HL001", "assert x1.shape == x2.shape"),
    ("gluon/loss.py", "HL001", "batch_size, dim = x1.shape"),
    ("gluon/loss.py", "HL001", "batch_size = x1.shape[0]"),
    (
        "gluon/loss.py",
        "HL001",
        "return self.kl_loss(log_probabilities, labels.as_in_context(distances.context))",
    ),
}


@pytest.mark.mxnet
def test_real_mxnet_sources_draw_only_true_positives():
    mxnet = pytest.importorskip("mxnet")
    package = Path(mxnet.__file__).resolve().parent
    found, files = set(), 0
    for path in sorted(package.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "hybrid_forward" not in source:
            continue
        files += 1
        lines = source.splitlines()
        rel = path.relative_to(package).as_posix()
        found |= {(rel, f.code, lines[f.line - 1].strip()) for f in lint_source(source, str(path))}
    assert files >= 15
    assert found == MXNET_TRUE_POSITIVES


@pytest.mark.mxnet
@pytest.mark.parametrize("name", ["PoissonNLLLoss", "SDMLLoss"])
def test_the_mxnet_findings_are_real_hybridize_failures(name):
    mx = pytest.importorskip("mxnet")
    from mxnet.gluon import loss

    block = loss.PoissonNLLLoss(compute_full=True) if name == "PoissonNLLLoss" else loss.SDMLLoss()
    rng = np.random.RandomState(0)
    x = mx.nd.array(rng.uniform(0.1, 1.0, size=(4, 3)))
    y = mx.nd.array(rng.uniform(1.5, 3.0, size=(4, 3)))
    block(x, y)  # eagerly fine
    block.hybridize()
    with pytest.raises((AttributeError, mx.base.MXNetError)):
        block(x, y)
