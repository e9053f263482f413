# ruff: noqa: E402, E501  (a one-off reproduction script, kept as run)
"""gluoncv 0.10.5 DeNormalize: NDArrays made in __init__ meet the traced Symbol (MXNet 1.9.1)."""

import os
import sys
import types
import importlib.util
import mxnet as mx

sys.modules.setdefault("PIL", types.ModuleType("PIL"))  # segmentation.py imports PIL.Image
sys.modules["PIL"].Image = None  # type: ignore[attr-defined]
spec = importlib.util.spec_from_file_location(
    "segmentation",
    os.path.expanduser(
        "~/.cache/hybridlint-realworld/src/gluoncv-0.10.5/gluoncv/utils/viz/segmentation.py"
    ),
)
seg = importlib.util.module_from_spec(spec)
spec.loader.exec_module(seg)
block = seg.DeNormalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
x = mx.nd.ones((3, 4, 4))
print("eager", block(x).shape)
block.hybridize()
try:
    print("hybridized", block(x).shape)
except TypeError as error:  # expected: type <class 'mxnet.ndarray.ndarray.NDArray'> not supported
    print("hybridized fails:", type(error).__name__, error)
