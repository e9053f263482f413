"""Hazards: multi-hazard-line, reshape-codes, shape-scalar. Exact rewrite: yes.

Attention scores computed, reshaped with shape-derived sizes and scaled by sqrt of the depth
from the shape, all on one line; codes (-4, -1, heads, 0, 0) and the depth as a constant
rewrite the whole line.
"""
import math

from mxnet import gluon


class MultiHeadScores(gluon.HybridBlock):
    """(B*heads, Lq, d) x (B*heads, Lk, d) -> scaled scores (B, heads, Lq, Lk)."""

    def __init__(self, num_heads, **kwargs):
        super(MultiHeadScores, self).__init__(**kwargs)
        self._heads = num_heads

    def hybrid_forward(self, F, q, k):
        return F.batch_dot(q, k, transpose_b=True).reshape((q.shape[0] // self._heads, self._heads, q.shape[1], k.shape[1])) / math.sqrt(q.shape[-1])  # noqa: E501


EXAMPLES = {"MultiHeadScores": {"kwargs": {"num_heads": 2}, "args": [[4, 3, 5], [4, 2, 5]]}}
