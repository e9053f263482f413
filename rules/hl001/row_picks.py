"""Row-wise picks written with NumPy-style indexing: `t[arange(t.shape[0]), idx]` (HL001).

`log_probs[mx.nd.arange(log_probs.shape[0]), ids]` (GluonNLP's sampler) takes element
`ids[i]` of row i. It cannot run hybridized twice over: a Symbol has no `.shape`, and `[]` on
a Symbol selects an output. MXNet 1.9.1 computes the NDArray form as (ndarray.py,
`_get_nd_advanced_indexing`): both index arrays cast to int32, broadcast together, stacked
on a new first axis, then `gather_nd(t, stacked)`. The rewrite writes that computation
with operators both array types have, the row numbers read from t in the graph:

    F.gather_nd(t, F.stack(F.contrib.arange_like(t, axis=0).astype('int32'),
                           idx.astype('int32')))

Same values, shape (trailing axes of t kept) and dtype; negative indices count from the end
and an index out of range raises, in both (gather_nd's own checks, MXNet 1.9.1). The arange
is `mx.nd.arange`, `nd.arange` or `F.arange` of `t.shape[0]` alone (float32, exact: a row
count is below 2**24 long before memory runs out), t a tensor named by a plain name (read
twice), no other index.

Unsafe: the original broadcasts the two index arrays, the rewrite stacks them, so they agree
only when idx has exactly t.shape[0] elements on one axis (one index per row, the use in
every caller we know). An idx of shape (1,) (the same column for every row) or of rank 2
works eagerly and fails in the rewrite; the analysis rarely knows idx's shape.
"""

from __future__ import annotations

from functools import partial
from typing import List, Optional

import libcst as cst

from .._build import call
from .._examples import net
from ..base import UNSAFE, Invalid, Valid
from ..values import call_argument, dotted_name, shape_index

Plan = tuple  # (the `t.shape` attribute, its edits, the safety), as the other HL001 planners


def plan_arange_index(rule, node: cst.Subscript, namespace: Optional[str]) -> List[Plan]:
    """The rewrite of `t[arange(t.shape[0]), idx]` as a gather_nd (see the module docstring)."""
    if namespace is None or not isinstance(node.value, cst.Name) or not rule.is_tensor(node.value):
        return []
    parts = [e.slice for e in node.slice]
    if len(parts) != 2 or not (isinstance(parts[0], cst.Index) and isinstance(parts[1], cst.Index)):
        return []
    rows, idx = parts[0].value, parts[1].value
    source = _arange_of_dim(rule, rows, namespace)
    if source is None or not (
        isinstance(source.value, cst.Name) and source.value.value == node.value.value
    ):
        return []
    if not rule.is_tensor(idx):
        return []
    int32 = [cst.Arg(cst.SimpleString("'int32'"))]
    row_numbers = cst.Call(
        func=cst.Attribute(
            call(f"{namespace}.contrib.arange_like", [node.value], [("axis", cst.Integer("0"))]),
            cst.Name("astype"),
        ),
        args=int32,
    )
    index = cst.Call(
        func=cst.Attribute(_parenthesized(idx), cst.Name("astype")),
        args=int32,
    )
    stacked = call(f"{namespace}.stack", [row_numbers, index])
    replacement = call(f"{namespace}.gather_nd", [node.value, stacked])
    return [(source, ((node, replacement),), UNSAFE)]


def _arange_of_dim(rule, expr: cst.BaseExpression, namespace: str) -> Optional[cst.Attribute]:
    """`mx.nd.arange(t.shape[0])` / `F.arange(t.shape[0])` -> the `t.shape` node."""
    if not isinstance(expr, cst.Call) or len(expr.args) != 1 or expr.args[0].keyword:
        return None
    dotted = dotted_name(expr.func)
    if dotted is None:
        return None
    if dotted != f"{namespace}.arange" and rule.state.module.qualify(dotted) not in (
        "mxnet.ndarray.arange",
        "mxnet.ndarray.ndarray.arange",
    ):
        return None
    stop = call_argument(expr, 0, "stop")
    source = shape_index(stop.value) if stop is not None and not stop.star else None
    if source is None or source[1] != 0:
        return None
    return source[0]


def _parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    """expr as the receiver of a method call (an operator expression needs parentheses)."""
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


# the rows of x picked by `ids`, an input
_net = partial(
    net, signature="F, x, ids", head="import mxnet as mx\nfrom mxnet.gluon import HybridBlock\n\n\n"
)


VALID: List[Valid] = []
INVALID = [
    # the rows of another tensor: nothing proves they are x's, reported only
    Invalid(
        net(
            "return x[np.arange(ids.shape[0]), ids]",
            signature="F, x, ids",
            head="import numpy as np\nfrom mxnet.gluon import HybridBlock\n\n\n",
        ),
        line=7,
    ),
    Invalid(
        _net("return x[mx.nd.arange(x.shape[0]), ids.reshape(-1)]"),
        line=7,
        fix=[
            ("import mxnet as mx\n", ""),  # (its only reader goes; `from mxnet.gluon` stays)
            (
                "x[mx.nd.arange(x.shape[0]), ids.reshape(-1)]",
                (
                    "F.gather_nd(x, F.stack(F.contrib.arange_like(x, axis=0).astype('int32'), "
                    "ids.reshape(-1).astype('int32')))"
                ),
            ),
        ],
        safety=UNSAFE,
    ),
    Invalid(
        _net("return x[F.arange(x.shape[0]), F.argmax(x, axis=1)]"),
        line=7,
        fix=(
            "x[F.arange(x.shape[0]), F.argmax(x, axis=1)]",
            (
                "F.gather_nd(x, F.stack(F.contrib.arange_like(x, axis=0).astype('int32'), "
                "F.argmax(x, axis=1).astype('int32')))"
            ),
        ),
        safety=UNSAFE,
    ),
]
