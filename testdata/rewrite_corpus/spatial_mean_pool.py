"""Hazards: shape-scalar. Exact rewrite: yes.

Global average pooling written as a sum over H and W divided by H*W from the shape; F.mean
over (2, 3) (or a size_array-based divisor) is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class SumPoolHead(gluon.HybridBlock):
    """conv -> spatial mean -> Dense."""

    def __init__(self, channels, classes, **kwargs):
        super(SumPoolHead, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(channels, 1)
            self.fc = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        x = self.conv(x)
        pooled = x.sum(axis=(2, 3)) / (x.shape[2] * x.shape[3])
        return self.fc(pooled)


EXAMPLES = {"SumPoolHead": {"kwargs": {"channels": 4, "classes": 3}, "args": [[2, 3, 3, 5]]}}
