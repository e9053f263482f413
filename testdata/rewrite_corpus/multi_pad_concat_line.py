"""Hazards: multi-hazard-line, creation-like, ndim-axis. Exact rewrite: yes.

Decoder feature padded with zeros of (batch, pad) built from the shape and concatenated on
`dim=h.ndim - 1`, in one call; zeros broadcast like axis 0 and dim=-1 rewrite the line.
"""
from mxnet import gluon
from mxnet.gluon import nn


class PaddedProjection(gluon.HybridBlock):
    """concat(Dense(x), zeros(B, pad)) on the last axis."""

    def __init__(self, units, pad, **kwargs):
        super(PaddedProjection, self).__init__(**kwargs)
        self._pad = pad
        with self.name_scope():
            self.fc = nn.Dense(units)

    def hybrid_forward(self, F, x):
        h = self.fc(x)
        return F.concat(h, F.zeros((h.shape[0], self._pad)), dim=h.ndim - 1)


EXAMPLES = {"PaddedProjection": {"kwargs": {"units": 3, "pad": 2}, "args": [[2, 4]]}}
