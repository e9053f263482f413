"""Hazards: ndim-axis. Exact rewrite: yes.

Bi-directional feature fusion concatenating on `dim=fwd.ndim - 1` so it works for any rank;
dim=-1 is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class FeatureFusion(gluon.HybridBlock):
    """concat(forward, backward) on the last axis -> Dense -> L2 normalise."""

    def __init__(self, units, **kwargs):
        super(FeatureFusion, self).__init__(**kwargs)
        with self.name_scope():
            self.proj = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, fwd, bwd):
        h = F.concat(fwd, bwd, dim=fwd.ndim - 1)
        h = self.proj(h)
        return F.L2Normalization(h.reshape((-3, 0)), mode='instance').reshape_like(h)


EXAMPLES = {"FeatureFusion": {"kwargs": {"units": 4}, "args": [[2, 3, 2], [2, 3, 2]]}}
