"""A classification head written eagerly, with the hazards HL001-HL004 fix (before fixing).

`tests/test_fixes_end_to_end.py` fixes this file with the real linter and checks, on real MXNet
1.9.1 and on the bundled engine, that the original breaks under hybridize() and that the fixed
file, eager and hybridized, returns the original's eager outputs.
"""
from mxnet import gluon
from mxnet.gluon import nn


def take_cls(tokens):
    """The first token of every sequence (a helper without F)."""
    return tokens[:, 0]


class PoolingHead(gluon.HybridBlock):
    """Mean-pools token features, mixes in the CLS token, and classifies."""

    def __init__(self, units, classes, **kwargs):
        super(PoolingHead, self).__init__(**kwargs)
        self._scale = 0.5
        with self.name_scope():
            self.proj = nn.Dense(units, flatten=False)
            self.out = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        h = self.proj(x)                      # (batch, length, units)
        h = F.relu(h)
        mask = F.ones(h.shape)                # HL001: F.ones_like
        pooled = F.sum(h * mask, axis=1)      # (batch, units)
        pooled *= self._scale                 # HL004: fresh array, safe
        cls = take_cls(h)                     # HL003 in a helper: fluent slice
        last = h[:, -1]                       # HL003: slice_axis(begin=-1, end=None)
        halves = F.split(h, num_outputs=2, axis=2)
        second = halves[-1]                   # HL003: outputs index from the front
        flat = second.reshape((second.shape[0], -1))  # HL001: reshape code 0
        feats = F.concat(pooled, cls, last, flat, dim=1)
        steps = F.arange(x.shape[1])          # HL001: arange_like
        return self.out(feats), steps.T       # HL001: transpose
