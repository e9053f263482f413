"""Hazards: multi-hazard-line, inplace, reshape-codes. Exact rewrite: yes.

Transformer FFN residual written in place with a shape-built reshape on the right-hand side;
`h = h + y.reshape((0, -1, units))` rewrites the line.
"""
from mxnet import gluon
from mxnet.gluon import nn


class PositionwiseFFN(gluon.HybridBlock):
    """h + Dense2(relu(Dense1(h))) on (B, L, units), the FFN run on the flattened steps."""

    def __init__(self, units, hidden, **kwargs):
        super(PositionwiseFFN, self).__init__(**kwargs)
        self._units = units
        with self.name_scope():
            self.ffn_1 = nn.Dense(hidden, activation='relu')
            self.ffn_2 = nn.Dense(units)

    def hybrid_forward(self, F, x):
        h = F.identity(x)
        h += self.ffn_2(self.ffn_1(x.reshape((-3, 0)))).reshape((x.shape[0], -1, self._units))
        return h


EXAMPLES = {"PositionwiseFFN": {"kwargs": {"units": 4, "hidden": 6}, "args": [[2, 3, 4]]}}
