"""BatchNorm, LayerNorm, InstanceNorm, GroupNorm, L2Normalization, LeakyReLU, softmax family,
SoftmaxActivation and Dropout: parameter-shape inference and errors without MXNet, and
differential tests against real MXNet 1.9.1 (eager and compiled graph)."""

import itertools

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from mxnet_record import reference
from ops_diff import case_id, check_both, engine_shapes, rand

RNG = np.random.RandomState(11)

# ----------------------------------------------------------------------------- engine-only


def test_batchnorm_infers_params_and_aux_backward():
    sym, (args, outs, aux) = engine_shapes("BatchNorm", {"data": (4, 3, 5, 5)})
    assert sym.list_arguments() == ["data", "batchnorm0_gamma", "batchnorm0_beta"]
    assert sym.list_auxiliary_states() == ["batchnorm0_moving_mean", "batchnorm0_moving_var"]
    assert sym.list_outputs() == ["batchnorm0_output"]
    assert args == [(4, 3, 5, 5), (3,), (3,)]
    assert aux == [(3,), (3,)]
    assert outs == [(4, 3, 5, 5)]
    sym, (args, outs, aux) = engine_shapes(
        "BatchNorm", {"data": (4, 3, 5)}, axis=-1, output_mean_var=True
    )
    assert sym.list_outputs() == ["batchnorm0_output", "batchnorm0_mean", "batchnorm0_var"]
    assert args[1:] == [(5,), (5,)] and aux == [(5,), (5,)]
    assert outs == [(4, 3, 5), (5,), (5,)]


def test_batchnorm_bad_axis_and_gamma_raise():
    with pytest.raises(MXNetError, match="Channel axis out of range"):
        engine_shapes("BatchNorm", {"data": (2, 3, 4)}, axis=3)
    with pytest.raises(MXNetError, match="gamma"):
        mx.nd.BatchNorm(
            mx.nd.zeros((2, 3, 4)),
            mx.nd.ones((4,)),
            mx.nd.zeros((3,)),
            mx.nd.zeros((3,)),
            mx.nd.ones((3,)),
        )


def test_batchnorm_defaults_are_mxnets():
    """fix_gamma defaults to True in the op: gamma is ignored unless fix_gamma=False."""
    x = mx.nd.array(rand(RNG, 2, 3, 4))
    gamma, beta = mx.nd.array([2.0, 3.0, 4.0]), mx.nd.zeros((3,))
    mean, var = mx.nd.zeros((3,)), mx.nd.ones((3,))
    fixed = mx.nd.BatchNorm(x, gamma, beta, mean, var).asnumpy()
    np.testing.assert_allclose(fixed, x.asnumpy() / np.sqrt(1 + 1e-3), rtol=1e-6)
    scaled = mx.nd.BatchNorm(x, gamma, beta, mean, var, fix_gamma=False).asnumpy()
    np.testing.assert_allclose(scaled, fixed * np.array([2, 3, 4]).reshape(1, 3, 1), rtol=1e-6)


def test_batchnorm_relu_needs_4d_like_mxnet():
    args = [mx.nd.ones((3,)), mx.nd.zeros((3,)), mx.nd.zeros((3,)), mx.nd.ones((3,))]
    with pytest.raises(MXNetError, match="MKL-DNN"):
        mx.nd.contrib.BatchNormWithReLU(mx.nd.ones((4, 3, 5)), *args)
    out = mx.nd.contrib.BatchNormWithReLU(mx.nd.array(rand(RNG, 2, 3, 2, 2)), *args)
    assert out.asnumpy().min() >= 0


def test_batchnorm_uses_batch_stats_only_when_training():
    x = mx.nd.array(rand(RNG, 8, 2, 3) * 3 + 1)
    args = (mx.nd.ones((2,)), mx.nd.zeros((2,)), mx.nd.zeros((2,)), mx.nd.ones((2,)))
    infer = mx.nd.BatchNorm(x, *args).asnumpy()
    with mx.autograd.record():
        train = mx.nd.BatchNorm(x, *args).asnumpy()
    assert np.abs(train.mean(axis=(0, 2))).max() < 1e-5
    assert not np.allclose(train, infer)


@pytest.mark.parametrize(
    "op, kw, shape, want_args, want_outs",
    [
        ("LayerNorm", {}, (2, 3, 5), [(2, 3, 5), (5,), (5,)], [(2, 3, 5)]),
        (
            "LayerNorm",
            {"axis": 1, "output_mean_var": True},
            (2, 3, 5),
            [(2, 3, 5), (3,), (3,)],
            [(2, 3, 5), (2, 1, 5), (2, 1, 5)],
        ),
        ("InstanceNorm", {}, (2, 3, 5, 4), [(2, 3, 5, 4), (3,), (3,)], [(2, 3, 5, 4)]),
        (
            "GroupNorm",
            {"num_groups": 2, "output_mean_var": True},
            (2, 6, 5),
            [(2, 6, 5), (2,), (2,)],
            [(2, 6, 5), (2, 2), (2, 2)],
        ),
        ("LeakyReLU", {"act_type": "prelu"}, (2, 6, 3), [(2, 6, 3), (6,)], [(2, 6, 3)]),
        ("LeakyReLU", {"act_type": "rrelu"}, (2, 6, 3), [(2, 6, 3)], [(2, 6, 3), (2, 6, 3)]),
    ],
)
def test_param_shapes_inferred(op, kw, shape, want_args, want_outs):
    _, (args, outs, _) = engine_shapes(op, {"data": shape}, **kw)
    assert args == want_args
    assert outs == want_outs


def test_norm_errors():
    with pytest.raises(MXNetError, match="3 or more"):
        engine_shapes("InstanceNorm", {"data": (2, 3)})
    with pytest.raises(MXNetError, match="divisible by num_groups"):
        engine_shapes("GroupNorm", {"data": (2, 5, 3)}, num_groups=2)
    with pytest.raises(MXNetError, match="out of range"):
        engine_shapes("LayerNorm", {"data": (2, 5)}, axis=2)
    with pytest.raises(MXNetError, match="length only supports integer"):
        mx.nd.softmax(mx.nd.zeros((2, 3)), mx.nd.ones((2,)), use_length=True)
    with pytest.raises(MXNetError, match="only softmax"):
        mx.nd.log_softmax(mx.nd.zeros((2, 3)), use_length=True)
    assert mx.sym.log_softmax(mx.sym.var("d"), use_length=True).list_arguments() == ["d"]
    with pytest.raises(MXNetError, match="length has shape"):
        mx.sym.softmax(mx.sym.var("d"), mx.sym.var("l"), use_length=True).infer_shape(
            d=(2, 3), l=(3,)
        )


def test_dropout_is_identity_at_inference_and_drops_when_training():
    x = mx.nd.ones((200, 50))
    out = mx.nd.Dropout(x, p=0.5)
    np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    with mx.autograd.record():
        dropped = mx.nd.Dropout(x, p=0.5).asnumpy()
    assert set(np.unique(dropped)) <= {0.0, 2.0}
    assert 0.4 < (dropped == 0).mean() < 0.6
    always = mx.nd.Dropout(x, p=0.25, mode="always", axes=(1,)).asnumpy()
    assert set(np.unique(always)) <= {0.0, np.float32(1 / 0.75)}
    assert (always == always[:, :1]).all()  # one mask value per row along axes=(1,)


def test_eager_dropout_output_is_a_new_array():
    """In-place arithmetic on Dropout's output must not reach its input (as in MXNet)."""
    x = mx.nd.ones((3, 4))
    y = mx.nd.Dropout(x, p=0.5)
    y += 1
    np.testing.assert_array_equal(x.asnumpy(), 1)


def test_hybridized_dropout_follows_train_mode():
    x = mx.sym.var("x")
    op = mx.nd.CachedOp(mx.sym.Dropout(x, p=0.5) * 1)
    data = mx.nd.ones((100, 100))
    np.testing.assert_array_equal(op(data).asnumpy(), data.asnumpy())
    np.testing.assert_array_equal(data.asnumpy(), 1)  # the input is never written
    with mx.autograd.train_mode():
        assert (op(data).asnumpy() == 0).any()


# ----------------------------------------------------------------------------- differential


def _pos(*shape):
    return rand(RNG, *shape, low=0.5, high=2.0)


BN_CASES = []
for _fg, _ugs, _omv in itertools.product((True, False), (True, False), (False, True)):
    BN_CASES.append(
        (
            "BatchNorm",
            [rand(RNG, 4, 3, 5), rand(RNG, 3), rand(RNG, 3), rand(RNG, 3), _pos(3)],
            dict(fix_gamma=_fg, use_global_stats=_ugs, output_mean_var=_omv),
        )
    )
BN_CASES += [
    (
        "BatchNorm",
        [rand(RNG, 4, 3, 5), rand(RNG, 5), rand(RNG, 5), rand(RNG, 5), _pos(5)],
        dict(axis=-1, fix_gamma=False, eps=1e-5),
    ),
    (
        "BatchNorm",
        [rand(RNG, 2, 4, 3, 3), rand(RNG, 4), rand(RNG, 4), rand(RNG, 4), _pos(4)],
        dict(fix_gamma=False, momentum=0.5),
    ),
    (
        "BatchNorm",
        [rand(RNG, 6, 4), rand(RNG, 4), rand(RNG, 4), rand(RNG, 4), _pos(4)],
        dict(fix_gamma=False),
    ),
]

NORM_CASES = (
    BN_CASES
    + [
        ("LayerNorm", [rand(RNG, 4, 3, 5), rand(RNG, 5), rand(RNG, 5)], {}),
        (
            "LayerNorm",
            [rand(RNG, 4, 3, 5), rand(RNG, 3), rand(RNG, 3)],
            dict(axis=1, output_mean_var=True, eps=1e-3),
        ),
        ("LayerNorm", [rand(RNG, 4, 3, 5), rand(RNG, 4), rand(RNG, 4)], dict(axis=-3)),
        ("InstanceNorm", [rand(RNG, 4, 3, 5, 2), rand(RNG, 3), rand(RNG, 3)], {}),
        ("InstanceNorm", [rand(RNG, 2, 3, 7), rand(RNG, 3), rand(RNG, 3)], dict(eps=1e-5)),
        (
            "GroupNorm",
            [rand(RNG, 4, 6, 5), rand(RNG, 2), rand(RNG, 2)],
            dict(num_groups=2, output_mean_var=True),
        ),
        ("GroupNorm", [rand(RNG, 2, 4, 3, 3), rand(RNG, 1), rand(RNG, 1)], {}),
    ]
    + [
        ("L2Normalization", [rand(RNG, 4, 3, 5, 2)], dict(mode=m))
        for m in ("instance", "channel", "spatial")
    ]
    + [
        ("L2Normalization", [rand(RNG, 4, 6)], dict(eps=1e-3)),
    ]
)

NORM_CASES += [
    (
        "_contrib_BatchNormWithReLU",
        [rand(RNG, 4, 3, 5, 2), rand(RNG, 3), rand(RNG, 3), rand(RNG, 3), _pos(3)],
        dict(fix_gamma=False),
    ),
    (
        "_contrib_BatchNormWithReLU",
        [rand(RNG, 2, 4, 3, 3), rand(RNG, 4), rand(RNG, 4), rand(RNG, 4), _pos(4)],
        dict(eps=1e-5),
    ),
    ("LRN", [rand(RNG, 2, 5, 3, 3)], dict(nsize=3)),
    ("LRN", [rand(RNG, 2, 6, 4, 2)], dict(nsize=5, alpha=0.01, beta=0.5, knorm=1.0)),
    ("LRN", [rand(RNG, 2, 4, 3, 3)], dict(nsize=2)),
    ("LRN", [rand(RNG, 1, 7, 2, 2)], dict(nsize=4, alpha=0.5)),
]

ACT_CASES = [
    ("LeakyReLU", [rand(RNG, 4, 3, 5)], dict(act_type=t, slope=s))
    for t, s in itertools.product(("leaky", "elu", "selu", "gelu"), (0.25, 0.7))
]
ACT_CASES += [
    ("LeakyReLU", [rand(RNG, 4, 3, 5)], {}),
    ("LeakyReLU", [rand(RNG, 4, 3, 5)], dict(slope=-0.5)),
    ("LeakyReLU", [rand(RNG, 4, 3, 5)], dict(slope=2.0)),
    ("softmax", [rand(RNG, 4, 3, 40)], {}),
    ("log_softmax", [rand(RNG, 4, 3, 1)], dict(axis=1)),
    (
        "LeakyReLU",
        [
            np.concatenate(
                [rand(RNG, 200, low=-12, high=12), np.array([0, 1e-8, -1e-8, 30, -30], np.float32)]
            )
        ],
        dict(act_type="gelu"),
    ),
    ("LeakyReLU", [rand(RNG, 4, 3, 5)], dict(act_type="rrelu"), 1),  # mask: uninitialised
    ("LeakyReLU", [rand(RNG, 4, 3, 5), rand(RNG, 3)], dict(act_type="prelu")),
    ("LeakyReLU", [rand(RNG, 4, 3, 5), rand(RNG, 1)], dict(act_type="prelu")),
]
for _op, _ax in itertools.product(("softmax", "log_softmax", "softmin"), (-1, 0, 1)):
    ACT_CASES.append((_op, [rand(RNG, 4, 3, 5)], dict(axis=_ax)))
    ACT_CASES.append((_op, [rand(RNG, 4, 3, 5)], dict(axis=_ax, temperature=2.5)))
ACT_CASES += [
    ("softmax", [rand(RNG, 4, 3, 5)], dict(dtype="float64")),
    ("log_softmax", [rand(RNG, 3, 5).astype(np.float64)], {}),
    (
        "softmax",
        [rand(RNG, 4, 3, 5), np.array([[1, 2, 3], [5, 4, 0], [1, 1, 1], [2, 2, 2]], np.int64)],
        dict(use_length=True),
    ),
    (
        "softmax",
        [
            rand(RNG, 4, 3, 5),
            np.array(
                [[1, 2, 3, 3, 1], [0, 1, 1, 1, 1], [2, 2, 2, 2, 2], [0, 1, 2, 3, 3]], np.int32
            ),
        ],
        dict(use_length=True, axis=1),
    ),
    ("SoftmaxActivation", [rand(RNG, 4, 3, 5)], {}),
    ("SoftmaxActivation", [rand(RNG, 4, 7)], {}),
    ("SoftmaxActivation", [rand(RNG, 2, 3, 4, 5)], dict(mode="channel")),
    ("Dropout", [rand(RNG, 4, 3, 5)], dict(p=0.3)),
    ("Dropout", [rand(RNG, 4, 3, 5)], dict(p=0.7, axes=(1,))),
]

ALL = NORM_CASES + ACT_CASES


@pytest.mark.mxnet
@pytest.mark.parametrize("case", ALL, ids=[case_id(c) for c in ALL])
def test_matches_mxnet(case):
    check_both(case)


@pytest.mark.mxnet
def test_batchnorm_training_outputs_match_mxnet():
    """Under autograd.record both use batch statistics; mean and inverse std outputs too."""
    rng = np.random.RandomState(11)  # its own inputs: the same in any test order
    arrays = [
        rand(rng, 6, 3, 4),
        rand(rng, 3),
        rand(rng, 3),
        rand(rng, 3),
        rng.uniform(0.5, 2.0, 3).astype(np.float32),
    ]
    kw = dict(fix_gamma=False, output_mean_var=True)

    def training(m):
        with m.autograd.record():
            return m.nd.BatchNorm(*[m.nd.array(a) for a in arrays], **kw)

    want = reference(training, (arrays, kw))
    with mx.autograd.record():
        got = mx.nd.BatchNorm(*[mx.nd.array(a) for a in arrays], **kw)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-4, atol=1e-5)


_TYPED = {
    "BatchNorm": lambda lib, x: lib.sym.BatchNorm(x, name="op"),
    "BatchNorm_omv": lambda lib, x: lib.sym.BatchNorm(x, output_mean_var=True, name="op"),
    "LayerNorm": lambda lib, x: lib.sym.LayerNorm(x, name="op"),
    "GroupNorm": lambda lib, x: lib.sym.GroupNorm(x, name="op"),
    "InstanceNorm": lambda lib, x: lib.sym.InstanceNorm(x, name="op"),
    "LeakyReLU_prelu": lambda lib, x: lib.sym.LeakyReLU(x, act_type="prelu", name="op"),
    "Embedding": lambda lib, x: lib.sym.Embedding(x, input_dim=3, output_dim=2, name="op"),
    "Embedding64": lambda lib, x: lib.sym.Embedding(
        x, input_dim=3, output_dim=2, dtype="float64", name="op"
    ),
    "Convolution": lambda lib, x: lib.sym.Convolution(x, kernel=(3, 3), num_filter=2, name="op"),
    "topk_both": lambda lib, x: lib.sym.topk(x, ret_typ="both", name="op"),
    "argsort": lambda lib, x: lib.sym.argsort(x, dtype="int32", name="op"),
    "softmax64": lambda lib, x: lib.sym.softmax(x, dtype="float64", name="op"),
    "one_hot": lambda lib, x: lib.sym.one_hot(x, depth=3, dtype="int32", name="op"),
    "Cast": lambda lib, x: lib.sym.Cast(x, dtype="uint8", name="op"),
}


def _types(lib, build, dtype):
    try:
        res = build(lib, lib.sym.var("x")).infer_type(x=dtype)
    except Exception as err:  # noqa: BLE001 - both must fail alike
        assert "MXNetError" in type(err).__name__, err
        return "error"
    return [[np.dtype(t).name for t in part] for part in res]


@pytest.mark.mxnet
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int32])
@pytest.mark.parametrize("name", sorted(_TYPED))
def test_type_inference_matches_mxnet(name, dtype):
    build = _TYPED[name]
    assert _types(mx, build, dtype) == reference(
        lambda m: _types(m, build, dtype), (name, build, dtype), name
    )
