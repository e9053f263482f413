"""Token + position embedding (BERT-style input layer): `F.arange(x.shape[1])` reads the
sequence length from `.shape` (HL001); the fix is F.contrib.arange_like. Integer token ids."""
from mxnet import gluon
from mxnet.gluon import nn


class TokenEmbedding(gluon.HybridBlock):
    def __init__(self, vocab=20, units=8, max_length=32, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.tokens = nn.Embedding(vocab, units)
            self.positions = nn.Embedding(max_length, units)

    def hybrid_forward(self, F, ids):
        steps = F.arange(ids.shape[1])
        pos = self.positions(steps)
        return F.broadcast_add(self.tokens(ids), F.expand_dims(pos, axis=0))
