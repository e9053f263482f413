"""testdata/fixes/*.py: fixed by the real linter, run on real MXNet and on the engine.

Each file holds a realistic block written eagerly with hazards that HL001-HL004 fix. The
original must break under hybridize(); the fixed file, eager and hybridized, must return the
original's eager outputs (the issue's "rewritten testdata hybridizes with equal outputs").
"""

from pathlib import Path

import numpy as np
import pytest

from hybridlint.linter import fix_source, lint_source

FIXES = Path(__file__).resolve().parent.parent / "testdata" / "fixes"
CASES = [("pooling_head.py", "PoolingHead", {"units": 6, "classes": 3}, [(2, 5, 4)])]
BACKENDS = [
    pytest.param("engine", id="engine"),
    pytest.param("mxnet", id="mxnet", marks=pytest.mark.mxnet),
]


def backend_module(name):
    if name == "mxnet":
        return pytest.importorskip("mxnet")
    import hybridlint.engine as engine

    return engine


def load(source: str, name: str, mx):
    """Exec a testdata file with `mxnet` resolving to the chosen backend."""
    if mx.__name__ == "mxnet":
        namespace = {"__name__": "testdata_fix"}
        exec(compile(source, name, "exec"), namespace)
        return namespace
    from hybridlint.engine import as_mxnet

    with as_mxnet():
        namespace = {"__name__": "testdata_fix"}
        exec(compile(source, name, "exec"), namespace)
    return namespace


def outputs(namespace, class_name, kwargs, shapes, mx, hybridize):
    mx.random.seed(7)
    net = namespace[class_name](**kwargs)
    net.initialize(mx.init.Xavier())
    if hybridize:
        net.hybridize()
    rng = np.random.RandomState(0)
    arrays = [mx.nd.array(rng.uniform(-1, 1, shape)) for shape in shapes]
    out = net(*arrays)
    return [o.asnumpy() for o in (out if isinstance(out, (list, tuple)) else [out])], net


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("filename, class_name, kwargs, shapes", CASES)
def test_fixed_file_hybridizes_with_the_original_eager_outputs(
    backend, filename, class_name, kwargs, shapes
):
    mx = backend_module(backend)
    source = (FIXES / filename).read_text()
    findings = lint_source(source)
    assert {f.code for f in findings} >= {"HL001", "HL003", "HL004"}
    result = fix_source(source)
    assert result.remaining == [], result.remaining
    assert fix_source(result.source).source == result.source

    original = load(source, filename, mx)
    eager, reference_net = outputs(original, class_name, kwargs, shapes, mx, hybridize=False)
    # the original fails under hybridize() with whatever its first hazard raises on the backend
    # (AttributeError, NotImplementedForSymbol, MXNetError...): any error is the finding
    with pytest.raises(Exception):  # noqa: B017
        outputs(original, class_name, kwargs, shapes, mx, hybridize=True)

    fixed = load(result.source, filename, mx)
    for hybridize in (False, True):
        got, net = outputs(fixed, class_name, kwargs, shapes, mx, hybridize)
        # same initial weights: copy them from the reference net (names differ by prefix)
        for (_, mine), (_, theirs) in zip(
            sorted(net.collect_params().items()), sorted(reference_net.collect_params().items())
        ):
            mine.set_data(theirs.data())
        rng = np.random.RandomState(0)
        arrays = [mx.nd.array(rng.uniform(-1, 1, shape)) for shape in shapes]
        out = net(*arrays)
        got = [o.asnumpy() for o in (out if isinstance(out, (list, tuple)) else [out])]
        assert len(got) == len(eager)
        for a, b in zip(got, eager):
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
