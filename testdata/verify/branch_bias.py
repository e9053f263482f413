"""A layer whose bias path runs only with `use_bias=True`; the example builds it without, so
the rewrite of that branch is not run by any example: its safe fix (`y` is a fresh Dense
output, no other name sees the in-place update) is checked by running the statement alone
("proven at expression level only"); an unsafe fix there would not be applied."""
from mxnet import gluon
from mxnet.gluon import nn


class MaybeBias(gluon.HybridBlock):
    def __init__(self, units=4, use_bias=False, **kwargs):
        super().__init__(**kwargs)
        self._use_bias = use_bias
        with self.name_scope():
            self.dense = nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, x, bias):
        y = self.dense(x)
        if self._use_bias:
            y *= F.sigmoid(bias)
        return y
