"""Feature pyramid top-down path and a segmentation head (GluonCV FPN / FCN style).

Hybridize-safe as written: upsampled maps are cropped to the lateral map with ``slice_like``
(never by reading ``.shape``), pooled context is spread with ``broadcast_like``, and the
debug check that reads shapes is guarded by ``isinstance(x, mx.nd.NDArray)`` (eager only).
The outputs are returned as a tuple, coarse to fine.
"""
import mxnet as mx
from mxnet.gluon import nn
from mxnet.gluon.nn import HybridBlock


class _ConvBNReLU(HybridBlock):
    def __init__(self, channels, kernel_size=3, **kwargs):
        super(_ConvBNReLU, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(channels, kernel_size, padding=kernel_size // 2,
                                  use_bias=False)
            self.bn = nn.BatchNorm()

    def hybrid_forward(self, F, x):
        return F.relu(self.bn(self.conv(x)))


class FPNTopDown(HybridBlock):
    """P_i = lateral_i(C_i) + upsample(P_{i+1}), cropped to C_i."""

    def __init__(self, num_filters=8, num_levels=3, **kwargs):
        super(FPNTopDown, self).__init__(**kwargs)
        self._num_levels = num_levels
        with self.name_scope():
            self.laterals = nn.HybridSequential(prefix='lateral_')
            self.smooth = nn.HybridSequential(prefix='smooth_')
            for _ in range(num_levels):
                self.laterals.add(nn.Conv2D(num_filters, 1))
                self.smooth.add(_ConvBNReLU(num_filters))

    def _merge(self, F, top, lateral):
        up = F.UpSampling(top, scale=2, sample_type='nearest')
        up = F.slice_like(up, lateral, axes=(2, 3))
        return up + lateral

    def hybrid_forward(self, F, c3, c4, c5):
        if isinstance(c3, mx.nd.NDArray):
            assert c3.shape[2] >= c4.shape[2] >= c5.shape[2], (c3.shape, c4.shape, c5.shape)
        feats = [c5, c4, c3]
        outputs = []
        top = None
        for i in range(self._num_levels):
            lateral = self.laterals[i](feats[i])
            top = lateral if top is None else self._merge(F, top, lateral)
            outputs.append(self.smooth[i](top))
        return tuple(outputs)


class ContextSegHead(HybridBlock):
    """FCN-like head with global context: x + broadcast(global_avg(x)), then 1x1 classifier."""

    def __init__(self, nclass, in_channels=8, **kwargs):
        super(ContextSegHead, self).__init__(**kwargs)
        with self.name_scope():
            self.fpn = FPNTopDown(num_filters=in_channels, prefix='fpn_')
            self.context = nn.Conv2D(in_channels, 1, in_channels=in_channels)
            self.classifier = nn.Conv2D(nclass, 1, in_channels=in_channels)

    def hybrid_forward(self, F, c3, c4, c5):
        p5, p4, p3 = self.fpn(c3, c4, c5)
        pooled = F.Pooling(p3, kernel=(1, 1), global_pool=True, pool_type='avg')
        context = F.broadcast_like(self.context(pooled), p3)
        return self.classifier(p3 + context), p4, p5


def build():
    net = ContextSegHead(nclass=3, prefix='seg_')
    return net, [(2, 4, 9, 9), (2, 6, 5, 5), (2, 6, 3, 3)]
