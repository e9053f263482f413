"""Hazards: reshape-codes. Exact rewrite: yes.

Merging attention heads back after batch_dot on (B * heads, L, d): the original divides the
first dimension by the head count read from the shape; codes (-4, -1, heads, 0, 0) and
(0, 0, -3) are exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class HeadMerger(gluon.HybridBlock):
    """(B * heads, L, d) attention context -> (B, L, heads * d) -> output Dense."""

    def __init__(self, units, num_heads, **kwargs):
        super(HeadMerger, self).__init__(**kwargs)
        self._heads = num_heads
        with self.name_scope():
            self.proj_out = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, context):
        bh, length, depth = context.shape
        context = context.reshape((bh // self._heads, self._heads, length, depth))
        context = F.transpose(context, axes=(0, 2, 1, 3))
        context = context.reshape((bh // self._heads, length, self._heads * depth))
        return self.proj_out(context)


EXAMPLES = {"HeadMerger": {"kwargs": {"units": 8, "num_heads": 2}, "args": [[4, 3, 5]]}}
