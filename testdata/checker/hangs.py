"""A block whose forward never returns: the worker must be killed after the time limit."""
from mxnet import gluon


class Spin(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        while True:
            pass
