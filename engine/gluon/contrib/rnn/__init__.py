"""`mx.gluon.contrib.rnn`: VariationalDropoutCell and LSTMPCell (used by GluonNLP and GluonTS).
The convolutional cells (Conv1DLSTMCell, ...) and `dynamic_unroll` (contrib.foreach) are not
provided: they raise NotImplementedError through this module's __getattr__."""

from .rnn_cell import *  # noqa: F401,F403
from . import rnn_cell  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from ....base import engine_not_implemented

    engine_not_implemented("gluon.contrib.rnn." + name)
