"""A ResNet-v1 basic block with a squeeze-and-excitation gate, behind an input-normalising stem,
written the way it often is first: fine as imperative code, broken by hybridize().

Hazards (rule):
- ImageNet mean/std made with `nd.array` inside hybrid_forward (HL005) and the
  `(x / 255.0 - mean) / std` arithmetic against their (1, 3, 1, 1) shapes (HL007);
- `nn.Sequential` children of a HybridBlock (HL010) -- MXNet 1.9.1 refuses them as soon as the
  block is built (ValueError: Children of HybridBlock must also be HybridBlock ...);
- the SE gate `x * w.expand_dims(axis=2).expand_dims(axis=3)`, (N, C, H, W) * (N, C, 1, 1)
  (HL007);
- the residual sum written in place, `x += residual` (HL004);
- a debug log of the block output (HL009: logs `<Symbol ...>` once after hybridize, then
  never; reported, left as is);
- the classifier head flattening with `x.reshape((len(x), -1))` (HL009: `len` of a Symbol is
  its number of outputs, 1).
"""
import logging

import mxnet as mx
from mxnet import gluon
from mxnet.gluon import nn


class Normalize(gluon.HybridBlock):
    """0..255 RGB images -> ImageNet-normalised inputs."""

    def __init__(self, **kwargs):
        super(Normalize, self).__init__(**kwargs)
        self.mean = self.params.get_constant('mean', [0.485, 0.456, 0.406])
        self.std = self.params.get_constant('std', [0.229, 0.224, 0.225])

    def hybrid_forward(self, F, x, mean, std):
        mean = mean.reshape((1, 3, 1, 1))
        std = std.reshape((1, 3, 1, 1))
        return F.broadcast_div(F.broadcast_sub(x / 255.0, mean), std)


class BasicBlockV1(gluon.HybridBlock):
    """relu(se(bn(conv(relu(bn(conv(x)))))) + shortcut(x))."""

    def __init__(self, channels, stride, downsample=False, in_channels=0, **kwargs):
        super(BasicBlockV1, self).__init__(**kwargs)
        with self.name_scope():
            self.body = nn.HybridSequential(prefix='')
            self.body.add(nn.Conv2D(channels, kernel_size=3, strides=stride, padding=1,
                                    use_bias=False, in_channels=in_channels))
            self.body.add(nn.BatchNorm())
            self.body.add(nn.Activation('relu'))
            self.body.add(nn.Conv2D(channels, kernel_size=3, strides=1, padding=1,
                                    use_bias=False, in_channels=channels))
            self.body.add(nn.BatchNorm())
            self.se = nn.Dense(channels, in_units=channels, prefix='se_')
            if downsample:
                self.downsample = nn.HybridSequential(prefix='')
                self.downsample.add(nn.Conv2D(channels, kernel_size=1, strides=stride,
                                              use_bias=False, in_channels=in_channels))
                self.downsample.add(nn.BatchNorm())
            else:
                self.downsample = None

    def hybrid_forward(self, F, x):
        residual = x
        x = self.body(x)
        # squeeze-and-excitation: a per-channel gate from the globally pooled features
        w = F.sigmoid(self.se(x.mean(axis=(2, 3))))
        x = F.broadcast_mul(x, w.expand_dims(axis=2).expand_dims(axis=3))
        if self.downsample:
            residual = self.downsample(residual)
        x = x + residual
        logging.debug("block output: %s", x)
        return F.relu(x)


class ClassifierHead(gluon.HybridBlock):
    """Global average pooling, flatten, dense."""

    def __init__(self, classes, **kwargs):
        super(ClassifierHead, self).__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        x = F.Pooling(x, kernel=(1, 1), global_pool=True, pool_type='avg')
        x = x.reshape((0, -1))
        return self.fc(x)


def build():
    """The model and the shapes of its example inputs."""
    net = nn.HybridSequential(prefix='resnet_')
    with net.name_scope():
        net.add(Normalize())
        net.add(BasicBlockV1(8, 1, downsample=True, in_channels=3))
        net.add(BasicBlockV1(8, 1))
        net.add(BasicBlockV1(16, 2, downsample=True, in_channels=8))
        net.add(ClassifierHead(10))
    return net, [(2, 3, 16, 16)]


def example_inputs(rng):
    return [rng.uniform(0, 255, size=(2, 3, 16, 16)).astype('float32')]
