"""CTCLoss (ctc_loss, contrib.CTCLoss): Connectionist Temporal Classification loss (Graves et
al. 2006) as MXNet 1.9.1 computes it: a softmax over the alphabet of each step of data
(T, N, alphabet), then minus the log-probability of the label sequence summed over all
alignments (forward algorithm in log space, float64, cast back; 0 for a label that cannot fit, as
MXNet's kernel). `blank_label='first'` reserves
channel 0 for the blank and pads labels with 0; 'last' reserves alphabet-1 and pads with -1.
Without `use_label_lengths` a label ends at its first padding value; without
`use_data_lengths` every sequence has all T steps. MXNet's second output (the gradient it keeps
for backward) is hidden, counted in the graph JSON only.
"""

import numpy as np

from ..registry import Param, ShapeError, merge_shape, p_bool, p_enum, register
from ._util import fmt_shape, json_outputs


def _inputs(attrs):
    names = ["data", "label"]
    if attrs.use_data_lengths:
        names.append("data_lengths")
    if attrs.use_label_lengths:
        names.append("label_lengths")
    return tuple(names)


def _shape(attrs, in_shapes):
    ins = list(in_shapes)
    data, label = ins[0], ins[1]
    if data is not None and len(data) != 3:
        raise ShapeError(
            "The number of dimensions of the data array must be 3, got {}".format(fmt_shape(data))
        )
    if label is not None and len(label) != 2:
        raise ShapeError(
            "The number of dimensions of the label array must be 2, got {}".format(fmt_shape(label))
        )
    if data is None:
        return ins, [None]
    batch = data[1]
    if label is not None and data[0] and label[1] and data[0] < label[1]:
        raise ShapeError(
            "The max number of labels cannot exceed the maximum sequence length "
            "of the data: labels {}, data {}".format(fmt_shape(label), fmt_shape(data))
        )
    if label is not None and label[0] and batch and label[0] != batch:
        raise ShapeError(
            "The batch size for the labels and data arrays must be the same: "
            "labels {}, data {}".format(fmt_shape(label), fmt_shape(data))
        )
    for i in range(2, len(ins)):
        try:
            ins[i] = merge_shape(ins[i], (batch,))
        except ShapeError:
            raise ShapeError(
                "{} must have shape ({},), got {}".format(
                    _inputs(attrs)[i], batch, fmt_shape(ins[i])
                )
            ) from None
    return ins, [(batch,)]


def _type(attrs, in_types):
    data = in_types[0]
    return [data] + list(in_types[1:]), [data]


def _label_of(attrs, row, length):
    if length is not None:
        return row[: int(length)]
    pad = 0 if attrs.blank_label == "first" else -1
    ends = np.nonzero(row == pad)[0]
    return row[: ends[0]] if ends.size else row


def _neg_log_likelihood(log_probs, label, blank):
    """-log p(label | log_probs (T, C)) by the CTC forward algorithm in log space; 0 when
    no alignment fits in T steps (MXNet's warp-ctc kernel reports those as 0, not inf)."""
    repeats = int(np.count_nonzero(label[1:] == label[:-1])) if len(label) > 1 else 0
    if len(label) + repeats > log_probs.shape[0]:
        return 0.0
    ext = np.full(2 * len(label) + 1, blank, dtype=np.int64)
    ext[1::2] = label
    steps, width = log_probs.shape[0], ext.size
    neg_inf = -np.inf
    alpha = np.full(width, neg_inf)
    alpha[0] = log_probs[0, ext[0]]
    if width > 1:
        alpha[1] = log_probs[0, ext[1]]
    skip = np.zeros(width, bool)  # s - 2 allowed: a label differing from s - 2
    skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
    for t in range(1, steps):
        prev1 = np.concatenate(([neg_inf], alpha[:-1]))
        prev2 = np.concatenate(([neg_inf, neg_inf], alpha[:-2]))[:width]
        prev2 = np.where(skip, prev2, neg_inf)
        alpha = np.logaddexp(np.logaddexp(alpha, prev1), prev2) + log_probs[t, ext]
    total = np.logaddexp(alpha[-1], alpha[-2]) if width > 1 else alpha[-1]
    return -total


def _ctc_loss(attrs, data, label, *lengths):
    """Per-sequence CTC loss of data (T, N, alphabet) against label (N, L)."""
    _shape(attrs, [data.shape, label.shape] + [a.shape for a in lengths])
    data_lengths = lengths[0] if attrs.use_data_lengths else None
    label_lengths = lengths[-1] if attrs.use_label_lengths else None
    alphabet = data.shape[2]
    blank = 0 if attrs.blank_label == "first" else alphabet - 1
    x = data.astype(np.float64)
    x = x - x.max(axis=2, keepdims=True)
    log_probs = x - np.log(np.exp(x).sum(axis=2, keepdims=True))
    out = np.empty(data.shape[1], data.dtype)
    for n in range(data.shape[1]):
        steps = data.shape[0] if data_lengths is None else int(data_lengths[n])
        lab = _label_of(attrs, label[n], None if label_lengths is None else label_lengths[n])
        out[n] = _neg_log_likelihood(log_probs[:steps, n], lab.astype(np.int64), blank)
    return out


register(
    "CTCLoss",
    aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"),
    inputs=_inputs,
    output_names=("output0",),
    params={
        "use_data_lengths": Param(p_bool, False),
        "use_label_lengths": Param(p_bool, False),
        "blank_label": Param(p_enum("first", "last"), "first"),
    },
    infer_shape=_shape,
    infer_type=_type,
)(_ctc_loss)
json_outputs("CTCLoss", lambda attrs: 2)
