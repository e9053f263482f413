"""A FlowNet-style correlation layer: F.Correlation is an MXNet op the bundled engine does not
implement, so on the engine the checker cannot run it (never a pass); on MXNet it runs."""
from mxnet import gluon


class CostVolume(gluon.HybridBlock):
    def hybrid_forward(self, F, a, b):
        cost = F.Correlation(a, b, kernel_size=1, max_displacement=2, stride1=1, stride2=1,
                             pad_size=2)
        return cost - cost.mean(axis=1, keepdims=True)
