"""Hazards: tile-broadcast. Exact rewrite: yes.

Learned positional embedding added with broadcast_to the input's shape (BERT-style, fixed
length); F.broadcast_like(pos, x) does the same broadcast.
"""
from mxnet import gluon, init


class LearnedPositionalEmbedding(gluon.HybridBlock):
    """x + pos_embed, the (1, L, C) embedding broadcast over the batch."""

    def __init__(self, max_length, units, **kwargs):
        super(LearnedPositionalEmbedding, self).__init__(**kwargs)
        with self.name_scope():
            self.pos_embed = self.params.get('pos_embed', shape=(1, max_length, units),
                                             init=init.Normal(0.02))

    def hybrid_forward(self, F, x, pos_embed):
        return x + F.broadcast_to(pos_embed, x.shape)


EXAMPLES = {"LearnedPositionalEmbedding": {"kwargs": {"max_length": 6, "units": 4},
                                           "args": [[2, 6, 4]]}}
