"""`mx.gluon`: Blocks, Parameters and layers of MXNet 1.9.1's Gluon API on the engine."""

from .parameter import (
    Constant,
    DeferredInitializationError,
    Parameter,  # noqa: F401
    ParameterDict,
    tensor_types,
)
from .block import Block, HybridBlock  # noqa: F401
from .symbol_block import SymbolBlock  # noqa: F401
from .trainer import Trainer  # noqa: F401
from . import nn, utils  # noqa: F401
from . import contrib  # noqa: F401
from . import loss  # noqa: F401
from . import rnn  # noqa: F401
from . import model_zoo  # noqa: F401


def __getattr__(name):
    """Parts of mx.gluon the engine lacks (data, ...) say so."""
    if name.startswith("__"):
        raise AttributeError(name)
    from ..base import engine_not_implemented

    engine_not_implemented("gluon." + name)
