"""Hazards: broadcast-arith. Exact rewrite: yes.

GluonTS-style mean scaler: the per-series scale (B, C) averages the observed absolute
values over time and divides the (B, T, C) target by `scale.expand_dims(1) + eps`; `/` on
Symbols does not broadcast, F.broadcast_div is exact.
"""
from mxnet import gluon


class MeanAbsScaler(gluon.HybridBlock):
    """Returns the scaled target and the scale, ignoring unobserved steps."""

    def __init__(self, minimum_scale=1e-5, **kwargs):
        super(MeanAbsScaler, self).__init__(**kwargs)
        self._eps = minimum_scale

    def hybrid_forward(self, F, data, observed):
        num_observed = F.sum(observed, axis=1)
        sum_observed = F.sum(F.abs(data) * observed, axis=1)
        scale = sum_observed / F.maximum(num_observed, 1.0)
        scaled = data / (scale.expand_dims(1) + self._eps)
        return scaled, scale


EXAMPLES = {
    "MeanAbsScaler": {
        "args": [[2, 6, 3], {"shape": [2, 6, 3], "data": [1, 1, 0, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1,
                                      0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1]}]
    }
}
