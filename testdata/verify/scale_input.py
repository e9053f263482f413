"""A block called with a Python float (`net(x, 0.5)`): eagerly fine, but MXNet 1.9.1 refuses
a non-array input once hybridized, which no rule can rewrite: the block still fails."""
from mxnet import gluon


class ScaleBy(gluon.HybridBlock):
    def hybrid_forward(self, F, x, alpha):
        return F.relu(x) * alpha
