"""The engine's two layers agree: the fast layer (folding, fusion, in-place ops, buffer reuse,
generated plan code, gluon lean paths) against the reference layer (node by node through the
registered kernels, ordinary gluon calls), and the switch between them (engine/_fastpaths.py).

Why it matters: the engine-only eager==compiled checks share the kernels and could share a
fusion bug; the reference layer never runs the fast code, so a wrong fusion shows up here
without MXNet. `test_a_broken_fusion_is_caught` breaks the fusion on purpose to prove it.
"""

import linecache
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine import fusion
from hybridlint.engine.executor import _plan_names
from hybridlint.engine.gluon import nn
from hybridlint.engine.gluon.model_zoo import vision

from test_gluon_models import NAMES, inputs_for, load, run, seeded_params


@pytest.fixture(autouse=True)
def _own_names():
    """Symbols and blocks made here take names from a fresh NameManager, so later tests'
    auto-names (`convolution0_weight`) do not depend on this file having run."""
    with mx.name.NameManager():
        yield


def _layers(call):
    """`call()`'s outputs (numpy) on the fast layer and on the reference layer."""
    with mx.fast_paths(True):
        fast = call()
    with mx.fast_paths(False):
        ref = call()
    return fast, ref


def _agree(fast, ref):
    assert len(fast) == len(ref)
    for f, r in zip(fast, ref):
        assert f.dtype == r.dtype and f.shape == r.shape
        np.testing.assert_allclose(f, r, rtol=1e-5, atol=1e-6)


def _graph_outputs(sym, arrays):
    """The graph run by a CachedOp built on the current layer."""
    out = mx.nd.CachedOp(sym)(*[mx.nd.array(a, dtype=a.dtype) for a in arrays])
    return [o.asnumpy() for o in (out if isinstance(out, list) else [out])]


def _graphs():
    rng = np.random.RandomState(0)
    x, w, b = mx.sym.var("x"), mx.sym.var("w"), mx.sym.var("b")
    img = rng.normal(size=(2, 3, 9, 9)).astype("float32")
    cw = rng.normal(size=(4, 3, 3, 3)).astype("float32")
    cb = rng.normal(size=(4,)).astype("float32")
    conv = mx.sym.Convolution(x, w, b, kernel=(3, 3), num_filter=4)
    pool = mx.sym.Pooling(mx.sym.relu(conv), kernel=(2, 2), stride=(2, 2), pool_type="max")
    fc = mx.sym.relu(mx.sym.FullyConnected(x, w, b, num_hidden=5) * 2.0 + 1.0)
    vec = rng.normal(size=(3, 4)).astype("float32")
    consts = mx.sym.broadcast_add(
        x, mx.sym.broadcast_add(mx.sym.ones((3, 4)) * 3, mx.sym.arange(4))
    )
    split = mx.sym.split(mx.sym.BlockGrad(x) * 0.5 / 4.0 + 2 - 1, num_outputs=2, axis=1)
    return {
        "conv_relu_pool": (pool, [img, cw, cb]),
        "conv_pool": (mx.sym.Pooling(conv, kernel=(3, 3), pool_type="max"), [img, cw, cb]),
        "fc_scale_relu": (
            fc,
            [
                vec,
                rng.normal(size=(5, 4)).astype("float32"),
                rng.normal(size=(5,)).astype("float32"),
            ],
        ),
        "constants": (consts, [vec]),
        "split_chain_aliases": (mx.sym.Group([split[0], split[1], mx.sym.identity(x)]), [vec]),
        "view_output": (mx.sym.SwapAxis(mx.sym.exp(x), dim1=0, dim2=1), [vec]),
        "int_chain": (x * 3 / 2 + 1, [np.arange(12, dtype="int32").reshape(3, 4)]),
    }


with mx.name.NameManager():  # collection must not advance the global auto-names either
    _GRAPH_NAMES = sorted(_graphs())


@pytest.mark.parametrize("name", _GRAPH_NAMES)
def test_graph_fast_layer_matches_reference(name):
    sym, arrays = _graphs()[name]
    _agree(*_layers(lambda: _graph_outputs(sym, arrays)))


def test_a_broken_fusion_is_caught(monkeypatch):
    """Honesty check: a Convolution+relu+Pooling fusion that is off by one must fail the
    comparison (the fused step is built from `fusion._fused_out` at compile time)."""
    real = fusion._fused_out

    def broken(attrs, out, *arrays):
        real(attrs, out, *arrays)
        out += 1

    monkeypatch.setattr(fusion, "_fused_out", broken)
    sym, arrays = _graphs()["conv_relu_pool"]
    with pytest.raises(AssertionError):
        _agree(*_layers(lambda: _graph_outputs(sym, arrays)))


def _mlp():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(
            nn.Conv2D(4, 3, activation="relu"),
            nn.MaxPool2D(),
            nn.Dense(6, activation="relu"),
            nn.Dense(3),
        )
    return net


@pytest.mark.parametrize("hybridize", [False, True])
def test_gluon_layers_fast_and_reference(hybridize):
    """Dense/Conv's in-place relu and the lean eager and hybridized call paths."""
    mx.random.seed(3)
    net = _mlp()
    net.initialize()
    if hybridize:
        net.hybridize()
    x = mx.nd.array(np.random.RandomState(1).normal(size=(2, 3, 8, 8)))
    net(x)  # installs the lean paths
    _agree(*_layers(lambda: [net(x).asnumpy(), net(x).asnumpy()]))


def test_model_zoo_fast_and_reference():
    mx.random.seed(0)
    net = vision.get_model("mobilenetv2_0.25")
    net.initialize()
    x = mx.nd.array(np.random.RandomState(2).uniform(size=(1, 3, 32, 32)))
    eager = _layers(lambda: [net(x).asnumpy()])
    net.hybridize()
    hybrid = _layers(lambda: [net(x).asnumpy()])
    _agree(*eager)
    _agree(*hybrid)
    _agree(eager[1], hybrid[1])


@pytest.mark.parametrize("name", NAMES)
def test_realistic_models_fast_and_reference(name):
    module = load(name, "engine")
    net, shapes = module.build()
    inputs = inputs_for(module, shapes)
    seeded_params(net, module, inputs)
    eager = _layers(lambda: run(net, module, inputs))
    net.hybridize()
    hybrid = _layers(lambda: run(net, module, inputs))
    _agree(*eager)
    _agree(*hybrid)


def test_switch_follows_live_plans_and_restores():
    sym, arrays = _graphs()["fc_scale_relu"]
    op = mx.nd.CachedOp(sym)
    nds = [mx.nd.array(a) for a in arrays]
    before = mx.fast_paths_enabled()
    with mx.fast_paths(True):
        fast = op(*nds).asnumpy()
        plan = op._last_plan
        assert hasattr(plan, "source")
        with mx.fast_paths(False):
            assert not mx.fast_paths_enabled()
            assert plan.run is plan._reference_run  # the same cached plan, other layer
            np.testing.assert_allclose(op(*nds).asnumpy(), fast, rtol=1e-6)
        assert plan.run is plan._fast_run
    assert mx.fast_paths_enabled() is before
    assert mx.set_fast_paths(before) is before


def test_reference_layer_writes_no_input_and_returns_fresh_arrays():
    x = mx.sym.var("x")
    sym = mx.sym.Group([mx.sym.identity(x), mx.sym.reshape(x, shape=(-1,)), mx.sym.relu(x)])
    data = mx.nd.array(np.arange(-3, 3, dtype="float32").reshape(2, 3))
    keep = data.asnumpy().copy()
    with mx.fast_paths(False):
        outs = mx.nd.CachedOp(sym)(data)
    for o in outs:
        assert not np.shares_memory(o.asnumpy(), data.asnumpy())
    np.testing.assert_array_equal(data.asnumpy(), keep)


def test_reference_kernel_error_names_node_and_line():
    x = mx.sym.var("x")
    y = mx.sym.take(mx.sym.var("a"), x, mode="raise")  # index out of bound at run time
    with mx.fast_paths(False):
        op = mx.nd.CachedOp(y)
        with pytest.raises(mx.MXNetError) as info:
            op(mx.nd.array([0.0, 1.0]), mx.nd.array([7.0]))
    text = str(info.value)
    assert "Error in operator " + y.name in text and "test_engine_reference.py" in text
    assert info.value.source_line[0].endswith("test_engine_reference.py")


def test_environment_variable_selects_the_reference_layer_at_import():
    code = "import hybridlint.engine as mx; print(mx.fast_paths_enabled())"
    for value, want in (("1", "False"), ("0", "True"), ("", "True")):
        env = dict(os.environ, HYBRIDLINT_ENGINE_REFERENCE=value)
        out = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        assert out == want, value


# ----------------------------------------------------------------------------- plan debugging


def test_plan_source_is_in_linecache_and_names_the_nodes():
    with mx.fast_paths(True):
        sym, arrays = _graphs()["fc_scale_relu"]
        op = mx.nd.CachedOp(sym)
        op(*[mx.nd.array(a) for a in arrays])
        plan = op._last_plan
    assert linecache.getlines(plan.filename) == plan.source.splitlines(True)
    assert plan.filename.startswith("<hybridlint-plan 0x")
    header = plan.source.splitlines()[0]
    assert header == "def run(x, w, b):"
    for node in ("fullyconnected", "relu"):
        assert any(name.startswith(node) for name in plan.names), plan.names


def test_plan_kernel_error_keeps_the_kernel_traceback_with_plan_lines():
    a, i = mx.sym.var("a"), mx.sym.var("1-idx")
    y = mx.sym.take(a, i, mode="raise") * 2
    with mx.fast_paths(True):
        op = mx.nd.CachedOp(y)
        with pytest.raises(mx.MXNetError) as info:
            op(mx.nd.array([0.0, 1.0]), mx.nd.array([7.0]))
    err = info.value
    assert "Error in operator " + y.get_children()[0].name in str(err)
    assert err.source_line[0].endswith("test_engine_reference.py")
    cause = err.__cause__  # the kernel's own error, not dropped
    assert cause is not None and "out of bound" in str(cause)
    text = "".join(traceback.format_exception(type(cause), cause, cause.__traceback__))
    plan = op._last_plan
    assert 'File "%s"' % plan.filename in text
    assert "= _k0(_a0, a, n1_idx)" in text  # the plan line, with node-named values


def test_plan_names_are_identifiers_after_nodes():
    names = _plan_names(["fc1", "fc1", "1x", "_plus0", "np", "a b-c", "class", ""])
    assert names == ["fc1", "fc1_2", "n1x", "n_plus0", "np_", "a_b_c", "class_", "value"]
    assert all(n.isidentifier() for n in names)


# ----------------------------------------------------------------------------- typed gaps


def test_engine_gaps_are_typed():
    from hybridlint.engine.base import EngineGap, MissingOperator, engine_not_implemented
    from hybridlint.engine.registry import get_op

    with pytest.raises(EngineGap):
        engine_not_implemented("foo")
    with pytest.raises(MissingOperator) as info:
        get_op("NoSuchOperator")
    assert isinstance(info.value, mx.MXNetError) and isinstance(info.value, EngineGap)
    with mx.as_mxnet():
        import mxnet

        with pytest.raises(EngineGap):
            mxnet.gluon.Block().save("x")  # a gluon method the engine lacks


def test_gradients_are_a_gap_never_a_made_up_value():
    """A module's gradient demo (`y.backward()` at its top level, blind round 6's
    DenseNormalized) stops the engine with a typed gap, so --verify says to run it on MXNet
    instead of reporting a crash or inventing gradients."""
    from hybridlint.checker.jobs import _environment_reason
    from hybridlint.engine.base import EngineGap

    y = mx.nd.ones((2,))
    calls = (y.backward, lambda: mx.autograd.backward([y]), lambda: mx.autograd.grad(y, [y]))
    for call in calls:
        with pytest.raises(EngineGap) as info:
            call()
        assert "--backend mxnet" in (_environment_reason(info.value) or "")


def test_checker_recognises_gaps_by_type_not_text():
    from hybridlint.checker.jobs import _is_engine_gap
    from hybridlint.engine.base import EngineGap

    text = "hybridlint engine does not implement mxnet.foo yet"
    assert _is_engine_gap(EngineGap(text))
    assert not _is_engine_gap(NotImplementedError(text))  # same text, not a gap
    assert not _is_engine_gap(ValueError("plain"))
    try:
        try:
            raise EngineGap(text)
        except EngineGap as gap:
            raise ValueError("Deferred initialization failed") from gap
    except ValueError as wrapped:
        assert _is_engine_gap(wrapped)


# ----------------------------------------------------------------------------- NDArray operators

_OPERATORS = {
    "broadcast_add": "__add__",
    "broadcast_sub": "__sub__",
    "broadcast_mul": "__mul__",
    "broadcast_div": "__truediv__",
    "broadcast_mod": "__mod__",
    "broadcast_power": "__pow__",
    "broadcast_equal": "__eq__",
    "broadcast_lesser": "__lt__",
    "broadcast_greater_equal": "__ge__",
}


@pytest.mark.parametrize("dtype", ["float32", "int32", "float16"])
@pytest.mark.parametrize("op_name", sorted(_OPERATORS))
def test_ndarray_operator_is_the_broadcast_op(op_name, dtype):
    rng = np.random.RandomState(4)
    a = mx.nd.array(rng.randint(1, 9, size=(2, 3, 4)), dtype=dtype)
    b = mx.nd.array(rng.randint(1, 4, size=(3, 1)), dtype=dtype)
    got = getattr(a, _OPERATORS[op_name])(b)
    want = getattr(mx.nd, op_name)(a, b)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())


def test_ndarray_operators_run_the_registered_kernels(monkeypatch):
    """A changed broadcast_add / broadcast_mul kernel changes `a + b` / `a *= b`: the operators
    do not re-implement broadcasting."""
    from hybridlint.engine.registry import get_op

    add, mul = get_op("broadcast_add"), get_op("broadcast_mul")
    a, b = mx.nd.ones((2, 3)), mx.nd.ones((3,))
    monkeypatch.setattr(add, "kernel", lambda attrs, x, y: np.full((2, 3), 42, x.dtype))
    monkeypatch.setattr(mul, "out_kernel", lambda attrs, out, x, y: out.fill(7))
    assert (a + b).asnumpy().tolist() == [[42.0] * 3] * 2
    a *= b
    assert a.asnumpy().tolist() == [[7.0] * 3] * 2


def test_ndarray_operator_errors_keep_mxnet_messages():
    a = mx.nd.ones((2, 3))
    with pytest.raises(
        mx.MXNetError,
        match=r"Check failed: l == 1 \|\| r == 1: operands could "
        r"not be broadcast together with shapes \[2,3\] \[4\]",
    ):
        a + mx.nd.ones((4,))
    with pytest.raises(
        mx.MXNetError,
        match="Error in operator broadcast_add: Check failed: "
        "assign.*1-th input: expected float32, got float64",
    ):
        a + mx.nd.ones((2, 3), dtype="float64")
    c = mx.nd.ones((3,))
    with pytest.raises(mx.MXNetError, match="in-place operation"):
        c += a


def test_plan_made_on_the_reference_layer_compiles_when_first_run_fast():
    sym, arrays = _graphs()["conv_relu_pool"]
    nds = [mx.nd.array(a) for a in arrays]
    with mx.fast_paths(False):
        op = mx.nd.CachedOp(sym)
        ref = op(*nds).asnumpy()
        plan = op._last_plan
        assert not hasattr(plan, "source")  # no generated code on this layer
    with mx.fast_paths(True):
        assert not hasattr(plan, "source")  # flipping compiled nothing yet
        fast = op(*nds).asnumpy()
        assert plan.run is plan._fast_run and [s.op.name for s in plan.steps] == [
            "Convolution+relu+Pooling"
        ]
    np.testing.assert_allclose(fast, ref, rtol=1e-5, atol=1e-6)
