"""Hazards: indexing. Exact rewrite: yes.

gluoncv2/GluonTS-style sequence classifier that keeps the last time step of its GRU layer
with `x[:, -1, :]`; Symbols take no multi-axis subscripts, a slice on axis 1 is exact.
"""
from mxnet import gluon
from mxnet.gluon import nn, rnn


class LastStepClassifier(gluon.HybridBlock):
    """GRU over (B, T, C) in NTC layout, then a Dense head on the final step."""

    def __init__(self, hidden_size, classes, **kwargs):
        super(LastStepClassifier, self).__init__(**kwargs)
        with self.name_scope():
            self.rnn = rnn.GRU(hidden_size, layout='NTC')
            self.output = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        x = self.rnn(x)
        x = x[:, -1, :]
        return self.output(x)


EXAMPLES = {
    "LastStepClassifier": {"kwargs": {"hidden_size": 6, "classes": 3}, "args": [[2, 4, 5]]}
}
