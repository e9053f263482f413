# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""Sockeye 2.1.7 under MXNet 1.9.1: every hybrid_forward block run eagerly and hybridized.

Why: labels/sockeye-2.1.7*.tsv (no finding; the misses file records that none was found) rest on
these runs. The package is imported from the harness's extracted source
(``~/.cache/hybridlint-realworld/src``), ``portalocker`` stubbed (``sockeye.utils`` imports it for
file locks no block takes). Three parts:

* whole models: a small random-initialised SockeyeModel (training forward: embeddings with and
  without source factors, the transformer encoder and decoder, output layer, length-ratio head),
  run eagerly, then ``hybridize(static_alloc=True)`` as ``sockeye.model.load_model`` does, same
  parameters; and translation: an ``inference_only`` model and ``get_beam_search`` (beam, greedy,
  sampling, brevity penalty, constant length ratio) with ``hybridize=False`` and then with the
  model and the search hybridized, comparing the hypotheses and scores;
* the losses and the scorer (``sockeye.loss``, ``sockeye.scoring.BatchScorer``);
* the blocks no model path reaches (PlainDotAttention, ProjectedDotAttention, WeightNormalization).

Not run: float16 models (MXNet 1.9.1's CPU FullyConnected has no float16 kernel, so they fail
eagerly here) and int8 ones (the intgemm operator library is not in the wheel); their lines were
read (the dtype only picks constants and operators, the same in both modes).

    python benchmarks/realworld/run.py --package sockeye-2.1.7 --no-speed
    /tmp/mxv/bin/python benchmarks/realworld/repro/round6_repro_sockeye217.py
"""

import os
import sys
import types

import mxnet as mx
import numpy as np

ROOT = os.path.expanduser("~/.cache/hybridlint-realworld/src/sockeye-2.1.7")
sys.modules["portalocker"] = types.ModuleType("portalocker")
sys.path.insert(0, ROOT)
from sockeye import beam_search as BS
from sockeye import constants as C
from sockeye import data_io, encoder, layers, loss, model, scoring, transformer

nd = mx.nd
rs = np.random.RandomState(0)
RESULTS = []


def _np(out):
    if isinstance(out, dict):
        out = [out[k] for k in sorted(out)]
    out = out if isinstance(out, (list, tuple)) else [out]
    flat = []
    for o in out:
        if isinstance(o, (list, tuple)):
            flat.extend(_np(o))
        elif isinstance(o, nd.NDArray):
            flat.append(o.asnumpy())
        elif o is not None:
            flat.append(np.asarray(o))
    return flat


def _same(a, b):
    return len(a) == len(b) and all(
        x.shape == y.shape and np.allclose(x, y, atol=1e-4, equal_nan=True) for x, y in zip(a, b)
    )


def record(name, eager_fn, hybridize_fn, run_fn):
    """eager_fn() -> state; run_fn(state) -> outputs; hybridize_fn(state) hybridizes it."""
    try:
        state = eager_fn()
        mx.random.seed(1)
        eager = _np(run_fn(state))
    except Exception as exc:
        RESULTS.append(
            (
                name,
                "eager-fails",
                f"{type(exc).__name__}: {[line for line in str(exc).splitlines() if line.strip()][-1][:160]}",
            )
        )
        return
    try:
        hybridize_fn(state)
        runs = []
        for _ in range(2):  # the traced call and the cached graph
            mx.random.seed(1)
            runs.append(_np(run_fn(state)))
    except Exception as exc:
        RESULTS.append(
            (
                name,
                "HYBRID-FAILS",
                f"{type(exc).__name__}: {[line for line in str(exc).splitlines() if line.strip()][-1][:160]}",
            )
        )
        return
    ok = all(_same(eager, r) for r in runs)
    RESULTS.append(
        (
            name,
            "equal" if ok else "DIFFERS",
            "" if ok else f"{[a.shape for a in eager]} vs {[a.shape for a in runs[0]]}",
        )
    )


def check(name, make, args, hybridize=None):
    def build():
        block = make()
        block.initialize(mx.init.Xavier(), ctx=mx.cpu())
        return block

    record(name, build, lambda b: b.hybridize(**(hybridize or {})), lambda b: b(*args))


# ---- whole models ------------------------------------------------------------------------------
B, S, T, V, D, H = 3, 6, 5, 13, 8, 2


def model_config(
    lhuc=False,
    pos="fixed",
    act="relu",
    length_task=False,
    factors=None,
    tying=C.WEIGHT_TYING_SRC_TRG_SOFTMAX,
):
    tcfg = transformer.TransformerConfig(
        model_size=D,
        attention_heads=H,
        feed_forward_num_hidden=16,
        act_type=act,
        num_layers=2,
        dropout_attention=0.1,
        dropout_act=0.1,
        dropout_prepost=0.1,
        positional_embedding_type=pos,
        preprocess_sequence="n",
        postprocess_sequence="dr",
        max_seq_len_source=20,
        max_seq_len_target=20,
        lhuc=lhuc,
        depth_key_value=D,
    )
    num_embed_src = D
    if factors is not None and factors[0].combine == C.SOURCE_FACTORS_COMBINE_CONCAT:
        num_embed_src = D - sum(f.num_embed for f in factors)
    embed_src = encoder.EmbeddingConfig(V, num_embed_src, dropout=0.1, factor_configs=factors)
    embed_trg = encoder.EmbeddingConfig(V, D, dropout=0.1)
    data = data_io.DataConfig(
        data_statistics=None,
        max_seq_len_source=20,
        max_seq_len_target=20,
        num_source_factors=1 + len(factors or []),
    )
    lcfg = layers.LengthRatioConfig(num_layers=2, weight=1.0) if length_task else None
    return model.ModelConfig(
        config_data=data,
        vocab_source_size=V,
        vocab_target_size=V,
        config_embed_source=embed_src,
        config_embed_target=embed_trg,
        config_encoder=tcfg,
        config_decoder=tcfg,
        config_length_task=lcfg,
        weight_tying_type=tying,
        lhuc=lhuc,
    )


source_length = nd.array([S, 4, 2])
target_length = nd.array([T, 3, 2])
tokens = nd.array(rs.randint(3, V, size=(B, S)))
target = nd.array(rs.randint(3, V, size=(B, T)))
for b, (ls, lt) in enumerate(zip([S, 4, 2], [T, 3, 2])):
    tokens[b, ls:] = C.PAD_ID
    target[b, lt:] = C.PAD_ID


def source_with(factors):
    extra = [nd.array(rs.randint(0, f.vocab_size, size=(B, S))) for f in factors or []]
    return nd.stack(tokens, *extra, axis=2)


FACTOR = lambda combine, embed: [encoder.FactorConfig(5, embed, combine, False)]
CONFIGS = {
    "default": {},
    "lhuc, learned positions, gelu, length task": dict(
        lhuc=True, pos="learned", act="gelu", length_task=True
    ),
    "no tying, swish": dict(tying=C.WEIGHT_TYING_NONE, act="swish1"),
    "factor concat": dict(
        factors=FACTOR(C.SOURCE_FACTORS_COMBINE_CONCAT, 2), tying=C.WEIGHT_TYING_TRG_SOFTMAX
    ),
    "factor sum": dict(factors=FACTOR(C.SOURCE_FACTORS_COMBINE_SUM, D)),
    "factor average": dict(factors=FACTOR(C.SOURCE_FACTORS_COMBINE_AVERAGE, D)),
}


def build_model(cfg, inference_only=False):
    m = model.SockeyeModel(cfg, inference_only=inference_only)
    m.initialize(mx.init.Xavier(), ctx=mx.cpu())
    return m


for name, kw in CONFIGS.items():
    cfg = model_config(**kw)
    src = source_with(kw.get("factors"))
    record(
        f"SockeyeModel training forward [{name}]",
        lambda: build_model(cfg),
        lambda m: m.hybridize(static_alloc=True),
        lambda m: m(src, source_length, target, target_length),
    )

    def training_step(m):  # forward + backward: the gradients too
        with mx.autograd.record():
            out = m(src, source_length, target, target_length)[C.LOGITS_NAME]
            total = (out * out).sum()
        total.backward()
        return [p.grad() for p in m.collect_params().values() if p.grad_req != "null"]

    record(
        f"SockeyeModel gradients [{name}]",
        lambda: build_model(cfg),
        lambda m: m.hybridize(static_alloc=True),
        training_step,
    )


def translate(search_kw, cfg, src):
    def make():
        m = build_model(cfg, inference_only=True)
        scorer = BS.CandidateScorer(**search_kw.pop("scorer", {}))
        search = BS.get_beam_search(
            [m],
            context=mx.cpu(),
            vocab_target=None,
            output_scores=True,
            scorer=scorer,
            hybridize=False,
            **search_kw,
        )
        return m, search

    def hybridize(state):
        m, search = state
        m.hybridize(static_alloc=True)
        search.hybridize(static_alloc=True)

    def run(state):
        _, search = state
        out = search(
            src, source_length, None, [None] * B, [None] * B, nd.array([7, 6, 4], dtype="int32")
        )
        return [np.asarray(o) for o in out[:4]]

    return make, hybridize, run


SEARCHES = {
    "beam 3": dict(beam_size=3),
    "beam 3, length/brevity penalty": dict(
        beam_size=3,
        scorer=dict(length_penalty_alpha=0.6, length_penalty_beta=5.0, brevity_penalty_weight=1.0),
    ),
    "beam 3, constant length ratio": dict(
        beam_size=3, constant_length_ratio=1.5, scorer=dict(brevity_penalty_weight=0.5)
    ),
    "greedy (beam 1)": dict(beam_size=1),
    "sampling top-4, beam 2": dict(beam_size=2, sample=4),
    "sampling full vocabulary, beam 2": dict(beam_size=2, sample=0),
}
for model_name in ("default", "lhuc, learned positions, gelu, length task", "factor concat"):
    cfg = model_config(**CONFIGS[model_name])
    src = source_with(CONFIGS[model_name].get("factors"))
    for search_name, kw in SEARCHES.items():
        record(f"translate [{model_name}] [{search_name}]", *translate(dict(kw), cfg, src))

# ---- losses and scoring ------------------------------------------------------------------------
logits = nd.array(rs.normal(size=(B, T, V)))


def loss_check(name, make, output, label):
    # Loss.forward picks the output and label out of dicts, then HybridBlock.forward: called the same way
    check(name, lambda: _LossCall(make()), [output, label])


class _LossCall(mx.gluon.HybridBlock):
    """Calls a sockeye Loss the way the trainer does (dicts of outputs and labels)."""

    def __init__(self, inner):
        super().__init__()
        with self.name_scope():
            self.inner = inner

    def forward(self, output, label):  # plain Python around the loss, as in sockeye.training
        return self.inner({self.inner.output_name: output}, {self.inner.label_name: label})


for smoothing in (0.0, 0.1):
    loss_check(
        f"CrossEntropyLoss smoothing={smoothing}",
        lambda: loss.CrossEntropyLoss(label_smoothing=smoothing),
        logits,
        target,
    )
loss_check(
    "CrossEntropyLossWithoutSoftmaxOutput",
    lambda: loss.CrossEntropyLossWithoutSoftmaxOutput(),
    logits,
    target,
)
wide = nd.array(rs.normal(size=(B, T, 8230)))  # its LabelSmoothing hard-codes units=8230 ("TODO")
loss_check(
    "CrossEntropyLossWithoutSoftmaxOutput smoothing (V=8230)",
    lambda: loss.CrossEntropyLossWithoutSoftmaxOutput(label_smoothing=0.1),
    wide,
    target,
)
# with any other vocabulary size the smoothed one-hot (8230 wide) fails eagerly too, e.g. V=13:
loss_check(
    "CrossEntropyLossWithoutSoftmaxOutput smoothing (V=13)",
    lambda: loss.CrossEntropyLossWithoutSoftmaxOutput(label_smoothing=0.1),
    logits,
    target,
)
ratios, ratio_labels = (
    nd.array(rs.uniform(0.5, 2, size=(B,))),
    nd.array(rs.uniform(0.5, 2, size=(B,))),
)
loss_check("PoissonLoss", lambda: loss.PoissonLoss(), ratios, ratio_labels)
loss_check("MSELoss", lambda: loss.MSELoss(), ratios, ratio_labels)
check("LabelSmoothing", lambda: loss.LabelSmoothing(epsilon=0.1, units=V), [target])
for score_type in (C.SCORING_TYPE_NEGLOGPROB, C.SCORING_TYPE_LOGPROB):
    for lr, scorer_kw in (
        (None, {}),
        (1.2, {}),
        (None, dict(length_penalty_alpha=0.6, length_penalty_beta=2.0, brevity_penalty_weight=1.0)),
    ):
        check(
            f"BatchScorer {score_type} constant_length_ratio={lr} {scorer_kw}",
            lambda: scoring.BatchScorer(BS.CandidateScorer(**scorer_kw), score_type, lr),
            [logits, target, ratios, source_length, target_length],
        )

# ---- blocks no model path reaches --------------------------------------------------------------
queries, memory = nd.array(rs.normal(size=(B, T, D))), nd.array(rs.normal(size=(B, S, D)))
check("PlainDotAttention", lambda: layers.PlainDotAttention(), [queries, memory, source_length])
check(
    "ProjectedDotAttention",
    lambda: layers.ProjectedDotAttention("p_", D, C.DTYPE_FP32),
    [queries, memory, source_length],
)
check(
    "WeightNormalization", lambda: layers.WeightNormalization(V), [nd.array(rs.normal(size=(V, D)))]
)


def encoder_sequence():  # nothing in sockeye 2.1.7 builds one; an embedding and an encoder, as 1.x stacked them
    cfg = model_config()
    stack = encoder.EncoderSequence(prefix="seq_")
    with stack.name_scope():
        stack.add(
            encoder.Embedding(cfg.config_embed_source, prefix="emb_", is_source=True),
            encoder.TransformerEncoder(cfg.config_encoder, prefix="enc_"),
        )
    return stack


check(
    "EncoderSequence (Embedding, TransformerEncoder)",
    encoder_sequence,
    [source_with(None), source_length],
)
check(
    "AutoRegressiveBias (length 1)",
    lambda: transformer.AutoRegressiveBias(),
    [nd.array(rs.normal(size=(B, 1, D)))],
)

for name, verdict, detail in RESULTS:
    print(f"{verdict:12} {name:90} {detail}")
print(f"{len(RESULTS)} configurations, {sum(r[1] != 'equal' for r in RESULTS)} not equal")
