"""A ResNet-v1 basic block (as in GluonCV's BasicBlockV1), written the hybridize-safe way.

Two 3x3 conv + BatchNorm layers, an optional 1x1 projection shortcut when the stride or the
channel count changes, and the residual sum before the final ReLU.
"""
import mxnet as mx
from mxnet import gluon
from mxnet.gluon import nn


class BasicBlockV1(gluon.HybridBlock):
    """Residual block: relu(bn(conv(relu(bn(conv(x))))) + shortcut(x))."""

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
        if self.downsample:
            residual = self.downsample(residual)
        return F.Activation(residual + x, act_type='relu')


def build():
    """The model and the shapes of its example inputs."""
    net = nn.HybridSequential(prefix='resnet_')
    with net.name_scope():
        net.add(BasicBlockV1(8, 1, downsample=True, in_channels=3))
        net.add(BasicBlockV1(8, 1))
        net.add(BasicBlockV1(16, 2, downsample=True, in_channels=8))
        net.add(nn.GlobalAvgPool2D())
        net.add(nn.Dense(10))
    return net, [(2, 3, 16, 16)]
