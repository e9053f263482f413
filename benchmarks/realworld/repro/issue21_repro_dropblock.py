# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""gluoncv 0.10.5 DropBlock: the autograd.is_training() branch is decided once, at tracing (MXNet 1.9.1)."""

import os
import importlib.util
import numpy as np
from mxnet import nd, autograd

spec = importlib.util.spec_from_file_location(
    "dropblock",
    os.path.expanduser("~/.cache/hybridlint-realworld/src/gluoncv-0.10.5/gluoncv/nn/dropblock.py"),
)
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
x = nd.ones((2, 4, 8, 8))
for first in ("predict", "train"):
    b = m.DropBlock(0.3, 3, 4, 8, 8)
    b.initialize()
    b.hybridize()

    def call(mode):
        if mode == "train":
            with autograd.record(train_mode=True):
                return b(x)
        return b(x)

    a = call(first)
    c = call("train" if first == "predict" else "predict")
    print(
        f"first call {first}: identity={np.allclose(a.asnumpy(), 1)}; then {'train' if first == 'predict' else 'predict'}: identity={np.allclose(c.asnumpy(), 1)}"
    )
e = m.DropBlock(0.3, 3, 4, 8, 8)
e.initialize()
with autograd.record(train_mode=True):
    t = e(x)
print(
    "eager train identity:",
    np.allclose(t.asnumpy(), 1),
    "| eager predict identity:",
    np.allclose(e(x).asnumpy(), 1),
)
