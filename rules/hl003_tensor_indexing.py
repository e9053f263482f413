"""HL003 tensor-indexing: `x[i]`, `x[a:b]`, ... on a tensor, and slice assignment."""

from __future__ import annotations

from typing import Dict, List, NamedTuple, Optional, Tuple

import libcst as cst

from ._build import attr_chain, call, integer, keyword_arg, strip_parens, tuple_of
from ._examples import constructor, net, with_parent
from ._own_dims import own_dim_bound, own_dims
from .analysis import SCALAR, TENSOR, TENSORS, UNKNOWN, dotted_name, literal_int
from .values import self_attribute_name, walk_nodes
from .base import SAFE, UNSAFE, Invalid, Rule, Valid, invalid_table, returns, valid_table


class _AxisBounds(NamedTuple):
    """Per axis of a subscript: MXNet slice's begin, end and step, whether the axis is taken
    whole; the axes an integer picks; the safety of the whole rewrite."""

    begins: List[cst.BaseExpression]
    ends: List[cst.BaseExpression]
    steps: List[cst.BaseExpression]
    full: List[bool]
    integers: List[int]
    safety: str


def _op(namespace: Optional[str], name: str, data: cst.BaseExpression, keywords) -> cst.Call:
    """`F.name(data, ...)`, or the fluent `data.name(...)` (NDArray and Symbol both have it)."""
    if namespace is not None:
        return call(f"{namespace}.{name}", [data], keywords)
    fluent = call(name, [], keywords)
    return fluent.with_changes(func=cst.Attribute(value=data, attr=cst.Name(name)))


# a block whose `memory` input is list-like by its name (analysis._LIST_LIKE_NAME)
_ATTEND = (
    "class Attend(HybridBlock):\n    def hybrid_forward(self, F, query, memory):\n"
    "        return query * memory[0]\n"
)


# a loss over the items of `*states`, sliced along time (gluonnlp's temporal regularization)
_TAR = (
    "class Tar(HybridBlock):\n    def hybrid_forward(self, F, *states):\n"
    "        return F.add_n(*[(s[1:] - s[:-1]).mean() for s in states[-1:]])\n"
)


# a block with a gluon LSTM layer
_RNN = (
    "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
    "        self.rnn = mx.gluon.rnn.LSTM(5)\n\n    def hybrid_forward(self, F, x):\n"
    "        {body}\n"
)


class TensorIndexing(Rule):
    code = "HL003"
    name = "tensor-indexing"
    message = (
        "indexing a tensor selects an output of a Symbol after hybridize(), not a slice; "
        "use F.slice_axis / F.slice (+ F.squeeze for integer indices)"
    )
    explanation = """\
## What it does
Finds `x[i]`, `x[-1]`, `x[a:b]`, `x[:, i]`, `x[..., a:b:s]`, `x[:, None]` and slice assignment
`x[i] = v` on a tensor inside `hybrid_forward` (and the helpers it calls).
Also finds negative indices and reversed or overshooting slices of the outputs of a
multi-output operator (`F.split`, `F.SliceChannel`, `x.split`), which become a grouped Symbol.

## Why it breaks under hybridize
On an NDArray `[]` slices. On a Symbol `[]` selects an *output* of a grouped symbol: `x[0]` on a
single-output Symbol returns the Symbol itself, so the model silently computes on the whole
array (shapes then fail later, or worse, do not); `x[1]` and `x[0:2]` raise a bare `IndexError`;
`x[:, 1]`, `x[..., 1]` and new axes (`x[:, None]`) raise `TypeError: Symbol only support
integer index to fetch i-th output` (an NDArray takes `None` as numpy's new axis). Slice
assignment raises `TypeError: 'Symbol' object does not support item assignment`.

## Example
```python
def hybrid_forward(self, F, x):
    return x[:, -1]
```

## Fix
```python
def hybrid_forward(self, F, x):
    return F.squeeze(F.slice_axis(x, axis=1, begin=-1, end=None), axis=1)
```
Integer indices become `F.slice_axis(x, axis=k, begin=i, end=i+1)` (`end=None` for `-1`) wrapped
in `F.squeeze(..., axis=k)`, because MXNet keeps no scalar axis. Slices become
`F.slice(x, begin=(...), end=(...), step=(...))`, which clamps out-of-range bounds exactly like
Python slicing (`slice_axis` does not, so it is not used for slices). A bound written with the
array's own dim counts from the end of its axis, which needs no shape: after `_, _, h, w =
x.shape`, `x[:, :, 1:h - 1, :w]` → `F.slice(x, begin=(None, None, 1), end=(None, None, -1))`
(unsafe: `h - k` is `-k` only for `0 < k <= h`; the unpacking, then unread, goes). After `...`, an integer
index becomes `slice_axis(axis=-1)`. In a helper that receives tensors but no `F`, the same
operators are used as methods (`t.slice_axis(...)`, `t.squeeze(...)`), which NDArray and Symbol
both have. New axes (`None`, `np.newaxis`, an imported numpy `newaxis`) become
`F.expand_dims(x, axis=k)`, `k` counted in the output (`x[:, None]` → `axis=1`, `x[..., None]`
→ `axis=-1`, several: nested calls); with selections the selection comes first, its integer
axes kept, then `expand_dims`, then one `squeeze` of the integer axes (an integer next to a new
axis needs neither: `x[0, None]` → `F.slice_axis(x, axis=0, begin=0, end=1)`). Outputs: `y[-1]` →
`y[n - 1]` when the number of outputs `n` is a literal, else
`list(y)[-1]`; reversed or overshooting slices → `list(y)[...]` (a Python list of the outputs
in both modes; a grouped Symbol raises `Symbol only accept nonnegative index`). A list of rows
with every other item `:` (`x[:, rows]`, `rows = [0, 2]`) becomes the rows one by one:
`F.concat(*[F.slice_axis(x, axis=1, begin=i, end=(i + 1) or None) for i in rows], dim=1)`.

Not reported: subscripts of values not proven to be tensors. gluon passes lists, tuples and
dicts of arrays to `hybrid_forward` the same way as arrays, so an input is a tensor only when
the body uses it as only an array can be used (a plain argument of an `F.<op>` call or of a
gluon layer, an operand next to a certain tensor, `x.reshape(...)`, `x.shape`, a tuple index
`x[:, 0]`, arithmetic between two slices of it, `x[1:] - x[:-1]`, which raises for a list or a
tuple, also on an item of `*states` iterated by a `for`); a type test (`isinstance(x, (list,
tuple))`, `type(x) in (list, tuple)`), a `List[...]`/`Dict[...]` annotation, a string key
(`d["level_0"]`), unpacking, `len()` or a `for` over it make it a container. The outputs of
multi-output operators (`F.linalg.slogdet`, `F.moments`, `F.split` ...) and of child blocks
returning tuples are selected with `[i]` in both modes: only their negative indices and
reversed slices are reported.

## Fix safety
A scalar index `i` becomes `begin=i, end=i + 1`: safe when the analysis knows `i >= 0` (a
`range()` loop index, a dimension, `len()`), unsafe otherwise (wrong for `i = -1`; raises for
a name holding `None`).
A list of rows is safe when it is a literal of the function, unsafe when it is an attribute
(taken for a list: an int there would make the rewrite raise); a bare `x[rows]` gets no fix
(a tuple there indexes several axes).
Safe for integer literal indices and for slices whose bounds are non-negative integer literals or
`None` (any step): the rewritten expression returns the same values for every input shape
(checked eagerly and hybridized against the original in the test suite). Slices with a negative
or non-literal bound are unsafe: MXNet 1.9.1's `slice` raises `could not construct a
sub-memory` when a negative bound lies before the start of the axis (`x[-5:]` on a length-2
axis), where Python slicing clamps; within range they are exact. `x[..., a:b]` becomes
`F.slice_axis(x, axis=-1, begin=a, end=b)`, which raises instead of clamping when `b` is past
the end: unsafe. An input that is a tensor only because the module's own call sites pass one (a parent's
`self.attend(x, F.stack(...))`) makes every fix on it unsafe: another module may pass a list.
New axes follow the same rules: with only `:` and `...` besides them the fix is safe; their
other items make it safe or unsafe as above. The integer axes are squeezed last because MXNet
gives a fully indexed array the shape (1,), not (): squeezing before `expand_dims` would add
an axis (`x[None, 0]` on a vector is (1,)). Indices that are tensors, names of unknown value,
items on both sides of `...` or a step after `...` are reported without a fix, as are a
subscript measured by `len()` (`len(x[0])`: HL009 reports the `len`, which no index rewrite
helps) and slice assignment (rewrite it with `F.where` or `F.concat`). A value that is an array only by the
arithmetic between its slices gets an unsafe fix: a numpy array passes that arithmetic too
(gluon lets one reach an eager hybrid_forward beside an NDArray input), and `F.slice` raises
on it where the original worked.
"""

    VALID = valid_table(
        net,
        # issue 11: the parent passes a list of arrays as the list-like `memory`
        Valid(with_parent(_ATTEND, "Attend", "x, [F.relu(x), F.sigmoid(x)]")),
        # a child whose hybrid_forward returns a name bound to a list gives a list (GluonCV's DLAUp)
        Valid(
            "class Up(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        out = [x]\n        out.append(F.relu(x))\n        return out\n\n\n"
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.up = Up()\n\n    def hybrid_forward(self, F, x):\n"
            "        y = self.up(x)\n        return y[0] + y[1]\n"
        ),
        # an input item-assigned at a computed index is a list of inputs (GluonCV's IDAUp)
        Valid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, layers):\n"
            "        for i in range(1, 3):\n"
            "            layers[i] = F.relu(layers[i]) + layers[i - 1]\n        return layers\n"
        ),
        # an input only indexed and counted (len) is a list of feature maps (analysis.list_inputs)
        Valid(
            "class Decoder(HybridBlock):\n    def hybrid_forward(self, F, feats):\n"
            "        x = feats[-1]\n        for i in range(len(feats) - 2, -1, -1):\n"
            "            x = F.UpSampling(x, scale=2, sample_type='nearest') + feats[i]\n"
            "        return x\n"
        ),
        "a = F.split(x, num_outputs=2)\nreturn a[0]",
        # an input only indexed may be a list of arrays (gluon passes them the same way): unproven
        "return x[0]  # gluon may pass x as a list",
        Valid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, h, c):\n        out = []\n"
            "        for i in range(2):\n            out.append(self.cell(x, h[i], c[i]))\n        return out\n"
        ),
        # a type test proves a list in its branch, in statements and in ternaries (HRNet, GluonNLP)
        "if isinstance(x, (list, tuple)):\n    x = x[-1]\nreturn F.relu(x)",
        Valid(
            net(
                "y = x[-1] if type(x) in (list, tuple) else x\n"
                "return F.relu(y) + F.relu(x[0] if isinstance(x, list) else x)"
            )
        ),
        # ... also inside a call in the branch, where a parent passes a tensor (HL001's resize
        # child rewrite of PSPNet's head: a Symbol takes the `like` branch)
        Valid(
            "class Head(HybridBlock):\n    def hybrid_forward(self, F, x, size):\n"
            "        return (F.contrib.BilinearResize2D(x, height=size[0], width=size[1])\n"
            "                if isinstance(size, (list, tuple))\n"
            "                else F.contrib.BilinearResize2D(x, like=size, mode='like'))\n\n\n"
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.head = Head()\n\n    def hybrid_forward(self, F, x):\n"
            "        return self.head(F.relu(x), x)\n"
        ),
        # a string key is a dict's item, an annotated list's item is an element (GluonTS)
        "return F.relu(x['level_0'][:, 0]) + F.relu(x[f'level_{1}'][..., 1:])",
        Valid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, params: List[Tensor]):\n"
            "        return F.broadcast_mul(x, params[0])\n"
        ),
        Valid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, d: Dict[str, Tensor]):\n"
            "        return F.broadcast_mul(x, d['w'][0])\n"
        ),
        # a multi-output operator's outputs: [i] selects one in both modes
        "return F.linalg.slogdet(x)[1] + F.moments(x, axes=0)[0]",
        "y = F.SliceChannel(x, num_outputs=3, axis=1)\nreturn y[2] + y[0] + F.add_n(*y[1:3])",
        Valid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, *args):\n        return x + args[0]\n"
        ),
        "n = x.shape[0]\nreturn x",  # HL001's business, not indexing a tensor
        Valid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, *args):\n"
            "        xs = list(args)\n        return x + xs[0]\n"
        ),
        "s = (1, 2, 3)\nreturn x * s[0]",
        Valid(
            net(
                "if isinstance(x, mx.nd.NDArray):\n    return x[0]\n"
                "return F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1), axis=0)"
            )
        ),
        "if F is mx.sym:\n    raise ValueError('eager only')\nreturn x[0]",
        Valid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, states):\n        return x + states[0]\n"
        ),
        Valid("def helper(a):\n    return a[0]\n"),  # not reached from hybrid_forward
        # a numpy constant's new axis is numpy's business
        "m = np.ones((3, 4))[:, None]\nreturn F.broadcast_mul(x, F.array(m))",
        # slices that a list survives (`+` concatenates), indices (a list's items are arrays)
        "return x[1:] + x[:-1]  # gluon may pass x as a list",
        "return x[0] - x[1]  # gluon may pass x as a list",
        # a local numpy constant is no graph input: its slice arithmetic is numpy's
        "a = np.arange(4.0)\nd = a[1:] - a[:-1]\nreturn x * float(d.sum())",
        "return F.relu(x)[:, None]  # noqa: HL003",
        "return F.relu(x)[0]  # hybridlint: ignore[HL003]",
        "return F.relu(x)[0]  # noqa: HL003",
        "return F.relu(x)[-1]  # noqa",
    )
    INVALID = invalid_table(
        net,
        # an optional Parameter's input (`bias=None`, registered only `if use_bias:`) is its
        # data where a test says it is not None (CondConv's `bias[i]`, blind round 15)
        Invalid(
            net(
                "w = weight * 2\nif bias is not None:\n    return F.broadcast_add(w, bias[0])\n"
                "return w",
                "F, x, weight, bias=None",
                init=constructor(
                    "super().__init__()\nself.weight = self.params.get('weight', shape=(2, 3))\n"
                    "if use_bias:\n    self.bias = self.params.get('bias', shape=(2, 3))\n"
                    "else:\n    self.bias = None",
                    "use_bias=True",
                ),
            ),
            line=13,
            fix=("bias[0]", "F.squeeze(F.slice_axis(bias, axis=0, begin=0, end=1), axis=0)"),
            safety=SAFE,
        ),
        # an RNN layer called on the data alone returns one fresh tensor (GluonCV2's visemenet)
        Invalid(
            _RNN.format(body="x = self.rnn(x)\n        return x[:, -1, :]"),
            line=8,
            fix=("x[:, -1, :]", "F.squeeze(F.slice_axis(x, axis=1, begin=-1, end=None), axis=1)"),
            safety=SAFE,
        ),
        # issue 11: the module's only call of the block passes one stacked tensor as
        # `memory`, a name gluon code uses for lists of arrays (alone: not reported)
        Invalid(
            with_parent(_ATTEND, "Attend", "x, F.stack(F.relu(x), F.sigmoid(x))"),
            line=3,
            fix=("memory[0]", "F.squeeze(F.slice_axis(memory, axis=0, begin=0, end=1), axis=0)"),
            safety="unsafe",  # a tensor by the module's call sites only
        ),
        # an input used as an array (an operator's argument) is one: the literal rewrites are exact
        Invalid(
            net("y = F.relu(x)\nreturn x[0], y"),
            line=4,
            fix=("x[0]", "F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1), axis=0)"),
            safety=SAFE,
        ),
        # the negated number of the constructor (vdcnn's k-max pooling): a bound like any
        Invalid(
            net(
                "y = F.sort(x, axis=1)\nreturn y[:, -self.k:]",
                init=constructor("super().__init__()\nself.k = 2", ""),
            ),
            line=8,
            fix=("y[:, -self.k:]", "F.slice(y, begin=(None, -self.k), end=(None, None))"),
            safety=UNSAFE,  # as `y[:, self.k:]`: a bound from a name
        ),
        # a list of rows is not an int: no slice picks them (an `i, i + 1` slice raised
        # "can only concatenate list" eagerly, blind round 19); the rows one by one do
        Invalid(
            net(
                "y = F.relu(x)\nreturn y[:, self.rows]",
                init=constructor("super().__init__()\nself.rows = [0, 2]", ""),
            ),
            line=8,
            fix=(
                "y[:, self.rows]",
                "F.concat(*[F.slice_axis(y, axis=1, begin=i, end=(i + 1) or None) "
                "for i in self.rows], dim=1)",
            ),
            safety=UNSAFE,  # code outside the class may set another value
        ),
        # a literal of the function: exact (`or None` keeps -1 to the end)
        Invalid(
            net("y = F.relu(x)\nrows = [2, -1]\nreturn y[rows, :]"),
            line=5,
            fix=(
                "y[rows, :]",
                "F.concat(*[F.slice_axis(y, axis=0, begin=i, end=(i + 1) or None) for i in rows], "
                "dim=0)",
            ),
            safety=SAFE,
        ),
        # rows the constructor is given (blind round 19's `X[self.index, :]`): taken for a list
        Invalid(
            net(
                "y = F.relu(x)\nreturn y[self.index, :]",
                init=constructor("super().__init__()\nself.index = index", "index=(0, 2)"),
            ),
            line=8,
            fix=(
                "y[self.index, :]",
                "F.concat(*[F.slice_axis(y, axis=0, begin=i, end=(i + 1) or None) "
                "for i in self.index], dim=0)",
            ),
            safety=UNSAFE,  # an int there would make `for i in` raise
        ),
        # bare, a tuple would index several axes: no fix
        Invalid(net("y = F.relu(x)\nrows = (0, 2)\nreturn y[rows]"), line=5),
        # ... also when another branch stores a number there, or binds the name to one
        Invalid(
            net(
                "y = F.relu(x)\nreturn y[:, self.rows]",
                init=constructor(
                    "super().__init__()\nif multi:\n    self.rows = [0, 2]\nelse:\n"
                    "    self.rows = 1",
                    "multi=True",
                ),
            ),
            line=11,
        ),
        Invalid(net("idx = [0, 2] if self.k else 1\ny = F.relu(x)\nreturn y[:, idx]"), line=5),
        Invalid(
            net("x = F.relu(x)\nreturn x[-1]"),
            line=4,
            fix=("x[-1]", "F.squeeze(F.slice_axis(x, axis=0, begin=-1, end=None), axis=0)"),
            safety=SAFE,
        ),
        Invalid(
            net("x = F.relu(x)\nreturn x[-2]"),
            line=4,
            fix=("x[-2]", "F.squeeze(F.slice_axis(x, axis=0, begin=-2, end=-1), axis=0)"),
            safety=SAFE,
        ),
        ("x = F.relu(x)\nreturn x[1:3]", 4, ("x[1:3]", "F.slice(x, begin=(1,), end=(3,))"), SAFE),
        returns("x[:, 2]", "F.squeeze(F.slice_axis(x, axis=1, begin=2, end=3), axis=1)", SAFE),
        returns("x[:, -3:]", "F.slice(x, begin=(None, -3), end=(None, None))", UNSAFE),
        returns("x[::-1, 1:5:2]", "F.slice(x, begin=(None, 1), end=(None, 5), step=(-1, 2))", SAFE),
        returns("x[0, 1]", "F.squeeze(F.slice(x, begin=(0, 1), end=(1, 2)), axis=(0, 1))", SAFE),
        returns("x[..., 1]", "F.squeeze(F.slice_axis(x, axis=-1, begin=1, end=2), axis=-1)", SAFE),
        # bounds computed from ints (gluonfr RangeLoss's per-class rows): unsafe like any
        # non-literal bound (MXNet's slice raises where Python clamps)
        Invalid(
            net("k = 0\nreturn F.relu(x)[k * 2:(k + 1) * 2]"),
            line=4,
            fix=(
                "F.relu(x)[k * 2:(k + 1) * 2]",
                "F.slice(F.relu(x), begin=(k * 2,), end=((k + 1) * 2,))",
            ),
            safety=UNSAFE,
        ),
        returns("x[..., 1:3]", "F.slice_axis(x, axis=-1, begin=1, end=3)", UNSAFE),
        Invalid(
            net("y = F.relu(x)\nreturn y[0, ...]"),
            line=4,
            fix=("y[0, ...]", "F.squeeze(F.slice_axis(y, axis=0, begin=0, end=1), axis=0)"),
            safety=SAFE,
        ),
        Invalid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, _, x):\n        return x[0], _.relu(x)\n",
            line=3,
            fix=("x[0]", "_.squeeze(_.slice_axis(x, axis=0, begin=0, end=1), axis=0)"),
            safety=SAFE,
        ),
        Invalid(
            net(
                "outs = []\nfor i in range(3):\n    outs.append(x[i] * 2)\n"
                "return F.stack(*outs) + F.sum(x)"
            ),
            line=5,
            fix=("x[i]", "F.squeeze(F.slice_axis(x, axis=0, begin=i, end=i + 1), axis=0)"),
            safety=SAFE,
        ),
        Invalid(
            net("k = int(self.pick)\nreturn x[:, k]"),
            line=4,
            fix=("x[:, k]", "F.squeeze(F.slice_axis(x, axis=1, begin=k, end=k + 1), axis=1)"),
            safety=UNSAFE,
        ),
        ("x[0] = 1\nreturn F.relu(x)", 3),
        ("y = F.split(x, num_outputs=3, axis=1)\nreturn y[-1]", 4, ("y[-1]", "y[2]"), SAFE),
        Invalid(
            net("y = x.split(axis=2, num_outputs=2)\nreturn F.concat(*y[::-1], dim=2)"),
            line=4,
            fix=("y[::-1]", "list(y)[::-1]"),
            safety=SAFE,
        ),
        ("idx = F.argmax(x, axis=1)\nreturn x[idx]", 4),
        Invalid(
            "def first(t):\n    return t[0] + t[:, ::2][-1]\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return first(x)\n",
            line=2,
            fix=(
                "t[0] + t[:, ::2][-1]",
                (
                    "t.slice_axis(axis=0, begin=0, end=1).squeeze(axis=0) + "
                    "t.slice(begin=(None, None), end=(None, None), "
                    "step=(None, 2)).slice_axis(axis=0, begin=-1, end=None).squeeze(axis=0)"
                ),
            ),
            safety=SAFE,
        ),
        Invalid(
            "def helper(F, y):\n    return y[1:], F.relu(y)\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return helper(F, x)\n",
            line=2,
            fix=("y[1:]", "F.slice(y, begin=(1,), end=(None,))"),
            safety=SAFE,
        ),
        # after a branch that may leave it alone, the input is an array by its use in F.relu
        Invalid(
            net("if self.flag:\n    x = x - 1\nreturn x[0] + F.relu(x)"),
            line=5,
            fix=("x[0]", "F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1), axis=0)"),
            safety=SAFE,
        ),
        # on an operator's result the tensor is certain, and the exact rewrites are safe
        Invalid(
            net("y = F.relu(x)\nreturn y[-1]"),
            line=4,
            fix=("y[-1]", "F.squeeze(F.slice_axis(y, axis=0, begin=-1, end=None), axis=0)"),
            safety=SAFE,
        ),
        Invalid(
            net("y = F.relu(x)\nreturn y[1:3, ::2]"),
            line=4,
            fix=("y[1:3, ::2]", "F.slice(y, begin=(1, None), end=(3, None), step=(None, 2))"),
            safety=SAFE,
        ),
        # issue 20: a new axis (None) is expand_dims, its position counted in the output
        Invalid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, mask):\n"
            "        return F.broadcast_mul(x, mask[:, None, :])\n",
            line=3,
            fix=("mask[:, None, :]", "F.expand_dims(mask, axis=1)"),
            safety=SAFE,
        ),
        Invalid(
            net("y = F.relu(x)\nreturn y[None, ..., np.newaxis]"),
            line=4,
            fix=("y[None, ..., np.newaxis]", "F.expand_dims(F.expand_dims(y, axis=0), axis=-1)"),
            safety=SAFE,
        ),
        # an integer next to a new axis keeps its length-1 axis (x[0, None] on a vector is (1,))
        Invalid(
            net("y = F.relu(x)\nreturn y[0, None], y[None, 0, 1]"),
            line=4,
            fix=(
                "y[0, None], y[None, 0, 1]",
                (
                    "F.slice_axis(y, axis=0, begin=0, end=1), "
                    "F.squeeze(F.slice(y, begin=(0, 1), end=(1, 2)), axis=1)"
                ),
            ),
            safety=SAFE,
        ),
        Invalid(
            net("y = F.relu(x)\nreturn y[:, None, -2:]"),
            line=4,
            fix=(
                "y[:, None, -2:]",
                "F.expand_dims(F.slice(y, begin=(None, -2), end=(None, None)), axis=1)",
            ),
            safety=UNSAFE,
        ),
        # arithmetic between two slices of an input proves an array (a list raises on it);
        # unsafe: a numpy array passes it too, and F.slice raises on one
        Invalid(
            net("return (x[1:] - x[:-1]) * 2"),
            line=3,
            fix=(
                "x[1:] - x[:-1]",
                "F.slice(x, begin=(1,), end=(None,)) - F.slice(x, begin=(None,), end=(-1,))",
            ),
            safety=UNSAFE,
        ),
        # also an item of `*states` (gluonnlp's TemporalActivationRegularizationLoss)
        Invalid(
            with_parent(_TAR, "Tar", "x, F.relu(x)"),
            line=3,
            fix=(
                "s[1:] - s[:-1]",
                "F.slice(s, begin=(1,), end=(None,)) - F.slice(s, begin=(None,), end=(-1,))",
            ),
            safety=UNSAFE,
        ),
        # items on both sides of `...`: reported without a fix
        ("y = F.relu(x)\nreturn y[0, ..., None, 1]", 4),
        # measured by len() (HL009: no number under hybridize): the index's form changes nothing
        ("y = F.relu(x)\nreturn y.reshape((len(y[0]), -1))", 4),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._assigned: set = set()
        self._measured: set = set()  # subscripts that are the argument of len()

    def visit_Call(self, node: cst.Call) -> None:
        # `len(x[0])`: a Python int read off a tensor, which hybridize has no number for
        # whatever the index's form (HL009): rewriting the index alone changes nothing
        if isinstance(node.func, cst.Name) and node.func.value == "len" and len(node.args) == 1:
            if isinstance(node.args[0].value, cst.Subscript):
                self._measured.add(node.args[0].value)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._check_store(target.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._check_store(node.target)

    def _check_store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript):
            self._assigned.add(target)
            if self.is_tensor(target.value):
                self.report(
                    target,
                    "slice assignment on a tensor fails on a Symbol ('Symbol' object "
                    "does not support item assignment); build the result with "
                    "F.where, F.concat or F.slice_assign instead",
                )

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if node in self._assigned:
            return
        if self.value(node.value).outputs is not None:
            self._check_outputs(node)
            return
        # an input only indexed may be a list: not reported, unless the slices of the name meet
        # in arithmetic a list raises on (`s[1:] - s[:-1]`: analysis `sliced_arrays`)
        by_slices = not self.is_tensor(node.value)
        if by_slices and not self._sliced_input(node.value):
            return
        if node in self._measured:
            self.report(
                node,
                "indexing a tensor selects an output of a Symbol after hybridize(), not a "
                "slice; here the item is measured by `len()`, which has no number under "
                "hybridize whatever the index (HL009): no index rewrite helps, pass the length "
                "in (a constructor argument) or use shape-free ops",
            )
            return
        rewrite = self._rewrite(node)
        if rewrite is None:
            self.report(node, self._sliced_message(node) if by_slices else None)
        else:
            replacement, safety = rewrite
            # an array by that use alone may be a numpy array, on which F.slice raises eagerly
            self.report(
                node,
                self._sliced_message(node) if by_slices else None,
                replacement=replacement,
                safety=UNSAFE if by_slices else safety,
            )

    @staticmethod
    def _sliced_message(node: cst.Subscript) -> str:
        name = cst.ensure_type(node.value, cst.Name).value
        return (
            f"`{name}` is an array here (a list or tuple raises on arithmetic between its "
            f"slices): hybridized it is a Symbol, and `{name}[...]` selects its outputs, not a "
            "slice; use F.slice / F.slice_axis (unsafe fix: a numpy array would pass the "
            "arithmetic too, and F.slice raises on one)"
        )

    def _sliced_input(self, expr: cst.BaseExpression) -> bool:
        """A gluon input (or an item of one) of unknown kind that slice arithmetic proves an
        array; a value the analysis knows to be something else is not one."""
        if self.facts is None or self.value(expr).kind not in (UNKNOWN, TENSOR):
            return False
        return expr in self.facts.sliced_arrays()

    def _check_outputs(self, node: cst.Subscript) -> None:
        """Indexing the outputs of F.split & co: a grouped Symbol takes only indices in
        [0, n) and slices with such literal bounds (no negatives, no reversal, no overshoot)."""
        count = self.value(node.value).outputs or 0
        if len(node.slice) != 1:
            return
        element = node.slice[0].slice
        if isinstance(element, cst.Index):
            index = literal_int(element.value)
            if index is None or index >= 0:
                return
            if count and -count <= index:
                fixed: cst.BaseExpression = node.with_changes(
                    slice=[node.slice[0].with_changes(slice=cst.Index(integer(count + index)))]
                )
            else:
                fixed = node.with_changes(value=call("list", [node.value]))
        else:
            assert isinstance(element, cst.Slice)  # the other BaseSlice
            bounds = [element.lower, element.upper, element.step]
            numbers = [literal_int(b) if b is not None else None for b in bounds]
            if any(b is not None and n is None for b, n in zip(bounds, numbers)):
                return  # unknown bounds: cannot tell
            lower, upper, step = numbers
            overshoot = bool(count) and upper is not None and upper > count
            if not (any(n is not None and n < 0 for n in numbers) or overshoot):
                return
            fixed = node.with_changes(value=call("list", [node.value]))
        self.report(
            node,
            "a multi-output result is a grouped Symbol after hybridize(): it takes no negative "
            "index, reversed or overshooting slice (Symbol only accept nonnegative index); "
            "index from the front or take list(outputs)",
            replacement=fixed,
        )

    # -- the fix --------------------------------------------------------------------------
    def _bound(self, expr: Optional[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
        """A slice bound usable as an int attribute, or None when it is not certain."""
        if expr is None:
            return cst.Name("None")
        if literal_int(expr) is not None:
            return integer(literal_int(expr))
        if isinstance(expr, (cst.Name, cst.Attribute)) and self.value(expr).kind == SCALAR:
            return strip_parens(expr)
        if (  # `x[:, -self.k:]`: the negated number is as certain as the number
            isinstance(expr, cst.UnaryOperation)
            and isinstance(expr.operator, cst.Minus)
            and isinstance(expr.expression, (cst.Name, cst.Attribute))
            and self.value(expr.expression).kind == SCALAR
        ):
            return strip_parens(expr)
        if self._int_arithmetic(expr):  # `x[i * n:(i + 1) * n]`: the caller calls it unsafe
            return strip_parens(expr)
        return None

    def _int_arithmetic(self, expr: cst.BaseExpression) -> bool:
        """`+ - * //` of int literals, names and attributes none of which is a tensor (a
        bound the working eager code slices with is an int)."""
        if isinstance(expr, cst.BinaryOperation) and isinstance(
            expr.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)
        ):
            return self._int_arithmetic(expr.left) and self._int_arithmetic(expr.right)
        if literal_int(expr) is not None:
            return True
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            return self._int_arithmetic(expr.expression)
        return isinstance(expr, (cst.Name, cst.Attribute)) and self.value(expr).kind not in (
            TENSOR,
            TENSORS,
        )

    def _rewrite(self, node: cst.Subscript) -> Optional[Tuple[cst.BaseExpression, str]]:
        namespace = self.namespace  # None in a helper given tensors but no F: fluent methods
        elements = [e.slice for e in node.slice]
        ellipses = [
            i
            for i, e in enumerate(elements)
            if isinstance(e, cst.Index) and isinstance(e.value, cst.Ellipsis)
        ]
        if len(ellipses) > 1:
            return None
        data = (
            node.value
            if namespace is None or isinstance(node.value, (cst.BinaryOperation, cst.IfExp))
            else strip_parens(node.value)
        )
        if any(isinstance(e, cst.Index) and self._is_new_axis(e.value) for e in elements):
            return self._new_axes(namespace, data, elements)
        if ellipses:
            where = ellipses[0]
            before, after = elements[:where], elements[where + 1 :]
            if not after:
                elements = before
            elif not before and len(after) == 1:
                return self._last_axis(namespace, data, after[0])
            else:
                return None
        if not elements:
            return None
        picked = self._picked_rows(namespace, data, elements)
        if picked is not None:
            return picked
        bounds = self._axis_bounds(elements, data)
        if bounds is None:
            return None
        begins, ends, steps, full, squeeze, safety = bounds
        ns = namespace
        if len(squeeze) == 1 and all(full[i] for i in range(len(elements)) if i != squeeze[0]):
            axis = squeeze[0]
            sliced = _op(
                ns,
                "slice_axis",
                data,
                [("axis", integer(axis)), ("begin", begins[axis]), ("end", ends[axis])],
            )
            return _op(ns, "squeeze", sliced, [("axis", integer(axis))]), safety
        return _squeeze(ns, _slice(ns, data, begins, ends, steps, full), squeeze), safety

    def _axis_bounds(
        self, elements, data: Optional[cst.BaseExpression] = None
    ) -> Optional[_AxisBounds]:
        """The bounds of `elements` (the Index and Slice of a subscript, from the front), or
        None where a bound has no exact expression (both subscript rewrites start here). A
        bound written with the sliced array's own dim (`x[:, :h - k]`) counts from the end of
        its axis (`_own_dims`)."""
        dims = self._own_dims(data)
        safety = SAFE
        begins: List[cst.BaseExpression] = []
        ends: List[cst.BaseExpression] = []
        steps: List[cst.BaseExpression] = []
        full: List[bool] = []
        integers: List[int] = []
        for axis, element in enumerate(elements):
            if isinstance(element, cst.Index):
                if element.star is not None:
                    return None
                bounds = self._index_bounds(element.value)
                if bounds is None:
                    return None
                begin, end, exact = bounds
                if not exact:
                    safety = UNSAFE
                begins.append(begin)
                ends.append(end)
                steps.append(cst.Name("None"))
                full.append(False)
                integers.append(axis)
                continue
            assert isinstance(element, cst.Slice)  # the other BaseSlice
            lower, upper = element.lower, element.upper
            if dims and element.step is None and isinstance(data, cst.Name):
                lower = own_dim_bound(lower, axis, dims, data.value, False) or lower
                upper = own_dim_bound(upper, axis, dims, data.value, True) or upper
                if upper is not None and _is_none(upper):
                    upper = None
            start, stop, stride = (
                self._bound(lower),
                self._bound(upper),
                self._bound(element.step),
            )
            if start is None or stop is None or stride is None:
                return None
            for bound in (lower, upper):
                number = literal_int(bound) if bound is not None else 0
                if number is None or number < 0:
                    # MXNet 1.9.1's slice fails ("could not construct a sub-memory") for a
                    # negative bound before the start of the axis, where Python clamps
                    safety = UNSAFE
            begins.append(start)
            ends.append(stop)
            steps.append(stride)
            full.append(all(_is_none(b) for b in (start, stop, stride)))
        return _AxisBounds(begins, ends, steps, full, integers, safety)

    def _picked_rows(
        self, ns: Optional[str], data: cst.BaseExpression, elements
    ) -> Optional[Tuple[cst.BaseExpression, str]]:
        """`x[:, rows]` with `rows` a list or tuple of ints and every other item `:`: the rows
        one by one, `F.concat(*[F.slice_axis(x, axis=1, begin=i, end=(i + 1) or None) for i in
        rows], dim=1)` (a Symbol takes no list index; `or None` keeps `-1` to the end). Only
        in a tuple index: bare, a tuple would index several axes. SAFE for a literal of the
        function (non-empty, so the concat has an input), UNSAFE for an attribute (code
        outside the class may set it) and for a constructor argument kept on self (taken
        for a list of rows: an int would make it raise eagerly)."""
        if ns is None or len(elements) < 2 or not _plain(data):
            return None
        picks = [
            i
            for i, e in enumerate(elements)
            if not (
                isinstance(e, cst.Slice) and e.lower is None and e.upper is None and e.step is None
            )
        ]
        if len(picks) != 1 or not isinstance(elements[picks[0]], cst.Index):
            return None
        axis, rows = picks[0], elements[picks[0]].value
        safety = self._rows_safety(rows)
        if safety is None:
            return None
        taken = {n.value for n in walk_nodes(data) if isinstance(n, cst.Name)} | {ns}
        item = next(name for name in ("i", "j", "k", "row", "_row") if name not in taken)
        end = cst.BooleanOperation(
            left=cst.BinaryOperation(
                left=cst.Name(item),
                operator=cst.Add(),
                right=cst.Integer("1"),
                lpar=[cst.LeftParen()],
                rpar=[cst.RightParen()],
            ),
            operator=cst.Or(),
            right=cst.Name("None"),
        )
        one = _op(
            ns,
            "slice_axis",
            data,
            [("axis", integer(axis)), ("begin", cst.Name(item)), ("end", end)],
        )
        rows_of = cst.ListComp(
            elt=one, for_in=cst.CompFor(target=cst.Name(item), iter=strip_parens(rows))
        )
        concat = cst.Call(
            func=attr_chain(f"{ns}.concat"),
            args=[cst.Arg(rows_of, star="*"), keyword_arg("dim", integer(axis))],
        )
        return concat, safety

    def _rows_safety(self, rows: cst.BaseExpression) -> Optional[str]:
        """How surely `rows` is a non-empty list or tuple of ints (`_picked_rows`), or None."""
        if isinstance(rows, cst.Name):
            value = self.value(rows)
            items = value.items if value.kind == SCALAR and value.sequence else None
            return SAFE if items and all(i.kind == SCALAR for i in items) else None
        attr = self_attribute_name(rows)
        klass = self.facts.klass if self.facts is not None else None
        if attr is None or klass is None:
            return None
        if attr in klass.number_lists:
            return UNSAFE
        if (attr in klass.required or attr in klass.stored) and self.value(rows).kind == UNKNOWN:
            return UNSAFE
        return None

    def _own_dims(self, data: Optional[cst.BaseExpression]) -> Dict[str, int]:
        """The names the function binds to dims of `data` (a name)."""
        if self.facts is None or not isinstance(data, cst.Name):
            return {}
        return own_dims(self.facts.dim_bindings(), data.value)

    def _index_bounds(self, expr: cst.BaseExpression):
        """(begin, end, exact) selecting index `expr` along an axis, or None.

        A literal gives exact bounds (`-1` -> begin=-1, end=None). A scalar name `i` gives
        begin=i, end=i + 1: exact when the analysis knows i >= 0 (a `range()` index, a dim),
        otherwise only for i >= 0 (for i = -1 the end would be 0): unsafe.
        """
        index = literal_int(expr)
        if index is not None:
            return integer(index), integer(None if index == -1 else index + 1), True
        if not isinstance(expr, (cst.Name, cst.Attribute)):
            return None
        value = self.value(expr)
        if value.kind != SCALAR or value.sequence:
            return None  # a list or tuple of numbers picks several rows: no slice does
        end = cst.BinaryOperation(
            left=strip_parens(expr), operator=cst.Add(), right=cst.Integer("1")
        )
        return strip_parens(expr), end, value.nonnegative

    def _last_axis(
        self, ns: Optional[str], data: cst.BaseExpression, element
    ) -> Optional[Tuple[cst.BaseExpression, str]]:
        """`x[..., i]` (exact) and `x[..., a:b]` (raises past the end: unsafe): what
        :meth:`_select_last` writes, the axis of an integer index squeezed away."""
        kept = self._select_last(ns, data, element)
        if kept is None or not isinstance(element, cst.Index):
            return kept
        return _op(ns, "squeeze", kept[0], [("axis", integer(-1))]), kept[1]

    # -- new axes (`None`, `np.newaxis`) -----------------------------------------------------
    def _is_new_axis(self, expr: cst.BaseExpression) -> bool:
        """`None`, or numpy's `newaxis` (`np.newaxis`, `numpy.newaxis`, an imported `newaxis`)."""
        name = dotted_name(expr)
        if name == "None":
            return True
        if name is None or name.rsplit(".", 1)[-1] != "newaxis":
            return False
        return self.state.module.qualify(name) in _NEWAXIS

    def _new_axes(
        self, ns: Optional[str], data: cst.BaseExpression, elements
    ) -> Optional[Tuple[cst.BaseExpression, str]]:
        """A subscript with new axes: the selection without them, its integer axes kept (not
        squeezed), then `expand_dims` for each new axis, then one `squeeze` of the integer axes.

        Every item but `...` is one axis of that intermediate layout, numbered from the front
        before `...` and from the end after it. An integer next to a new axis cancels it: its
        kept length-1 axis is the new axis. Squeezing last keeps the exact shape: MXNet gives a
        fully indexed array the shape (1,), not (), so squeezing first and expanding after
        would add an axis (`x[0, None]` on a vector is (1,)); with a new axis in the result,
        the squeeze never removes every axis.
        """
        kinds = []
        for element in elements:
            if isinstance(element, cst.Slice):
                kinds.append("slice")
            elif element.star is not None:
                return None
            elif isinstance(element.value, cst.Ellipsis):
                kinds.append("...")
            else:
                kinds.append("new" if self._is_new_axis(element.value) else "int")
        where = kinds.index("...") if "..." in kinds else len(kinds)
        # adjacent integer / new-axis pairs share one axis (never across `...`)
        partner = {}
        i = 0
        while i + 1 < len(kinds):
            if {kinds[i], kinds[i + 1]} == {"int", "new"}:
                partner[i], partner[i + 1] = i + 1, i
                i += 2
            else:
                i += 1
        position = {}
        front = 0
        for i in range(where):
            position[i] = front
            if partner.get(i) != i + 1:  # the first of a pair takes no axis of its own
                front += 1
        back = -1
        for i in range(len(kinds) - 1, where, -1):
            position[i] = back
            if partner.get(i) != i - 1:
                back -= 1
        selection = [(i, e) for i, e in enumerate(elements) if kinds[i] != "new"]
        if "..." in kinds:
            before = [e for i, e in selection if i < where]
            after = [e for i, e in selection if i > where]
            if before and after or len(after) > 1:
                return None
            if after:
                picked = self._select_last(ns, data, after[0])
            else:
                picked = self._select(ns, data, before)
        else:
            picked = self._select(ns, data, [e for _, e in selection])
        if picked is None:
            return None
        result, safety = picked
        news = [i for i, kind in enumerate(kinds) if kind == "new" and i not in partner]
        for i in sorted((i for i in news if i < where), key=lambda i: position[i]):
            result = _op(ns, "expand_dims", result, [("axis", integer(position[i]))])
        for i in sorted((i for i in news if i > where), key=lambda i: -position[i]):
            result = _op(ns, "expand_dims", result, [("axis", integer(position[i]))])
        squeeze = [
            position[i] for i, kind in enumerate(kinds) if kind == "int" and i not in partner
        ]
        return _squeeze(ns, result, squeeze), safety

    def _select(
        self, ns: Optional[str], data: cst.BaseExpression, elements
    ) -> Optional[Tuple[cst.BaseExpression, str]]:
        """`data[elements]` from the front with integer axes kept (length 1), or None."""
        bounds = self._axis_bounds(elements)
        if bounds is None:
            return None
        begins, ends, steps, full, integers, safety = bounds
        if all(full):
            return data, safety
        if len(integers) == 1 and sum(not f for f in full) == 1:
            axis = integers[0]
            keywords = [("axis", integer(axis)), ("begin", begins[axis]), ("end", ends[axis])]
            return _op(ns, "slice_axis", data, keywords), safety
        return _slice(ns, data, begins, ends, steps, full), safety

    def _select_last(
        self, ns: Optional[str], data: cst.BaseExpression, element
    ) -> Optional[Tuple[cst.BaseExpression, str]]:
        """`data[..., element]` with an integer axis kept (length 1), or None."""
        if isinstance(element, cst.Index):
            bounds = self._index_bounds(element.value)
            if bounds is None:
                return None
            keywords = [("axis", integer(-1)), ("begin", bounds[0]), ("end", bounds[1])]
            return _op(ns, "slice_axis", data, keywords), SAFE if bounds[2] else UNSAFE
        if element.lower is None and element.upper is None and element.step is None:
            return data, SAFE
        if element.step is not None:
            return None
        lower = self._bound(element.lower) if element.lower is not None else integer(0)
        upper = self._bound(element.upper)
        if lower is None or upper is None:
            return None
        keywords = [("axis", integer(-1)), ("begin", lower), ("end", upper)]
        return _op(ns, "slice_axis", data, keywords), UNSAFE  # raises past the end


_NEWAXIS = {"numpy.newaxis", "mxnet.np.newaxis", "mxnet.numpy.newaxis"}


def _slice(ns: Optional[str], data: cst.BaseExpression, begins, ends, steps, full) -> cst.Call:
    """`slice(data, begin=..., end=...)` over the axes up to the last one not taken whole
    (trailing `:` add nothing), with `step=` only where a step is given."""
    keep = len(begins)
    while keep > 1 and full[keep - 1]:
        keep -= 1
    keywords = [("begin", tuple_of(begins[:keep])), ("end", tuple_of(ends[:keep]))]
    if not all(_is_none(s) for s in steps[:keep]):
        keywords.append(("step", tuple_of(steps[:keep])))
    return _op(ns, "slice", data, keywords)


def _squeeze(ns: Optional[str], result: cst.BaseExpression, axes: List[int]) -> cst.BaseExpression:
    """`squeeze(result, axis=...)` of the integer-picked `axes` (none: result as it is)."""
    if not axes:
        return result
    axis = integer(axes[0]) if len(axes) == 1 else tuple_of([integer(a) for a in axes])
    return _op(ns, "squeeze", result, [("axis", axis)])


def _plain(expr: cst.BaseExpression) -> bool:
    """A name or `self.<a>`: read again per row at no cost and with no effect."""
    return isinstance(expr, cst.Name) or self_attribute_name(expr) is not None


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"
