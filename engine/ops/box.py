"""Bounding-box contrib ops: contrib.box_nms (alias box_non_maximum_suppression),
contrib.box_iou, contrib.box_encode, contrib.box_decode and contrib.MultiBoxPrior.

box_nms follows MXNet 1.9.1's CPU kernel: per batch item, boxes whose score exceeds
valid_thresh (and whose class is not background_id) are sorted by descending score, cut to
`topk`, then greedily suppressed when their IoU with a kept, higher-scoring box exceeds
overlap_thresh (only within the same class unless force_suppress or no id_index). Kept rows come
first, in score order, converted to out_format; the remaining rows are all -1. The IoU matrix
is one vectorised numpy computation; only the greedy pass loops (over kept boxes).
"""

import numpy as np

from ..registry import Param, ShapeError, p_bool, p_enum, p_float, p_int, register, same_type
from ._util import fmt_shape, json_outputs


def _corners(boxes, fmt):
    """(x1, y1, x2, y2) columns from corner or center (x, y, w, h) boxes."""
    if fmt == "corner":
        return boxes
    x, y, w, h = (boxes[..., i] for i in range(4))
    return np.stack([x - w / 2, y - h / 2, x + w / 2, y + h / 2], axis=-1).astype(boxes.dtype)


def _centers(boxes):
    x1, y1, x2, y2 = (boxes[..., i] for i in range(4))
    return np.stack([(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1], axis=-1).astype(boxes.dtype)


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
        raise ShapeError(
            "box_nms: data must have at least 2 dimensions (..., num_boxes, width), got {}".format(
                fmt_shape(shape)
            )
        )
    width = shape[-1]
    cols = [attrs.coord_start + 3, attrs.score_index] + (
        [attrs.id_index] if attrs.id_index >= 0 else []
    )
    if width and (max(cols) >= width or min(cols) < 0):
        raise ShapeError(
            "box_nms: coord_start={}, score_index={}, id_index={} do not fit rows "
            "of width {}".format(attrs.coord_start, attrs.score_index, attrs.id_index, width)
        )


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
        order = order[: attrs.topk]
    cs = attrs.coord_start
    boxes = _corners(rows[order, cs : cs + 4], attrs.in_format)
    iou = _iou(boxes, boxes)
    same = np.ones((len(order), len(order)), bool)
    if attrs.id_index >= 0 and not attrs.force_suppress:
        ids = rows[order, attrs.id_index]
        same = ids[:, None] == ids[None, :]
    alive = np.ones(len(order), bool)
    for i in range(len(order)):
        if alive[i]:
            kill = (iou[i] > attrs.overlap_thresh) & same[i]
            kill[: i + 1] = False
            alive &= ~kill
    kept = order[alive]
    out[: len(kept)] = rows[kept]
    if attrs.out_format != attrs.in_format and len(kept):
        conv = _corners(rows[kept, cs : cs + 4], attrs.in_format)
        out[: len(kept), cs : cs + 4] = conv if attrs.out_format == "corner" else _centers(conv)
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
register(
    "_contrib_box_nms",
    aliases=("_contrib_box_non_maximum_suppression",),
    params={
        "overlap_thresh": Param(p_float, 0.5),
        "valid_thresh": Param(p_float, 0.0),
        "topk": Param(p_int, -1),
        "coord_start": Param(p_int, 2),
        "score_index": Param(p_int, 1),
        "id_index": Param(p_int, -1),
        "background_id": Param(p_int, -1),
        "force_suppress": Param(p_bool, False),
        "in_format": Param(_FORMATS, "corner"),
        "out_format": Param(_FORMATS, "corner"),
    },
    output_names=("output0",),
    infer_shape=_nms_shape,
)(box_nms)
json_outputs("_contrib_box_nms", lambda attrs: 2)  # and the hidden sorted indices


def box_iou(attrs, lhs, rhs):
    """IoU between every box of lhs (..., 4) and every box of rhs (..., 4)."""
    if lhs.shape[-1:] != (4,) or rhs.shape[-1:] != (4,):
        raise ShapeError(
            "box_iou: boxes need a last axis of 4, got {} and {}".format(
                fmt_shape(lhs.shape), fmt_shape(rhs.shape)
            )
        )
    a = _corners(lhs, attrs.format)
    b = _corners(rhs, attrs.format).reshape(-1, 4)
    res = _iou(a, b).astype(lhs.dtype)
    return res.reshape(lhs.shape[:-1] + rhs.shape[:-1])


register(
    "_contrib_box_iou",
    inputs=("lhs", "rhs"),
    params={"format": Param(_FORMATS, "corner")},
    infer_shape=lambda a, s: (
        s,
        [None if s[0] is None or s[1] is None else tuple(s[0][:-1]) + tuple(s[1][:-1])],
    ),
)(box_iou)

# ----------------------------------------------------------------------------- encode / decode


def _center_size(b):
    """(x, y, w, h) of corner boxes (..., 4)."""
    w = b[..., 2] - b[..., 0]
    h = b[..., 3] - b[..., 1]
    return b[..., 0] + w / 2, b[..., 1] + h / 2, w, h


def box_decode(attrs, data, anchors):
    """Corner boxes from regression deltas (..., N, 4) and anchors (1, N, 4) given in
    `format`: centre offsets scaled by the anchor size, sizes through exp (capped by clip)."""
    if data.shape[-1] != 4 or anchors.shape[-1] != 4 or anchors.shape[-2] != data.shape[-2]:
        raise ShapeError(
            "box_decode: data {} and anchors {} need matching (..., N, 4) shapes".format(
                fmt_shape(data.shape), fmt_shape(anchors.shape)
            )
        )
    if attrs.format == "corner":
        ax, ay, aw, ah = _center_size(anchors)
    else:
        ax, ay, aw, ah = (anchors[..., i] for i in range(4))
    t = data.dtype.type
    ox = data[..., 0] * t(attrs.std0) * aw + ax
    oy = data[..., 1] * t(attrs.std1) * ah + ay
    dw = data[..., 2] * t(attrs.std2)
    dh = data[..., 3] * t(attrs.std3)
    if attrs.clip > 0:
        dw = np.minimum(dw, t(attrs.clip))
        dh = np.minimum(dh, t(attrs.clip))
    ow = np.exp(dw) * aw / 2
    oh = np.exp(dh) * ah / 2
    return np.stack([ox - ow, oy - oh, ox + ow, oy + oh], axis=-1).astype(data.dtype)


register(
    "_contrib_box_decode",
    inputs=("data", "anchors"),
    params={
        "std0": Param(p_float, 1.0),
        "std1": Param(p_float, 1.0),
        "std2": Param(p_float, 1.0),
        "std3": Param(p_float, 1.0),
        "clip": Param(p_float, -1.0),
        "format": Param(_FORMATS, "center"),
    },
    infer_shape=lambda a, s: (s, [s[0]]),
)(box_decode)


def box_encode(attrs, samples, matches, anchors, refs, means, stds):
    """Regression targets and masks (B, N, 4) for positive samples (> 0.5): each anchor's
    matched reference box as normalised centre offsets and log size ratios."""
    b, n = samples.shape
    if (
        anchors.shape != (b, n, 4)
        or refs.ndim != 3
        or refs.shape[0] != b
        or means.shape != (4,)
        or stds.shape != (4,)
    ):
        raise ShapeError(
            "box_encode: expected samples (B, N), anchors (B, N, 4), refs "
            "(B, M, 4), means (4,), stds (4,); got {}".format(
                ", ".join(
                    fmt_shape(x.shape) for x in (samples, matches, anchors, refs, means, stds)
                )
            )
        )
    idx = np.clip(matches.astype(np.int64), 0, refs.shape[1] - 1)
    ref = np.take_along_axis(refs, idx[..., None], axis=1)
    ax, ay, aw, ah = _center_size(anchors)
    rx, ry, rw, rh = _center_size(ref)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.stack(
            [
                ((rx - ax) / aw - means[0]) / stds[0],
                ((ry - ay) / ah - means[1]) / stds[1],
                (np.log(rw / aw) - means[2]) / stds[2],
                (np.log(rh / ah) - means[3]) / stds[3],
            ],
            axis=-1,
        )
    pos = (samples > 0.5)[..., None]
    targets = np.where(pos, t, 0).astype(anchors.dtype)
    masks = np.broadcast_to(pos, targets.shape).astype(anchors.dtype)
    return targets, masks


register(
    "_contrib_box_encode",
    inputs=("samples", "matches", "anchors", "refs", "means", "stds"),
    num_outputs=2,
    infer_shape=lambda a, s: (s, [None if s[2] is None else s[2]] * 2),
    infer_type=lambda a, t: (lambda i, o: (i, o * 2))(*same_type(a, t)),
)(box_encode)

# ----------------------------------------------------------------------------- MultiBoxPrior


def _p_floats(v):
    if isinstance(v, str):
        return tuple(float(x) for x in v.strip("()[] ").split(",") if x.strip())
    if isinstance(v, (int, float)):
        return (float(v),)
    return tuple(float(x) for x in v)


def _prior_count(attrs, shape):
    return shape[2] * shape[3] * (len(attrs.sizes) + len(attrs.ratios) - 1)


def _prior_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None]
    if len(s) != 4:
        raise ShapeError("MultiBoxPrior needs 4-D (NCHW) data, got {}".format(fmt_shape(s)))
    return in_shapes, [(1, _prior_count(attrs, s), 4)]


def multibox_prior(attrs, data):
    """SSD anchors for every feature-map cell: one box per size (at the first ratio), then one
    per further ratio (at the first size), centred at (cell + offset) * step."""
    _prior_shape(attrs, [data.shape])
    h, w = data.shape[2], data.shape[3]
    step_y = attrs.steps[0] if attrs.steps[0] > 0 else 1.0 / h
    step_x = attrs.steps[1] if attrs.steps[1] > 0 else 1.0 / w
    cy = (np.arange(h, dtype=np.float32) + np.float32(attrs.offsets[0])) * np.float32(step_y)
    cx = (np.arange(w, dtype=np.float32) + np.float32(attrs.offsets[1])) * np.float32(step_x)
    half = []
    for size in attrs.sizes:
        half.append((size * h / w / 2, size / 2))
    for ratio in attrs.ratios[1:]:
        r = np.sqrt(ratio)
        half.append((attrs.sizes[0] * h / w * r / 2, attrs.sizes[0] / r / 2))
    hw = np.array(half, np.float32)  # (A, 2): half width, half height
    cyy, cxx = np.meshgrid(cy, cx, indexing="ij")
    cxx = cxx.reshape(-1, 1)
    cyy = cyy.reshape(-1, 1)
    out = np.stack([cxx - hw[:, 0], cyy - hw[:, 1], cxx + hw[:, 0], cyy + hw[:, 1]], axis=-1)
    if attrs.clip:
        out = np.clip(out, 0, 1)
    return out.reshape(1, -1, 4).astype(data.dtype)


register(
    "_contrib_MultiBoxPrior",
    params={
        "sizes": Param(_p_floats, (1.0,)),
        "ratios": Param(_p_floats, (1.0,)),
        "clip": Param(p_bool, False),
        "steps": Param(_p_floats, (-1.0, -1.0)),
        "offsets": Param(_p_floats, (0.5, 0.5)),
    },
    infer_shape=_prior_shape,
)(multibox_prior)
