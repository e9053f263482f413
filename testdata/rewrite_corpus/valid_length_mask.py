"""Hazards: creation-like, broadcast-arith. Exact rewrite: yes.

Sequence mask built from valid lengths (GluonNLP style): arange over the length read from the
shape compared with the lengths; arange_like and F.broadcast_lesser are exact.
"""
from mxnet import gluon


class MaskedMeanPooling(gluon.HybridBlock):
    """Mean of (B, L, C) over the first valid_length steps of each sequence."""

    def hybrid_forward(self, F, x, valid_length):
        steps = F.arange(x.shape[1]).reshape((1, -1))
        mask = steps < valid_length.reshape((-1, 1))
        summed = F.sum(x * mask.expand_dims(-1), axis=1)
        return F.broadcast_div(summed, valid_length.reshape((-1, 1)))


EXAMPLES = {"MaskedMeanPooling": {"args": [[2, 4, 3], {"shape": [2], "data": [2, 4]}]}}
