"""Hazards: reshape-like, broadcast-arith. Exact rewrite: yes.

Masked attention scores: a flat (B, Lq*Lk) validity mask is reshaped to the score tensor's
shape; F.reshape_like(mask, scores) replaces the shape and the where keeps the semantics.
"""
from mxnet import gluon


class MaskedScores(gluon.HybridBlock):
    """Fill masked attention scores with -1e18 before the softmax."""

    def hybrid_forward(self, F, scores, flat_mask):
        mask = flat_mask.reshape(scores.shape)
        scores = F.where(mask, scores, -1e18 * F.ones_like(scores))
        return F.softmax(scores, axis=-1)


EXAMPLES = {"MaskedScores": {"args": [[2, 3, 4], {"shape": [2, 12],
                                                    "dtype": "float32", "data": [
    1, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0]}]}}
