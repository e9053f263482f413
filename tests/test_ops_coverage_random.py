"""Random ops added for the model zoos' coverage (engine/ops/random_sample.py) against real
MXNet 1.9.1. Random streams differ between MXNet and numpy, so values are never compared:
shapes, dtypes, output names and graph JSON are compared exactly; distributions by summary
statistics of many draws (tolerances a few standard errors wide); seeding by reproducibility
(same seed, same draws; another seed, other draws) in both libraries."""

import json

import numpy as np
import pytest

import hybridlint.engine as mx

N = 20000


def _call(lib, name, arrays, kwargs):
    fn = (
        getattr(lib.nd.random, name[len("random.") :])
        if name.startswith("random.")
        else getattr(lib.nd, name)
    )
    return fn(*[lib.nd.array(a, dtype=a.dtype) for a in arrays], **kwargs)


def _sym(lib, name, n_inputs, kwargs):
    fn = (
        getattr(lib.sym.random, name[len("random.") :])
        if name.startswith("random.")
        else getattr(lib.sym, name)
    )
    with lib.name.NameManager():
        return fn(*[lib.sym.var("x%d" % i) for i in range(n_inputs)], **kwargs)


def _outs(r):
    return [o.asnumpy() for o in (r if isinstance(r, (list, tuple)) else [r])]


# (name, inputs, kwargs, per-output check(samples, inputs) -> (mean, std) to compare)
CASES = [
    ("random.uniform_like", [np.zeros((N,), np.float32)], {"low": -1.0, "high": 3.0}),
    ("random.uniform_like", [np.zeros((40, N // 40), np.float16)], {}),
    ("random.normal_like", [np.zeros((N,), np.float64)], {"loc": 2.0, "scale": 0.5}),
    (
        "sample_normal",
        [np.array([0.0, 5.0], np.float32), np.array([1.0, 0.1], np.float32)],
        {"shape": (N,)},
    ),
    (
        "sample_normal",
        [np.array([[1.0]], np.float64), np.array([[2.0]], np.float64)],
        {"shape": (100, N // 100), "dtype": "float64"},
    ),
    (
        "sample_uniform",
        [np.array([0.0, -2.0], np.float32), np.array([1.0, 2.0], np.float32)],
        {"shape": N},
    ),
    (
        "sample_multinomial",
        [np.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]], np.float32)],
        {"shape": (N,)},
    ),
    (
        "sample_multinomial",
        [np.array([0.25, 0.25, 0.5], np.float32)],
        {"shape": (N,), "get_prob": True},
    ),
    (
        "random.multinomial",
        [np.array([[0.7, 0.3]], np.float64)],
        {"shape": (N,), "dtype": "float32", "get_prob": True},
    ),
    # get_prob left to its default, which differs: False for mx.nd, True for mx.sym (a Symbol
    # of two outputs)
    ("random.multinomial", [np.array([[0.7, 0.3]], np.float32)], {"shape": (N,)}),
]


def _stats(samples, axis):
    """Mean and std per leading element (the distribution's parameters vary along axis 0)."""
    flat = samples.reshape(samples.shape[:axis] + (-1,)).astype(np.float64)
    return flat.mean(axis=-1), flat.std(axis=-1)


def _lead_axes(name, arrays):
    return 0 if "like" in name else arrays[0].ndim - ("multinomial" in name)


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] + str(c[2]))
def test_eager_shapes_dtypes_and_distributions_match_mxnet(case):
    mx_real = pytest.importorskip("mxnet")
    name, arrays, kwargs = case
    want = _outs(_call(mx_real, name, arrays, kwargs))
    got = _outs(_call(mx, name, arrays, kwargs))
    assert [(g.shape, g.dtype) for g in got] == [(w.shape, w.dtype) for w in want]
    axis = _lead_axes(name, arrays)
    for g, w in zip(got, want):
        gm, gs = _stats(g, axis)
        wm, ws = _stats(w, axis)
        se = np.maximum(ws, 1e-3) / np.sqrt(g.size / gm.size)  # standard error of a mean
        np.testing.assert_allclose(gm, wm, atol=float(np.max(6 * se)) + 2e-3)
        np.testing.assert_allclose(gs, ws, rtol=0.05, atol=2e-3)
    if "multinomial" in name:  # category frequencies, not just their mean
        k = arrays[0].shape[-1]
        for g, w in [(got[0], want[0])]:
            gf = np.stack([(g == c).mean() for c in range(k)])
            wf = np.stack([(w == c).mean() for c in range(k)])
            np.testing.assert_allclose(gf, wf, atol=0.02)


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] + str(c[2]))
def test_graph_structure_matches_mxnet(case):
    mx_real = pytest.importorskip("mxnet")
    name, arrays, kwargs = case
    want = _sym(mx_real, name, len(arrays), kwargs)
    got = _sym(mx, name, len(arrays), kwargs)
    assert got.list_arguments() == want.list_arguments()
    assert got.list_outputs() == want.list_outputs()
    wj, gj = json.loads(want.tojson()), json.loads(got.tojson())
    assert gj["node_row_ptr"] == wj["node_row_ptr"]
    assert [n["op"] for n in gj["nodes"]] == [n["op"] for n in wj["nodes"]]
    shapes = {"x%d" % i: a.shape for i, a in enumerate(arrays)}
    types = {"x%d" % i: a.dtype for i, a in enumerate(arrays)}
    assert got.infer_shape(**shapes) == want.infer_shape(**shapes)
    assert [list(map(np.dtype, t)) for t in got.infer_type(**types)] == [
        list(map(np.dtype, t)) for t in want.infer_type(**types)
    ]
    # the engine's JSON runs in MXNet with outputs of the same shapes and dtypes
    exe = mx_real.sym.load_json(got.tojson()).bind(
        mx_real.cpu(),
        {k: mx_real.nd.array(a, dtype=a.dtype) for k, a in zip(sorted(shapes), arrays)},
    )
    ours = mx.nd.CachedOp(got)(*[mx.nd.array(a, dtype=a.dtype) for a in arrays])
    assert [(o.shape, o.dtype) for o in _outs(ours)] == [
        (o.shape, o.dtype) for o in _outs(exe.forward())
    ]


@pytest.mark.mxnet
def test_sample_normal_rejects_mismatched_parameters_like_mxnet():
    mx_real = pytest.importorskip("mxnet")
    for lib in (mx_real, mx):
        with pytest.raises(lib.base.MXNetError):
            lib.nd.sample_normal(
                lib.nd.array([0.0, 1.0]), lib.nd.array([1.0, 2.0, 3.0]), shape=2
            ).wait_to_read()


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] + str(c[2]))
def test_seeding_reproduces_and_graphs_draw_anew(case):
    name, arrays, kwargs = case
    mx.random.seed(11)
    a = _outs(_call(mx, name, arrays, kwargs))
    mx.random.seed(11)
    b = _outs(_call(mx, name, arrays, kwargs))
    mx.random.seed(12)
    c = _outs(_call(mx, name, arrays, kwargs))
    for x, y, z in zip(a, b, c):
        np.testing.assert_array_equal(x, y)
        assert not np.array_equal(x, z)
    op = mx.nd.CachedOp(_sym(mx, name, len(arrays), kwargs))
    first = _outs(op(*[mx.nd.array(v, dtype=v.dtype) for v in arrays]))
    second = _outs(op(*[mx.nd.array(v, dtype=v.dtype) for v in arrays]))
    assert not np.array_equal(first[0], second[0])  # never constant-folded


def test_multinomial_values_are_valid_categories_with_their_log_probabilities():
    probs = np.array([[0.0, 0.2, 0.8], [1.0, 0.0, 0.0]], np.float32)
    idx, logp = mx.nd.sample_multinomial(mx.nd.array(probs), shape=(500,), get_prob=True)
    idx, logp = idx.asnumpy(), logp.asnumpy()
    assert idx.dtype == np.int32 and set(np.unique(idx[0])) == {1, 2}
    assert (idx[1] == 0).all()
    np.testing.assert_allclose(logp, np.log(np.take_along_axis(probs, idx, axis=1)), rtol=1e-6)
    assert mx.nd.sample_multinomial(mx.nd.array([0.5, 0.5])).shape == (1,)


_MULTINOMIAL_BLOCK = """
class Net(HybridBlock):
    def hybrid_forward(self, F, p):
        return F.random.multinomial(p).astype('float32') + F.sum(p, axis=1)
"""


@pytest.mark.parametrize("backend_name", ["engine", pytest.param("mxnet", marks=pytest.mark.mxnet)])
def test_random_multinomial_used_as_one_array_fails_only_hybridized(backend_name):
    """gluonts' MixtureDistribution.sample: one array eagerly, a Symbol of two outputs
    (samples, log-probabilities) hybridized, which an operator cannot take as one input."""
    from tests.ground_truth_support import backend, net_class

    lib = backend(backend_name)
    p = lib.nd.array(np.array([[0.7, 0.3], [0.1, 0.9]], np.float32))
    assert net_class(_MULTINOMIAL_BLOCK, lib)()(p).shape == (2,)
    block = net_class(_MULTINOMIAL_BLOCK, lib)()
    block.hybridize()
    with pytest.raises(lib.base.MXNetError, match="2 outputs|outputs.size"):
        block(p).wait_to_read()
