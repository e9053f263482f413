"""Slice bounds written with the sliced array's own dims: `x[:, :, :h - k]` after
`_, _, h, w = x.shape` (ALCNet's circular shift, border crops `x[:, :, p:h - p]`).

A Symbol has no shape, so such a bound cannot be computed hybridized; but a bound counted from
the end of its own axis needs no size: `h - k` is `-k` and `h` (as an end) is the end itself,
`None`. HL003's slice rewrite reads the bounds through `own_dim_bound`, so the subscript becomes
`F.slice(x, begin=(None, None, None), end=(None, None, -k))` and the unpacking is left unread
(HL001 then removes it). Exact when `0 < k <= h` (for k = 0 the original slices to h, `-0` to
0; for k > h Python clamps where MXNet refuses): the rewrite is unsafe unless both are known,
which HL003's safety already says of a bound that is not a non-negative literal.

The names count only when the function binds them once, at its top level, from the shape of
an array it never rebinds (`own_dims`): then every read is that dim of that array."""

from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from ._build import integer
from .values import bound_targets, literal_int, target_names, walk_nodes

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def own_dims(function: cst.FunctionDef, data: str) -> Dict[str, int]:
    """name -> axis for the names `function` binds to dims of `data` at its top level
    (`_, _, h, w = data.shape`, `w = data.shape[3]`), each bound once, `data` never bound."""
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    found: Dict[str, int] = {}
    for line in body:
        if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
            continue
        statement = line.body[0]
        if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
            continue
        target, value = statement.targets[0].target, statement.value
        if _is_shape_of(value, data) and isinstance(target, (cst.Tuple, cst.List)):
            if all(isinstance(e, cst.Element) for e in target.elements):
                for axis, element in enumerate(target.elements):
                    if isinstance(element.value, cst.Name):
                        found[element.value.value] = axis
        elif isinstance(target, cst.Name) and isinstance(value, cst.Subscript):
            index = _shape_index(value, data)
            if index is not None:
                found[target.value] = index
    if not found:
        return {}
    counts: Dict[str, int] = {}
    for node in walk_nodes(function.body, _SCOPES):
        for bound in bound_targets(node):
            for name in target_names(bound):
                counts[name] = counts.get(name, 0) + 1
    if counts.get(data):
        return {}
    return {name: axis for name, axis in found.items() if counts.get(name) == 1}


def own_dim_bound(
    expr: Optional[cst.BaseExpression], axis: int, dims: Dict[str, int], data: str, upper: bool
) -> Optional[cst.BaseExpression]:
    """The bound counted from the end that `expr` equals on axis `axis` of `data`: `-k` for
    `D - k` (k a positive int literal or a name, D the axis's dim: a name of `dims` or
    `data.shape[axis]`), `None` for `D` as an end; None when `expr` is neither."""
    if expr is None:
        return None
    if upper and _is_dim(expr, axis, dims, data):
        return cst.Name("None")
    if not (isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Subtract)):
        return None
    if not _is_dim(expr.left, axis, dims, data):
        return None
    right = expr.right
    number = literal_int(right)
    if number is not None:
        return integer(-number) if number > 0 else None
    if isinstance(right, (cst.Name, cst.Attribute)):
        return cst.UnaryOperation(operator=cst.Minus(), expression=right)
    return None


def _is_dim(expr: cst.BaseExpression, axis: int, dims: Dict[str, int], data: str) -> bool:
    if isinstance(expr, cst.Name):
        return dims.get(expr.value) == axis
    return isinstance(expr, cst.Subscript) and _shape_index(expr, data) == axis


def _is_shape_of(expr: cst.BaseExpression, data: str) -> bool:
    return (
        isinstance(expr, cst.Attribute)
        and expr.attr.value == "shape"
        and isinstance(expr.value, cst.Name)
        and expr.value.value == data
    )


def _shape_index(expr: cst.Subscript, data: str) -> Optional[int]:
    """k for `data.shape[k]` with a literal k >= 0."""
    if not _is_shape_of(expr.value, data) or len(expr.slice) != 1:
        return None
    element = expr.slice[0].slice
    if not isinstance(element, cst.Index):
        return None
    index = literal_int(element.value)
    return index if index is not None and index >= 0 else None
