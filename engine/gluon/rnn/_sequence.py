"""Sequence plumbing shared by the recurrent cells' `unroll`: splitting/merging the time axis,
default begin states, masking and reversing by valid length (MXNet 1.9.1's helpers)."""

from ... import ndarray, symbol
from ...compat import proxy_of
from ...ndarray import NDArray
from ...symbol import Symbol

F_ND = proxy_of(ndarray)
F_SYM = proxy_of(symbol)
tensor_types = (Symbol, NDArray)


def as_list(obj):
    return obj if isinstance(obj, list) else [obj]


def cells_state_info(cells, batch_size):
    return sum([c.state_info(batch_size) for c in cells], [])


def cells_begin_state(cells, **kwargs):
    return sum([c.begin_state(**kwargs) for c in cells], [])


def get_begin_state(cell, F, begin_state, inputs, batch_size):
    """Zeros of the cell's state shapes unless given (batch 0 = inferred, symbolically)."""
    if begin_state is None:
        if F is F_ND:
            ctx = inputs.context if isinstance(inputs, tensor_types) else inputs[0].context
            with ctx:
                begin_state = cell.begin_state(func=F.zeros, batch_size=batch_size)
        else:
            begin_state = cell.begin_state(func=F.zeros, batch_size=batch_size)
    return begin_state


def format_sequence(length, inputs, layout, merge, in_layout=None):
    """(inputs as a list of steps or one tensor, time axis, F, batch size)."""
    if inputs is None:
        raise AssertionError(
            "unroll(inputs=None) has been deprecated. Please create input variables outside unroll."
        )
    axis = layout.find("T")
    batch_axis = layout.find("N")
    batch_size = 0
    in_axis = in_layout.find("T") if in_layout is not None else axis
    if isinstance(inputs, Symbol):
        F = F_SYM
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise AssertionError(
                    "unroll doesn't allow grouped symbol as input. Please "
                    "convert to list with list(inputs) first or let unroll "
                    "handle splitting."
                )
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    elif isinstance(inputs, NDArray):
        F = F_ND
        batch_size = inputs.shape[batch_axis]
        if merge is False:
            if not (length is None or length == inputs.shape[in_axis]):
                raise AssertionError(
                    "length {} does not match the inputs' time axis {}".format(
                        length, inputs.shape[in_axis]
                    )
                )
            inputs = as_list(
                ndarray.split(
                    inputs, axis=in_axis, num_outputs=inputs.shape[in_axis], squeeze_axis=1
                )
            )
    else:
        if not (length is None or len(inputs) == length):
            raise AssertionError("length {} does not match {} inputs".format(length, len(inputs)))
        if isinstance(inputs[0], Symbol):
            F = F_SYM
        else:
            F = F_ND
            batch_size = inputs[0].shape[0]
        if merge is True:
            inputs = F.stack(*inputs, axis=axis)
            in_axis = axis
    if isinstance(inputs, tensor_types) and axis != in_axis:
        inputs = F.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis, F, batch_size


def mask_sequence_variable_length(F, data, length, valid_length, time_axis, merge):
    if valid_length is None:
        raise AssertionError("valid_length is required")
    if not isinstance(data, tensor_types):
        data = F.stack(*data, axis=time_axis)
    outputs = F.SequenceMask(
        data, sequence_length=valid_length, use_sequence_length=True, axis=time_axis
    )
    if not merge:
        outputs = as_list(F.split(outputs, num_outputs=length, axis=time_axis, squeeze_axis=True))
    return outputs


def reverse_sequences(sequences, unroll_step, valid_length=None):
    F = F_SYM if isinstance(sequences[0], Symbol) else F_ND
    if valid_length is None:
        return list(reversed(sequences))
    reversed_sequences = F.SequenceReverse(
        F.stack(*sequences, axis=0), sequence_length=valid_length, use_sequence_length=True
    )
    if unroll_step > 1 or F is F_SYM:
        return F.split(reversed_sequences, axis=0, num_outputs=unroll_step, squeeze_axis=True)
    return [reversed_sequences[0]]
