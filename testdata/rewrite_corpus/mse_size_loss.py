"""Hazards: shape-scalar. Exact rewrite: yes.

Reconstruction loss (autoencoder style) normalised by the element count `pred.size`;
F.size_array(pred) as a float divisor is exact.
"""
from mxnet import gluon


class ReconstructionLoss(gluon.HybridBlock):
    """sum((pred - target)^2) / number of elements, a scalar (1,) tensor."""

    def hybrid_forward(self, F, pred, target):
        diff = F.square(pred - target)
        return F.sum(diff).reshape((1,)) / pred.size


EXAMPLES = {"ReconstructionLoss": {"args": [[2, 3, 4], [2, 3, 4]]}}
