"""HL009 len-or-print: `len(x)` on a tensor; `print` / logging of tensors."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

import libcst as cst

from ._len_repeat_fix import plan_repeat_by_len
from .analysis import call_argument, dotted_name
from .base import SAFE, Invalid, Rule, Valid, invalid_table, valid_table
from ._examples import constructor, net

LOG_METHODS = {"debug", "info", "warning", "warn", "error", "critical", "exception", "log"}
LOGGER_NAMES = {"logging", "logger", "log", "LOGGER", "LOG", "_logger", "_LOGGER"}


class LenOrPrint(Rule):
    code = "HL009"
    name = "len-or-print"
    message = "len()/print of a tensor changes meaning under hybridize"
    explanation = """\
## What it does
Finds `len(x)` on a tensor, and `print(...)` / `logging.<level>(...)` / `logger.<level>(...)`
calls that are given a tensor (directly, in an f-string, `%` or `.format` arguments) inside
`hybrid_forward` and the helpers it calls.

## Why it breaks under hybridize
`len(x)` of an NDArray is its first dimension; `len` of a Symbol is its number of *outputs*:
MXNet 1.9.1 silently returns 1, so `x.reshape((len(x), -1))` becomes `x.reshape((1, -1))` and
a mean over `len(x)` rows divides by 1. `print(x)` prints the values eagerly; hybridized, the
body of `hybrid_forward` runs once, while tracing, and prints `<Symbol data>`; afterwards the
cached graph runs and nothing is printed or logged at all.

## Example
```python
def hybrid_forward(self, F, x):
    print(x)
    return x.reshape((len(x), -1))
```

## Fix
Print in an eager-only branch (`if isinstance(x, mx.nd.NDArray): print(x)`) or outside the
block, on its outputs. `len(x)` as the first dimension of a reshape becomes the special code
`0` (copy dimension 0): `x.reshape((len(x), -1))` → `x.reshape((0, -1))`; a row tiled to
the batch, `F.repeat(F.expand_dims(c, axis=0), len(x), axis=0)`, becomes
`F.broadcast_like(F.expand_dims(c, axis=0), x, lhs_axes=(0,), rhs_axes=(0,))`; elsewhere use
shape-free ops (`F.shape_array(x)`, `F.slice_like`, `F.broadcast_like`, `F.mean`).

## Fix safety
The reshape rewrite is safe: `0` in position 0 copies dimension 0, which is what `len(x)` was
for an NDArray. The repeat rewrite is safe where axis 0 is visibly 1 (`expand_dims(axis=0)`):
broadcasting a length-1 axis is repeating it. Other `len(x)` and all printing/logging are reported without a fix.
"""

    VALID = valid_table(
        net,
        # a tuple behind a type test, in a helper (GluonNLP's sequence sampler)
        Valid(
            "def _expand(F, data, size):\n    if isinstance(data, (list, tuple)):\n"
            "        return [F.repeat(d, size) for d in data] + [None] * len(data)\n"
            "    return F.repeat(data, size)\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, states):\n"
            "        return _expand(F, states, 2), F.relu(x)\n"
        ),
        "parts = F.split(x, num_outputs=2)\nreturn x * len(parts)",
        "print('running')\nreturn x",
        # len() of an input only indexed and counted: a list of feature maps (analysis.list_inputs)
        Valid(
            "class Decoder(HybridBlock):\n    def hybrid_forward(self, F, feats):\n"
            "        x = feats[-1]\n        for i in range(len(feats) - 2, -1, -1):\n"
            "            x = F.UpSampling(x, scale=2, sample_type='nearest') + feats[i]\n"
            "        return x\n"
        ),
        "if isinstance(x, mx.nd.NDArray):\n    print(x)\nreturn x",
        "logging.info('shape %s', (2, 3))\nreturn x",
        "print(x)  # noqa: HL009\nreturn F.relu(x)",
    )
    INVALID = invalid_table(
        net,
        ("print(x)\nreturn F.relu(x)", 3),
        ("y = F.relu(x)\nlogging.info('activations: %s', y)\nreturn y", 4),
        ("y = F.relu(x)\nprint(f'y = {y}')\nreturn y", 4),
        ("self.logger.debug('x={}'.format(x))\nreturn F.relu(x)", 3),
        ("return x.sum(axis=0) / len(x)", 3),
        # an index of an input used as an array is an array (XKT's DKVMN: len(responses[0]),
        # its input settled as an array by an Embedding child)
        Invalid(
            "from mxnet.gluon import nn\n\n\n"
            + net(
                "length = len(x[0])\nreturn self.embed(x) * length",
                init=constructor("super().__init__()\nself.embed = nn.Embedding(4, 3)", ""),
            ),
            line=10,
        ),
        # counted and indexed, but also an operand: an array, not a list (analysis.list_inputs)
        ("y = F.relu(x)\nfor i in range(len(x)):\n    y = y + x[i]\nreturn y", 4),
        ("return x.reshape((len(x), -1))", 3, ("len(x)", "0"), SAFE),
        ("y = F.relu(x)\nreturn F.reshape(y, shape=(len(y), 4, -1))", 4, ("len(y)", "0"), SAFE),
        # a per-batch constant tiled to the batch (gluonts's binning): broadcast_like
        Invalid(
            net(
                "c = F.ones_like(x).sum(axis=0)\nreturn F.repeat(F.expand_dims(c, axis=0), len(x), axis=0)"
            ),
            line=4,
            fix=(
                "F.repeat(F.expand_dims(c, axis=0), len(x), axis=0)",
                "F.broadcast_like(F.expand_dims(c, axis=0), x, lhs_axes=(0,), rhs_axes=(0,))",
            ),
            safety=SAFE,
        ),
        Invalid(
            net("c = x.sum(axis=0)\nreturn c.expand_dims(axis=0).repeat(len(x), axis=0)"),
            line=4,
            fix=(
                "c.expand_dims(axis=0).repeat(len(x), axis=0)",
                "F.broadcast_like(c.expand_dims(axis=0), x, lhs_axes=(0,), rhs_axes=(0,))",
            ),
            safety=SAFE,
        ),
        # axis 0 of the repeated value is not visibly 1: repeat multiplies it; reported only
        ("c = F.relu(x)\nreturn F.repeat(c, len(x), axis=0)", 4),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # len call -> (edit, what the fix does)
        self._planned: Dict[cst.CSTNode, Tuple[Tuple[cst.CSTNode, cst.CSTNode], str]] = {}

    def visit_Call(self, node: cst.Call) -> None:
        self._plan_reshape(node)  # an enclosing reshape is visited before the len() inside it
        repeat = plan_repeat_by_len(node, self.namespace, self.is_tensor)
        if repeat is not None:
            self._planned[repeat[0]] = (
                (repeat[1], repeat[2]),
                "; broadcast_like along axis 0 takes the length from the tensor at run time",
            )
        func = dotted_name(node.func)
        if (
            func == "len"
            and "len" not in self.env
            and len(node.args) == 1
            and not node.args[0].star
        ):
            if self.is_tensor(node.args[0].value):
                self._report_len(node)
            return
        if func == "print" and "print" not in self.env:
            if any(self._mentions_tensor(arg.value) for arg in node.args if arg.keyword is None):
                self.report(
                    node,
                    "print() of a tensor prints once, while tracing (`<Symbol ...>`), and "
                    "never again after hybridize(); print in an eager-only branch or outside "
                    "the block",
                )
            return
        if func is not None and self._is_logging(func):
            if any(self._mentions_tensor(arg.value) for arg in node.args):
                self.report(
                    node,
                    "logging a tensor logs once, while tracing (`<Symbol ...>`), and never "
                    "again after hybridize(); log in an eager-only branch or outside the block",
                )

    # -- len ---------------------------------------------------------------------------------
    def _report_len(self, node: cst.Call) -> None:
        message = (
            "`len(x)` of a Symbol is its number of outputs (silently 1 under hybridize), not "
            "the first dimension"
        )
        planned = self._planned.pop(node, None)
        if planned is not None:
            edit, how = planned
            self.report(node, message + how, edits=[edit], safety=SAFE)
        else:
            self.report(
                node, message + "; use shape-free ops (reshape code 0, F.slice_like, F.mean ...)"
            )

    def _plan_reshape(self, call: cst.Call) -> None:
        """`x.reshape((len(x), ...))` / `F.reshape(x, shape=(len(x), ...))`: plan the 0 code."""
        name = dotted_name(call.func) or ""
        data = shape = None
        if (
            isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "reshape"
            and self.is_tensor(call.func.value)
            and len(call.args) == 1
            and call.args[0].keyword is None
        ):
            data, shape = call.func.value, call.args[0].value
        elif (
            self.namespace is not None
            and name in (f"{self.namespace}.reshape", f"{self.namespace}.Reshape")
            and call_argument(call, None, "reverse") is None
        ):
            data_arg, shape_arg = call_argument(call, 0, "data"), call_argument(call, 1, "shape")
            if data_arg is not None and shape_arg is not None:
                data, shape = data_arg.value, shape_arg.value
        if not isinstance(shape, (cst.Tuple, cst.List)) or not shape.elements:
            return
        first = shape.elements[0]
        length = first.value
        if (
            isinstance(length, cst.Call)
            and dotted_name(length.func) == "len"
            and len(length.args) == 1
            and _same(length.args[0].value, data)
        ):
            new = shape.with_changes(
                elements=[first.with_changes(value=cst.Integer("0"))] + list(shape.elements[1:])
            )
            self._planned[length] = ((shape, new), "; the reshape code 0 copies dimension 0")

    # -- print / logging ---------------------------------------------------------------------
    def _is_logging(self, func: str) -> bool:
        parts = func.split(".")
        if len(parts) < 2 or parts[-1] not in LOG_METHODS:
            return False
        owner = parts[-2]
        return (owner in LOGGER_NAMES or owner.endswith("logger")) and parts[0] not in self.env

    def _mentions_tensor(self, expr: cst.BaseExpression) -> bool:
        if self.is_tensor(expr):
            return True
        if isinstance(expr, cst.FormattedString):
            return any(
                isinstance(p, cst.FormattedStringExpression) and self._mentions_tensor(p.expression)
                for p in expr.parts
            )
        if (
            isinstance(expr, cst.BinaryOperation)
            and isinstance(expr.operator, cst.Modulo)
            and isinstance(expr.left, (cst.SimpleString, cst.ConcatenatedString))
        ):
            right = expr.right
            items = [e.value for e in right.elements] if isinstance(right, cst.Tuple) else [right]
            return any(self._mentions_tensor(item) for item in items)
        if (
            isinstance(expr, cst.Call)
            and isinstance(expr.func, cst.Attribute)
            and expr.func.attr.value == "format"
            and isinstance(expr.func.value, (cst.SimpleString, cst.ConcatenatedString))
        ):
            return any(self._mentions_tensor(arg.value) for arg in expr.args)
        return False


def _same(a: cst.BaseExpression, b: Optional[cst.BaseExpression]) -> bool:
    return isinstance(a, cst.Name) and isinstance(b, cst.Name) and a.value == b.value
