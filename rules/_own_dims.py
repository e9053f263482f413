"""Slice bounds written with the sliced array's own dims: `x[:, :, :h - k]` after
`_, _, h, w = x.shape` (ALCNet's circular shift, border crops `x[:, :, p:h - p]`).

A Symbol has no shape, so such a bound cannot be computed hybridized; but a bound counted from
the end of its own axis needs no size: `h - k` is `-k` and `h` (as an end) is the end itself,
`None`. HL003's slice rewrite reads the bounds through `own_dim_bound`, so the subscript becomes
`F.slice(x, begin=(None, None, None), end=(None, None, -k))` and the unpacking is left unread
(HL001 then removes it). Exact when `0 < k <= h` (for k = 0 the original slices to h, `-0` to
0; for k > h Python clamps where MXNet refuses): the rewrite is unsafe unless both are known,
which HL003's safety already says of a bound that is not a non-negative literal.

The names count only where `_dim_bindings` (HL001's reading of dims) finds them valid: bound
once, at the top level, read only after, the array not assigned at or after the binding."""

from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from ._build import integer
from ._dim_bindings import FunctionScan
from .values import literal_int, shape_index


def own_dims(scan: FunctionScan, data: str) -> Dict[str, int]:
    """name -> axis (counted from the front) for the names a function binds to dims of `data`
    with a valid binding (`scan`: the function's `_dim_bindings`; bound once, at the top level,
    read only after, `data` not assigned at or after it)."""
    return {
        name: binding.axes[name]
        for name, binding in scan.by_name.items()
        if binding.data == data and binding.axes[name] >= 0
    }


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
    """`expr` is axis `axis` of `data`: a name of `dims`, or `data.shape[axis]`."""
    if isinstance(expr, cst.Name):
        return dims.get(expr.value) == axis
    dim = shape_index(expr)
    return (
        dim is not None
        and isinstance(dim[0].value, cst.Name)
        and dim[0].value.value == data
        and dim[1] == axis
    )
