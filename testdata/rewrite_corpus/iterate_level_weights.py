"""Hazards: tensor-iteration. Exact rewrite: yes.

BiFPN-style weighted fusion iterating over a stacked (levels, B, C, H, W) tensor with zip;
the number of levels is static (len(self._weights)), so F.split(..., num_outputs=levels,
axis=0, squeeze_axis=True) is exact.

LevelFusionNeck is the zoo-style parent that builds the fusion and calls it with
F.stack(*levels) of its convs' outputs: alone, an input that is only iterated is taken for a
list of feature maps (issue 11's policy, gluon passes those the same way); the parent's call
site is what shows the fusion gets one stacked tensor.
"""
from mxnet import gluon
from mxnet.gluon import nn


class WeightedLevelFusion(gluon.HybridBlock):
    """sum_i w_i * level_i with fixed fusion weights."""

    def __init__(self, weights, **kwargs):
        super(WeightedLevelFusion, self).__init__(**kwargs)
        self._weights = weights

    def hybrid_forward(self, F, stacked):
        fused = [w * level for w, level in zip(self._weights, stacked)]
        return F.add_n(*fused)


class LevelFusionNeck(gluon.HybridBlock):
    """Three 1x1 convs on one feature map, stacked level-major and fused."""

    def __init__(self, channels=2, **kwargs):
        super(LevelFusionNeck, self).__init__(**kwargs)
        with self.name_scope():
            self.conv0 = nn.Conv2D(channels, 1)
            self.conv1 = nn.Conv2D(channels, 1)
            self.conv2 = nn.Conv2D(channels, 1)
            self.fusion = WeightedLevelFusion([0.5, 0.3, 0.2])

    def hybrid_forward(self, F, x):
        levels = [self.conv0(x), self.conv1(x), self.conv2(x)]
        return self.fusion(F.stack(*levels))


# the parent is the call-site context of issue 11, not a measured block
CONTEXT = ("LevelFusionNeck",)

EXAMPLES = {"WeightedLevelFusion": {"kwargs": {"weights": [0.5, 0.3, 0.2]},
                                    "args": [[3, 2, 2, 2, 2]]}}
