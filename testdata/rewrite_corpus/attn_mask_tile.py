"""Hazards: tile-broadcast, broadcast-arith. Exact rewrite: yes.

GluonNLP-style key-padding mask: a (B, Lk) mask is repeated over the query length taken from
the query's shape; F.broadcast_like(m, scores, lhs_axes=(1,), rhs_axes=(1,)) is exact.
"""
from mxnet import gluon


class PaddingMaskedSoftmax(gluon.HybridBlock):
    """Softmax over keys where padded keys get -1e4 added to their score."""

    def hybrid_forward(self, F, query, key, key_mask):
        scores = F.batch_dot(query, key, transpose_b=True)
        mask = F.tile(key_mask.expand_dims(axis=1), reps=(1, query.shape[1], 1))
        return F.softmax(scores + (1.0 - mask) * -1e4, axis=-1)


EXAMPLES = {"PaddingMaskedSoftmax": {"args": [[2, 3, 4], [2, 5, 4], {"shape": [2, 5], "data": [
    1, 1, 1, 0, 0, 1, 1, 1, 1, 1]}]}}
