"""MXNet 1.9.1's `gluon.contrib.rnn.rnn_cell`: VariationalDropoutCell (one dropout mask per
sequence for inputs, states and outputs) and LSTMPCell (LSTM with a projected recurrent state),
with MXNet's parameter names, op names and states so traced graphs and numbers match."""

from ...rnn import BidirectionalCell, HybridRecurrentCell, ModifierCell, SequentialRNNCell
from ...rnn._sequence import (
    format_sequence,
    get_begin_state,
    mask_sequence_variable_length,
    tensor_types,
)

__all__ = ["VariationalDropoutCell", "LSTMPCell"]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from ....base import engine_not_implemented

    engine_not_implemented("gluon.contrib.rnn.rnn_cell." + name)


class VariationalDropoutCell(ModifierCell):
    """Variational dropout (Gal & Ghahramani 2016): the masks are drawn once per sequence
    (at the first step after `reset`) and reused at every step; identity at inference."""

    def __init__(self, base_cell, drop_inputs=0.0, drop_states=0.0, drop_outputs=0.0):
        assert not drop_states or not isinstance(base_cell, BidirectionalCell), (
            "BidirectionalCell doesn't support variational state dropout. "
            "Please add VariationalDropoutCell to the cells underneath instead."
        )
        # MXNet 1.9.1's own check (SequentialRNNCell has no _bidirectional: AttributeError)
        assert (
            not drop_states
            or not isinstance(base_cell, SequentialRNNCell)
            or not base_cell._bidirectional
        ), (
            "Bidirectional SequentialRNNCell doesn't support variational state dropout. "
            "Please add VariationalDropoutCell to the cells underneath instead."
        )
        super().__init__(base_cell)
        self.drop_inputs = drop_inputs
        self.drop_states = drop_states
        self.drop_outputs = drop_outputs
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    def _alias(self) -> str:
        return "vardrop"

    def reset(self) -> None:
        super().reset()
        self.drop_inputs_mask = None
        self.drop_states_mask = None
        self.drop_outputs_mask = None

    # The masks are kept on the cell between steps, as MXNet 1.9.1's VariationalDropoutCell
    # does (a faithful copy: the state is the point, so HL013 is silenced on those lines).
    def _initialize_input_masks(self, F, inputs, states):
        if self.drop_states and self.drop_states_mask is None:
            mask = F.Dropout(F.ones_like(states[0]), p=self.drop_states)
            self.drop_states_mask = mask  # hybridlint: ignore[HL013]
        if self.drop_inputs and self.drop_inputs_mask is None:
            mask = F.Dropout(F.ones_like(inputs), p=self.drop_inputs)
            self.drop_inputs_mask = mask  # hybridlint: ignore[HL013]

    def _initialize_output_mask(self, F, output):
        if self.drop_outputs and self.drop_outputs_mask is None:
            mask = F.Dropout(F.ones_like(output), p=self.drop_outputs)
            self.drop_outputs_mask = mask  # hybridlint: ignore[HL013]

    def hybrid_forward(self, F, inputs, states):
        cell = self.base_cell
        self._initialize_input_masks(F, inputs, states)
        if self.drop_states:
            states = list(states)
            states[0] = states[0] * self.drop_states_mask
        if self.drop_inputs:
            inputs = inputs * self.drop_inputs_mask
        next_output, next_states = cell(inputs, states)
        self._initialize_output_mask(F, next_output)
        if self.drop_outputs:
            next_output = next_output * self.drop_outputs_mask
        return next_output, next_states

    def __repr__(self) -> str:
        s = "{name}(p_out = {drop_outputs}, p_state = {drop_states})"
        return s.format(name=self.__class__.__name__, **self.__dict__)

    def unroll(
        self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None
    ):
        """Without state dropout, one Dropout over the whole sequence (mask shared along
        the time axis) around the base cell's own unroll, as MXNet does."""
        if self.drop_states:
            return super().unroll(
                length, inputs, begin_state, layout, merge_outputs, valid_length=valid_length
            )
        self.reset()
        inputs, axis, F, batch_size = format_sequence(length, inputs, layout, True)
        states = get_begin_state(self, F, begin_state, inputs, batch_size)
        if self.drop_inputs:
            inputs = F.Dropout(inputs, p=self.drop_inputs, axes=(axis,))
        outputs, states = self.base_cell.unroll(
            length, inputs, states, layout, merge_outputs=True, valid_length=valid_length
        )
        if self.drop_outputs:
            outputs = F.Dropout(outputs, p=self.drop_outputs, axes=(axis,))
        merge_outputs = (
            isinstance(outputs, tensor_types) if merge_outputs is None else merge_outputs
        )
        outputs, _, _, _ = format_sequence(length, outputs, layout, merge_outputs)
        if valid_length is not None:
            outputs = mask_sequence_variable_length(
                F, outputs, length, valid_length, axis, merge_outputs
            )
        return outputs, states


class LSTMPCell(HybridRecurrentCell):
    """LSTM with a projection of the hidden state (Sak et al. 2014): states [r, c] with
    r = W_hr h of size projection_size fed back instead of h."""

    def __init__(
        self,
        hidden_size,
        projection_size,
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        h2r_weight_initializer=None,
        i2h_bias_initializer="zeros",
        h2h_bias_initializer="zeros",
        input_size=0,
        prefix=None,
        params=None,
    ):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size = hidden_size
        self._input_size = input_size
        self._projection_size = projection_size
        self.i2h_weight = self.params.get(
            "i2h_weight",
            shape=(4 * hidden_size, input_size),
            init=i2h_weight_initializer,
            allow_deferred_init=True,
        )
        self.h2h_weight = self.params.get(
            "h2h_weight",
            shape=(4 * hidden_size, projection_size),
            init=h2h_weight_initializer,
            allow_deferred_init=True,
        )
        self.h2r_weight = self.params.get(
            "h2r_weight",
            shape=(projection_size, hidden_size),
            init=h2r_weight_initializer,
            allow_deferred_init=True,
        )
        self.i2h_bias = self.params.get(
            "i2h_bias",
            shape=(4 * hidden_size,),
            init=i2h_bias_initializer,
            allow_deferred_init=True,
        )
        self.h2h_bias = self.params.get(
            "h2h_bias",
            shape=(4 * hidden_size,),
            init=h2h_bias_initializer,
            allow_deferred_init=True,
        )

    def state_info(self, batch_size=0):
        return [
            {"shape": (batch_size, self._projection_size), "__layout__": "NC"},
            {"shape": (batch_size, self._hidden_size), "__layout__": "NC"},
        ]

    def _alias(self) -> str:
        return "lstmp"

    def __repr__(self) -> str:
        shape = self.i2h_weight.shape
        proj_shape = self.h2r_weight.shape
        mapping = "{0} -> {1} -> {2}".format(
            shape[1] if shape[1] else None, shape[0], proj_shape[0]
        )
        return "{name}({mapping})".format(name=self.__class__.__name__, mapping=mapping)

    def hybrid_forward(
        self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias
    ):
        prefix = "t%d_" % self._counter
        i2h = F.FullyConnected(
            data=inputs,
            weight=i2h_weight,
            bias=i2h_bias,
            num_hidden=self._hidden_size * 4,
            name=prefix + "i2h",
        )
        h2h = F.FullyConnected(
            data=states[0],
            weight=h2h_weight,
            bias=h2h_bias,
            num_hidden=self._hidden_size * 4,
            name=prefix + "h2h",
        )
        gates = i2h + h2h
        slice_gates = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice")
        in_gate = F.Activation(slice_gates[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(slice_gates[1], act_type="sigmoid", name=prefix + "f")
        in_transform = F.Activation(slice_gates[2], act_type="tanh", name=prefix + "c")
        out_gate = F.Activation(slice_gates[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(
            forget_gate * states[1], in_gate * in_transform, name=prefix + "state"
        )
        hidden = F.elemwise_mul(
            out_gate, F.Activation(next_c, act_type="tanh"), name=prefix + "hidden"
        )
        next_r = F.FullyConnected(
            data=hidden,
            num_hidden=self._projection_size,
            weight=h2r_weight,
            no_bias=True,
            name=prefix + "out",
        )
        return next_r, [next_r, next_c]
