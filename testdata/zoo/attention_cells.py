"""Attention cells sharing one hybrid_forward through inheritance (GluonNLP style).

Hybridize-safe as written. The base class's ``hybrid_forward`` calls ``self._compute_weight``
and ``self._read_by_weight``, which the subclasses override (they define no hybrid_forward of
their own); ``forward``/``__call__`` are overridden to fill a default value; the multi-head
cell calls the helpers of the cell it wraps (``self._base_cell._compute_weight(F, ...)``);
masks are valid lengths fed to ``F.softmax(..., length=, use_length=True)``.
"""
from mxnet.gluon import nn
from mxnet.gluon.block import HybridBlock


def _masked_softmax(F, att_score, mask):
    """Softmax over the last axis, ignoring positions at or past the valid length `mask`."""
    if mask is not None:
        return F.softmax(att_score, length=mask, use_length=True, axis=-1)
    return F.softmax(att_score, axis=-1)


class AttentionCell(HybridBlock):
    def __init__(self, prefix=None, params=None):
        super(AttentionCell, self).__init__(prefix=prefix, params=params)

    def _compute_weight(self, F, query, key, mask=None):
        raise NotImplementedError

    def _read_by_weight(self, F, att_weights, value):
        return F.batch_dot(att_weights, value)

    def __call__(self, query, key, value=None, mask=None):  # pylint: disable=arguments-differ
        return super(AttentionCell, self).__call__(query, key, value, mask)

    def forward(self, query, key, value=None, mask=None):  # pylint: disable=arguments-differ
        if value is None:
            value = key
        if mask is None:
            return super(AttentionCell, self).forward(query, key, value)
        return super(AttentionCell, self).forward(query, key, value, mask)

    def hybrid_forward(self, F, query, key, value, mask=None):  # pylint: disable=arguments-differ
        att_weights = self._compute_weight(F, query, key, mask)
        context_vec = self._read_by_weight(F, att_weights, value)
        return context_vec, att_weights


class MLPAttentionCell(AttentionCell):
    """score = v tanh(W_q q + W_k k), the query and key broadcast against each other."""

    def __init__(self, units, act=None, dropout=0.0, prefix=None, params=None):
        super(MLPAttentionCell, self).__init__(prefix=prefix, params=params)
        self._units = units
        with self.name_scope():
            self._act = act if act is not None else nn.Activation('tanh')
            self._dropout_layer = nn.Dropout(dropout)
            self._query_mid_layer = nn.Dense(units=self._units, flatten=False, prefix='query_')
            self._key_mid_layer = nn.Dense(units=self._units, flatten=False, use_bias=False,
                                           prefix='key_')
            self._attention_score = nn.Dense(units=1, in_units=self._units, flatten=False,
                                             use_bias=False, prefix='score_')

    def _compute_weight(self, F, query, key, mask=None):
        mapped_query = self._query_mid_layer(query)
        mapped_key = self._key_mid_layer(key)
        mid_feat = F.broadcast_add(F.expand_dims(mapped_query, axis=2),
                                   F.expand_dims(mapped_key, axis=1))
        mid_feat = self._act(mid_feat)
        att_score = self._attention_score(mid_feat).reshape(shape=(0, 0, 0))
        return self._dropout_layer(_masked_softmax(F, att_score, mask))


class DotProductAttentionCell(AttentionCell):
    def __init__(self, units=None, scaled=True, prefix=None, params=None):
        super(DotProductAttentionCell, self).__init__(prefix=prefix, params=params)
        self._units = units
        self._scaled = scaled
        if units is not None:
            with self.name_scope():
                self._proj_query = nn.Dense(units=units, flatten=False, prefix='query_')

    def _compute_weight(self, F, query, key, mask=None):
        if self._units is not None:
            query = self._proj_query(query)
        if self._scaled:
            query = F.contrib.div_sqrt_dim(query)
        att_score = F.batch_dot(query, key, transpose_b=True)
        return _masked_softmax(F, att_score, mask)


class MultiHeadAttentionCell(AttentionCell):
    def __init__(self, base_cell, units, num_heads, prefix=None, params=None):
        super(MultiHeadAttentionCell, self).__init__(prefix=prefix, params=params)
        self._base_cell = base_cell
        self._num_heads = num_heads
        with self.name_scope():
            for name in ('query', 'key', 'value'):
                setattr(self, 'proj_{}'.format(name),
                        nn.Dense(units=units, flatten=False, prefix='{}_'.format(name)))

    def _project(self, F, name, x):
        x = getattr(self, 'proj_{}'.format(name))(x)
        x = F.transpose(x.reshape(shape=(0, 0, self._num_heads, -1)), axes=(0, 2, 1, 3))\
            .reshape(shape=(-1, 0, 0), reverse=True)
        return x

    def _compute_weight(self, F, query, key, mask=None):
        query = self._project(F, 'query', query)
        key = self._project(F, 'key', key)
        if mask is not None:
            # valid lengths (B, Lq) -> one row per head (B * heads, Lq)
            mask = F.broadcast_axis(F.expand_dims(mask, axis=1), axis=1, size=self._num_heads)\
                .reshape(shape=(-1, 0), reverse=True)
        att_weights = self._base_cell._compute_weight(F, query, key, mask)
        return att_weights.reshape(shape=(-1, self._num_heads, 0, 0), reverse=True)

    def _read_by_weight(self, F, att_weights, value):
        att_weights = att_weights.reshape(shape=(-1, 0, 0), reverse=True)
        value = self._project(F, 'value', value)
        context_vec = self._base_cell._read_by_weight(F, att_weights, value)
        context_vec = F.transpose(context_vec.reshape(shape=(-1, self._num_heads, 0, 0),
                                                      reverse=True),
                                  axes=(0, 2, 1, 3)).reshape(shape=(0, 0, -1))
        return context_vec


class AttentionStack(HybridBlock):
    """Runs an MLP cell and a multi-head dot-product cell over the same memory."""

    def __init__(self, units=8, num_heads=2, **kwargs):
        super(AttentionStack, self).__init__(**kwargs)
        with self.name_scope():
            self.mlp = MLPAttentionCell(units, prefix='mlp_')
            self.mha = MultiHeadAttentionCell(DotProductAttentionCell(prefix='dot_'), units,
                                              num_heads, prefix='mha_')

    def hybrid_forward(self, F, query, memory, valid_length):
        mlp_context, mlp_weights = self.mlp(query, memory, None, valid_length)
        mha_context, mha_weights = self.mha(mlp_context, memory, memory, valid_length)
        return mha_context, mlp_weights, mha_weights


def build():
    return AttentionStack(prefix='stack_'), [(2, 3, 8), (2, 5, 8), (2, 3)]


def example_inputs(rng):
    lengths = rng.randint(1, 6, size=(2, 1)).astype('int32')
    return [rng.normal(size=(2, 3, 8)).astype('float32'),
            rng.normal(size=(2, 5, 8)).astype('float32'),
            lengths.repeat(3, axis=1)]
