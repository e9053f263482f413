"""Multi-head dot-product attention (GluonNLP style): hybridize-safe as written.

Queries are scaled with ``F.contrib.div_sqrt_dim``; the masked softmax is a module-level
helper taking ``F``; heads are split and merged with reshape's special codes; the weight
computation lives in helper methods ``_compute_weight(self, F, ...)``. An eager-only sanity
check sits behind ``if F is mx.nd:``.
"""
import mxnet as mx
from mxnet.gluon import nn
from mxnet.gluon.block import HybridBlock


def _masked_softmax(F, att_score, mask, dtype):
    """Softmax over the last axis that ignores positions where mask == 0."""
    if mask is not None:
        # Fill in the masked scores with a very small value
        neg = -1e18 if dtype == 'float32' else -1e4
        att_score = F.where(mask, att_score, neg * F.ones_like(att_score))
        att_weights = F.softmax(att_score, axis=-1) * mask
    else:
        att_weights = F.softmax(att_score, axis=-1)
    return att_weights


class DotProductAttentionCell(HybridBlock):
    """score = <q / sqrt(d), k>, optionally projecting query and key first."""

    def __init__(self, units=None, luong_style=False, scaled=True, normalized=False,
                 use_bias=True, dropout=0.0, dtype='float32', prefix=None, params=None):
        super(DotProductAttentionCell, self).__init__(prefix=prefix, params=params)
        self._units = units
        self._scaled = scaled
        self._normalized = normalized
        self._use_bias = use_bias
        self._luong_style = luong_style
        self._dropout = dropout
        self._dtype = dtype
        with self.name_scope():
            self._dropout_layer = nn.Dropout(dropout)
            if self._units is not None:
                self._proj_query = nn.Dense(units=self._units, use_bias=self._use_bias,
                                            flatten=False, prefix='query_')
                if not self._luong_style:
                    self._proj_key = nn.Dense(units=self._units, use_bias=self._use_bias,
                                              flatten=False, prefix='key_')

    def _compute_weight(self, F, query, key, mask=None):
        if self._units is not None:
            query = self._proj_query(query)
            if not self._luong_style:
                key = self._proj_key(key)
        if self._normalized:
            query = F.L2Normalization(query, mode='instance')
            key = F.L2Normalization(key, mode='instance')
        if self._scaled:
            query = F.contrib.div_sqrt_dim(query)

        att_score = F.batch_dot(query, key, transpose_b=True)

        att_weights = self._dropout_layer(_masked_softmax(F, att_score, mask, self._dtype))
        return att_weights

    def _read_by_weight(self, F, att_weights, value):
        return F.batch_dot(att_weights, value)

    def hybrid_forward(self, F, query, key, value=None, mask=None):
        if value is None:
            value = key
        att_weights = self._compute_weight(F, query, key, mask)
        context_vec = self._read_by_weight(F, att_weights, value)
        return context_vec, att_weights


class MultiHeadAttentionCell(HybridBlock):
    """Projects, splits into heads, attends with the base cell and merges the heads."""

    def __init__(self, units, num_heads, use_bias=True, **kwargs):
        super(MultiHeadAttentionCell, self).__init__(**kwargs)
        self._units = units
        self._num_heads = num_heads
        self._use_bias = use_bias
        if self._units % self._num_heads != 0:
            raise ValueError('In MultiHeadAttetion, the units should be divided exactly'
                             ' by the number of heads. Received units={}, num_heads={}'
                             .format(units, num_heads))
        with self.name_scope():
            self._base_cell = DotProductAttentionCell(scaled=True, prefix='base_')
            self.proj_query = nn.Dense(units=self._units, use_bias=self._use_bias,
                                       flatten=False, prefix='query_')
            self.proj_key = nn.Dense(units=self._units, use_bias=self._use_bias,
                                     flatten=False, prefix='key_')
            self.proj_value = nn.Dense(units=self._units, use_bias=self._use_bias,
                                       flatten=False, prefix='value_')

    def _project(self, F, name, x):
        # Shape (batch_size, length, units) -> (batch_size * num_heads, length, ele_units)
        x = getattr(self, 'proj_{}'.format(name))(x)
        x = F.transpose(x.reshape(shape=(0, 0, self._num_heads, -1)), axes=(0, 2, 1, 3))
        x = x.reshape(shape=(-1, 0, 0), reverse=True)
        return x

    def hybrid_forward(self, F, query, key, value=None, mask=None):
        if value is None:
            value = key
        if F is mx.nd:
            assert query.shape[-1] == key.shape[-1], (query.shape, key.shape)
        query = self._project(F, 'query', query)
        key = self._project(F, 'key', key)
        value = self._project(F, 'value', value)
        if mask is not None:
            mask = F.broadcast_axis(F.expand_dims(mask, axis=1),
                                    axis=1, size=self._num_heads)\
                    .reshape(shape=(-1, 0, 0), reverse=True)
        context_vec, att_weights = self._base_cell(query, key, value, mask)
        context_vec = F.transpose(context_vec.reshape(shape=(-1, self._num_heads, 0, 0),
                                                      reverse=True),
                                  axes=(0, 2, 1, 3)).reshape(shape=(0, 0, -1))
        att_weights = att_weights.reshape(shape=(-1, self._num_heads, 0, 0), reverse=True)
        return context_vec, att_weights


def build():
    net = MultiHeadAttentionCell(units=12, num_heads=3, prefix='mhatt_')
    return net, [(2, 4, 12), (2, 5, 12), (2, 5, 12), (2, 4, 5)]


def example_inputs(rng):
    query = rng.normal(size=(2, 4, 12)).astype('float32')
    key = rng.normal(size=(2, 5, 12)).astype('float32')
    value = rng.normal(size=(2, 5, 12)).astype('float32')
    mask = (rng.uniform(size=(2, 4, 5)) > 0.3).astype('float32')
    mask[:, :, 0] = 1
    return [query, key, value, mask]
