"""ResNetV1b bottleneck stages (GluonCV style): hybridize-safe as written.

Residual adds of same-shape tensors, a downsample branch chosen in ``__init__``, stages built
by a ``_make_layer`` helper, Python 2 compatible ``super(Cls, self).__init__`` calls.
"""
from __future__ import division

from mxnet.gluon import nn
from mxnet.gluon.block import HybridBlock


class BottleneckV1b(HybridBlock):
    """1x1 -> 3x3 -> 1x1 bottleneck with an optional projection shortcut."""
    expansion = 4

    def __init__(self, planes, strides=1, downsample=None, norm_layer=nn.BatchNorm,
                 last_gamma=False, **kwargs):
        super(BottleneckV1b, self).__init__(**kwargs)
        self.conv1 = nn.Conv2D(channels=planes, kernel_size=1, use_bias=False)
        self.bn1 = norm_layer()
        self.relu1 = nn.Activation('relu')
        self.conv2 = nn.Conv2D(channels=planes, kernel_size=3, strides=strides,
                               padding=1, use_bias=False)
        self.bn2 = norm_layer()
        self.relu2 = nn.Activation('relu')
        self.conv3 = nn.Conv2D(channels=planes * 4, kernel_size=1, use_bias=False)
        if not last_gamma:
            self.bn3 = norm_layer()
        else:
            self.bn3 = norm_layer(gamma_initializer='zeros')
        self.relu3 = nn.Activation('relu')
        self.downsample = downsample
        self.strides = strides

    def hybrid_forward(self, F, x):
        residual = x

        out = self.conv1(x)
        out = self.bn1(out)
        out = self.relu1(out)

        out = self.conv2(out)
        out = self.bn2(out)
        out = self.relu2(out)

        out = self.conv3(out)
        out = self.bn3(out)

        if self.downsample is not None:
            residual = self.downsample(x)

        out = out + residual
        out = self.relu3(out)
        return out


class ResNetV1bTiny(HybridBlock):
    """Stem + two stages + classifier; stages come from `_make_layer`."""

    def __init__(self, layers=(1, 1), classes=10, **kwargs):
        super(ResNetV1bTiny, self).__init__(**kwargs)
        self.inplanes = 8
        with self.name_scope():
            self.conv1 = nn.Conv2D(8, kernel_size=3, strides=1, padding=1, use_bias=False)
            self.bn1 = nn.BatchNorm()
            self.relu = nn.Activation('relu')
            self.maxpool = nn.MaxPool2D(pool_size=3, strides=2, padding=1)
            self.layer1 = self._make_layer(1, 4, layers[0])
            self.layer2 = self._make_layer(2, 8, layers[1], strides=2)
            self.avgpool = nn.GlobalAvgPool2D()
            self.flat = nn.Flatten()
            self.fc = nn.Dense(in_units=8 * 4, units=classes)

    def _make_layer(self, stage_index, planes, blocks, strides=1):
        downsample = None
        if strides != 1 or self.inplanes != planes * 4:
            downsample = nn.HybridSequential(prefix='down%d_' % stage_index)
            with downsample.name_scope():
                downsample.add(nn.Conv2D(channels=planes * 4, kernel_size=1,
                                         strides=strides, use_bias=False))
                downsample.add(nn.BatchNorm())
        layer = nn.HybridSequential(prefix='layers%d_' % stage_index)
        with layer.name_scope():
            layer.add(BottleneckV1b(planes, strides, downsample=downsample, prefix=''))
            self.inplanes = planes * 4
            for _ in range(1, blocks):
                layer.add(BottleneckV1b(planes, 1, prefix=''))
        return layer

    def hybrid_forward(self, F, x):
        x = self.conv1(x)
        x = self.bn1(x)
        x = self.relu(x)
        x = self.maxpool(x)

        x = self.layer1(x)
        x = self.layer2(x)

        x = self.avgpool(x)
        x = self.flat(x)
        x = self.fc(x)
        return x


def build():
    return ResNetV1bTiny(layers=(1, 2), classes=5, prefix='resnetv1b_'), [(2, 3, 16, 16)]
