"""Hazards: creation-like, broadcast-arith. Exact rewrite: yes.

Transformer decoder causal mask from two aranges over the length of the input; arange_like and
F.broadcast_lesser_equal give the same lower-triangular mask.
"""
from mxnet import gluon


class CausalSelfAttentionScores(gluon.HybridBlock):
    """softmax(q k^T) with future positions masked, for (B, L, C) inputs."""

    def hybrid_forward(self, F, x):
        length = x.shape[1]
        rows = F.arange(length).reshape((-1, 1))
        cols = F.arange(length).reshape((1, -1))
        mask = cols <= rows
        scores = F.batch_dot(x, x, transpose_b=True)
        scores = F.where(F.broadcast_like(mask.expand_dims(0), scores), scores,
                         F.ones_like(scores) * -1e9)
        return F.softmax(scores, axis=-1)


EXAMPLES = {"CausalSelfAttentionScores": {"args": [[2, 4, 3]]}}
