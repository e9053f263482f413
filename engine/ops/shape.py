"""Shape ops: reshape (MXNet's special codes), transpose, expand_dims, squeeze, flatten,
concat, stack, split, slice, slice_axis, slice_like, shape_array, size_array, add_n,
zeros_like, ones_like."""

from math import prod
from typing import Optional, Tuple

import numpy as np

from ..registry import (
    Param,
    ShapeError,
    elemwise_shape,
    merge_shape,
    p_axis,
    p_bool,
    p_int,
    p_opt,
    p_shape,
    register,
)
from ..base import MXNetError
from ._util import fmt_shape, norm_axis


def infer_reshape(
    src: Tuple[int, ...], target: Tuple[int, ...], reverse: bool = False, check_size: bool = True
):
    """MXNet 1.9.1's reshape algorithm (InferReshapeShape), quirks included: 0 copies a dim,
    -1 infers one, -2 copies the rest, -3 merges two, -4 splits one into the next two targets,
    `reverse` runs it on both lists reversed (so -4 only works reversed when its two targets
    come first). MXNet records the inferred position as the index in the *code list*, which
    differs from the output position after -2/-3/-4 (`(2, 3)` with `(-2, -1)` gives (2, 1, 1)
    in MXNet, and so here). MXNet's Reshape op never checks the total size (eager `nd.reshape`
    and Symbol graphs alike) and reads undefined memory when it differs; the engine raises
    instead, saying so (`check_size=False` returns the shape MXNet infers, for NDArray.reshape,
    which checks the size itself). Unknown source dims (0) give unknown output dims."""
    dshape = list(reversed(src)) if reverse else list(src)
    tshape = list(reversed(target)) if reverse else list(target)
    out = []
    src_idx = 0
    inf_idx = -1
    i = 0
    while i < len(tshape):
        code = tshape[i]
        if code == 0:
            if src_idx >= len(dshape):
                raise ShapeError(
                    "reshape: code 0 at position {} has no matching input dimension in {}".format(
                        i, fmt_shape(src)
                    )
                )
            out.append(dshape[src_idx])
            src_idx += 1
        elif code == -1:
            if inf_idx >= 0:
                raise ShapeError("One and only one dim can be inferred")
            inf_idx = i
            out.append(1)
            src_idx += 1
        elif code == -2:
            out.extend(dshape[src_idx:])
            src_idx = len(dshape)
        elif code == -3:
            if src_idx + 1 >= len(dshape):
                raise ShapeError(
                    "reshape: -3 needs two input dimensions, {} has too few".format(fmt_shape(src))
                )
            d1, d2 = dshape[src_idx], dshape[src_idx + 1]
            out.append(d1 * d2)
            src_idx += 2
        elif code == -4:
            if i + 2 >= len(tshape) or src_idx >= len(dshape):
                raise ShapeError("reshape: -4 needs an input dim and two following targets")
            d0 = dshape[src_idx]
            src_idx += 1
            d1, d2 = tshape[i + 1], tshape[i + 2]
            i += 2
            if d1 == -1 and d2 == -1:
                raise ShapeError("Split dims cannot both be -1.")
            if d1 < -1 or d2 < -1:  # MXNet: "shape dim size must be >= -1"
                raise ShapeError(
                    "reshape: the two dims after -4 must be sizes or -1, got {}, {}".format(d1, d2)
                )
            if d1 == -1:
                d1 = d0 // d2 if d0 else 0
            if d2 == -1:
                d2 = d0 // d1 if d0 else 0
            if d0 and d1 * d2 != d0:
                raise ShapeError(
                    "Split dims {}, {} do not divide original dim {}".format(d1, d2, d0)
                )
            out += [d1, d2]
        elif code < -4:
            raise ShapeError("reshape: invalid code {}".format(code))
        else:
            out.append(code)
            src_idx += 1
        i += 1
    known = 0 not in dshape
    if 0 <= inf_idx < len(out):  # (past the end MXNet writes out of bounds: the 1 stays)
        if known:
            rest = prod(out)
            out[inf_idx] = prod(dshape) // rest if rest else 0
        else:
            out[inf_idx] = 0
    if reverse:
        out.reverse()
    if any(d < 0 for d in out):  # a code left unresolved: MXNet fails its dim-size check
        raise ShapeError(
            "Cannot reshape array of shape {} into shape {}: dimension sizes {} "
            "are not all known".format(fmt_shape(src), fmt_shape(target), fmt_shape(out))
        )
    if check_size and (known and 0 not in out and prod(out) != prod(dshape) or known and 0 in out):
        raise ShapeError(
            "Cannot reshape array of shape {} into shape {}: target size {} "
            "differs from {} (MXNet 1.9.1 does not check this: it gives shape {} "
            "and computes garbage from memory outside the array, or crashes)".format(
                fmt_shape(src), fmt_shape(target), prod(out), prod(dshape), fmt_shape(tuple(out))
            )
        )
    return tuple(out)


def _reshape_shape(attrs, in_shapes):
    src = in_shapes[0]
    if src is None:
        return in_shapes, [None]
    return in_shapes, [infer_reshape(src, attrs.shape, attrs.reverse)]


def _reshape(attrs, x):
    """Reshape with MXNet's special codes (a view when possible)."""
    return x.reshape(infer_reshape(x.shape, attrs.shape, attrs.reverse))


register(
    "Reshape",
    aliases=("reshape",),
    view=True,
    params={
        "shape": Param(p_shape, ()),
        "reverse": Param(p_bool, False),
        "target_shape": Param(p_shape, ()),
        "keep_highest": Param(p_bool, False),
    },
    infer_shape=_reshape_shape,
)(_reshape)


def _transpose_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None]
    axes = attrs.axes or tuple(reversed(range(len(s))))
    if sorted(a % len(s) for a in axes) != list(range(len(s))):
        raise ShapeError("transpose: axes {} do not match an input of rank {}".format(axes, len(s)))
    return in_shapes, [tuple(s[a] for a in axes)]


def _transpose(attrs, x):
    """Permute axes (reverse them when `axes` is empty)."""
    axes = attrs.axes or None
    if axes is not None and sorted(a % x.ndim for a in axes) != list(range(x.ndim)):
        _transpose_shape(attrs, [x.shape])
    return np.transpose(x, axes)


register("transpose", view=True, params={"axes": Param(p_shape, ())}, infer_shape=_transpose_shape)(
    _transpose
)


def _expand_dims_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None]
    ax = norm_axis(attrs.axis, len(s) + 1, "expand_dims")
    return in_shapes, [tuple(s[:ax]) + (1,) + tuple(s[ax:])]


def _expand_dims(attrs, x):
    """Insert a size-1 axis at `axis`."""
    return np.expand_dims(x, norm_axis(attrs.axis, x.ndim + 1, "expand_dims"))


register("expand_dims", view=True, params={"axis": Param(p_int)}, infer_shape=_expand_dims_shape)(
    _expand_dims
)


def _squeeze_out(attrs, s):
    if attrs.axis is None:
        out = tuple(d for d in s if d != 1)
    else:
        axes = attrs.axis if isinstance(attrs.axis, tuple) else (attrs.axis,)
        axes = {norm_axis(a, len(s), "squeeze") for a in axes}
        for a in axes:
            if s[a] != 1:
                raise ShapeError(
                    "Cannot select an axis to squeeze out which has size={} not "
                    "equal to one".format(s[a])
                )
        out = tuple(d for i, d in enumerate(s) if i not in axes)
    return out or (1,)


def _squeeze_shape(attrs, in_shapes):
    s = in_shapes[0]
    return in_shapes, [None if s is None else _squeeze_out(attrs, s)]


def _squeeze(attrs, x):
    """Remove size-1 axes (all, or the given ones); never below one dimension."""
    return x.reshape(_squeeze_out(attrs, x.shape))


register(
    "squeeze", view=True, params={"axis": Param(p_opt(p_axis), None)}, infer_shape=_squeeze_shape
)(_squeeze)


def _flatten_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None or 0 in s:  # MXNet infers nothing from a partial shape here
        return in_shapes, [None]
    if len(s) == 0:
        return in_shapes, [(1, 1)]
    return in_shapes, [(s[0], prod(s[1:]))]


def _flatten(attrs, x):
    """Collapse all axes but the first."""
    return x.reshape(x.shape[0], -1) if x.ndim else x.reshape(1, 1)


register("Flatten", aliases=("flatten",), view=True, infer_shape=_flatten_shape)(_flatten)

# ----------------------------------------------------------------------------- concat / stack


def _concat_shape(attrs, in_shapes):
    known = [s for s in in_shapes if s is not None]
    if not known:
        return in_shapes, [None]
    nd = len(known[0])
    dim = norm_axis(attrs.dim, nd, "concat")
    base = None
    for i, s in enumerate(in_shapes):
        if s is None:
            continue
        if len(s) != nd:
            raise ShapeError(
                "concat: input {} has shape {}, rank differs from {}".format(
                    i, fmt_shape(s), fmt_shape(known[0])
                )
            )
        other = tuple(d for j, d in enumerate(s) if j != dim)
        try:
            base = merge_shape(base, other)
        except ShapeError:
            raise ShapeError(
                "concat: incompatible input shapes {} along dim={}".format(
                    ", ".join(fmt_shape(x) for x in in_shapes), attrs.dim
                )
            ) from None
    # as MXNet: unknown inputs get the common dims (0 along `dim`), the output sums the known
    # sizes along `dim` (its partial inference treats unknown ones as 0)
    sizes = [s[dim] for s in in_shapes if s is not None]
    total = 0 if 0 in sizes else sum(sizes)
    filled = []
    for s in in_shapes:
        if s is None:
            f = list(base)
            f.insert(dim, 0)
            s = tuple(f)
        filled.append(s)
    out = list(base)
    out.insert(dim, total)
    return filled, [tuple(out)]


def _concat(attrs, *xs):
    """Join arrays along `dim`."""
    try:
        return np.concatenate(xs, axis=attrs.dim)
    except ValueError:
        _concat_shape(attrs, [x.shape for x in xs])
        raise


register(
    "Concat",
    aliases=("concat",),
    inputs=None,
    key_var_num_args="num_args",
    params={"dim": Param(p_int, 1), "num_args": Param(p_int, 0)},
    infer_shape=_concat_shape,
)(_concat)


def _stack_shape(attrs, in_shapes):
    """MXNet 1.9.1's StackOpShape: the first input of known rank gives the shape, later inputs
    only fill its unknown dims (`shape_assign`, whose failure it ignores). So inputs of other
    shapes are not refused: `stack((9, 9), (1, 81))` is (9, 9, 2), each input's elements read
    in the first one's shape (MaskFlowNet's CorrBlock relies on it; blind round 12)."""
    base = None
    for s in in_shapes:
        base = _shape_assign(base, s)
    if base is None:
        return in_shapes, [None]
    ax = norm_axis(attrs.axis, len(base) + 1, "stack")
    out = list(base)
    out.insert(ax, len(in_shapes))
    return in_shapes, [tuple(out)]  # MXNet does not fill unknown inputs back


def _shape_assign(base, shape):
    """MXNet's `shape_assign(&base, shape)`, its result ignored: None and 0 dims are unknown;
    it stops at the first known dim that differs."""
    if base is None:
        return shape
    if shape is None or len(base) != len(shape):
        return base
    out = list(base)
    for i, (have, new) in enumerate(zip(base, shape)):
        if not have:
            out[i] = new
        elif new and have != new:
            break
    return tuple(out)


def _stack(attrs, *xs):
    """Join arrays along a new axis, each read in the shape MXNet infers (the first input's):
    an input of another size would be read past its end by MXNet (undefined), refused here."""
    shape = _stack_shape(attrs, [x.shape for x in xs])[1][0][:]
    base = list(shape)
    del base[norm_axis(attrs.axis, len(shape), "stack")]
    size = int(np.prod(base, dtype=np.int64))
    for i, x in enumerate(xs):
        if x.size != size:
            raise ShapeError(
                "stack: input {} has {} elements where the first input's shape {} holds {}: "
                "MXNet 1.9.1 reads it in that shape, past its end (undefined)".format(
                    i, x.size, fmt_shape(tuple(base)), size
                )
            )
    return np.stack([x.reshape(base) for x in xs], axis=attrs.axis)


register(
    "stack",
    inputs=None,
    key_var_num_args="num_args",
    params={"axis": Param(p_int, 0), "num_args": Param(p_int, 0)},
    infer_shape=_stack_shape,
)(_stack)


def _add_n(attrs, *xs):
    """Sum of same-shape arrays."""
    elemwise_shape(attrs, [x.shape for x in xs])
    out = xs[0].copy()
    for x in xs[1:]:
        out += x
    return out


def _add_n_shape(attrs, in_shapes):
    ins, outs = elemwise_shape(attrs, in_shapes)
    return ins, outs


register(
    "add_n",
    aliases=("ElementWiseSum", "_sum"),
    inputs=None,
    key_var_num_args="num_args",
    params={"num_args": Param(p_int, 0)},
    infer_shape=_add_n_shape,
)(_add_n)

# ----------------------------------------------------------------------------- split


def _split_shape(attrs, in_shapes):
    s = in_shapes[0]
    n = attrs.num_outputs
    if s is None:
        return in_shapes, [None] * n
    ax = norm_axis(attrs.axis, len(s), "split")
    if s[ax] and s[ax] % n:
        raise ShapeError(
            "num_outputs ({}) does not divide input dimension {} of shape {} on axis {}".format(
                n, s[ax], fmt_shape(s), attrs.axis
            )
        )
    part = list(s)
    part[ax] = s[ax] // n
    if attrs.squeeze_axis:
        if part[ax] != 1:
            raise ShapeError(
                "split with squeeze_axis=True needs num_outputs equal to the axis "
                "size ({} vs {})".format(n, s[ax])
            )
        del part[ax]
    return in_shapes, [tuple(part)] * n


def _split(attrs, x):
    """Split into `num_outputs` equal parts along `axis` (optionally squeezing that axis)."""
    _split_shape(attrs, [x.shape])
    ax = norm_axis(attrs.axis, x.ndim, "split")
    parts = np.split(x, attrs.num_outputs, axis=ax)
    if attrs.squeeze_axis:
        parts = [p.reshape(p.shape[:ax] + p.shape[ax + 1 :]) for p in parts]
    # one output is one array (a 1-tuple became a (1, ...) array in compiled plans, and
    # mx.nd.split(..., num_outputs=1) returns an NDArray in MXNet, not a list)
    return tuple(parts) if len(parts) > 1 else parts[0]


register(
    "SliceChannel",
    aliases=("split",),
    view=True,
    params={
        "num_outputs": Param(p_int),
        "axis": Param(p_int, 1),
        "squeeze_axis": Param(p_bool, False),
    },
    num_outputs=lambda attrs: attrs.num_outputs,
    infer_shape=_split_shape,
)(_split)

# ----------------------------------------------------------------------------- slicing


def p_opt_tuple(v) -> Tuple[Optional[int], ...]:
    """A tuple whose entries may be None: (0, None), "(0,None)", "[1, 2]"."""
    if isinstance(v, str):
        s = v.strip().strip("()[]")
        return tuple(
            None if t.strip() in ("None", "") else int(t)
            for t in s.split(",")
            if t.strip() != "" or False
        )
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    return tuple(None if t is None else int(t) for t in v)


def _slice_keys(attrs, shape):
    keys = []
    step = attrs.step or ()
    for i, b in enumerate(attrs.begin):
        e = attrs.end[i] if i < len(attrs.end) else None
        st = step[i] if i < len(step) and step[i] is not None else 1
        if st == 0:
            raise ShapeError("slice step cannot be 0")
        keys.append(slice(b, e, st))
    if len(attrs.begin) > len(shape):
        raise ShapeError(
            "slice: begin {} has more axes than the input shape {}".format(
                attrs.begin, fmt_shape(shape)
            )
        )
    return tuple(keys)


def _slice_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None]
    keys = _slice_keys(attrs, s)
    out = []
    for i, d in enumerate(s):
        if i < len(keys) and d:
            out.append(len(range(*keys[i].indices(d))))  # may be 0: MXNet returns empty
        else:
            out.append(d)
    return in_shapes, [tuple(out)]


def _slice(attrs, x):
    """Basic slicing with begin/end/step tuples (None = whole axis).

    Out-of-range bounds are clipped as Python clips them, with one exception MXNet 1.9.1's
    MKL-DNN build (what `pip install mxnet` gives) makes: a float32 slice of a 1-, 2- or 4-D
    array (the ranks its MKL-DNN kernel takes) with unit steps whose negative begin reaches
    before an axis (`begin=-5` on 3 elements) fails, eagerly and hybridized ("could not
    construct a sub-memory"), where other dtypes, ranks and steps clip;
    `x[-k:]` rewritten as a slice is exact only when k is at most the axis's size (checked on
    MXNet 1.9.1: tests/test_engine_slice_bounds.py, tests/test_engine_slice_broadcast_property.py)."""
    _slice_shape(attrs, [x.shape])
    steps = attrs.step or ()
    if x.dtype == np.float32 and x.ndim in (1, 2, 4) and all(step in (None, 1) for step in steps):
        for axis, begin in enumerate(attrs.begin):
            if begin is not None and begin < -x.shape[axis]:
                raise MXNetError("could not construct a sub-memory")
    return x[_slice_keys(attrs, x.shape)].copy()


register(
    "slice",
    aliases=("crop",),
    params={"begin": Param(p_opt_tuple), "end": Param(p_opt_tuple), "step": Param(p_opt_tuple, ())},
    infer_shape=_slice_shape,
)(_slice)


def _slice_axis_shape(attrs, in_shapes):
    s = in_shapes[0]
    if s is None:
        return in_shapes, [None]
    ax = norm_axis(attrs.axis, len(s), "slice_axis")
    out = list(s)
    if s[ax]:
        out[ax] = _slice_axis_len(attrs, s[ax])
    return in_shapes, [tuple(out)]


def _slice_axis_len(attrs, d):
    b = attrs.begin + d if attrs.begin < 0 else attrs.begin
    e = d if attrs.end is None else (attrs.end + d if attrs.end < 0 else attrs.end)
    if not (0 <= b < e <= d):
        raise ShapeError(
            "slice_axis: invalid begin/end ({}, {}) for axis of size {}".format(
                attrs.begin, attrs.end, d
            )
        )
    return e - b


def _slice_axis(attrs, x):
    """Slice [begin, end) along one axis."""
    ax = norm_axis(attrs.axis, x.ndim, "slice_axis")
    n = _slice_axis_len(attrs, x.shape[ax])
    b = attrs.begin + x.shape[ax] if attrs.begin < 0 else attrs.begin
    key = [slice(None)] * x.ndim
    key[ax] = slice(b, b + n)
    return x[tuple(key)].copy()


register(
    "slice_axis",
    params={"axis": Param(p_int), "begin": Param(p_int), "end": Param(p_opt(p_int))},
    infer_shape=_slice_axis_shape,
)(_slice_axis)


def _slice_like_out(attrs, s, like):
    axes = attrs.axes or tuple(range(len(like)))
    out = list(s)
    for a in axes:
        a2 = norm_axis(a, len(s), "slice_like")
        if a2 >= len(like):
            raise ShapeError(
                "slice_like: axis {} out of range for shape_like {}".format(a, fmt_shape(like))
            )
        if like[a2] > s[a2]:
            raise ShapeError(
                "slice_like: shape_like {} is larger than data {} on axis {}".format(
                    fmt_shape(like), fmt_shape(s), a
                )
            )
        out[a2] = like[a2]
    return tuple(out)


def _slice_like_shape(attrs, in_shapes):
    s, like = in_shapes
    if s is None or like is None:
        return in_shapes, [None]
    if not attrs.axes and len(s) != len(like):
        raise ShapeError(
            "slice_like: data {} and shape_like {} need the same rank".format(
                fmt_shape(s), fmt_shape(like)
            )
        )
    return in_shapes, [_slice_like_out(attrs, s, like)]


def _slice_like(attrs, x, like):
    """Slice `x` to the shape of `like` on `axes` (all axes when empty)."""
    _slice_like_shape(attrs, [x.shape, like.shape])
    out = _slice_like_out(attrs, x.shape, like.shape)
    return x[tuple(slice(0, d) for d in out)].copy()


register(
    "slice_like",
    inputs=("data", "shape_like"),
    params={"axes": Param(p_shape, ())},
    infer_shape=_slice_like_shape,
    # only shape_like's shape is read: its dtype may differ from data's (as in MXNet)
    infer_type=lambda a, t: (t, [t[0]]),
)(_slice_like)

# ----------------------------------------------------------------------------- shape queries


def _shape_array(attrs, x):
    """The input's shape as an int64 array."""
    return np.array(x.shape, dtype=np.int64)


def _int64_out(attrs, in_types):
    return in_types, [np.dtype(np.int64)]


register(
    "shape_array",
    infer_shape=lambda a, s: (s, [None if s[0] is None else (len(s[0]),)]),
    infer_type=_int64_out,
)(_shape_array)


def _size_array(attrs, x):
    """The input's size as a one-element int64 array."""
    return np.array([x.size], dtype=np.int64)


register("size_array", infer_shape=lambda a, s: (s, [(1,)]), infer_type=_int64_out)(_size_array)


def _zeros_like(attrs, x):
    """Zeros of the input's shape and dtype."""
    return np.zeros_like(x)


def _ones_like(attrs, x):
    """Ones of the input's shape and dtype."""
    return np.ones_like(x)


register("zeros_like", infer_shape=elemwise_shape)(_zeros_like)
register("ones_like", infer_shape=elemwise_shape)(_ones_like)
