"""Hazards: reshape-like. Exact rewrite: yes.

Segmentation head (GluonCV FCN style) upsampling its logits to the input's size taken as
`x.shape[2:]`; BilinearResize2D(out, x, mode='like') resizes the same way.
"""
from mxnet import gluon
from mxnet.gluon import nn


class FCNHead(gluon.HybridBlock):
    """3x3 conv -> ReLU -> 1x1 conv to classes, upsampled to the input image size."""

    def __init__(self, channels, classes, **kwargs):
        super(FCNHead, self).__init__(**kwargs)
        with self.name_scope():
            self.block = nn.HybridSequential()
            self.block.add(nn.Conv2D(channels, 3, padding=1, activation='relu'))
            self.block.add(nn.Conv2D(classes, 1))

    def hybrid_forward(self, F, x, feat):
        height, width = x.shape[2:]
        out = self.block(feat)
        return F.contrib.BilinearResize2D(out, height=height, width=width)


EXAMPLES = {"FCNHead": {"kwargs": {"channels": 4, "classes": 3},
                        "args": [[2, 3, 8, 8], [2, 5, 4, 4]]}}
