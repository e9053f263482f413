"""Recurrent cells of MXNet 1.9.1's `gluon.rnn`: parameter names (`i2h_weight`, ...), gate
order, op names (`t0_i2h`, ...), states and `unroll` as MXNet defines them, so traced graphs
and numbers match real MXNet."""

import typing  # a module, not a public name: the engine mirrors MXNet's names

from ... import ndarray, symbol
from ...base import numeric_types, string_types
from ..block import Block, HybridBlock
from ..nn import LeakyReLU
from ..parameter import _check
from ..utils import _indent
from ._sequence import (
    cells_begin_state,
    cells_state_info,
    format_sequence,
    get_begin_state,
    mask_sequence_variable_length,
    reverse_sequences,
    tensor_types,
)

__all__ = [
    "RecurrentCell",
    "HybridRecurrentCell",
    "RNNCell",
    "LSTMCell",
    "GRUCell",
    "SequentialRNNCell",
    "HybridSequentialRNNCell",
    "DropoutCell",
    "ModifierCell",
    "ZoneoutCell",
    "ResidualCell",
    "BidirectionalCell",
]


# MXNet's private helper names: custom cells in real code import them from rnn_cell
_cells_state_info = cells_state_info
_cells_begin_state = cells_begin_state
_get_begin_state = get_begin_state
_format_sequence = format_sequence
_mask_sequence_variable_length = mask_sequence_variable_length
_reverse_sequences = reverse_sequences

_MODIFIED = (
    "After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be called "
    "directly. Call the modifier cell instead."
)


class RecurrentCell(Block):
    """Base of all cells: state bookkeeping, begin_state and the unrolling loop."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self) -> None:
        """Reset before re-using the cell for another graph."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        """Shape and layout of each state (a list of dicts). Abstract: every concrete cell
        defines it; the bare NotImplementedError is MXNet's own."""
        raise NotImplementedError()

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """Initial states made by `func` (zeros by default) from `state_info`."""
        _check(not self._modified, _MODIFIED)
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            if info is not None:
                info.update(kwargs)
            else:
                info = kwargs
            states.append(
                func(name="%sbegin_state_%d" % (self._prefix, self._init_counter), **info)
            )
        return states

    def unroll(
        self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None
    ):
        """Run `length` steps over `inputs`; returns (outputs, last states)."""
        self.reset()
        inputs, axis, F, batch_size = format_sequence(length, inputs, layout, False)
        begin_state = get_begin_state(self, F, begin_state, inputs, batch_size)
        states = begin_state
        outputs, all_states = [], []
        for i in range(length):
            output, states = self(inputs[i], states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [
                F.SequenceLast(
                    F.stack(*ele_list, axis=0),
                    sequence_length=valid_length,
                    use_sequence_length=True,
                    axis=0,
                )
                for ele_list in zip(*all_states)
            ]
            outputs = mask_sequence_variable_length(F, outputs, length, valid_length, axis, True)
        outputs, _, _, _ = format_sequence(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        func = {"tanh": F.tanh, "relu": F.relu, "sigmoid": F.sigmoid, "softsign": F.softsign}.get(
            activation
        )
        if func:
            return func(inputs, **kwargs)
        if isinstance(activation, string_types):
            return F.Activation(inputs, act_type=activation, **kwargs)
        if isinstance(activation, LeakyReLU):
            return F.LeakyReLU(inputs, act_type="leaky", slope=activation._alpha, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        self._counter += 1
        return super().forward(inputs, states)


class HybridRecurrentCell(RecurrentCell, HybridBlock):
    """A cell whose step is a hybrid_forward(F, inputs, states, **params)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


def _mapping(cell) -> str:
    shape = cell.i2h_weight.shape
    return "{0} -> {1}".format(shape[1] if shape[1] else None, shape[0])


class _GatedCell(HybridRecurrentCell):
    """The four weights every built-in cell has: gates * hidden_size rows."""

    def _make_params(
        self,
        gates,
        hidden_size,
        input_size,
        i2h_weight_initializer,
        h2h_weight_initializer,
        i2h_bias_initializer,
        h2h_bias_initializer,
    ):
        self._hidden_size = hidden_size
        self._input_size = input_size
        rows = gates * hidden_size
        self.i2h_weight = self.params.get(
            "i2h_weight",
            shape=(rows, input_size),
            init=i2h_weight_initializer,
            allow_deferred_init=True,
        )
        self.h2h_weight = self.params.get(
            "h2h_weight",
            shape=(rows, hidden_size),
            init=h2h_weight_initializer,
            allow_deferred_init=True,
        )
        self.i2h_bias = self.params.get(
            "i2h_bias", shape=(rows,), init=i2h_bias_initializer, allow_deferred_init=True
        )
        self.h2h_bias = self.params.get(
            "h2h_bias", shape=(rows,), init=h2h_bias_initializer, allow_deferred_init=True
        )

    def __repr__(self) -> str:
        return "{name}({mapping})".format(name=self.__class__.__name__, mapping=_mapping(self))


class RNNCell(_GatedCell):
    """Elman cell: h' = act(W_i x + b_i + W_h h + b_h)."""

    def __init__(
        self,
        hidden_size,
        activation="tanh",
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        i2h_bias_initializer="zeros",
        h2h_bias_initializer="zeros",
        input_size=0,
        prefix=None,
        params=None,
    ):
        super().__init__(prefix=prefix, params=params)
        self._activation = activation
        self._make_params(
            1,
            hidden_size,
            input_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
        )

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self) -> str:
        return "rnn"

    def __repr__(self) -> str:
        return "{name}({mapping}, {act})".format(
            name=self.__class__.__name__, mapping=_mapping(self), act=self._activation
        )

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h = F.FullyConnected(
            data=inputs,
            weight=i2h_weight,
            bias=i2h_bias,
            num_hidden=self._hidden_size,
            name=prefix + "i2h",
        )
        h2h = F.FullyConnected(
            data=states[0],
            weight=h2h_weight,
            bias=h2h_bias,
            num_hidden=self._hidden_size,
            name=prefix + "h2h",
        )
        i2h_plus_h2h = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        output = self._get_activation(F, i2h_plus_h2h, self._activation, name=prefix + "out")
        return output, [output]


class LSTMCell(_GatedCell):
    """LSTM with MXNet's gate order (input, forget, cell, output); states [h, c]."""

    def __init__(
        self,
        hidden_size,
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        i2h_bias_initializer="zeros",
        h2h_bias_initializer="zeros",
        input_size=0,
        prefix=None,
        params=None,
        activation="tanh",
        recurrent_activation="sigmoid",
    ):
        super().__init__(prefix=prefix, params=params)
        self._make_params(
            4,
            hidden_size,
            input_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
        )
        self._activation = activation
        self._recurrent_activation = recurrent_activation

    def state_info(self, batch_size=0):
        return [
            {"shape": (batch_size, self._hidden_size), "__layout__": "NC"},
            {"shape": (batch_size, self._hidden_size), "__layout__": "NC"},
        ]

    def _alias(self) -> str:
        return "lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
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
        gates = F.elemwise_add(i2h, h2h, name=prefix + "plus0")
        slice_gates = F.SliceChannel(gates, num_outputs=4, name=prefix + "slice")
        rec = self._recurrent_activation
        in_gate = self._get_activation(F, slice_gates[0], rec, name=prefix + "i")
        forget_gate = self._get_activation(F, slice_gates[1], rec, name=prefix + "f")
        in_transform = self._get_activation(F, slice_gates[2], self._activation, name=prefix + "c")
        out_gate = self._get_activation(F, slice_gates[3], rec, name=prefix + "o")
        next_c = F.elemwise_add(
            F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
            F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"),
            name=prefix + "state",
        )
        next_h = F.elemwise_mul(
            out_gate,
            F.Activation(next_c, act_type=self._activation, name=prefix + "activation0"),
            name=prefix + "out",
        )
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """GRU with MXNet's gate order (reset, update, new)."""

    def __init__(
        self,
        hidden_size,
        i2h_weight_initializer=None,
        h2h_weight_initializer=None,
        i2h_bias_initializer="zeros",
        h2h_bias_initializer="zeros",
        input_size=0,
        prefix=None,
        params=None,
    ):
        super().__init__(prefix=prefix, params=params)
        self._make_params(
            3,
            hidden_size,
            input_size,
            i2h_weight_initializer,
            h2h_weight_initializer,
            i2h_bias_initializer,
            h2h_bias_initializer,
        )

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self) -> str:
        return "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        prev_state_h = states[0]
        i2h = F.FullyConnected(
            data=inputs,
            weight=i2h_weight,
            bias=i2h_bias,
            num_hidden=self._hidden_size * 3,
            name=prefix + "i2h",
        )
        h2h = F.FullyConnected(
            data=prev_state_h,
            weight=h2h_weight,
            bias=h2h_bias,
            num_hidden=self._hidden_size * 3,
            name=prefix + "h2h",
        )
        i2h_r, i2h_z, i2h = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        reset_gate = F.Activation(
            F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"),
            act_type="sigmoid",
            name=prefix + "r_act",
        )
        update_gate = F.Activation(
            F.elemwise_add(i2h_z, h2h_z, name=prefix + "plus1"),
            act_type="sigmoid",
            name=prefix + "z_act",
        )
        next_h_tmp = F.Activation(
            F.elemwise_add(
                i2h, F.elemwise_mul(reset_gate, h2h, name=prefix + "mul0"), name=prefix + "plus2"
            ),
            act_type="tanh",
            name=prefix + "h_act",
        )
        ones = F.ones_like(update_gate, name=prefix + "ones_like0")
        next_h = F.elemwise_add(
            F.elemwise_mul(
                F.elemwise_sub(ones, update_gate, name=prefix + "minus0"),
                next_h_tmp,
                name=prefix + "mul1",
            ),
            F.elemwise_mul(update_gate, prev_state_h, name=prefix + "mul20"),
            name=prefix + "out",
        )
        return next_h, [next_h]


if typing.TYPE_CHECKING:  # for mypy: the mixin's `self` is a cell (both subclasses derive from one)
    _StackBase = RecurrentCell
else:
    _StackBase = object


class _StackMixin(_StackBase):
    """Stepping and unrolling a stack of cells (shared by the two sequential containers)."""

    def __repr__(self) -> str:
        return "{name}(\n{modstr}\n)".format(
            name=self.__class__.__name__,
            modstr="\n".join(
                ["({i}): {m}".format(i=i, m=_indent(repr(m), 2)) for i, m in self._children.items()]
            ),
        )

    def add(self, cell) -> None:
        self.register_child(cell)

    def state_info(self, batch_size=0):
        return cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        _check(not self._modified, _MODIFIED)
        return cells_begin_state(self._children.values(), **kwargs)

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        p = 0
        for cell in self._children.values():
            _check(
                not isinstance(cell, BidirectionalCell),
                "BidirectionalCell cannot be stepped inside a sequential cell",
            )
            n = len(cell.state_info())
            state = states[p : p + n]
            p += n
            inputs, state = cell(inputs, state)
            next_states.append(state)
        return inputs, sum(next_states, [])

    def unroll(
        self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None
    ):
        self.reset()
        inputs, _, F, batch_size = format_sequence(length, inputs, layout, None)
        num_cells = len(self._children)
        begin_state = get_begin_state(self, F, begin_state, inputs, batch_size)
        p = 0
        next_states = []
        for i, cell in enumerate(self._children.values()):
            n = len(cell.state_info())
            states = begin_state[p : p + n]
            p += n
            inputs, states = cell.unroll(
                length,
                inputs=inputs,
                begin_state=states,
                layout=layout,
                merge_outputs=None if i < num_cells - 1 else merge_outputs,
                valid_length=valid_length,
            )
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return self._children[str(i)]

    def __len__(self) -> int:
        return len(self._children)


class SequentialRNNCell(_StackMixin, RecurrentCell):
    """Stack of cells (a plain Block)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, *args, **kwargs):
        raise NotImplementedError


class HybridSequentialRNNCell(_StackMixin, HybridRecurrentCell):
    """Stack of hybrid cells."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, inputs, states):
        return self.__call__(inputs, states)


class DropoutCell(HybridRecurrentCell):
    """Dropout on the inputs of each step (no state)."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix, params)
        _check(isinstance(rate, numeric_types), "rate must be a number")
        self._rate = rate
        self._axes = axes

    def __repr__(self) -> str:
        return "{name}(rate={_rate}, axes={_axes})".format(
            name=self.__class__.__name__, **self.__dict__
        )

    def state_info(self, batch_size=0):
        return []

    def _alias(self) -> str:
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(
                data=inputs, p=self._rate, axes=self._axes, name="t%d_fwd" % self._counter
            )
        return inputs, states

    def unroll(
        self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None
    ):
        self.reset()
        inputs, _, F, _ = format_sequence(length, inputs, layout, merge_outputs)
        if isinstance(inputs, tensor_types):
            return self.hybrid_forward(F, inputs, begin_state if begin_state else [])
        return super().unroll(
            length,
            inputs,
            begin_state=begin_state,
            layout=layout,
            merge_outputs=merge_outputs,
            valid_length=None,
        )


class ModifierCell(HybridRecurrentCell):
    """Base of cells wrapping another cell (its parameters stay the base cell's)."""

    def __init__(self, base_cell):
        _check(
            not base_cell._modified,
            "Cell %s is already modified. One cell cannot be modified twice" % base_cell.name,
        )
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=symbol.zeros, **kwargs):
        _check(not self._modified, _MODIFIED)
        self.base_cell._modified = False
        begin = self.base_cell.begin_state(func=func, **kwargs)
        self.base_cell._modified = True
        return begin

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError

    def __repr__(self) -> str:
        return "{name}({base_cell})".format(name=self.__class__.__name__, **self.__dict__)


class ZoneoutCell(ModifierCell):
    """Zoneout: in training, each output/state unit keeps its previous value with
    probability p (masks from Dropout of ones); at inference the base cell's step."""

    def __init__(self, base_cell, zoneout_outputs=0.0, zoneout_states=0.0):
        assert not isinstance(base_cell, BidirectionalCell), (
            "BidirectionalCell doesn't support zoneout since it doesn't support step. "
            "Please add ZoneoutCell to the cells underneath instead."
        )
        # as MXNet 1.9.1: SequentialRNNCell has no _bidirectional, so this line raises
        # AttributeError for one (MXNet's own behaviour, kept: such code fails there too)
        assert not isinstance(base_cell, SequentialRNNCell) or not base_cell._bidirectional, (
            "Bidirectional SequentialRNNCell doesn't support zoneout. "
            "Please add ZoneoutCell to the cells underneath instead."
        )
        super().__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self._prev_output = None

    def __repr__(self) -> str:
        s = "{name}(p_out={zoneout_outputs}, p_state={zoneout_states}, {base_cell})"
        return s.format(name=self.__class__.__name__, **self.__dict__)

    def _alias(self) -> str:
        return "zoneout"

    def reset(self) -> None:
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        cell, p_outputs, p_states = self.base_cell, self.zoneout_outputs, self.zoneout_states
        next_output, next_states = cell(inputs, states)

        def mask(p, like):
            return F.Dropout(F.ones_like(like), p=p)

        prev_output = self._prev_output
        if prev_output is None:
            prev_output = F.zeros_like(next_output)
        output = (
            F.where(mask(p_outputs, next_output), next_output, prev_output)
            if p_outputs != 0.0
            else next_output
        )
        states = (
            [
                F.where(mask(p_states, new_s), new_s, old_s)
                for new_s, old_s in zip(next_states, states)
            ]
            if p_states != 0.0
            else next_states
        )
        # The engine mirrors MXNet 1.9.1's ZoneoutCell, its HL013 hazard included (a
        # standalone hybridized unroll zones out to zeros, as MXNet's does).
        self._prev_output = output  # hybridlint: ignore[HL013]
        return output, states


class ResidualCell(ModifierCell):
    """output = base_cell(inputs) + inputs."""

    def __init__(self, base_cell):
        super().__init__(base_cell)

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        output = F.elemwise_add(output, inputs, name="t%d_fwd" % self._counter)
        return output, states

    def unroll(
        self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None
    ):
        self.reset()
        self.base_cell._modified = False
        outputs, states = self.base_cell.unroll(
            length,
            inputs=inputs,
            begin_state=begin_state,
            layout=layout,
            merge_outputs=merge_outputs,
            valid_length=valid_length,
        )
        self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, tensor_types)
        inputs, axis, F, _ = format_sequence(length, inputs, layout, merge_outputs)
        if valid_length is not None:
            inputs = mask_sequence_variable_length(
                F, inputs, length, valid_length, axis, merge_outputs
            )
        if merge_outputs:
            outputs = F.elemwise_add(outputs, inputs)
        else:
            outputs = [F.elemwise_add(i, j) for i, j in zip(outputs, inputs)]
        return outputs, states


class BidirectionalCell(HybridRecurrentCell):
    """A left-to-right and a right-to-left cell, outputs concatenated (unroll only)."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    def __repr__(self) -> str:
        return "{name}(forward={l_cell}, backward={r_cell})".format(
            name=self.__class__.__name__,
            l_cell=self._children["l_cell"],
            r_cell=self._children["r_cell"],
        )

    def state_info(self, batch_size=0):
        return cells_state_info(self._children.values(), batch_size)

    def begin_state(self, **kwargs):
        _check(not self._modified, _MODIFIED)
        return cells_begin_state(self._children.values(), **kwargs)

    def unroll(
        self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None
    ):
        self.reset()
        inputs, axis, F, batch_size = format_sequence(length, inputs, layout, False)
        reversed_inputs = list(reverse_sequences(inputs, length, valid_length))
        begin_state = get_begin_state(self, F, begin_state, inputs, batch_size)
        states = begin_state
        l_cell, r_cell = self._children.values()
        n_left = len(l_cell.state_info(batch_size))
        l_outputs, l_states = l_cell.unroll(
            length,
            inputs=inputs,
            begin_state=states[:n_left],
            layout=layout,
            merge_outputs=merge_outputs,
            valid_length=valid_length,
        )
        r_outputs, r_states = r_cell.unroll(
            length,
            inputs=reversed_inputs,
            begin_state=states[n_left:],
            layout=layout,
            merge_outputs=False,
            valid_length=valid_length,
        )
        reversed_r_outputs = reverse_sequences(r_outputs, length, valid_length)
        if merge_outputs is None:
            merge_outputs = isinstance(l_outputs, tensor_types)
            l_outputs, _, _, _ = format_sequence(None, l_outputs, layout, merge_outputs)
            reversed_r_outputs, _, _, _ = format_sequence(
                None, reversed_r_outputs, layout, merge_outputs
            )
        if merge_outputs:
            reversed_r_outputs = F.stack(*reversed_r_outputs, axis=axis)
            outputs = F.concat(
                l_outputs, reversed_r_outputs, dim=2, name="%sout" % self._output_prefix
            )
        else:
            outputs = [
                F.concat(l_o, r_o, dim=1, name="%st%d" % (self._output_prefix, i))
                for i, (l_o, r_o) in enumerate(zip(l_outputs, reversed_r_outputs))
            ]
        if valid_length is not None:
            outputs = mask_sequence_variable_length(
                F, outputs, length, valid_length, axis, merge_outputs
            )
        return outputs, l_states + r_states
