"""Detection head whose hazards hide in helpers (GluonCV style code gone wrong).

Expected findings, one per line as `* CODE line N `snippet``:

* HL003 line 19 `x[:, -1]`: last anchor by indexing after a transpose, in the module-level helper `_last_anchor(F, x)`
* HL010 line 30 `nn.Sequential()`: a plain Sequential child of the HybridBlock
* HL001 line 34 `x.shape[0]`: flattening by the batch size, in the helper method `_flatten(self, F, x)`
* HL002 line 41 `.asscalar()`: `.asscalar()` in the condition deciding whether to run NMS
* HL006 line 42 `ndarray.contrib.box_nms`: `ndarray` is `from mxnet import nd as ndarray`
"""
from mxnet import nd as ndarray
from mxnet.gluon import nn
from mxnet.gluon.block import HybridBlock


def _last_anchor(F, x):
    """The last anchor of each position, (B, A, N) -> (A, B, N) -> (A, N)."""
    x = F.transpose(x, axes=(1, 0, 2))
    return x[:, -1]


class DetectionHead(HybridBlock):
    def __init__(self, num_classes=3, nms_thresh=0.45, **kwargs):
        super(DetectionHead, self).__init__(**kwargs)
        self.num_classes = num_classes
        self.nms_thresh = nms_thresh
        with self.name_scope():
            self.cls_pred = nn.Conv2D(num_classes, 3, padding=1)
            self.box_pred = nn.Conv2D(4, 3, padding=1)
            self.post = nn.Sequential()
            self.post.add(nn.Dense(8))

    def _flatten(self, F, x):
        return x.reshape((x.shape[0], -1))

    def hybrid_forward(self, F, x, anchors):
        scores = self._flatten(F, F.transpose(self.cls_pred(x), (0, 2, 3, 1)))
        boxes = self._flatten(F, F.transpose(self.box_pred(x), (0, 2, 3, 1)))
        last = _last_anchor(F, anchors)
        dets = F.concat(scores, boxes, dim=1)
        if F.max(scores).asscalar() > 0.5:
            dets = ndarray.contrib.box_nms(dets, overlap_thresh=self.nms_thresh)
        return dets, last
