"""Hazards: const-array, eager-ns. Exact rewrite: yes.

Faster R-CNN-style box decoder with literal variance stds in `mx.nd.array`;
params.get_constant and F.broadcast_mul are exact.
"""
import mxnet as mx
from mxnet import gluon


class NormalizedBoxDecoder(gluon.HybridBlock):
    """Centre-form anchors + std-scaled deltas -> corner boxes."""

    def hybrid_forward(self, F, deltas, anchors):
        deltas = F.broadcast_mul(deltas, mx.nd.array([0.1, 0.1, 0.2, 0.2]))
        ax, ay, aw, ah = F.split(anchors, num_outputs=4, axis=-1)
        dx, dy, dw, dh = F.split(deltas, num_outputs=4, axis=-1)
        cx, cy = dx * aw + ax, dy * ah + ay
        w, h = F.exp(dw) * aw / 2, F.exp(dh) * ah / 2
        return F.concat(cx - w, cy - h, cx + w, cy + h, dim=-1)


EXAMPLES = {"NormalizedBoxDecoder": {"args": [[2, 3, 4], {"shape": [2, 3, 4], "positive": True}]}}
