"""Hazards: const-array, broadcast-arith. Exact rewrite: yes.

ImageNet normalization inside the network (GluonCV deployment style) with literal mean and
std arrays; params.get_constant for each and broadcast ops are exact.
"""
from mxnet import gluon, nd
from mxnet.gluon import nn


class NormalizedStem(gluon.HybridBlock):
    """(x - mean) / std per channel, then a conv stem."""

    def __init__(self, channels, **kwargs):
        super(NormalizedStem, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(channels, 3, padding=1)

    def hybrid_forward(self, F, x):
        mean = nd.array([0.485, 0.456, 0.406]).reshape((1, 3, 1, 1))
        std = nd.array([0.229, 0.224, 0.225]).reshape((1, 3, 1, 1))
        return self.conv((x - mean) / std)


EXAMPLES = {"NormalizedStem": {"kwargs": {"channels": 2}, "args": [[2, 3, 4, 4]]}}
