# ruff: noqa: E402, E501, E731, B023  (a one-off reproduction script, kept as run)
"""sockeye 2.3.17 losses under MXNet 1.9.1: original eager vs hybridized, and the frozen linter's fixed copy."""

import sys
import os
import types
import importlib
import numpy as np
from mxnet import nd

sys.modules["portalocker"] = types.ModuleType(
    "portalocker"
)  # utils imports it; unused by the losses


def load(root):
    for k in [k for k in sys.modules if k == "sockeye" or k.startswith("sockeye.")]:
        del sys.modules[k]
    sys.path.insert(0, root)
    try:
        return importlib.import_module("sockeye.loss")
    finally:
        sys.path.remove(root)


rs = np.random.RandomState(0)
B, T, V = 3, 5, 7
logits = nd.array(rs.normal(size=(B, T, V)))
labels = nd.array(rs.randint(0, V, size=(B, T)))
labels[0, 3:] = 0  # padding
res = {}
for tag, root in (
    ("orig", os.path.expanduser("~/.cache/hybridlint-realworld/src/sockeye-2.3.17")),
    ("fixed", os.environ.get("FIXED_SOCKEYE", "/tmp/w21/fixed/sockeye-2.3.17")),
):
    L = load(root)
    for cls, kw in (
        ("CrossEntropyLoss", {}),
        ("CrossEntropyLoss", {"label_smoothing": 0.1}),
        ("CrossEntropyLossWithoutSoftmaxOutput", {}),
        ("CrossEntropyLossWithoutSoftmaxOutput", {"label_smoothing": 0.1, "num_labels": V}),
    ):
        for hyb in (False, True):
            b = getattr(L, cls)(**kw)
            b.initialize()
            if hyb:
                b.hybridize()
            try:
                out = [
                    o.asnumpy()
                    for o in b({L.C.LOGITS_NAME: logits}, {L.C.TARGET_LABEL_NAME: labels})
                ]
            except Exception as e:
                out = type(e).__name__ + ": " + str(e).splitlines()[0][:150]
            res[tag, cls, str(kw), hyb] = out
ref = lambda k: res[("orig",) + k[1:3] + (False,)]
for k, v in res.items():
    r = ref(k)
    ok = (not isinstance(v, str)) and all(np.allclose(a, b, atol=1e-5) for a, b in zip(v, r))
    print(
        k,
        "ok, equals original eager" if ok else v if isinstance(v, str) else "DIFFERS",
        [np.round(a, 4).tolist() for a in v] if not isinstance(v, str) else "",
    )
