"""A pooling head that takes the first row only when built with `first=True`, in a one-line
conditional; the example builds it with the default, so the rewrite of `h[0]` is on a line that
runs but in the branch that does not: it is not proven by the example (a safe fix falls back to
the expression-level check)."""
from mxnet import gluon


class Pick(gluon.HybridBlock):
    def __init__(self, first=False, **kwargs):
        super().__init__(**kwargs)
        self._first = first

    def hybrid_forward(self, F, x):
        h = F.relu(x)
        return h[0] if self._first else h * 2
