"""Hazards: reshape-codes. Exact rewrite: yes.

Sub-pixel (pixel shuffle) upsampling as in super-resolution zoos; every reshape target is
built from `x.shape`. Codes (0, -4, -1, r*r, -2), (0, 0, -4, r, r, -2) and (0, 0, -3, -3)
give the same reshapes.
"""
from mxnet import gluon
from mxnet.gluon import nn


class PixelShuffleUpsampler(gluon.HybridBlock):
    """Conv to channels * r^2, then rearrange (B, C*r*r, H, W) -> (B, C, H*r, W*r)."""

    def __init__(self, channels, factor, **kwargs):
        super(PixelShuffleUpsampler, self).__init__(**kwargs)
        self._r = factor
        with self.name_scope():
            self.conv = nn.Conv2D(channels * factor * factor, 3, padding=1)

    def hybrid_forward(self, F, x):
        x = self.conv(x)
        r = self._r
        b, c, h, w = x.shape
        x = x.reshape((b, c // (r * r), r, r, h, w))
        x = F.transpose(x, axes=(0, 1, 4, 2, 5, 3))
        return x.reshape((b, c // (r * r), h * r, w * r))


EXAMPLES = {"PixelShuffleUpsampler": {"kwargs": {"channels": 2, "factor": 2}, "args": [[2, 3, 3, 4]]}}
