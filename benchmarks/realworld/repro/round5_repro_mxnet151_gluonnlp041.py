# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""MXNet 1.5.1's gluon code and GluonNLP 0.4.1 under MXNet 1.9.1: the blocks of the round-5
labels run eagerly and hybridized, single lines patched one at a time.

Why: the labels of labels/mxnet-1.5.1*.tsv and labels/gluonnlp-0.4.1*.tsv say ``how = mxnet``;
this is the record of those runs. Each file is loaded from the harness's extracted source
(``~/.cache/hybridlint-realworld/src``) by path, as a module inside the installed ``mxnet``
package (1.5.1's relative imports then reach 1.9.1's ``ndarray`` / ``symbol`` / ``block``), so
the line numbers are the labelled ones; a patch replaces one line's text in memory (same line
count). GluonNLP 0.4.1 imports whole on MXNet 1.9.1 from its extracted root.

    python benchmarks/realworld/run.py --package mxnet-1.5.1 --package gluonnlp-0.4.1 --no-speed
    /tmp/mxv/bin/python benchmarks/realworld/repro/round5_repro_mxnet151_gluonnlp041.py
"""

import os
import sys
import traceback
import types

import mxnet as mx
import numpy as np
from mxnet import autograd

SRC = os.path.expanduser("~/.cache/hybridlint-realworld/src")
MX151 = os.path.join(SRC, "mxnet-1.5.1", "mxnet")
NLP041 = os.path.join(SRC, "gluonnlp-0.4.1")
RESULTS = []


def load(path, name, patches=None):
    """Exec the file at ``path`` as module ``name``; ``patches`` maps a line number to
    (original text that must be on it, replacement), or to a list of such pairs."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    for number, pairs in (patches or {}).items():
        for old, new in pairs if isinstance(pairs, list) else [pairs]:
            assert old in lines[number - 1], (path, number, lines[number - 1])
            lines[number - 1] = lines[number - 1].replace(old, new)
    module = types.ModuleType(name)
    module.__file__ = path
    module.__package__ = name.rpartition(".")[0]
    sys.modules[name] = module
    exec(compile("\n".join(lines), path, "exec"), module.__dict__)
    return module


def nd(x):
    if isinstance(x, mx.nd.NDArray):
        return x.asnumpy()
    return [nd(e) for e in x]


def same(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)


def failure(error):
    where = [f for f in traceback.extract_tb(error.__traceback__) if SRC in f.filename]
    at = f" at {os.path.basename(where[-1].filename)}:{where[-1].lineno}" if where else ""
    message = str(error).strip().splitlines()
    return f"FAILS{at} {type(error).__name__}: {(message[0] if message else '')[:110]}"


def run(label, make, inputs, expect, train=False):
    """One block eagerly, then the same block (same parameters) hybridized; record whether the
    hybridized call raises or differs. ``expect`` is what the label claims."""
    mx.random.seed(0)
    np.random.seed(0)
    block = make()
    block.initialize()
    try:
        with autograd.record(train_mode=train):
            eager = nd(block(*inputs))
    except Exception as error:  # noqa: BLE001
        RESULTS.append((label, "EAGER " + failure(error), expect))
        return None
    block.hybridize()
    try:
        mx.random.seed(0)
        with autograd.record(train_mode=train):
            hybrid = nd(block(*inputs))
        outcome = "equal" if same(eager, hybrid) else "DIFFERENT"
    except Exception as error:  # noqa: BLE001
        outcome = failure(error)
    RESULTS.append((label, outcome, expect))
    return eager


def eager_same(label, make_a, make_b, inputs, expect="equal"):
    """A safe fix keeps what working code computes: both blocks' eager outputs, each built
    right after the same seed."""
    outputs = []
    for make in (make_a, make_b):
        mx.random.seed(0)
        np.random.seed(0)
        block = make()
        block.initialize()
        outputs.append(nd(block(*inputs)))
    RESULTS.append((label, "equal" if same(*outputs) else "DIFFERENT", expect))


R = np.random.RandomState(1)


def arr(*shape, low=-1.0, high=1.0):
    return mx.nd.array(R.uniform(low, high, shape))


# ---- mxnet 1.5.1: gluon/loss.py ---------------------------------------------------------------
LOSS = os.path.join(MX151, "gluon", "loss.py")
FIX_809 = {
    809: ("stirling_factor *= target_gt_1", "stirling_factor = stirling_factor * target_gt_1")
}
FIX_810 = {810: ("loss += stirling_factor", "loss = loss + stirling_factor")}
pred, target = (
    arr(4, 3, low=0.1, high=2.0),
    mx.nd.array(R.randint(1, 5, (4, 3))),
)  # 0 gives log(0) eagerly too
for name, patches, expect in (
    ("as shipped", {}, "fails at 809"),
    ("809 fixed", FIX_809, "fails at 810"),
    ("810 fixed", FIX_810, "fails at 809"),
    ("809 and 810 fixed", {**FIX_809, **FIX_810}, "equal"),
):
    loss = load(LOSS, "mxnet.gluon._loss151", patches)
    for logits in (True, False):
        run(
            f"1.5.1 PoissonNLLLoss(compute_full=True, from_logits={logits}), {name}",
            lambda: loss.PoissonNLLLoss(compute_full=True, from_logits=logits),
            [pred, target],
            expect,
        )
shipped = load(LOSS, "mxnet.gluon._loss151")
fixed = load(LOSS, "mxnet.gluon._loss151_fixed", {**FIX_809, **FIX_810})
eager_same(
    "1.5.1 PoissonNLLLoss(compute_full=True) eager: shipped vs 809/810 fixed",
    lambda: shipped.PoissonNLLLoss(compute_full=True),
    lambda: fixed.PoissonNLLLoss(compute_full=True),
    [pred, target],
)
run("1.5.1 PoissonNLLLoss() default", lambda: shipped.PoissonNLLLoss(), [pred, target], "equal")

TUPLE = {
    line: (f"F.{expr}).reshape(-1, 1)", f"F.{expr}).reshape((-1, 1))")
    for line, expr in (
        (875, "norm(x, axis=axis"),
        (876, "norm(y, axis=axis"),
        (877, "sum(x * y, axis=axis"),
    )
}
x1, x2, sign = arr(4, 6), arr(4, 6), mx.nd.array([1.0, -1.0, 1.0, -1.0])
for name, patches, expect in (
    ("as shipped", {}, "fails (875)"),
    ("875 and 876 fixed", {k: TUPLE[k] for k in (875, 876)}, "fails (877)"),
    ("875 and 877 fixed", {k: TUPLE[k] for k in (875, 877)}, "fails (876)"),
    ("876 and 877 fixed", {k: TUPLE[k] for k in (876, 877)}, "fails (875)"),
    ("875-877 fixed", TUPLE, "equal"),
):
    loss = load(LOSS, "mxnet.gluon._loss151", patches)
    run(
        f"1.5.1 CosineEmbeddingLoss(), {name}",
        lambda: loss.CosineEmbeddingLoss(),
        [x1, x2, sign],
        expect,
    )
fixed = load(LOSS, "mxnet.gluon._loss151_fixed", TUPLE)
eager_same(
    "1.5.1 CosineEmbeddingLoss eager: shipped vs 875-877 fixed",
    lambda: shipped.CosineEmbeddingLoss(margin=0.2),
    lambda: fixed.CosineEmbeddingLoss(margin=0.2),
    [x1, x2, sign],
)

# every other 1.5.1 loss (read for misses; the code 1.9.1 rewrote): eager == hybridized
probs = mx.nd.softmax(arr(4, 5))
for name, make, inputs in (
    ("L2Loss", lambda: shipped.L2Loss(), [arr(4, 3), arr(4, 3)]),
    ("L1Loss", lambda: shipped.L1Loss(), [arr(4, 3), arr(4, 3), arr(4, 1)]),
    (
        "SigmoidBCELoss",
        lambda: shipped.SigmoidBinaryCrossEntropyLoss(),
        [arr(4, 3), mx.nd.array(R.randint(0, 2, (4, 3)))],
    ),
    (
        "SigmoidBCELoss pos_weight",
        lambda: shipped.SigmoidBinaryCrossEntropyLoss(),
        [arr(4, 3), mx.nd.array(R.randint(0, 2, (4, 3))), None, arr(1, 3, low=0.5, high=2.0)],
    ),
    (
        "SigmoidBCELoss from_sigmoid pos_weight",
        lambda: shipped.SigmoidBinaryCrossEntropyLoss(from_sigmoid=True),
        [
            arr(4, 3, low=0.05, high=0.95),
            mx.nd.array(R.randint(0, 2, (4, 3))),
            None,
            arr(1, 3, low=0.5, high=2.0),
        ],
    ),
    (
        "SoftmaxCELoss",
        lambda: shipped.SoftmaxCrossEntropyLoss(),
        [arr(4, 5), mx.nd.array([0, 3, 1, 4])],
    ),
    (
        "SoftmaxCELoss dense",
        lambda: shipped.SoftmaxCrossEntropyLoss(sparse_label=False),
        [arr(4, 5), probs],
    ),
    ("KLDivLoss", lambda: shipped.KLDivLoss(), [mx.nd.log_softmax(arr(4, 5)), probs]),
    (
        "KLDivLoss from_logits=False",
        lambda: shipped.KLDivLoss(from_logits=False),
        [arr(4, 5), probs],
    ),
    ("CTCLoss", lambda: shipped.CTCLoss(), [arr(2, 6, 4), mx.nd.array([[1, 2, 0], [2, 1, 1]])]),
    ("HuberLoss", lambda: shipped.HuberLoss(rho=0.5), [arr(4, 3), arr(4, 3)]),
    ("HingeLoss", lambda: shipped.HingeLoss(), [arr(4, 3), mx.nd.sign(arr(4, 3))]),
    ("SquaredHingeLoss", lambda: shipped.SquaredHingeLoss(), [arr(4, 3), mx.nd.sign(arr(4, 3))]),
    ("LogisticLoss signed", lambda: shipped.LogisticLoss(), [arr(4, 3), mx.nd.sign(arr(4, 3))]),
    (
        "LogisticLoss binary",
        lambda: shipped.LogisticLoss(label_format="binary"),
        [arr(4, 3), mx.nd.array(R.randint(0, 2, (4, 3)))],
    ),
    ("TripletLoss", lambda: shipped.TripletLoss(), [arr(4, 3), arr(4, 3), arr(4, 3)]),
):
    run(f"1.5.1 {name}", make, inputs, "equal")


# ---- mxnet 1.5.1: gluon/rnn/rnn_cell.py, gluon/contrib/rnn/rnn_cell.py --------------------------
# Both files are byte for byte 1.9.1's; run here from 1.5.1's copy all the same. A cell
# hybridized on its own and unrolled in training is its block hybridized (run.py's conventions).
RNN = load(os.path.join(MX151, "gluon", "rnn", "rnn_cell.py"), "mxnet.gluon.rnn._rnn_cell151")
CRNN = load(
    os.path.join(MX151, "gluon", "contrib", "rnn", "rnn_cell.py"),
    "mxnet.gluon.contrib.rnn._rnn_cell151",
)


def unrolled(make, inputs, hybridize, setup=None):
    """Per-step outputs of ``make()`` unrolled over ``inputs`` (N, T, C) in training."""
    mx.random.seed(0)
    cell = make()
    cell.initialize()
    if setup:
        setup(cell)
    if hybridize:
        cell.hybridize()
    with autograd.record(train_mode=True):
        outputs, _ = cell.unroll(inputs.shape[1], inputs, merge_outputs=False)
    return [o.asnumpy() for o in outputs]


def both(label, make, inputs, measure, expect, setup=None):
    """``measure`` (per-step outputs -> a short summary) eagerly and hybridized."""
    eager = measure(unrolled(make, inputs, False, setup), inputs)
    hybrid = measure(unrolled(make, inputs, True, setup), inputs)
    RESULTS.append((label, f"eager {eager} | hybridized {hybrid}", expect))


def kept_per_step(outputs, inputs):
    """Units per step that keep a nonzero previous output (what zoneout does eagerly)."""
    kept = [int(((o == p) & (p != 0)).sum()) for p, o in zip(outputs, outputs[1:])]
    return f"kept previous outputs per step {kept}"


def distinct_zero_patterns(outputs, inputs):
    return f"{len({(o == 0).tobytes() for o in outputs})} zero pattern(s) over {len(outputs)} steps"


def identity_cell(cell, i2h=1.0, h2h=0.0):
    """Set the base RNNCell to out = relu(i2h * x + h2h * h) elementwise (hidden = input size)."""
    base = cell.base_cell
    size = base.i2h_weight.shape[0]
    base.i2h_weight.set_data(mx.nd.eye(size) * i2h)
    base.h2h_weight.set_data(mx.nd.eye(size) * h2h)
    base.i2h_bias.set_data(mx.nd.zeros(size))
    base.h2h_bias.set_data(mx.nd.zeros(size))


def states_masks(outputs, inputs):
    """With out_t = relu(x_t + m * out_(t-1)) and positive x: the state mask m per step."""
    x = inputs.asnumpy()
    masks = {
        np.round((outputs[t] - x[:, t]) / outputs[t - 1], 3).tobytes()
        for t in range(1, len(outputs))
    }
    return f"{len(masks)} distinct state mask(s) over {len(outputs) - 1} steps"


seq = arr(2, 6, 4)
positive = arr(2, 6, 4, low=0.5, high=1.5)
both(
    "1.5.1 ZoneoutCell(RNNCell(4), zoneout_outputs=0.5) unrolled",
    lambda: RNN.ZoneoutCell(RNN.RNNCell(4, input_size=4), zoneout_outputs=0.5),
    seq,
    kept_per_step,
    "eager: zoned units keep the previous output; hybridized: none kept, they get the traced zeros (line 972)",
)
relu = lambda: RNN.RNNCell(4, input_size=4, activation="relu")
both(
    "1.5.1 VariationalDropoutCell(drop_outputs=0.5, drop_states=0.5) unrolled: output masks",
    lambda: CRNN.VariationalDropoutCell(
        RNN.RNNCell(4, input_size=4), drop_states=0.5, drop_outputs=0.5
    ),
    seq,
    distinct_zero_patterns,
    "eager 1 pattern; hybridized one per step (line 87)",
)
both(
    "1.5.1 VariationalDropoutCell(drop_inputs=0.5, drop_states=0.5), out = relu(mask * x): input masks",
    lambda: CRNN.VariationalDropoutCell(relu(), drop_inputs=0.5, drop_states=0.5),
    positive,
    distinct_zero_patterns,
    "eager 1 pattern; hybridized one per step (line 82)",
    setup=lambda cell: identity_cell(cell, 1.0, 0.0),
)
both(
    "1.5.1 VariationalDropoutCell(drop_states=0.5), out = relu(x + mask * h): state masks",
    lambda: CRNN.VariationalDropoutCell(relu(), drop_states=0.5),
    positive,
    states_masks,
    "eager 1 mask; hybridized one per step (line 78)",
    setup=lambda cell: identity_cell(cell, 1.0, 1.0),
)


# ---- gluonnlp 0.4.1 -----------------------------------------------------------------------------
sys.path.insert(0, NLP041)
import gluonnlp as nlp

assert nlp.__version__ == "0.4.1" and nlp.__file__.startswith(NLP041), nlp.__file__
AR = os.path.join(NLP041, "gluonnlp", "loss", "activation_regularizer.py")
SLICES = {
    "state[1:]": ("(state[1:] - ", "(F.slice_axis(state, axis=0, begin=1, end=None) - "),
    "state[:-1]": ("- state[:-1])", "- F.slice_axis(state, axis=0, begin=0, end=-1))"),
}
s1, s2 = arr(5, 3, 8), arr(5, 3, 4)
for name, fixes, expect in (
    ("as shipped", (), "fails (143)"),
    ("state[1:] fixed", ("state[1:]",), "fails (143: state[:-1])"),
    ("state[:-1] fixed", ("state[:-1]",), "fails (143: state[1:])"),
    ("both slices fixed", ("state[1:]", "state[:-1]"), "equal"),
):
    line = load(AR, "gluonnlp.loss._ar041", {143: [SLICES[fix] for fix in fixes]})
    run(
        f"0.4.1 TemporalActivationRegularizationLoss(beta=1.0)(s1, s2), {name}",
        lambda: line.TemporalActivationRegularizationLoss(beta=1.0),
        [s1, s2],
        expect,
    )
run(
    "0.4.1 ActivationRegularizationLoss(alpha=2.0)(s1, s2)",
    lambda: nlp.loss.ActivationRegularizationLoss(alpha=2.0),
    [s1, s2],
    "equal",
)

SAMPLER = os.path.join(NLP041, "gluonnlp", "model", "sequence_sampler.py")
B, K, V, H = 2, 2, 5, 3
peaked = np.full((B * K, V), -20.0)
peaked[np.arange(B * K), [1, 3, 0, 2]] = 20.0  # sampling is then deterministic
step_inputs = [
    mx.nd.array(R.randint(0, V, (B, K, 3)), dtype=np.int32),  # samples
    mx.nd.array(R.randint(1, 4, (B, K)), dtype=np.int32),  # valid_length
    mx.nd.array(peaked),  # outputs
    arr(B, K),  # scores
    mx.nd.array([[1, 1], [1, 0]], dtype=np.int32),  # beam_alive_mask
    [arr(B * K, H)],  # states
]
FIX_416 = {416: ("reshape(-3, -1)", "reshape((-3, -1))")}
NO_SHAPE = ("log_probs.shape[0]", str(B * K))  # a test-only constant: what line 423 indexes by
PICK = (
    "log_probs[mx.nd.arange(log_probs.shape[0]),",
    "F.pick(log_probs, chosen_word_ids.reshape(-1), axis=1).reshape(-4, -1, beam_size) if 1 else (log_probs[",
)
PICK_424 = (
    "chosen_word_ids.reshape(-1)].reshape(-4, -1, beam_size)",
    "chosen_word_ids.reshape(-1)])",
)
for name, patches, expect in (
    ("as shipped", {}, "fails (416)"),
    ("416 fixed", FIX_416, "fails at 423 (.shape)"),
    (
        "416 fixed, 423's .shape[0] a constant",
        {**FIX_416, 423: NO_SHAPE},
        "fails at 423 (indexing a Symbol)",
    ),
    (
        "416 fixed, 423 indexing by F.pick, positional reshape kept",
        {**FIX_416, 423: PICK, 424: PICK_424},
        "fails (423-424 reshape)",
    ),
):
    sampler = load(SAMPLER, "gluonnlp.model._sampler041", patches)
    run(
        f"0.4.1 _SamplingStepUpdate(beam_size=2), {name}",
        lambda: sampler._SamplingStepUpdate(K, eos_id=4),
        step_inputs,
        expect,
    )
pick_fixed_tuple = load(
    SAMPLER,
    "gluonnlp.model._sampler041_pick_tuple",
    {
        **FIX_416,
        423: (
            PICK[0],
            PICK[1].replace("reshape(-4, -1, beam_size)", "reshape((-4, -1, beam_size))"),
        ),
        424: PICK_424,
    },
)
run(
    "0.4.1 _SamplingStepUpdate, 416 and 423 rewritten (F.pick, tuple reshapes)",
    lambda: pick_fixed_tuple._SamplingStepUpdate(K, eos_id=4),
    step_inputs,
    "equal",
)
shipped_sampler = load(SAMPLER, "gluonnlp.model._sampler041")
tuple_fixed = load(
    SAMPLER,
    "gluonnlp.model._sampler041_tuple",
    {**FIX_416, 424: ("].reshape(-4, -1, beam_size)", "].reshape((-4, -1, beam_size))")},
)
eager_same(
    "0.4.1 _SamplingStepUpdate eager: shipped vs the safe fixes of 416 and 423-424 (tuple reshapes)",
    lambda: shipped_sampler._SamplingStepUpdate(K, eos_id=4),
    lambda: tuple_fixed._SamplingStepUpdate(K, eos_id=4),
    step_inputs,
)


# every other 0.4.1 hybrid_forward body (read for misses): eager == hybridized
class _Decoder(mx.gluon.HybridBlock):
    """A step decoder for the samplers: (B,) ids, [state (B, H)] -> log-probs (B, V), [state]."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.embed = mx.gluon.nn.Embedding(V, H)
            self.cell = mx.gluon.rnn.GRUCell(H, input_size=H)
            self.out = mx.gluon.nn.Dense(V, in_units=H)

    def hybrid_forward(self, F, ids, states):
        output, states = self.cell(self.embed(ids), states)
        return F.log_softmax(self.out(output)), states


begin = arr(B, H)


def beam_search(hybridize_updater):
    mx.random.seed(0)
    decoder = _Decoder()
    decoder.initialize()
    sampler = nlp.model.BeamSearchSampler(K, decoder, eos_id=4, max_length=6)
    if not hybridize_updater:
        sampler._updater.hybridize(active=False)
    return nd(sampler(mx.nd.array([1, 2]), [begin]))


eager_beam, hybrid_beam = beam_search(False), beam_search(True)
RESULTS.append(
    (
        "0.4.1 BeamSearchSampler(beam_size=2), updater eager vs hybridized (as shipped)",
        "equal" if same(eager_beam, hybrid_beam) else "DIFFERENT",
        "equal",
    )
)
# line 709: F.contrib.cond on an int32 predicate; symbolic cond types its predicate float32
FLOAT_709 = {
    709: ("F.sum(new_beam_alive_mask) == 0", "(F.sum(new_beam_alive_mask) == 0).astype(np.float32)")
}
for name, patches, expect in (
    ("as shipped", {}, "fails (709: int32 cond predicate, dtype inference)"),
    ("709's predicate cast to float32", FLOAT_709, "equal"),
):
    sampler = load(SAMPLER, "gluonnlp.model._sampler041", patches)
    run(
        f"0.4.1 HybridBeamSearchSampler(batch_size=2, beam_size=2), {name}",
        lambda: sampler.HybridBeamSearchSampler(
            B, K, _Decoder(), eos_id=4, max_length=6, vocab_size=V
        ),
        [mx.nd.array([1, 2]), [begin]],
        expect,
    )
for step in (1.0, 3.0):
    run(
        f"0.4.1 BeamSearchScorer(), step {step}",
        lambda: nlp.model.BeamSearchScorer(),
        [arr(B, K, V), arr(B, K), mx.nd.array([step])],
        "equal",
    )
queries, keys, amask = arr(2, 3, 6), arr(2, 4, 6), mx.nd.array(R.randint(0, 2, (2, 3, 4)))
amask[:, :, 0] = 1
for name, make in (
    ("MLPAttentionCell(8)", lambda: nlp.model.MLPAttentionCell(8)),
    (
        "MLPAttentionCell(8, normalized=True)",
        lambda: nlp.model.MLPAttentionCell(8, normalized=True),
    ),
    ("DotProductAttentionCell()", lambda: nlp.model.DotProductAttentionCell()),
    (
        "DotProductAttentionCell(8, normalized)",
        lambda: nlp.model.DotProductAttentionCell(8, normalized=True),
    ),
    (
        "DotProductAttentionCell(6, luong_style)",
        lambda: nlp.model.DotProductAttentionCell(6, luong_style=True),
    ),
    (
        "MultiHeadAttentionCell(DotProduct, 8, 8, 8, 2)",
        lambda: nlp.model.MultiHeadAttentionCell(nlp.model.DotProductAttentionCell(), 8, 8, 8, 2),
    ),
):
    run(f"0.4.1 {name}, masked", make, [queries, keys, keys, amask], "equal")
    run(f"0.4.1 {name}, no mask", make, [queries, keys], "equal")
run("0.4.1 Highway(4, 2)", lambda: nlp.model.Highway(4, 2), [arr(3, 4)], "equal")
run(
    "0.4.1 ConvolutionalEncoder(4, (3, 4), (1, 2), output_size=5), masked",
    lambda: nlp.model.ConvolutionalEncoder(4, (3, 4), (1, 2), output_size=5),
    [arr(5, 2, 4), mx.nd.array(R.randint(0, 2, (5, 2)))],
    "equal",
)
run("0.4.1 L2Normalization()", lambda: nlp.model.L2Normalization(), [arr(3, 4)], "equal")
for name, cls in (("ISDense", nlp.model.ISDense), ("NCEDense", nlp.model.NCEDense)):
    sampled = [mx.nd.array([0, 5, 7]), arr(3, low=0.1, high=1.0), arr(4, low=0.1, high=1.0)]
    run(
        f"0.4.1 {name}(10, 3, 6, sparse_grad=False)",
        lambda: cls(10, 3, 6, sparse_grad=False),
        [arr(4, 6), sampled, mx.nd.array([1, 5, 2, 9])],
        "equal",
    )
vectors = mx.nd.array(R.uniform(-1, 1, (7, 4)))
words = [mx.nd.array([1, 2]), mx.nd.array([3, 4]), mx.nd.array([5, 6])]
for function in ("ThreeCosMul", "ThreeCosAdd"):
    for exclude in (True, False):
        run(
            f"0.4.1 WordEmbeddingAnalogy({function}, k=2, exclude_question_words={exclude})",
            lambda: nlp.embedding.evaluation.WordEmbeddingAnalogy(
                vectors, function, k=2, exclude_question_words=exclude
            ),
            words,
            "equal",
        )
run(
    "0.4.1 WordEmbeddingSimilarity(CosineSimilarity)",
    lambda: nlp.embedding.evaluation.WordEmbeddingSimilarity(vectors),
    words[:2],
    "equal",
)
from gluonnlp.model.train.embedding import _MaskedSumEmbedding

run(
    "0.4.1 _MaskedSumEmbedding(10, 4, sparse_grad=False)",
    lambda: _MaskedSumEmbedding(10, 4, sparse_grad=False),
    [mx.nd.array(R.randint(0, 10, (3, 5))), mx.nd.array(R.randint(0, 2, (3, 5)))],
    "equal",
)


# every other 1.5.1 hybrid_forward body in a file 1.9.1 changed (read for misses): eager == hybridized
G = os.path.join(MX151, "gluon")
NN = load(os.path.join(G, "nn", "basic_layers.py"), "mxnet.gluon.nn._basic151")
ACT = load(os.path.join(G, "nn", "activations.py"), "mxnet.gluon.nn._act151")
CONV = load(os.path.join(G, "nn", "conv_layers.py"), "mxnet.gluon.nn._conv151")
CNN = load(os.path.join(G, "contrib", "nn", "basic_layers.py"), "mxnet.gluon.contrib.nn._basic151")
DCN = load(os.path.join(G, "contrib", "cnn", "conv_layers.py"), "mxnet.gluon.contrib.cnn._conv151")
CRC = load(
    os.path.join(G, "contrib", "rnn", "conv_rnn_cell.py"), "mxnet.gluon.contrib.rnn._conv_rnn151"
)
TF = load(
    os.path.join(G, "data", "vision", "transforms.py"), "mxnet.gluon.data.vision._transforms151"
)
LAYER = load(os.path.join(G, "rnn", "rnn_layer.py"), "mxnet.gluon.rnn._rnn_layer151")
RESNET = load(
    os.path.join(G, "model_zoo", "vision", "resnet.py"), "mxnet.gluon.model_zoo.vision._resnet151"
)


def chain(*blocks):
    net = NN.HybridSequential()
    net.add(*blocks)
    return net


def _concurrent():
    net = CNN.HybridConcurrent(axis=1)
    net.add(NN.Dense(3), NN.Dense(2), CNN.Identity())
    return net


image = arr(2, 3, 8, 8)
for name, make, inputs in (
    (
        "Dense(5, relu, flatten=False)",
        lambda: NN.Dense(5, activation="relu", flatten=False),
        [arr(2, 3, 4)],
    ),
    ("Dense(5, use_bias=False)", lambda: NN.Dense(5, use_bias=False), [arr(2, 3, 4)]),
    (
        "HybridSequential(Dense, Dropout(0.5), Dense) predict",
        lambda: chain(NN.Dense(4), NN.Dropout(0.5), NN.Dense(2)),
        [arr(3, 5)],
    ),
    ("BatchNorm", lambda: NN.BatchNorm(), [image]),
    ("Embedding(10, 4)", lambda: NN.Embedding(10, 4), [mx.nd.array([[1, 2], [3, 9]])]),
    ("Flatten", lambda: NN.Flatten(), [image]),
    ("InstanceNorm()", lambda: NN.InstanceNorm(), [image]),
    (
        "InstanceNorm(axis=2, in_channels=8)",
        lambda: NN.InstanceNorm(axis=2, in_channels=8),
        [image],
    ),
    ("LayerNorm()", lambda: NN.LayerNorm(), [arr(2, 3, 4)]),
    ("HybridLambda", lambda: NN.HybridLambda(lambda F, x: F.relu(x) * 2), [arr(2, 3)]),
    ("Activation(softrelu)", lambda: ACT.Activation("softrelu"), [arr(2, 3)]),
    ("LeakyReLU(0.1)", lambda: ACT.LeakyReLU(0.1), [arr(2, 3)]),
    ("PReLU", lambda: ACT.PReLU(), [arr(2, 3)]),
    ("ELU", lambda: ACT.ELU(), [arr(2, 3)]),
    ("SELU", lambda: ACT.SELU(), [arr(2, 3)]),
    ("GELU", lambda: ACT.GELU(), [arr(2, 3)]),
    ("Swish(2.0)", lambda: ACT.Swish(2.0), [arr(2, 3)]),
    ("Conv2D(4, 3, relu)", lambda: CONV.Conv2D(4, 3, activation="relu"), [image]),
    (
        "Conv2DTranspose(4, 3, use_bias=False)",
        lambda: CONV.Conv2DTranspose(4, 3, use_bias=False),
        [image],
    ),
    (
        "MaxPool2D + GlobalAvgPool2D",
        lambda: chain(CONV.MaxPool2D(), CONV.GlobalAvgPool2D()),
        [image],
    ),
    ("ReflectionPad2D(1)", lambda: CONV.ReflectionPad2D(1), [image]),
    ("HybridConcurrent(Dense, Dense) + Identity", lambda: _concurrent(), [arr(2, 3)]),
    ("PixelShuffle1D(2)", lambda: CNN.PixelShuffle1D(2), [arr(2, 4, 3)]),
    ("PixelShuffle2D((2, 3))", lambda: CNN.PixelShuffle2D((2, 3)), [arr(1, 12, 2, 3)]),
    ("PixelShuffle3D((2, 1, 2))", lambda: CNN.PixelShuffle3D((2, 1, 2)), [arr(1, 8, 2, 2, 2)]),
    ("SyncBatchNorm", lambda: CNN.SyncBatchNorm(), [image]),
    (
        "DeformableConvolution(4, 3)",
        lambda: DCN.DeformableConvolution(4, (3, 3), padding=(1, 1)),
        [image],
    ),
    ("Cast(float16)", lambda: TF.Cast("float16"), [image]),
    (
        "ToTensor",
        lambda: TF.ToTensor(),
        [mx.nd.array(R.randint(0, 255, (8, 8, 3)), dtype=np.uint8)],
    ),
    ("Normalize", lambda: TF.Normalize((0.1, 0.2, 0.3), (0.5, 0.6, 0.7)), [arr(3, 8, 8)]),
    (
        "Resize(4)",
        lambda: TF.Resize(4),
        [mx.nd.array(R.randint(0, 255, (8, 8, 3)), dtype=np.uint8)],
    ),
    (
        "CropResize(1, 1, 4, 4, size=3, interpolation=1)",
        lambda: TF.CropResize(1, 1, 4, 4, size=3, interpolation=1),
        [mx.nd.array(R.randint(0, 255, (8, 8, 3)), dtype=np.uint8)],
    ),
    ("resnet18_v1 (classes=3)", lambda: RESNET.get_resnet(1, 18, classes=3), [arr(1, 3, 32, 32)]),
    ("resnet18_v2 (classes=3)", lambda: RESNET.get_resnet(2, 18, classes=3), [arr(1, 3, 32, 32)]),
):
    run(f"1.5.1 {name}", make, inputs, "equal")


for name, make, inputs in (
    ("LSTM(4) no states", lambda: LAYER.LSTM(4), [arr(5, 2, 3)]),
    (
        "LSTM(4, bidirectional, 2 layers) with states",
        lambda: LAYER.LSTM(4, 2, bidirectional=True),
        [arr(5, 2, 3), [mx.nd.zeros((4, 2, 4)), mx.nd.zeros((4, 2, 4))]],
    ),
    ("GRU(4, layout=NTC)", lambda: LAYER.GRU(4, layout="NTC"), [arr(2, 5, 3)]),
):
    run(f"1.5.1 {name}", make, inputs, "equal")
frames = arr(2, 4, 2, 5, 5)
for name, cls in (
    ("Conv2DRNNCell", CRC.Conv2DRNNCell),
    ("Conv2DLSTMCell", CRC.Conv2DLSTMCell),
    ("Conv2DGRUCell", CRC.Conv2DGRUCell),
):
    outputs = [
        unrolled(lambda: cls((2, 5, 5), 3, (3, 3), (3, 3), (1, 1)), frames, hybridize)
        for hybridize in (False, True)
    ]
    RESULTS.append(
        (
            f"1.5.1 {name}((2, 5, 5), 3, (3, 3), (3, 3), (1, 1)) unrolled",
            "equal" if same(*outputs) else "DIFFERENT",
            "equal",
        )
    )


def report():
    for label, outcome, expect in RESULTS:
        print(f"{label}\n    -> {outcome}   [label: {expect}]")


if __name__ == "__main__" and "--part" not in sys.argv:
    report()
