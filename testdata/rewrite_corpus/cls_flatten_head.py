"""Hazards: reshape-codes. Exact rewrite: yes.

Classification head of a small CNN (gluoncv2 style): global pooling, then the batch axis read
from the shape to flatten; `(0, -1)` is the same reshape.
"""
from mxnet import gluon
from mxnet.gluon import nn


class ClassifierHead(gluon.HybridBlock):
    """Conv features -> global average pool -> flatten -> Dense(classes)."""

    def __init__(self, classes, **kwargs):
        super(ClassifierHead, self).__init__(**kwargs)
        with self.name_scope():
            self.pool = nn.GlobalAvgPool2D()
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        x = self.pool(x)
        x = x.reshape((x.shape[0], -1))
        return self.output(x)


EXAMPLES = {"ClassifierHead": {"kwargs": {"classes": 5}, "args": [[2, 6, 4, 4]]}}
