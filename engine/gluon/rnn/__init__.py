"""`mx.gluon.rnn`: the recurrent cells (RNNCell, LSTMCell, GRUCell and their containers and
modifiers). The fused layers (rnn.RNN/LSTM/GRU, MXNet's cuDNN-style `RNN` op) are not
provided: they raise NotImplementedError through this module's __getattr__."""
from .rnn_cell import *  # noqa: F401,F403


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from ...base import engine_not_implemented
    engine_not_implemented("gluon.rnn." + name)
