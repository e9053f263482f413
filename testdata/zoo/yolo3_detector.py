"""A three-stage YOLOv3-style detector with NMS (GluonCV style): hybridize-safe as written.

Routes are collected in a Python list and read back reversed (``routes[::-1][i + 1]``),
children return tuples that are unpacked (``x, tip = block(x)``), the module-level
``_upsample(x, stride)`` takes no ``F`` and uses fluent ``repeat``, the loop breaks on a Python
length, training-only code sits behind ``autograd.is_training()``, and the detections go
through ``F.contrib.box_nms`` and ``slice_axis``.
"""
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn


def _conv2d(channel, kernel, padding, stride):
    cell = nn.HybridSequential(prefix='')
    cell.add(nn.Conv2D(channel, kernel_size=kernel, strides=stride, padding=padding,
                       use_bias=False))
    cell.add(nn.BatchNorm(epsilon=1e-5, momentum=0.9))
    cell.add(nn.LeakyReLU(0.1))
    return cell


def _upsample(x, stride=2):
    """Nearest-neighbour upsampling along the last two axes."""
    return x.repeat(axis=-1, repeats=stride).repeat(axis=-2, repeats=stride)


class DetectionBlock(gluon.HybridBlock):
    def __init__(self, channel, **kwargs):
        super(DetectionBlock, self).__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential(prefix='')
            self.body.add(_conv2d(channel, 1, 0, 1))
            self.body.add(_conv2d(channel * 2, 3, 1, 1))
            self.tip = _conv2d(channel * 2, 3, 1, 1)

    # pylint: disable=unused-argument
    def hybrid_forward(self, F, x):
        route = self.body(x)
        tip = self.tip(route)
        return route, tip


class Output(gluon.HybridBlock):
    """Per-position boxes as (cid, score, xmin, ymin, xmax, ymax) rows."""

    def __init__(self, index, num_class, stride, **kwargs):
        super(Output, self).__init__(**kwargs)
        self._num_class = num_class
        self._stride = stride
        self._num_pred = 4 + 1 + num_class
        with self.name_scope():
            self.prediction = nn.Conv2D(self._num_pred, kernel_size=1)
            offsets = np.stack(np.meshgrid(np.arange(16), np.arange(16)), axis=-1)
            self.offsets = self.params.get_constant('offset_%d' % index,
                                                    offsets.reshape(1, 16, 16, 2))

    def hybrid_forward(self, F, x, offsets):
        pred = self.prediction(x)
        offsets = F.slice_like(offsets, F.transpose(pred, axes=(0, 2, 3, 1)), axes=(1, 2))
        pred = F.transpose(pred, axes=(0, 2, 3, 1)).reshape((0, -1, self._num_pred))
        centers = F.broadcast_add(F.sigmoid(pred.slice_axis(axis=-1, begin=0, end=2)),
                                  offsets.reshape((1, -1, 2))) * self._stride
        half = F.exp(pred.slice_axis(axis=-1, begin=2, end=4)) * (self._stride / 2.0)
        objness = F.sigmoid(pred.slice_axis(axis=-1, begin=4, end=5))
        scores = F.broadcast_mul(F.sigmoid(pred.slice_axis(axis=-1, begin=5, end=None)),
                                 objness)
        score = F.max(scores, axis=-1, keepdims=True)
        cid = F.argmax(scores, axis=-1, keepdims=True)
        dets = F.concat(cid, score, centers - half, centers + half, dim=-1)
        if autograd.is_training():
            return dets, centers, half, objness
        return dets


class TinyYOLOV3(gluon.HybridBlock):
    def __init__(self, channels=(8, 8, 4), num_class=3, nms_thresh=0.45, nms_topk=20,
                 post_nms=10, **kwargs):
        super(TinyYOLOV3, self).__init__(**kwargs)
        self.nms_thresh = nms_thresh
        self.nms_topk = nms_topk
        self.post_nms = post_nms
        strides = [8, 16, 32]
        with self.name_scope():
            self.stages = nn.HybridSequential()
            self.transitions = nn.HybridSequential()
            self.yolo_blocks = nn.HybridSequential()
            self.yolo_outputs = nn.HybridSequential()
            for i, channel, stride in zip(range(3), channels, strides[::-1]):
                self.stages.add(_conv2d(channel, 3, 1, 2))
                self.yolo_blocks.add(DetectionBlock(channel))
                self.yolo_outputs.add(Output(i, num_class, stride))
                if i > 0:
                    self.transitions.add(_conv2d(channel, 1, 0, 1))

    def hybrid_forward(self, F, x, *args):
        all_detections = []
        routes = []
        for stage in self.stages:
            x = stage(x)
            routes.append(x)

        # the output layers run from the deepest stage to the shallowest
        for i, block, output in zip(range(len(routes)), self.yolo_blocks, self.yolo_outputs):
            x, tip = block(x)
            if autograd.is_training():
                dets, _, _, _ = output(tip)
            else:
                dets = output(tip)
            all_detections.append(dets)
            if i >= len(routes) - 1:
                break
            x = self.transitions[i](x)
            upsample = _upsample(x, stride=2)
            route_now = routes[::-1][i + 1]
            x = F.concat(F.slice_like(upsample, route_now * 0, axes=(2, 3)), route_now, dim=1)

        result = F.concat(*all_detections, dim=1)
        if self.nms_thresh > 0 and self.nms_thresh < 1:
            result = F.contrib.box_nms(
                result, overlap_thresh=self.nms_thresh, valid_thresh=0.01, topk=self.nms_topk,
                id_index=0, score_index=1, coord_start=2, force_suppress=False)
            if self.post_nms > 0:
                result = result.slice_axis(axis=1, begin=0, end=self.post_nms)
        ids = result.slice_axis(axis=-1, begin=0, end=1)
        scores = result.slice_axis(axis=-1, begin=1, end=2)
        bboxes = result.slice_axis(axis=-1, begin=2, end=None)
        return ids, scores, bboxes


def build():
    return TinyYOLOV3(prefix='yolov3_'), [(2, 3, 24, 24)]
