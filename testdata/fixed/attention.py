"""Multi-head scaled dot-product attention with a key mask, as first written in imperative
style: it runs eagerly, and every marked line breaks or changes meaning under hybridize().

Hazards (rule):
- heads split with `x.reshape((x.shape[0], x.shape[1], heads, -1))` (HL001);
- the BERT-style mask bias `(1.0 - mask) * -1e4` on a (B, 1, Lq, Lk) mask added to
  (B, heads, Lq, Lk) scores, and the mask applied to the attention weights (HL007);
- `mx.nd.softmax` instead of `F.softmax` (HL006);
- the residual connection written in place, `out += query` (HL004);
- the first head's attention map returned as `attn[:, 0]` (HL003).
"""
import math

from mxnet import gluon
from mxnet.gluon import nn


class MultiHeadAttention(gluon.HybridBlock):
    """softmax(QK^T / sqrt(d) + mask_bias) V over `num_heads` heads, output Dense, residual."""

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
        # (B, L, units) -> (B, L, heads, d) -> (B, heads, L, d) -> (B * heads, L, d)
        x = x.reshape((0, 0, self._num_heads, -1))
        x = F.transpose(x, axes=(0, 2, 1, 3))
        return x.reshape((-3, 0, 0))

    def hybrid_forward(self, F, query, key, mask):
        # query (B, Lq, C), key (B, Lk, C), mask (B, Lq, Lk) with 1 = attend, 0 = masked
        q = self._split_heads(F, self.proj_query(query))
        k = self._split_heads(F, self.proj_key(key))
        v = self._split_heads(F, self.proj_value(key))
        scores = F.batch_dot(q, k, transpose_b=True) * self._scale
        scores = scores.reshape((-4, -1, self._num_heads, 0, 0))  # (B, heads, Lq, Lk)
        mask = mask.expand_dims(axis=1)  # (B, 1, Lq, Lk): the same mask for every head
        scores = F.broadcast_add(scores, (1.0 - mask) * -1e4)
        attn = F.broadcast_mul(F.softmax(scores, axis=-1), mask)
        context = F.batch_dot(self.dropout(attn).reshape((-3, 0, 0)), v)
        # (B * heads, Lq, d) -> (B, Lq, units)
        context = context.reshape((-4, -1, self._num_heads, 0, 0))
        context = F.transpose(context, axes=(0, 2, 1, 3)).reshape((0, 0, -1))
        out = self.proj_out(context)
        out = out + query
        return out, F.squeeze(F.slice_axis(attn, axis=1, begin=0, end=1), axis=1)


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
