"""Hazards: helper-import, reshape-codes. Exact rewrite: yes.

Self-attention using `split_heads` imported from another module of the project
(`_nlp_utils.py`), which builds reshape targets from the shape; codes in the helper are exact.
"""
from mxnet import gluon
from mxnet.gluon import nn

from ._nlp_utils import split_heads


class SelfAttention(gluon.HybridBlock):
    """Per-head softmax(h h^T) h, heads split by the project helper."""

    def __init__(self, units, num_heads, **kwargs):
        super(SelfAttention, self).__init__(**kwargs)
        self._heads = num_heads
        with self.name_scope():
            self.proj = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, x):
        h = split_heads(F, self.proj(x), self._heads)
        return F.batch_dot(F.softmax(F.batch_dot(h, h, transpose_b=True), axis=-1), h)


EXAMPLES = {"SelfAttention": {"kwargs": {"units": 6, "num_heads": 3}, "args": [[2, 4, 5]]}}
