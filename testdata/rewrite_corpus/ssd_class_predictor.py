"""Hazards: reshape-codes. Exact rewrite: yes.

SSD class prediction flattened per anchor: (B, A*(C+1), H, W) -> (B, H*W*A, C+1); the batch
size comes from the prediction's shape, code 0 keeps it.
"""
from mxnet import gluon
from mxnet.gluon import nn


class ClassPredictor(gluon.HybridBlock):
    """3x3 conv predicting num_classes + 1 scores for each of num_anchors anchors."""

    def __init__(self, num_anchors, num_classes, **kwargs):
        super(ClassPredictor, self).__init__(**kwargs)
        self._num_classes = num_classes
        with self.name_scope():
            self.predictor = nn.Conv2D(num_anchors * (num_classes + 1), 3, padding=1)

    def hybrid_forward(self, F, x):
        pred = self.predictor(x)
        pred = F.transpose(pred, axes=(0, 2, 3, 1))
        return pred.reshape((pred.shape[0], -1, self._num_classes + 1))


EXAMPLES = {"ClassPredictor": {"kwargs": {"num_anchors": 3, "num_classes": 4}, "args": [[2, 8, 4, 4]]}}
