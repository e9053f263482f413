"""The fused `RNN` op (MXNet's cuDNN-compatible multi-layer RNN/LSTM/GRU) and
`_rnn_param_concat`, the concat gluon's rnn.RNN/LSTM/GRU layers use to build its flat
parameter vector.

Layout of `parameters` (MXNet 1.9.1, rnn-inl.h, the same on CPU and GPU): first every weight,
layer by layer and direction by direction (`i2h` (gates*H, in), then `h2h` (gates*H, H)), then
every bias in the same order (`i2h`, `h2h`, each gates*H). Gate order: LSTM i, f, g, o; GRU r,
z, n with n = tanh(W_in x + b_in + r * (W_hn h + b_hn)) (cuDNN's GRU).

MXNet 1.9.1's CPU kernel, which this mirrors, ignores `lstm_state_clip_*` and
`sequence_length` (it accepts both and computes the full, unclipped sequence). With
`projection_size` P (LSTMP, LSTM only) each layer/direction also has `h2r` (P, H) after `h2h`
(then (gates*H, P)) among the weights, no h2r bias; the recurrent state and the output are
r = W_hr h. Projection with other modes is an engine gap (MXNet's kernel has no defined result).

Shape inference also runs backward, as MXNet's does (`infer_shape_backward`, read by
`executor.infer_graph_shapes`): RNN fills `parameters` from the data shape, the param concat
splits what is left among its unknown inputs and Reshape fills the one unknown dim of its
input from its output (MXNet's ReverseReshapeInferShape) — that is how a gluon layer with
`input_size=0` learns its first weight's shape, also inside a hybridized parent.
"""

from math import prod

import numpy as np

from .. import autograd
from ..base import engine_not_implemented
from ..random import generator
from ..registry import (
    Param,
    ShapeError,
    get_op,
    merge_shape,
    p_bool,
    p_enum,
    p_float,
    p_int,
    p_opt,
    register,
)
from ._util import fmt_shape
from .shape import _concat, _concat_shape

GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def param_size(
    mode: str,
    num_layers: int,
    input_size: int,
    state_size: int,
    bidirectional: bool,
    projection_size=None,
) -> int:
    """Length of the flat parameter vector (MXNet's GetRnnParamSize)."""
    g, h, d = GATES[mode], state_size, 2 if bidirectional else 1
    r = projection_size or h  # what a step feeds back and outputs
    extra = projection_size * h if projection_size else 0
    first = g * h * (input_size + r) + extra + 2 * g * h
    rest = g * h * (d * r + r) + extra + 2 * g * h
    return d * (first + (num_layers - 1) * rest)


def _inputs(attrs):
    names = ["data", "parameters", "state"]
    if attrs.mode == "lstm":
        names.append("state_cell")
    if attrs.use_sequence_length:
        names.append("sequence_length")
    return tuple(names)


def _num_outputs(attrs) -> int:
    if not attrs.state_outputs:
        return 1
    return 3 if attrs.mode == "lstm" else 2


def _output_names(attrs):
    return ("output", "state_output", "statecell_output")[: _num_outputs(attrs)]


def _check_supported(attrs) -> None:
    if attrs.projection_size is not None and attrs.mode != "lstm":
        engine_not_implemented("RNN with projection_size and mode=%s" % attrs.mode)


def _rnn_shape(attrs, in_shapes):
    _check_supported(attrs)
    ins = list(in_shapes)
    data = ins[0]
    if data is None:
        return ins, [None] * _num_outputs(attrs)
    if len(data) != 3:
        raise ShapeError(
            "Input data should be rank-3 tensor of dim [sequence length, batch "
            "size, input size], got {}".format(fmt_shape(data))
        )
    seq, batch, isize = data
    d = 2 if attrs.bidirectional else 1
    h = attrs.state_size
    r = attrs.projection_size or h
    state = (d * attrs.num_layers, batch, r)
    ins[2] = _assign(ins[2], state, "state")
    if attrs.mode == "lstm":
        ins[3] = _assign(ins[3], (d * attrs.num_layers, batch, h), "state_cell")
    if isize:
        size = param_size(
            attrs.mode, attrs.num_layers, isize, h, attrs.bidirectional, attrs.projection_size
        )
        ins[1] = _assign(ins[1], (size,), "parameters")
    if attrs.use_sequence_length:
        ins[-1] = _assign(ins[-1], (batch,), "sequence_length")
    outs = [(seq, batch, d * r), state, (d * attrs.num_layers, batch, h)]
    return ins, outs[: _num_outputs(attrs)]


def _assign(have, want, name):
    try:
        return merge_shape(have, want)
    except ShapeError:
        raise ShapeError(
            "Shape inconsistent for {}: provided {}, inferred shape {}".format(
                name, fmt_shape(have), fmt_shape(want)
            )
        ) from None


def _rnn_type(attrs, in_types):
    data = next((t for t in in_types[:4] if t is not None), None)
    ins = [data] * len(in_types)
    if attrs.use_sequence_length:
        ins[-1] = in_types[-1] if in_types[-1] is not None else data
    return ins, [data] * _num_outputs(attrs)


def _act(mode):
    if mode == "rnn_relu":
        return lambda v: np.maximum(v, 0, out=v)
    return lambda v: np.tanh(v, out=v)


def _sigmoid(v):
    """In place, numerically safe logistic function."""
    np.negative(v, out=v)
    np.exp(v, out=v)
    v += 1
    np.reciprocal(v, out=v)
    return v


def _run_direction(mode, x, h, c, wx, wh, bx, bh, reverse, wr=None):
    """One layer, one direction over x (T, N, C); returns outputs (T, N, H or P), h, c."""
    seq = x.shape[0]
    hidden = wh.shape[0] // GATES[mode]
    pre = np.matmul(x, wx.T) + bx  # (T, N, G*H), input part of all steps
    out = np.empty((seq, x.shape[1], h.shape[-1]), x.dtype)
    steps = range(seq - 1, -1, -1) if reverse else range(seq)
    act = _act(mode)
    for t in steps:
        gh = np.matmul(h, wh.T) + bh
        gx = pre[t]
        if mode == "lstm":
            g = gx + gh
            i, f = _sigmoid(g[:, :hidden]), _sigmoid(g[:, hidden : 2 * hidden])
            cand = np.tanh(g[:, 2 * hidden : 3 * hidden])
            o = _sigmoid(g[:, 3 * hidden :])
            c = f * c + i * cand
            h = o * np.tanh(c)
            if wr is not None:
                h = np.matmul(h, wr.T)  # the projection r = W_hr h
        elif mode == "gru":
            r = _sigmoid(gx[:, :hidden] + gh[:, :hidden])
            z = _sigmoid(gx[:, hidden : 2 * hidden] + gh[:, hidden : 2 * hidden])
            n = np.tanh(gx[:, 2 * hidden :] + r * gh[:, 2 * hidden :])
            h = (1 - z) * n + z * h
        else:
            h = act(gx + gh)
        out[t] = h
    return out, h, c


def _split_params(attrs, flat, input_size):
    """[(wx, wh, bx, bh, wr)] per (layer, direction), views into the flat vector (wr, the
    projection, None without projection_size)."""
    g, hs, ps = GATES[attrs.mode], attrs.state_size, attrs.projection_size
    rs = ps or hs
    d = 2 if attrs.bidirectional else 1
    weights, pos = [], 0
    for layer in range(attrs.num_layers):
        isize = input_size if layer == 0 else d * rs
        for _ in range(d):
            wx = flat[pos : pos + g * hs * isize].reshape(g * hs, isize)
            pos += g * hs * isize
            wh = flat[pos : pos + g * hs * rs].reshape(g * hs, rs)
            pos += g * hs * rs
            wr = None
            if ps:
                wr = flat[pos : pos + ps * hs].reshape(ps, hs)
                pos += ps * hs
            weights.append([wx, wh, wr])
    for entry in weights:
        entry[2:2] = [flat[pos : pos + g * hs], flat[pos + g * hs : pos + 2 * g * hs]]
        pos += 2 * g * hs
    return weights


def _rnn(attrs, data, params, state, *rest):
    """Multi-layer (bidirectional) RNN/LSTM/GRU over data (T, N, C), cuDNN's layout."""
    ins, _ = _rnn_shape(attrs, [data.shape, params.shape, state.shape] + [r.shape for r in rest])
    for got, want, name in zip([params, state] + list(rest), ins[1:], _inputs(attrs)[1:]):
        if got.shape != want:
            raise ShapeError(
                "Shape inconsistent for {}: provided {}, inferred shape {}".format(
                    name, fmt_shape(got.shape), fmt_shape(want)
                )
            )
    cell = rest[0] if attrs.mode == "lstm" else None
    d = 2 if attrs.bidirectional else 1
    weights = _split_params(attrs, params, data.shape[2])
    x = data
    hy = np.empty_like(state)
    cy = np.empty_like(cell) if cell is not None else None
    training = autograd.is_training()
    for layer in range(attrs.num_layers):
        outs = []
        for direction in range(d):
            k = layer * d + direction
            wx, wh, bx, bh, wr = weights[k]
            c0 = cell[k] if cell is not None else None
            out, h, c = _run_direction(
                attrs.mode, x, state[k], c0, wx, wh, bx, bh, reverse=direction == 1, wr=wr
            )
            hy[k] = h
            if cy is not None:
                cy[k] = c
            outs.append(out)
        x = outs[0] if d == 1 else np.concatenate(outs, axis=2)
        if training and attrs.p > 0 and layer < attrs.num_layers - 1:
            keep = generator().uniform(size=x.shape) >= attrs.p
            x = x * keep / (1 - attrs.p)
    x = x.astype(data.dtype, copy=False)
    if not attrs.state_outputs:
        return x
    if attrs.mode == "lstm":
        return x, hy, cy
    return x, hy


register(
    "RNN",
    inputs=_inputs,
    num_outputs=_num_outputs,
    output_names=_output_names,
    params={
        "state_size": Param(p_int),
        "num_layers": Param(p_int),
        "bidirectional": Param(p_bool, False),
        "mode": Param(p_enum("gru", "lstm", "rnn_relu", "rnn_tanh")),
        "p": Param(p_float, 0.0),
        "state_outputs": Param(p_bool, False),
        "projection_size": Param(p_opt(p_int), None),
        "lstm_state_clip_min": Param(p_opt(p_float), None),
        "lstm_state_clip_max": Param(p_opt(p_float), None),
        "lstm_state_clip_nan": Param(p_bool, False),
        "use_sequence_length": Param(p_bool, False),
    },
    infer_shape=_rnn_shape,
    infer_type=_rnn_type,
    random=True,
)(_rnn)


# ----------------------------------------------------------------- the layers' param concat


def _param_concat(attrs, *xs):
    """Concat of the flattened weights and biases (gluon's fused RNN layers)."""
    return _concat(attrs, *xs)


def _param_concat_backward(attrs, in_shapes, out_shapes):
    """MXNet's RNNParamConcatShape: the output's size along `dim` minus the known inputs'
    is split evenly among the inputs whose size along `dim` is unknown."""
    out = out_shapes[0]
    if not out or any(s is None for s in in_shapes):
        return in_shapes
    dim = attrs.dim + len(out) if attrs.dim < 0 else attrs.dim
    if not out[dim] or any(len(s) != len(out) for s in in_shapes):
        return in_shapes
    unknown = [i for i, s in enumerate(in_shapes) if not s[dim]]
    if not unknown:
        return in_shapes
    residual = out[dim] - sum(s[dim] for s in in_shapes if s[dim])
    if residual < 0 or residual % len(unknown):
        raise ShapeError(
            "_rnn_param_concat: cannot split {} among {} inputs".format(residual, len(unknown))
        )
    filled = list(in_shapes)
    for i in unknown:
        s = list(filled[i])
        s[dim] = residual // len(unknown)
        filled[i] = tuple(s)
    return filled


def _reshape_backward(attrs, in_shapes, out_shapes):
    """MXNet's ReverseReshapeInferShape: one unknown input dim = output size / known dims."""
    src, out = in_shapes[0], out_shapes[0]
    if src is None or not out or 0 in out:
        return in_shapes
    unknown = [i for i, d in enumerate(src) if not d]
    if len(unknown) != 1:
        return in_shapes
    known = prod(d for d in src if d)
    filled = list(src)
    filled[unknown[0]] = prod(out) // known if known else 0
    return [tuple(filled)] + list(in_shapes[1:])


register(
    "_rnn_param_concat",
    inputs=None,
    key_var_num_args="num_args",
    params={"dim": Param(p_int, 1), "num_args": Param(p_int, 0)},
    infer_shape=_concat_shape,
)(_param_concat)
get_op("_rnn_param_concat").infer_shape_backward = _param_concat_backward
get_op("Reshape").infer_shape_backward = _reshape_backward
