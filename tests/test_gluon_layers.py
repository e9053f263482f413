"""Every gluon.nn layer of issue 3, differentially against real MXNet 1.9.1.

The same layer is built on both libraries; after one forward pass (deferred shapes) both get
the same seeded parameter values; then outputs must agree (rtol 1e-5) eagerly and hybridized.
Engine-only checks (eager == hybridized, reprs) run without MXNet.
"""

import numpy as np
import pytest

import hybridlint.engine as mx


def seq(lib):
    nn = lib.gluon.nn
    net = nn.HybridSequential(prefix="hs_")
    with net.name_scope():
        net.add(nn.Dense(6, activation="relu"), nn.Dropout(0.3), nn.Dense(4))
    return net


def plain_seq(lib):
    nn = lib.gluon.nn
    net = nn.Sequential(prefix="ps_")
    with net.name_scope():
        net.add(nn.Dense(6, activation="sigmoid"), nn.Lambda("tanh"), nn.Dense(4))
    return net


def hybrid_lambda(lib):
    return lib.gluon.nn.HybridLambda(lambda F, x: F.relu(x) * 2 - F.sigmoid(x))


# (id, factory(lib) -> block, input shape, input dtype)
LAYERS = [
    ("dense", lambda lib: lib.gluon.nn.Dense(5), (3, 4, 2), "float32"),
    (
        "dense_noflatten_nobias_act",
        lambda lib: lib.gluon.nn.Dense(5, activation="tanh", use_bias=False, flatten=False),
        (3, 4, 2),
        "float32",
    ),
    ("dense_in_units", lambda lib: lib.gluon.nn.Dense(3, in_units=4), (2, 4), "float32"),
    ("conv1d", lambda lib: lib.gluon.nn.Conv1D(4, 3, strides=2, padding=1), (2, 3, 9), "float32"),
    (
        "conv2d",
        lambda lib: lib.gluon.nn.Conv2D(4, (3, 2), padding=(1, 0), dilation=(2, 1)),
        (2, 3, 7, 6),
        "float32",
    ),
    (
        "conv2d_groups_act",
        lambda lib: lib.gluon.nn.Conv2D(
            4, 3, strides=2, groups=2, activation="relu", in_channels=4
        ),
        (2, 4, 7, 7),
        "float32",
    ),
    (
        "conv1d_transpose",
        lambda lib: lib.gluon.nn.Conv1DTranspose(3, 3, strides=2),
        (2, 4, 5),
        "float32",
    ),
    (
        "conv2d_transpose",
        lambda lib: lib.gluon.nn.Conv2DTranspose(3, 3, strides=2, padding=1, output_padding=1),
        (2, 4, 5, 5),
        "float32",
    ),
    ("maxpool1d", lambda lib: lib.gluon.nn.MaxPool1D(3, 2), (2, 3, 10), "float32"),
    ("maxpool2d", lambda lib: lib.gluon.nn.MaxPool2D(pool_size=2), (2, 3, 7, 7), "float32"),
    (
        "maxpool2d_ceil",
        lambda lib: lib.gluon.nn.MaxPool2D(3, 2, padding=1, ceil_mode=True),
        (2, 3, 8, 8),
        "float32",
    ),
    ("avgpool1d", lambda lib: lib.gluon.nn.AvgPool1D(2), (2, 3, 9), "float32"),
    (
        "avgpool2d_excl_pad",
        lambda lib: lib.gluon.nn.AvgPool2D(3, 1, padding=1, count_include_pad=False),
        (2, 3, 5, 5),
        "float32",
    ),
    ("avgpool2d", lambda lib: lib.gluon.nn.AvgPool2D(2), (2, 3, 6, 6), "float32"),
    ("globalavgpool2d", lambda lib: lib.gluon.nn.GlobalAvgPool2D(), (2, 3, 5, 4), "float32"),
    ("globalmaxpool2d", lambda lib: lib.gluon.nn.GlobalMaxPool2D(), (2, 3, 5, 4), "float32"),
    ("activation_relu", lambda lib: lib.gluon.nn.Activation("relu"), (3, 4), "float32"),
    ("activation_sigmoid", lambda lib: lib.gluon.nn.Activation("sigmoid"), (3, 4), "float32"),
    ("activation_tanh", lambda lib: lib.gluon.nn.Activation("tanh"), (3, 4), "float32"),
    ("activation_softrelu", lambda lib: lib.gluon.nn.Activation("softrelu"), (3, 4), "float32"),
    ("activation_softsign", lambda lib: lib.gluon.nn.Activation("softsign"), (3, 4), "float32"),
    ("leakyrelu", lambda lib: lib.gluon.nn.LeakyReLU(0.1), (3, 4), "float32"),
    ("prelu", lambda lib: lib.gluon.nn.PReLU(), (3, 4), "float32"),
    ("elu", lambda lib: lib.gluon.nn.ELU(0.7), (3, 4), "float32"),
    ("selu", lambda lib: lib.gluon.nn.SELU(), (3, 4), "float32"),
    ("gelu", lambda lib: lib.gluon.nn.GELU(), (3, 4), "float32"),
    ("swish", lambda lib: lib.gluon.nn.Swish(1.5), (3, 4), "float32"),
    ("batchnorm", lambda lib: lib.gluon.nn.BatchNorm(), (2, 3, 4, 4), "float32"),
    (
        "batchnorm_axis_noscale",
        lambda lib: lib.gluon.nn.BatchNorm(axis=-1, scale=False, epsilon=1e-3),
        (2, 4, 3),
        "float32",
    ),
    ("layernorm", lambda lib: lib.gluon.nn.LayerNorm(), (2, 3, 5), "float32"),
    (
        "layernorm_axis1",
        lambda lib: lib.gluon.nn.LayerNorm(axis=1, epsilon=1e-3),
        (2, 3, 5),
        "float32",
    ),
    ("instancenorm", lambda lib: lib.gluon.nn.InstanceNorm(scale=True), (2, 3, 4, 5), "float32"),
    ("dropout_inference", lambda lib: lib.gluon.nn.Dropout(0.5), (3, 4), "float32"),
    ("embedding", lambda lib: lib.gluon.nn.Embedding(10, 4), (3, 5), "int"),
    ("flatten", lambda lib: lib.gluon.nn.Flatten(), (2, 3, 4), "float32"),
    ("hybridsequential", seq, (2, 5), "float32"),
    ("sequential", plain_seq, (2, 5), "float32"),
    ("hybridlambda_fn", hybrid_lambda, (2, 5), "float32"),
    ("hybridlambda_name", lambda lib: lib.gluon.nn.HybridLambda("tanh"), (2, 5), "float32"),
]


def make_input(shape, kind, seed=0):
    rng = np.random.RandomState(seed)
    if kind == "int":
        return rng.randint(0, 10, size=shape).astype("float32")
    return rng.normal(size=shape).astype("float32")


def structural_params(block):
    return block._collect_params_with_prefix()


def set_seeded_params(block, lib, seed=1):
    """Same values on both libraries: keyed by structural name, positive variances."""
    rng = np.random.RandomState(seed)
    values = {}
    for name, p in sorted(structural_params(block).items()):
        value = rng.uniform(-1, 1, size=p.shape).astype(p.dtype)
        if name.endswith("running_var"):
            value = np.abs(value) + 0.5
        p.set_data(lib.nd.array(value, dtype=p.dtype))
        values[name] = value
    return values


def forward(block, lib, x):
    return block(lib.nd.array(x)).asnumpy()


@pytest.mark.parametrize("name, factory, shape, kind", LAYERS, ids=[layer[0] for layer in LAYERS])
def test_engine_eager_equals_hybridized(name, factory, shape, kind):
    block = factory(mx)
    block.initialize()
    x = make_input(shape, kind)
    forward(block, mx, x)
    set_seeded_params(block, mx)
    eager = forward(block, mx, x)
    block.hybridize()
    hybrid1 = forward(block, mx, x)
    hybrid2 = forward(block, mx, x)
    np.testing.assert_allclose(hybrid1, eager, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(hybrid2, hybrid1)


@pytest.mark.mxnet
@pytest.mark.parametrize("name, factory, shape, kind", LAYERS, ids=[layer[0] for layer in LAYERS])
def test_same_outputs_as_real_mxnet(name, factory, shape, kind):
    mx_real = pytest.importorskip("mxnet")
    ours, theirs = factory(mx), factory(mx_real)
    ours.initialize()
    theirs.initialize()
    x = make_input(shape, kind)
    forward(ours, mx, x)
    forward(theirs, mx_real, x)
    assert sorted(structural_params(ours)) == sorted(structural_params(theirs))
    for pname, p in structural_params(theirs).items():
        assert structural_params(ours)[pname].shape == p.shape, pname
    values = set_seeded_params(ours, mx)
    for pname, p in structural_params(theirs).items():
        p.set_data(mx_real.nd.array(values[pname], dtype=p.dtype))
    np.testing.assert_allclose(
        forward(ours, mx, x), forward(theirs, mx_real, x), rtol=1e-5, atol=1e-6
    )
    ours.hybridize()
    theirs.hybridize()
    for _ in range(2):
        np.testing.assert_allclose(
            forward(ours, mx, x), forward(theirs, mx_real, x), rtol=1e-5, atol=1e-6
        )
    assert repr(ours) == repr(theirs)


@pytest.mark.mxnet
@pytest.mark.parametrize("name, factory, shape, kind", LAYERS, ids=[layer[0] for layer in LAYERS])
def test_same_parameter_names_and_initial_kinds_as_real_mxnet(name, factory, shape, kind):
    mx_real = pytest.importorskip("mxnet")
    ours, theirs = factory(mx), factory(mx_real)
    ours.initialize()
    theirs.initialize()
    x = make_input(shape, kind)
    forward(ours, mx, x)
    forward(theirs, mx_real, x)

    def kinds(block):
        out = {}
        for pname, p in structural_params(block).items():
            v = p.data().asnumpy()
            out[pname] = (
                "zeros"
                if np.all(v == 0)
                else "ones"
                if np.all(v == 1)
                else "const"
                if np.all(v == v.flat[0])
                else "random",
                p.grad_req,
                str(np.dtype(p.dtype)),
            )
        return out

    assert kinds(ours) == kinds(theirs)
    strip = len(ours.prefix)
    assert [k[strip:] for k in ours.collect_params()] == [
        k[len(theirs.prefix) :] for k in theirs.collect_params()
    ]


@pytest.mark.parametrize("hybridize", [False, True])
def test_training_mode_dropout_drops_and_rescales(hybridize):
    drop = mx.gluon.nn.Dropout(0.5)
    if hybridize:
        drop.hybridize()
    x = mx.nd.ones((200, 50))
    np.testing.assert_array_equal(drop(x).asnumpy(), 1.0)
    with mx.autograd.train_mode():
        y = drop(x).asnumpy()
    assert set(np.unique(y)) <= {0.0, 2.0} and 0.3 < (y == 0).mean() < 0.7
    np.testing.assert_array_equal(drop(x).asnumpy(), 1.0)  # the cached plan is not stuck


def inception_branches(lib):
    nn, cnn = lib.gluon.nn, lib.gluon.contrib.nn
    net = cnn.HybridConcurrent(axis=1, prefix="inc_")
    with net.name_scope():
        net.add(nn.Conv2D(2, 1), cnn.Identity())
        branch = nn.HybridSequential()
        branch.add(nn.Conv2D(3, 3, padding=1), nn.Activation("relu"))
        net.add(branch)
    return net


def plain_concurrent(lib):
    net = lib.gluon.contrib.nn.Concurrent(axis=-1, prefix="cc_")
    with net.name_scope():
        net.add(lib.gluon.nn.Dense(3), lib.gluon.nn.Dense(2))
    return net


CONTRIB = [
    ("hybridconcurrent", inception_branches, (2, 3, 5, 5), "float32"),
    ("concurrent", plain_concurrent, (2, 4), "float32"),
    (
        "pixelshuffle2d",
        lambda lib: lib.gluon.contrib.nn.PixelShuffle2D((2, 3)),
        (2, 12, 3, 4),
        "float32",
    ),
]


@pytest.mark.parametrize("name, factory, shape, kind", CONTRIB, ids=[c[0] for c in CONTRIB])
def test_contrib_engine_eager_equals_hybridized(name, factory, shape, kind):
    test_engine_eager_equals_hybridized(name, factory, shape, kind)


@pytest.mark.mxnet
@pytest.mark.parametrize("name, factory, shape, kind", CONTRIB, ids=[c[0] for c in CONTRIB])
def test_contrib_same_outputs_as_real_mxnet(name, factory, shape, kind):
    test_same_outputs_as_real_mxnet(name, factory, shape, kind)
