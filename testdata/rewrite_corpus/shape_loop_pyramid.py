"""Hazards: shape-control. Exact rewrite: no (the number of pooling steps depends on the input's spatial size: the graph itself changes with the shape, which one traced graph cannot do).

Image pyramid pooled until the map is 1x1, with a Python while loop on `x.shape`.
"""
from mxnet import gluon
from mxnet.gluon import nn


class PoolToPoint(gluon.HybridBlock):
    """Halve the map until it is 1 pixel high, summing the global means of every level."""

    def __init__(self, **kwargs):
        super(PoolToPoint, self).__init__(**kwargs)
        with self.name_scope():
            self.pool = nn.MaxPool2D(2, 2, ceil_mode=True)

    def hybrid_forward(self, F, x):
        total = F.mean(x, axis=(2, 3))
        while x.shape[2] > 1:
            x = self.pool(x)
            total = total + F.mean(x, axis=(2, 3))
        return total


EXAMPLES = {"PoolToPoint": {"args": [[2, 3, 4, 4]]}}
