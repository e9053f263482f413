"""Hazards: ndim-axis. Exact rewrite: yes.

Classifier output that normalises over `axis=x.ndim - 1` so it works for (B, C) and
(B, T, C); axis=-1 is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn


class SequenceClassifierOutput(gluon.HybridBlock):
    """Dense(flatten=False) then log-softmax over the last axis."""

    def __init__(self, classes, **kwargs):
        super(SequenceClassifierOutput, self).__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(classes, flatten=False)

    def hybrid_forward(self, F, x):
        logits = self.fc(x)
        return F.log_softmax(logits, axis=logits.ndim - 1)


EXAMPLES = {"SequenceClassifierOutput": {"kwargs": {"classes": 3}, "args": [[2, 4, 5]]}}
