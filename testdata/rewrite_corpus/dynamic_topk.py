"""Hazards: asscalar. Exact rewrite: no (k comes from the data: the output shape depends on input values, which a static graph cannot express).

Proposal selection keeping as many top scores as the most positive anchors of an image,
counted with `.asscalar()`.
"""
from mxnet import gluon


class PositiveTopK(gluon.HybridBlock):
    """The top-k scores of each row, k = the largest number of positive scores in a row."""

    def hybrid_forward(self, F, scores):
        k = int((scores > 0).sum(axis=-1).max().asscalar())
        return F.topk(scores, k=max(k, 1), ret_typ='value', axis=-1)


EXAMPLES = {"PositiveTopK": {"args": [[2, 6]]}}
