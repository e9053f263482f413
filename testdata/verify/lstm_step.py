"""One step of an LSTM-like cell whose states arrive as a list [h, c] (gluon rnn cells take
`states` this way); the gate bias of shape (1, 4H) is added with `+` (HL007)."""
from mxnet import gluon
from mxnet.gluon import nn


class LSTMStep(gluon.HybridBlock):
    def __init__(self, hidden=4, **kwargs):
        super().__init__(**kwargs)
        self._hidden = hidden
        with self.name_scope():
            self.i2h = nn.Dense(4 * hidden, flatten=False)
            self.h2h = nn.Dense(4 * hidden, flatten=False)
            self.gate_bias = self.params.get("gate_bias", shape=(1, 4 * hidden), init="zeros")

    def hybrid_forward(self, F, x, states, gate_bias):
        h, c = states
        gates = self.i2h(x) + self.h2h(h) + gate_bias
        i, f, g, o = F.split(gates, num_outputs=4, axis=1)
        c = F.sigmoid(f) * c + F.sigmoid(i) * F.tanh(g)
        h = F.sigmoid(o) * F.tanh(c)
        return h, [h, c]
