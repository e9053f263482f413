# ruff: noqa: E501  (a one-off reproduction script, kept as run)
"""cnocr 1.2.2 under MXNet 1.9.1: its two hybrid_forward bodies (DenseNet, CRnn), eagerly and hybridized.

Why: cnocr-1.2.2 gets no finding and no miss (labels/cnocr-1.2.2.tsv is a header only). The
real modules are loaded from the cached extraction (~/.cache/hybridlint-realworld/src/cnocr-1.2.2)
under their own dotted names with empty parent packages (cnocr/__init__ imports the OCR front
end); nothing is copied.

    /tmp/mxv/bin/python benchmarks/realworld/repro/round9_repro_cnocr.py

What it shows: the package's own use (gen_network: DenseNet hybridized, then CRnn called on an
mx.sym.Variable to build the Module graph) builds and infers shapes for every densenet model
name; DenseNet and CRnn (lstm, gru; dropout on, in training and prediction mode) called with
NDArrays are equal eagerly and hybridized. CRnn with the 'fc' sequence model uses mx.sym ops
directly: it fails eagerly on NDArrays (TypeError) as it does hybridized (free weight variables),
so it is not an eager/hybridized difference; the package only calls it on Symbols.

Recorded output (2026-12-03): the six model names build (seq_length 70 or 35); DenseNet and CRnn
equal eagerly and hybridized (dropout masks compared by shape only); CRnn('fc') fails eagerly
(AssertionError: Argument data must be Symbol instances) and hybridized (Unknown input to
HybridBlock: ..._seq-fc_weight or _bias).
"""

import importlib
import os
import sys
import types

import mxnet as mx
import numpy as np

SRC = os.path.expanduser("~/.cache/hybridlint-realworld/src/cnocr-1.2.2")
for name in ("cnocr", "cnocr.symbols", "cnocr.fit", "cnocr.hyperparams"):
    module = types.ModuleType(name)
    module.__path__ = [os.path.join(SRC, *name.split("."))]
    sys.modules[name] = module

crnn = importlib.import_module("cnocr.symbols.crnn")
densenet = importlib.import_module("cnocr.symbols.densenet")
CnHyperparams = importlib.import_module("cnocr.hyperparams.cn_hyperparams").CnHyperparams

print("== the package use: gen_network(model_name) -> Module symbol, shapes inferred ==")
for model_name in (
    "densenet-lite-lstm",
    "densenet-lite-gru",
    "densenet-lite-fc",
    "densenet-s-lstm",
    "densenet-lite-s-gru",
    "densenet-fc",
):
    hp = CnHyperparams()
    sym, hp2 = crnn.gen_network(model_name, hp, net_prefix="cnocr-v1.2.0-")
    shapes = crnn.get_infer_shape(sym, hp2)
    print(
        "%-22s seq_length %3d  output %s"
        % (model_name, hp2.seq_length, shapes[sym.list_outputs()[0]])
    )


def pair(make, x, train):
    outs = []
    for hybrid in (False, True):
        mx.random.seed(0)
        net = make()
        net.initialize(mx.init.Xavier())
        if hybrid:
            net.hybridize()
        mx.random.seed(1)
        with mx.autograd.record(train_mode=train):
            out = net(x)
        outs.append(out.asnumpy())
    return outs


x = mx.nd.array(np.random.RandomState(0).rand(2, 1, 32, 64))
print("\n== DenseNet and CRnn called with NDArrays, eager vs hybridized ==")
for channels, shorter in (
    ((32, 64, 128, 256), False),
    ((32, 64, 128, 256), True),
    ((64, 128, 256, 512), False),
):
    a, b = pair(
        lambda channels=channels, shorter=shorter: densenet.DenseNet(channels, shorter=shorter),
        x,
        train=False,
    )
    print(
        "DenseNet%-24s shorter=%-5s equal %s %s"
        % (channels, shorter, np.allclose(a, b, atol=1e-5), a.shape)
    )


class HP:
    def __init__(self, seq_model_type, dropout):
        self.seq_model_type = seq_model_type
        self.dropout = dropout
        self.num_hidden = 16
        self.num_lstm_layer = 1


for seq_model_type in ("lstm", "gru"):
    for dropout, train in ((0.0, False), (0.3, False), (0.3, True)):
        a, b = pair(
            lambda s=seq_model_type, d=dropout: crnn.CRnn(
                HP(s, d), densenet.DenseNet((32, 64, 128, 256))
            ),
            x,
            train,
        )
        if train:  # the dropout masks are random draws: compare shapes only
            print(
                "CRnn(%s, dropout=%s) train_mode=True  shapes equal %s %s"
                % (seq_model_type, dropout, a.shape == b.shape, a.shape)
            )
        else:
            print(
                "CRnn(%s, dropout=%s) train_mode=False equal %s %s"
                % (seq_model_type, dropout, np.allclose(a, b, atol=1e-5), a.shape)
            )

for hybrid in (False, True):
    net = crnn.CRnn(HP("fc", 0.0), densenet.DenseNet((32, 64, 128, 256)))
    net.initialize()
    if hybrid:
        net.hybridize()
    try:
        net(x)
        print("CRnn(fc) hybridized=%s: runs" % hybrid)
    except Exception as error:
        print(
            "CRnn(fc) hybridized=%s: %s: %s"
            % (hybrid, type(error).__name__, str(error).splitlines()[0][:90])
        )
