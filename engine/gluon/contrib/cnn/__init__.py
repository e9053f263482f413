"""`mx.gluon.contrib.cnn`: the deformable convolution layers (DCN and DCNv2)."""

from .conv_layers import *  # noqa: F401,F403
from . import conv_layers  # noqa: F401


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from ....base import engine_not_implemented

    engine_not_implemented("gluon.contrib.cnn." + name)
