"""Hazards: tile-broadcast. Exact rewrite: yes.

Squeeze-and-excitation gate (gluoncv2 style) expanded to the feature map with
broadcast_to(x.shape); F.broadcast_like(w, x) is the same.
"""
from mxnet import gluon
from mxnet.gluon import nn


class SEBlock(gluon.HybridBlock):
    """x * sigmoid(fc2(relu(fc1(avgpool(x)))))."""

    def __init__(self, channels, reduction=2, **kwargs):
        super(SEBlock, self).__init__(**kwargs)
        with self.name_scope():
            self.fc1 = nn.Dense(channels // reduction, activation='relu')
            self.fc2 = nn.Dense(channels, activation='sigmoid')

    def hybrid_forward(self, F, x):
        w = F.contrib.AdaptiveAvgPooling2D(x, output_size=1)
        w = self.fc2(self.fc1(w))
        w = F.broadcast_to(w.reshape((0, 0, 1, 1)), x.shape)
        return x * w


EXAMPLES = {"SEBlock": {"kwargs": {"channels": 4}, "args": [[2, 4, 3, 3]]}}
