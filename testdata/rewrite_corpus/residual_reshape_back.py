"""Hazards: reshape-like. Exact rewrite: yes.

Residual MLP over a feature map: the Dense output is reshaped back to the input's shape to
add the skip connection; F.reshape_like(y, x) is the shape-free form.
"""
from mxnet import gluon
from mxnet.gluon import nn


class ResidualMLP(gluon.HybridBlock):
    """x + reshape(Dense(flatten(x)), x.shape)."""

    def __init__(self, in_size, **kwargs):
        super(ResidualMLP, self).__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(in_size, activation='relu')

    def hybrid_forward(self, F, x):
        y = self.fc(x)
        y = y.reshape(x.shape)
        return x + y


EXAMPLES = {"ResidualMLP": {"kwargs": {"in_size": 12}, "args": [[2, 3, 2, 2]]}}
