"""Hazards: tile-broadcast, eager-ns. Exact rewrite: yes.

Min-max input scaling (GluonTS feature processing style) broadcasting the batch min and max
with `nd.broadcast_to(..., shape=data.shape)`; F.broadcast_like(m, data) is exact.
"""
from mxnet import gluon, nd


class MinMaxScaler(gluon.HybridBlock):
    """(data - min) / (max - min + eps) over the whole batch."""

    def hybrid_forward(self, F, data):
        low = nd.broadcast_to(data.min(keepdims=True), shape=data.shape)
        high = nd.broadcast_to(data.max(keepdims=True), shape=data.shape)
        return (data - low) / (high - low + 1e-6)


EXAMPLES = {"MinMaxScaler": {"args": [[3, 4]]}}
