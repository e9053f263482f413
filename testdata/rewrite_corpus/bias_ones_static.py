"""Hazards: static-creation, eager-ns, broadcast-arith. Exact rewrite: yes.

A residual adapter adding a constant shift made with `nd.ones` of a static shape; F.ones of
the same shape and a broadcast add are exact.
"""
from mxnet import gluon, nd
from mxnet.gluon import nn


class ShiftedAdapter(gluon.HybridBlock):
    """Dense(x) + 0.5 * ones(1, units)."""

    def __init__(self, units, **kwargs):
        super(ShiftedAdapter, self).__init__(**kwargs)
        self._units = units
        with self.name_scope():
            self.fc = nn.Dense(units)

    def hybrid_forward(self, F, x):
        return self.fc(x) + 0.5 * nd.ones((1, self._units))


EXAMPLES = {"ShiftedAdapter": {"kwargs": {"units": 3}, "args": [[2, 4]]}}
