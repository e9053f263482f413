"""Multi-head scaled dot-product attention with a key mask (GluonNLP style, hybridize-safe).

Heads are split and merged with reshape's special codes (-4, -3, 0) rather than reading
`.shape`, and masked positions get a large negative score through arithmetic on the mask
instead of boolean indexing, so the same code traces into one graph.
"""
import math

import mxnet as mx
from mxnet import gluon
from mxnet.gluon import nn


class MultiHeadAttention(gluon.HybridBlock):
    """softmax(QK^T / sqrt(d) + mask_bias) V over `num_heads` heads, then an output Dense."""

    def __init__(self, units, num_heads, dropout=0.0, **kwargs):
        super(MultiHeadAttention, self).__init__(**kwargs)
        assert units % num_heads == 0
        self._units = units
        self._num_heads = num_heads
        self._scale = 1.0 / math.sqrt(units // num_heads)
        with self.name_scope():
            self.proj_query = nn.Dense(units, flatten=False, use_bias=False, prefix='query_')
            self.proj_key = nn.Dense(units, flatten=False, use_bias=False, prefix='key_')
            self.proj_value = nn.Dense(units, flatten=False, use_bias=False, prefix='value_')
            self.proj_out = nn.Dense(units, flatten=False, prefix='out_')
            self.dropout = nn.Dropout(dropout)

    def _split_heads(self, F, x):
        # (B, L, units) -> (B * heads, L, units / heads)
        x = F.reshape(x, shape=(0, 0, self._num_heads, -1))
        x = F.transpose(x, axes=(0, 2, 1, 3))
        return F.reshape(x, shape=(-3, 0, 0))

    def hybrid_forward(self, F, query, key, mask):
        # query (B, Lq, C), key (B, Lk, C), mask (B, Lq, Lk) with 1 = attend, 0 = masked
        q = self._split_heads(F, self.proj_query(query))
        k = self._split_heads(F, self.proj_key(key))
        v = self._split_heads(F, self.proj_value(key))
        scores = F.batch_dot(q, k, transpose_b=True) * self._scale
        mask = F.broadcast_axis(F.expand_dims(mask, axis=1), axis=1, size=self._num_heads)
        mask = F.reshape(mask, shape=(-3, 0, 0))
        scores = scores + (1 - mask) * -1e9
        attn = self.dropout(F.softmax(scores, axis=-1) * mask)
        context = F.batch_dot(attn, v)
        # (B * heads, Lq, d) -> (B, Lq, units)
        context = F.reshape(context, shape=(-4, -1, self._num_heads, 0, 0))
        context = F.transpose(context, axes=(0, 2, 1, 3))
        context = F.reshape(context, shape=(0, 0, -1))
        return self.proj_out(context), attn


def build():
    net = MultiHeadAttention(units=12, num_heads=3, prefix='mha_')
    return net, [(2, 4, 12), (2, 5, 12), (2, 4, 5)]


def example_inputs(rng):
    """Query, key and a 0/1 mask hiding the last key positions of the second sample."""
    query = rng.normal(size=(2, 4, 12)).astype('float32')
    key = rng.normal(size=(2, 5, 12)).astype('float32')
    mask = rng.uniform(size=(2, 4, 5)) > 0.3
    mask[1, :, 3:] = False
    mask[:, :, 0] = True
    return [query, key, mask.astype('float32')]
