"""Hazards: shape-scalar. Exact rewrite: yes.

Box regression loss averaged over the batch with `/ loss.shape[0]`; F.mean over the batch
(or a shape_array-based divisor) is exact.
"""
from mxnet import gluon


class SmoothL1BatchMean(gluon.HybridBlock):
    """mean over the batch of sum of smooth-L1(pred - target)."""

    def hybrid_forward(self, F, pred, target):
        loss = F.smooth_l1(pred - target, scalar=1.0).sum(axis=1)
        return loss.sum(axis=0, keepdims=True) / loss.shape[0]


EXAMPLES = {"SmoothL1BatchMean": {"args": [[4, 4], [4, 4]]}}
