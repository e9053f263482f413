"""Mean-centering as in many normalisation layers: `x - mean` between (N, C) and (N, 1)
broadcasts eagerly and fails hybridized (HL007, fixed with F.broadcast_sub)."""
from mxnet import gluon
from mxnet.gluon import nn


class CenterNorm(gluon.HybridBlock):
    def __init__(self, units=6, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.proj = nn.Dense(units)

    def hybrid_forward(self, F, x):
        h = self.proj(x)
        mean = h.mean(axis=1, keepdims=True)
        centered = h - mean
        var = (centered * centered).mean(axis=1, keepdims=True)
        return centered / F.sqrt(var + 1e-5)
