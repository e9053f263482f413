"""HL007 non-broadcast-arithmetic: `+ - * / % **` and comparisons between tensors whose shapes can differ."""

from __future__ import annotations

from typing import Dict, Optional, Type

import libcst as cst

from ._build import call, strip_parens
from ._constant_param import binds, constant_shape
from .analysis import LOST, TENSOR, Shape, Value, call_argument, literal_int
from .base import SAFE, Invalid, Rule, Valid

BINARY: Dict[Type[cst.CSTNode], str] = {
    cst.Add: "broadcast_add",
    cst.Subtract: "broadcast_sub",
    cst.Multiply: "broadcast_mul",
    cst.Divide: "broadcast_div",
    cst.Modulo: "broadcast_mod",
    cst.Power: "broadcast_power",
}
COMPARISON: Dict[Type[cst.CSTNode], str] = {
    cst.Equal: "broadcast_equal",
    cst.NotEqual: "broadcast_not_equal",
    cst.LessThan: "broadcast_lesser",
    cst.LessThanEqual: "broadcast_lesser_equal",
    cst.GreaterThan: "broadcast_greater",
    cst.GreaterThanEqual: "broadcast_greater_equal",
}
_ONES_EVIDENCE = ("reduction_keepdims", "expand_dims")
_WHAT = {
    "reduction_keepdims": "a reduction with keepdims=True",
    "expand_dims": "expand_dims",
    "reduction": "a reduction",
    "literal": "a literal shape with 1s",
    "parameter": "a parameter whose shape has 1s",
    "reshape": "a reshape to a shape with 1s",
}

_FIXED = {"literal": "a literal shape", "parameter": "a parameter"}

_ANCHORS = (
    "import numpy as np\n\n\nclass Net(HybridBlock):\n    def __init__(self, anchors=(10, 13, 16, 30)):\n"
    "        super().__init__()\n        anchors = np.array(anchors).reshape(1, -1, 2)\n"
    "        with self.name_scope():\n"
    "            self.anchors = self.params.get_constant('anchors', anchors)\n\n"
    "    def hybrid_forward(self, F, x, anchors):\n"
)
_HEAD = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n"


def _net(body: str) -> str:
    return _HEAD + "".join("        " + line + "\n" for line in body.splitlines())


def _dims(shape: Shape) -> str:
    """A shape for a message, a dim set when the block is built shown as `n`: `(n, 4)`."""
    if None not in shape:
        return str(shape)
    dims = ["n" if d is None else str(d) for d in shape]
    return "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"


def shape_evidence(a: Value, b: Value) -> Optional[str]:
    """Why the shapes of tensors `a` and `b` can differ, or None when there is no evidence.

    Known, equal shapes are never evidence; operands made the same way (both reductions, both
    expand_dims) are not either, since nothing says their shapes differ.
    """
    if LOST in (a.shape_reason, b.shape_reason):
        return None  # `(indices % in_size[1]) * mask`: what the unknown operand did is unknown
    if a.shape is not None and b.shape is not None and None not in a.shape and None not in b.shape:
        return None if a.shape == b.shape else f"shapes {a.shape} and {b.shape}"
    for mine, other in ((a, b), (b, a)):
        reason = mine.shape_reason
        if reason in _ONES_EVIDENCE or reason == "reduction":
            if other.shape_reason != reason:
                return f"one operand comes from {_WHAT[reason]}"
        elif (
            reason in ("literal", "parameter", "reshape")
            and mine.shape is not None
            and 1 in mine.shape
        ):
            # the other operand known to have the same shape (1s in the same places) is no evidence
            if (other.shape_reason, other.shape) != (
                reason,
                mine.shape,
            ) and other.shape != mine.shape:
                return f"one operand has shape {_dims(mine.shape)} ({_WHAT[reason]})"
        elif (
            reason in ("literal", "parameter")
            and mine.shape is not None
            and (None not in mine.shape or reason == "parameter")
            and other.shape is None
            and other.shape_reason != reason
        ):
            # a fixed shape (a literal, a parameter) against a tensor of unknown shape, e.g. a
            # batch: equal only by coincidence. A parameter's declared shape is fixed when the
            # block is built even where its dims are constructor arguments (`shape=(units,)`):
            # nothing computed in hybrid_forward from the inputs has it but by coincidence
            shown = _dims(mine.shape)
            return f"one operand has the fixed shape {shown} ({_FIXED[reason]})"
    return None


class NonBroadcastArithmetic(Rule):
    code = "HL007"
    name = "non-broadcast-arithmetic"
    message = (
        "arithmetic between tensors of different shapes does not broadcast on Symbols; "
        "use F.broadcast_*"
    )
    explanation = """\
## What it does
Finds `+ - * / % **` and `== != < <= > >=` between two tensors inside `hybrid_forward` (and
the helpers it calls) when their shapes can differ. Evidence that they can: one operand comes
from a reduction (`x.sum(axis=1)`, with or without `keepdims=True`), from `expand_dims`, from a
literal shape with 1s (`F.ones((1, 3))`), from a parameter or a reshape whose shape has 1s, a
literal or parameter shape (`F.full((3,), v)`, `self.params.get('bias', shape=(3,))`, a
`get_constant` of a literal) against a tensor of unknown shape (an input with a batch axis) —
a parameter's shape is fixed when the block is built also where its dims are constructor
arguments (`shape=(units,)`), and a constant built in `__init__` from an array reshaped to
literal dims (`np.array(anchors).reshape(1, -1, 2)`) has those dims —, or
both shapes are known and differ, or the operands are `expand_dims` on different axes (the
pairwise `q.expand_dims(2) + k.expand_dims(1)`). Tensors without such evidence — the residual
`out + x` — are not reported.

## Why it breaks under hybridize
NDArray operators always broadcast (`x + y` is `broadcast_add(x, y)`), Symbol operators never
do (`x + y` is the elementwise `_Plus`). In MXNet 1.9.1 hybridizing `x + x.sum(axis=1,
keepdims=True)` raises
`MXNetError: Error in operator ..._plus0: ... Check failed: assign(&dattr, vec.at(i)):
Incompatible attr in node ..._plus0 at 1-th input: expected [2,3], got [2,1]`.

## Example
```python
def hybrid_forward(self, F, x):
    return x - x.mean(axis=1, keepdims=True)
```

## Fix
```python
def hybrid_forward(self, F, x):
    return F.broadcast_sub(x, x.mean(axis=1, keepdims=True))
```
`+ - * / % **` become `F.broadcast_add`, `broadcast_sub`, `broadcast_mul`, `broadcast_div`,
`broadcast_mod`, `broadcast_power`; `== != < <= > >=` become `F.broadcast_equal`,
`broadcast_not_equal`, `broadcast_lesser`, `broadcast_lesser_equal`, `broadcast_greater`,
`broadcast_greater_equal`. Operand order is kept.

Operands must be tensors by evidence (not a hybrid_forward input nothing proves to be an
array, nor a helper's parameter a caller may pass as a Python number). Blocks in numpy mode
(`@use_np`, `F.np.*`, `npx.set_np()`) are left alone: numpy symbols broadcast.

## Fix safety
Safe: between two NDArrays MXNet's operators *are* the broadcast operators, so the eager result
is unchanged; hybridized, `broadcast_*` on equal shapes computes the elementwise operator and on
different shapes what the eager code computed. Only tensor–tensor operations are rewritten
(a Python scalar operand stays an operator: `broadcast_*` needs two arrays).
"""

    VALID = [
        # a helper's operand the caller may pass as a Python number (`beta=self._beta`): unproven,
        # and broadcast_sub would reject the number (`Argument rhs must have NDArray type`)
        Valid(
            "def _loss(F, d_ap, beta):\n    d = d_ap.sum(axis=1, keepdims=True)\n    return d - beta\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n"
            "        return _loss(F, F.relu(x), self._beta)\n"
        ),
        Valid(_net("out = F.relu(x)\nreturn out + x")),
        Valid(_net("return x * 2 + 1")),
        Valid(_net("a = x.sum(axis=1)\nb = y.sum(axis=1)\nreturn a + b")),
        Valid(_net("return F.ones((2, 3)) + F.zeros((2, 3))")),
        Valid(_net("return F.broadcast_add(x, x.sum(axis=1, keepdims=True))")),
        # F.maximum(reduction, 1.0) and `reduction == 0` keep the reduction's shape (GluonTS scalers, N-BEATS)
        Valid(
            _net(
                "n = F.sum(y, axis=1)\ns = (x * y).sum(axis=1)\nflag = n == 0\n"
                "return s / F.maximum(n, 1.0) + s * (1 - flag) / F.minimum(n + flag, 1e9)"
            )
        ),
        # reductions over every axis are all of shape (1,) (GluonCV's HeatmapFocalLoss)
        Valid(
            _net(
                "num_pos = F.clip(F.sum(y > 0), a_min=1, a_max=1e30)\n"
                "return -(F.sum(F.log(x)) + x.sum()) / num_pos + F.sum(x) / F.sum(y).clip(1, 1e30)"
            )
        ),
        # column vectors on both sides (MXNet's own CosineEmbeddingLoss): same shape, no evidence
        Valid(
            "from mxnet import ndarray\n\n\n"
            + _net(
                "a = F.norm(x, axis=-1).reshape((-1, 1))\nd = F.sum(x * y, axis=-1).reshape((-1, 1))\n"
                "if F is ndarray:\n    eps = F.array([1e-12])\nelse:\n    eps = F.full((1, 1), 1e-12)\n"
                "return d / F.broadcast_maximum(a * a, eps)"
            )
        ),
        Valid(
            _net(
                "a = F.norm(x, axis=-1).reshape((-1, 1))\nb = F.norm(y, axis=-1).reshape((-1, 1))\n"
                "d = F.sum(x * y, axis=-1).reshape((-1, 1))\n"
                "return d / F.broadcast_maximum(a * b, F.full((1, 1), 1e-12))"
            )
        ),
        Valid(_net("m = x.mean(axis=1, keepdims=True)\nreturn m * 2")),
        Valid(_net("return x.reshape((0, -1)) + y.reshape((0, -1))")),
        # two parameters, shapes set when the block is built: nothing says they differ
        Valid(
            "class Net(HybridBlock):\n    def __init__(self, units=4):\n        super().__init__()\n"
            "        self.gamma = self.params.get('gamma', shape=(units,))\n"
            "        self.beta = self.params.get('beta', shape=(units,))\n\n"
            "    def hybrid_forward(self, F, x, gamma, beta):\n        return gamma * beta\n"
        ),
        Valid(_net("return x - x.mean(axis=1, keepdims=True)  # hybridlint: ignore[HL007]")),
    ]
    INVALID = [
        # a declared shape with a constructor argument is fixed when the block is built too
        Invalid(
            "class Net(HybridBlock):\n    def __init__(self, units=4, in_units=3):\n"
            "        super().__init__()\n"
            "        self.weight = self.params.get('weight', shape=(in_units, units))\n"
            "        self.bias = self.params.get('bias', shape=(units,))\n\n"
            "    def hybrid_forward(self, F, x, weight, bias):\n"
            "        return F.tanh(F.dot(x, weight) + bias)\n",
            line=8,
            fixed="class Net(HybridBlock):\n    def __init__(self, units=4, in_units=3):\n"
            "        super().__init__()\n"
            "        self.weight = self.params.get('weight', shape=(in_units, units))\n"
            "        self.bias = self.params.get('bias', shape=(units,))\n\n"
            "    def hybrid_forward(self, F, x, weight, bias):\n"
            "        return F.tanh(F.broadcast_add(F.dot(x, weight), bias))\n",
            safety=SAFE,
        ),
        # a constant built in __init__ with a reshape to (1, -1, 2): YOLO anchors
        Invalid(
            _ANCHORS + "        return F.exp(x) * anchors\n",
            line=12,
            fixed=_ANCHORS + "        return F.broadcast_mul(F.exp(x), anchors)\n",
            safety=SAFE,
        ),
        Invalid(
            _net("return x - x.mean(axis=1, keepdims=True)"),
            line=3,
            fixed=_net("return F.broadcast_sub(x, x.mean(axis=1, keepdims=True))"),
            safety=SAFE,
        ),
        Invalid(
            _net("m = F.max(x, axis=-1, keepdims=True)\nreturn F.exp(x - m) / m  # stable"),
            line=4,
            fixed=_net(
                "m = F.max(x, axis=-1, keepdims=True)\n"
                "return F.broadcast_div(F.exp(F.broadcast_sub(x, m)), m)  # stable"
            ),
            safety=SAFE,
        ),
        Invalid(
            _net("bias = F.ones((1, 3))\nreturn (x + bias) ** bias"),
            line=4,
            fixed=_net(
                "bias = F.ones((1, 3))\nreturn F.broadcast_power(F.broadcast_add(x, bias), bias)"
            ),
            safety=SAFE,
        ),
        Invalid(
            _net("mask = F.expand_dims(y, axis=1)\nreturn x * mask"),
            line=4,
            fixed=_net("mask = F.expand_dims(y, axis=1)\nreturn F.broadcast_mul(x, mask)"),
            safety=SAFE,
        ),
        Invalid(
            _net(
                "bias = (1.0 - y.expand_dims(axis=1)) * -1e4  # BERT-style mask bias\nreturn x + bias"
            ),
            line=4,
            fixed=_net(
                "bias = (1.0 - y.expand_dims(axis=1)) * -1e4  # BERT-style mask bias\n"
                "return F.broadcast_add(x, bias)"
            ),
            safety=SAFE,
        ),
        Invalid(
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.bias = self.params.get('bias', shape=(4,))\n\n"
            "    def hybrid_forward(self, F, x, bias):\n        return x + bias\n",
            line=7,
            fixed="class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.bias = self.params.get('bias', shape=(4,))\n\n"
            "    def hybrid_forward(self, F, x, bias):\n        return F.broadcast_add(x, bias)\n",
            safety=SAFE,
        ),
        Invalid(
            _net("return x * F.full((2,), 0.5)"),
            line=3,
            fixed=_net("return F.broadcast_mul(x, F.full((2,), 0.5))"),
            safety=SAFE,
        ),
        Invalid(
            _net(
                "gate = F.sigmoid(y.mean(axis=(2, 3))).reshape((0, 0, 1, 1))  # SE gate\nreturn x * gate"
            ),
            line=4,
            fixed=_net(
                "gate = F.sigmoid(y.mean(axis=(2, 3))).reshape((0, 0, 1, 1))  # SE gate\n"
                "return F.broadcast_mul(x, gate)"
            ),
            safety=SAFE,
        ),
        Invalid(
            _net("return F.tanh(F.expand_dims(x, axis=2) + y.expand_dims(axis=1))"),
            line=3,
            fixed=_net(
                "return F.tanh(F.broadcast_add(F.expand_dims(x, axis=2), y.expand_dims(axis=1)))"
            ),
            safety=SAFE,
        ),
        Invalid(
            _net("return x.sum(axis=0) % x"),
            line=3,
            fixed=_net("return F.broadcast_mod(x.sum(axis=0), x)"),
            safety=SAFE,
        ),
        # a helper's number default (`eps=1e-5`) is a scalar: `var + eps` keeps var's evidence
        Invalid(
            "def _norm(F, x, eps=1e-5):\n    var = F.mean(F.square(x), axis=-1, keepdims=True)\n"
            "    return x / F.sqrt(var + eps)\n\n\n" + _net("return _norm(F, x)"),
            line=3,
            fixed="def _norm(F, x, eps=1e-5):\n    var = F.mean(F.square(x), axis=-1, keepdims=True)\n"
            "    return F.broadcast_div(x, F.sqrt(var + eps))\n\n\n" + _net("return _norm(F, x)"),
            safety=SAFE,
        ),
        Invalid(
            _net("return x >= x.mean(axis=1, keepdims=True)"),
            line=3,
            fixed=_net("return F.broadcast_greater_equal(x, x.mean(axis=1, keepdims=True))"),
            safety=SAFE,
        ),
        Invalid(
            _net("t = F.zeros((1, 4))\nreturn F.relu(t) != x"),
            line=4,
            fixed=_net("t = F.zeros((1, 4))\nreturn F.broadcast_not_equal(F.relu(t), x)"),
            safety=SAFE,
        ),
        Invalid(
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.gamma = self.params.get('gamma', shape=(1, 3))\n\n"
            "    def hybrid_forward(self, F, x, gamma):\n        return x * gamma\n",
            line=7,
            fixed="class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.gamma = self.params.get('gamma', shape=(1, 3))\n\n"
            "    def hybrid_forward(self, F, x, gamma):\n        return F.broadcast_mul(x, gamma)\n",
            safety=SAFE,
        ),
    ]

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        op = BINARY.get(type(node.operator))
        if op is not None:
            self._check(node, node.left, node.right, op)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) == 1:
            op = COMPARISON.get(type(node.comparisons[0].operator))
            if op is not None:
                self._check(node, node.left, node.comparisons[0].comparator, op)

    def _check(
        self, node: cst.BaseExpression, left: cst.BaseExpression, right: cst.BaseExpression, op: str
    ) -> None:
        if not (self.is_tensor(left) and self.is_tensor(right)):
            return
        why = shape_evidence(self._operand(left), self._operand(right)) or _pairwise_expand(
            left, right, self.namespace
        )
        if why is None:
            return
        message = (
            f"tensor arithmetic does not broadcast on Symbols ({why}): shape error under "
            f"hybridize; use {self.namespace or 'F'}.{op}"
        )
        if self.namespace is None:
            self.report(node, message)
            return
        replacement = call(f"{self.namespace}.{op}", [strip_parens(left), strip_parens(right)])
        replacement = (
            replacement.with_changes(lpar=node.lpar, rpar=node.rpar) if node.lpar else replacement
        )
        self.report(node, message, replacement=replacement, safety=SAFE)

    def _operand(self, expr: cst.BaseExpression) -> Value:
        """The analysis's value of `expr`; for a constant parameter whose declared shape the
        analysis leaves unknown (`get_constant('anchors', anchors)` of an array built in
        `__init__`), the shape `constant_shape` reads there, while hybrid_forward receives the
        constant under its attribute's name and never rebinds it."""
        value = self.value(expr)
        facts, klass = self.facts, self.facts.klass if self.facts is not None else None
        if (
            value.shape is None
            and value.shape_reason == "parameter"
            and isinstance(expr, cst.Name)
            and facts is not None
            and facts.kind == "hybrid_forward"
            and klass is not None
            and expr.value in klass.parameters
            and klass.parameters[expr.value] is None
            and any(p.name.value == expr.value for p in facts.node.params.params)
            and not binds(facts.node.body, expr.value)
        ):
            shape = constant_shape(klass.node, expr.value)
            if shape is not None:
                return Value(TENSOR, shape, "parameter")
        return value


def _expand_axis(expr: cst.BaseExpression, ns: Optional[str]) -> Optional[int]:
    """The literal axis of `x.expand_dims(axis=k)` / `F.expand_dims(x, axis=k)`, else None."""
    if not (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "expand_dims"
    ):
        return None
    function = isinstance(expr.func.value, cst.Name) and expr.func.value.value == ns
    axis = call_argument(expr, 1 if function else 0, "axis")
    return literal_int(axis.value) if axis is not None else None


def _pairwise_expand(
    left: cst.BaseExpression, right: cst.BaseExpression, ns: Optional[str]
) -> Optional[str]:
    """`q.expand_dims(2) + k.expand_dims(1)`: the pairwise broadcast of attention scores."""
    a, b = _expand_axis(left, ns), _expand_axis(right, ns)
    if a is not None and b is not None and a != b and a >= 0 and b >= 0:
        return f"expand_dims on axes {a} and {b}: a pairwise broadcast"
    return None
