"""Hazards: varargs-reshape. Exact rewrite: yes.

NDArray-style varargs reshape `x.reshape(0, -1)` in a detection head; Symbol.reshape takes
the shape as one tuple, so `x.reshape((0, -1))` is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class FlattenScoreHead(gluon.HybridBlock):
    """conv scores flattened per image."""

    def __init__(self, **kwargs):
        super(FlattenScoreHead, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(3, 1)

    def hybrid_forward(self, F, x):
        return F.sigmoid(self.conv(x).reshape(0, -1))


EXAMPLES = {"FlattenScoreHead": {"args": [[2, 4, 2, 3]]}}
