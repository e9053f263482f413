"""Hazards: asscalar. Exact rewrite: yes.

Input scaling layer (time-series style) dividing by the largest absolute value fetched with
`float(....asscalar())`; F.broadcast_div by the (1,) max tensor is exact.
"""
from mxnet import gluon


class MaxAbsScaler(gluon.HybridBlock):
    """x / (max |x| + eps) over the whole batch."""

    def hybrid_forward(self, F, x):
        scale = float(F.max(F.abs(x)).asscalar())
        return x / (scale + 1e-6)


EXAMPLES = {"MaxAbsScaler": {"args": [[2, 6]]}}
