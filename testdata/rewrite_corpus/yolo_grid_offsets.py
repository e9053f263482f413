"""Hazards: creation-like, shape-scalar, broadcast-arith. Exact rewrite: yes.

YOLO box decoding: cell offsets from aranges over the feature map's height and width read
from its shape; arange_like over axes 2 and 3 and broadcast adds are exact.
"""
from mxnet import gluon


class GridOffsetDecoder(gluon.HybridBlock):
    """Box centers = (sigmoid(t) + cell offset) / grid size, for a (B, 2, H, W) prediction."""

    def hybrid_forward(self, F, pred):
        gy = F.arange(pred.shape[2]).reshape((1, 1, -1, 1))
        gx = F.arange(pred.shape[3]).reshape((1, 1, 1, -1))
        cx = (F.sigmoid(F.slice_axis(pred, axis=1, begin=0, end=1)) + gx) / pred.shape[3]
        cy = (F.sigmoid(F.slice_axis(pred, axis=1, begin=1, end=2)) + gy) / pred.shape[2]
        return F.concat(cx, cy, dim=1)


EXAMPLES = {"GridOffsetDecoder": {"args": [[2, 2, 3, 4]]}}
