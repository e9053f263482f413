"""Hazards: reshape-codes. Exact rewrite: yes.

ShuffleNet channel shuffle written with the unpacked input shape; the codes
(0, -4, groups, -1, -2) and (0, -3, -2) express it without the shape.
"""
from mxnet import gluon
from mxnet.gluon import nn


class ShuffleUnit(gluon.HybridBlock):
    """Grouped 1x1 conv, channel shuffle, depthwise 3x3 conv."""

    def __init__(self, channels, groups, **kwargs):
        super(ShuffleUnit, self).__init__(**kwargs)
        self._groups = groups
        with self.name_scope():
            self.compress = nn.Conv2D(channels, 1, groups=groups, use_bias=False)
            self.dw = nn.Conv2D(channels, 3, padding=1, groups=channels, use_bias=False)

    def hybrid_forward(self, F, x):
        x = self.compress(x)
        b, c, h, w = x.shape
        x = x.reshape((b, self._groups, c // self._groups, h, w))
        x = F.swapaxes(x, 1, 2)
        x = x.reshape((b, c, h, w))
        return self.dw(x)


EXAMPLES = {"ShuffleUnit": {"kwargs": {"channels": 8, "groups": 2}, "args": [[2, 4, 5, 5]]}}
