# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""Fix gluonfr 1.0.2 hazards one at a time (same line numbers) and rerun hybridized, to reproduce
each later line's own failure under MXNet 1.9.1."""

import sys
import os
import types
import traceback

SRC = os.path.expanduser("~/.cache/hybridlint-realworld/src/gluonfr-1.0.2")
sys.path.insert(0, SRC)
import numpy as np
import mxnet as mx
from mxnet import nd

ORIG = open(os.path.join(SRC, "gluonfr/loss.py")).read()
TRI = "F.broadcast_lesser(F.reshape(F.arange({n}), (-1, 1)), F.reshape(F.arange({n}), (1, -1)))"
PATCHES = {
    "558": ("features.T", "F.transpose(features)"),
    "560": (
        "distances = F.expand_dims(square_norm, 0) - 2.0 * dot_product + F.expand_dims(square_norm, 1)",
        "distances = F.broadcast_add(F.broadcast_sub(F.expand_dims(square_norm, 0), 2.0 * dot_product), F.expand_dims(square_norm, 1))",
    ),
    "560outer": (
        "distances = F.expand_dims(square_norm, 0) - 2.0 * dot_product + F.expand_dims(square_norm, 1)",
        "distances = F.broadcast_sub(F.expand_dims(square_norm, 0), 2.0 * dot_product) + F.expand_dims(square_norm, 1)",
    ),
    "562": ("mask = F.equal(distances, 0.0)", "mask = (distances == 0.0)"),
    "572": (
        "mask = F.array(\n            1. - np.greater_equal.outer(np.arange(self._num_class), np.arange(self._num_class)).astype(np.float32))",
        "mask = " + TRI.format(n="self._num_class") + "\n",
    ),
    "580": ("intra_class_loss = F.array([0.])", "intra_class_loss = F.zeros((1,))"),
    "582": (
        "x[i * self._num_in_class:(i + 1) * self._num_in_class, :]",
        "F.slice_axis(x, axis=0, begin=i * self._num_in_class, end=(i + 1) * self._num_in_class)",
    ),
    "584": (
        "mask = F.array(\n                1. - np.greater_equal.outer(np.arange(self._num_in_class), np.arange(self._num_in_class)).astype(\n                    np.float32))",
        "mask = " + TRI.format(n="self._num_in_class") + "\n\n",
    ),
    "638": ("diffs = XX + YY - 2 * XY", "diffs = F.broadcast_sub(F.broadcast_add(XX, YY), 2 * XY)"),
    "638fix": ("diffs = XX + YY - 2 * XY", "diffs = F.broadcast_sub(XX + YY, 2 * XY)"),
    "658": (
        "loss = (self.m + logits_neg - dist_pos) * 0.5",
        "loss = F.broadcast_sub(self.m + logits_neg, dist_pos) * 0.5",
    ),
}


def module(patches):
    src = ORIG
    for p in patches:
        old, new = PATCHES[p]
        assert old in src, p
        src = src.replace(old, new)
    assert src.count("\n") == ORIG.count("\n"), patches
    mod = types.ModuleType("gluonfr.loss_patched")
    mod.__dict__["__name__"] = "gluonfr.loss_patched"
    exec(compile(src, "gluonfr/loss.py", "exec"), mod.__dict__)
    return mod


def run(mod, cls, args, inputs, label):
    outs = {}
    for mode in ("eager", "hybrid"):
        blk = getattr(mod, cls)(*args)
        blk.initialize(mx.init.Uniform(0.5))
        if mode == "hybrid":
            blk.hybridize()
        try:
            outs[mode] = blk(*inputs).asnumpy()
        except Exception as e:
            tb = [
                f for f in traceback.extract_tb(e.__traceback__) if f.filename == "gluonfr/loss.py"
            ]
            where = f"line {tb[-1].lineno}" if tb else "(raised in MXNet after hybrid_forward)"
            outs[mode] = f"{type(e).__name__} at {where}: {str(e).strip().splitlines()[0][:160]}"
    e, h = outs["eager"], outs["hybrid"]
    if isinstance(e, str) or isinstance(h, str):
        print(
            f"[{label}] {cls}: eager={'ok ' + str(e.shape) if not isinstance(e, str) else e} | hybrid={h if isinstance(h, str) else 'ok'}"
        )
    else:
        print(
            f"[{label}] {cls}: eager ok {e.shape}, hybrid ok, equal={np.allclose(e, h, atol=1e-5)}"
        )
    return outs


rs = np.random.RandomState(0)
D = 4
xr = nd.array(rs.uniform(-1, 1, size=(6, D)))
yr = nd.array([0, 0, 0, 1, 1, 1])
base = module([])
ref = run(base, "RangeLoss", (1.0, 1.0, 2, 2, 3, D, 1.0), [xr, yr], "orig")
chain = []
for p in ["558", "560outer", "560", "562", "572", "580", "582", "584"]:
    if p == "560":
        chain = [c for c in chain if c != "560outer"]
    chain.append(p)
    out = run(module(chain), "RangeLoss", (1.0, 1.0, 2, 2, 3, D, 1.0), [xr, yr], "+".join(chain))
    if not isinstance(out["eager"], str) and not isinstance(ref["eager"], str):
        print("    patched eager equals original eager:", np.allclose(out["eager"], ref["eager"]))

p1 = nd.array(rs.uniform(-1, 1, size=(6, D)))
p2 = nd.array(rs.uniform(-1, 1, size=(6, D)))
ref = run(base, "MPSLoss", (), [p1, p2], "orig")
for chain in (["638fix"], ["638"], ["638", "658"]):
    out = run(module(chain), "MPSLoss", (), [p1, p2], "+".join(chain))
    if not isinstance(out["eager"], str):
        print(
            "    patched eager equals original eager:",
            out["eager"].shape == ref["eager"].shape and np.allclose(out["eager"], ref["eager"]),
        )

print("--- 560 on its own (every other RangeLoss hazard fixed)")
rest = ["558", "562", "572", "580", "582", "584"]
run(module(rest), "RangeLoss", (1.0, 1.0, 2, 2, 3, D, 1.0), [xr, yr], "all but 560")
run(
    module(rest + ["560outer"]),
    "RangeLoss",
    (1.0, 1.0, 2, 2, 3, D, 1.0),
    [xr, yr],
    "all but 560's outer +",
)
