"""An SSD-style multi-scale prediction head with anchors, hybridize-safe.

Class and box predictors run on each feature map; predictions are flattened channel-last
and concatenated across scales. Anchor boxes depend only on the (fixed) feature-map sizes,
so they are computed once with numpy and kept as a Constant parameter -- the hybridizable
home for literal arrays -- instead of being created inside hybrid_forward.
"""
import itertools

import numpy as np

import mxnet as mx
from mxnet import gluon
from mxnet.gluon import nn


def anchor_boxes(size, sizes, ratios):
    """(h * w * len(sizes) + len(ratios) - 1, 4) corner boxes, MultiBoxPrior's layout."""
    h, w = size
    boxes = []
    for i, j in itertools.product(range(h), range(w)):
        cy, cx = (i + 0.5) / h, (j + 0.5) / w
        shapes = [(s, ratios[0]) for s in sizes] + [(sizes[0], r) for r in ratios[1:]]
        for s, r in shapes:
            bw, bh = s * np.sqrt(r) / 2, s / np.sqrt(r) / 2
            boxes.append([cx - bw, cy - bh, cx + bw, cy + bh])
    return np.array(boxes, dtype='float32')


class SSDHead(gluon.HybridBlock):
    """Per-scale class/box predictors over two feature maps plus the matching anchors."""

    def __init__(self, num_classes, feature_sizes, sizes, ratios, **kwargs):
        super(SSDHead, self).__init__(**kwargs)
        self._num_classes = num_classes
        num_anchors = len(sizes[0]) + len(ratios[0]) - 1
        anchors = np.concatenate([anchor_boxes(fs, s, r)
                                  for fs, s, r in zip(feature_sizes, sizes, ratios)])
        with self.name_scope():
            self.cls_preds = nn.HybridSequential()
            self.box_preds = nn.HybridSequential()
            for _ in feature_sizes:
                self.cls_preds.add(nn.Conv2D(num_anchors * (num_classes + 1), 3, padding=1))
                self.box_preds.add(nn.Conv2D(num_anchors * 4, 3, padding=1))
            self.anchors = self.params.get_constant('anchors', anchors.reshape(1, -1, 4))

    def hybrid_forward(self, F, feat_small, feat_large, anchors):
        cls, box = [], []
        for feat, cls_pred, box_pred in zip([feat_small, feat_large], self.cls_preds,
                                            self.box_preds):
            cls.append(F.flatten(F.transpose(cls_pred(feat), axes=(0, 2, 3, 1))))
            box.append(F.flatten(F.transpose(box_pred(feat), axes=(0, 2, 3, 1))))
        cls = F.reshape(F.concat(*cls, dim=1), shape=(0, -1, self._num_classes + 1))
        box = F.reshape(F.concat(*box, dim=1), shape=(0, -1, 4))
        return cls, box, anchors


def build():
    net = SSDHead(num_classes=3, feature_sizes=[(4, 4), (2, 2)],
                  sizes=[[0.2, 0.27], [0.37, 0.45]], ratios=[[1, 2, 0.5], [1, 2, 0.5]],
                  prefix='ssd_')
    return net, [(2, 8, 4, 4), (2, 16, 2, 2)]
