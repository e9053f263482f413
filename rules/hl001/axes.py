"""Shape-free rewrites HL001 offers (issue 12): rank arithmetic as a negative axis, and
tiles that are broadcasts, as `broadcast_like`.

A Symbol has no `.ndim`, but the operators below normalise a negative axis by the rank of
their data (MXNet 1.9.1: `axis += ndim`), so `axis=x.ndim - k` on an operator whose data is x
says the same as `axis=-k`, and needs no rank at all. `expand_dims` and `stack` add an axis,
so they normalise by `ndim + 1`: `axis=x.ndim - k` there is `axis=-(k + 1)`.

The rewrite is exact when the position is in range, i.e. k <= ndim (k = 1 for an ordinary
axis, k = 0 for an added one, always: both sides then name the last axis, or fail alike on a
rank-0 array). A larger k is safe only when the analysis knows x's rank; otherwise `unsafe`.

`F.tile(t, reps=(x.shape[i], 1, ...))` repeats t's axis j x.shape[i] times; that is a broadcast
only when t's axis j has size 1 (tiling a size-n axis concatenates copies) and when t's rank is
the number of reps (tile pads the shorter of the two with leading 1s). So the rewrite to
`F.broadcast_like(t, x, lhs_axes=(j,), rhs_axes=(i,))` is offered only when every tiled axis of
t is known to be 1. When the analysis knows t's shape (a parameter's declared shape, a literal,
expand_dims of one) and its rank is len(reps), the rewrite is exact (both fail alike on a 0
rep, checked on MXNet 1.9.1): safe. When t is `F.expand_dims(m, axis=j)` / `m.expand_dims(axis=j)`
(a literal j >= 0) of an m of unknown rank, axis j is 1 but the rank is not known: the rewrite
is exact when t's rank is len(reps) (the GluonNLP key-padding mask
`F.tile(mask.expand_dims(axis=1), reps=(1, q.shape[1], 1))` on a (B, Lk) mask) and differs
otherwise (tile pads the shorter of t and reps with leading 1s), so it is unsafe. A rep may
also be a name bound to a dim (`n = x.shape[0]`; rules/hl001/creation.py removes the binding
when every use is rewritten). Every other tile is reported only: tiling a size-n axis
concatenates copies, which no broadcast does.

`F.repeat(t, repeats=x.shape[i], axis=j)` / `t.repeat(repeats=x.shape[i], axis=j)` (gluoncv
0.4's MultiClassEncoder: `F.repeat(refs.reshape((0, 1, -1)), axis=1, repeats=matches.shape[1])`)
repeats each element along t's axis j; when that axis is known to be 1 (the analysis's shape,
its shape form, or an `expand_dims` with that axis) it is the broadcast
`F.broadcast_like(t, x, lhs_axes=(j,), rhs_axes=(i,))`, equal values on every x whose dim i is
not 0. At 0 they differ (MXNet 1.9.1: repeat returns an empty (0,) array, broadcast_like
raises), so the rewrite is unsafe.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Set, Tuple

import libcst as cst

from .. import _shape_forms as forms
from .._broadcast_like import Plan
from .._build import call, integer, tuple_of
from ..analysis import call_argument, literal_int
from ...mxnet_facts import ADDED_AXIS_OPS as _ADDED_AXIS_OPS  # MXNet facts: one module
from ...mxnet_facts import AXIS_OPS as _AXIS_OPS
from ...mxnet_facts import DIM_OPS as _DIM_OPS
from ..values import shape_index
from ..base import SAFE, UNSAFE

_DATA_KEYWORD = {"take": "a"}


def plan_ndim_axis(rule, node: cst.Call, namespace: Optional[str]) -> List[Plan]:
    """Plans for `F.op(x, axis=x.ndim - k)` / `x.op(axis=x.ndim - k)`: (the `x.ndim` node,
    the edit replacing the axis value, its safety)."""
    op, data = _operator_and_data(node, namespace)
    if op is None:
        return []
    keyword = "dim" if op in _DIM_OPS else "axis"
    axis = call_argument(node, None, keyword)
    if axis is None:
        return []
    parsed = _rank_minus(axis.value)
    if parsed is None:
        return []
    attribute, k = parsed
    if not any(isinstance(d, cst.Name) and d.value == attribute.value.value for d in data):  # type: ignore[attr-defined]
        return []  # the rank of another tensor than the operator's data: no evidence they match
    added = op in _ADDED_AXIS_OPS
    if k < (0 if added else 1):
        return []  # out of range in the original (axis == ndim): nothing to keep
    new_axis = -(k + 1) if added else -k
    shape = rule.value(attribute.value).shape
    safe = k == (0 if added else 1) or (shape is not None and len(shape) >= k)
    return [(attribute, ((axis.value, integer(new_axis)),), SAFE if safe else UNSAFE)]


def plan_tile(rule, node: cst.Call, namespace: Optional[str]) -> List[Plan]:
    """`F.tile(t, reps=(x.shape[i], 1, 1))` / `t.tile(reps=...)` -> `broadcast_like` over the
    tiled axes, when every tiled axis of t is known to be 1 (see the module docstring)."""
    rewritten = tile_rewrite(rule, node, namespace, lambda e: _direct_dim(rule, e))
    if rewritten is None:
        return []
    replacement, safety, consumed = rewritten
    return [(source, ((node, replacement),), safety) for source in consumed]  # type: ignore[misc]


def plan_repeat(rule, node: cst.Call, namespace: Optional[str]) -> List[Plan]:
    """`F.repeat(t, repeats=x.shape[i], axis=j)` / `t.repeat(...)` -> `broadcast_like` when
    t's axis j is known to be 1 (see the module docstring)."""
    first, tensor = _data_of(node, "repeat", namespace)
    if any(a.star for a in node.args):
        return []
    repeats, axis = call_argument(node, first, "repeats"), call_argument(node, first + 1, "axis")
    if tensor is None or repeats is None or axis is None or len(node.args) != first + 2:
        return []
    j = literal_int(axis.value)
    dim = _direct_dim(rule, repeats.value)
    if j is None or dim is None or not rule.is_tensor(tensor) or not _axis_is_one(rule, tensor, j):
        return []
    name, i, consumed = dim
    replacement = _broadcast_like(namespace, tensor, name, [j], [i])
    if replacement is None:
        return []
    return [(source, ((node, replacement),), UNSAFE) for source in consumed]  # type: ignore[misc]


def _data_of(
    node: cst.Call, op: str, namespace: Optional[str]
) -> Tuple[int, Optional[cst.BaseExpression]]:
    """(the position of the argument after the data, the data) of `F.<op>(t, ...)` or the
    fluent `t.<op>(...)`; the data is None for another call."""
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == op):
        return 0, None
    if namespace is not None and isinstance(func.value, cst.Name) and func.value.value == namespace:
        data = call_argument(node, 0, "data")
        return 1, data.value if data is not None else None
    return 0, func.value


def _axis_is_one(rule, tensor: cst.BaseExpression, axis: int) -> bool:
    """Whether t's axis `axis` (negative: from the end) is 1 at every rank t may have."""
    front, back = forms.ones(rule.value(tensor).form)
    if axis in (front if axis >= 0 else back):
        return True
    known = _size_one_axes(rule, tensor)
    if known is None:
        return False
    rank, ones = known
    if axis < 0:
        return rank is not None and -rank <= axis and axis + rank in ones
    return axis in ones


def _direct_dim(
    rule, expr: cst.BaseExpression
) -> Optional[Tuple[str, int, Tuple[cst.CSTNode, ...]]]:
    """`x.shape[i]` of a tensor named x -> (x, i, (the `x.shape` node,))."""
    source = shape_index(expr)
    if (
        source is None
        or not isinstance(source[0].value, cst.Name)
        or not rule.is_tensor(source[0].value)
    ):
        return None
    return source[0].value.value, source[1], (source[0],)


def tile_rewrite(
    rule, node: cst.Call, namespace: Optional[str], resolve: Callable
) -> Optional[Tuple[cst.BaseExpression, str, Tuple[cst.CSTNode, ...]]]:
    """(the broadcast_like replacing a tile call, its safety, the nodes it removes) or None.
    `resolve(element)` gives (tensor name, axis, removed nodes) for a rep that is a dim."""
    first, tensor = _data_of(node, "tile", namespace)
    reps = call_argument(node, first, "reps")
    if (
        tensor is None
        or reps is None
        or len(node.args) != first + 1
        or any(a.star for a in node.args)
        or not isinstance(reps.value, (cst.Tuple, cst.List))
        or not rule.is_tensor(tensor)
    ):
        return None
    known = _size_one_axes(rule, tensor)
    elements = [e.value for e in reps.value.elements]
    if known is None or (known[0] is not None and known[0] != len(elements)):
        return None
    rank, ones = known
    lhs, rhs, sources = [], [], []
    consumed: List[cst.CSTNode] = []
    for j, element in enumerate(elements):
        if literal_int(element) == 1:
            continue
        source = resolve(element)
        if source is None or j not in ones:
            return None
        lhs.append(j)
        rhs.append(source[1])
        sources.append(source[0])
        consumed.extend(source[2])
    if not sources or len(set(sources)) != 1:
        return None  # broadcast_like reads one tensor's shape
    replacement = _broadcast_like(namespace, tensor, sources[0], lhs, rhs)
    if replacement is None:
        return None
    return replacement, SAFE if rank is not None else UNSAFE, tuple(consumed)


def _broadcast_like(
    namespace: Optional[str], tensor: cst.BaseExpression, like: str, lhs: List[int], rhs: List[int]
) -> Optional[cst.BaseExpression]:
    """`F.broadcast_like(t, like, lhs_axes=(...), rhs_axes=(...))`; None without a namespace:
    MXNet 1.9.1's NDArray.broadcast_like(other) takes no axes (a TypeError eagerly)."""
    if namespace is None:
        return None
    keywords = [
        ("lhs_axes", tuple_of([integer(a) for a in lhs])),
        ("rhs_axes", tuple_of([integer(a) for a in rhs])),
    ]
    return call(f"{namespace}.broadcast_like", [tensor, cst.Name(like)], keywords)


def _size_one_axes(rule, tensor: cst.BaseExpression) -> Optional[Tuple[Optional[int], Set[int]]]:
    """(t's rank or None, the axes of t known to be 1): from the analysis's shape, or from
    `expand_dims(t, axis=j)` (axis j is 1; the rank is t's + 1 when t's is known)."""
    shape = rule.value(tensor).shape
    if shape is not None:
        return len(shape), {j for j, d in enumerate(shape) if d == 1}
    inner, axis = _expand_dims(rule, tensor)
    if inner is None or axis is None:
        return None, set()
    below = _size_one_axes(rule, inner)
    if below is None or below[0] is None:
        return (None, {axis}) if axis >= 0 else None
    rank = below[0] + 1
    if not -rank <= axis < rank:
        return None
    axis %= rank
    return rank, {a if a < axis else a + 1 for a in below[1]} | {axis}


def _expand_dims(
    rule, expr: cst.BaseExpression
) -> Tuple[Optional[cst.BaseExpression], Optional[int]]:
    """`F.expand_dims(t, axis=j)` / `t.expand_dims(axis=j)` (a literal j) -> (t, j)."""
    if not (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "expand_dims"
    ) or any(a.star for a in expr.args):
        return None, None
    namespace = rule.namespace
    if (
        namespace is not None
        and isinstance(expr.func.value, cst.Name)
        and expr.func.value.value == namespace
    ):
        data, axis, count = call_argument(expr, 0, "data"), call_argument(expr, 1, "axis"), 2
        inner = data.value if data is not None else None
    else:
        axis, count, inner = call_argument(expr, 0, "axis"), 1, expr.func.value
    if inner is None or axis is None or len(expr.args) != count or not rule.is_tensor(inner):
        return None, None
    return inner, literal_int(axis.value)


def _operator_and_data(
    node: cst.Call, namespace: Optional[str]
) -> Tuple[Optional[str], List[cst.BaseExpression]]:
    """(operator name, its data operands) for `F.op(...)` or the fluent `x.op(...)`."""
    func = node.func
    if not isinstance(func, cst.Attribute):
        return None, []
    op = func.attr.value
    if op not in _AXIS_OPS | _DIM_OPS | _ADDED_AXIS_OPS:
        return None, []
    if namespace is not None and isinstance(func.value, cst.Name) and func.value.value == namespace:
        if op in _DIM_OPS or op == "stack":
            return op, [a.value for a in node.args if a.keyword is None and not a.star]
        data = call_argument(node, 0, _DATA_KEYWORD.get(op, "data"))
        return op, [data.value] if data is not None else []
    if op in _DIM_OPS or op == "stack":
        return None, []  # no fluent form takes the other operands' rank
    return op, [func.value]


def _rank_minus(expr: cst.BaseExpression) -> Optional[Tuple[cst.Attribute, int]]:
    """`x.ndim` -> (the attribute, 0); `x.ndim - k` for a literal k -> (the attribute, k)."""
    if (
        isinstance(expr, cst.Attribute)
        and expr.attr.value == "ndim"
        and isinstance(expr.value, cst.Name)
    ):
        return expr, 0
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Subtract):
        inner = _rank_minus(expr.left)
        k = literal_int(expr.right)
        if inner is not None and inner[1] == 0 and k is not None and k >= 0:
            return inner[0], k
    return None
