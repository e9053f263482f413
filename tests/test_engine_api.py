"""Module-level API of the engine: mx.nd helpers (add, maximum ... with scalars), random
sampling, contexts, autograd scopes, name scopes; against real MXNet where it is installed."""

import numpy as np
import pytest

import hybridlint.engine as mx
from fix_support import backend_module

HELPERS = [
    "add",
    "subtract",
    "multiply",
    "divide",
    "modulo",
    "power",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "lesser",
    "lesser_equal",
    "true_divide",
    "logical_and",
    "logical_or",
    "logical_xor",
]


@pytest.fixture(autouse=True)
def _fresh_names():
    """Auto-named nodes (relu0, convolution0 ...) of these tests never shift the global
    counters other test modules may rely on."""
    with mx.name.NameManager():
        yield


@pytest.mark.mxnet
@pytest.mark.parametrize("name", HELPERS)
def test_nd_helpers_match_mxnet(name):
    m = pytest.importorskip("mxnet")
    a = np.array([[1.5, 2.0, -3.0]], np.float32)
    b = np.array([[2.0], [0.5]], np.float32)
    for lhs, rhs in ((a, b), (a, 2.0), (3.0, b), (a, a)):

        def conv(lib, v):
            return lib.nd.array(v) if isinstance(v, np.ndarray) else v

        want = getattr(m.nd, name)(conv(m, lhs), conv(m, rhs))
        got = getattr(mx.nd, name)(conv(mx, lhs), conv(mx, rhs))
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-5)


def _sym_helper_builds(name):
    """Builders of `sym.<name>` on two symbols, a symbol and a number, a number and a symbol."""
    return (
        lambda lib: getattr(lib.sym, name)(lib.sym.var("a"), lib.sym.var("b")),
        lambda lib: getattr(lib.sym, name)(lib.sym.var("a"), 2.0),
        lambda lib: getattr(lib.sym, name)(2.0, lib.sym.var("a")),
    )


@pytest.mark.mxnet
def test_sym_helpers_match_mxnet():
    m = pytest.importorskip("mxnet")
    for name in ("maximum", "minimum", "power", "hypot"):
        for build in _sym_helper_builds(name):
            with m.name.NameManager():
                want = build(m)
            with mx.name.NameManager():
                got = build(mx)
            assert got.tojson().replace(" ", "").replace("\n", "") == want.tojson().replace(
                " ", ""
            ).replace("\n", "")


@pytest.mark.mxnet
def test_random_ops_shapes_dtypes_and_names_match_mxnet():
    m = pytest.importorskip("mxnet")
    for fn in (
        lambda lib: lib.nd.random_normal(shape=(1, 512)),
        lambda lib: lib.nd.random.normal(0, 1, shape=(2, 3)),
        lambda lib: lib.nd.random.uniform(-1, 1, shape=(4,), dtype="float64"),
        lambda lib: lib.nd.random_uniform(shape=(2, 2)),
        lambda lib: lib.random.uniform(shape=(3,)),
    ):
        want, got = fn(m), fn(mx)
        assert got.shape == want.shape and got.dtype == want.dtype
    with m.name.NameManager():
        want = m.sym.random_normal(shape=(2, 3)).tojson()
    with mx.name.NameManager():
        got = mx.sym.random_normal(shape=(2, 3)).tojson()
    assert got.replace(" ", "").replace("\n", "") == want.replace(" ", "").replace("\n", "")


def test_random_is_seeded_and_never_constant_folded():
    mx.random.seed(7)
    a = mx.nd.random.uniform(shape=(5,)).asnumpy()
    mx.random.seed(7)
    assert np.array_equal(a, mx.nd.random.uniform(shape=(5,)).asnumpy())
    x = mx.sym.var("x")
    op = mx.nd.CachedOp(x + mx.sym.random.normal(shape=(1000,)))
    r1, r2 = op(mx.nd.zeros(1000)).asnumpy(), op(mx.nd.zeros(1000)).asnumpy()
    assert not np.array_equal(r1, r2)
    assert abs(r1.mean()) < 0.2 and 0.8 < r1.std() < 1.2


def test_context_and_gpu():
    assert str(mx.cpu()) == "cpu(0)" and mx.cpu() == mx.context.current_context()
    assert mx.nd.ones(2).context == mx.cpu()
    assert mx.context.num_gpus() == 0


@pytest.mark.parametrize("backend", ["engine", pytest.param("mxnet", marks=pytest.mark.mxnet)])
def test_a_gpu_context_fails_where_memory_is_used_as_in_a_cpu_build_of_mxnet(backend):
    """MXNet 1.9.1 without CUDA builds `mx.gpu()` (a default argument `ctx=mx.gpu()` or a
    module-level `ctx = mx.gpu()` imports fine) and fails when an array is made or copied
    there, or an operator runs under `with mx.gpu():`; the engine fails at the same places."""
    lib = backend_module(backend)
    gpu = lib.gpu()
    assert str(gpu) == "gpu(0)" and gpu != lib.cpu() and gpu.device_type == "gpu"
    x = lib.nd.ones((2,))
    attempts = [
        lambda: lib.nd.ones((2,), ctx=gpu),
        lambda: lib.nd.zeros((2,), ctx=gpu),
        lambda: lib.nd.array([1.0], ctx=gpu),
        lambda: lib.nd.arange(3, ctx=gpu),
        lambda: lib.nd.random.uniform(shape=(2,), ctx=gpu),
        lambda: x.as_in_context(gpu),
        lambda: x.copyto(gpu),
    ]
    for attempt in attempts:
        with pytest.raises(lib.base.MXNetError):
            attempt()
    with gpu:
        with pytest.raises(lib.base.MXNetError):
            lib.nd.ones((2,))
    net = lib.gluon.nn.Dense(2, in_units=2)
    with pytest.raises(lib.base.MXNetError):
        net.initialize(ctx=gpu)
        net(x.reshape((1, 2)))


def test_autograd_scopes():
    assert not mx.autograd.is_training() and not mx.autograd.is_recording()
    with mx.autograd.record():
        assert mx.autograd.is_training() and mx.autograd.is_recording()
        with mx.autograd.predict_mode():
            assert not mx.autograd.is_training()
    with mx.autograd.train_mode():
        assert mx.autograd.is_training()
    assert not mx.autograd.is_training()


def test_name_scopes():
    with mx.name.Prefix("net_"):
        s = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, name="fc")
        t = mx.sym.relu(s)
    assert s.list_arguments() == ["x", "net_fc_weight", "net_fc_bias"]
    assert t.name.startswith("net_relu")


def test_unknown_parameter_and_missing_input_are_clear_errors():
    with pytest.raises(mx.base.MXNetError, match="unknown parameter 'num_hiden'"):
        mx.nd.FullyConnected(mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.ones(4), num_hiden=4)
    with pytest.raises(mx.base.MXNetError, match="required parameter 'num_hidden'"):
        mx.sym.FullyConnected(mx.sym.var("x"))
    with pytest.raises(mx.base.MXNetError, match="expects 3 input"):
        mx.nd.FullyConnected(mx.nd.ones((2, 3)), num_hidden=4)
