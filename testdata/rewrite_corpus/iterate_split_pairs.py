"""Hazards: tensor-iteration, indexing. Exact rewrite: yes.

Pairwise relation module iterating over a (2, B, C) stacked pair with tuple unpacking and
indexing the first element; F.split(..., num_outputs=2, squeeze_axis=True) is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class PairRelation(gluon.HybridBlock):
    """Dense(concat(a, b, a * b)) for a stacked pair (a, b)."""

    def __init__(self, units, **kwargs):
        super(PairRelation, self).__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(units)

    def hybrid_forward(self, F, pair):
        a, b = pair
        first = pair[0]
        return self.fc(F.concat(first, b, a * b, dim=-1))


EXAMPLES = {"PairRelation": {"kwargs": {"units": 3}, "args": [[2, 2, 4]]}}
