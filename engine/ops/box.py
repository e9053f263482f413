"""Bounding-box contrib ops: contrib.box_nms (alias box_non_maximum_suppression) and
contrib.box_iou.

box_nms follows MXNet 1.9.1's CPU kernel: per batch item, boxes whose score exceeds
valid_thresh (and whose class is not background_id) are sorted by descending score, cut to
`topk`, then greedily suppressed when their IoU with a kept, higher-scoring box exceeds
overlap_thresh (only within the same class unless force_suppress or no id_index). Kept rows come
first, in score order, converted to out_format; the remaining rows are all -1. The IoU matrix
is one vectorised numpy computation; only the greedy pass loops (over kept boxes).
"""
import numpy as np

from ..registry import Param, ShapeError, p_bool, p_enum, p_float, p_int, register
from ._util import fmt_shape, json_outputs


def _corners(boxes, fmt):
    """(x1, y1, x2, y2) columns from corner or center (x, y, w, h) boxes."""
    if fmt == "corner":
        return boxes
    x, y, w, h = (boxes[..., i] for i in range(4))
    return np.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], axis=-1).astype(boxes.dtype)


def _centers(boxes):
    x1, y1, x2, y2 = (boxes[..., i] for i in range(4))
    return np.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], axis=-1).astype(
        boxes.dtype)


def _iou(a, b):
    """IoU of every corner box in a (..., 4) with every one in b (M, 4) -> (..., M)."""
    a = a[..., None, :]
    iw = np.minimum(a[..., 2], b[:, 2]) - np.maximum(a[..., 0], b[:, 0])
    ih = np.minimum(a[..., 3], b[:, 3]) - np.maximum(a[..., 1], b[:, 1])
    inter = np.maximum(iw, 0) * np.maximum(ih, 0)
    area_a = np.maximum(a[..., 2] - a[..., 0], 0) * np.maximum(a[..., 3] - a[..., 1], 0)
    area_b = np.maximum(b[:, 2] - b[:, 0], 0) * np.maximum(b[:, 3] - b[:, 1], 0)
    union = area_a + area_b - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union > 0, inter / union, 0)


def _nms_check(attrs, shape):
    if len(shape) < 2:
        raise ShapeError("box_nms: data must have at least 2 dimensions (..., num_boxes, "
                         "width), got {}".format(fmt_shape(shape)))
    width = shape[-1]
    cols = [attrs.coord_start + 3, attrs.score_index] + \
        ([attrs.id_index] if attrs.id_index >= 0 else [])
    if width and (max(cols) >= width or min(cols) < 0):
        raise ShapeError("box_nms: coord_start={}, score_index={}, id_index={} do not fit rows "
                         "of width {}".format(attrs.coord_start, attrs.score_index,
                                              attrs.id_index, width))


def _nms_one(attrs, rows):
    """NMS of one (N, K) item; returns the output rows."""
    n = rows.shape[0]
    out = np.full_like(rows, -1)
    scores = rows[:, attrs.score_index]
    valid = scores > attrs.valid_thresh
    if attrs.id_index >= 0 and attrs.background_id >= 0:
        valid &= rows[:, attrs.id_index] != attrs.background_id
    order = np.nonzero(valid)[0]
    order = order[np.argsort(-scores[order], kind="stable")]
    if attrs.topk > 0:
        order = order[:attrs.topk]
    cs = attrs.coord_start
    boxes = _corners(rows[order, cs:cs + 4], attrs.in_format)
    iou = _iou(boxes, boxes)
    same = np.ones((len(order), len(order)), bool)
    if attrs.id_index >= 0 and not attrs.force_suppress:
        ids = rows[order, attrs.id_index]
        same = ids[:, None] == ids[None, :]
    alive = np.ones(len(order), bool)
    for i in range(len(order)):
        if alive[i]:
            kill = (iou[i] > attrs.overlap_thresh) & same[i]
            kill[:i + 1] = False
            alive &= ~kill
    kept = order[alive]
    out[:len(kept)] = rows[kept]
    if attrs.out_format != attrs.in_format and len(kept):
        conv = _corners(rows[kept, cs:cs + 4], attrs.in_format)
        out[:len(kept), cs:cs + 4] = conv if attrs.out_format == "corner" else _centers(conv)
    assert out.shape[0] == n
    return out


def box_nms(attrs, data):
    """Non-maximum suppression over the last two axes (..., num_boxes, width)."""
    _nms_check(attrs, data.shape)
    flat = data.reshape((-1,) + data.shape[-2:])
    out = np.stack([_nms_one(attrs, item) for item in flat]) if flat.shape[0] else flat.copy()
    return out.reshape(data.shape)


def _nms_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is not None:
        _nms_check(attrs, s)
    return in_shapes, [s]


_FORMATS = p_enum("center", "corner")
register("_contrib_box_nms", aliases=("_contrib_box_non_maximum_suppression",),
         params={"overlap_thresh": Param(p_float, 0.5), "valid_thresh": Param(p_float, 0.0),
                 "topk": Param(p_int, -1), "coord_start": Param(p_int, 2),
                 "score_index": Param(p_int, 1), "id_index": Param(p_int, -1),
                 "background_id": Param(p_int, -1), "force_suppress": Param(p_bool, False),
                 "in_format": Param(_FORMATS, "corner"),
                 "out_format": Param(_FORMATS, "corner")},
         output_names=("output0",), infer_shape=_nms_shape)(box_nms)
json_outputs("_contrib_box_nms", lambda attrs: 2)      # and the hidden sorted indices


def box_iou(attrs, lhs, rhs):
    """IoU between every box of lhs (..., 4) and every box of rhs (..., 4)."""
    if lhs.shape[-1:] != (4,) or rhs.shape[-1:] != (4,):
        raise ShapeError("box_iou: boxes need a last axis of 4, got {} and {}".format(
            fmt_shape(lhs.shape), fmt_shape(rhs.shape)))
    a = _corners(lhs, attrs.format)
    b = _corners(rhs, attrs.format).reshape(-1, 4)
    res = _iou(a, b).astype(lhs.dtype)
    return res.reshape(lhs.shape[:-1] + rhs.shape[:-1])


register("_contrib_box_iou", inputs=("lhs", "rhs"),
         params={"format": Param(_FORMATS, "corner")},
         infer_shape=lambda a, s: (s, [None if s[0] is None or s[1] is None
                                       else tuple(s[0][:-1]) + tuple(s[1][:-1])]))(box_iou)
