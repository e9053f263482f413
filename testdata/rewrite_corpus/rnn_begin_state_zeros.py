"""Hazards: creation-like. Exact rewrite: yes.

RNN decoder (GluonNLP style) whose begin state is zeros of (batch, hidden) with the batch
size from the input's shape; zeros broadcast like axis 0 of the input are exact.
"""
from mxnet import gluon
from mxnet.gluon import rnn


class GRUDecoder(gluon.HybridBlock):
    """Unroll a GRU cell over a (B, T, C) input from a zero state; return the last output."""

    def __init__(self, hidden, length, **kwargs):
        super(GRUDecoder, self).__init__(**kwargs)
        self._hidden = hidden
        self._length = length
        with self.name_scope():
            self.cell = rnn.GRUCell(hidden)

    def hybrid_forward(self, F, x):
        state = F.zeros((x.shape[0], self._hidden))
        outputs, _ = self.cell.unroll(self._length, x, [state], layout='NTC', merge_outputs=True)
        return outputs


EXAMPLES = {"GRUDecoder": {"kwargs": {"hidden": 4, "length": 3}, "args": [[2, 3, 5]]}}
