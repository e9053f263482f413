"""Hazards: creation-like, helper-lambda. Exact rewrite: yes.

GluonTS-style LSTM encoder that builds its two begin states in a list comprehension of
F.zeros((batch, hidden)); zeros broadcast like axis 0 of the input are exact.
"""
from mxnet import gluon
from mxnet.gluon import rnn


class LSTMEncoder(gluon.HybridBlock):
    """LSTM layer over (T, B, C) from explicit zero states; returns the outputs."""

    def __init__(self, hidden, **kwargs):
        super(LSTMEncoder, self).__init__(**kwargs)
        self._hidden = hidden
        with self.name_scope():
            self.lstm = rnn.LSTM(hidden, layout='TNC')

    def hybrid_forward(self, F, x):
        states = [F.zeros((1, x.shape[1], self._hidden)) for _ in range(2)]
        out, _ = self.lstm(x, states)
        return out


EXAMPLES = {"LSTMEncoder": {"kwargs": {"hidden": 3}, "args": [[4, 2, 5]]}}
