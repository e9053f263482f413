"""Hazards: varargs-reshape. Exact rewrite: yes.

Head split written NumPy-style as `x.reshape(0, 0, heads, -1)`; the tuple form is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class VarargsHeadSplit(gluon.HybridBlock):
    """Dense then (B, L, heads, d) -> (B, heads, L, d)."""

    def __init__(self, units, num_heads, **kwargs):
        super(VarargsHeadSplit, self).__init__(**kwargs)
        self._heads = num_heads
        with self.name_scope():
            self.proj = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, x):
        h = self.proj(x).reshape(0, 0, self._heads, -1)
        return h.transpose(axes=(0, 2, 1, 3))


EXAMPLES = {"VarargsHeadSplit": {"kwargs": {"units": 4, "num_heads": 2}, "args": [[2, 3, 5]]}}
