"""Hazards: tile-broadcast, const-array. Exact rewrite: yes.

SSD-style anchor generator: a literal base-anchor table is tiled to the batch size of the
feature map; params.get_constant for the table and F.broadcast_like over axis 0 are exact.
"""
from mxnet import gluon, nd


class BatchAnchors(gluon.HybridBlock):
    """(B, 3, 4) anchors in corner form for every image, from three base anchors."""

    def hybrid_forward(self, F, feat):
        base = nd.array([[-0.1, -0.1, 0.1, 0.1], [-0.2, -0.1, 0.2, 0.1], [-0.1, -0.2, 0.1, 0.2]])
        return F.tile(base.expand_dims(axis=0), reps=(feat.shape[0], 1, 1))


EXAMPLES = {"BatchAnchors": {"args": [[2, 4, 3, 3]]}}
