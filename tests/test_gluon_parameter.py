"""Parameters, ParameterDict, initializers and save/load_parameters against MXNet 1.9.1."""

import warnings

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine import gluon
from hybridlint.engine.gluon import nn


def values_kind(arr: np.ndarray) -> str:
    """'zeros', 'ones' or 'random' (what an initializer did to an array)."""
    if np.all(arr == 0):
        return "zeros"
    if np.all(arr == 1):
        return "ones"
    return "random"


NAMES = [
    "fc_weight",
    "fc_bias",
    "bn_gamma",
    "bn_beta",
    "bn_moving_mean",
    "bn_moving_var",
    "q_min",
    "q_max",
]


def test_name_dispatch_of_a_bare_name():
    init = mx.init.Uniform(0.5)
    kinds = {}
    for name in NAMES:
        arr = mx.nd.zeros((3, 4))
        arr[:] = 7
        init(name, arr)
        kinds[name] = values_kind(arr.asnumpy())
    assert kinds == {
        "fc_weight": "random",
        "fc_bias": "zeros",
        "bn_gamma": "ones",
        "bn_beta": "zeros",
        "bn_moving_mean": "zeros",
        "bn_moving_var": "ones",
        "q_min": "zeros",
        "q_max": "ones",
    }
    with pytest.raises(ValueError, match="Unknown initialization pattern for data"):
        init("data", mx.nd.zeros((2,)))


def test_init_desc_with_its_own_initializer_ignores_the_name():
    arr = mx.nd.zeros((2, 2))
    mx.init.Uniform()(mx.init.InitDesc("x_bias", {"__init__": "ones"}), arr)
    assert values_kind(arr.asnumpy()) == "ones"
    mx.init.Zero()(mx.init.InitDesc("x_bias", {"__init__": mx.init.Constant(3)}), arr)
    np.testing.assert_array_equal(arr.asnumpy(), 3)


def test_gluon_defaults_per_layer():
    net = nn.HybridSequential(prefix="n_")
    with net.name_scope():
        net.add(nn.Dense(5, in_units=4), nn.BatchNorm(in_channels=5), nn.PReLU())
    net.initialize()
    kinds = {k: values_kind(v.data().asnumpy()) for k, v in net.collect_params().items()}
    assert kinds == {
        "n_dense0_weight": "random",
        "n_dense0_bias": "zeros",
        "n_batchnorm0_gamma": "ones",
        "n_batchnorm0_beta": "zeros",
        "n_batchnorm0_running_mean": "zeros",
        "n_batchnorm0_running_var": "ones",
        "n_prelu0_alpha": "random",
    }
    np.testing.assert_allclose(net[2].alpha.data().asnumpy(), [0.25])
    w = net[0].weight.data().asnumpy()
    assert np.abs(w).max() <= 0.07 and np.abs(w).max() > 0.03  # Uniform(0.07)
    assert net[1].running_mean.grad_req == "null" and net[0].weight.grad_req == "write"


def test_seed_makes_initialisation_repeatable():
    def weights():
        mx.random.seed(123)
        d = nn.Dense(4, in_units=3)
        d.initialize(mx.init.Xavier())
        return d.weight.data().asnumpy()

    np.testing.assert_array_equal(weights(), weights())


def test_xavier_and_msra_scales():
    arr = mx.nd.zeros((64, 32, 3, 3))
    mx.init.Xavier(magnitude=3)("w_weight", arr)
    bound = np.sqrt(3.0 / ((32 * 9 + 64 * 9) / 2.0))
    a = arr.asnumpy()
    assert np.abs(a).max() <= bound + 1e-7 and np.abs(a).max() > 0.9 * bound
    mx.init.MSRAPrelu(factor_type="in", slope=0)("w_weight", arr)
    std = np.sqrt(2.0 / (32 * 9))
    assert abs(arr.asnumpy().std() / std - 1) < 0.05
    with pytest.raises(ValueError, match="Xavier initializer cannot be applied to vector"):
        mx.init.Xavier()("b_weight", mx.nd.zeros((3,)))


def test_create_and_dumps():
    assert isinstance(mx.init.create("zeros"), mx.init.Zero)
    xav = mx.init.create('["xavier", {"magnitude": 2.5, "factor_type": "in"}]')
    assert isinstance(xav, mx.init.Xavier) and xav.magnitude == 2.5
    assert mx.init.Uniform(0.1).dumps() == '["uniform", {"scale": 0.1}]'
    assert mx.init.create(mx.init.Uniform(0.1).dumps()) == mx.init.Uniform(0.1)
    with pytest.raises(ValueError, match="is not registered"):
        mx.init.create("no_such_init")


def test_parameter_dict_get_creates_shares_and_checks():
    pd = gluon.ParameterDict("blk_")
    w = pd.get("w", shape=(2, 0))
    assert w.name == "blk_w" and pd.get("w", shape=(2, 3)) is w and w.shape == (2, 3)
    with pytest.raises(AssertionError, match="desired attribute does not match"):
        pd.get("w", shape=(4, 3))
    shared = gluon.ParameterDict("blk_", shared=pd)
    assert shared.get("w") is w
    first = nn.Dense(3, in_units=2)
    second = nn.Dense(3, in_units=2, params=first.collect_params())
    assert second.weight is first.weight


def test_constant_is_not_trainable_and_keeps_its_value():
    class WithConst(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.c = self.params.get_constant("c", [[1.0, 2.0]])

        def hybrid_forward(self, F, x, c):
            return F.broadcast_mul(x, c)

    blk = WithConst()
    blk.initialize()
    assert blk.c.grad_req == "null"
    for _ in range(2):
        np.testing.assert_array_equal(blk(mx.nd.ones((3, 2))).asnumpy(), [[1, 2]] * 3)
        blk.hybridize()
    with pytest.raises(KeyError, match="No constant named"):
        blk.params.get_constant("missing")


def test_parameter_errors_are_clear():
    p = gluon.Parameter("lonely", shape=(2,))
    with pytest.raises(RuntimeError, match="has not been initialized"):
        p.data()
    d = nn.Dense(2)
    d.initialize()
    with pytest.raises(gluon.DeferredInitializationError, match="deferred"):
        d.weight.data()
    with pytest.raises(ValueError, match="invalid shape"):
        gluon.Parameter("bad", shape=(0, 2)).initialize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        p.initialize()
        p.initialize()
    assert any("already initialized" in str(w.message) for w in caught)
    with pytest.raises(AssertionError, match="incompatible"):
        p.set_data(mx.nd.ones((3,)))


def test_save_and_load_parameters_use_structural_names(tmp_path):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(3, in_units=2), nn.BatchNorm(in_channels=3))
    net.initialize(mx.init.Normal(1.0))
    path = str(tmp_path / "net.params")
    net.save_parameters(path)
    assert sorted(mx.nd.load(path)) == [
        "0.bias",
        "0.weight",
        "1.beta",
        "1.gamma",
        "1.running_mean",
        "1.running_var",
    ]
    other = nn.HybridSequential()
    with other.name_scope():
        other.add(nn.Dense(3), nn.BatchNorm())
    other.load_parameters(path)
    for a, b in zip(net.collect_params().values(), other.collect_params().values()):
        np.testing.assert_array_equal(a.data().asnumpy(), b.data().asnumpy())
    smaller = nn.HybridSequential()
    with smaller.name_scope():
        smaller.add(nn.Dense(3))
    with pytest.raises(ValueError, match="is not present in ParameterDict"):
        smaller.load_parameters(path)
    smaller.load_parameters(path, ignore_extra=True)
    smaller.save_parameters(str(tmp_path / "small.params"))
    with pytest.raises(AssertionError, match="is missing in file"):
        net.load_parameters(str(tmp_path / "small.params"))


@pytest.mark.mxnet
def test_initializer_dispatch_matches_real_mxnet():
    mx_real = pytest.importorskip("mxnet")
    for name in NAMES:
        ours, theirs = mx.nd.zeros((3, 4)), mx_real.nd.zeros((3, 4))
        ours[:] = 7
        theirs[:] = 7
        mx.init.Uniform(0.5)(name, ours)
        mx_real.init.Uniform(0.5)(name, theirs)
        assert values_kind(ours.asnumpy()) == values_kind(theirs.asnumpy()), name


@pytest.mark.mxnet
def test_parameter_files_cross_load_with_real_mxnet(tmp_path):
    mx_real = pytest.importorskip("mxnet")

    def build(lib):
        net = lib.gluon.nn.HybridSequential()
        with net.name_scope():
            net.add(lib.gluon.nn.Dense(3, in_units=2), lib.gluon.nn.BatchNorm(in_channels=3))
        return net

    theirs = build(mx_real)
    theirs.initialize(mx_real.init.Normal(1.0))
    theirs.save_parameters(str(tmp_path / "theirs.params"))
    ours = build(mx)
    ours.load_parameters(str(tmp_path / "theirs.params"))
    ours.save_parameters(str(tmp_path / "ours.params"))
    assert (tmp_path / "ours.params").read_bytes() == (tmp_path / "theirs.params").read_bytes()
    back = build(mx_real)
    back.load_parameters(str(tmp_path / "ours.params"))
    for a, b in zip(theirs.collect_params().values(), back.collect_params().values()):
        np.testing.assert_array_equal(a.data().asnumpy(), b.data().asnumpy())


@pytest.mark.mxnet
def test_legacy_prefixed_files_cross_load_with_real_mxnet(tmp_path):
    mx_real = pytest.importorskip("mxnet")

    def build(lib):
        net = lib.gluon.nn.HybridSequential(prefix="leg_")
        with net.name_scope():
            net.add(lib.gluon.nn.Dense(3, in_units=2), lib.gluon.nn.Dense(1, in_units=3))
        return net

    theirs = build(mx_real)
    theirs.initialize(mx_real.init.Normal(1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs.save_params(str(tmp_path / "theirs.params"))  # names without the prefix
    ours = build(mx)
    ours.load_parameters(str(tmp_path / "theirs.params"))  # legacy path of MXNet
    x = np.ones((2, 2), "float32")
    np.testing.assert_allclose(
        ours(mx.nd.array(x)).asnumpy(), theirs(mx_real.nd.array(x)).asnumpy(), rtol=1e-5
    )
    ours.collect_params().save(str(tmp_path / "ours.params"), strip_prefix="leg_")
    assert (tmp_path / "ours.params").read_bytes() == (tmp_path / "theirs.params").read_bytes()
    back = build(mx_real)
    back.collect_params().load(str(tmp_path / "ours.params"), restore_prefix="leg_")
    np.testing.assert_allclose(
        back(mx_real.nd.array(x)).asnumpy(), theirs(mx_real.nd.array(x)).asnumpy(), rtol=1e-5
    )
