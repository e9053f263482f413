"""Squeeze-and-excitation and dense blocks (GluonCV SE-ResNet / DenseNet style).

Hybridize-safe as written: the excitation weights are broadcast onto the feature map with
``F.broadcast_mul``; the dense block concatenates along channels; an eager-only statistics
hook sits behind ``if F is nd:`` where ``nd`` is ``import mxnet.ndarray as nd``.
"""
import logging

import mxnet.ndarray as nd
from mxnet.gluon import nn
from mxnet.gluon.contrib.nn import HybridConcurrent, Identity
from mxnet.gluon.block import HybridBlock

LOG = logging.getLogger(__name__)


class SEModule(HybridBlock):
    def __init__(self, channels, reduction=4, **kwargs):
        super(SEModule, self).__init__(**kwargs)
        with self.name_scope():
            self.fc1 = nn.Conv2D(channels // reduction, kernel_size=1, padding=0)
            self.relu1 = nn.Activation('relu')
            self.fc2 = nn.Conv2D(channels, kernel_size=1, padding=0)
            self.sigmoid = nn.Activation('sigmoid')

    def hybrid_forward(self, F, x):
        w = F.Pooling(x, kernel=(1, 1), global_pool=True, pool_type='avg')
        w = self.fc1(w)
        w = self.relu1(w)
        w = self.fc2(w)
        w = self.sigmoid(w)
        if F is nd:
            LOG.debug('SE gate mean %.3f', w.mean().asscalar())
        x = F.broadcast_mul(x, w)
        return x


def _make_dense_layer(growth_rate, bn_size, dropout):
    new_features = nn.HybridSequential(prefix='')
    new_features.add(nn.BatchNorm())
    new_features.add(nn.Activation('relu'))
    new_features.add(nn.Conv2D(bn_size * growth_rate, kernel_size=1, use_bias=False))
    new_features.add(nn.BatchNorm())
    new_features.add(nn.Activation('relu'))
    new_features.add(nn.Conv2D(growth_rate, kernel_size=3, padding=1, use_bias=False))
    if dropout:
        new_features.add(nn.Dropout(dropout))

    out = HybridConcurrent(axis=1, prefix='')
    out.add(Identity())
    out.add(new_features)
    return out


class DenseSEStage(HybridBlock):
    def __init__(self, num_layers=2, growth_rate=4, bn_size=2, in_channels=6, **kwargs):
        super(DenseSEStage, self).__init__(**kwargs)
        self._num_layers = num_layers
        with self.name_scope():
            self.layers = nn.HybridSequential(prefix='stage_')
            with self.layers.name_scope():
                for _ in range(num_layers):
                    self.layers.add(_make_dense_layer(growth_rate, bn_size, 0))
            self.se = SEModule(in_channels + num_layers * growth_rate, prefix='se_')
            self.transition = nn.Conv2D(in_channels, kernel_size=1, use_bias=False)

    def hybrid_forward(self, F, x):
        out = self.layers(x)
        out = self.se(out)
        out = F.concat(out, x, dim=1)
        return F.Pooling(self.transition(out), kernel=(2, 2), stride=(2, 2), pool_type='avg')


def build():
    return DenseSEStage(prefix='dense_'), [(2, 6, 8, 8)]
