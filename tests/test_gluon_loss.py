"""gluon.loss on the engine against real MXNet 1.9.1 (eager and hybridized), plus the
engine-only eager == hybridized check."""

import numpy as np
import pytest

import hybridlint.engine as mx

RNG = np.random.RandomState(0)
PRED = RNG.normal(size=(4, 5)).astype("float32")
PROB = (1 / (1 + np.exp(-PRED))).astype("float32")
SIGNED = np.sign(RNG.normal(size=(4, 5))).astype("float32")
BINARY = (SIGNED > 0).astype("float32")
CLASSES = RNG.randint(0, 5, size=(4,)).astype("float32")
DENSE = RNG.dirichlet(np.ones(5), size=4).astype("float32")
WEIGHTS = RNG.uniform(0.5, 1.5, size=(4, 1)).astype("float32")
SEQ = RNG.normal(size=(2, 5, 4)).astype("float32")  # (batch, time, classes), blank last
LABELS = np.array([[1, 2], [0, 1]], "float32")

# (id, factory(lib), inputs)
LOSSES = [
    ("l2", lambda lib: lib.gluon.loss.L2Loss(), [PRED, SIGNED]),
    ("l2_weighted", lambda lib: lib.gluon.loss.L2Loss(weight=3.0), [PRED, SIGNED, WEIGHTS]),
    ("l1", lambda lib: lib.gluon.loss.L1Loss(), [PRED, SIGNED]),
    ("sigmoid_bce", lambda lib: lib.gluon.loss.SigmoidBCELoss(), [PRED, BINARY]),
    (
        "sigmoid_bce_from_sigmoid",
        lambda lib: lib.gluon.loss.SigmoidBCELoss(from_sigmoid=True),
        [PROB, BINARY],
    ),
    ("softmax_ce", lambda lib: lib.gluon.loss.SoftmaxCrossEntropyLoss(), [PRED, CLASSES]),
    (
        "softmax_ce_dense",
        lambda lib: lib.gluon.loss.SoftmaxCELoss(sparse_label=False),
        [PRED, DENSE],
    ),
    ("kldiv", lambda lib: lib.gluon.loss.KLDivLoss(from_logits=False), [PRED, DENSE]),
    ("huber", lambda lib: lib.gluon.loss.HuberLoss(rho=0.5), [PRED, SIGNED]),
    ("hinge", lambda lib: lib.gluon.loss.HingeLoss(), [PRED, SIGNED]),
    ("squared_hinge", lambda lib: lib.gluon.loss.SquaredHingeLoss(margin=0.5), [PRED, SIGNED]),
    ("logistic", lambda lib: lib.gluon.loss.LogisticLoss(), [PRED, SIGNED]),
    (
        "logistic_binary",
        lambda lib: lib.gluon.loss.LogisticLoss(label_format="binary"),
        [PRED, BINARY],
    ),
    ("triplet", lambda lib: lib.gluon.loss.TripletLoss(), [PRED, PROB, SIGNED]),
    ("poisson", lambda lib: lib.gluon.loss.PoissonNLLLoss(), [PRED, np.abs(SIGNED)]),
    ("cosine", lambda lib: lib.gluon.loss.CosineEmbeddingLoss(), [PRED, PROB, SIGNED[:, 0]]),
    ("ctc", lambda lib: lib.gluon.loss.CTCLoss(), [SEQ, LABELS]),
    (
        "ctc_lengths",
        lambda lib: lib.gluon.loss.CTCLoss(weight=0.5),
        [SEQ, LABELS, np.array([5, 4], "float32"), np.array([2, 1], "float32")],
    ),
    (
        "ctc_time_major",
        lambda lib: lib.gluon.loss.CTCLoss(layout="TNC", label_layout="TN"),
        [SEQ.transpose(1, 0, 2).copy(), LABELS.T.copy()],
    ),
]

# MXNet 1.9.1's own losses that fail hybridized (loss.py: `stirling_factor *= ...`,
# `x1.shape`): eagerly they compute, and the engine's fail hybridized alike
FAILING_HYBRIDIZED = [
    (
        "poisson_full",
        lambda lib: lib.gluon.loss.PoissonNLLLoss(compute_full=True),
        [np.abs(PRED) + 0.1, np.abs(SIGNED) * 3],
    ),
    ("sdml", lambda lib: lib.gluon.loss.SDMLLoss(), [PRED, PROB]),
]


def run(loss, lib, inputs):
    return loss(*[lib.nd.array(i) for i in inputs]).asnumpy()


@pytest.mark.parametrize("name, factory, inputs", LOSSES, ids=[c[0] for c in LOSSES])
def test_engine_eager_equals_hybridized(name, factory, inputs):
    loss = factory(mx)
    eager = run(loss, mx, inputs)
    loss.hybridize()
    np.testing.assert_allclose(run(loss, mx, inputs), eager, rtol=1e-5, atol=1e-6)
    assert np.all(np.isfinite(eager))


@pytest.mark.mxnet
@pytest.mark.parametrize("name, factory, inputs", LOSSES, ids=[c[0] for c in LOSSES])
def test_same_values_as_real_mxnet(name, factory, inputs):
    mx_real = pytest.importorskip("mxnet")
    ours, theirs = factory(mx), factory(mx_real)
    assert repr(ours) == repr(theirs)
    for hybrid in (False, True):
        if hybrid:
            ours.hybridize()
            theirs.hybridize()
        np.testing.assert_allclose(
            run(ours, mx, inputs), run(theirs, mx_real, inputs), rtol=1e-5, atol=1e-6
        )


@pytest.mark.parametrize(
    "name, factory, inputs", FAILING_HYBRIDIZED, ids=[c[0] for c in FAILING_HYBRIDIZED]
)
def test_mxnets_own_hazards_fail_hybridized_on_the_engine(name, factory, inputs):
    loss = factory(mx)
    run(loss, mx, inputs)  # eagerly fine
    loss.hybridize()
    with pytest.raises((AttributeError, mx.base.NotImplementedForSymbol)):
        run(loss, mx, inputs)


@pytest.mark.mxnet
@pytest.mark.parametrize(
    "name, factory, inputs", FAILING_HYBRIDIZED, ids=[c[0] for c in FAILING_HYBRIDIZED]
)
def test_mxnets_own_hazards_compute_alike_eagerly_and_fail_alike(name, factory, inputs):
    mx_real = pytest.importorskip("mxnet")
    ours, theirs = factory(mx), factory(mx_real)
    np.testing.assert_allclose(  # float32 sums over pairs: last digits differ
        run(ours, mx, inputs), run(theirs, mx_real, inputs), rtol=1e-4, atol=1e-5
    )
    failures = []
    for lib, loss in ((mx, ours), (mx_real, theirs)):
        loss.hybridize()
        try:
            run(loss, lib, inputs)
            failures.append(None)
        except Exception as err:  # noqa: BLE001 - the kind of failure is compared
            failures.append(type(err).__name__)
    assert failures[0] == failures[1] is not None


def test_missing_loss_says_not_implemented():
    with pytest.raises(NotImplementedError, match="mxnet.gluon.loss.FocalLoss"):
        mx.gluon.loss.FocalLoss
