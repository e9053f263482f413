"""Known false positives on correct model code (testdata/zoo_known_fp), kept as strict xfails.

Each file there is correct hybrid code (checked below: eager == hybridized on the engine and
on real MXNet) that hybridlint still reports. When the analysis learns to recognise it, the
xfails turn into failures and the file moves to testdata/zoo.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from hybridlint.linter import fix_source, lint_source

ROOT = Path(__file__).resolve().parent.parent
KNOWN_FP = ROOT / "testdata" / "zoo_known_fp"
NAMES = sorted(p.stem for p in KNOWN_FP.glob("*.py"))
# file stem -> why hybridlint still reports it (each becomes a strict xfail). Empty since the
# analysis recognises list inputs (list_inputs.py moved to testdata/zoo).
REASONS: dict = {}


def known_fp_cases():
    for name in NAMES:
        reason = REASONS.get(name, "known false positive: add its reason to REASONS")
        yield pytest.param(name, id=name, marks=pytest.mark.xfail(strict=True, reason=reason))


def run(source, name, backend):
    spec = importlib.util.spec_from_loader("hl_known_fp_%s_%s" % (backend, name), loader=None)
    module = importlib.util.module_from_spec(spec)
    if backend == "engine":
        import hybridlint.engine as mx
        from hybridlint.engine import as_mxnet

        with as_mxnet():
            exec(compile(source, name + ".py", "exec"), module.__dict__)
    else:
        import mxnet as mx

        exec(compile(source, name + ".py", "exec"), module.__dict__)
    mx.random.seed(0)
    net, shapes = module.build()
    net.initialize()
    rng = np.random.RandomState(0)
    inputs = [mx.nd.array(rng.normal(size=s).astype("float32")) for s in shapes]
    eager = [o.asnumpy() for o in net(*inputs)]
    net.hybridize()
    hybrid = [o.asnumpy() for o in net(*inputs)]
    for e, h in zip(eager, hybrid):
        np.testing.assert_allclose(h, e, rtol=1e-5, atol=1e-6)
    return eager


@pytest.mark.parametrize("name", NAMES)
def test_known_fp_file_is_correct_code_on_the_engine(name):
    run((KNOWN_FP / (name + ".py")).read_text(), name, "engine")


@pytest.mark.mxnet
@pytest.mark.parametrize("name", NAMES)
def test_known_fp_file_is_correct_code_on_real_mxnet(name):
    pytest.importorskip("mxnet")
    run((KNOWN_FP / (name + ".py")).read_text(), name, "mxnet")


@pytest.mark.parametrize("name", list(known_fp_cases()))
def test_known_fp_file_draws_no_finding(name):
    path = KNOWN_FP / (name + ".py")
    assert lint_source(path.read_text(), str(path)) == []


@pytest.mark.parametrize("name", NAMES)
def test_safe_fixes_keep_the_known_fp_file_running(name):
    """The finding is a false positive, but a default --fix must not break the file: HL003's
    fix on an input nothing proves to be an array (feats[-1] on a list) is unsafe."""
    source = (KNOWN_FP / (name + ".py")).read_text()
    fixed = fix_source(source, name + ".py").source
    run(fixed, name, "engine")
