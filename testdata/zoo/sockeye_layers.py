"""Sockeye-style layers (Python 3, type annotations): hybridize-safe as written.

Module-level helpers take ``F`` and build reshape shapes from lists (``[-3] + dims``); the
abstract ``hybrid_forward`` of a mixin is overridden under multiple inheritance; the
Parameter's ``dtype`` (static, not a tensor attribute) picks a branch; dropout is applied
through a ternary on a float set in ``__init__``; the large negative mask value is looked up
in a dict by the dtype string; lengths become per-head with ``F.repeat``.
"""
from abc import abstractmethod
from typing import Optional, Tuple

import mxnet as mx

LARGE_VALUES = {'float32': 99999999.0, 'float16': 1.0e4}


def split_heads(F, x: mx.sym.Symbol, depth_per_head: int, heads: int) -> mx.sym.Symbol:
    """(batch, length, depth) -> (batch * heads, length, depth_per_head)."""
    x = F.reshape(x, shape=(0, -1, heads, depth_per_head))
    x = F.transpose(x, axes=(0, 2, 1, 3))
    return F.reshape(x, shape=(-3, -1, depth_per_head))


def combine_heads(F, x: mx.sym.Symbol, depth_per_head: int, heads: int) -> mx.sym.Symbol:
    """(batch * heads, length, depth_per_head) -> (batch, length, depth)."""
    x = F.reshape(x, shape=(-4, -1, heads, 0, depth_per_head))
    x = F.transpose(x, axes=(0, 2, 1, 3))
    return F.reshape(x, shape=(-1, 0, depth_per_head * heads))


def broadcast_to_heads(F, x: mx.sym.Symbol, num_heads: int, ndim: int,
                       fold_heads: bool = True) -> mx.sym.Symbol:
    """(batch, d1 ... dn-1) -> (batch * heads, d1 ... dn-1)."""
    dims = [0] * (ndim - 1)
    x = F.expand_dims(x, axis=1)
    x = F.repeat(x, repeats=num_heads, axis=1)
    if fold_heads:
        return F.reshape(x, shape=[-3] + dims)
    return x


class AutoregressiveLayer(mx.gluon.HybridBlock):
    @property
    @abstractmethod
    def num_state_tensors(self) -> int:
        raise NotImplementedError

    @abstractmethod
    def hybrid_forward(self, F, inputs: mx.sym.Symbol, previous_states: mx.sym.Symbol,
                       *args) -> Tuple:
        raise NotImplementedError


class DotAttentionCell(mx.gluon.HybridBlock):
    def __init__(self, dropout: float = 0.0, prefix: str = '') -> None:
        super().__init__(prefix=prefix)
        self.dropout = dropout
        self._dtype = 'float32'

    def hybrid_forward(self, F, queries, keys, values, lengths=None, bias=None):
        # (batch * heads, lq, lk)
        logits = F.batch_dot(F.contrib.div_sqrt_dim(queries), keys, transpose_b=True)
        if lengths is not None:
            # mask the key axis: SequenceMask wants it first
            logits = F.transpose(logits, axes=(2, 0, 1))
            logits = F.SequenceMask(logits, use_sequence_length=True, sequence_length=lengths,
                                    value=-LARGE_VALUES[self._dtype])
            logits = F.transpose(data=logits, axes=(1, 2, 0))
        if bias is not None:
            logits = F.broadcast_add(logits, bias)
        probs = F.softmax(logits, axis=-1)
        probs = F.Dropout(probs, p=self.dropout) if self.dropout > 0.0 else probs
        return F.batch_dot(probs, values)


class OutputLayer(mx.gluon.HybridBlock):
    def __init__(self, hidden_size: int, vocab_size: int, dtype: str = 'float32',
                 prefix: str = 'logits_') -> None:
        super().__init__(prefix=prefix)
        self.vocab_size = vocab_size
        with self.name_scope():
            self.weight = self.params.get('weight', shape=(vocab_size, hidden_size), dtype=dtype)
            self.bias = self.params.get('bias', shape=(vocab_size,), init='zeros', dtype=dtype)

    def hybrid_forward(self, F, data, weight, bias):
        if self.weight.dtype == 'int8':
            raise NotImplementedError('int8 output layers need intgemm')
        return F.FullyConnected(data=data, num_hidden=self.vocab_size, weight=weight, bias=bias,
                                flatten=False, name='logits')


class MultiHeadSelfAttention(AutoregressiveLayer):
    def __init__(self, prefix: str, depth_att: int = 8, heads: int = 2, depth_out: int = 8,
                 dropout: float = 0.0) -> None:
        super().__init__(prefix=prefix)
        self.depth = depth_att
        self.heads = heads
        self.depth_per_head = self.depth // self.heads
        with self.name_scope():
            self.dot_att = DotAttentionCell(dropout=dropout, prefix='dot_att_')
            self.ff_in = mx.gluon.nn.Dense(in_units=depth_att, units=depth_att * 3,
                                           flatten=False, use_bias=False, prefix='i2h_')
            self.ff_out = mx.gluon.nn.Dense(in_units=depth_att, units=depth_out, flatten=False,
                                            use_bias=False, prefix='h2o_')

    @property
    def num_state_tensors(self) -> int:
        return 0

    def _attend(self, F, queries, keys, values, lengths: Optional[mx.sym.Symbol] = None):
        lengths = broadcast_to_heads(F, lengths, self.heads, ndim=1,
                                     fold_heads=True) if lengths is not None else lengths
        contexts = self.dot_att(queries, keys, values, lengths)
        contexts = combine_heads(F, contexts, self.depth_per_head, self.heads)
        return self.ff_out(contexts)

    def hybrid_forward(self, F, inputs, previous_states, *args):
        # inputs (batch, length, depth); args[0] holds the valid lengths (batch,)
        combined = self.ff_in(inputs)
        queries, keys, values = F.split(combined, num_outputs=3, axis=2)
        queries = split_heads(F, queries, self.depth_per_head, self.heads)
        keys = split_heads(F, keys, self.depth_per_head, self.heads)
        values = split_heads(F, values, self.depth_per_head, self.heads)
        lengths = args[0] if args else None
        return self._attend(F, queries, keys, values, lengths), previous_states


class TinyDecoderStep(mx.gluon.HybridBlock):
    def __init__(self, depth: int = 8, vocab: int = 11, **kwargs) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            self.att = MultiHeadSelfAttention('att_self_', depth_att=depth, heads=2,
                                              depth_out=depth)
            self.output_layer = OutputLayer(depth, vocab)

    def hybrid_forward(self, F, inputs, lengths):
        hidden, _ = self.att(inputs, inputs * 0, lengths)
        return self.output_layer(hidden + inputs)


def build():
    return TinyDecoderStep(prefix='decoder_'), [(2, 5, 8), (2,)]


def example_inputs(rng):
    return [rng.normal(size=(2, 5, 8)).astype('float32'),
            rng.randint(1, 6, size=(2,)).astype('float32')]
