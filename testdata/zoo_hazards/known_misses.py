"""Hazards hybridlint does not find yet (kept as a strict xfail so a fix shows up).

Expected findings, one per line as `* CODE line N `snippet``:

* HL001 line 14 `x.shape[0]`: a static helper called through the class name (`Head._flatten(F, x)`)
* HL001 line 17 `t.shape[1]`: a lambda inside hybrid_forward applied to a tensor
"""
from mxnet.gluon import HybridBlock


class Head(HybridBlock):
    @staticmethod
    def _flatten(F, x):
        return x.reshape((x.shape[0], -1))

    def hybrid_forward(self, F, x):
        width = lambda t: t.shape[1]  # noqa: E731
        flat = Head._flatten(F, x)
        return F.slice_axis(flat, axis=1, begin=0, end=width(x))
