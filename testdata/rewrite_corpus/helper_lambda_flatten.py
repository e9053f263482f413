"""Hazards: helper-lambda, reshape-codes. Exact rewrite: yes.

Multi-task head applying a local lambda that flattens with the batch size from the shape;
`lambda t: t.reshape((0, -1))` is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class MultiTaskHead(gluon.HybridBlock):
    """Two conv heads, each flattened to (B, -1) and concatenated."""

    def __init__(self, **kwargs):
        super(MultiTaskHead, self).__init__(**kwargs)
        with self.name_scope():
            self.cls_conv = nn.Conv2D(2, 1)
            self.reg_conv = nn.Conv2D(4, 1)

    def hybrid_forward(self, F, x):
        flat = lambda t: t.reshape((t.shape[0], -1))  # noqa: E731
        return F.concat(flat(self.cls_conv(x)), flat(self.reg_conv(x)), dim=1)


EXAMPLES = {"MultiTaskHead": {"args": [[2, 3, 2, 2]]}}
