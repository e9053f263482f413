"""`mx.gluon.contrib`: the contrib layers model code commonly uses (contrib.nn, contrib.rnn,
contrib.cnn)."""

from . import cnn  # noqa: F401
from . import nn  # noqa: F401
from . import rnn  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from ...base import engine_not_implemented

    engine_not_implemented("gluon.contrib." + name)
