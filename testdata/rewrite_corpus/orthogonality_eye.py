"""Hazards: static-creation, eager-ns. Exact rewrite: yes.

Orthogonality penalty on a projection (W W^T - I) with `nd.eye(n)` of a static size, returned
with the projected features; F.eye is exact.
"""
from mxnet import gluon, nd, init


class OrthoProjection(gluon.HybridBlock):
    """(x W^T, ||W W^T - I||^2) for a (units, in_units) weight."""

    def __init__(self, units, in_units, **kwargs):
        super(OrthoProjection, self).__init__(**kwargs)
        self._units = units
        with self.name_scope():
            self.weight = self.params.get('weight', shape=(units, in_units), init=init.Xavier())

    def hybrid_forward(self, F, x, weight):
        gram = F.dot(weight, weight, transpose_b=True)
        penalty = F.sum(F.square(gram - nd.eye(self._units)))
        return F.dot(x, weight, transpose_b=True), penalty.reshape((1,))


EXAMPLES = {"OrthoProjection": {"kwargs": {"units": 3, "in_units": 4}, "args": [[2, 4]]}}
