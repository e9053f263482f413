"""Hazards: helper-lambda, reshape-codes. Exact rewrite: yes.

SSD multi-scale box predictions flattened in a list comprehension over (predictor, feature)
pairs with the batch size from each feature's shape; code 0 inside the comprehension is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class MultiScaleBoxPredictor(gluon.HybridBlock):
    """Box predictions of two feature maps, concatenated to (B, N, 4)."""

    def __init__(self, num_anchors, **kwargs):
        super(MultiScaleBoxPredictor, self).__init__(**kwargs)
        with self.name_scope():
            self.preds = nn.HybridSequential()
            for _ in range(2):
                self.preds.add(nn.Conv2D(num_anchors * 4, 3, padding=1))

    def hybrid_forward(self, F, feat1, feat2):
        outs = [F.transpose(p(f), axes=(0, 2, 3, 1)).reshape((f.shape[0], -1, 4))
                for p, f in zip(self.preds, (feat1, feat2))]
        return F.concat(*outs, dim=1)


EXAMPLES = {"MultiScaleBoxPredictor": {"kwargs": {"num_anchors": 2},
                                       "args": [[2, 3, 4, 4], [2, 5, 2, 2]]}}
