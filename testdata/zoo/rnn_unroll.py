"""LSTM cell unrolled over a fixed number of steps (Gluon rnn / sockeye style).

Hybridize-safe as written: the loop runs over a Python int fixed in ``__init__``; the input is
split with ``F.split(..., squeeze_axis=True)`` and turned into a list with ``list(...)``; the
gates come from ``F.SliceChannel``; states travel as a list and the cell returns a tuple
``(output, [h, c])``. The begin state is made with ``zeros_like`` of a step, not from a shape.
"""
from mxnet import gluon
from mxnet.gluon import nn


class LSTMCellLite(gluon.HybridBlock):
    """One LSTM step with explicit i2h/h2h parameters, as gluon.rnn.LSTMCell lays them out."""

    def __init__(self, hidden_size, input_size=0, **kwargs):
        super(LSTMCellLite, self).__init__(**kwargs)
        self._hidden_size = hidden_size
        self._input_size = input_size
        with self.name_scope():
            self.i2h_weight = self.params.get('i2h_weight', shape=(4 * hidden_size, input_size),
                                              allow_deferred_init=True)
            self.h2h_weight = self.params.get('h2h_weight', shape=(4 * hidden_size, hidden_size),
                                              allow_deferred_init=True)
            self.i2h_bias = self.params.get('i2h_bias', shape=(4 * hidden_size,),
                                            init='zeros', allow_deferred_init=True)
            self.h2h_bias = self.params.get('h2h_bias', shape=(4 * hidden_size,),
                                            init='zeros', allow_deferred_init=True)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias,
                               num_hidden=self._hidden_size * 4, name='i2h')
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias,
                               num_hidden=self._hidden_size * 4, name='h2h')
        gates = i2h + h2h
        slice_gates = F.SliceChannel(gates, num_outputs=4, name='slice')
        in_gate = F.Activation(slice_gates[0], act_type='sigmoid', name='i')
        forget_gate = F.Activation(slice_gates[1], act_type='sigmoid', name='f')
        in_transform = F.Activation(slice_gates[2], act_type='tanh', name='c')
        out_gate = F.Activation(slice_gates[3], act_type='sigmoid', name='o')
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1]),
                                F.elemwise_mul(in_gate, in_transform), name='state')
        next_h = F.elemwise_mul(out_gate, F.Activation(next_c, act_type='tanh'), name='out')
        return next_h, [next_h, next_c]


class UnrolledEncoder(gluon.HybridBlock):
    """Runs the cell over `length` steps of a (batch, length, features) input, NTC layout."""

    def __init__(self, length, hidden_size, input_size, **kwargs):
        super(UnrolledEncoder, self).__init__(**kwargs)
        self._length = length
        self._hidden_size = hidden_size
        with self.name_scope():
            self.cell = LSTMCellLite(hidden_size, input_size=input_size, prefix='lstm0_')
            self.init_proj = nn.Dense(hidden_size, flatten=False, use_bias=False,
                                      in_units=input_size, prefix='init_')

    def _begin_state(self, F, first_step):
        zeros = F.zeros_like(self.init_proj(first_step))
        return [zeros, zeros]

    def hybrid_forward(self, F, inputs):
        inputs = F.split(inputs, num_outputs=self._length, axis=1, squeeze_axis=True)
        inputs = list(inputs)
        states = self._begin_state(F, inputs[0])
        outputs = []
        for i in range(self._length):
            output, states = self.cell(inputs[i], states)
            outputs.append(output)
        outputs = F.stack(*outputs, axis=1)
        return outputs, states[0], states[1]


def build():
    return UnrolledEncoder(4, 6, 5, prefix='enc_'), [(3, 4, 5)]
