"""Hazards: broadcast-arith. Exact rewrite: yes.

GluonNLP-style tanh projection with hand-declared parameters: `F.dot(x, weight)` is (B, units)
and the bias declared in __init__ as `shape=(units,)` is added with `+`; Symbols do not
broadcast a 1-D bias over the batch, F.broadcast_add is exact.
"""
from mxnet import gluon, init


class TanhProjection(gluon.HybridBlock):
    """tanh(x . W + b) for x of shape (B, in_units)."""

    def __init__(self, units, in_units, **kwargs):
        super(TanhProjection, self).__init__(**kwargs)
        with self.name_scope():
            self.weight = self.params.get('weight', shape=(in_units, units))
            self.bias = self.params.get('bias', shape=(units,), init=init.Uniform(0.5))

    def hybrid_forward(self, F, x, weight, bias):
        return F.tanh(F.dot(x, weight) + bias)


EXAMPLES = {"TanhProjection": {"kwargs": {"units": 4, "in_units": 3}, "args": [[2, 3]]}}
