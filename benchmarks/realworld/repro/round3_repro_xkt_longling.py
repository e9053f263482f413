# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""XKT 0.0.2 and longling 1.3.0 under MXNet 1.9.1: every hybrid_forward block run eagerly and
hybridized, with single lines patched one at a time to show which line fails on its own.

Why: the labels of labels/XKT-0.0.2*.tsv and labels/longling-1.3.0*.tsv say ``how = mxnet``;
this is the record of those runs. Each module is loaded from the harness's extracted source
(``~/.cache/hybridlint-realworld/src``) by path, so the line numbers are the labelled ones; a
patch replaces one line's text in memory (same line count). XKT's ``baize`` dependency re-exports
longling's ``format_sequence`` / ``mask_sequence_variable_length`` (PyBaize 0.0.7's
``baize/mxnet/utils/__init__.py``), so the stub hands XKT the real longling functions; the rest
of baize (training loop, configuration) is unused by the blocks and stubbed.

    python benchmarks/realworld/run.py --package XKT-0.0.2 --package longling-1.3.0 --no-speed
    /tmp/mxv/bin/python benchmarks/realworld/repro/round3_repro_xkt_longling.py
"""

import os
import sys
import traceback
import types

import mxnet as mx
import numpy as np

SRC = os.path.expanduser("~/.cache/hybridlint-realworld/src")
XKT = os.path.join(SRC, "XKT-0.0.2", "XKT")
LL = os.path.join(SRC, "longling-1.3.0", "longling", "ML", "MxnetHelper")


class _Stub(types.ModuleType):
    """Any attribute: a callable that returns its first argument (works as a decorator)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: a[0] if a else None


def _module(name, **attrs):
    module = _Stub(name)
    module.__path__ = []
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


def load(path, name, patches=None):
    """Exec the file at ``path`` as module ``name``; ``patches`` maps a line number to
    (original text that must be on it, replacement)."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    for number, (old, new) in (patches or {}).items():
        assert old in lines[number - 1], (path, number, lines[number - 1])
        lines[number - 1] = lines[number - 1].replace(old, new)
    module = types.ModuleType(name)
    module.__file__ = path
    module.__package__ = name.rpartition(".")[0]
    sys.modules[name] = module
    exec(compile("\n".join(lines), path, "exec"), module.__dict__)
    return module


# longling's helpers, loaded without longling/__init__ (it needs Python < 3.10)
_module("longling")
_module("longling.lib")
_module("longling.lib.candylib", as_list=lambda x: x if isinstance(x, list) else [x])
SEQUENCE = load(os.path.join(LL, "gallery", "layer", "sequence.py"), "ll_sequence")
for stub in ("tqdm", "baize", "baize.const", "baize.mxnet", "baize.metrics", "XKT", "XKT.DKT"):
    _module(stub)
sys.modules["tqdm"].tqdm = lambda x, *a, **k: x
_module(
    "baize.mxnet.utils",
    format_sequence=SEQUENCE.format_sequence,
    mask_sequence_variable_length=SEQUENCE.mask_sequence_variable_length,
)
_module("XKT.meta", KTM=object)
_module("XKT.DKT.etl", etl=None)

RESULTS = []


def nd(x):
    return x.asnumpy() if isinstance(x, mx.nd.NDArray) else [nd(e) for e in x]


def same(a, b):
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6)


def run(label, make, inputs, expect):
    """Run one block eagerly, then hybridize the same block (same parameters) and run it again;
    record whether the hybridized call raises or differs. ``expect`` is what the label claims."""
    mx.random.seed(0)
    np.random.seed(0)
    block = make()
    block.initialize()
    try:
        eager = nd(block(*inputs))
    except Exception as error:  # noqa: BLE001
        outcome = f"EAGER FAILS {type(error).__name__}: {str(error).splitlines()[0][:120]}"
        RESULTS.append((label, outcome, expect))
        return None
    block.hybridize()
    try:
        hybrid = nd(block(*inputs))
        outcome = "equal" if same(eager, hybrid) else "DIFFERENT"
    except Exception as error:  # noqa: BLE001
        where = [f for f in traceback.extract_tb(error.__traceback__) if SRC in f.filename]
        at = f" at {os.path.basename(where[-1].filename)}:{where[-1].lineno}" if where else ""
        message = str(error).strip().splitlines()
        outcome = f"FAILS{at} {type(error).__name__}: {(message[0] if message else '')[:110]}"
    RESULTS.append((label, outcome, expect))
    return eager


def eager_twice(make_a, make_b, inputs):
    """Both blocks' eager outputs, each built and called right after the same seed (their
    deferred initializations then draw the same weights in the same order)."""
    outputs = []
    for make in (make_a, make_b):
        mx.random.seed(0)
        np.random.seed(0)
        block = make()
        block.initialize()
        outputs.append(nd(block(*inputs)))
    return "equal" if same(*outputs) else "DIFFERENT"


def a(*values):
    return mx.nd.array(values)


# ---- XKT/utils/loss.py ----------------------------------------------------------------------
LOSS = os.path.join(XKT, "utils", "loss.py")
pred = mx.nd.array(np.random.RandomState(1).uniform(0.05, 0.95, (2, 4, 3)))
pick = a([0, 2, 1], [1, 1, 0])
label = a([1, 0, 1], [0, 1, 0])
lmask = a(3, 2)
shape_free = {
    34: (
        "F.mean(F.norm(diff, 1, -1)) / diff.shape[-1]",
        "F.mean(F.norm(diff, 1, -1) / F.sum(F.ones_like(diff), axis=-1))",
    ),
    35: (
        "F.mean(F.norm(diff, 2, -1)) / diff.shape[-1]",
        "F.mean(F.norm(diff, 2, -1) / F.sum(F.ones_like(diff), axis=-1))",
    ),
}
loss = load(LOSS, "xkt_loss")
run(
    "SLMLoss() default",
    lambda: loss.SequenceLogisticMaskLoss(),
    [pred, pick, label, lmask],
    "equal",
)
run(
    "SLMLoss(lr, lw1, lw2)",
    lambda: loss.SequenceLogisticMaskLoss(lr=0.1, lw1=0.003, lw2=3.0),
    [pred, pick, label, lmask],
    "fails at 34",
)
only35 = load(LOSS, "xkt_loss_35", {34: shape_free[34]})
run(
    "SLMLoss(lr, lw1, lw2), 34 fixed",
    lambda: only35.SequenceLogisticMaskLoss(lr=0.1, lw1=0.003, lw2=3.0),
    [pred, pick, label, lmask],
    "fails at 35",
)
both = load(LOSS, "xkt_loss_both", shape_free)
run(
    "SLMLoss(lr, lw1, lw2), 34+35 fixed",
    lambda: both.SequenceLogisticMaskLoss(lr=0.1, lw1=0.003, lw2=3.0),
    [pred, pick, label, lmask],
    "equal",
)
RESULTS.append(
    (
        "SLMLoss 34+35 rewrite keeps the eager value",
        eager_twice(
            lambda: loss.SequenceLogisticMaskLoss(lr=0.1, lw1=0.003, lw2=3.0),
            lambda: both.SequenceLogisticMaskLoss(lr=0.1, lw1=0.003, lw2=3.0),
            [pred, pick, label, lmask],
        ),
        "equal",
    )
)
# not a label: with the regularisers and a batch of one, F.squeeze (no axis) drops the batch
# axis of the weight mask, and line 33's `_weight_mask * diff` multiplies (T-1, K) by (1, T-1, K):
# NDArray broadcasts, the Symbol's elementwise _Mul does not (an input-dependent corner, see README)
run(
    "SLMLoss(lr, lw1, lw2), 34+35 fixed, batch 1",
    lambda: both.SequenceLogisticMaskLoss(lr=0.1, lw1=0.003, lw2=3.0),
    [pred[:1], pick[:1], label[:1], lmask[:1]],
    "not listed (batch 1)",
)
run(
    "LMLoss",
    lambda: loss.LogisticMaskLoss(),
    [pred[:, :, 0], label[:, :2].tile((1, 2)), lmask],
    "equal",
)

# ---- XKT/DKT/DKT.py -------------------------------------------------------------------------
_module("XKT.utils", SLMLoss=loss.SequenceLogisticMaskLoss)
DKT_PATH = os.path.join(XKT, "DKT", "DKT.py")
dkt = load(DKT_PATH, "XKT.DKT.DKT")
responses = a([1, 0, 5, 2], [3, 4, 1, 0])
run(
    "DKTNet (length None)",
    lambda: dkt.DKTNet(ku_num=3, hidden_num=5),
    [responses],
    "fails (len = 1)",
)


def dkt_with_length(**kwargs):
    net = dkt.DKTNet(**kwargs)
    net.length = 4
    return net


run("DKTNet, net.length = 4", lambda: dkt_with_length(ku_num=3, hidden_num=5), [responses], "equal")
run(
    "DKTNet lstm+embedding, mask, net.length = 4",
    lambda: dkt_with_length(ku_num=3, hidden_num=5, add_embedding_layer=True, rnn_type="lstm"),
    [responses, a(4, 3)],
    "equal",
)
run(
    "DKTNet gru, mask (length None)",
    lambda: dkt.DKTNet(ku_num=3, hidden_num=5, rnn_type="gru"),
    [responses, a(4, 3)],
    "fails (len = 1)",
)

# ---- XKT/DKVMN/net.py -----------------------------------------------------------------------
NET = os.path.join(XKT, "DKVMN", "net.py")
kv = dict(ku_num=3, hidden_num=5, key_embedding_dim=2, value_embedding_dim=2, key_memory_size=3)
questions = a([1, 0, 2, 1], [2, 2, 0, 1])
answers = a([3, 0, 5, 2], [4, 5, 1, 3])
net = load(NET, "xkt_dkvmn")
run("DKVMN (length None)", lambda: net.DKVMN(**kv), [questions, answers], "fails")


def dkvmn_with_length(module):
    block = module.DKVMN(**kv)
    block.length = 4
    return block


run(
    "DKVMN, net.length = 4",
    lambda: dkvmn_with_length(net),
    [questions, answers],
    "fails at 357-> batch_dot (line 352 batch 0)",
)
BROADCAST = {
    352: ("F.broadcast_to(", "F.broadcast_like("),
    353: (
        "shape=(batch_size, self.value_memory_size, self.value_memory_state_dim))",
        "keys[0], lhs_axes=(0,), rhs_axes=(0,))",
    ),
}
net352 = load(NET, "xkt_dkvmn_352", BROADCAST)
run(
    "DKVMN, net.length = 4, 352 broadcast_like",
    lambda: dkvmn_with_length(net352),
    [questions, answers],
    "equal",
)
run(
    "DKVMN, length None, 352 broadcast_like",
    lambda: net352.DKVMN(**kv),
    [questions, answers],
    "fails (len = 1)",
)
HL003_FIX = {
    434: (
        "len(responses[0])",
        "len(F.squeeze(F.slice_axis(responses, axis=0, begin=0, end=1), axis=0))",
    )
}
fixed434 = load(NET, "xkt_dkvmn_434", {**BROADCAST, **HL003_FIX})
run(
    "DKVMN, 352 patched, HL003 safe fix on 434 (length None)",
    lambda: fixed434.DKVMN(**kv),
    [questions, answers],
    "fails (len = 1): fix incomplete",
)
RESULTS.append(
    (
        "DKVMN HL003 safe fix keeps the eager value",
        eager_twice(lambda: net352.DKVMN(**kv), lambda: fixed434.DKVMN(**kv), [questions, answers]),
        "equal",
    )
)

# ---- longling gallery -----------------------------------------------------------------------
pos, neg = mx.nd.array([0.3, 0.9, 0.1]), mx.nd.array([0.5, 0.2, 0.4])
PAIR = os.path.join(LL, "gallery", "loss", "PairwiseLoss.py")
pair = load(PAIR, "ll_pair")
run("PairwiseLoss(margin=0.5)", lambda: pair.PairwiseLoss(margin=0.5), [pos, neg], "fails at 16")
pair_fixed = load(PAIR, "ll_pair_fixed", {16: ("F.add(loss, self.margin)", "loss + self.margin")})
run(
    "PairwiseLoss(margin=0.5), 16 as loss + margin",
    lambda: pair_fixed.PairwiseLoss(margin=0.5),
    [pos, neg],
    "equal",
)

TSP = os.path.join(LL, "gallery", "loss", "TimeSeriesPickLoss.py")
tsp = load(TSP, "ll_tsp")
tsp_in = [pred, pick, label, lmask]
run("TimeSeriesPickLoss", lambda: tsp.TimeSeriesPickLoss(), tsp_in, "fails at 27")
tsp_fixed = load(TSP, "ll_tsp_fixed", {27: ("mx.nd.squeeze(", "F.squeeze(")})
run(
    "TimeSeriesPickLoss, safe fix F.squeeze",
    lambda: tsp_fixed.TimeSeriesPickLoss(),
    tsp_in,
    "equal",
)
RESULTS.append(
    (
        "TimeSeriesPickLoss safe fix keeps the eager value",
        eager_twice(
            lambda: tsp.TimeSeriesPickLoss(), lambda: tsp_fixed.TimeSeriesPickLoss(), tsp_in
        ),
        "equal",
    )
)

transe = load(os.path.join(LL, "gallery", "network", "TransE.py"), "ll_transe")
for d in ("L1", "L2"):
    run(
        f"TransE d={d}",
        lambda: transe.TransE(5, 3, dim=4, d=d),
        [a(0, 1, 4), a(0, 2, 1), a(3, 2, 0)],
        "equal",
    )
highway = load(os.path.join(LL, "gallery", "layer", "highway.py"), "ll_highway")
run(
    "HighwayCell",
    lambda: highway.HighwayCell(4),
    [mx.nd.array(np.random.RandomState(2).randn(3, 4))],
    "equal",
)
textcnn = load(os.path.join(LL, "gallery", "network", "TextCNN.py"), "ll_textcnn")
text = mx.nd.array(np.random.RandomState(3).randn(2, 6, 5))
run("TextCNN 2D", lambda: textcnn.TextCNN(6, 5, num_filters=3), [text], "equal")
run(
    "TextCNN 2D avg, no batch norm",
    lambda: textcnn.TextCNN(6, 5, num_filters=3, batch_norm=False, pool_type="avg"),
    [text],
    "equal",
)
run(
    "TextCNN 3D",
    lambda: textcnn.TextCNN(6, 5, channel_size=2, num_filters=3),
    [mx.nd.array(np.random.RandomState(4).randn(2, 6, 5, 2))],
    "equal",
)

att = load(os.path.join(LL, "gallery", "layer", "attention.py"), "ll_attention")
rs = np.random.RandomState(5)
q, k, v = (mx.nd.array(rs.randn(2, s, 4)) for s in (3, 5, 5))
valid = a(3, 2)  # _masked_softmax's "mask" is a length per batch row (SequenceMask on axis 1)
for name, make in [
    ("MLPAttentionCell", lambda: att.MLPAttentionCell(6)),
    ("MLPAttentionCell normalized", lambda: att.MLPAttentionCell(6, normalized=True)),
    ("DotProductAttentionCell", lambda: att.DotProductAttentionCell()),
    (
        "DotProductAttentionCell units",
        lambda: att.DotProductAttentionCell(units=6, normalized=True),
    ),
    (
        "DotProductAttentionCell luong",
        lambda: att.DotProductAttentionCell(units=4, luong_style=True, scaled=False),
    ),
    (
        "MultiHeadAttentionCell(dot)",
        lambda: att.MultiHeadAttentionCell(att.DotProductAttentionCell(), 4, 4, 4, 2),
    ),
    (
        "MultiHeadAttentionCell(mlp)",
        lambda: att.MultiHeadAttentionCell(att.MLPAttentionCell(6), 4, 4, 4, 2),
    ),
]:
    run(name, make, [q, k, v], "equal")
    if not name.startswith("MultiHead"):
        run(name + " with mask", make, [q, k, v, valid], "equal")
run("SelfAttentionCell", lambda: att.SelfAttentionCell(5, 3), [k], "equal")
run("SelfAttentionCell with mask", lambda: att.SelfAttentionCell(5, 3), [k, a(5, 3)], "equal")

for label_, outcome, expect in RESULTS:
    print(f"{label_:<58} {outcome}    [label: {expect}]")
