"""Hazards: inplace, broadcast-arith. Exact rewrite: yes.

Face-alignment head in the gluoncv2 style: a two-output regression branch predicts landmark
offsets and visibility logits, and the offsets are shifted onto a learned mean shape with
`lm += mean_shape`; Symbols have no in-place operators and `+` does not broadcast the
(1, 2K) mean over the batch, `lm = F.broadcast_add(lm, mean_shape)` is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class LandmarkBranch(gluon.HybridBlock):
    """Pooled features -> (offsets (B, 2K), visibility logits (B, K))."""

    def __init__(self, num_points, **kwargs):
        super(LandmarkBranch, self).__init__(**kwargs)
        with self.name_scope():
            self.pool = nn.GlobalAvgPool2D()
            self.coords = nn.Dense(2 * num_points)
            self.visible = nn.Dense(num_points)

    def hybrid_forward(self, F, x):
        x = self.pool(x)
        return self.coords(x), self.visible(x)


class LandmarkHead(gluon.HybridBlock):
    """Absolute landmark coordinates = mean shape + predicted offsets."""

    def __init__(self, num_points, **kwargs):
        super(LandmarkHead, self).__init__(**kwargs)
        with self.name_scope():
            self.branch = LandmarkBranch(num_points)
            self.mean_shape = self.params.get('mean_shape', shape=(1, 2 * num_points))

    def hybrid_forward(self, F, y, mean_shape):
        lm, _ = self.branch(y)
        lm += mean_shape
        return lm


# the child branch is context of the measured head (its unpacked output), not a measured block
CONTEXT = ("LandmarkBranch",)

EXAMPLES = {"LandmarkHead": {"kwargs": {"num_points": 3}, "args": [[2, 4, 3, 3]]}}
