# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""GluonTS 0.5.2 under MXNet 1.9.1: every estimator's training and prediction network run
eagerly and hybridized on a batch of its own transformation, single lines patched to show which
line fails on its own.

Why: the labels of labels/gluonts-0.5.2*.tsv say ``how = mxnet``; this is the record of those
runs. GluonTS 0.5.2 is imported whole from the harness's extracted source
(``~/.cache/hybridlint-realworld/src``); it needs pydantic 1 and pandas, and Python < 3.10's
``collections`` aliases (and two offset classes pandas 1.5 moved), so this runs in a venv of its own (MXNet 1.9.1, numpy 1.23.5,
pydantic 1.10, pandas 1.5.3, ujson, tqdm, toolz), not in the project's MXNet venv:

    python3 -m venv /tmp/gts && /tmp/gts/bin/pip install <mxnet-1.9.1 wheel> numpy==1.23.5 \
        'pydantic<2' pandas==1.5.3 ujson tqdm toolz
    python benchmarks/realworld/run.py --package gluonts-0.5.2 --no-speed
    /tmp/gts/bin/python benchmarks/realworld/repro/round5_repro_gluonts052.py

A patched module is re-executed from its file over the imported one (same line count), and the
estimator built after that picks up the patched class.
"""

import collections
import collections.abc
import os
import sys
import traceback

for _name in (
    "Sized",
    "Iterable",
    "Iterator",
    "Mapping",
    "MutableMapping",
    "Sequence",
    "Callable",
    "Hashable",
):
    setattr(collections, _name, getattr(collections.abc, _name))

import mxnet as mx
import numpy as np
import pandas.tseries.offsets
from pandas._libs.tslibs import offsets as _offsets

# pandas 1.5 keeps these base classes out of pandas.tseries.offsets; GluonTS 0.5.2 reads them there
pandas.tseries.offsets.YearOffset = _offsets.YearOffset
pandas.tseries.offsets.MonthOffset = _offsets.MonthOffset

SRC = os.path.expanduser("~/.cache/hybridlint-realworld/src")
GTS = os.path.join(SRC, "gluonts-0.5.2")
sys.path.insert(0, GTS)
import gluonts

assert gluonts.__file__.startswith(GTS), gluonts.__file__
from gluonts.dataset.common import ListDataset
from gluonts.dataset.loader import InferenceDataLoader, TrainDataLoader
from gluonts.support.util import get_hybrid_forward_input_names
from gluonts.trainer import Trainer

RESULTS = []


def record(entry):
    """Keep one outcome and print it at once (the whole run takes minutes)."""
    RESULTS.append(entry)
    label, outcome, expect = entry
    print(f"{label}\n    -> {outcome}   [label: {expect}]", flush=True)


FREQ = "H"
R = np.random.RandomState(3)
T = 60


def univariate(n=4, cats=3):
    return ListDataset(
        [
            {
                "start": "2020-01-01 00:00",
                "target": R.poisson(5.0, T).astype(float) + 1.0,
                "feat_static_cat": [i % cats],
            }
            for i in range(n)
        ],
        freq=FREQ,
    )


def multivariate(dim=3):
    return ListDataset(
        [{"start": "2020-01-01 00:00", "target": R.gamma(2.0, 2.0, (dim, T))}],
        freq=FREQ,
        one_dim_target=False,
    )


def nd(x):
    if isinstance(x, mx.nd.NDArray):
        return x.asnumpy()
    return [nd(e) for e in x]


def same(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-4, atol=1e-5, equal_nan=True)


def failure(error):
    where = [f for f in traceback.extract_tb(error.__traceback__) if GTS in f.filename]
    at = f" at {os.path.relpath(where[-1].filename, GTS)}:{where[-1].lineno}" if where else ""
    message = str(error).strip().splitlines()
    return f"FAILS{at} {type(error).__name__}: {(message[0] if message else '')[:150]}"


def both(label, net, inputs, expect, compare=same):
    """``net`` eagerly, then hybridized, on the same inputs and seed."""
    try:
        mx.random.seed(0)
        eager = nd(net(*inputs))
    except Exception as error:  # noqa: BLE001
        record((label, "EAGER " + failure(error), expect))
        return
    net.hybridize()
    try:
        mx.random.seed(0)
        hybrid = nd(net(*inputs))
        outcome = compare(eager, hybrid)
        outcome = {True: "equal", False: "DIFFERENT"}.get(outcome, outcome)
    except Exception as error:  # noqa: BLE001
        outcome = failure(error)
    record((label, outcome, expect))


def sample_stats(eager, hybrid):
    """Prediction networks draw samples: equal shapes and close sample means, or DIFFERENT."""
    a, b = (np.asarray(x[0] if isinstance(x, list) else x) for x in (eager, hybrid))
    if a.shape != b.shape:
        return f"DIFFERENT shapes {a.shape} / {b.shape}"
    if np.allclose(a, b, rtol=1e-4, atol=1e-5):
        return "equal"
    ma, mb = np.nanmean(a), np.nanmean(b)
    close = (
        np.isfinite(ma) and np.isfinite(mb) and abs(ma - mb) <= 0.2 * (abs(ma) + abs(mb)) / 2 + 0.5
    )
    return f"{'samples alike' if close else 'DIFFERENT samples'} (means {ma:.3g} / {mb:.3g})"


def estimator_run(label, make, dataset, expect_train="equal", expect_predict="equal"):
    """The training network on a training batch, then the prediction network (the training
    network's parameters) on an inference batch; each eagerly and hybridized."""
    mx.random.seed(0)
    np.random.seed(0)
    try:
        estimator = make()
        transformation = estimator.create_transformation()
        loader = TrainDataLoader(
            dataset=dataset,
            transform=transformation,
            batch_size=4,
            ctx=mx.cpu(),
            num_batches_per_epoch=1,
            dtype=estimator.dtype,
        )
        batch = next(iter(loader))
        with mx.cpu():
            net = estimator.create_training_network()
        net.initialize()
        inputs = [batch[name] for name in get_hybrid_forward_input_names(net)]
    except Exception as error:  # noqa: BLE001
        record((label + " setup", "SETUP " + failure(error), expect_train))
        return
    both(label + " training network", net, inputs, expect_train)
    try:
        estimator = make()  # a fresh one: some share child blocks between the networks
        net = estimator.create_training_network()
        net.initialize()
        mx.random.seed(0)
        net(*inputs)  # settle deferred shapes eagerly
        predictor = estimator.create_predictor(transformation, net)
        pnet = predictor.prediction_net
        infer = InferenceDataLoader(
            dataset=dataset,
            transform=transformation,
            batch_size=4,
            ctx=mx.cpu(),
            dtype=estimator.dtype,
        )
        pbatch = next(iter(infer))
        pinputs = [pbatch[name] for name in get_hybrid_forward_input_names(pnet)]
    except Exception as error:  # noqa: BLE001
        record((label + " prediction setup", "SETUP " + failure(error), expect_predict))
        return
    both(label + " prediction network", pnet, pinputs, expect_predict, sample_stats)


def trainer():
    return Trainer(epochs=1, num_batches_per_epoch=1, batch_size=4, hybridize=False)


from gluonts.model.canonical import CanonicalRNNEstimator
from gluonts.model.canonical._estimator import MLPForecasterEstimator
from gluonts.model.deep_factor import DeepFactorEstimator
from gluonts.model.deepar import DeepAREstimator
from gluonts.model.deepstate import DeepStateEstimator
from gluonts.model.deepvar import DeepVAREstimator
from gluonts.model.gp_forecaster import GaussianProcessEstimator
from gluonts.model.gpvar import GPVAREstimator
from gluonts.model.lstnet import LSTNetEstimator
from gluonts.model.n_beats import NBEATSEstimator
from gluonts.model.seq2seq import MQCNNEstimator, MQRNNEstimator, RNN2QRForecaster
from gluonts.model.seq2seq._seq2seq_estimator import MLP2QRForecaster
from gluonts.model.simple_feedforward import SimpleFeedForwardEstimator
from gluonts.model.transformer import TransformerEstimator
from gluonts.model.wavenet import WaveNet, WaveNetEstimator
from gluonts.distribution import (
    BinnedOutput,
    GammaOutput,
    GaussianOutput,
    LaplaceOutput,
    MixtureDistributionOutput,
    NegativeBinomialOutput,
    PiecewiseLinearOutput,
    PoissonOutput,
    StudentTOutput,
)

P, C = 4, 8
uni, multi = univariate(), multivariate()
ESTIMATORS = [
    (
        "DeepAR",
        lambda: DeepAREstimator(
            FREQ, P, trainer=trainer(), context_length=C, num_cells=8, num_layers=1
        ),
        uni,
    ),
    (
        "DeepAR NegativeBinomial, static cat",
        lambda: DeepAREstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_cells=8,
            num_layers=2,
            use_feat_static_cat=True,
            cardinality=[3],
            distr_output=NegativeBinomialOutput(),
        ),
        uni,
    ),
    (
        "DeepAR PiecewiseLinear, no scaling",
        lambda: DeepAREstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_cells=8,
            num_layers=1,
            scaling=False,
            distr_output=PiecewiseLinearOutput(4),
        ),
        uni,
    ),
    (
        "DeepAR Binned",
        lambda: DeepAREstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_cells=8,
            num_layers=1,
            distr_output=BinnedOutput(mx.nd.array(np.linspace(-1.0, 3.0, 12))),
        ),
        uni,
    ),
    (
        "DeepAR Binned, label smoothing",
        lambda: DeepAREstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_cells=8,
            num_layers=1,
            distr_output=BinnedOutput(mx.nd.array(np.linspace(-1.0, 3.0, 12)), label_smoothing=0.1),
        ),
        uni,
    ),
    (
        "DeepAR Mixture(Gaussian, StudentT)",
        lambda: DeepAREstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_cells=8,
            num_layers=1,
            distr_output=MixtureDistributionOutput([GaussianOutput(), StudentTOutput()]),
        ),
        uni,
    ),
    (
        "DeepAR Gamma",
        lambda: DeepAREstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_cells=8,
            num_layers=1,
            distr_output=GammaOutput(),
        ),
        uni,
    ),
    (
        "DeepAR Poisson",
        lambda: DeepAREstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_cells=8,
            num_layers=1,
            distr_output=PoissonOutput(),
        ),
        uni,
    ),
    (
        "DeepAR Laplace",
        lambda: DeepAREstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_cells=8,
            num_layers=1,
            distr_output=LaplaceOutput(),
        ),
        uni,
    ),
    (
        "DeepState",
        lambda: DeepStateEstimator(
            FREQ,
            P,
            cardinality=[3],
            trainer=trainer(),
            past_length=C,
            num_cells=8,
            num_layers=1,
            use_feat_static_cat=True,
        ),
        uni,
    ),
    (
        "DeepFactor",
        lambda: DeepFactorEstimator(FREQ, P, trainer=trainer(), context_length=C, cardinality=[4]),
        uni,
    ),
    (
        "GaussianProcess",
        lambda: GaussianProcessEstimator(
            FREQ, P, cardinality=4, trainer=trainer(), context_length=C
        ),
        uni,
    ),
    (
        "CanonicalRNN",
        lambda: CanonicalRNNEstimator(FREQ, C, P, trainer=trainer(), num_cells=8, cardinality=[4]),
        uni,
    ),
    (
        "MLPForecaster",
        lambda: MLPForecasterEstimator(FREQ, C, P, trainer=trainer(), hidden_dim_sequence=[8]),
        uni,
    ),
    (
        "SimpleFeedForward",
        lambda: SimpleFeedForwardEstimator(
            FREQ, P, trainer=trainer(), context_length=C, num_hidden_dimensions=[8]
        ),
        uni,
    ),
    (
        "SimpleFeedForward StudentT, mean scaling off",
        lambda: SimpleFeedForwardEstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_hidden_dimensions=[8, 8],
            mean_scaling=False,
            distr_output=StudentTOutput(),
        ),
        uni,
    ),
    (
        "SimpleFeedForward batch_normalization",
        lambda: SimpleFeedForwardEstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_hidden_dimensions=[8],
            batch_normalization=True,
        ),
        uni,
    ),
    (
        "Transformer",
        lambda: TransformerEstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            model_dim=8,
            inner_ff_dim_scale=1,
            num_heads=2,
        ),
        uni,
    ),
    (
        "NBEATS generic",
        lambda: NBEATSEstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_stacks=2,
            widths=[8],
            num_blocks=[1],
            num_block_layers=[2],
            expansion_coefficient_lengths=[4],
            sharing=[False],
            stack_types=["G"],
        ),
        uni,
    ),
    (
        "NBEATS interpretable",
        lambda: NBEATSEstimator(
            FREQ,
            P,
            trainer=trainer(),
            context_length=C,
            num_stacks=2,
            widths=[8, 8],
            num_blocks=[1, 1],
            num_block_layers=[2, 2],
            expansion_coefficient_lengths=[2, 4],
            sharing=[True, True],
            stack_types=["T", "S"],
        ),
        uni,
    ),
    (
        "MQCNN",
        lambda: MQCNNEstimator(
            P, FREQ, trainer=trainer(), context_length=C, quantiles=[0.1, 0.5, 0.9]
        ),
        uni,
    ),
    (
        "MQRNN",
        lambda: MQRNNEstimator(
            P, FREQ, trainer=trainer(), context_length=C, quantiles=[0.1, 0.5, 0.9]
        ),
        uni,
    ),
    (
        "RNN2QRForecaster",
        lambda: RNN2QRForecaster(
            FREQ,
            P,
            [4],
            2,
            1,
            8,
            [8],
            4,
            trainer=trainer(),
            context_length=C,
            quantiles=[0.1, 0.5, 0.9],
        ),
        uni,
    ),
    (
        "MLP2QRForecaster",
        lambda: MLP2QRForecaster(
            FREQ,
            P,
            [4],
            2,
            [8],
            [8],
            4,
            trainer=trainer(),
            context_length=C,
            quantiles=[0.1, 0.5, 0.9],
        ),
        uni,
    ),
    (
        "DeepVAR",
        lambda: DeepVAREstimator(
            FREQ,
            P,
            3,
            trainer=trainer(),
            context_length=C,
            num_cells=8,
            num_layers=1,
            rank=2,
            lags_seq=[1, 2],
        ),
        multi,
    ),
    (
        "GPVAR",
        lambda: GPVAREstimator(
            FREQ,
            P,
            3,
            trainer=trainer(),
            context_length=C,
            num_cells=8,
            num_layers=1,
            rank=2,
            lags_seq=[1, 2],
        ),
        multi,
    ),
    (
        "LSTNet",
        lambda: LSTNetEstimator(
            FREQ,
            P,
            C,
            3,
            skip_size=2,
            ar_window=2,
            channels=4,
            trainer=trainer(),
            kernel_size=2,
            rnn_num_cells=8,
            skip_rnn_num_cells=4,
        ),
        multi,
    ),
]


def wavenet_run(label, estimator, dataset, expect="equal"):
    """WaveNetEstimator.train's own steps (bin edges from the data, a transformation that
    takes them, WaveNet / WaveNetSampler built from _get_wavenet_args) up to the networks."""
    mx.random.seed(0)
    np.random.seed(0)
    bin_centers = np.linspace(0, 10.0, estimator.num_bins)
    bin_edges = np.concatenate([[-1e20], (bin_centers[1:] + bin_centers[:-1]) / 2.0, [1e20]])
    transformation = estimator.create_transformation(
        bin_edges, pred_length=estimator.train_window_length
    )
    transformation.estimate(iter(dataset))
    loader = TrainDataLoader(
        dataset=dataset,
        transform=transformation,
        batch_size=4,
        ctx=mx.cpu(),
        num_batches_per_epoch=1,
    )
    batch = next(iter(loader))
    params = estimator._get_wavenet_args(bin_centers)
    params.update(pred_length=estimator.train_window_length)
    net = WaveNet(**params)
    net.initialize()
    inputs = [batch[name] for name in get_hybrid_forward_input_names(net)]
    both(label + " training network", net, inputs, expect)
    net = WaveNet(**params)
    net.initialize()
    net(*inputs)
    predictor = estimator.create_predictor(transformation, net, bin_centers)
    pnet = predictor.prediction_net
    pbatch = next(
        iter(
            InferenceDataLoader(
                dataset=dataset,
                transform=transformation,
                batch_size=4,
                ctx=mx.cpu(),
                dtype=np.float32,
            )
        )
    )
    both(
        label + " prediction network (WaveNetSampler)",
        pnet,
        [pbatch[name] for name in get_hybrid_forward_input_names(pnet)],
        expect,
        sample_stats,
    )


def patched(module_name, patches, dependents=()):
    """Re-execute ``module_name``'s file over the imported module with ``patches`` (line ->
    (old text, new text)); rebind the names ``dependents`` (module names) imported from it."""
    module = sys.modules[module_name]
    with open(module.__file__, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    for number, (old, new) in patches.items():
        assert old in lines[number - 1], (module.__file__, number, lines[number - 1])
        lines[number - 1] = lines[number - 1].replace(old, new)
    exec(compile("\n".join(lines), module.__file__, "exec"), module.__dict__)
    for dependent in dependents:
        namespace = sys.modules[dependent].__dict__
        for name, value in list(namespace.items()):
            if getattr(value, "__module__", None) == module_name and name in module.__dict__:
                namespace[name] = module.__dict__[name]


def train_then_predict(label, make, dataset, expect):
    """What a user does: estimator.train (its Trainer hybridizes the training network unless
    told not to), then the predictor's forecasts."""
    mx.random.seed(0)
    np.random.seed(0)
    try:
        predictor = make().train(dataset)
        forecasts = list(predictor.predict(dataset))
        outcome = (
            f"{len(forecasts)} forecasts, mean {np.mean([f.mean.mean() for f in forecasts]):.3g}"
        )
    except Exception as error:  # noqa: BLE001
        outcome = failure(error)
    record((label, outcome, expect))


def hazards():
    """The three failures of the sweep, each run as the package runs it and with its line
    patched."""
    transformer = lambda hybridize: (
        lambda: TransformerEstimator(
            FREQ,
            P,
            trainer=Trainer(epochs=1, num_batches_per_epoch=1, batch_size=4, hybridize=hybridize),
            context_length=C,
            model_dim=8,
            inner_ff_dim_scale=1,
            num_heads=2,
        )
    )
    train_then_predict(
        "0.5.2 Transformer, default Trainer (hybridize=True): train, predict",
        transformer(True),
        uni,
        "works (the Trainer's HybridContext turns hybridization off after training)",
    )
    train_then_predict(
        "0.5.2 Transformer, Trainer(hybridize=False): train, predict",
        transformer(False),
        uni,
        "works",
    )
    nbeats = lambda: NBEATSEstimator(
        FREQ,
        P,
        trainer=trainer(),
        context_length=C,
        num_stacks=2,
        widths=[8, 8],
        num_blocks=[1, 1],
        num_block_layers=[2, 2],
        expansion_coefficient_lengths=[2, 4],
        sharing=[True, True],
        stack_types=["T", "S"],
    )
    estimator_run(
        "0.5.2 NBEATS interpretable, as shipped",
        nbeats,
        uni,
        "fails at 349 (basis cached eagerly)",
        "fails at 349 (basis cached eagerly)",
    )
    patched(
        "gluonts.model.n_beats._network",
        {162: ("if not self.basis_initialized:", "if True:")},
        ["gluonts.model.n_beats._estimator"],
    )
    estimator_run("0.5.2 NBEATS interpretable, basis built at every call (162)", nbeats, uni)
    deepstate = lambda: DeepStateEstimator(
        FREQ,
        P,
        cardinality=[3],
        trainer=trainer(),
        past_length=C,
        num_cells=8,
        num_layers=1,
        use_feat_static_cat=True,
    )
    estimator_run(
        "0.5.2 DeepState, as shipped",
        deepstate,
        uni,
        "equal",
        "fails at support/linalg_util.py:201",
    )
    eager_201 = {
        201: ("if F.sum(diag <= neg_tol) > 0:", "if F is mx.nd and F.sum(diag <= neg_tol) > 0:")
    }
    eager_220 = {
        220: (
            "assert F.abs(L.nansum() - L.sum()) <= 1e-1",
            "assert F is not mx.nd or F.abs(L.nansum() - L.sum()) <= 1e-1",
        )
    }
    patched("gluonts.support.linalg_util", eager_201, ["gluonts.distribution.lds"])
    estimator_run(
        "0.5.2 DeepState, linalg_util.py:201 checked eagerly only",
        deepstate,
        uni,
        "equal",
        "fails at 233 (220's assert on a Symbol raises, the bare except retries, gives up)",
    )
    patched("gluonts.support.linalg_util", {**eager_201, **eager_220}, ["gluonts.distribution.lds"])
    estimator_run(
        "0.5.2 DeepState, linalg_util.py:201 and 220 checked eagerly only",
        deepstate,
        uni,
        "equal",
        "samples alike",
    )
    mixture = lambda: DeepAREstimator(
        FREQ,
        P,
        trainer=trainer(),
        context_length=C,
        num_cells=8,
        num_layers=1,
        distr_output=MixtureDistributionOutput([GaussianOutput(), StudentTOutput()]),
    )
    patched(
        "gluonts.distribution.mixture",
        {
            136: (
                "self.F.random.multinomial(mixture_probs)",
                "self.F.sample_multinomial(mixture_probs)",
            )
        },
    )
    estimator_run(
        "0.5.2 DeepAR Mixture, mixture.py:136 by F.sample_multinomial (one output)",
        mixture,
        uni,
        "equal",
        "samples alike",
    )


# the sweep's expected failures (the misses of labels/gluonts-0.5.2.misses.tsv); every other
# network is expected equal eagerly and hybridized (samples alike for the prediction networks)
EXPECT = {
    "DeepAR Mixture(Gaussian, StudentT)": ("equal", "fails (mixture.py:136, a 2-output Symbol)"),
    "DeepState": ("equal", "fails at support/linalg_util.py:201"),
    "NBEATS interpretable": (
        "fails at 349 (basis cached eagerly)",
        "fails at 349 (basis cached eagerly)",
    ),
}


def main(names=None):
    for label, make, dataset in ESTIMATORS:
        if names is None or label in names:
            estimator_run(f"0.5.2 {label}", make, dataset, *EXPECT.get(label, ("equal", "equal")))
    if names is None or "WaveNet" in names:
        wavenet_run(
            "0.5.2 WaveNet",
            WaveNetEstimator(
                FREQ,
                P,
                trainer=trainer(),
                num_bins=16,
                n_residue=4,
                n_skip=4,
                dilation_depth=2,
                n_stacks=1,
                num_parallel_samples=4,
            ),
            uni,
        )
    if names is None or "hazards" in names:
        hazards()


if __name__ == "__main__" and "--part" not in sys.argv:
    main(set(sys.argv[1:]) or None)
