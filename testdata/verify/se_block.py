"""A squeeze-and-excitation block (SENet, gluoncv's SE_BasicBlock): the channel weights of
shape (N, C, 1, 1) scale the (N, C, H, W) features with `*`, which hybridized does not
broadcast (HL007)."""
from mxnet import gluon
from mxnet.gluon import nn


class SEBlock(gluon.HybridBlock):
    def __init__(self, channels=8, reduction=4, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.down = nn.Conv2D(channels // reduction, 1, in_channels=channels)
            self.up = nn.Conv2D(channels, 1, in_channels=channels // reduction)

    def hybrid_forward(self, F, x):
        w = F.contrib.AdaptiveAvgPooling2D(x, output_size=1)
        w = F.sigmoid(self.up(F.relu(self.down(w))))
        return x * w
