"""Reserves 3 GiB in forward (np.empty: address space, no pages touched)."""
import numpy as np
from mxnet import gluon


class Hog(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        self.buffer = np.empty(3 << 30, dtype=np.uint8)
        return x
