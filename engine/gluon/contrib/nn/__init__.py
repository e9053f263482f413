"""`mx.gluon.contrib.nn`: Concurrent, HybridConcurrent, Identity, PixelShuffle2D."""

from .basic_layers import *  # noqa: F401,F403


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from ....base import engine_not_implemented

    engine_not_implemented("gluon.contrib.nn." + name)
