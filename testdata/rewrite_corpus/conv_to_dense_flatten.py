"""Hazards: reshape-codes. Exact rewrite: yes.

LeNet/VGG-style bridge from convolutions to a Dense layer that computes the flattened size
from the three trailing dims; `(0, -1)` flattens the same way.
"""
from mxnet import gluon
from mxnet.gluon import nn


class ConvDenseBridge(gluon.HybridBlock):
    """Conv -> ReLU -> flatten (C*H*W) -> Dense(units, flatten=False)."""

    def __init__(self, channels, units, **kwargs):
        super(ConvDenseBridge, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(channels, 3, padding=1, activation='relu')
            self.fc = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, x):
        x = self.conv(x)
        x = x.reshape((-1, x.shape[1] * x.shape[2] * x.shape[3]))
        return self.fc(x)


EXAMPLES = {"ConvDenseBridge": {"kwargs": {"channels": 3, "units": 4}, "args": [[2, 2, 4, 4]]}}
