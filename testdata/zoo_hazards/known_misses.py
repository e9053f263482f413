"""Hazards hybridlint does not find yet (kept as a strict xfail so a fix shows up).

Expected findings, one per line as `* CODE line N `snippet``:

* HL001 line 16 `t.shape[1]`: a lambda inside hybrid_forward applied to a tensor
* HL003 line 17 `t[:, 0]`: a lambda bound to a name and called like a local helper

(A static helper called through the class name, `Head._flatten(F, x)`, used to be listed here:
it is followed now, see static_helpers.py.)
"""
from mxnet.gluon import HybridBlock


class Head(HybridBlock):
    def hybrid_forward(self, F, x):
        width = lambda t: t.shape[1]  # noqa: E731
        first = lambda t: t[:, 0]  # noqa: E731
        return F.slice_axis(F.expand_dims(first(x), axis=1), axis=1, begin=0, end=width(x))
