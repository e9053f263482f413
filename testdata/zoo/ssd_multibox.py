"""SSD multi-scale class and box predictors (GluonCV style): hybridize-safe as written.

Feature maps reach the head as ``*args``; predictions are transposed to NHWC, flattened and
concatenated, then reshaped with the special code 0 and a class count fixed in ``__init__``.
The anchor generator sizes its anchors with ``slice_like`` instead of reading ``.shape``.
"""
import numpy as np
from mxnet import gluon
from mxnet.gluon import nn


class ConvPredictor(gluon.HybridBlock):
    """A 3x3 convolution that predicts `num_channel` values per position."""

    def __init__(self, num_channel, kernel=(3, 3), pad=(1, 1), stride=(1, 1),
                 activation=None, use_bias=True, in_channels=0, **kwargs):
        super(ConvPredictor, self).__init__(**kwargs)
        with self.name_scope():
            self.predictor = nn.Conv2D(
                num_channel, kernel, strides=stride, padding=pad,
                activation=activation, use_bias=use_bias, in_channels=in_channels,
                weight_initializer='zeros' if num_channel == 0 else None,
                bias_initializer='zeros')

    def hybrid_forward(self, F, x):
        return self.predictor(x)


class AnchorGenerator(gluon.HybridBlock):
    """Pre-computed anchors for the largest map, cropped to each input with slice_like."""

    def __init__(self, index, im_size, sizes, ratios, step, alloc_size=(16, 16), **kwargs):
        super(AnchorGenerator, self).__init__(**kwargs)
        self._im_size = im_size
        anchors = self._generate_anchors(sizes, ratios, step, alloc_size)
        self.anchors = self.params.get_constant('anchor_%d' % index, anchors)

    def _generate_anchors(self, sizes, ratios, step, alloc_size):
        anchors = []
        for i in range(alloc_size[0]):
            for j in range(alloc_size[1]):
                cy = (i + 0.5) * step
                cx = (j + 0.5) * step
                for r in ratios:
                    sr = np.sqrt(r)
                    anchors.append([cx, cy, sizes[0] * sr, sizes[0] / sr])
        return np.array(anchors).reshape(1, 1, alloc_size[0], alloc_size[1], -1)

    @property
    def num_depth(self):
        return 4

    def hybrid_forward(self, F, x, anchors):
        a = F.slice_like(anchors, x * 0, axes=(2, 3))
        return a.reshape((1, -1, 4))


class SSDHead(gluon.HybridBlock):
    """Class and box predictions for every feature map given as *args."""

    def __init__(self, num_classes, num_anchors=(2, 2), in_channels=(4, 6), steps=(4, 8),
                 **kwargs):
        super(SSDHead, self).__init__(**kwargs)
        self.num_classes = num_classes + 1
        with self.name_scope():
            self.class_predictors = nn.HybridSequential()
            self.box_predictors = nn.HybridSequential()
            self.anchor_generators = nn.HybridSequential()
            for i, (na, c, s) in enumerate(zip(num_anchors, in_channels, steps)):
                self.class_predictors.add(
                    ConvPredictor(na * self.num_classes, in_channels=c))
                self.box_predictors.add(ConvPredictor(na * 4, in_channels=c))
                ratios = [1.0, 2.0] if na == 2 else [1.0]
                self.anchor_generators.add(
                    AnchorGenerator(i, (32, 32), [s * 2.0], ratios, s, alloc_size=(8, 8)))

    def hybrid_forward(self, F, *args):
        features = [args[0], args[1]]
        cls_preds = [F.flatten(F.transpose(cp(feat), (0, 2, 3, 1)))
                     for feat, cp in zip(features, self.class_predictors)]
        box_preds = [F.flatten(F.transpose(bp(feat), (0, 2, 3, 1)))
                     for feat, bp in zip(features, self.box_predictors)]
        anchors = [F.reshape(ag(feat), shape=(1, -1))
                   for feat, ag in zip(features, self.anchor_generators)]
        cls_preds = F.concat(*cls_preds, dim=1).reshape((0, -1, self.num_classes))
        box_preds = F.concat(*box_preds, dim=1).reshape((0, -1, 4))
        anchors = F.concat(*anchors, dim=1).reshape((1, -1, 4))
        return cls_preds, box_preds, anchors


def build():
    net = SSDHead(num_classes=3, prefix='ssd_')
    return net, [(2, 4, 8, 8), (2, 6, 4, 4)]
