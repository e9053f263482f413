"""Two gated heads in one file; the project configures an example for `SwishHead` only.
Both multiply their argument in place (HL004, unsafe: the eager code mutates the caller's
array). Only the fix an example runs is proven; the other is not applied."""
from mxnet import gluon
from mxnet.gluon import nn


class SwishHead(gluon.HybridBlock):
    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, x):
        x *= F.sigmoid(x)
        return self.dense(x)


class CenteredHead(gluon.HybridBlock):
    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, x):
        x -= F.mean(x, axis=-1, keepdims=True)
        return self.dense(x)
