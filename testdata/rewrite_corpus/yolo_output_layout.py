"""Hazards: reshape-codes. Exact rewrite: yes.

YOLOv3-style output layer: the raw prediction (B, A*K, H, W) is rearranged to
(B, H*W*A, K) with the batch and grid sizes read from the shape; codes (0, -4, A, -1, -3)
and (0, -1, 0) are exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class YOLOOutput(gluon.HybridBlock):
    """1x1 conv predicting (4 + 1 + classes) values for each of num_anchors anchors."""

    def __init__(self, num_anchors, num_classes, **kwargs):
        super(YOLOOutput, self).__init__(**kwargs)
        self._num_anchors = num_anchors
        self._num_pred = 5 + num_classes
        with self.name_scope():
            self.prediction = nn.Conv2D(num_anchors * self._num_pred, 1)

    def hybrid_forward(self, F, x):
        b, _, h, w = x.shape
        pred = self.prediction(x).reshape((b, self._num_anchors, self._num_pred, h * w))
        pred = pred.transpose(axes=(0, 3, 1, 2))
        return pred.reshape((b, h * w * self._num_anchors, self._num_pred))


EXAMPLES = {"YOLOOutput": {"kwargs": {"num_anchors": 2, "num_classes": 3}, "args": [[2, 4, 3, 3]]}}
