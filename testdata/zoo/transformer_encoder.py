"""Transformer encoder with learned positions and valid lengths (GluonNLP/BERT style).

Hybridize-safe as written: positions come from ``F.contrib.arange_like``; the embedding table's
size is read from the Parameter (``self.position_weight.shape``), which is static; padding is
masked with ``F.SequenceMask`` and an attention mask built with ``F.broadcast_lesser`` /
``F.broadcast_mul``; the feed-forward residual adds tensors of equal shape.
"""
from mxnet import gluon
from mxnet.gluon import nn


def _get_layer_norm(units, epsilon=1e-12):
    return nn.LayerNorm(in_channels=units, epsilon=epsilon)


class PositionwiseFFN(gluon.HybridBlock):
    def __init__(self, units=8, hidden_size=16, dropout=0.0, use_residual=True,
                 activation='relu', **kwargs):
        super(PositionwiseFFN, self).__init__(**kwargs)
        self._units = units
        self._use_residual = use_residual
        with self.name_scope():
            self.ffn_1 = nn.Dense(units=hidden_size, flatten=False, prefix='ffn_1_')
            self.activation = nn.Activation(activation)
            self.ffn_2 = nn.Dense(units=units, flatten=False, prefix='ffn_2_')
            self.dropout_layer = nn.Dropout(dropout)
            self.layer_norm = _get_layer_norm(units)

    def hybrid_forward(self, F, inputs):
        outputs = self.ffn_1(inputs)
        outputs = self.activation(outputs)
        outputs = self.ffn_2(outputs)
        outputs = self.dropout_layer(outputs)
        if self._use_residual:
            outputs = outputs + inputs
        outputs = self.layer_norm(outputs)
        return outputs


class SelfAttentionEncoderCell(gluon.HybridBlock):
    def __init__(self, units=8, num_heads=2, hidden_size=16, **kwargs):
        super(SelfAttentionEncoderCell, self).__init__(**kwargs)
        self._units = units
        self._num_heads = num_heads
        with self.name_scope():
            self.qkv = nn.Dense(3 * units, flatten=False, prefix='qkv_')
            self.proj = nn.Dense(units, flatten=False, prefix='proj_')
            self.layer_norm = _get_layer_norm(units)
            self.ffn = PositionwiseFFN(units=units, hidden_size=hidden_size, prefix='ffn_')

    def hybrid_forward(self, F, inputs, mask):
        # inputs (B, L, C); mask (B, L, L) of 0/1
        qkv = self.qkv(inputs).reshape((0, 0, 3, self._num_heads, -1))
        # (3, B * heads, L, d): one split gives query, key and value
        qkv = F.transpose(qkv, axes=(2, 0, 3, 1, 4)).reshape((0, -3, 0, 0))
        q, k, v = F.split(qkv, num_outputs=3, axis=0, squeeze_axis=True)
        q = F.contrib.div_sqrt_dim(q)
        score = F.batch_dot(q, k, transpose_b=True)
        mask = F.repeat(F.expand_dims(mask, axis=1), repeats=self._num_heads, axis=1)
        mask = mask.reshape((-3, 0, 0))
        score = F.where(mask, score, -1e18 * F.ones_like(score))
        att = F.softmax(score, axis=-1) * mask
        ctx = F.batch_dot(att, v).reshape((-4, -1, self._num_heads, 0, 0))
        ctx = F.transpose(ctx, axes=(0, 2, 1, 3)).reshape((0, 0, -1))
        out = self.layer_norm(self.proj(ctx) + inputs)
        return self.ffn(out)


class BERTStyleEncoder(gluon.HybridBlock):
    def __init__(self, num_layers=2, units=8, max_length=16, **kwargs):
        super(BERTStyleEncoder, self).__init__(**kwargs)
        self._num_layers = num_layers
        self._units = units
        with self.name_scope():
            self.position_weight = self.params.get('position_weight',
                                                   shape=(max_length, units),
                                                   init='normal')
            self.layer_norm = _get_layer_norm(units)
            self.transformer_cells = nn.HybridSequential()
            for i in range(num_layers):
                self.transformer_cells.add(
                    SelfAttentionEncoderCell(units=units, prefix='transformer%d_' % i))

    def hybrid_forward(self, F, inputs, valid_length, position_weight):
        # inputs (B, L, C), valid_length (B,)
        steps = F.contrib.arange_like(inputs, axis=1)
        positional_embed = F.Embedding(steps, position_weight,
                                       input_dim=self.position_weight.shape[0],
                                       output_dim=self.position_weight.shape[1])
        inputs = F.broadcast_add(inputs, F.expand_dims(positional_embed, axis=0))
        inputs = self.layer_norm(inputs)
        mask = F.broadcast_lesser(steps.reshape((1, -1)), valid_length.reshape((-1, 1)))
        mask = F.broadcast_mul(F.expand_dims(mask, axis=1), F.expand_dims(mask, axis=-1))
        outputs = inputs
        all_encodings_outputs = []
        for i in range(self._num_layers):
            cell = self.transformer_cells[i]
            outputs = cell(outputs, mask)
            all_encodings_outputs.append(outputs)
        outputs = F.SequenceMask(outputs, sequence_length=valid_length,
                                 use_sequence_length=True, axis=1)
        pooled = F.SequenceLast(outputs, sequence_length=valid_length,
                                use_sequence_length=True, axis=1)
        return outputs, pooled, all_encodings_outputs[0]


def build():
    return BERTStyleEncoder(num_layers=2, units=8, max_length=16, prefix='bert_'), \
        [(2, 5, 8), (2,)]


def example_inputs(rng):
    return [rng.normal(size=(2, 5, 8)).astype('float32'),
            rng.randint(1, 6, size=(2,)).astype('float32')]
