"""Transformer input layer (token embedding, scaling, sinusoidal positions, padding mask,
dropout, layer norm), written in imperative style: it runs eagerly, and breaks under
hybridize().

Hazards (rule):
- positions made with `F.arange(x.shape[1])` (HL001);
- the (1, L, units) position rows added to the (B, L, units) embeddings with `+` (HL007);
- the padding mask `(tokens != 0).expand_dims(axis=2)` multiplied into the embeddings (HL007);
- scaling in place, `x *= self._scale` (HL004);
- `nd.take` instead of `F.take` (HL006).
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
    """embed(tokens) * sqrt(units) + position table, padding zeroed, dropout, layer norm."""

    def __init__(self, vocab_size, units, max_length=64, dropout=0.1, **kwargs):
        super(TransformerInput, self).__init__(**kwargs)
        self._scale = float(np.sqrt(units))
        with self.name_scope():
            self.embed = nn.Embedding(vocab_size, units)
            self.pos_table = self.params.get_constant('pos_table', sinusoid_table(max_length, units))
            self.dropout = nn.Dropout(dropout)
            self.norm = nn.LayerNorm(in_channels=units)

    def hybrid_forward(self, F, tokens, pos_table):
        x = self.embed(tokens)
        x = x * self._scale
        positions = F.contrib.arange_like(x, axis=1).astype('float32')
        x = F.broadcast_add(x, F.take(pos_table, positions).expand_dims(axis=0))
        x = F.broadcast_mul(
            x, (tokens != 0).expand_dims(axis=2)
        )  # padding (id 0) contributes nothing
        return self.norm(self.dropout(x))


def build():
    net = TransformerInput(vocab_size=20, units=8, max_length=16, prefix='txin_')
    return net, [(3, 7)]


def example_inputs(rng):
    tokens = rng.randint(1, 20, size=(3, 7))
    tokens[1, 5:] = 0
    tokens[2, 3:] = 0
    return [tokens.astype('float32')]
