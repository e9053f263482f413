"""Hazards: creation-like. Exact rewrite: yes.

BERT-style embedding layer: position ids are F.arange of the sequence length read from the
token ids' shape; F.contrib.arange_like(tokens, axis=1) is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class BertEmbedding(gluon.HybridBlock):
    """word embedding + position embedding of position ids 0..L-1."""

    def __init__(self, vocab_size, max_length, units, **kwargs):
        super(BertEmbedding, self).__init__(**kwargs)
        with self.name_scope():
            self.word_embed = nn.Embedding(vocab_size, units)
            self.pos_embed = nn.Embedding(max_length, units)

    def hybrid_forward(self, F, tokens):
        positions = F.arange(tokens.shape[1])
        return F.broadcast_add(self.word_embed(tokens), self.pos_embed(positions).expand_dims(0))


EXAMPLES = {"BertEmbedding": {"kwargs": {"vocab_size": 10, "max_length": 8, "units": 4},
                              "args": [{"shape": [2, 5], "dtype": "int32", "high": 10}]}}
