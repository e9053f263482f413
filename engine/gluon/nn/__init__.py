"""`mx.gluon.nn`: neural network layers."""

from .activations import *  # noqa: F401,F403
from .basic_layers import *  # noqa: F401,F403
from .conv_layers import *  # noqa: F401,F403
from ..block import Block, HybridBlock  # noqa: F401
from ..symbol_block import SymbolBlock  # noqa: F401


def __getattr__(name):
    """Layers of mx.gluon.nn the engine lacks say so instead of an AttributeError."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ...base import engine_not_implemented

    engine_not_implemented("gluon.nn." + name)
