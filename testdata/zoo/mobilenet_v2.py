"""MobileNetV2 inverted residual blocks (GluonCV style): hybridize-safe as written.

ReLU6 is a module-level helper taking ``F``; the shortcut flag is a bool fixed in
``__init__``; layers are added by a module-level builder function.
"""
from mxnet.gluon import nn
from mxnet.gluon.block import HybridBlock


def relu6(F, x):
    """ReLU6 as in MobileNetV2: min(max(x, 0), 6)."""
    return F.clip(x, 0, 6, name="relu6")


class RELU6(HybridBlock):
    def __init__(self, **kwargs):
        super(RELU6, self).__init__(**kwargs)

    def hybrid_forward(self, F, x):
        return relu6(F, x)


def _add_conv(out, channels=1, kernel=1, stride=1, pad=0, num_group=1, active=True):
    out.add(nn.Conv2D(channels, kernel, stride, pad, groups=num_group, use_bias=False))
    out.add(nn.BatchNorm(scale=True))
    if active:
        out.add(RELU6())


class LinearBottleneck(HybridBlock):
    """expand (1x1) -> depthwise (3x3) -> project (1x1), residual when shapes agree."""

    def __init__(self, in_channels, channels, t, stride, **kwargs):
        super(LinearBottleneck, self).__init__(**kwargs)
        self.use_shortcut = stride == 1 and in_channels == channels
        with self.name_scope():
            self.out = nn.HybridSequential()
            if t != 1:
                _add_conv(self.out, in_channels * t)
            _add_conv(self.out, in_channels * t, kernel=3, stride=stride, pad=1,
                      num_group=in_channels * t)
            _add_conv(self.out, channels, active=False)

    def hybrid_forward(self, F, x):
        out = self.out(x)
        if self.use_shortcut:
            out = F.elemwise_add(out, x)
        return out


class MobileNetV2Tiny(HybridBlock):
    def __init__(self, multiplier=1.0, classes=7, **kwargs):
        super(MobileNetV2Tiny, self).__init__(**kwargs)
        with self.name_scope():
            self.features = nn.HybridSequential(prefix='features_')
            with self.features.name_scope():
                _add_conv(self.features, int(8 * multiplier), kernel=3, stride=2, pad=1)
                in_channels_group = [int(x * multiplier) for x in [8, 4, 6, 6]]
                channels_group = [int(x * multiplier) for x in [4, 6, 6, 8]]
                ts = [1, 2, 2, 2]
                strides = [1, 2, 1, 2]
                for in_c, c, t, s in zip(in_channels_group, channels_group, ts, strides):
                    self.features.add(LinearBottleneck(in_channels=in_c, channels=c,
                                                       t=t, stride=s))
                self.features.add(nn.GlobalAvgPool2D())
            self.output = nn.HybridSequential(prefix='output_')
            with self.output.name_scope():
                self.output.add(nn.Conv2D(classes, 1, use_bias=False, prefix='pred_'),
                                nn.Flatten())

    def hybrid_forward(self, F, x):
        x = self.features(x)
        x = self.output(x)
        return x


def build():
    return MobileNetV2Tiny(classes=7, prefix='mobilenetv20_'), [(2, 3, 16, 16)]
