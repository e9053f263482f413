"""A gate that branches on a tensor value (HL008, no automatic fix) next to a fixable
`.shape` use: the fix is proven eagerly, but the block still fails hybridized."""
from mxnet import gluon


class ThresholdGate(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        x = x.reshape((x.shape[0], -1))
        if x.sum() > 0:
            return F.relu(x)
        return x
