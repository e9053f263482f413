"""Hazards: const-array, broadcast-arith. Exact rewrite: yes.

Anchor-free head scaling its predicted sizes by literal per-anchor priors (a 2-D list in
`nd.array`); params.get_constant and broadcast multiplication are exact.
"""
from mxnet import gluon, nd
from mxnet.gluon import nn


class PriorScaledSizes(gluon.HybridBlock):
    """exp(conv(x)) reshaped to (B, A, 2, H*W) times (A, 2) priors."""

    def __init__(self, **kwargs):
        super(PriorScaledSizes, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(6, 1)

    def hybrid_forward(self, F, x):
        sizes = F.exp(self.conv(x)).reshape((0, 3, 2, -1))
        priors = nd.array([[1.0, 1.0], [2.0, 0.5], [0.5, 2.0]]).reshape((1, 3, 2, 1))
        return sizes * priors


EXAMPLES = {"PriorScaledSizes": {"args": [[2, 4, 2, 3]]}}
