"""Fails eagerly already: (N, 3) . (N, 3) is not a valid matrix product."""
from mxnet import gluon


class BadDot(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.dot(x, x)
