"""Hazards: state-mutation. Exact rewrite: no (the value depends on how many times the block was called: a traced graph freezes it; the counter would have to become an input).

Noise-annealing layer that counts its calls on `self` and scales its output by a warmup
factor; hybridized, the factor of the first (traced) call is kept forever.
"""
from mxnet import gluon


class WarmupScale(gluon.HybridBlock):
    """x * min(1, step / warmup), step counting the calls."""

    def __init__(self, warmup=4, **kwargs):
        super(WarmupScale, self).__init__(**kwargs)
        self._warmup = warmup
        self._step = 0

    def hybrid_forward(self, F, x):
        self._step += 1
        return x * min(1.0, self._step / self._warmup)


EXAMPLES = {"WarmupScale": {"args": [[2, 3]], "calls": 3}}
