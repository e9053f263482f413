"""HL011 varargs-reshape: `x.reshape(a, b, c)` on a tensor (a Symbol takes no varargs shape)."""

from __future__ import annotations

from typing import List

import libcst as cst

from ._build import call, tuple_of
from .guards import one_sided_reshape
from .base import SAFE, UNSAFE, Invalid, Rule, Valid, valid_table
from .values import call_argument, literal_int, namespace_call
from ._examples import net


class VarargsReshape(Rule):
    code = "HL011"
    name = "varargs-reshape"
    message = (
        "`x.reshape(a, b, ...)` takes the dims as varargs only on an NDArray: on a Symbol they "
        "bind to shape, reverse, target_shape, keep_highest; pass one tuple, x.reshape((a, b, ...))"
    )
    explanation = """\
## What it does
Finds the fluent `x.reshape(a, b, ...)` with two or more positional dimensions on a tensor
inside `hybrid_forward` (and the helpers it calls).

## Why it breaks under hybridize
`NDArray.reshape(*shape, **kwargs)` accepts the dims as separate arguments, but MXNet 1.9.1's
`Symbol.reshape(*args, **kwargs)` is `mx.sym.reshape(self, *args, **kwargs)`, whose positional
parameters are `shape, reverse, target_shape, keep_highest, name, attr, out`. So
`x.reshape(b, -1, 4)` means `shape=b, reverse=-1, target_shape=4`:
- a second value other than 0 or 1 fails when the graph is built: `MXNetError: Invalid
  Parameter format for reverse expect boolean but value='-1', in operator Reshape(...)`;
- a second value of 0 or 1 is taken for `reverse`, the first for a one-dimensional shape and
  the rest are ignored: `x.reshape(6, 1)` gives shape `(6,)` instead of `(6, 1)` (a silent
  change), and `x.reshape(2, 1)` of a 24-element array gives shape `(2,)`: MXNet does not
  check a Symbol reshape's size, returns 2 values and then reads and writes memory outside the
  array (`double free or corruption`, a native crash);
- more than seven positional values: `TypeError: reshape() takes from 0 to 8 positional
  arguments`.

A reshape to the 0-d shape `()` (`x.reshape(())`, `F.reshape(x, shape=())`) is reported too:
in MXNet 1.9.1 (legacy, not `np_shape` mode) a Symbol's shape `()` means *unknown*, so the
hybridized graph fails (`MXNetError: MKLDNN doesn't support 0 dimensions`, or `Incompatible
attr in node ... expected [1], got []`), while eagerly a 0-d NDArray exists.

## Example
```python
def hybrid_forward(self, F, x):
    return x.reshape(0, -1, 4)
```

## Fix
```python
def hybrid_forward(self, F, x):
    return x.reshape((0, -1, 4))
```
The positional dims become one tuple; keywords (`reverse=True`) stay. A 0-d reshape has no
exact rewrite (a Symbol has no 0-d shape): it is reported only, with the advice to keep one
element as shape `(1,)` or to reshape like the tensor it meets (`F.reshape_like(label, pred)`),
except in the Symbol branch of a guard whose eager branch reshapes the same tensor like another
(`label.reshape(pred.shape) if F is mx.nd else label.reshape(())`): the whole expression becomes
`F.reshape_like(label, pred)`, unsafe: it computes the eager branch's values in both modes, but
returns a copy where `label.reshape(...)` returned a view of `label` (an in-place update of one
then no longer shows in the other).

## Fix safety
Safe: `NDArray.reshape(a, b, c)` packs its arguments into the tuple `(a, b, c)` before doing
anything, so `x.reshape((a, b, c))` runs the very same code eagerly, and on a Symbol it is
`shape=(a, b, c)`, which MXNet's Reshape resolves with the same special codes (0, -1, -2, -3,
-4) and `reverse`. Calls with a starred argument (`x.reshape(*dims)`) are not reported, as the
analysis does not know how many values they pass; they break the same way when `dims` holds
two or more (write `x.reshape(tuple(dims))`). The guard's `F.reshape_like` is unsafe (a copy
where the eager branch made a view, above).
"""

    VALID = valid_table(
        net,
        "return x.reshape((0, -1, 4))",
        "return x.reshape([0, -1])",
        "return x.reshape(-1)",  # one value: shape=-1 on both
        "return x.reshape(shape=(0, -1))",
        "return x.reshape((-1, 3), reverse=True)",
        "return F.reshape(x, (0, -1))",
        "a = x.asnumpy().reshape(2, -1)\nreturn x",  # numpy's reshape (HL002's finding)
        Valid(
            "import numpy as np\n\nclass Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        k = np.arange(4).reshape(2, 2)\n        return x * float(k.sum())\n"
        ),
        "return x.reshape(0, -1)  # hybridlint: ignore[HL011]",
        "return x.reshape((1,))",
        "n = x.asnumpy().reshape(())\nreturn x",  # numpy's 0-d reshape
    )
    INVALID = [
        # MXNet's own codes (-2, -3, -4): only an MXNet array takes them, whatever the value is
        # (gluonnlp's CacheCell, on what a parent class's hybrid_forward returned)
        Invalid(
            net("h = self.cell(x)\nreturn h[-1].reshape(-3, -2)"),
            line=4,
            fix=("h[-1].reshape(-3, -2)", "h[-1].reshape((-3, -2))"),
            safety=SAFE,
        ),
        Invalid(
            net("return x.reshape(3, -1, 2)"),
            line=3,
            fix=("x.reshape(3, -1, 2)", "x.reshape((3, -1, 2))"),
            safety=SAFE,
        ),
        Invalid(
            net("return F.relu(x).reshape(0, -1)"),
            line=3,
            fix=("F.relu(x).reshape(0, -1)", "F.relu(x).reshape((0, -1))"),
            safety=SAFE,
        ),
        # 1 binds to reverse: (24,) instead of (24, 1), silently
        Invalid(
            net("y = F.relu(x)\nreturn y.reshape(-1, 1)"),
            line=4,
            fix=("y.reshape(-1, 1)", "y.reshape((-1, 1))"),
            safety=SAFE,
        ),
        Invalid(
            net("return x.reshape(-1, 3, reverse=True)"),
            line=3,
            fix=("x.reshape(-1, 3, reverse=True)", "x.reshape((-1, 3), reverse=True)"),
            safety=SAFE,
        ),
        Invalid(
            net("n = 2\nreturn x.reshape(0, n, -1) * 2"),
            line=4,
            fix=("x.reshape(0, n, -1)", "x.reshape((0, n, -1))"),
            safety=SAFE,
        ),
        Invalid(
            net("return x.expand_dims(0).reshape(0, 0, 2, -1)"),
            line=3,
            fix=(
                "x.expand_dims(0).reshape(0, 0, 2, -1)",
                "x.expand_dims(0).reshape((0, 0, 2, -1))",
            ),
            safety=SAFE,
        ),
        # a 0-d reshape: the Symbol branch of a guard fails hybridized; the eager branch's
        # reshape like another tensor serves both (issue 21 item 7)
        Invalid(
            net(
                "label = x.reshape(F.relu(x).shape) if F is mx.nd else x.reshape(())\n"
                "return F.relu(x) * label"
            ),
            line=3,
            fix=(
                "x.reshape(F.relu(x).shape) if F is mx.nd else x.reshape(())",
                "F.reshape_like(x, F.relu(x))",
            ),
            safety=UNSAFE,
        ),
        Invalid(net("return F.sum(x) * F.reshape(F.relu(x), shape=())"), line=3),
    ]

    def visit_IfExp(self, node: cst.IfExp) -> None:
        found = one_sided_reshape(node, self)  # `a.reshape(b.shape) if F is nd else a.reshape(())`
        if found is not None:
            like = call(f"{self.namespace}.reshape_like", [found[1], found[2]])
            self._guards = {**getattr(self, "_guards", {}), found[0]: (node, like)}

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        self._zero_dims(node)
        if not (isinstance(func, cst.Attribute) and func.attr.value == "reshape"):
            return
        positional = [arg for arg in node.args if arg.keyword is None]
        if len(positional) < 2 or any(arg.star for arg in node.args):
            return
        if any(arg.keyword is not None and arg.keyword.value == "shape" for arg in node.args):
            return  # shape given twice: a TypeError eagerly too, not a hybridize hazard
        if not (self.is_tensor(func.value) or _mxnet_codes(positional)):
            return
        dims = tuple_of([arg.value for arg in positional])
        keywords = [arg for arg in node.args if arg.keyword is not None]
        last = keywords[-1] if keywords else None
        new_args = [
            cst.Arg(value=dims, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
            if keywords
            else cst.Arg(value=dims)
        ]
        new_args += [
            arg if arg is not last else arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)
            for arg in keywords
        ]
        self.report(node, replacement=node.with_changes(args=new_args), safety=SAFE)

    def _zero_dims(self, node: cst.Call) -> None:
        """`x.reshape(())`, `F.reshape(x, shape=())`: a 0-d target, which a Symbol lacks."""
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("reshape", "Reshape"):
            return
        fluent = func.attr.value == "reshape" and namespace_call(node, self.namespace) is None
        data = func.value if fluent else call_argument(node, 0, "data")
        target = call_argument(node, 0 if fluent else 1, "shape")
        if data is None or target is None or target.star:
            return
        if not (isinstance(target.value, (cst.Tuple, cst.List)) and not target.value.elements):
            return
        if not self.is_tensor(data if isinstance(data, cst.BaseExpression) else data.value):
            return
        guard = getattr(self, "_guards", {}).get(node)  # the eager branch's reshape serves both
        self.report(
            node,
            "a reshape to the 0-d shape (): a Symbol's shape () is unknown in MXNet 1.9.1, so the "
            "hybridized graph fails (MXNetError: MKLDNN doesn't support 0 dimensions); keep one "
            "element as shape (1,), or reshape like the tensor it meets (F.reshape_like(x, y))",
            edits=(guard,) if guard else (),
            safety=UNSAFE,  # a copy where the eager branch's reshape made a view of the data
        )


def _mxnet_codes(args: List[cst.Arg]) -> bool:
    """A dim -2, -3 or -4 (MXNet's reshape codes: copy the rest, merge two, split one): only an
    MXNet array takes them (numpy rejects any negative but -1), so the receiver is one even
    where the analysis cannot tell (gluonnlp's CacheCell: `encoder_hs[-1].reshape(-3, -2)` on
    what a parent class's hybrid_forward returned)."""
    return any(literal_int(arg.value) in (-2, -3, -4) for arg in args)
