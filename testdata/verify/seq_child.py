"""A HybridBlock whose body is a plain nn.Sequential (HL010): MXNet refuses it when the
block is built, so the original never runs; the fix is nn.HybridSequential."""
from mxnet import gluon
from mxnet.gluon import nn


class Stem(gluon.HybridBlock):
    def __init__(self, channels=4, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.Sequential()
            self.body.add(nn.Conv2D(channels, 3, padding=1, in_channels=3),
                          nn.BatchNorm(in_channels=channels), nn.Activation("relu"))

    def hybrid_forward(self, F, x):
        return self.body(x)
