"""Column selection by indexing: HL003's fix target in the wrong-rewrite tests."""
from mxnet import gluon
from mxnet.gluon import nn


class PickColumn(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.proj = nn.Dense(4, flatten=False)

    def hybrid_forward(self, F, x):
        h = self.proj(x)
        return h[:, 1]
