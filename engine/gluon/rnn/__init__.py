"""`mx.gluon.rnn`: the recurrent cells (RNNCell, LSTMCell, GRUCell and their containers and
modifiers) and the fused layers rnn.RNN/LSTM/GRU (MXNet's `RNN` op, engine/ops/rnn.py).
Names the engine lacks raise NotImplementedError through this module's __getattr__."""

from .rnn_cell import *  # noqa: F401,F403
from .rnn_layer import *  # noqa: F401,F403
from . import rnn_cell  # noqa: F401
from . import rnn_layer  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from ...base import engine_not_implemented

    engine_not_implemented("gluon.rnn." + name)
