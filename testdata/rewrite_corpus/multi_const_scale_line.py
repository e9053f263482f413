"""Hazards: multi-hazard-line, const-array, shape-scalar, broadcast-arith. Exact rewrite: yes.

Input embedding shifted by a literal offset array and scaled by units ** -0.5 taken from the
shape in one expression; get_constant, a broadcast op and the units constant rewrite it.
"""
from mxnet import gluon, nd
from mxnet.gluon import nn


class ShiftedScaledEmbedding(gluon.HybridBlock):
    """(embed(tokens) - offset) * units ** -0.5."""

    def __init__(self, vocab_size, units, **kwargs):
        super(ShiftedScaledEmbedding, self).__init__(**kwargs)
        with self.name_scope():
            self.embed = nn.Embedding(vocab_size, units)

    def hybrid_forward(self, F, tokens):
        h = self.embed(tokens)
        return (h - nd.array([0.5, -0.5, 0.25, 0.0])) * h.shape[-1] ** -0.5


EXAMPLES = {"ShiftedScaledEmbedding": {"kwargs": {"vocab_size": 7, "units": 4},
                                       "args": [{"shape": [2, 3], "dtype": "int32", "high": 7}]}}
