"""HL015 ndarray-only-function: `F.<function mx.nd has and mx.sym lacks>` in hybrid code."""

from __future__ import annotations

import libcst as cst

from ..mxnet_facts import ADVICE, BINARY, DEFAULTS_DIFFER, ndarray_only
from ._build import with_keyword
from ._ndarray_only_fix import ndarray_only_fix
from .base import SAFE, UNSAFE, Invalid, Rule, Valid, invalid_table, returns, valid_table
from .values import namespace_call, parent_map, walk_nodes
from ._examples import net_xy


class NDArrayOnlyFunction(Rule):
    code = "HL015"
    name = "ndarray-only-function"
    message = "`F.<op>` exists only in mx.nd: AttributeError under hybridize"
    explanation = """\
## What it does
Finds `F.<name>(...)` inside `hybrid_forward` (and the helpers it calls) where `name` is one of
the functions MXNet 1.9.1 has in `mx.nd` but not in `mx.sym`: the Python helpers `equal`,
`not_equal`, `greater(_equal)`, `lesser(_equal)`, `add`, `subtract`, `multiply`, `divide`,
`true_divide`, `modulo`, `logical_and/or/xor`, `concatenate`, `moveaxis`, `empty`,
`onehot_encode`, `contrib.isnan/isinf/isfinite`, `waitall`, `save`, ... (the list is read from
MXNet 1.9.1's own namespaces). `F.array` is HL005's.

It also finds `F.random.multinomial(p)` without `get_prob=`: MXNet 1.9.1's `mx.nd` form
defaults to `get_prob=False` (one array) and its `mx.sym` form to `get_prob=True` (a Symbol of
two outputs, the samples and their log-probabilities).

## Why it breaks under hybridize
After `hybridize()`, `F` is `mx.sym`, which has no such attribute:
`AttributeError: module 'mxnet.symbol' has no attribute 'equal'`. Eagerly it works, so the
error shows only on the first hybridized call. A multinomial's two outputs fail the first
operator that takes the result as one input (`Keyword Argument data is a tuple`), or come out
as two outputs where eagerly there was one.

## Example
```python
def hybrid_forward(self, F, x, y):
    mask = F.equal(x, y)
    return F.concatenate([x * mask, y], axis=1)
```

## Fix
```python
def hybrid_forward(self, F, x, y):
    mask = F.broadcast_equal(x, y)
    return F.concat(x * mask, y, dim=1)
```
`F.equal/not_equal/greater/.../add/subtract/multiply/divide/modulo/logical_and(a, b)` of two
tensors → `F.broadcast_<op>(a, b)`; of a tensor and a number → the operator (`x - 2`, `2 > x`);
`F.concatenate(arrays, axis=k)` → `F.concat(*arrays, dim=k)` (a list literal's items in place);
`F.moveaxis(x, s, d)` → `F.transpose(x, axes=...)` when x's rank is known, `F.swapaxes(x, s, d)`
for neighbouring axes; `F.empty(shape, dtype=t)` → `F.zeros(shape, dtype=t)`;
`F.contrib.isnan(x)` → `F.broadcast_not_equal(x, x)` (`isinf`, `isfinite` likewise);
`F.random.multinomial(p)` → `F.random.multinomial(p, get_prob=False)` (as sockeye writes it). Others
(`onehot_encode`, which writes into `out`; `waitall`, `save`, ...) are reported only.

## Fix safety
`get_prob=False` is mx.nd's default, so eagerly nothing changes: safe, unless the result is
read by index or unpacked (hybridized, `s[1]` may have meant the log-probabilities): unsafe.
Safe where MXNet's helper *is* the rewrite: `nd.equal(a, b)` of two NDArrays calls
`broadcast_equal(a, b)`, of an NDArray and a number the `_equal_scalar` operator that `x == 2`
calls on both; `concatenate` copies its list into one array as `concat` does; `moveaxis`
computes the permutation and calls `transpose`. Unsafe: an operand that may be a number rather
than a tensor, or a number that is not a literal (a bool is refused by a Symbol's scalar
operators); a `concatenate` axis that is not a literal (a negative one gives the helper a wrong
shape); `empty` (uninitialised memory becomes zeros, `ctx=` is dropped).
"""

    VALID = valid_table(
        net_xy,
        "return F.broadcast_equal(x, y)",
        "return F.concat(x, y, dim=1)",
        "if F is mx.nd:\n    return F.equal(x, y)\nreturn F.broadcast_equal(x, y)",
        "return F.relu(x)  # F.equal(x, y) in a comment",
        Valid(
            "class Net(HybridBlock):\n    def forward(self, x, y):\n"
            "        return mx.nd.equal(x, y)\n"  # not hybrid code
        ),
        "return F.array([1.0]) + x",  # HL005's business
        "return F.random.multinomial(F.softmax(x), get_prob=False) + 1",
        "return F.random.multinomial(F.softmax(x), (2,), False)",
        "return F.equal(x, y)  # hybridlint: ignore[HL015]",
    )
    INVALID = invalid_table(
        net_xy,
        Invalid(
            net_xy("y = F.relu(y)\nreturn F.equal(F.relu(x), y)"),
            line=4,
            fix=("F.equal(F.relu(x), y)", "F.broadcast_equal(F.relu(x), y)"),
            safety=SAFE,
        ),
        Invalid(
            net_xy("return F.relu(F.subtract(2, F.relu(x)))"),
            line=3,
            fix=("F.subtract(2, F.relu(x))", "2 - F.relu(x)"),
            safety=SAFE,
        ),
        Invalid(
            net_xy("return F.multiply(F.relu(x), 0.5) + 1"),
            line=3,
            fix=("F.multiply(F.relu(x), 0.5)", "(F.relu(x) * 0.5)"),
            safety=SAFE,
        ),
        Invalid(
            net_xy("return F.concatenate([F.relu(x), F.relu(y)], axis=1)"),
            line=3,
            fix=(
                "F.concatenate([F.relu(x), F.relu(y)], axis=1)",
                "F.concat(F.relu(x), F.relu(y), dim=1)",
            ),
            safety=SAFE,
        ),
        returns("F.concatenate(x)", "F.concat(*x, dim=0)", SAFE),
        # comparisons of picks of an input used as an array (`x[:, 0]`) are arrays: safe
        # (blind round 11: an IOU loss's overlap test was offered as unsafe)
        returns(
            "F.logical_or(x[:, 2] < y[:, 0], x[:, 0] > y[:, 2])",
            "F.broadcast_logical_or(x[:, 2] < y[:, 0], x[:, 0] > y[:, 2])",
            SAFE,
        ),
        Invalid(
            net_xy("z = F.ones((2, 3, 4))\nreturn F.moveaxis(z, 0, -1)"),
            line=4,
            fix=("F.moveaxis(z, 0, -1)", "F.transpose(z, axes=(1, 2, 0))"),
            safety=SAFE,
        ),
        returns("F.moveaxis(F.relu(x), 1, 2)", "F.swapaxes(F.relu(x), dim1=1, dim2=2)", SAFE),
        Invalid(
            net_xy("return F.broadcast_add(x, F.empty((1, 3)))"),
            line=3,
            fix=("F.empty((1, 3))", "F.zeros((1, 3))"),
            safety=UNSAFE,
        ),
        returns("F.contrib.isnan(x)", "F.broadcast_not_equal(x, x)", SAFE),
        # mx.sym.random.multinomial defaults to get_prob=True: two outputs (gluonts' mixture)
        returns(
            "F.random.multinomial(F.softmax(x))",
            "F.random.multinomial(F.softmax(x), get_prob=False)",
            SAFE,
        ),
        ("return F.concatenate([x, y], axis=-1)", 3),  # the helper's bug
        ("F.onehot_encode(x, y)\nreturn y", 3),
        ("F.waitall()\nreturn x", 3),
        Invalid(
            "def helper(F, x):\n    return F.logical_and(F.relu(x), 1)\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        return helper(F, x)\n",
            line=2,
        ),
    )

    def visit_Call(self, node: cst.Call) -> None:
        dotted = namespace_call(node, self.namespace)
        if dotted is None or "." not in dotted:
            return
        ns, _, op = dotted.partition(".")
        if op in DEFAULTS_DIFFER:
            self._nd_default(node, dotted, op)
            return
        if not ndarray_only(op):
            return
        where = "mxnet.symbol" + ("." + op.rpartition(".")[0] if "." in op else "")
        message = (
            f"`{dotted}` exists only in mx.nd: under hybridize F is mx.sym and the call raises "
            f"AttributeError: module '{where}' has no attribute '{op.rpartition('.')[2]}'"
        )
        fix = ndarray_only_fix(self, node, op, ns)
        if fix is None:
            advice = ADVICE.get(op)
            if op in BINARY:
                advice = f"use {ns}.{BINARY[op][0]} for two tensors"
            self.report(node, message + (f"; {advice}" if advice else ""))
            return
        replacement, safety = fix
        self.report(node, message, replacement=replacement, safety=safety)

    def _nd_default(self, node: cst.Call, dotted: str, op: str) -> None:
        """`F.random.multinomial(p)`: mx.nd's default (one array) is not mx.sym's (two
        outputs). Passing mx.nd's default changes nothing eagerly, and makes the Symbol the
        one array the eager code used (sockeye writes `get_prob=False`). Unsafe where the code
        reads the result by index or unpacking: hybridized it may mean the second output."""
        keyword, position, nd_default, sym_default = DEFAULTS_DIFFER[op]
        positional = [a for a in node.args if a.keyword is None and not a.star]
        if any(a.keyword is not None and a.keyword.value == keyword for a in node.args):
            return
        if len(positional) > position or any(a.star for a in node.args):
            return
        message = (
            f"`{dotted}` without {keyword}=: mx.nd defaults to {keyword}={nd_default} (one "
            f"array), mx.sym to {keyword}={sym_default} (a Symbol of two outputs, samples and "
            "their log-probabilities), so the result used as one array fails under hybridize"
        )
        replacement = with_keyword(node, keyword, cst.Name(repr(nd_default)))
        safety = UNSAFE if self._read_by_index(node) else SAFE
        self.report(node, message, replacement=replacement, safety=safety)

    def _read_by_index(self, node: cst.Call) -> bool:
        """Whether the call's result is subscripted, unpacked or iterated, directly or through
        the name it is assigned to in the function."""
        facts = self.facts
        if facts is None:
            return True
        parents = parent_map(facts.node)
        parent = parents.get(node)
        if isinstance(parent, (cst.Subscript, cst.For, cst.CompFor)):
            return True
        if not isinstance(parent, cst.Assign):
            return False
        targets = [t.target for t in parent.targets]
        if not all(isinstance(t, cst.Name) for t in targets):
            return True
        names = {t.value for t in targets if isinstance(t, cst.Name)}
        for found in walk_nodes(facts.node):
            if isinstance(found, cst.Subscript) and isinstance(found.value, cst.Name):
                if found.value.value in names:
                    return True
            if isinstance(found, cst.Assign) and isinstance(found.value, cst.Name):
                if found.value.value in names and not all(
                    isinstance(t.target, cst.Name) for t in found.targets
                ):
                    return True
            if isinstance(found, cst.StarredElement) and isinstance(found.value, cst.Name):
                if found.value.value in names:
                    return True
            if isinstance(found, (cst.For, cst.CompFor)) and isinstance(found.iter, cst.Name):
                if found.iter.value in names:
                    return True
        return False
