# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""Run gluonfr 1.0.2 losses eagerly and hybridized under MXNet 1.9.1."""

import sys
import os
import traceback

SRC = os.path.expanduser("~/.cache/hybridlint-realworld/src/gluonfr-1.0.2")
sys.path.insert(0, SRC)
import numpy as np
import mxnet as mx
from mxnet import nd
import gluonfr.loss as L

B, C, D = 6, 5, 4
rs = np.random.RandomState(0)


def run(name, make, inputs, calls=1):
    res = {}
    for mode in ("eager", "hybrid"):
        mx.random.seed(0)
        blk = make()
        blk.initialize(mx.init.Uniform(0.5))
        if mode == "hybrid":
            blk.hybridize()
        outs = []
        try:
            for _ in range(calls):
                o = blk(*inputs)
                o = o if isinstance(o, (list, tuple)) else [o]
                outs.append([x.asnumpy() for x in o])
            res[mode] = outs
        except Exception as e:
            msg = str(e).strip().splitlines()
            res[mode] = "%s: %s" % (type(e).__name__, (msg[0] if msg else "")[:200])
    e, h = res["eager"], res["hybrid"]
    if isinstance(e, str) or isinstance(h, str):
        print(
            f"{name}: eager={'ok' if not isinstance(e, str) else e} | hybrid={'ok' if not isinstance(h, str) else h}"
        )
        if not isinstance(e, str):
            print("   eager shapes", [a.shape for a in e[0]])
    else:
        same = all(np.allclose(a, b, atol=1e-5) for ce, ch in zip(e, h) for a, b in zip(ce, ch))
        print(f"{name}: eager ok, hybrid ok, equal={same}", [a.shape for a in e[0]])
        if not same:
            for i, (ce, ch) in enumerate(zip(e, h)):
                print(
                    "   call",
                    i,
                    "eager",
                    np.round(ce[0].ravel()[:4], 5),
                    "hybrid",
                    np.round(ch[0].ravel()[:4], 5),
                )


def feat(*s):
    return nd.array(rs.uniform(-1, 1, size=s))


x = nd.L2Normalization(feat(B, C), mode="instance")
emb = feat(B, D)
label = nd.array(rs.randint(0, C, size=(B,)))
if __name__ == "__main__":
    which = sys.argv[1:] or ["all"]
    cases = {
        "ContrastiveLoss": lambda: run(
            "ContrastiveLoss",
            lambda: L.ContrastiveLoss(margin=1),
            [feat(B, D), feat(B, D), nd.array(rs.randint(0, 2, size=(B,)))],
        ),
        "ASoftmax": lambda: run(
            "ASoftmax(4 calls)", lambda: L.ASoftmax(C, m=2, s=1), [x, label], calls=4
        ),
        "ASoftmax_nophi": lambda: run(
            "ASoftmax(phiflag=False)",
            lambda: L.ASoftmax(C, m=2, s=1, phiflag=False),
            [x, label],
            calls=2,
        ),
        "CenterLoss": lambda: run(
            "CenterLoss", lambda: L.CenterLoss(C, D, 0.5), [feat(B, C), label, emb]
        ),
        "MPSLoss": lambda: run("MPSLoss", lambda: L.MPSLoss(), [feat(B, D), feat(B, D)]),
        "RangeLoss": lambda: run(
            "RangeLoss",
            lambda: L.RangeLoss(1.0, 1.0, 2, 2, 3, D, 1.0),
            [feat(6, D), nd.array([0, 0, 0, 1, 1, 1])],
        ),
        "GitLoss": lambda: run(
            "GitLoss", lambda: L.GitLoss(C, D, 0.5, 0.5, B), [feat(B, C), label, emb]
        ),
        "ArcLoss": lambda: run("ArcLoss", lambda: L.ArcLoss(C), [x, label]),
        "ArcLoss_hard": lambda: run(
            "ArcLoss(easy_margin=False)", lambda: L.ArcLoss(C, easy_margin=False), [x, label]
        ),
        "CosLoss": lambda: run("CosLoss", lambda: L.CosLoss(C, 0.4, 64), [x, label]),
        "L2Softmax": lambda: run("L2Softmax", lambda: L.L2Softmax(C, 30), [feat(B, C), label]),
        "SVXSoftmax": lambda: run(
            "SVXSoftmax", lambda: L.SVXSoftmax(C, 30, t=1.2, m2=0.3), [x, label]
        ),
        "LGMLoss": lambda: run("LGMLoss", lambda: L.LGMLoss(C, D, 0.1, 0.1, 0.1), [emb, label]),
        "COCOLoss": lambda: run("COCOLoss", lambda: L.COCOLoss(C, D, 10.0), [emb, label]),
        "RingLoss": lambda: run("RingLoss", lambda: L.RingLoss(0.1), [feat(B, C), label, emb]),
        "TripletLoss": lambda: run(
            "TripletLoss", lambda: L.TripletLoss(), [feat(B, D), feat(B, D), feat(B, D)]
        ),
    }
    for k, f in cases.items():
        if "all" in which or k in which:
            try:
                f()
            except Exception:
                traceback.print_exc()
