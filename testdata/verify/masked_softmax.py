"""Attention scores with an optional mask (None when the caller has none), as in
transformer encoders: `scores - (1 - mask) * 1e4` mixes (N, Q, K) with (N, 1, K)."""
from mxnet import gluon


class MaskedSoftmax(gluon.HybridBlock):
    def hybrid_forward(self, F, scores, mask=None):
        if mask is not None:
            scores = scores - (1 - mask) * 1e4
        return F.softmax(scores, axis=-1)
