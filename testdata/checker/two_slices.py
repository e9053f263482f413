"""Two indexing hazards in one block: the verify tests fix them, one deliberately wrongly."""
from mxnet import gluon
from mxnet.gluon import nn


class TwoSlices(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.proj = nn.Dense(6, flatten=False)

    def hybrid_forward(self, F, x):
        h = self.proj(x)
        a = h[:, 1]
        b = h[:, 2:4]
        return a, b
