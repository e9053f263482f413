"""Hazards: shape-scalar, broadcast-arith. Exact rewrite: yes.

Hand-written layer normalization (as in small NLP repos): mean and variance as sums divided
by the last dim read from the shape, then non-broadcast arithmetic; F.mean / a
shape_array-based divisor and broadcast ops are exact.
"""
from mxnet import gluon, init


class SimpleLayerNorm(gluon.HybridBlock):
    """gamma * (x - mean) / sqrt(var + eps) + beta over the last axis."""

    def __init__(self, units, eps=1e-5, **kwargs):
        super(SimpleLayerNorm, self).__init__(**kwargs)
        self._eps = eps
        with self.name_scope():
            self.gamma = self.params.get('gamma', shape=(units,), init=init.One())
            self.beta = self.params.get('beta', shape=(units,), init=init.Zero())

    def hybrid_forward(self, F, x, gamma, beta):
        mean = x.sum(axis=-1, keepdims=True) / x.shape[-1]
        centered = x - mean
        var = (centered ** 2).sum(axis=-1, keepdims=True) / x.shape[-1]
        normed = centered / F.sqrt(var + self._eps)
        return F.broadcast_add(F.broadcast_mul(normed, gamma), beta)


EXAMPLES = {"SimpleLayerNorm": {"kwargs": {"units": 5}, "args": [[2, 3, 5]]}}
