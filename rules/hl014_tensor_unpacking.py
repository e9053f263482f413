"""HL014 tensor-unpacking: a tensor iterated by unpacking, `*x`, list(x), map(f, x), ...

HL008 reports `for` loops and comprehensions over a tensor (also through enumerate, zip and
reversed) and the builtins that reduce an iterable (sum, max, ...); this rule reports the other
ways Python iterates a tensor, which HL008 leaves alone.
"""

from __future__ import annotations

from typing import Set, Union

import libcst as cst

from ._build import call, integer
from ..mxnet_facts import EFFECT_FREE_OPS
from ._dead_store import plan_dead_store
from ._examples import net, with_parent
from ._iteration_fix import plan_iteration
from ._outputs import single_output
from .analysis import dotted_name
from .base import SAFE, UNSAFE, Invalid, Rule, Valid, invalid_table, valid_table


def _pure(value: cst.BaseExpression, namespace: str) -> bool:
    """A value whose evaluation has no effect: a name, an attribute, or `F.<op>(...)` of a
    pure operator (`EFFECT_FREE_OPS`) on names, attributes and literals: dropping it changes
    nothing."""
    if isinstance(value, (cst.Name, cst.Attribute)):
        return True
    if not isinstance(value, cst.Call):
        return False
    name = dotted_name(value.func) or ""
    if not name.startswith(namespace + ".") or name[len(namespace) + 1 :] not in EFFECT_FREE_OPS:
        return False
    simple = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString)
    return all(isinstance(a.value, simple) for a in value.args)


# Builtins that iterate their (tensor) argument into a Python list/iterator of rows.
_ITERATING = {
    "list",
    "tuple",
    "iter",
    "map",
    "filter",
    "reversed",
    "enumerate",
    "zip",
    "set",
    "frozenset",
    "dict",
}


_MESSAGE = (
    "{what} iterates a tensor: over its rows eagerly, over a Symbol's outputs after hybridize() "
    "(one element, the whole tensor: a silent change or a ValueError); {fix}"
)


# a block that unpacks its input (alone: taken for a list of arrays, analysis._sequence_used_names)
_PAIR = (
    "class Pair(HybridBlock):\n    def hybrid_forward(self, F, pair):\n        a, b = pair\n"
    "        return F.concat(a, a * b, dim=-1)\n"
)


class TensorUnpacking(Rule):
    code = "HL014"
    name = "tensor-unpacking"
    message = (
        "unpacking or iterating a tensor (`a, b = x`, `*x`, `list(x)`, `map(f, x)`) gives its rows "
        "eagerly but one element, the whole tensor, on a Symbol; use F.split(..., squeeze_axis=True)"
    )
    explanation = """\
## What it does
Finds the ways Python iterates a tensor that HL008 (loops and comprehensions) does not cover:
unpacking assignment (`a, b = x`, `first, *rest = x`), star arguments and star elements
(`F.concat(*x, dim=0)`, `[*x]`), and the builtins that iterate their argument outside a loop
header (`list(x)`, `tuple(x)`, `map(f, x)`, `filter(f, x)`, `iter(x)`, `reversed(x)`,
`enumerate(x)`, `zip(x, y)`, `set(x)`, `dict(x)`).

## Why it breaks under hybridize
An NDArray iterates over its first axis. A Symbol iterates over its *outputs*: a single-output
Symbol yields itself, once. So under hybridize (checked against MXNet 1.9.1, x of shape (2, 3)):
`a, b = F.relu(x)` raises `ValueError: not enough values to unpack (expected 2, got 1)`;
`F.concat(*F.relu(x), dim=0)` returns shape (2, 3) instead of (6,); `F.stack(*list(F.relu(x)))`
returns (1, 2, 3) instead of (2, 3); `first, *rest = F.relu(x)` makes `first` the whole tensor.

## Example
```python
def hybrid_forward(self, F, x):
    a, b = F.relu(x)
    return a + b
```

## Fix
```python
def hybrid_forward(self, F, x):
    a, b = F.split(F.relu(x), num_outputs=2, axis=0, squeeze_axis=True)
    return a + b
```
An unpacking into names nothing reads afterwards goes, when its value has no effect (a
name, `F.shape_array(x)`: `B, C, H, W = F.shape_array(x)` left over from debugging). Other
unpackings into `n >= 2` plain names become `F.split(x, num_outputs=n, axis=0,
squeeze_axis=True)`, whose `n` outputs are the rows of `x` in both modes (with one name,
`split(num_outputs=1)` returns the array itself, which the unpacking would iterate again: no fix).
An iterating builtin (`list(x)`, `map(f, x)`, `zip(a, x)`, `enumerate(x)`) gets `F.split(x,
num_outputs=n, axis=0, squeeze_axis=True)` in place of `x` when n is known (as HL008's loops
and comprehensions do): the analysis knows
x's first dimension (safe), or `zip` pairs x with a model attribute or a literal list of n items
(`len(self.heads)`, unsafe: exact only when x has exactly that many rows). Other forms have no
fix: their count is not written in the code (use `F.split` with the count, or
`F.contrib.foreach` over the first axis).

## Fix safety
Dropping an unread unpacking is safe (eagerly it computes nothing anything reads). The split is
safe when the tensor is known to have two or more axes: then the split's outputs equal the
rows eagerly and hybridized, and where the first axis is not `n` both versions raise (ValueError
eagerly for the unpacking, MXNetError for the split). Unsafe otherwise: unpacking a
one-dimensional NDArray gives rows of shape (1,), while `split(..., squeeze_axis=True)` gives
shape () there. An iterating builtin's rewrite is safe when the tensor's first dimension
(n >= 2) and rank (>= 2) are known; with n taken from what `zip` pairs it with, unsafe (zip
stops at the shorter sequence, the split raises unless the tensor has exactly n rows).
"""

    VALID = valid_table(
        net,
        # issue 11: the parent passes a tuple of arrays to the block that unpacks its input
        Valid(with_parent(_PAIR, "Pair", "(F.relu(x), F.sigmoid(x))")),
        "a, b = F.split(x, num_outputs=2, axis=0, squeeze_axis=True)\nreturn a + b",
        "h, w = (3, 4)\nreturn x * h * w",
        "parts = F.split(x, num_outputs=2)\nreturn F.concat(*parts, dim=1)",
        "outs = [F.relu(x), F.sigmoid(x)]\nreturn F.add_n(*outs) + len(list(outs))",
        Valid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, *args):\n"
            "        return F.add_n(x, *args)\n"
        ),
        "y = F.relu(x)\nreturn F.stack(*[r * 2 for r in y])  # HL008's finding",
        "a, b = F.relu(x)  # hybridlint: ignore[HL014]\nreturn a + b",
        # multi-output operators and children (GluonCV's BBoxCenterToCorner, CenterNetDecoder)
        "s, i = F.relu(x).reshape((0, -1)).topk(k=1, ret_typ='both')\nreturn s + i",
        "a, b = F.amp_multicast(x, x, num_outputs=2)\nreturn a + b",
        "_, w = x.shape_array().split(num_outputs=2, axis=0)\nreturn x * w",
    )
    INVALID = invalid_table(
        net,
        # issue 11: the module's only call of the block passes one stacked tensor, so the
        # unpacked input is not a list of arrays (alone it is taken for one)
        Invalid(
            with_parent(_PAIR, "Pair", "F.stack(F.relu(x), F.sigmoid(x))"),
            line=3,
            fix=("a, b = pair", "a, b = F.split(pair, num_outputs=2, axis=0, squeeze_axis=True)"),
            safety="unsafe",
        ),
        Invalid(
            net("y = F.relu(x).reshape((2, 3))\na, b = y\nreturn a + b"),
            line=4,
            fix=("a, b = y", "a, b = F.split(y, num_outputs=2, axis=0, squeeze_axis=True)"),
            safety=SAFE,
        ),
        Invalid(
            net("a, b = F.relu(x)\nreturn a * b"),
            line=3,
            fix=("F.relu(x)", "F.split(F.relu(x), num_outputs=2, axis=0, squeeze_axis=True)"),
            safety=UNSAFE,
        ),
        # names nothing reads: the unpacking goes (SFnet's FAM, blind round 20)
        Invalid(
            net("B, C, H, W = F.shape_array(x)\ny = F.relu(x)\nreturn y"),
            line=3,
            fix=("B, C, H, W = F.shape_array(x)\n", ""),
            safety=SAFE,
        ),
        # a random draw is an effect (it moves the random stream): no deletion, the split
        Invalid(
            net("a, b = F.uniform(shape=(2, 3))\nreturn F.relu(x)"),
            line=3,
            fix=(
                "F.uniform(shape=(2, 3))",
                "F.split(F.uniform(shape=(2, 3)), num_outputs=2, axis=0, squeeze_axis=True)",
            ),
            safety=SAFE,  # the draw's shape is known: two rows
        ),
        ("return F.concat(*F.relu(x), dim=0)", 3),
        ("y = F.relu(x)\nreturn F.stack(*list(y))", 4),
        ("return F.add_n(*tuple(F.relu(x)))", 3),
        ("return F.stack(*map(F.relu, F.relu(x)))", 3),
        ("first, *rest = F.relu(x)\nreturn first", 3),
        ("y = F.relu(x).reshape((1, -1))\nrow, = y\nreturn row", 4),
        ("return F.stack(*reversed(F.relu(x)))", 3),
        # a known row count: the iterating builtin gets the rows as F.split's outputs
        Invalid(
            net("y = F.relu(x).reshape((3, -1))\nreturn F.stack(*list(y))"),
            line=4,
            fix=("list(y)", "list(F.split(y, num_outputs=3, axis=0, squeeze_axis=True))"),
            safety=SAFE,
        ),
        Invalid(
            net("y = F.relu(x)\nreturn dict(zip(['a', 'b'], y))"),
            line=4,
            fix=(
                "zip(['a', 'b'], y)",
                "zip(['a', 'b'], F.split(y, num_outputs=2, axis=0, squeeze_axis=True))",
            ),
            safety=UNSAFE,
        ),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._loop_iters: Set[cst.CSTNode] = set()  # HL008 reports iteration in loop headers

    def visit_For(self, node: cst.For) -> None:
        self._loop_iters.add(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._loop_iters.add(node.iter)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, (cst.Tuple, cst.List)) and single_output(self, node.value):
                self._unpacking(node, target.target)
                return

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.star == "*" and single_output(self, node.value):
            self._report_star(node)

    def visit_StarredElement(self, node: cst.StarredElement) -> None:
        if single_output(self, node.value) and node not in self._starred_targets():
            self._report_star(node)

    def _report_star(self, node: cst.CSTNode) -> None:
        """`f(*x)` and `[*x]` unpack a tensor alike: one message, one fix."""
        self.report(
            node,
            _MESSAGE.format(
                what="`*` on a tensor",
                fix="use F.split(x, num_outputs=n, axis=0, squeeze_axis=True)",
            ),
        )

    def visit_Call(self, node: cst.Call) -> None:
        name = dotted_name(node.func)
        if name not in _ITERATING or name in self.env or node in self._loop_iters:
            return
        first = 1 if name in ("map", "filter") else 0
        args = [a for a in node.args if a.keyword is None and not a.star][first:]
        if name not in ("map", "zip"):
            args = args[:1]
        if any(single_output(self, a.value) for a in args):
            # with a known row count the tensor becomes F.split(x, num_outputs=n, ...) (rules/_iteration_fix.py)
            replacement, safety = plan_iteration(self, node) or (None, SAFE)
            self.report(
                node,
                _MESSAGE.format(
                    what=f"`{name}()`",
                    fix="use F.split(x, num_outputs=n, axis=0, squeeze_axis=True) "
                    "or F.contrib.foreach",
                ),
                replacement=replacement,
                safety=safety,
            )

    # -- helpers ---------------------------------------------------------------------------

    def _starred_targets(self) -> Set[cst.CSTNode]:
        """Starred names in an assignment target (`first, *rest = ...`): not a star on a tensor."""
        statement = self.statement
        found: Set[cst.CSTNode] = set()
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        if isinstance(target.target, (cst.Tuple, cst.List)):
                            found.update(
                                e
                                for e in target.target.elements
                                if isinstance(e, cst.StarredElement)
                            )
        return found

    def _unpacking(self, node: cst.Assign, target: Union[cst.Tuple, cst.List]) -> None:
        elements = target.elements
        plain = all(isinstance(e, cst.Element) and isinstance(e.value, cst.Name) for e in elements)
        message = _MESSAGE.format(
            what="unpacking", fix="use F.split(x, num_outputs=n, axis=0, squeeze_axis=True)"
        )
        namespace = self.namespace
        # one name: split(num_outputs=1) returns the array itself, which unpacking iterates again
        if not plain or len(elements) < 2 or namespace is None or len(node.targets) != 1:
            self.report(node.value, message)
            return
        dead = plan_dead_store(self, node.value) if _pure(node.value, namespace) else None
        if dead is not None:  # `B, C, H, W = F.shape_array(x)` with no name read: it goes
            unread = _MESSAGE.format(
                what="unpacking", fix="nothing reads the names: the statement goes"
            )
            self.report(node.value, unread, edits=dead[0], safety=dead[1])
            return
        shape = self.value(node.value).shape
        replacement = call(
            f"{namespace}.split",
            [node.value],
            [
                ("num_outputs", integer(len(elements))),
                ("axis", integer(0)),
                ("squeeze_axis", cst.Name("True")),
            ],
        )
        safety = SAFE if shape is not None and len(shape) >= 2 else UNSAFE
        self.report(node.value, message, replacement=replacement, safety=safety)
