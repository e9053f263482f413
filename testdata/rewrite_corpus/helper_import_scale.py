"""Hazards: helper-import, shape-scalar. Exact rewrite: yes.

Cross-attention calling `scaled_scores` from the project's `_nlp_utils.py`, which divides by
sqrt of the depth read from the shape; an F.shape_array-based (or constant) scale is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn

from ._nlp_utils import scaled_scores


class CrossAttention(gluon.HybridBlock):
    """softmax(scaled_scores(Wq q, Wk k)) Wk k."""

    def __init__(self, units, **kwargs):
        super(CrossAttention, self).__init__(**kwargs)
        with self.name_scope():
            self.q_proj = nn.Dense(units, flatten=False)
            self.k_proj = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, query, memory):
        k = self.k_proj(memory)
        scores = scaled_scores(F, self.q_proj(query), k)
        return F.batch_dot(F.softmax(scores, axis=-1), k)


EXAMPLES = {"CrossAttention": {"kwargs": {"units": 4}, "args": [[2, 3, 5], [2, 4, 5]]}}
