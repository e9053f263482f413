"""HL004 inplace-arithmetic: `x += y` and friends on a tensor."""

from __future__ import annotations

from typing import Dict, Type, Union

import libcst as cst

from ._examples import net_xy
from .base import SAFE, UNSAFE, Invalid, Rule, Valid, invalid_table, valid_table
from .hl007_non_broadcast_arithmetic import BINARY as HL007_OPS
from .hl007_non_broadcast_arithmetic import shape_evidence

# the operators OPERATORS maps: each has whitespace_before/after (BaseAugOp/BaseBinaryOp do not declare it)
_AUG_OPS = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign)
_BinaryOp = Union[cst.Add, cst.Subtract, cst.Multiply, cst.Divide]
OPERATORS: Dict[Type[cst.BaseAugOp], Type[_BinaryOp]] = {
    cst.AddAssign: cst.Add,
    cst.SubtractAssign: cst.Subtract,
    cst.MultiplyAssign: cst.Multiply,
    cst.DivideAssign: cst.Divide,
}
_SYMBOLS = {
    cst.AddAssign: "+=",
    cst.SubtractAssign: "-=",
    cst.MultiplyAssign: "*=",
    cst.DivideAssign: "/=",
}


class InplaceArithmetic(Rule):
    code = "HL004"
    name = "inplace-arithmetic"
    message = "in-place arithmetic on a tensor raises NotImplementedForSymbol under hybridize; write `x = x + y`"
    explanation = """\
## What it does
Finds `x += y`, `x -= y`, `x *= y` and `x /= y` where `x` is a tensor inside `hybrid_forward`
and the helpers it calls.

## Why it breaks under hybridize
Symbols are immutable graph nodes. MXNet 1.9.1 raises
`NotImplementedForSymbol: Function __iadd__ (namely operator "+=") ... is not implemented for
Symbol and only available in NDArray.` (likewise `__isub__`, `__imul__`, `__itruediv__`).
`%=` and `**=` are not reported: Symbol defines neither `__imod__` nor `__ipow__`, so Python
falls back to `x = x % y` / `x = x ** y`, which hybridizes (checked against MXNet 1.9.1).

## Example
```python
def hybrid_forward(self, F, x):
    y = F.relu(x)
    y += 1
    return y
```

## Fix
```python
def hybrid_forward(self, F, x):
    y = F.relu(x)
    y = y + 1
    return y
```
The value is parenthesised when needed (`x -= a + b` → `x = x - (a + b)`). Rules HL007 may
then turn the new `+` into `F.broadcast_add` when the shapes can differ.

## Fix safety
Safe when the array was created in this function by an operator, arithmetic or a gluon
operator layer child (`self.conv(x)`; not a container, which may return its input) and was not
stored, returned, viewed (`reshape`, indexing) or passed on before the statement (nor anywhere
in a loop around it): then nobody else can observe the in-place write. Unsafe otherwise, in
particular for hybrid_forward's own inputs: eagerly `x += y` mutates the caller's array, and
`x = x + y` does not.
"""

    VALID = valid_table(
        net_xy,
        "n = 0\nn += 1\nreturn x * n",
        "z = F.relu(x)\nz **= 2\nz %= 3\nreturn z",  # fall back to z = z ** 2 on a Symbol
        "x = x + y\nreturn x",
        "if F is mx.nd:\n    x += y\nreturn x",
        "z = F.relu(x)\nz += 1  # hybridlint: ignore",
        Valid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, states):\n"
            "        outs = []\n        outs += [x]\n        return outs\n"
        ),
        # an input the body treats as a list (len, iteration): `z += x` extends a list
        "z = x * 2\nz += x\nreturn z[:len(x)]",
    )
    INVALID = invalid_table(
        net_xy,
        # an input used as tensors are used (arithmetic) is a tensor (issue 21 item 1); a list
        # is still possible (`x * 2` repeats one), so the fix resting on it is unsafe
        ("z = x * 2\nz += x\nreturn z", 4, ("z += x", "z = z + x"), UNSAFE),
        ("z = F.relu(x)\nz += y\nreturn z", 4, ("z += y", "z = z + y"), SAFE),
        ("z = x / 2\nz -= y + 1\nreturn z", 4, ("z -= y + 1", "z = z - (y + 1)"), SAFE),
        ("z = F.exp(x)\nz *= 2  # double it\nreturn z", 4, ("z *= 2", "z = z * 2"), SAFE),
        ("x += y\nreturn F.relu(x)", 3, ("x += y", "x = x + y"), UNSAFE),
        Invalid(
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.conv = nn.Dense(4, flatten=False)\n        self.body = nn.HybridSequential()\n\n"
            "    def hybrid_forward(self, F, x):\n        out = self.conv(x)\n        out += x\n"
            "        skip = self.body(x)\n        skip += out\n        return skip\n",
            line=9,
            fix=[("out += x", "out = out + x"), ("skip += out", "skip = skip + out")],
            safety=SAFE,
        ),
        ("z = F.relu(x)\nkeep = z\nz /= 2\nreturn z + keep", 5, ("z /= 2", "z = z / 2"), UNSAFE),
        ("z = x.reshape((0, -1))\nz *= 3\nreturn z", 4, ("z *= 3", "z = z * 3"), UNSAFE),
        # the shapes differ (a mean over every axis is (1,)): HL007 makes the `/` a broadcast
        # in the next pass, and the message says so (an STGCN loss's mask normalisation)
        (
            "z = F.relu(x)\nz /= F.mean(z)\nreturn z",
            4,
            ("z /= F.mean(z)", "z = z / F.mean(z)"),
            SAFE,
        ),
        Invalid(
            net_xy(
                "z = F.zeros_like(x)\nfor i in range(3):\n    outs.append(z)\n    z += x\nreturn z"
            ),
            line=6,
            fix=("z += x", "z = z + x"),
            safety=UNSAFE,
        ),
    )

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        aug = node.operator
        operator = OPERATORS.get(type(aug))
        target = node.target
        if (
            operator is None
            or not isinstance(aug, _AUG_OPS)
            or not isinstance(target, cst.Name)
            or not self.is_tensor(target)
        ):
            return
        assert self.facts is not None
        value = self.value(target)
        safe = (
            value.fresh
            and target.value not in self.facts.params
            and not self.facts.aliased_before(target.value, node)
        )
        right = node.value
        if (
            isinstance(
                right,
                (
                    cst.BinaryOperation,
                    cst.BooleanOperation,
                    cst.Comparison,
                    cst.IfExp,
                    cst.Lambda,
                    cst.NamedExpr,
                ),
            )
            and not right.lpar
        ):
            right = right.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        replacement = cst.Assign(
            targets=[cst.AssignTarget(target=target)],
            value=cst.BinaryOperation(
                left=target,
                operator=operator(
                    whitespace_before=aug.whitespace_before, whitespace_after=aug.whitespace_after
                ),
                right=right,
            ),
            semicolon=node.semicolon,
        )
        symbol = _SYMBOLS[type(node.operator)]
        advice = f"`{target.value} = {target.value} {symbol[:-1]} ...`"
        differ = (
            shape_evidence(value, self.value(node.value)) if self.is_tensor(node.value) else None
        )
        if differ is not None:  # HL007 then rewrites the `/` of this fix (the next pass)
            op = HL007_OPS[operator]
            advice = (
                f"`{target.value} = {self.namespace or 'F'}.{op}({target.value}, ...)` ({differ})"
            )
        self.report(
            node,
            f"`{target.value} {symbol} ...` on a tensor raises NotImplementedForSymbol under "
            f"hybridize; write {advice}",
            replacement=replacement,
            safety=SAFE if safe else UNSAFE,
        )
