# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""Safe fixes of the frozen linter on gluonfr 1.0.2: fixed class eager vs original eager, and fixed hybridized."""

import os
import importlib.util
import numpy as np
import mxnet as mx
from mxnet import nd


def load(root, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(root, "gluonfr/loss.py"))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


orig = load(os.path.expanduser("~/.cache/hybridlint-realworld/src/gluonfr-1.0.2"), "lo")
fixd = load(os.environ.get("FIXED_GLUONFR", "/tmp/w21/fixed/gluonfr-1.0.2"), "lf")
rs = np.random.RandomState(1)
B, C, D = 6, 5, 4
f = lambda *s: nd.array(rs.uniform(-1, 1, size=s))
cases = [
    ("ContrastiveLoss", (1,), [f(B, D), f(B, D), nd.array(rs.randint(0, 2, size=(B,)))]),
    ("CenterLoss", (C, D, 0.5), [f(B, C), nd.array(rs.randint(0, C, size=(B,))), f(B, D)]),
    ("RangeLoss", (1.0, 1.0, 2, 2, 3, D, 1.0), [f(6, D), nd.array([0, 0, 0, 1, 1, 1])]),
    ("MPSLoss", (), [f(B, D), f(B, D)]),
]
for cls, args, inp in cases:
    res = {}
    for tag, m, hyb in (
        ("orig-eager", orig, False),
        ("fixed-eager", fixd, False),
        ("fixed-hybrid", fixd, True),
    ):
        mx.random.seed(0)
        b = getattr(m, cls)(*args)
        b.initialize(mx.init.Uniform(0.5))
        if hyb:
            b.hybridize()
        try:
            res[tag] = b(*inp).asnumpy()
        except Exception as e:
            res[tag] = type(e).__name__ + ": " + str(e).strip().splitlines()[0][:120]
    oe, fe, fh = res["orig-eager"], res["fixed-eager"], res["fixed-hybrid"]
    print(
        cls,
        "| fixed eager == orig eager:",
        (not isinstance(fe, str)) and np.allclose(oe, fe),
        "| fixed hybrid:",
        fh if isinstance(fh, str) else ("== orig eager" if np.allclose(fh, oe) else "DIFFERS"),
    )
