"""contrib.bipartite_matching: MXNet 1.9.1's greedy matching of a score matrix (SSD's target
assignment), per batch item: visit the entries best first (descending scores, or ascending
with is_ascend; ties in index order, MXNet's stable sort), match a row and a column when both
are free, and stop at the first free pair whose score fails the strict threshold. Outputs the
matched column per row and the matched row per column (-1 when unmatched), in the input dtype.
As MXNet's kernel, `topk=k` stops only after the (k+1)-th match (it tests `count > topk`
after counting)."""

import numpy as np

from ..registry import Param, ShapeError, p_bool, p_float, p_int, register
from ._util import fmt_shape


def _shape(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return in_shapes, [None, None]
    if len(data) < 2:
        raise ShapeError("score matrix must have dim >= 2 {} provided".format(len(data)))
    return in_shapes, [tuple(data[:-1]), tuple(data[:-2]) + (data[-1],)]


def _bipartite_matching(attrs, data):
    """Greedy bipartite matching of data (..., rows, cols)."""
    if data.ndim < 2:
        raise ShapeError("score matrix must have dim >= 2, got {}".format(fmt_shape(data.shape)))
    rows, cols = data.shape[-2:]
    scores = data.reshape(-1, rows * cols)
    row_marker = np.full((scores.shape[0], rows), -1, data.dtype)
    col_marker = np.full((scores.shape[0], cols), -1, data.dtype)
    threshold = np.float32(attrs.threshold)  # MXNet's parameter is a C float
    for b, flat in enumerate(scores):
        order = np.argsort(flat if attrs.is_ascend else -flat, kind="stable")
        count = 0
        for idx in order:
            r, c = divmod(int(idx), cols)
            if row_marker[b, r] != -1 or col_marker[b, c] != -1:
                continue
            score = flat[idx]
            if (score < threshold) if attrs.is_ascend else (score > threshold):
                row_marker[b, r] = c
                col_marker[b, c] = r
                count += 1
                if 0 < attrs.topk < count:
                    break
            else:
                break
    return (row_marker.reshape(data.shape[:-1]), col_marker.reshape(data.shape[:-2] + (cols,)))


register(
    "_contrib_bipartite_matching",
    inputs=("data",),
    num_outputs=2,
    params={
        "is_ascend": Param(p_bool, False),
        "threshold": Param(p_float),
        "topk": Param(p_int, -1),
    },
    infer_shape=_shape,
)(_bipartite_matching)
