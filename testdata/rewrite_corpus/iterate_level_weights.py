"""Hazards: tensor-iteration. Exact rewrite: yes.

BiFPN-style weighted fusion iterating over a stacked (levels, B, C, H, W) tensor with zip;
the number of levels is static (len(self._weights)), so F.split(..., num_outputs=levels,
axis=0, squeeze_axis=True) is exact.
"""
from mxnet import gluon


class WeightedLevelFusion(gluon.HybridBlock):
    """sum_i w_i * level_i with fixed fusion weights."""

    def __init__(self, weights, **kwargs):
        super(WeightedLevelFusion, self).__init__(**kwargs)
        self._weights = weights

    def hybrid_forward(self, F, stacked):
        fused = [w * level for w, level in zip(self._weights, stacked)]
        return F.add_n(*fused)


EXAMPLES = {"WeightedLevelFusion": {"kwargs": {"weights": [0.5, 0.3, 0.2]},
                                    "args": [[3, 2, 2, 2, 2]]}}
