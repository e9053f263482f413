"""Transformer input layer: token embedding, scaling, sinusoidal positions, dropout, norm.

The sinusoid table is computed once with numpy and stored as a Constant; the forward pass
cuts it to the sequence length with `slice_like` (not `x.shape[1]`), which keeps it
hybridizable for any sequence length up to `max_length`.
"""
import numpy as np

import mxnet as mx
from mxnet import gluon
from mxnet.gluon import nn


def sinusoid_table(max_length, units):
    position = np.arange(max_length)[:, None]
    channel = np.arange(units)[None, :]
    angle = position / np.power(10000, 2 * (channel // 2) / units)
    table = np.where(channel % 2 == 0, np.sin(angle), np.cos(angle))
    return table.astype('float32')


class TransformerInput(gluon.HybridBlock):
    """embed(tokens) * sqrt(units) + position table, then dropout and layer norm."""

    def __init__(self, vocab_size, units, max_length=64, dropout=0.1, **kwargs):
        super(TransformerInput, self).__init__(**kwargs)
        self._scale = float(np.sqrt(units))
        with self.name_scope():
            self.embed = nn.Embedding(vocab_size, units)
            self.pos_table = self.params.get_constant(
                'pos_table', sinusoid_table(max_length, units)[None])
            self.dropout = nn.Dropout(dropout)
            self.norm = nn.LayerNorm(in_channels=units)

    def hybrid_forward(self, F, tokens, pos_table):
        x = self.embed(tokens) * self._scale
        positions = F.slice_like(pos_table, x, axes=(1,))
        x = F.broadcast_add(x, positions)
        return self.norm(self.dropout(x))


def build():
    net = TransformerInput(vocab_size=20, units=8, max_length=16, prefix='txin_')
    return net, [(3, 7)]


def example_inputs(rng):
    return [rng.randint(0, 20, size=(3, 7)).astype('float32')]
