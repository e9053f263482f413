"""`hybridlint.engine.as_mxnet()`: user code saying `import mxnet` runs on the engine."""

import sys
import textwrap

import numpy as np
import pytest

import hybridlint.engine as engine
from hybridlint.engine import as_mxnet

USER_MODULE = textwrap.dedent("""
    import mxnet as mx
    from mxnet import gluon, nd
    from mxnet.gluon import nn
    import mxnet.ndarray as F_nd

    class Model(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super(Model, self).__init__(**kwargs)
            with self.name_scope():
                self.dense = nn.Dense(3, in_units=4)

        def hybrid_forward(self, F, x):
            return F.relu(self.dense(x))

    def make():
        net = Model()
        net.initialize(mx.init.One())
        return net, nd.ones((2, 4))
    """)


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / "hl_user_model.py").write_text(USER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "hl_user_model"
    sys.modules.pop("hl_user_model", None)


def test_user_module_imported_inside_runs_on_the_engine(user_module):
    with as_mxnet() as mxnet_proxy:
        module = __import__(user_module)
        assert mxnet_proxy is sys.modules["mxnet"]
    net, x = module.make()
    assert isinstance(net, engine.gluon.HybridBlock)
    assert isinstance(x, engine.nd.NDArray)
    np.testing.assert_array_equal(net(x).asnumpy(), np.full((2, 3), 4.0))
    net.hybridize()
    np.testing.assert_array_equal(net(x).asnumpy(), np.full((2, 3), 4.0))
    assert module.mx.nd is module.F_nd is module.nd and module.mx.sym is module.mx.symbol


def test_sys_modules_mxnet_entries_are_restored():
    before = {k: v for k, v in sys.modules.items() if k == "mxnet" or k.startswith("mxnet.")}
    with as_mxnet():
        import mxnet  # noqa: F401
        import mxnet.gluon.nn  # noqa: F401

        assert sys.modules["mxnet"].__name__ == "mxnet"
        assert "hybridlint engine" in repr(sys.modules["mxnet.gluon.nn"])
    after = {k: v for k, v in sys.modules.items() if k == "mxnet" or k.startswith("mxnet.")}
    assert after.keys() == before.keys()
    assert all(after[k] is before[k] for k in before)
    assert not any(type(f).__name__ == "_MXNetFinder" for f in sys.meta_path)


def test_restored_even_when_the_body_raises():
    with pytest.raises(KeyError):
        with as_mxnet():
            import mxnet  # noqa: F401

            raise KeyError("boom")
    assert not any(type(f).__name__ == "_MXNetFinder" for f in sys.meta_path)
    assert "hybridlint engine" not in repr(sys.modules.get("mxnet"))


def test_nested_use():
    with as_mxnet():
        import mxnet as outer

        with as_mxnet():
            import mxnet as inner

            assert inner is outer
        import mxnet as again

        assert again is outer


@pytest.mark.parametrize(
    "expr, missing",
    [
        ("mx.gluon.Trainer([], 'sgd').step(1)", "mxnet.gluon.Trainer.step (gradients)"),
        (
            "mx.gluon.contrib.rnn.Conv2DLSTMCell((1, 4, 4), 2, 2)",
            "mxnet.gluon.contrib.rnn.Conv2DLSTMCell",
        ),
    ],
)
def test_missing_attributes_raise_not_implemented_where_used(expr, missing):
    """A name MXNet 1.9.1 has and the engine lacks can be looked up and imported (a model file
    importing what it never runs is verified); using it is the engine gap."""
    with as_mxnet():
        import mxnet as mx

        with pytest.raises(NotImplementedError) as info:
            eval(expr, {"mx": mx})
    assert str(info.value) == "hybridlint engine does not implement %s yet" % missing


@pytest.mark.parametrize(
    "expr, module, name",
    [
        ("mx.no_such_thing", "mxnet", "no_such_thing"),
        ("mx.nd.no_such_op", "mxnet.ndarray", "no_such_op"),
        ("mx.gluon.nn.Pool2D", "mxnet.gluon.nn", "Pool2D"),
    ],
)
def test_attributes_mxnet_lacks_too_raise_its_attribute_error(expr, module, name):
    """A user bug, not an engine gap (tests/test_compat_names.py has the details)."""
    with as_mxnet():
        import mxnet as mx

        with pytest.raises(AttributeError) as info:
            eval(expr, {"mx": mx})
    assert str(info.value) == "module '%s' has no attribute '%s'" % (module, name)


@pytest.mark.parametrize(
    "statement, use, missing",
    [
        (
            "import mxnet.gluon.model_zoo.vision.densenet",
            "mxnet.gluon.model_zoo.vision.densenet.densenet121()",
            "mxnet.gluon.model_zoo.vision.densenet.densenet121",
        ),
        ("from mxnet.gluon import data", "data.DataLoader([])", "mxnet.gluon.data.DataLoader"),
        ("import mxnet.contrib.onnx", "mxnet.contrib.onnx.export_model()", "mxnet.contrib.onnx"),
        ("from mxnet.metric import MSE", "MSE()", "mxnet.metric.MSE"),
        # a name of mxnet itself (an alias of mxnet.visualization), as prostate-seg imports it
        ("from mxnet import nd, viz, cpu", "viz.plot_network(None)", "mxnet.viz"),
    ],
)
def test_missing_submodules_import_and_raise_not_implemented_where_used(statement, use, missing):
    """Code importing a module of MXNet 1.9.1 the engine lacks (a DataLoader import at the
    top of a model file) still runs; only using it is an engine gap (a NotImplementedError)."""
    with as_mxnet():
        scope: dict = {}
        exec(statement, scope)
        with pytest.raises(NotImplementedError) as info:
            eval(use, scope)
    assert str(info.value).startswith("hybridlint engine does not implement %s" % missing)


def test_f_in_hybrid_forward_is_the_mxnet_module_user_code_sees():
    seen = []
    with as_mxnet():
        import mxnet as mx

        class Probe(mx.gluon.HybridBlock):
            def hybrid_forward(self, F, x):
                seen.append((F.__name__, F is mx.nd or F is mx.sym))
                return x * 2

    probe = Probe()
    probe(engine.nd.ones((1,)))
    probe.hybridize()
    probe(engine.nd.ones((1,)))
    assert seen == [("mxnet.ndarray", True), ("mxnet.symbol", True)]
    with as_mxnet():
        import mxnet as mx

        class UsesMissingOp(mx.gluon.HybridBlock):  # an op MXNet has, the engine not
            def hybrid_forward(self, F, x):
                return F.khatri_rao(x)

        class UsesNoSuchOp(mx.gluon.HybridBlock):  # MXNet lacks it too: a user error
            def hybrid_forward(self, F, x):
                return F.no_such_operator(x)

    with pytest.raises(NotImplementedError, match="mxnet.ndarray.khatri_rao"):
        UsesMissingOp()(engine.nd.ones((1,)))
    with pytest.raises(
        AttributeError, match="module 'mxnet.ndarray' has no attribute 'no_such_operator'"
    ):
        UsesNoSuchOp()(engine.nd.ones((1,)))


@pytest.mark.mxnet
def test_real_mxnet_comes_back_after_the_context():
    mx_real = pytest.importorskip("mxnet")
    with as_mxnet():
        import mxnet

        assert mxnet is not mx_real
    import mxnet

    assert mxnet is mx_real
    assert type(mxnet.nd.ones((1,))).__module__.startswith("mxnet")


def test_deep_imports_of_gluon_modules_resolve_to_the_engine():
    with as_mxnet():
        from mxnet.gluon.block import HybridBlock
        from mxnet.gluon.parameter import Parameter
        from mxnet.gluon.nn.basic_layers import Dense
        from mxnet.gluon.nn.conv_layers import Conv2D
        from mxnet.gluon.contrib.nn import HybridConcurrent
        from mxnet.gluon.loss import SoftmaxCELoss
        from mxnet.base import numeric_types
        from mxnet.ndarray import NDArray
        from mxnet.symbol import Symbol
        import mxnet.initializer as init
    assert HybridBlock is engine.gluon.HybridBlock and Parameter is engine.gluon.Parameter
    assert Dense is engine.gluon.nn.Dense and Conv2D is engine.gluon.nn.Conv2D
    assert HybridConcurrent is engine.gluon.contrib.nn.HybridConcurrent
    assert SoftmaxCELoss is engine.gluon.loss.SoftmaxCrossEntropyLoss
    assert NDArray is engine.nd.NDArray and Symbol is engine.sym.Symbol
    assert int in numeric_types and init.Xavier is engine.init.Xavier
