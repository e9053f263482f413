"""Hazards: asscalar. Exact rewrite: yes.

Embedding normalised by the global norm of the batch taken with `.asscalar()`;
F.broadcast_div(x, F.norm(x)) is exact.
"""
from mxnet import gluon


class GlobalNormalize(gluon.HybridBlock):
    """scale * x / ||x|| over the whole batch."""

    def __init__(self, scale=4.0, **kwargs):
        super(GlobalNormalize, self).__init__(**kwargs)
        self._scale = scale

    def hybrid_forward(self, F, x):
        norm = F.norm(x).asscalar()
        return x * (self._scale / norm)


EXAMPLES = {"GlobalNormalize": {"args": [[3, 4]]}}
