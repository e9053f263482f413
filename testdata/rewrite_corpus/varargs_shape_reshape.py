"""Hazards: varargs-reshape, reshape-codes. Exact rewrite: yes.

RetinaNet-style box output reshaped as `p.reshape(p.shape[0], -1, 4)`: two hazards in one
call; `p.reshape((0, -1, 4))` is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class RetinaBoxOutput(gluon.HybridBlock):
    """(B, A*4, H, W) conv output -> (B, H*W*A, 4)."""

    def __init__(self, num_anchors, **kwargs):
        super(RetinaBoxOutput, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(num_anchors * 4, 3, padding=1)

    def hybrid_forward(self, F, x):
        p = self.conv(x).transpose(axes=(0, 2, 3, 1))
        return p.reshape(p.shape[0], -1, 4)


EXAMPLES = {"RetinaBoxOutput": {"kwargs": {"num_anchors": 2}, "args": [[2, 3, 3, 3]]}}
