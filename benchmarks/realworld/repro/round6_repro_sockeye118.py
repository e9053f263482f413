# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""Sockeye 1.18.106 under MXNet 1.9.1: every hybrid_forward block run eagerly and hybridized.

Why: labels/sockeye-1.18.106*.tsv say ``how = mxnet``; this is the record of those runs. The
package is imported from the harness's extracted source (``~/.cache/hybridlint-realworld/src``),
so the line numbers are the labelled ones; ``portalocker`` (imported by ``sockeye.utils`` for
file locks the blocks never take) is stubbed. Each block is built once, run eagerly, then
hybridized the way sockeye's Translator does for its beam-search blocks (``static_alloc=True,
static_shape=True``) and run again on the same inputs with the same parameters; random blocks
(SampleK) are seeded before both runs. Inputs have the shapes sockeye's ``Translator``
(``_beam_search``) and its symbolic model pass (N = batch * beam hypotheses).

    python benchmarks/realworld/run.py --package sockeye-1.18.106 --no-speed
    /tmp/mxv/bin/python benchmarks/realworld/repro/round6_repro_sockeye118.py
"""

import os
import sys
import types

import mxnet as mx
import numpy as np

ROOT = os.path.expanduser("~/.cache/hybridlint-realworld/src/sockeye-1.18.106")
sys.modules["portalocker"] = types.ModuleType("portalocker")
sys.path.insert(0, ROOT)
from sockeye import constants as C
from sockeye import encoder, inference, layers, transformer

nd = mx.nd
rs = np.random.RandomState(0)
RESULTS = []


def _run(block, args, kwargs, seed):
    mx.random.seed(seed)
    out = block(*args, **kwargs)
    out = out if isinstance(out, (list, tuple)) else [out]
    return [o.asnumpy() if isinstance(o, nd.NDArray) else np.asarray(o) for o in out]


def check(name, make, args, kwargs=None, hybridize=None):
    """Eager vs hybridized on one block instance (same parameters)."""
    kwargs = kwargs or {}
    try:
        block = make()
        block.initialize(mx.init.Xavier(), ctx=mx.cpu())
        eager = _run(block, args, kwargs, 1)
    except Exception as exc:  # the configuration fails eagerly: not a hybridize hazard
        RESULTS.append(
            (name, "eager-fails", f"{type(exc).__name__}: {str(exc).splitlines()[0][:140]}")
        )
        return
    try:
        block.hybridize(**(hybridize or {}))
        hybrid = _run(block, args, kwargs, 1)
        hybrid2 = _run(block, args, kwargs, 1)  # the cached graph, second call
    except Exception as exc:
        RESULTS.append(
            (name, "HYBRID-FAILS", f"{type(exc).__name__}: {str(exc).splitlines()[0][:140]}")
        )
        return
    same = all(
        a.shape == b.shape and np.allclose(a, b, atol=1e-5, equal_nan=True)
        for h in (hybrid, hybrid2)
        for a, b in zip(eager, h)
    ) and len(eager) == len(hybrid)
    detail = (
        "" if same else f"eager {[a.shape for a in eager]} vs hybrid {[a.shape for a in hybrid]}"
    )
    RESULTS.append((name, "equal" if same else "DIFFERS", detail))


STATIC = {"static_alloc": True, "static_shape": True}
B, BEAM, V, T, S, D, H = 2, 3, 11, 4, 5, 8, 2
N = B * BEAM


def arr(shape, dtype="float32", low=None, high=None):
    if low is not None:
        return nd.array(rs.randint(low, high, size=shape), dtype=dtype)
    return nd.array(rs.normal(size=shape), dtype=dtype)


# ---- layers.py -------------------------------------------------------------------------------
x3 = arr((B, T, D))
check("GeLU", lambda: layers.GeLU(), [x3])
check("LayerNormalization", lambda: layers.LayerNormalization(), [x3])
check("LHUC", lambda: layers.LHUC(D), [x3])
q, k, v = arr((B * H, T, D // H)), arr((B * H, S, D // H)), arr((B * H, S, D // H))
lengths_bh = nd.array([S, 3, 2, S])
check("DotAttentionCell lengths", lambda: layers.DotAttentionCell(), [q, k, v, lengths_bh])
check(
    "DotAttentionCell bias", lambda: layers.DotAttentionCell(), [q, k, v, None, arr((B * H, 1, S))]
)
check(
    "DotAttentionCell dropout", lambda: layers.DotAttentionCell(dropout=0.1), [q, k, v, lengths_bh]
)
check(
    "MultiHeadSelfAttention lengths",
    lambda: layers.MultiHeadSelfAttention("a_", D, H, D),
    [x3, nd.array([T, 2])],
)
check(
    "MultiHeadSelfAttention bias",
    lambda: layers.MultiHeadSelfAttention("a_", D, H, D),
    [x3, None, arr((1, T, T))],
)
mem = arr((B, S, D))
check(
    "MultiHeadAttention lengths",
    lambda: layers.MultiHeadAttention("m_", D, H, D),
    [x3, mem, nd.array([S, 3])],
)
check(
    "MultiHeadAttention bias",
    lambda: layers.MultiHeadAttention("m_", D, H, D),
    [x3, mem, None, arr((B * H, 1, S))],
)
check("PlainDotAttention", lambda: layers.PlainDotAttention(), [x3, mem, nd.array([S, 3])])
check(
    "ProjectedDotAttention",
    lambda: layers.ProjectedDotAttention("p_", D),
    [x3, mem, nd.array([S, 3])],
)

# ---- transformer.py / encoder.py -------------------------------------------------------------


def tconfig(**kw):
    base = dict(
        model_size=D,
        attention_heads=H,
        feed_forward_num_hidden=16,
        act_type="relu",
        num_layers=2,
        dropout_attention=0.1,
        dropout_act=0.1,
        dropout_prepost=0.1,
        positional_embedding_type="fixed",
        preprocess_sequence="n",
        postprocess_sequence="dr",
        max_seq_len_source=S,
        max_seq_len_target=T,
    )
    base.update(kw)
    return transformer.TransformerConfig(**base)


for act in ("relu", C.GELU, C.SWISH1):
    check(
        f"TransformerFeedForward {act}",
        lambda: transformer.TransformerFeedForward(16, D, act, 0.1, "ff_"),
        [x3],
    )
for seq in ("", "n", "dr", "rn", "nrd"):
    prev = None if "r" not in seq else arr((B, T, D))
    check(
        f"TransformerProcessBlock '{seq}'",
        lambda: transformer.TransformerProcessBlock(seq, 0.1, "pp_"),
        [x3, prev],
    )
src_len = nd.array([S, 3])
for heads, fold in ((None, True), (H, True), (H, False)):
    check(
        f"TransformerValidLengthMask heads={heads} fold={fold}",
        lambda: transformer.TransformerValidLengthMask(heads, fold),
        [mem, src_len],
    )
enc_bias = nd.expand_dims(transformer.TransformerValidLengthMask(H, True)(mem, src_len), axis=1)
for lhuc in (False, True):
    cfg = tconfig(lhuc=lhuc)
    check(
        f"TransformerEncoderBlock lhuc={lhuc}",
        lambda: transformer.TransformerEncoderBlock(cfg, "e0_"),
        [mem, enc_bias],
    )
    auto = nd.array(np.triu(np.full((T, T), -1e8), 1)[None], dtype="float32")
    check(
        f"TransformerDecoderBlock lhuc={lhuc}",
        lambda: transformer.TransformerDecoderBlock(cfg, "d0_"),
        [x3, auto, mem, enc_bias],
    )
for kw in (
    {},
    {"lhuc": True, "act_type": C.GELU},
    {"preprocess_sequence": "", "postprocess_sequence": "rn"},
):
    cfg = tconfig(**kw)
    check(f"TransformerEncoder {kw}", lambda: encoder.TransformerEncoder(cfg), [mem, src_len])

# ---- inference.py: the beam-search blocks the Translator hybridizes ---------------------------
lengths = nd.array(rs.randint(1, 6, size=(N, 1)), dtype="float32")
ref_lengths = nd.array(rs.uniform(2, 6, size=(N, 1)), dtype="float32")
for alpha, beta in ((0.0, 0.0), (1.0, 0.0), (1.0, 5.0), (0.6, 5.0)):
    check(
        f"LengthPenalty alpha={alpha} beta={beta}",
        lambda: inference.LengthPenalty(alpha, beta),
        [lengths],
    )
for weight in (0.0, 1.0):
    check(
        f"BrevityPenalty weight={weight}",
        lambda: inference.BrevityPenalty(weight),
        [lengths, ref_lengths],
    )

finished = nd.array([0, 1, 0, 0, 1, 0], dtype="int32")
best_word = nd.array([3, 0, C.PAD_ID, 2, 0, 1], dtype="int32")
max_out = nd.array([6, 6, 6, 3, 3, 3], dtype="int32")
scores_acc = arr((N, 1))
for alpha, beta, bp in ((1.0, 0.0, 0.0), (0.6, 5.0, 0.0), (1.0, 0.0, 1.0), (0.0, 0.0, 0.5)):
    check(
        f"NormalizeAndUpdateFinished alpha={alpha} beta={beta} bp={bp}",
        lambda: inference.NormalizeAndUpdateFinished(C.PAD_ID, 1, alpha, beta, bp),
        [best_word, max_out, finished, scores_acc, lengths, ref_lengths],
        hybridize=STATIC,
    )
# the finding's line on its own: lengths (N, 1) + cast(1 - expand_dims(finished (N,), 1)) (N, 1)
check(
    "NormalizeAndUpdateFinished (non-static hybridize)",
    lambda: inference.NormalizeAndUpdateFinished(C.PAD_ID, 1),
    [best_word, max_out, finished, scores_acc, lengths, ref_lengths],
)

target_dists = nd.array(rs.uniform(0.1, 5, size=(N, V)))
inactive = nd.array([0, 0, 1, 0, 0, 0], dtype="int32")
pad_dist = nd.full((N, V - 1), np.inf)
check(
    "UpdateScores",
    lambda: inference.UpdateScores(),
    [target_dists, finished, inactive, scores_acc, pad_dist],
    hybridize=STATIC,
)
scores = nd.broadcast_add(target_dists, scores_acc)
offset = nd.repeat(nd.arange(0, B * BEAM, BEAM, dtype="int32"), BEAM)
check("TopK (step > 1)", lambda: inference.TopK(BEAM, V), [scores, offset], hybridize=STATIC)
first = scores.copy()
first[:] = np.inf
first[::BEAM] = scores[::BEAM]
check("TopK (first step)", lambda: inference.TopK(BEAM, V), [first, offset], hybridize=STATIC)
check(
    "Top1", lambda: inference.Top1(), [arr((B, V)), nd.arange(B, dtype="int32")], hybridize=STATIC
)
for n in (0, 3):
    check(
        f"SampleK n={n}",
        lambda: inference.SampleK(BEAM, n, max_batch_size=4),
        [scores, target_dists, finished],
        hybridize=STATIC,
    )
check(
    "SortByIndex",
    lambda: inference.SortByIndex(),
    [nd.array([2, 0, 1, 5, 3, 4], dtype="int32"), finished, lengths, arr((N, T, S)), ref_lengths],
    hybridize=STATIC,
)
check(
    "PruneHypotheses",
    lambda: inference.PruneHypotheses(threshold=1.0, beam_size=BEAM),
    [best_word, scores_acc, finished],
    hybridize=STATIC,
)

for name, verdict, detail in RESULTS:
    print(f"{verdict:12} {name:60} {detail}")
print(f"{len(RESULTS)} configurations, {sum(r[1] != 'equal' for r in RESULTS)} not equal")
