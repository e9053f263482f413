"""Hazards: param-data, broadcast-arith. Exact rewrite: yes.

Learnable residual scale (ReZero / LayerScale style) read with `self.gamma.data()` inside
hybrid_forward although Gluon passes it as the `gamma` argument; using the argument is exact.
"""
from mxnet import gluon, init
from mxnet.gluon import nn


class LayerScaleResidual(gluon.HybridBlock):
    """x + gamma * Dense(x), gamma a learned per-channel scale."""

    def __init__(self, units, **kwargs):
        super(LayerScaleResidual, self).__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(units, flatten=False)
            self.gamma = self.params.get('gamma', shape=(units,), init=init.Constant(0.1))

    def hybrid_forward(self, F, x, gamma):
        return x + F.broadcast_mul(self.fc(x), self.gamma.data())


EXAMPLES = {"LayerScaleResidual": {"kwargs": {"units": 4}, "args": [[2, 3, 4]]}}
