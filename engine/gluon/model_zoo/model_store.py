"""`mx.gluon.model_zoo.model_store`: where MXNet keeps pretrained weights. The engine builds
architectures only; fetching published weights (`get_model_file`) is an engine gap, so code
importing this module (GluonNLP does at module level) still loads, and only a pretrained
model says "cannot verify"."""

import os
from typing import Optional

from ...base import engine_not_implemented

__all__ = ["get_model_file", "purge"]


def _default_root() -> str:
    return os.path.join(os.environ.get("MXNET_HOME", os.path.join("~", ".mxnet")), "models")


def get_model_file(name: str, root: Optional[str] = None) -> str:
    """MXNet downloads (or finds, checked by SHA-1) the weights file; the engine does not."""
    engine_not_implemented("gluon.model_zoo.model_store.get_model_file (pretrained weights)")


def purge(root: Optional[str] = None) -> None:
    """Remove the `.params` files MXNet stored under `root` (as MXNet does)."""
    root = os.path.expanduser(root or _default_root())
    if not os.path.isdir(root):
        return
    for f in os.listdir(root):
        if f.endswith(".params"):
            os.remove(os.path.join(root, f))


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    engine_not_implemented("gluon.model_zoo.model_store." + name)
