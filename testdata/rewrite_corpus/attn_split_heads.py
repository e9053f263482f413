"""Hazards: reshape-codes. Exact rewrite: yes.

GluonNLP-style multi-head projection: the batch and length are unpacked from `x.shape` to
build the head-split target; MXNet's codes (0, 0, -4, heads, -1) say the same thing.
"""
from mxnet import gluon
from mxnet.gluon import nn


class MultiHeadProjection(gluon.HybridBlock):
    """Dense projection split into heads: (B, L, C) -> (B, heads, L, C / heads)."""

    def __init__(self, units, num_heads, **kwargs):
        super(MultiHeadProjection, self).__init__(**kwargs)
        self._num_heads = num_heads
        with self.name_scope():
            self.proj = nn.Dense(units, flatten=False, use_bias=False)

    def hybrid_forward(self, F, x):
        b, l, u = x.shape
        h = self.proj(x)
        h = h.reshape((b, l, self._num_heads, u // self._num_heads))
        return F.transpose(h, axes=(0, 2, 1, 3))


EXAMPLES = {"MultiHeadProjection": {"kwargs": {"units": 12, "num_heads": 3}, "args": [[2, 5, 12]]}}
