# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""autogluon-contrib-nlp 0.0.1b20220208 (DeepNumpy GluonNLP) under MXNet 1.9.1: every
hybrid_forward block run eagerly and hybridized, then the three misses fixed one at a time.

Why: the package is numpy-mode code (`@use_np`, `F.np`/`F.npx`), which hybridlint leaves alone
by design, so its first figures are 0 findings; this script is the record of which of its
blocks really break under hybridize() on MXNet 1.9.1 (the misses in
labels/autogluon-contrib-nlp-0.0.1b20220208.misses.tsv) and which work.

Run with an MXNet 1.9.1 Python that also has `yacs` (the package's config classes subclass it):

    /tmp/mxv/bin/pip install yacs
    python benchmarks/realworld/run.py --package autogluon-contrib-nlp-0.0.1b20220208 --no-speed
    /tmp/mxv/bin/python benchmarks/realworld/repro/round2_repro_agnlp.py

The wheel the harness pinned is extracted whole (the models read checksum .txt files at import);
the tokenizer dependencies, unused by the blocks, are stubbed.
"""

import atexit
import importlib.abc
import importlib.machinery
import os
import shutil
import sys
import tempfile
import types
import zipfile

WHEEL = os.path.expanduser(
    "~/.cache/hybridlint-realworld/downloads/autogluon_contrib_nlp-0.0.1b20220208-py3-none-any.whl"
)
STUBBED = {
    "sacremoses",
    "sentencepiece",
    "tokenizers",
    "youtokentome",
    "jieba",
    "subword_nmt",
    "regex",
    "pyarrow",
    "sacrebleu",
    "contextvars",
    "boto3",
    "tqdm",
    "pandas",
    "fasttext",
    "requests",
}
# (file, line, original text, fix): each miss and the rewrite that makes its block work
FIXES = [
    ("attention_cell.py", 483, "F.np.sqrt(query_shape[-1])", "F.np.sqrt(query_shape[3])"),
    ("sequence_sampler.py", 391, "- F.np.ones_like(indices)", "F.np.full_like(indices, -1)"),
]


class _Stub(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name[:1].isupper():
            cls = type(name, (object,), {"__init__": lambda self, *a, **k: None})
            setattr(self, name, cls)
            return cls
        module = _Stub(f"{self.__name__}.{name}")
        module.__path__ = []
        sys.modules[module.__name__] = module
        return module


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _Stub(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


def extract(into: str, fixes=()) -> str:
    """Extract the pinned wheel into `into`, applying `fixes` (each must match its line)."""
    with zipfile.ZipFile(WHEEL) as wheel:
        wheel.extractall(into)
    for name, line, old, new in fixes:
        path = os.path.join(into, "autogluon_contrib_nlp", name)
        with open(path, encoding="utf-8") as handle:
            lines = handle.readlines()
        assert old in lines[line - 1], (name, line, lines[line - 1])
        lines[line - 1] = lines[line - 1].replace(old, new)
        with open(path, "w", encoding="utf-8") as handle:
            handle.writelines(lines)
    return into


sys.meta_path.insert(0, _StubFinder())
FIXED = os.environ.get("FIXED") == "1"  # set by the second pass below
root = extract(tempfile.mkdtemp(), FIXES if FIXED else ())
atexit.register(shutil.rmtree, root, True)
sys.path.insert(0, root)

import mxnet as mx
import numpy as onp
from mxnet import np

mx.npx.set_np()
from autogluon_contrib_nlp import attention_cell as ac
from autogluon_contrib_nlp import layers, loss
from autogluon_contrib_nlp import sequence_sampler as ss
from autogluon_contrib_nlp.models import albert, bert, electra, mobilebert, roberta, transformer


def _flat(x):
    if isinstance(x, (list, tuple)):
        for y in x:
            yield from _flat(y)
    elif x is not None:
        yield x


def cmp(name, make, *args, seed=None):
    """Print whether block `make()` gives the same outputs eagerly and hybridized."""
    try:
        mx.random.seed(0)
        block = make()
        block.initialize()
        outs = []
        for hybrid in (False, True):
            if hybrid:
                block.hybridize()
            if seed is not None:
                mx.random.seed(seed)
            outs.append(list(_flat(block(*args))))
        same = len(outs[0]) == len(outs[1]) and all(
            a.shape == b.shape and onp.allclose(a.asnumpy(), b.asnumpy(), atol=1e-4)
            for a, b in zip(*outs)
        )
        print(f"{name}: {'SAME' if same else 'DIFFER'}")
    except Exception as ex:
        lines = str(ex).strip().splitlines()
        text = next(
            (line for line in lines if "Error" in line or "Check failed" in line),
            lines[0] if lines else "",
        )
        print(f"{name}: ERROR {type(ex).__name__}: {text.strip()[:200]}")


onp.random.seed(0)
B, T, V, K = 2, 5, 7, 3
tok = np.array(onp.random.randint(0, 50, (B, T)), dtype=onp.int32)
tt = np.zeros((B, T), dtype=onp.int32)
vl = np.array([5, 3], dtype=onp.int32)
mp = np.array([[0, 1], [2, 1]], dtype=onp.int32)
x = np.random.normal(size=(B, T, 8))
mask = np.array(onp.tril(onp.ones((T, T)))[None].repeat(B, 0), dtype=onp.float32)
q = np.random.normal(size=(B, T, 2, 4))


def small(cls, **extra):
    cfg = cls.get_cfg()
    cfg.defrost()
    m = cfg.MODEL
    m.vocab_size, m.units, m.hidden_size, m.num_heads, m.num_layers, m.max_length = (
        50,
        16,
        32,
        2,
        2,
        16,
    )
    if "embed_size" in m:
        m.embed_size = 8
    for k, v in extra.items():
        setattr(m, k, v)
    cfg.freeze()
    return cfg


print(f"--- {'with the two fixes' if FIXED else 'original'} ({root})")
# the misses (attention_cell.py:483 with query_units=None, sequence_sampler.py:391 and :360)
for layout, qq in (
    ("NTK", q),
    ("NKT", q.transpose((0, 2, 1, 3))),
    ("TNK", q.transpose((1, 0, 2, 3))),
):
    cmp(
        f"MultiHeadAttentionCell({layout}) default query_units",
        lambda: ac.MultiHeadAttentionCell(layout=layout),
        qq,
        qq,
        qq,
        mask,
    )
step_args = (
    np.array(onp.random.randint(0, V, (B, K, 2)), dtype=onp.int32),
    np.ones((B, K), dtype=onp.int32) * 2,
    np.random.normal(size=(B * K, V)),
    np.random.normal(size=(B, K)),
)
tail = (np.ones((B, K)), [np.random.normal(size=(B * K, 4))], np.array([0, K], dtype=onp.int32))
for stochastic in (False, True):
    for step in (1.0, 2.0):
        cmp(
            f"_BeamSearchStepUpdate stochastic={stochastic} step={step}",
            lambda: ss._BeamSearchStepUpdate(
                K, V, 2, ss.BeamSearchScorer(alpha=0.0), [0], stochastic=stochastic
            ),
            *step_args,
            np.array(step),
            *tail,
            seed=1,
        )
if not FIXED:
    # the blocks that work hybridized on MXNet 1.9.1 (printed once)
    cmp(
        "MultiHeadAttentionCell(NTK) query_units=8",
        lambda: ac.MultiHeadAttentionCell(8, 2, normalized=True),
        q,
        q,
        q,
        mask,
    )
    cmp("NoNorm", lambda: layers.NoNorm(in_channels=8), x)
    cmp("MultiHeadDense", lambda: layers.MultiHeadDense(4, num_heads=(2, 3)), x)
    cmp("IdentityActivation", lambda: layers.IdentityActivation(), x)
    for mode in ("erf", "tanh", "sigmoid"):
        cmp(f"GELU({mode})", lambda: layers.GELU(mode), x)
    cmp("ELU", lambda: layers.ELU(), x)
    pos = np.array([[0, 1, 2, 3, 4]] * 2, dtype=onp.int32)
    cmp("PositionalEmbedding(sinusoidal)", lambda: layers.PositionalEmbedding(8), pos)
    cmp(
        "PositionalEmbedding(learned)",
        lambda: layers.PositionalEmbedding(8, max_length=8, method="learned"),
        pos,
    )
    cmp("SinusoidalPositionalEmbedding(7)", lambda: layers.SinusoidalPositionalEmbedding(7), pos)
    rel = np.array(onp.random.randint(-20, 20, (5, 5)), dtype=onp.int32)
    for bidir in (True, False):
        cmp(
            f"BucketPositionalEmbedding(bidirectional={bidir})",
            lambda: layers.BucketPositionalEmbedding(
                8, bidirectional=bidir, num_buckets=8, max_distance=16
            ),
            rel,
        )
    cmp(
        "PositionwiseFFN(pre_norm)",
        lambda: layers.PositionwiseFFN(units=8, hidden_size=16, pre_norm=True),
        x,
    )
    cmp(
        "AdaptiveEmbedding(cutoffs, div_val=2)",
        lambda: layers.AdaptiveEmbedding(50, 8, 8, cutoffs=[10, 30], div_val=2.0),
        tok,
    )
    cmp(
        "ProjectedAdaptiveLogSoftmaxWithLoss(cutoffs)",
        lambda: layers.ProjectedAdaptiveLogSoftmaxWithLoss(50, 8, 8, cutoffs=[10, 30]),
        x,
        tok,
    )
    cmp("LabelSmoothCrossEntropyLoss", lambda: loss.LabelSmoothCrossEntropyLoss(8), x, tok % 8)
    relpos = np.array(onp.arange(T)[None, :] - onp.arange(T)[:, None], dtype=onp.int32)
    for method, kw in (
        ("transformer_xl", {}),
        ("shaw", {"max_distance": 3}),
        ("t5", {"num_buckets": 8, "max_distance": 16}),
    ):
        cmp(
            f"RelAttentionScoreCell({method})",
            lambda: ac.RelAttentionScoreCell(8, 2, method=method, bidirectional=True, **kw),
            relpos,
            q,
        )
    for name, make, args in (
        ("BertForPretrain", lambda: bert.BertForPretrain(small(bert.BertModel)), (tok, tt, vl, mp)),
        (
            "BertTransformer(all encodings, attention)",
            lambda: bert.BertTransformer(
                units=8,
                hidden_size=16,
                num_layers=2,
                num_heads=2,
                output_all_encodings=True,
                output_attention=True,
            ),
            (x, vl),
        ),
        (
            "AlbertForPretrain",
            lambda: albert.AlbertForPretrain(small(albert.AlbertModel)),
            (tok, tt, vl, mp),
        ),
        (
            "ElectraDiscriminator",
            lambda: electra.ElectraDiscriminator(small(electra.ElectraModel)),
            (tok, tt, vl),
        ),
        (
            "ElectraGenerator",
            lambda: electra.ElectraGenerator(small(electra.ElectraModel), tied_embeddings=False),
            (tok, tt, vl, mp),
        ),
        (
            "MobileBertForPretrain",
            lambda: mobilebert.MobileBertForPretrain(
                small(mobilebert.MobileBertModel, inner_size=8)
            ),
            (tok, tt, vl, mp),
        ),
        (
            "MobileBertEncoderLayer(no bottleneck)",
            lambda: mobilebert.MobileBertEncoderLayer(
                units=8, hidden_size=32, num_heads=2, real_units=8, use_bottleneck=False
            ),
            (x, mask),
        ),
        (
            "RobertaModel(all hiddens)",
            lambda: roberta.RobertaModel.from_cfg(
                small(roberta.RobertaModel), return_all_hiddens=True
            ),
            (tok, vl),
        ),
        (
            "TransformerDecoder(pre_norm)",
            lambda: transformer.TransformerDecoder(
                num_layers=2,
                units=8,
                mem_units=8,
                hidden_size=16,
                num_heads=2,
                data_norm=True,
                pre_norm=True,
            ),
            (x, vl, np.random.normal(size=(B, 4, 8)), np.array([4, 2], dtype=onp.int32)),
        ),
        (
            "BeamSearchScorer(alpha=1)",
            lambda: ss.BeamSearchScorer(alpha=1.0),
            (np.random.normal(size=(B, K, V)), np.random.normal(size=(B, K)), np.array(3.0)),
        ),
    ):
        cmp(name, make, *args)
    # MXNet 1.9.1 lacks npx.stop_gradient / npx.index_add / npx.random.categorical (eager too):
    # ElectraForPretrain and _MultinomialStepUpdate cannot run on it at all (read, not run).
    print(
        "npx has stop_gradient, index_add, random.categorical:",
        hasattr(mx.npx, "stop_gradient"),
        hasattr(mx.npx, "index_add"),
        hasattr(mx.npx.random, "categorical"),
    )
    sys.stdout.flush()
    shutil.rmtree(root, True)  # execve skips atexit
    os.execve(sys.executable, [sys.executable, __file__], dict(os.environ, FIXED="1"))
