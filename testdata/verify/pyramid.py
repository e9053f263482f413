"""A feature-pyramid merge (FPN top-down path): the coarse map is upsampled and added to the
lateral one; built with per-level kwargs (lists), checked on two example sets."""
from mxnet import gluon
from mxnet.gluon import nn


class TopDown(gluon.HybridBlock):
    def __init__(self, channels=(4, 4), **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.lateral = nn.Conv2D(channels[0], 1, in_channels=channels[1])

    def hybrid_forward(self, F, fine, coarse):
        up = F.UpSampling(coarse, scale=2, sample_type="nearest")
        merged = self.lateral(fine) + up
        return merged[:, 0:2]
