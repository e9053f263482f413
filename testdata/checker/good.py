"""Blocks that hybridize cleanly: the checker must call them `equal`."""
from mxnet import gluon
from mxnet.gluon import nn


class Residual(gluon.HybridBlock):
    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, x):
        return F.relu(self.dense(x)) + x


class TwoOutputs(gluon.HybridBlock):
    def hybrid_forward(self, F, x, y):
        return F.broadcast_mul(x, y), F.sum(x, axis=1)


def make_residual():
    return Residual(units=4)


class PlainWrapper(gluon.Block):
    """A non-hybrid Block: hybridize() reaches its hybrid child; it has no export()."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.inner = Residual(units=3)

    def forward(self, x):
        return self.inner(x) * 2
