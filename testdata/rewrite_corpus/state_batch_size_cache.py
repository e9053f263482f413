"""Hazards: state-mutation, reshape-codes. Exact rewrite: yes.

hybrid_forward stores the batch size from the shape on `self` for a helper that reshapes with
it (GluonTS style); within one call the value is the input's axis 0, so code 0 in the helper
(and no state) is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class QuantileProjection(gluon.HybridBlock):
    """(B, T, C) -> (B, T * quantiles) projections, reshaped with the stored batch size."""

    def __init__(self, num_quantiles, **kwargs):
        super(QuantileProjection, self).__init__(**kwargs)
        self._batch_size = None
        with self.name_scope():
            self.proj = nn.Dense(num_quantiles, flatten=False)

    def _flatten_quantiles(self, F, q):
        return q.reshape((self._batch_size, -1))

    def hybrid_forward(self, F, x):
        self._batch_size = x.shape[0]
        return self._flatten_quantiles(F, self.proj(x))


EXAMPLES = {"QuantileProjection": {"kwargs": {"num_quantiles": 3}, "args": [[2, 4, 5]]}}
