"""Hazards: broadcast-arith. Exact rewrite: yes.

GluonCV-style YOLO box decoding: the anchor sizes are a constant parameter of shape
(1, N, 2) and the box sizes are `F.exp(raw) * anchors` against a (B, N, 2) prediction;
`*` on Symbols does not broadcast over the batch, F.broadcast_mul is exact.
"""
import numpy as np
from mxnet import gluon


class AnchorBoxDecoder(gluon.HybridBlock):
    """(B, N, 4) raw predictions -> (B, N, 4) center offsets and anchor-scaled sizes."""

    def __init__(self, anchors=(10, 13, 16, 30, 33, 23), stride=8, **kwargs):
        super(AnchorBoxDecoder, self).__init__(**kwargs)
        self._stride = stride
        anchors = np.array(anchors, dtype='float32').reshape(1, -1, 2)
        with self.name_scope():
            self.anchors = self.params.get_constant('anchors', anchors)

    def hybrid_forward(self, F, pred, anchors):
        raw_xy = F.slice_axis(pred, axis=-1, begin=0, end=2)
        raw_wh = F.slice_axis(pred, axis=-1, begin=2, end=4)
        xy = F.sigmoid(raw_xy) * self._stride
        wh = F.exp(raw_wh) * anchors
        return F.concat(xy, wh, dim=-1)


EXAMPLES = {"AnchorBoxDecoder": {"args": [[2, 3, 4]]}}
