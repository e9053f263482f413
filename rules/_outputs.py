"""Whether a tensor expression is certainly ONE array, not a call that may return several
(a child block, a multi-output operator). HL014 reports unpacking a single array, and the
iteration rewrite (`_iteration_fix`, for HL008 and HL014) splits only such an array: both ask
here, so neither rule reaches into the other."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from .analysis import MULTI_OUTPUT_ATTRS, MULTI_OUTPUT_COUNTS, MULTI_OUTPUT_OPS, dotted_name

if TYPE_CHECKING:  # pragma: no cover
    from .base import Rule

# Operators with several outputs in some configurations (besides the analysis's own lists).
MAYBE_MULTI_OUTPUT = (
    MULTI_OUTPUT_OPS
    | set(MULTI_OUTPUT_COUNTS)
    | {
        "topk",
        "amp_multicast",
        "multi_all_finite",
        "RNN",
        "BatchNorm",
        "contrib.BatchNormWithReLU",
        "linalg.syevd",
        "SliceChannel",
    }
)


def single_output(rule: "Rule", expr: cst.BaseExpression) -> bool:
    """A tensor that is certainly one array: a name the analysis holds for one, arithmetic
    on tensors, or an F operator / fluent method that has one output. Not a child block's
    call (`self._pre(x)` may return a tuple), nor a multi-output operator (`F.split`,
    `topk(ret_typ='both')`, `F.amp_multicast`): unpacking those is how they are used."""
    if not rule.is_tensor(expr):
        return False
    if isinstance(expr, (cst.Name, cst.BinaryOperation, cst.UnaryOperation)):
        return True
    if not (isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute)):
        return False
    owner, op = expr.func.value, expr.func.attr.value
    full = dotted_name(expr.func) or ""
    namespace = rule.namespace
    through_f = namespace is not None and full.startswith(namespace + ".")
    if not through_f and not rule.is_tensor(owner):
        return False
    name = full[len(namespace) + 1 :] if through_f and namespace is not None else op
    if name in MAYBE_MULTI_OUTPUT or op in MAYBE_MULTI_OUTPUT:
        return False
    return not any(
        a.keyword is not None
        and (a.keyword.value == "num_outputs" or a.keyword.value in MULTI_OUTPUT_ATTRS)
        for a in expr.args
    )
