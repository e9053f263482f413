"""Hazards: multi-hazard-line, tile-broadcast, const-array, broadcast-arith. Exact rewrite: yes.

Anchors tiled to the batch from the shape and scaled by literal stds on one line;
broadcast_like, get_constant and broadcast_mul rewrite it.
"""
from mxnet import gluon, nd


class ScaledAnchorTiler(gluon.HybridBlock):
    """(B, N, 4) anchors * (0.1, 0.1, 0.2, 0.2), from (N, 4) anchors and a feature map."""

    def hybrid_forward(self, F, feat, anchors):
        return F.tile(anchors.reshape((1, -1, 4)), reps=(feat.shape[0], 1, 1)) * nd.array([0.1, 0.1, 0.2, 0.2])


EXAMPLES = {"ScaledAnchorTiler": {"args": [[2, 3, 2, 2], [5, 4]]}}
