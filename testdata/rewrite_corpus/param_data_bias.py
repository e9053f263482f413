"""Hazards: param-data, broadcast-arith. Exact rewrite: yes.

Conv without bias followed by a separately learned channel bias read with `.data()` and
added with `+`; the `bias` argument and F.broadcast_add are exact.
"""
from mxnet import gluon, init
from mxnet.gluon import nn


class ConvChannelBias(gluon.HybridBlock):
    """conv(x) + bias[c] per channel."""

    def __init__(self, channels, **kwargs):
        super(ConvChannelBias, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(channels, 3, padding=1, use_bias=False)
            self.bias = self.params.get('bias', shape=(channels,), init=init.Uniform(0.5))

    def hybrid_forward(self, F, x, bias):
        return self.conv(x) + self.bias.data().reshape((1, -1, 1, 1))


EXAMPLES = {"ConvChannelBias": {"kwargs": {"channels": 3}, "args": [[2, 2, 3, 3]]}}
