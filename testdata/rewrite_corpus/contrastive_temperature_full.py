"""Hazards: static-creation, eager-ns. Exact rewrite: yes.

Contrastive (SimCLR-style) logits divided by a temperature made with `nd.full((1,), tau)`;
F.full of the same static shape is exact.
"""
from mxnet import gluon, nd


class ContrastiveLogits(gluon.HybridBlock):
    """cosine similarity of two (B, C) views divided by tau."""

    def __init__(self, tau=0.5, **kwargs):
        super(ContrastiveLogits, self).__init__(**kwargs)
        self._tau = tau

    def hybrid_forward(self, F, a, b):
        a = F.L2Normalization(a)
        b = F.L2Normalization(b)
        sim = F.dot(a, b, transpose_b=True)
        return F.broadcast_div(sim, nd.full((1,), self._tau))


EXAMPLES = {"ContrastiveLogits": {"args": [[3, 4], [3, 4]]}}
