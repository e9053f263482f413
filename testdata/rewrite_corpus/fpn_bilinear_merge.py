"""Hazards: reshape-like. Exact rewrite: yes.

FPN top-down merge (GluonCV segmentation style): the coarser map is resized to the lateral
map's height and width read from its shape; BilinearResize2D(top, lateral, mode='like') is
the same resize without the shape.
"""
from mxnet import gluon
from mxnet.gluon import nn


class FPNMerge(gluon.HybridBlock):
    """lateral 1x1 conv + bilinear-upsampled top feature, then a 3x3 smoothing conv."""

    def __init__(self, channels, **kwargs):
        super(FPNMerge, self).__init__(**kwargs)
        with self.name_scope():
            self.lateral = nn.Conv2D(channels, 1)
            self.smooth = nn.Conv2D(channels, 3, padding=1)

    def hybrid_forward(self, F, top, bottom):
        lateral = self.lateral(bottom)
        top = F.contrib.BilinearResize2D(top, height=lateral.shape[2], width=lateral.shape[3])
        return self.smooth(top + lateral)


EXAMPLES = {"FPNMerge": {"kwargs": {"channels": 4}, "args": [[2, 4, 3, 3], [2, 6, 6, 6]]}}
