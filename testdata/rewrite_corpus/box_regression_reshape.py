"""Hazards: reshape-codes, indexing. Exact rewrite: yes.

Faster R-CNN-style box head: per-class box deltas reshaped with the RoI count from the shape,
then the deltas of class 1..C picked with a slice; (0, -1, 4) and F.slice_axis are exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class BoxRegressionHead(gluon.HybridBlock):
    """Dense predicting 4 deltas for each class (background included); drop the background."""

    def __init__(self, num_classes, **kwargs):
        super(BoxRegressionHead, self).__init__(**kwargs)
        self._num_classes = num_classes
        with self.name_scope():
            self.box_pred = nn.Dense((num_classes + 1) * 4)

    def hybrid_forward(self, F, roi_feat):
        deltas = self.box_pred(roi_feat)
        deltas = deltas.reshape((roi_feat.shape[0], self._num_classes + 1, 4))
        return deltas[:, 1:, :]


EXAMPLES = {"BoxRegressionHead": {"kwargs": {"num_classes": 3}, "args": [[5, 6]]}}
