"""HL008 tensor-control-flow: Python control flow decided by tensor values (report only)."""

from __future__ import annotations

from functools import partial
from typing import Optional, Set

import libcst as cst

from .analysis import dotted_name
from ._iteration_fix import plan_iteration
from ._examples import net, with_parent
from ._build import call, strip_parens
from .base import SAFE, UNSAFE, Invalid, Rule, Valid, invalid_table, valid_table
from .evaluate import is_builtin
from .values import SCALAR

_BOOL_ERROR = (
    'NotImplementedForSymbol: Function __bool__ (namely operator "bool") is not implemented '
    "for Symbol"
)


_ITERATING_BUILTINS = ("sum", "max", "min", "any", "all", "sorted")
# builtins comparing their arguments, and the op that compares them in the graph
_COMPARING_BUILTINS = {"min": "minimum", "max": "maximum"}


# every example's hybrid_forward takes an optional mask
_net = partial(net, signature="F, x, mask=None")


# a block that iterates its input only (alone: taken for a list of arrays, analysis.list_inputs)
_FUSION = (
    "class Fusion(HybridBlock):\n    def __init__(self):\n        super(Fusion, self).__init__()\n"
    "        self._weights = [0.5, 0.5]\n\n    def hybrid_forward(self, F, stacked):\n"
    "        return F.add_n(*[w * l for w, l in zip(self._weights, stacked)])\n"
)


class TensorControlFlow(Rule):
    code = "HL008"
    name = "tensor-control-flow"
    message = "Python control flow on a tensor value cannot be traced into a graph"
    explanation = """\
## What it does
Finds Python control flow decided by tensor values inside `hybrid_forward` and the helpers it
calls: `if`, `while`, `elif`, ternaries (`a if cond else b`), `assert`, `and` / `or` / `not` on
tensors, `for` loops and comprehensions over a tensor (also through `enumerate`, `zip`,
`reversed`), the builtins that iterate (`sum(x)`, `max(x)`, `min(x)`, `any`, `all`, `sorted`) or
compare (`min(a, b)`, `max(a, b)` of tensors), and `for` loops over `range(x.shape[i])` /
`range(len(x))`.

## Why it breaks under hybridize
A Symbol has no value to decide on. In MXNet 1.9.1 every truth test of a Symbol raises
`NotImplementedForSymbol: Function __bool__ (namely operator "bool") is not implemented for
Symbol and only available in NDArray.` Iterating a Symbol does not raise: it iterates the
symbol's *outputs*, so `for row in x` runs once, on the whole tensor — a silent change (a
`F.stack` of the rows then has an extra leading axis of 1). `range(x.shape[0])` raises
`AttributeError: 'Symbol' object has no attribute 'shape'`.

## Example
```python
def hybrid_forward(self, F, x):
    if x.sum() > 0:
        return x
    return -x
```

## Fix
Keep the decision in the graph:
- elementwise choice: `F.where(cond, a, b)` (here `F.where(x.sum() > 0, x, -x)` after
  broadcasting the condition: `F.broadcast_like(...)`);
- whole-graph branches: `F.contrib.cond(pred, then_func, else_func)`;
- loops over the first axis: `F.contrib.foreach(body, data, init_states)`;
- loops until a condition: `F.contrib.while_loop(cond, func, loop_vars, max_iterations=...)`;
- `min(a, b)` / `max(a, b)`: `F.minimum(a, b)` / `F.maximum(a, b)`;
- `and` / `or` / `not` on tensors: `F.broadcast_logical_and` / `F.broadcast_logical_or` and
  `F.logical_not` (MXNet 1.9.1's `mx.sym` has no `logical_and`, `logical_or`, `logical_xor`);
- `assert` on values: move the check out of the graph (data pipeline or an eager-only branch).

`F.contrib.cond` itself needs a float32 predicate once hybridized: MXNet 1.9.1 types it
float32, so an int32 or bool predicate (`F.sum(mask) == 0` on an int32 mask) fails dtype
inference. Cast it: `F.contrib.cond((F.sum(mask) == 0).astype('float32'), ...)`. This rule
cannot see dtypes; with examples, `--fix --verify` sees the failure and writes that cast.

## Fix safety
A loop or comprehension over a tensor whose row count the code fixes is rewritten to iterate
`F.split(x, num_outputs=n, axis=0, squeeze_axis=True)`: safe when the analysis knows the first
dimension, unsafe when n comes from a `zip` / `enumerate` partner (`len(self.heads)`), where
the original silently used fewer or more rows. `min(a, b)` / `max(a, b)` of a tensor and a
tensor or number becomes `F.minimum` / `F.maximum`, unsafe: the builtin may return the number
where the op returns an array, and Symbols of two shapes do not broadcast. Everything else has
no automatic fix: the graph form depends on what the branch or loop computes. The cond cast of `--verify` is safe for
integer and bool predicates, unsafe for float64 (a value below float32's range becomes 0).
"""

    VALID = valid_table(
        _net,
        # issue 11: a parent passes a list of arrays to the block that iterates its input
        Valid(with_parent(_FUSION, "Fusion", "[F.relu(x), F.sigmoid(x)]")),
        # the parent passes its own input on: nothing proves it is one array
        Valid(with_parent(_FUSION, "Fusion", "x", parent="Head")),
        # containers behind type tests (GluonNLP's _expand_to_beam_size) and zip over a list input
        Valid(
            _net(
                "if isinstance(x, list):\n    return [F.relu(d) for d, s in zip(x, [None] * len(x))]\n"
                "if isinstance(x, dict):\n    return {k: F.relu(v) for k, v in x.items()}\nreturn F.relu(x)"
            )
        ),
        Valid(
            "class Blocks(HybridBlock):\n    def hybrid_forward(self, F, x):\n        out = []\n"
            "        for block, xi in zip(self._children.values(), x):\n            out.append(block(xi))\n"
            "        return out\n"
        ),
        "if mask is None:\n    return x\nreturn x * mask",
        "for i in range(3):\n    x = F.relu(x)\nreturn x",
        "outs = [F.relu(x), F.sigmoid(x)]\nreturn sum(outs[1:], outs[0]) * max([1, 2])",
        "return F.where(x > 0, x, -x)",
        # an input only iterated is a list of arrays (analysis.list_inputs), in a for or a
        # comprehension (not `class Net`: the ground-truth harness feeds single arrays to a Net)
        Valid(
            "class Decoder(HybridBlock):\n    def hybrid_forward(self, F, feats):\n"
            "        outs = []\n        for f in feats:\n            outs.append(F.relu(f))\n"
            "        return F.concat(*outs, dim=1)\n"
        ),
        Valid(
            "class Decoder(HybridBlock):\n    def hybrid_forward(self, F, feats):\n"
            "        return F.add_n(*[F.relu(f) for f in feats])\n"
        ),
        "if F is mx.nd:\n    assert x.sum() > 0\nreturn x",
        Valid(
            _net(
                "parts = F.split(x, num_outputs=3)\nout = []\nfor p in parts:\n    out.append(F.relu(p))\n"
                "return F.concat(*out, dim=1)"
            )
        ),
        "n = 2 if self.training else 3\nreturn x * n",
        "return x * min(2, len(self._children)) * max([1, 2])",
        # sockeye's BrevityPenalty: `F is None` only when its own forward passes Python numbers
        "if F is None:\n    y = min(0.0, 1.0 - x / x)\n"
        "else:\n    y = F.minimum(F.zeros_like(x), 1.0 - x / x)\nreturn y",
        "if x.sum() > 0:  # hybridlint: ignore[HL008]\n    return x\nreturn -x",
    )
    INVALID = invalid_table(
        _net,
        # issue 11: the module's only call of the block passes one stacked tensor, so the
        # input only iterated is not a list of arrays; n = len(self._weights) (unsafe)
        Invalid(
            with_parent(_FUSION, "Fusion", "F.stack(F.relu(x), F.sigmoid(x))"),
            line=7,
            fix=(
                "zip(self._weights, stacked)",
                (
                    "zip(self._weights, F.split(stacked, num_outputs=len(self._weights), "
                    "axis=0, squeeze_axis=True))"
                ),
            ),
            safety="unsafe",
        ),
        ("if x.sum() > 0:\n    return x\nreturn -x", 3),
        ("y = F.relu(x)\nwhile y.max() > 1:\n    y = y / 2\nreturn y", 4),
        ("return x if x.mean() > 0 else -x", 3),
        ("y = F.relu(x)\nreturn y or x", 4),
        ("assert x.min() >= 0, 'negative input'\nreturn x", 3),
        ("y = F.relu(x)\nif not y:\n    return x\nreturn y", 4),
        Invalid(
            _net(
                "y = F.relu(x)\nrows = []\nfor row in y:\n    rows.append(row * 2)\nreturn F.stack(*rows)"
            ),
            line=5,
        ),
        ("rows = []\nfor row in x:\n    rows.append(row * 2)\nreturn F.stack(*rows) + x", 4),
        ("out = []\nfor i in range(x.shape[0]):\n    out.append(x)\nreturn F.stack(*out)", 4),
        ("return F.stack(*[F.relu(row) for row in F.relu(x)])", 3),
        ("return F.stack(*[F.relu(row) for row in x], dim=1) * F.relu(x)", 3),
        Invalid(
            _net(
                "out = []\nfor i, row in enumerate(x):\n    out.append(row * i)\n"
                "return F.stack(*out) + F.mean(x)"
            ),
            line=4,
        ),
        ("y = F.relu(x)\nif y is not None and y.sum() > 0:\n    return y\nreturn x", 4),
        ("total = sum(F.relu(x))  # rows summed eagerly\nreturn total", 3),
        # cnstd's OHEM: `min()` of two one-element arrays compares them in Python
        Invalid(
            _net(
                "pos = F.sum(x > 0)\nneg = F.sum(x <= 0)\nk = min(pos * 3, neg)\nreturn F.broadcast_mul(x, k)"
            ),
            line=5,
            fix=("min(pos * 3, neg)", "F.minimum(pos * 3, neg)"),
            safety="unsafe",
        ),
        ("k = max(F.sum(x), F.mean(x), F.max(x))\nreturn F.broadcast_mul(x, k)", 3),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._tests: Set[cst.CSTNode] = set()  # tests already reported by their statement

    def visit_If(self, node: cst.If) -> None:
        self._check_test(
            node.test, "`if` on a tensor value", "F.where(cond, a, b) or F.contrib.cond"
        )

    def visit_While(self, node: cst.While) -> None:
        self._check_test(node.test, "`while` on a tensor value", "F.contrib.while_loop")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._check_test(
            node.test, "a conditional expression on a tensor value", "F.where(cond, a, b)"
        )

    def visit_Assert(self, node: cst.Assert) -> None:
        self._check_test(
            node.test,
            "`assert` on a tensor value",
            "a check outside the graph (data pipeline or an eager-only branch)",
        )

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        if node in self._tests:
            return
        if self.is_tensor(node.left):  # bool(left) is always evaluated
            word = "and" if isinstance(node.operator, cst.And) else "or"
            self.report(
                node,
                f"`{word}` on a tensor calls bool() on it ({_BOOL_ERROR}); use "
                f"F.broadcast_logical_{word} (F.logical_{word} exists on NDArray only)",
            )

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if node in self._tests or not isinstance(node.operator, cst.Not):
            return
        if self.is_tensor(node.expression):
            self.report(
                node, f"`not` on a tensor calls bool() on it ({_BOOL_ERROR}); use F.logical_not"
            )

    def visit_For(self, node: cst.For) -> None:
        if self.is_tensor(node.iter) or self._wraps_tensor(node.iter):
            replacement, safety = plan_iteration(self, node.iter) or (
                None,
                SAFE,
            )  # a known row count
            self.report(
                node.iter,
                "iterating a tensor iterates a Symbol's outputs after hybridize(): the "
                "loop runs once, on the whole tensor (silent change); use F.contrib.foreach, "
                "or F.split(x, num_outputs=n, squeeze_axis=True) for a fixed n",
                replacement=replacement,
                safety=safety,
            )
            return
        bound = self._range_over_shape(node.iter)
        if bound is not None:
            self.report(
                node.iter,
                f"a loop over `range({bound})` needs the tensor's shape, which a Symbol "
                "does not have (AttributeError); use F.contrib.foreach over the axis, or a "
                "fixed count given to the constructor",
            )

    def visit_CompFor(self, node: cst.CompFor) -> None:
        if self.is_tensor(node.iter) or self._wraps_tensor(node.iter):
            replacement, safety = plan_iteration(self, node.iter) or (None, SAFE)
            self.report(
                node.iter,
                "a comprehension over a tensor iterates a Symbol's outputs after hybridize(): "
                "one element, the whole tensor (silent change); use F.contrib.foreach, or "
                "F.split(x, num_outputs=n, squeeze_axis=True) for a fixed n",
                replacement=replacement,
                safety=safety,
            )

    def visit_Call(self, node: cst.Call) -> None:
        # `sum(x)`, `max(x)`, ... iterate their argument: the rows eagerly, one element hybridized
        name = dotted_name(node.func)
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if (
            name in _COMPARING_BUILTINS
            and len(positional) >= 2
            and len(positional) == len(node.args)  # no `key=` / `default=`, no star
            and self.facts is not None
            and is_builtin(name, self.env, self.facts.module)
        ):
            self._check_compared(node, name)
            return
        if (
            name in _ITERATING_BUILTINS
            and name not in self.env
            and positional
            and (len(positional) == 1 or name == "sum")
            and self.is_tensor(positional[0].value)
        ):
            self.report(
                node,
                f"`{name}()` iterates a tensor: over its rows eagerly, over a Symbol's single "
                "output after hybridize() (silent change); use the F reduction "
                "(F.sum(x, axis=0), F.max, F.min, ...)",
            )

    def _check_compared(self, node: cst.Call, name: str) -> None:
        """`min(a, b)` / `max(a, b)` with an array among them: the builtin compares them with
        `<` and tests the result. Eagerly that works for one-element arrays (cnstd's OHEM
        counts); a Symbol raises. `F.minimum` / `F.maximum` of two is the graph form, unsafe:
        it returns an array where the builtin may return the number, broadcasts differently
        on Symbols, and treats NaN otherwise."""
        if not any(self.is_tensor(a.value) for a in node.args):
            return
        op = _COMPARING_BUILTINS[name]
        message = (
            f"`{name}()` of tensors compares them in Python and calls bool() on the result "
            f"({_BOOL_ERROR}); use {self.namespace or 'F'}.{op}"
        )
        fixable = (
            self.namespace is not None
            and len(node.args) == 2
            and all(
                self.is_tensor(a.value) or self.value(a.value).kind == SCALAR for a in node.args
            )
        )
        if not fixable:
            self.report(node, message)
            return
        replacement = call(f"{self.namespace}.{op}", [strip_parens(a.value) for a in node.args])
        self.report(node, message, replacement=replacement, safety=UNSAFE)

    # -- helpers ---------------------------------------------------------------------------
    def _wraps_tensor(self, iterable: cst.BaseExpression) -> bool:
        """`enumerate(x)`, `zip(x, y)`, `reversed(x)` over a tensor iterate the tensor too."""
        if not isinstance(iterable, cst.Call):
            return False
        name = dotted_name(iterable.func)
        return (
            name in ("enumerate", "zip", "reversed")
            and name not in self.env
            and any(
                not arg.star and arg.keyword is None and self.is_tensor(arg.value)
                for arg in iterable.args
            )
        )

    def _check_test(self, test: cst.BaseExpression, what: str, alternative: str) -> None:
        if self._decided_by_tensor(test):
            self._mark(test)
            self.report(
                test,
                f"{what} calls bool() on a Symbol under hybridize ({_BOOL_ERROR}); "
                f"use {alternative}",
            )

    def _decided_by_tensor(self, test: cst.BaseExpression) -> bool:
        """True when evaluating `test` for its truth certainly calls bool() on a tensor."""
        if self.is_tensor(test):
            return True
        if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
            return self._decided_by_tensor(test.expression)
        if isinstance(test, cst.BooleanOperation):
            # the left operand is always tested; the right one only when the left does not decide,
            # which for `and` means a true left side: report only certainties (the left one).
            return self._decided_by_tensor(test.left) or (
                self._decided_by_tensor(test.right) and self._left_cannot_short_circuit(test)
            )
        return False

    def _left_cannot_short_circuit(self, test: cst.BooleanOperation) -> bool:
        """`mask is not None and mask.sum() > 0`: the right side runs whenever mask is given;
        a guard on None is not data-dependent, so the right side counts as evaluated."""
        left = test.left
        return (
            isinstance(test.operator, cst.And)
            and isinstance(left, cst.Comparison)
            and len(left.comparisons) == 1
            and isinstance(left.comparisons[0].operator, cst.IsNot)
            and dotted_name(left.comparisons[0].comparator) == "None"
        )

    def _mark(self, test: cst.BaseExpression) -> None:
        self._tests.add(test)
        if isinstance(test, cst.UnaryOperation):
            self._mark(test.expression)
        elif isinstance(test, cst.BooleanOperation):
            self._mark(test.left)
            self._mark(test.right)

    def _range_over_shape(self, iterable: cst.BaseExpression) -> Optional[str]:
        if not (
            isinstance(iterable, cst.Call)
            and dotted_name(iterable.func) == "range"
            and "range" not in self.env
        ):
            return None
        for arg in iterable.args:
            value = arg.value
            if (
                isinstance(value, cst.Subscript)
                and isinstance(value.value, cst.Attribute)
                and value.value.attr.value == "shape"
                and self.is_tensor(value.value.value)
            ):
                return cst.Module([]).code_for_node(value)
            if (
                isinstance(value, cst.Call)
                and dotted_name(value.func) == "len"
                and "len" not in self.env
                and len(value.args) == 1
                and self.is_tensor(value.args[0].value)
            ):
                return cst.Module([]).code_for_node(value)
        return None
