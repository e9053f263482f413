"""Hazards: shape-scalar. Exact rewrite: yes.

Scaled dot-product attention dividing by sqrt of the key depth read from the query's shape;
the depth is a model constant (units // heads, set in __init__), or F.shape_array based.
"""
import math

from mxnet import gluon


class ScaledDotProductAttention(gluon.HybridBlock):
    """softmax(q k^T / sqrt(d)) v on (B, L, d) inputs."""

    def hybrid_forward(self, F, q, k, v):
        scores = F.batch_dot(q, k, transpose_b=True) / math.sqrt(q.shape[-1])
        return F.batch_dot(F.softmax(scores, axis=-1), v)


EXAMPLES = {"ScaledDotProductAttention": {"args": [[2, 3, 4], [2, 5, 4], [2, 5, 6]]}}
