"""`broadcast_to(t, x.shape)` as `broadcast_like(t, x)`: shared by HL001 (which reports the
`x.shape`) and HL006 (whose `nd.broadcast_to(t, x.shape)` becomes the F call at once).

`broadcast_to(t, x.shape)` and `broadcast_like(t, x)` agree on values, shape, dtype and on
every error (rank mismatch, a non-1 axis that differs), zero-size x included (both read a 0
dim as "keep t's"; checked on MXNet 1.9.1), so that rewrite is `safe` for tensors t and x.
A part of the shape, `F.broadcast_to(t, (x.shape[0], n))`, is reported only: the form that
reads it, `broadcast_like(t, x, lhs_axes=(0,), rhs_axes=(0,))`, fails unless t's axis is 1
(also where it already equals x's, which broadcast_to accepts) and fails on a zero dim that
broadcast_to keeps (MXNet 1.9.1), so it is exact only where t's axis is known to be 1.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from ._build import call
from .analysis import call_argument
from .base import SAFE

# (the `x.shape` / `x.ndim` node a plan removes, its (old node, replacement) pairs, safety)
Plan = Tuple[cst.Attribute, Tuple[Tuple[cst.CSTNode, cst.CSTNode], ...], str]


def plan_broadcast_to(rule, node: cst.Call, namespace: Optional[str]) -> List[Plan]:
    """`F.broadcast_to(t, x.shape)`, `t.broadcast_to(x.shape)` (also `shape=`) ->
    `F.broadcast_like(t, x)` / `t.broadcast_like(x)`, for tensors t and x."""
    func = node.func
    if not (isinstance(func, cst.Attribute) and func.attr.value == "broadcast_to"):
        return []
    namespaced = (
        namespace is not None and isinstance(func.value, cst.Name) and func.value.value == namespace
    )
    if namespaced:
        data, shape = call_argument(node, 0, "data"), call_argument(node, 1, "shape")
        count = 2
    else:
        data, shape = None, call_argument(node, 0, "shape")
        count = 1
    if shape is None or len(node.args) != count or any(a.star for a in node.args):
        return []
    source = shape.value
    if not (
        isinstance(source, cst.Attribute)
        and source.attr.value == "shape"
        and rule.is_tensor(source.value)
    ):
        return []
    if namespaced:
        if data is None or not rule.is_tensor(data.value):
            return []
        replacement = call(f"{namespace}.broadcast_like", [data.value, source.value])
    else:
        if not rule.is_tensor(func.value):
            return []
        replacement = cst.Call(
            func=func.with_changes(attr=cst.Name("broadcast_like")), args=[cst.Arg(source.value)]
        )
    return [(source, ((node, replacement),), SAFE)]
