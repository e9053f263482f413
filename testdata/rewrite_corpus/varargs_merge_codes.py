"""Hazards: varargs-reshape. Exact rewrite: yes.

Sequence-to-batch folding with varargs special codes `x.reshape(-3, -2)` and back with
`y.reshape(-4, -1, steps, -2)`; the tuple forms are exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class FoldedConv1D(gluon.HybridBlock):
    """Run a Conv1D over every step of a (B, T, C, W) input folded into the batch."""

    def __init__(self, channels, steps, **kwargs):
        super(FoldedConv1D, self).__init__(**kwargs)
        self._steps = steps
        with self.name_scope():
            self.conv = nn.Conv1D(channels, 3, padding=1)

    def hybrid_forward(self, F, x):
        y = self.conv(x.reshape(-3, -2))
        return y.reshape(-4, -1, self._steps, -2)


EXAMPLES = {"FoldedConv1D": {"kwargs": {"channels": 2, "steps": 3}, "args": [[2, 3, 4, 5]]}}
