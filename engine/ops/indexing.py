"""Indexing ops: take, batch_take, pick, where, gather_nd, one_hot, Embedding, SequenceMask,
topk, sort, argsort.

MXNet takes indices as floats and truncates them; out-of-range indices are clipped (take/pick
mode 'clip', Embedding), wrapped (mode 'wrap'), give all-off rows (one_hot) or raise (take mode
'raise', gather_nd). Index outputs (argsort, topk) are float32 unless `dtype` says otherwise.
"""

from math import prod

import numpy as np

from ..registry import (
    Param,
    get_op,
    ShapeError,
    merge_shape,
    p_bool,
    p_dtype,
    p_enum,
    p_float,
    p_int,
    p_opt,
    p_shape,
    register,
    shape_known,
)
from ._util import fmt_shape, json_outputs, norm_axis


def _int_index(idx) -> np.ndarray:
    """MXNet casts float indices to int by truncation."""
    return idx.astype(np.int64) if idx.dtype.kind != "i" else idx.astype(np.int64, copy=False)


def _fix_index(idx, n, mode, op):
    if mode == "wrap":
        return np.mod(idx, n)
    if mode == "raise":
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise ShapeError(
                "{} operator contains indices out of bound (valid range [0, {}))".format(op, n)
            )
        return idx
    return np.clip(idx, 0, n - 1)


# ----------------------------------------------------------------------------- take


def _take_shape(attrs, in_shapes):
    a, idx = in_shapes
    if a is None or idx is None:
        return in_shapes, [None]
    ax = norm_axis(attrs.axis, len(a), "take")
    return in_shapes, [tuple(a[:ax]) + tuple(idx) + tuple(a[ax + 1 :])]


def take(attrs, a, indices):
    """Elements of `a` at `indices` along `axis` (mode clip, wrap or raise)."""
    ax = norm_axis(attrs.axis, a.ndim, "take")
    idx = _fix_index(_int_index(indices), a.shape[ax], attrs.mode, "take")
    return np.take(a, idx, axis=ax)


register(
    "take",
    inputs=("a", "indices"),
    params={"axis": Param(p_int, 0), "mode": Param(p_enum("clip", "raise", "wrap"), "clip")},
    infer_shape=_take_shape,
    infer_type=lambda a, t: (t, [t[0]]),
)(take)


def batch_take(attrs, a, indices):
    """a[i, indices[i]] for each row i of a 2-D `a` (indices clipped)."""
    if a.ndim != 2 or indices.shape != (a.shape[0],):
        raise ShapeError(
            "batch_take expects a 2-D array and one index per row, got {} and {}".format(
                fmt_shape(a.shape), fmt_shape(indices.shape)
            )
        )
    if indices.dtype != np.int32:
        raise ShapeError(
            "batch_take: Type inconsistent, Provided = {}, inferred type = int32 "
            "(indices must be int32)".format(indices.dtype.name)
        )
    idx = np.clip(_int_index(indices), 0, a.shape[1] - 1)
    return a[np.arange(a.shape[0]), idx]


def _batch_take_type(attrs, in_types):
    if in_types[1] is not None and in_types[1] != np.int32:
        raise ShapeError(
            "batch_take: Type inconsistent, Provided = {}, inferred type = int32".format(
                in_types[1].name
            )
        )
    return [in_types[0], np.dtype(np.int32)], [in_types[0]]


register(
    "batch_take",
    inputs=("a", "indices"),
    infer_shape=lambda at, s: (s, [None if s[0] is None else (s[0][0],)]),
    infer_type=_batch_take_type,
)(batch_take)

# ----------------------------------------------------------------------------- pick


def _pick_axis(attrs, ndim):
    if attrs.axis is None:
        raise ShapeError("axis=None is not supported by pick yet. Must specify an axis.")
    return norm_axis(attrs.axis, ndim, "pick")


def _pick_index_shape(attrs, data):
    """The index MXNet infers: data's shape without `axis` (whatever keepdims says)."""
    ax = _pick_axis(attrs, len(data))
    return tuple(d for i, d in enumerate(data) if i != ax)


def _pick_out_shape(attrs, data):
    ax = _pick_axis(attrs, len(data))
    if attrs.keepdims:
        return tuple(1 if i == ax else d for i, d in enumerate(data))
    return tuple(d for i, d in enumerate(data) if i != ax) or (1,)


def _pick_shape(attrs, in_shapes):
    data, idx = in_shapes
    if data is None:
        return in_shapes, [None]
    want = _pick_index_shape(attrs, data)
    if idx is not None and shape_known(idx) and int(np.prod(idx)) == int(np.prod(want)):
        pass  # MXNet also takes an index of the same size, e.g. the keepdims shape
    else:
        try:
            idx = merge_shape(idx, want)
        except ShapeError:
            raise ShapeError(
                "pick: index has shape {}, expected {} (data {} without axis {})".format(
                    fmt_shape(idx), fmt_shape(want), fmt_shape(data), attrs.axis
                )
            ) from None
    return [data, idx], [_pick_out_shape(attrs, data)]


def pick(attrs, data, index):
    """data[..., index[...], ...] along `axis`: one element per position of `index`."""
    _pick_shape(attrs, [data.shape, index.shape])
    ax = _pick_axis(attrs, data.ndim)
    idx = _fix_index(_int_index(index), data.shape[ax], attrs.mode, "pick")
    idx = np.expand_dims(idx.reshape(_pick_index_shape(attrs, data.shape)), ax)
    return np.take_along_axis(data, idx, axis=ax).reshape(_pick_out_shape(attrs, data.shape))


register(
    "pick",
    aliases=("choose_element_0index",),
    inputs=("data", "index"),
    params={
        "axis": Param(p_opt(p_int), -1),
        "keepdims": Param(p_bool, False),
        "mode": Param(p_enum("clip", "wrap"), "clip"),
    },
    infer_shape=_pick_shape,
    infer_type=lambda a, t: (t, [t[0]]),
)(pick)

# ----------------------------------------------------------------------------- where


def _where_shape(attrs, in_shapes):
    cond, x, y = in_shapes
    try:
        xy = merge_shape(x, y)
    except ShapeError:
        raise ShapeError(
            "where: x {} and y {} must have the same shape".format(fmt_shape(x), fmt_shape(y))
        ) from None
    if cond is not None and xy is not None and tuple(cond) != tuple(xy):
        if not (len(cond) == 1 and (cond[0] == xy[0] or not cond[0] or not xy[0])):
            raise ShapeError(
                "where: condition {} must have the shape of x {} or be 1-D with length {}".format(
                    fmt_shape(cond), fmt_shape(xy), xy[0]
                )
            )
    return [cond, xy, xy], [xy]


def _where_type(attrs, in_types):
    t = in_types[1] if in_types[1] is not None else in_types[2]
    return [in_types[0], t, t], [t]


def where(attrs, cond, x, y):
    """x where condition is non-zero, else y; a 1-D condition selects whole rows."""
    _where_shape(attrs, [cond.shape, x.shape, y.shape])
    c = cond != 0
    if c.shape != x.shape:
        c = c.reshape((-1,) + (1,) * (x.ndim - 1))
    return np.where(c, x, y).astype(x.dtype, copy=False)


register("where", inputs=("condition", "x", "y"), infer_shape=_where_shape, infer_type=_where_type)(
    where
)

# ----------------------------------------------------------------------------- gather_nd


def _gather_shape(attrs, in_shapes):
    data, idx = in_shapes
    if data is None or idx is None:
        return in_shapes, [None]
    m = idx[0]
    if m > len(data):
        raise ShapeError(
            "gather_nd: indices {} index {} dimensions but data {} has only {}".format(
                fmt_shape(idx), m, fmt_shape(data), len(data)
            )
        )
    return in_shapes, [(tuple(idx[1:]) + tuple(data[m:])) or (1,)]


def gather_nd(attrs, data, indices):
    """data[indices[0], indices[1], ...]: the first axis of `indices` indexes data's axes."""
    (shape,) = _gather_shape(attrs, [data.shape, indices.shape])[1]
    idx = _int_index(indices)
    m = idx.shape[0]
    for i in range(m):
        n = data.shape[i]
        if idx[i].size and (idx[i].min() < -n or idx[i].max() >= n):
            raise ShapeError(
                "gather_nd: index {} is out of bounds for axis {} with size {}".format(
                    int(idx[i].max() if idx[i].max() >= n else idx[i].min()), i, n
                )
            )
    return data[tuple(idx[i] for i in range(m))].reshape(shape)


register(
    "gather_nd",
    inputs=("data", "indices"),
    infer_shape=_gather_shape,
    infer_type=lambda a, t: (t, [t[0]]),
)(gather_nd)

# ----------------------------------------------------------------------------- one_hot


def one_hot(attrs, indices):
    """indices.shape + (depth,): on_value at each index, off_value elsewhere (out-of-range
    indices give an all-off row)."""
    idx = _int_index(indices)
    out = np.full(indices.shape + (attrs.depth,), attrs.off_value, dtype=attrs.dtype)
    valid = (idx >= 0) & (idx < attrs.depth)
    pos = np.nonzero(valid)
    out[pos + (idx[pos],)] = attrs.on_value
    return out


register(
    "one_hot",
    inputs=("indices",),
    params={
        "depth": Param(p_int),
        "on_value": Param(p_float, 1.0),
        "off_value": Param(p_float, 0.0),
        "dtype": Param(p_dtype, np.dtype(np.float32)),
    },
    infer_shape=lambda a, s: (s, [None if s[0] is None else tuple(s[0]) + (a.depth,)]),
    infer_type=lambda a, t: (t, [a.dtype]),
)(one_hot)

# ----------------------------------------------------------------------------- Embedding


def _emb_shape(attrs, in_shapes):
    data, w = in_shapes
    want = (attrs.input_dim, attrs.output_dim)
    try:
        w = merge_shape(w, want)
    except ShapeError:
        raise ShapeError(
            "Shape inconsistent, Provided = {}, inferred shape = {} (Embedding "
            "weight from input_dim={}, output_dim={})".format(
                fmt_shape(in_shapes[1]), fmt_shape(want), attrs.input_dim, attrs.output_dim
            )
        ) from None
    return [data, w], [None if data is None else tuple(data) + (attrs.output_dim,)]


def _emb_type(attrs, in_types):
    w = in_types[1] if in_types[1] is not None else attrs.dtype
    return [in_types[0], w], [w]


def embedding(attrs, data, weight):
    """Rows of `weight` (input_dim, output_dim) at the (clipped, truncated) indices `data`."""
    _emb_shape(attrs, [data.shape, weight.shape])
    idx = np.clip(_int_index(data), 0, attrs.input_dim - 1)
    return weight[idx]


register(
    "Embedding",
    inputs=("data", "weight"),
    params={
        "input_dim": Param(p_int),
        "output_dim": Param(p_int),
        "dtype": Param(p_dtype, np.dtype(np.float32)),
        "sparse_grad": Param(p_bool, False),
    },
    infer_shape=_emb_shape,
    infer_type=_emb_type,
)(embedding)

# ----------------------------------------------------------------------------- SequenceMask


def _seqmask_inputs(attrs):
    return ("data", "sequence_length") if attrs.use_sequence_length else ("data",)


def _seqmask_shape(attrs, in_shapes):
    data = in_shapes[0]
    if attrs.axis not in (0, 1):
        raise ShapeError("SequenceMask: axis must be 0 or 1, got {}".format(attrs.axis))
    if not attrs.use_sequence_length or data is None:
        return in_shapes, [data]
    if len(data) < 2:
        raise ShapeError(
            "SequenceMask needs data of at least 2 dimensions, got {}".format(fmt_shape(data))
        )
    batch = data[1 - attrs.axis]
    try:
        ln = merge_shape(in_shapes[1], (batch,))
    except ShapeError:
        raise ShapeError(
            "SequenceMask: sequence_length has shape {}, expected [{}] (the batch "
            "axis of data {})".format(fmt_shape(in_shapes[1]), batch, fmt_shape(data))
        ) from None
    return [data, ln], [data]


def sequence_mask(attrs, data, sequence_length=None):
    """Set positions at or beyond each sequence's length (along `axis`, the time axis) to
    `value`; identity without use_sequence_length."""
    _seqmask_shape(
        attrs, [data.shape] + ([] if sequence_length is None else [sequence_length.shape])
    )
    if sequence_length is None:
        return data.copy()
    ax = attrs.axis
    t = np.arange(data.shape[ax])
    ln = _int_index(sequence_length)
    keep = t[:, None] < ln[None, :] if ax == 0 else t[None, :] < ln[:, None]
    keep = keep.reshape(keep.shape + (1,) * (data.ndim - 2))
    return np.where(keep, data, data.dtype.type(attrs.value))


register(
    "SequenceMask",
    inputs=_seqmask_inputs,
    params={
        "use_sequence_length": Param(p_bool, False),
        "value": Param(p_float, 0.0),
        "axis": Param(p_int, 0),
    },
    infer_shape=_seqmask_shape,
    infer_type=lambda a, t: (t, [t[0]]),
)(sequence_mask)

# ----------------------------------------------------------------------------- sort family


def _sort_axis(attrs, ndim, op):
    return None if attrs.axis is None else norm_axis(attrs.axis, ndim, op)


def _order(x, ax, ascend):
    """Stable argsort along `ax` (descending keeps the earlier of equal elements first)."""
    if ascend:
        return np.argsort(x, axis=ax, kind="stable")
    return np.argsort(-x if x.dtype.kind == "f" else x.max() - x, axis=ax, kind="stable")


def _flat_or(x, ax):
    return (x.reshape(-1), 0) if ax is None else (x, ax)


def _sort_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None]
    ax = _sort_axis(attrs, len(s), "sort")
    return in_shapes, [(prod(s),) if ax is None else tuple(s)]


def sort(attrs, x):
    """Sorted along `axis` (flattened when None), ascending unless is_ascend=False."""
    xv, ax = _flat_or(x, _sort_axis(attrs, x.ndim, "sort"))
    return np.take_along_axis(xv, _order(xv, ax, attrs.is_ascend), axis=ax)


def argsort(attrs, x):
    """Indices that sort along `axis` (flattened when None), in `dtype` (float32)."""
    xv, ax = _flat_or(x, _sort_axis(attrs, x.ndim, "argsort"))
    return _order(xv, ax, attrs.is_ascend).astype(attrs.dtype)


# sort and topk(ret_typ='value'/'both') have a hidden second output in MXNet, hence the
# output names "output0"(, "output1") that list_outputs shows
register(
    "sort",
    params={"axis": Param(p_opt(p_int), -1), "is_ascend": Param(p_bool, True)},
    output_names=("output0",),
    infer_shape=_sort_shape,
)(sort)
_IDX_DTYPES = p_enum("float16", "float32", "float64", "int32", "int64", "uint8")
register(
    "argsort",
    params={
        "axis": Param(p_opt(p_int), -1),
        "is_ascend": Param(p_bool, True),
        "dtype": Param(lambda v: np.dtype(_IDX_DTYPES(np.dtype(v).name)), np.dtype(np.float32)),
    },
    infer_shape=_sort_shape,
    infer_type=lambda a, t: (t, [a.dtype]),
)(argsort)


def _topk_k(attrs, n):
    k = attrs.k
    if k <= 0:
        return n
    if k > n:
        raise ShapeError("k must be smaller than {}, get k = {}".format(n + 1, k))
    return k


def _topk_shape(attrs, in_shapes):
    s = in_shapes[0]
    nout = 2 if attrs.ret_typ == "both" else 1
    if s is None:
        return in_shapes, [None] * nout
    ax = _sort_axis(attrs, len(s), "topk")
    if attrs.ret_typ == "mask":
        return in_shapes, [tuple(s)]
    if ax is None:
        out = (_topk_k(attrs, prod(s)),) if prod(s) else (0,)
    else:
        out = tuple(s)
        if s[ax]:
            out = out[:ax] + (_topk_k(attrs, s[ax]),) + out[ax + 1 :]
    return in_shapes, [out] * nout


def _topk_type(attrs, in_types):
    t = in_types[0]
    rt = attrs.ret_typ
    if rt == "both":
        return in_types, [t, attrs.dtype]
    return in_types, [attrs.dtype if rt == "indices" else t]


def topk(attrs, x):
    """The k largest (or smallest with is_ascend) along `axis`: their values, indices
    (default, in `dtype`), both, or a 0/1 mask of the input's shape."""
    ax0 = _sort_axis(attrs, x.ndim, "topk")
    xv, ax = _flat_or(x, ax0)
    k = _topk_k(attrs, xv.shape[ax])
    order = _order(xv, ax, attrs.is_ascend)
    idx = np.take(order, np.arange(k), axis=ax)
    rt = attrs.ret_typ
    if rt == "mask":
        mask = np.zeros(xv.shape, x.dtype)
        np.put_along_axis(mask, idx, 1, axis=ax)
        return mask.reshape(x.shape)
    if rt == "indices":
        return idx.astype(attrs.dtype)
    vals = np.take_along_axis(xv, idx, axis=ax)
    if rt == "value":
        return vals
    return vals, idx.astype(attrs.dtype)


register(
    "topk",
    params={
        "axis": Param(p_opt(p_int), -1),
        "k": Param(p_int, 1),
        "ret_typ": Param(p_enum("both", "indices", "mask", "value"), "indices"),
        "is_ascend": Param(p_bool, False),
        "dtype": Param(lambda v: np.dtype(_IDX_DTYPES(np.dtype(v).name)), np.dtype(np.float32)),
    },
    num_outputs=lambda a: 2 if a.ret_typ == "both" else 1,
    output_names=lambda a: {"both": ("output0", "output1"), "value": ("output0",)}.get(
        a.ret_typ, ("output",)
    ),
    infer_shape=_topk_shape,
    infer_type=_topk_type,
)(topk)
json_outputs("sort", lambda attrs: 2)
json_outputs("topk", lambda attrs: 2 if attrs.ret_typ in ("value", "both") else 1)

# ----------------------------------------------------------------------------- scatter / ravel


def _scatter_shape(attrs, in_shapes):
    data, idx = in_shapes
    if idx is not None and data is not None:
        m = idx[0]
        want = tuple(idx[1:]) + tuple(attrs.shape[m:])
        if m > len(attrs.shape) or tuple(data) != (want or (1,)):
            raise ShapeError(
                "scatter_nd: data {} and indices {} do not fit shape {}".format(
                    fmt_shape(data), fmt_shape(idx), attrs.shape
                )
            )
    return in_shapes, [tuple(attrs.shape)]


def scatter_nd(attrs, data, indices):
    """Zeros of `shape` with data written at `indices` (the inverse of gather_nd)."""
    _scatter_shape(attrs, [data.shape, indices.shape])
    out = np.zeros(attrs.shape, data.dtype)
    idx = _int_index(indices)
    out[tuple(idx[i] for i in range(idx.shape[0]))] = data.reshape(
        idx.shape[1:] + tuple(attrs.shape[idx.shape[0] :])
    )
    return out


register(
    "scatter_nd",
    inputs=("data", "indices"),
    params={"shape": Param(p_shape)},
    infer_shape=_scatter_shape,
    infer_type=lambda a, t: (t, [t[0]]),
)(scatter_nd)


def ravel_multi_index(attrs, data):
    """Flat indices into an array of `shape` from a (len(shape), ...) array of coordinates."""
    if data.shape[0] != len(attrs.shape):
        raise ShapeError(
            "ravel_multi_index: data {} must have {} rows (one per dimension of shape {})".format(
                fmt_shape(data.shape), len(attrs.shape), attrs.shape
            )
        )
    strides = np.cumprod((1,) + tuple(attrs.shape[:0:-1]))[::-1]
    flat = np.tensordot(strides, data.astype(np.int64), axes=1)
    return flat.astype(data.dtype).reshape(data.shape[1:] or (1,))


def unravel_index(attrs, data):
    """Coordinates (len(shape), ...) in an array of `shape` of the flat indices `data`."""
    return np.stack(
        np.unravel_index(data.astype(np.int64) % max(prod(attrs.shape), 1), attrs.shape)
    ).astype(data.dtype)


register(
    "_ravel_multi_index",
    aliases=("ravel_multi_index",),
    params={"shape": Param(p_shape)},
    infer_shape=lambda a, s: (s, [None if s[0] is None else (tuple(s[0][1:]) or (1,))]),
)(ravel_multi_index)
register(
    "_unravel_index",
    aliases=("unravel_index",),
    params={"shape": Param(p_shape)},
    infer_shape=lambda a, s: (s, [None if s[0] is None else (len(a.shape),) + tuple(s[0])]),
)(unravel_index)


# ----------------------------------------------------------------------------- boolean_mask
_MASK_AXIS = "boolean_mask: Check failed: axis == 0 ({} vs. 0) : Not supported yet"


def _boolean_mask_shape(attrs, in_shapes):
    """The rows kept depend on the index's values: the first dim is unknown (0) until the op
    runs, as in MXNet (whose hybridized graph then runs op by op, dynamic shapes)."""
    if attrs.axis != 0:
        raise ShapeError(_MASK_AXIS.format(attrs.axis))
    data, index = in_shapes
    if data is None:
        return in_shapes, [None]
    return [data, index if index is not None else (data[0],)], [(0,) + tuple(data[1:])]


def boolean_mask(attrs, data, index):
    """The rows of `data` where the 1-D `index` is nonzero (axis 0 only, as MXNet 1.9.1)."""
    if attrs.axis != 0:
        raise ShapeError(_MASK_AXIS.format(attrs.axis))
    if index.ndim != 1 or index.shape[0] != data.shape[0]:
        raise ShapeError(
            "boolean_mask: index {} must be 1-D with one entry per row of data {}".format(
                fmt_shape(index.shape), fmt_shape(data.shape)
            )
        )
    return data[np.asarray(index) != 0]


register(
    "_contrib_boolean_mask",
    inputs=("data", "index"),
    params={"axis": Param(p_int, 0)},
    infer_shape=_boolean_mask_shape,
    infer_type=lambda a, t: (t, [t[0]]),
)(boolean_mask)
# its output's shape is known only when it runs: a graph holding it runs node by node
get_op("_contrib_boolean_mask").dynamic_shape = True
