"""HL009's fix for `F.repeat(<axis-0 singleton>, len(x), axis=0)`: `F.broadcast_like` along axis 0.

Why: tiling a per-batch constant to the batch size is the common use of `len(x)` that is not a
reshape (gluonts's binning returns bin centers repeated `len(data)` times). Hybridized, `len` of
a Symbol is 1, so the repeat silently yields one row. `F.broadcast_like(v, x, lhs_axes=(0,),
rhs_axes=(0,))` takes the length from `x` at run time, for NDArray and Symbol alike.

The two are equal only when `v`'s axis 0 has length 1 (broadcasting stretches a 1; `repeat`
would multiply a longer axis), so the fix is planned only where that is visible in the code:
`v` is `F.expand_dims(..., axis=0)` or `....expand_dims(axis=0)`. Then it is safe: the values
are the same for an NDArray, and the Symbol gets the length the NDArray had.
"""

from __future__ import annotations

from typing import Callable, Optional, Tuple

import libcst as cst

from .values import call_argument, dotted_name


def _is_zero(arg: Optional[cst.Arg]) -> bool:
    return arg is not None and isinstance(arg.value, cst.Integer) and arg.value.value == "0"


def _axis0_singleton(expr: cst.BaseExpression, namespace: str) -> bool:
    """`F.expand_dims(v, axis=0)` / `v.expand_dims(axis=0)` (or with a positional 0)."""
    if not isinstance(expr, cst.Call):
        return False
    if dotted_name(expr.func) == f"{namespace}.expand_dims":
        return _is_zero(call_argument(expr, 1, "axis"))
    if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "expand_dims":
        return _is_zero(call_argument(expr, 0, "axis"))
    return False


def _len_of(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    if (
        isinstance(expr, cst.Call)
        and dotted_name(expr.func) == "len"
        and len(expr.args) == 1
        and expr.args[0].keyword is None
        and not expr.args[0].star
    ):
        return expr.args[0].value
    return None


def plan_repeat_by_len(
    call: cst.Call,
    namespace: Optional[str],
    is_tensor: Callable[[cst.BaseExpression], bool],
) -> Optional[Tuple[cst.Call, cst.Call, cst.Call]]:
    """(len call, repeat call, its replacement) when `call` repeats an axis-0 singleton
    `len(x)` times along axis 0, else None."""
    if namespace is None or any(arg.star for arg in call.args):
        return None
    if dotted_name(call.func) == f"{namespace}.repeat":
        data, repeats, axis = (
            call_argument(call, 0, "data"),
            call_argument(call, 1, "repeats"),
            call_argument(call, 2, "axis"),
        )
        expected = {id(a) for a in (data, repeats, axis) if a is not None}
        data_value = data.value if data is not None else None
    elif isinstance(call.func, cst.Attribute) and call.func.attr.value == "repeat":
        repeats, axis = call_argument(call, 0, "repeats"), call_argument(call, 1, "axis")
        expected = {id(a) for a in (repeats, axis) if a is not None}
        data_value = call.func.value
    else:
        return None
    if data_value is None or repeats is None or not _is_zero(axis):
        return None
    if len(expected) != len(call.args):  # an argument the rewrite would drop
        return None
    length_of = _len_of(repeats.value)
    if length_of is None or not is_tensor(length_of) or not _axis0_singleton(data_value, namespace):
        return None
    code = cst.Module([]).code_for_node
    new = cst.parse_expression(
        f"{namespace}.broadcast_like({code(data_value)}, {code(length_of)}, "
        "lhs_axes=(0,), rhs_axes=(0,))"
    )
    assert isinstance(repeats.value, cst.Call)
    assert isinstance(new, cst.Call)
    return repeats.value, call, new
