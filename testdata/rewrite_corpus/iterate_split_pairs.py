"""Hazards: tensor-iteration, indexing. Exact rewrite: yes.

Pairwise relation module iterating over a (2, B, C) stacked pair with tuple unpacking and
indexing the first element; F.split(..., num_outputs=2, squeeze_axis=True) is exact.

PairScorer is the zoo-style parent that builds the relation module and calls it with
F.stack(a_proj, b_proj): alone, an input that is only unpacked and indexed is taken for a
list of arrays (issue 11's policy, gluon passes those the same way); the parent's call site
is what shows the module gets one stacked tensor.
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


class PairScorer(gluon.HybridBlock):
    """Projects two inputs to a common space and relates them."""

    def __init__(self, hidden=4, units=3, **kwargs):
        super(PairScorer, self).__init__(**kwargs)
        with self.name_scope():
            self.proj_a = nn.Dense(hidden)
            self.proj_b = nn.Dense(hidden)
            self.relation = PairRelation(units)

    def hybrid_forward(self, F, a, b):
        a_proj = self.proj_a(a)
        b_proj = self.proj_b(b)
        return self.relation(F.stack(a_proj, b_proj))


# the parent is the call-site context of issue 11, not a measured block
CONTEXT = ("PairScorer",)

EXAMPLES = {"PairRelation": {"kwargs": {"units": 3}, "args": [[2, 2, 4]]}}
