"""Hazards: reshape-codes, reshape-like. Exact rewrite: yes.

GluonTS-style time-distributed projection: (B, T, C) is folded to (B*T, C) and unfolded with
the unpacked sizes; (-3, 0) folds, and F.reshape_like(y, x, lhs_end=1, rhs_end=2) (or
(-4, -1, T, 0) with T a constant) unfolds.
"""
from mxnet import gluon
from mxnet.gluon import nn


class TimeDistributedProjection(gluon.HybridBlock):
    """Apply a Dense(flatten=True) to every time step of a (B, T, C) sequence."""

    def __init__(self, units, **kwargs):
        super(TimeDistributedProjection, self).__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(units, activation='tanh')

    def hybrid_forward(self, F, x):
        batch, steps, channels = x.shape
        y = self.dense(x.reshape((batch * steps, channels)))
        return y.reshape((batch, steps, -1))


EXAMPLES = {"TimeDistributedProjection": {"kwargs": {"units": 4}, "args": [[2, 3, 5]]}}
