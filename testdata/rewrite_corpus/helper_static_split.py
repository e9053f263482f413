"""Hazards: helper-static, reshape-codes. Exact rewrite: yes.

A class-qualified static helper (`MultiHeadCell._split_heads(F, x, heads)`) reshaping with
the unpacked shape; codes (0, 0, -4, heads, -1) in the helper are exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class MultiHeadCell(gluon.HybridBlock):
    """Self-attention weights of (B, L, C) split into heads: (B * heads, L, L)."""

    def __init__(self, units, num_heads, **kwargs):
        super(MultiHeadCell, self).__init__(**kwargs)
        self._heads = num_heads
        with self.name_scope():
            self.proj = nn.Dense(units, flatten=False)

    @staticmethod
    def _split_heads(F, x, heads):
        b, l, c = x.shape
        x = x.reshape((b, l, heads, c // heads)).transpose(axes=(0, 2, 1, 3))
        return x.reshape((-3, 0, 0))

    def hybrid_forward(self, F, x):
        h = MultiHeadCell._split_heads(F, self.proj(x), self._heads)
        return F.softmax(F.batch_dot(h, h, transpose_b=True), axis=-1)


EXAMPLES = {"MultiHeadCell": {"kwargs": {"units": 6, "num_heads": 2}, "args": [[2, 3, 5]]}}
