"""Hazards: asscalar. Exact rewrite: yes.

Batch centering with `float(x.mean().asnumpy())`; F.broadcast_sub of the mean tensor is
exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class CenteredDense(gluon.HybridBlock):
    """Dense(x - mean(x))."""

    def __init__(self, units, **kwargs):
        super(CenteredDense, self).__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(units)

    def hybrid_forward(self, F, x):
        mu = float(x.mean().asnumpy())
        return self.fc(x - mu)


EXAMPLES = {"CenteredDense": {"kwargs": {"units": 3}, "args": [[2, 4]]}}
