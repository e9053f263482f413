"""Hazards: ndim-axis, broadcast-arith. Exact rewrite: yes.

Attention pooling that appends a trailing axis with `axis=score.ndim` to weight the values;
axis=-1 is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class AttentionPooling(gluon.HybridBlock):
    """sum_t softmax(w . x_t) x_t over a (B, T, C) sequence."""

    def __init__(self, **kwargs):
        super(AttentionPooling, self).__init__(**kwargs)
        with self.name_scope():
            self.score = nn.Dense(1, flatten=False, use_bias=False)

    def hybrid_forward(self, F, x):
        score = F.softmax(self.score(x).reshape((0, 0)), axis=1)
        weights = F.expand_dims(score, axis=score.ndim)
        return F.sum(x * weights, axis=1)


EXAMPLES = {"AttentionPooling": {"args": [[2, 4, 3]]}}
