"""An SSD-style multi-scale prediction head with anchors and box decoding, written in
imperative style: it runs eagerly, and breaks under hybridize().

Class and box predictors run on each feature map; predictions are flattened channel-last,
concatenated across scales, and box offsets are decoded against the anchors.

Hazards (rule):
- predictions concatenated with `nd.concat` inside an F operator (HL006);
- box offsets reshaped with `box.reshape((box.shape[0], -1, 4))` (HL001);
- the box-coding variances made with `nd.array` in hybrid_forward (HL005);
- the (1, N, 2) anchor centres and sizes broadcast over the batch with `*` and `+` (HL007);
- foreground scores cut with `cls_prob[:, :, 1:]` (HL003).
"""
import itertools

import numpy as np

import mxnet as mx
from mxnet import gluon
from mxnet.gluon import nn


def anchor_boxes(size, sizes, ratios):
    """(h * w * len(sizes) + len(ratios) - 1, 4) center-size boxes (cx, cy, w, h)."""
    h, w = size
    boxes = []
    for i, j in itertools.product(range(h), range(w)):
        cy, cx = (i + 0.5) / h, (j + 0.5) / w
        shapes = [(s, ratios[0]) for s in sizes] + [(sizes[0], r) for r in ratios[1:]]
        for s, r in shapes:
            boxes.append([cx, cy, s * np.sqrt(r), s / np.sqrt(r)])
    return np.array(boxes, dtype='float32')


class SSDHead(gluon.HybridBlock):
    """Per-scale class/box predictors over two feature maps, decoded against fixed anchors."""

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
            self.anchors = self.params.get_constant('anchors', anchors)
            self.variances = self.params.get_constant('variances', [0.1, 0.1, 0.2, 0.2])

    def hybrid_forward(self, F, feat_small, feat_large, anchors, variances):
        cls, box = [], []
        for feat, cls_pred, box_pred in zip([feat_small, feat_large], self.cls_preds,
                                            self.box_preds):
            cls.append(F.flatten(F.transpose(cls_pred(feat), axes=(0, 2, 3, 1))))
            box.append(F.flatten(F.transpose(box_pred(feat), axes=(0, 2, 3, 1))))
        cls = F.reshape(F.concat(*cls, dim=1), shape=(0, -1, self._num_classes + 1))
        box = F.concat(*box, dim=1)
        box = box.reshape((0, -1, 4))
        # decode (dx, dy, dw, dh) offsets against (cx, cy, w, h) anchors, SSD's variances
        box = F.broadcast_mul(box, variances)
        anchor_xy = F.slice_axis(anchors, axis=-1, begin=0, end=2).expand_dims(axis=0)
        anchor_wh = F.slice_axis(anchors, axis=-1, begin=2, end=4).expand_dims(axis=0)
        xy = F.broadcast_add(
            F.broadcast_mul(F.slice_axis(box, axis=-1, begin=0, end=2), anchor_wh),
            anchor_xy,
        )
        wh = F.broadcast_mul(
            F.exp(F.slice_axis(box, axis=-1, begin=2, end=4)), anchor_wh
        )
        cls_prob = F.softmax(cls, axis=-1)
        return (
            F.slice(cls_prob, begin=(None, None, 1), end=(None, None, None)),
            F.concat(xy - wh / 2, xy + wh / 2, dim=-1),
        )


def build():
    net = SSDHead(num_classes=3, feature_sizes=[(4, 4), (2, 2)],
                  sizes=[[0.2, 0.27], [0.37, 0.45]], ratios=[[1, 2, 0.5], [1, 2, 0.5]],
                  prefix='ssd_')
    return net, [(2, 8, 4, 4), (2, 16, 2, 2)]
