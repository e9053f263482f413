"""HL005 array-creation: `nd.array`, `mx.nd.array`, `F.array`, `np.array(...)` fed to F ops."""

from __future__ import annotations

import ast
import re
from functools import partial
from typing import TYPE_CHECKING, Dict, List, Optional, Set, Tuple, Union

import libcst as cst

from . import _constant_helper as helper
from . import _constant_param as const
from ._build import call, integer, tuple_of
from ._bincount import BINCOUNT_NOTE, plan_bincount
from ._examples import constructor, net
from .analysis import TENSOR, FunctionFacts, call_argument, dotted_name, namespace_call
from .base import SAFE, UNSAFE, Edit, Invalid, Rule, Valid, valid_table
from .values import bound_targets, self_attribute_name, target_names, walk_nodes

if TYPE_CHECKING:  # numpy is imported where a literal's values are read: most runs never do,
    import numpy as np  # and importing it costs every linting process a tenth of a second

_IMPORTS = "import mxnet as mx\nfrom mxnet import nd\nfrom mxnet.gluon import HybridBlock\n\n\n"


_NEW_INIT = (
    _IMPORTS + "class Net(HybridBlock):\n    def __init__(self, *args, **kwargs):\n"
    "        super(Net, self).__init__(*args, **kwargs)\n"
    "        self.const = self.params.get_constant('const', {const})\n\n"
)


# every example imports nd (most create their arrays with it)
_net = partial(net, head=_IMPORTS)


# Tensor methods an NDArray and a Symbol both have (MXNet 1.9.1), each giving one array: a
# creation followed by these is still an array the constant can stand in for, and it reaches
# the graph when the chain does (`F.tile(base.expand_dims(axis=0), ...)`). `.T` (NDArray only)
# is followed too: on the constant it is HL001's (`F.transpose(c)`).
_CHAIN_METHODS = {
    "reshape",
    "astype",
    "expand_dims",
    "transpose",
    "flatten",
    "squeeze",
    "broadcast_to",
    "tile",
    "swapaxes",
    "broadcast_axes",
    "repeat",
    "flip",
    "slice_axis",
    "slice",
    "clip",
    "abs",
    "sign",
    "exp",
    "log",
    "sqrt",
    "square",
    "reciprocal",
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "norm",
    "relu",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "one_hot",
    "round",
    "floor",
    "ceil",
    "copy",
}
# mx.nd functions (MXNet 1.9.1) that make a new NDArray from Python values or shapes
_ND_CREATIONS = {
    f"mxnet.ndarray.{name}"
    for name in ("array", "zeros", "ones", "full", "arange", "eye", "linspace", "empty")
}
# on a numpy array these give a numpy scalar (an NDArray of shape (1,) on an NDArray)
_REDUCTIONS = {"sum", "mean", "max", "min", "prod", "norm"}
# `c * 2`, `1 - c`: a Symbol takes a number on either side of these
_NUMBER_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Power)
_HELPER = (
    "import numpy as np\n" + _IMPORTS + "class Net(HybridBlock):\n"
    "    def __init__(self, n=3, **kwargs):\n        super().__init__(**kwargs)\n"
    "        self._n = n\n{init}\n"
    "    def _scaled{helper}:\n{body}"
    "        return F.broadcast_mul(x, scale)\n\n"
)
_HELPER_VALUE = "np.linspace(0.5, 1.5, self._n).astype(np.float32)"
_HELPER_MADE = f"        scale = F.array({_HELPER_VALUE})\n"
_SCOPED = constructor(
    "super(Net, self).__init__(**kwargs)\nwith self.name_scope():\n    self.dense = nn.Dense(3)"
)

_SUPER = "super().__init__(**kwargs)"


def _local_constant(name: str, value: str, rest: str) -> Invalid:
    """A block whose hybrid_forward starts with `<name> = nd.array(<value>)` and goes on with
    `rest`: the fix builds the array in `__init__` as a constant parameter that hybrid_forward
    takes as its input `<name>`, and the `nd` import it no longer needs goes (unsafe)."""
    return Invalid(
        _net(f"{name} = nd.array({value})\n{rest}", init=constructor(_SUPER)),
        line=11,
        fix=[
            ("from mxnet import nd\n", ""),
            (_SUPER, f"{_SUPER}\nself.{name} = self.params.get_constant('{name}', {value})"),
            (
                f"def hybrid_forward(self, F, x):\n    {name} = nd.array({value})",
                f"def hybrid_forward(self, F, x, {name}):",
            ),
        ],
        safety=UNSAFE,
    )


class ArrayCreation(Rule):
    code = "HL005"
    name = "array-creation"
    message = "array created from Python values inside hybrid_forward; Symbol has no array()"
    explanation = """\
## What it does
Finds `nd.array(...)`, `mx.nd.array(...)`, `F.array(...)` and `np.array(...)` inside
`hybrid_forward` (and the helpers it calls) whose result meets a tensor: an argument of an `F`
operator or a tensor method, an operand of arithmetic with a tensor, the array whose method is
called with a tensor (`c.broadcast_like(x)`) — directly, through a local variable, or through
methods a Symbol has too (`.expand_dims()`, `.reshape(...)`, `.astype(...)`, `.transpose()`...),
`.T` and arithmetic with a number: `F.tile(base.expand_dims(axis=0), reps=...)` (numpy's
reductions, `np.array(...).sum()`, give a number, which tensors take). Also `self.<attr>` when
the class's own `__init__` sets it once to an NDArray it makes (`self.mean =
mx.nd.array(mean, ctx=mx.cpu(0))`, `nd.zeros(...)`) and hybrid_forward uses it the same way,
and a module-level name bound once to an NDArray an mx.nd function makes (`MEAN =
mx.nd.array([...]).reshape((1, 3, 1, 1))`) that the function reads as that global: in
hybrid_forward it becomes a constant parameter of the block (`self.mean =
self.params.get_constant('mean', MEAN)` in `__init__`, passed to hybrid_forward; unsafe, as a
new parameter: checkpoints saved before lack it); in a helper it is reported without a fix.

## Why it breaks under hybridize
The array is a fixed NDArray while the rest of the graph is Symbols. In MXNet 1.9.1:
`F.array` raises `AttributeError: module 'mxnet.symbol' has no attribute 'array'`;
`F.broadcast_add(x, nd.array(...))` raises `AssertionError: Argument rhs must be Symbol
instances, but got [...] <NDArray 3 @cpu(0)>`; `x + nd.array(...)` raises
`TypeError: type <class 'mxnet.ndarray.ndarray.NDArray'> not supported`. A numpy array is not
accepted by F operators even eagerly (`AssertionError: Argument rhs must have NDArray type`).

## Example
```python
def hybrid_forward(self, F, x):
    mask = nd.array([[0, 0, 0]])
    scale = nd.array([0.5, 1.0, 2.0])
    return F.broadcast_mul(F.broadcast_add(x, mask), scale)
```

## Fix
- Every element equal → `F.zeros(shape)`, `F.ones(shape)` or `F.full(shape, value)` (with the
  call's `dtype=`; without one both sides are float32, as `nd.array` of Python numbers is).
- Any other literal → a constant parameter: `self.scale = self.params.get_constant('scale',
  [0.5, 1.0, 2.0])` is added to `__init__` (at the end of `with self.name_scope():` when there is
  one, else at the end of `__init__`; a class without `__init__` gets one that passes every
  argument on: `def __init__(self, *args, **kwargs): super(Net, self).__init__(*args, **kwargs)`,
  after the docstring or before hybrid_forward; a class inheriting its `__init__` from a module
  base class gets its own the same way, so the base and its other subclasses are left alone),
  `scale` is added to the hybrid_forward signature and
  used in place of the call. For `v = nd.array(...)...` the constant takes the name `v` (when
  free); a bare `v = nd.array(...)` line without a trailing comment is then removed (comment
  lines above it move to the next statement). Otherwise a fresh name (`const`, `const_1`, ...).
  Method chains stay (`base.expand_dims(axis=0)` on the constant Symbol); a `.T` is then HL001's
  (`F.transpose(base)`), and so is a tile of it to a batch size (`F.broadcast_like`).
- `nd.array(self._weights)` (also with `dtype=`, also as an operator argument:
  `F.take(nd.array(self._weights), label)`) → a constant parameter made from the attribute in
  `__init__` (`self.weights = self.params.get_constant('weights', self._weights)`), when
  `__init__` sets the attribute once, unconditionally, before the constant's place, no other
  method sets it, and every forward call makes the array (its statement is at the top of
  hybrid_forward, after no `return`/`raise`). `get_constant` turns the value into an array with
  the same `nd.array` call, so values, shape and dtype are those of the original.

- `F.array(<value>)` whose value `__init__` can compute the same (it reads only module
  names such as `np`, builtins and attributes `__init__` sets once: `F.array(1. -
  np.greater_equal.outer(np.arange(self._n), np.arange(self._n)).astype(np.float32))`),
  made on every call (under no if/while/try, no early return before it) → a constant
  parameter of that value built at the end of `__init__`. In a helper method called only by
  hybrid_forward (outside if/while/try), the constant is threaded to it: hybrid_forward and
  the helper take it, every call passes `<name>=<name>`.
- `self.mean = mx.nd.array(...)` in `__init__` (set once, after `super().__init__`, mentioned
  by no method but `__init__` and hybrid_forward, which only reads it as an array a Symbol can
  stand for) → `self.mean = self.params.get_constant('mean', mx.nd.array(...))` in place,
  `mean` added to the signature and every `self.mean` of hybrid_forward replaced by it; the
  Constant copies the NDArray's values, shape and dtype. Otherwise reported without a fix.

## Fix safety
`F.zeros/ones/full` for constant-filled literals: safe (same values, shape and dtype, eagerly
and hybridized) — unsafe when a `ctx=` argument is dropped (eagerly the array is then made on
the default context). The constant parameter: unsafe — the values are the same, but the block
gains a parameter: it must be `initialize()`d (a block with no other parameters may never have
been), `collect_params()` and saved `.params` files gain an entry (`load_parameters` of an old
file then needs `allow_missing=True`; MXNet 1.9.1 cannot load the empty file saved for a block
that had no parameters at all). From an attribute it is also built once, in `__init__`: a list
the block changes in place later is not seen. `np.array(...)`, scalars, other non-literal values
(inputs, locals, an attribute set in a branch or outside `__init__`, an array made behind a
branch), arrays made in helpers are reported without a fix.
"""

    VALID = valid_table(
        _net,
        "return F.broadcast_mul(x, F.ones((1, 3)))",
        "if F is mx.nd:\n    return x + nd.array([1.0])\nreturn x",
        "table = nd.array([1, 2, 3])  # eager bookkeeping, never meets a tensor\nreturn F.relu(x)",
        "return F.relu(x)  # nd.array([1]) in a comment",
        "return x + nd.array([1.0, 2.0])  # noqa: HL005",
        # a module NDArray the function rebinds locally, or one bound twice at module level
        Valid(
            _IMPORTS.replace("\n\n\n", "\n\nMEAN = nd.array([0.5, 0.25])\n\n\n")
            + "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        MEAN = F.ones_like(x)\n        return x - MEAN\n"
        ),
        Valid(
            _IMPORTS.replace(
                "\n\n\n", "\n\nMEAN = nd.array([0.5, 0.25])\nMEAN = MEAN.asnumpy()\n\n\n"
            )
            + "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        return x * 2 if MEAN is None else F.relu(x)\n"
        ),
        # a chain that ends in numpy never meets the graph
        "table = nd.array([1.0, 2.0, 3.0])\nn = table.expand_dims(0).asnumpy()\nreturn F.relu(x)",
        # a numpy reduction is a numpy scalar, which tensors take
        Valid(
            _net(
                "w = np.array([1.0, 2.0])\nreturn x * w.sum()",
                head="import numpy as np\n" + _IMPORTS,
            )
        ),
        # an NDArray attribute read for its static shape only
        Valid(
            _net(
                "return x.reshape((0, self.mean.shape[0]))",
                init=constructor("super().__init__(**kwargs)\nself.mean = nd.array([0.5, 0.25])"),
            )
        ),
        # an argument annotated as an array that may be None: nothing says it is one
        Valid(
            _net(
                "return x if self.adj is None else F.dot(x, self.adj)",
                init=constructor(
                    "super().__init__(**kwargs)\nself.adj = adj",
                    "adj: Optional[mx.nd.NDArray] = None, **kwargs",
                ),
            )
        ),
    )
    INVALID = [
        # a module-level NDArray (reconet's RGB_LUMIN_FACTOR) read where the graph is built
        Invalid(
            _IMPORTS.replace("\n\n\n", "\n\nMEAN = nd.array([0.5, 0.25]).reshape((1, 2))\n\n\n")
            + "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        return F.broadcast_sub(x, MEAN.as_in_context(x.context))\n",
            line=10,
            fix=[
                (
                    "class Net(HybridBlock):\n",
                    "class Net(HybridBlock):\n    def __init__(self, *args, **kwargs):\n"
                    "        super(Net, self).__init__(*args, **kwargs)\n"
                    "        self.mean = self.params.get_constant('mean', MEAN)\n\n",
                ),
                ("self, F, x)", "self, F, x, mean)"),
                ("MEAN.as_in_context(x.context))", "mean)"),
            ],
            safety=UNSAFE,
        ),
        # an item of it (YOLOv5's `x * self.stride[i]`, blind round 15): the parameter's item
        # is then HL003's, its (1,) shape HL007's
        Invalid(
            _net(
                "return x * self.stride[0]",
                init=constructor(
                    "super().__init__(**kwargs)\nself.stride = mx.nd.array([8.0, 16.0, 32.0])"
                ),
            ),
            line=12,
            fix=[
                (
                    "mx.nd.array([8.0, 16.0, 32.0])",
                    "self.params.get_constant('stride', mx.nd.array([8.0, 16.0, 32.0]))",
                ),
                ("def hybrid_forward(self, F, x):", "def hybrid_forward(self, F, x, stride):"),
                ("self.stride[0]", "stride[0]"),
            ],
            safety=UNSAFE,
        ),
        # an NDArray made in __init__ and kept on self: a constant parameter in place
        Invalid(
            _net(
                "return F.broadcast_div(F.broadcast_sub(x, self.mean.reshape((1, -1))), self.mean.max())",
                init=constructor(
                    "super().__init__(**kwargs)\nself.mean = mx.nd.array([0.5, 0.25], ctx=mx.cpu(0))"
                ),
            ),
            line=12,
            fix=[
                (
                    "mx.nd.array([0.5, 0.25], ctx=mx.cpu(0))",
                    "self.params.get_constant('mean', mx.nd.array([0.5, 0.25], ctx=mx.cpu(0)))",
                ),
                ("def hybrid_forward(self, F, x):", "def hybrid_forward(self, F, x, mean):"),
                (
                    (
                        "F.broadcast_div(F.broadcast_sub(x, self.mean.reshape((1, -1))), "
                        "self.mean.max())"
                    ),
                    "F.broadcast_div(F.broadcast_sub(x, mean.reshape((1, -1))), mean.max())",
                ),
            ],
            safety=UNSAFE,
        ),
        # made by a module function, moved to the input's context on each call (an SSIM loss's
        # Gaussian window): the move goes with the fix (a constant is on that context)
        Invalid(
            _net(
                "self.w = self.w.as_in_context(x.context)\nreturn F.broadcast_mul(x, self.w)",
                head=_IMPORTS.replace(
                    "\n\n\n",
                    "\n\n\ndef window(n):\n    w = mx.nd.array([0.5] * n)\n    return w\n\n\n",
                ),
                init=constructor("super().__init__(**kwargs)\nself.w = window(3)"),
            ),
            line=18,
            fix=[
                ("self.w = window(3)", "self.w = self.params.get_constant('w', window(3))"),
                ("def hybrid_forward(self, F, x):", "def hybrid_forward(self, F, x, w):"),
                (
                    "        self.w = self.w.as_in_context(x.context)\n"
                    "        return F.broadcast_mul(x, self.w)",
                    "        return F.broadcast_mul(x, w)",
                ),
            ],
            safety=UNSAFE,
        ),
        # an NDArray the constructor is given, by its annotation (gluonts' COP-DeepAR GNN)
        Invalid(
            _net(
                "return F.dot(x, self.adj)",
                init=constructor(
                    "super().__init__(**kwargs)\nself.adj = adj",
                    "adj: mx.nd.NDArray = mx.nd.array([[1.0, 0.5], [0.5, 1.0]]), **kwargs",
                ),
            ),
            line=12,
            fix=[
                ("self.adj = adj", "self.adj = self.params.get_constant('adj', adj)"),
                ("def hybrid_forward(self, F, x):", "def hybrid_forward(self, F, x, adj):"),
                ("F.dot(x, self.adj)", "F.dot(x, adj)"),
            ],
            safety=UNSAFE,
        ),
        # another method reads the NDArray: no fix (it would get the Parameter)
        Invalid(
            _net(
                "return F.broadcast_sub(x, self.mean)",
                init=constructor("super().__init__(**kwargs)\nself.mean = nd.zeros((1, 2))"),
            )
            + "\n    def describe(self):\n        return self.mean.asnumpy()\n",
            line=12,
        ),
        Invalid(
            _net("return F.broadcast_add(x, nd.array([[0, 0, 0]]))"),
            line=8,
            fix=[("from mxnet import nd\n", ""), ("nd.array([[0, 0, 0]])", "F.zeros((1, 3))")],
            safety=SAFE,
        ),
        Invalid(
            _net("return F.broadcast_mul(x, mx.nd.array([1.0, 1.0], dtype='float32'))"),
            line=8,
            # (`mx` was read there only: its import goes, `from mxnet.gluon` imports mxnet)
            fix=[
                ("import mxnet as mx\n", ""),
                ("mx.nd.array([1.0, 1.0], dtype='float32')", "F.ones((2,), dtype='float32')"),
            ],
            safety=SAFE,
        ),
        # a helper's array of values fixed at construction: built in __init__, threaded to it
        Invalid(
            _HELPER.format(init="", helper="(self, F, x)", body=_HELPER_MADE)
            + "    def hybrid_forward(self, F, x):\n        return self._scaled(F, x)\n",
            line=13,
            fix=[
                (
                    "self._n = n",
                    (
                        "self._n = n\n"
                        "self.scale = self.params.get_constant('scale', np.linspace(0.5, 1.5, "
                        "self._n).astype(np.float32))"
                    ),
                ),
                (
                    (
                        "def _scaled(self, F, x):\n"
                        "    scale = F.array(np.linspace(0.5, 1.5, self._n).astype(np.float32))"
                    ),
                    "def _scaled(self, F, x, scale):",
                ),
                ("def hybrid_forward(self, F, x):", "def hybrid_forward(self, F, x, scale):"),
                ("self._scaled(F, x)", "self._scaled(F, x, scale=scale)"),
            ],
            safety=UNSAFE,
        ),
        # the helper is also called by another method: gluon passes the constant to
        # hybrid_forward only, so the other caller would lack it
        Invalid(
            _HELPER.format(init="", helper="(self, F, x)", body=_HELPER_MADE)
            + "    def hybrid_forward(self, F, x):\n        return self._scaled(F, x)\n\n"
            "    def eager(self, x):\n        return self._scaled(nd, x)\n",
            line=13,
        ),
        # an accumulator started from an array, rebound to itself plus a tensor
        Invalid(
            _net("acc = F.array([0.0])\nfor i in range(2):\n    acc = acc + F.sum(x)\nreturn acc"),
            line=8,
            fix=("F.array([0.0])", "F.zeros((1,))"),
            safety=SAFE,
        ),
        Invalid(
            _net("m = F.array([[0.5, 0.5]])\nreturn F.broadcast_mul(x, m)"),
            line=8,
            fix=("F.array([[0.5, 0.5]])", "F.full((1, 2), 0.5)"),
            safety=SAFE,
        ),
        Invalid(
            _net("return x * nd.array([2, 2], ctx=x.context)"),
            line=8,
            fix=[
                ("from mxnet import nd\n", ""),
                ("nd.array([2, 2], ctx=x.context)", "F.full((2,), 2)"),
            ],
            safety=UNSAFE,
        ),
        Invalid(
            _net(
                "scale = nd.array([0.5, 1.0, 2.0])\nreturn F.broadcast_mul(x, scale)", init=_SCOPED
            ),
            line=13,
            fix=[
                ("from mxnet import nd\n", ""),
                (
                    "self.dense = nn.Dense(3)",
                    (
                        "self.dense = nn.Dense(3)\n"
                        "self.scale = self.params.get_constant('scale', [0.5, 1.0, 2.0])"
                    ),
                ),
                (
                    "def hybrid_forward(self, F, x):\n    scale = nd.array([0.5, 1.0, 2.0])",
                    "def hybrid_forward(self, F, x, scale):",
                ),
            ],
            safety=UNSAFE,
        ),
        Invalid(
            _net(
                "return F.broadcast_add(x, nd.array([1, 2, 3], dtype='float32'))",
                init=constructor("super().__init__(**kwargs)"),
                signature="F, x, mask=None",
            ),
            line=11,
            fix=[
                (
                    "super().__init__(**kwargs)",
                    (
                        "super().__init__(**kwargs)\n"
                        "self.const = self.params.get_constant('const', nd.array([1, 2, 3], "
                        "dtype='float32'))"
                    ),
                ),
                (
                    "def hybrid_forward(self, F, x, mask=None):",
                    "def hybrid_forward(self, F, x, mask=None, *, const):",
                ),
                (
                    "F.broadcast_add(x, nd.array([1, 2, 3], dtype='float32'))",
                    "F.broadcast_add(x, const)",
                ),
            ],
            safety=UNSAFE,
        ),
        Invalid(
            _net(
                "mean = nd.array([0.5, 0.25]).reshape((1, 2))  # per channel\nreturn F.broadcast_sub(x, mean)",
                init=constructor("super().__init__(**kwargs)"),
            ),
            line=11,
            fix=[
                ("from mxnet import nd\n", ""),
                (
                    "super().__init__(**kwargs)",
                    (
                        "super().__init__(**kwargs)\n"
                        "self.mean = self.params.get_constant('mean', [0.5, 0.25])"
                    ),
                ),
                ("def hybrid_forward(self, F, x):", "def hybrid_forward(self, F, x, mean):"),
                ("nd.array([0.5, 0.25])", "mean"),
            ],
            safety=UNSAFE,
        ),
        Invalid(
            _net(
                "# SSD's box variances\nvar = nd.array([0.1, 0.2])\nreturn F.broadcast_mul(x, var)",
                init=_SCOPED,
            ),
            line=14,
            fix=[
                ("from mxnet import nd\n", ""),
                (
                    "self.dense = nn.Dense(3)",
                    (
                        "self.dense = nn.Dense(3)\n"
                        "self.var = self.params.get_constant('var', [0.1, 0.2])"
                    ),
                ),
                ("def hybrid_forward(self, F, x):", "def hybrid_forward(self, F, x, var):"),
                ("var = nd.array([0.1, 0.2])\n", ""),
            ],
            safety=UNSAFE,
        ),
        Invalid(
            _net(
                "w = F.take(nd.array(self._weights), label)\nreturn F.broadcast_mul(x, w)",
                init=constructor("super().__init__(**kwargs)\nself._weights = [0.5, 1.0, 2.0]"),
                signature="F, x, label",
            ),
            line=12,
            fix=[
                ("from mxnet import nd\n", ""),
                (
                    "self._weights = [0.5, 1.0, 2.0]",
                    (
                        "self._weights = [0.5, 1.0, 2.0]\n"
                        "self.weights = self.params.get_constant('weights', self._weights)"
                    ),
                ),
                (
                    "def hybrid_forward(self, F, x, label):",
                    "def hybrid_forward(self, F, x, label, weights):",
                ),
                ("nd.array(self._weights)", "weights"),
            ],
            safety=UNSAFE,
        ),
        # made only behind a branch, whose test may hold when the attribute is no array (None):
        # no constant built in __init__
        Invalid(
            _net(
                "if self._weights is not None:\n    x = F.broadcast_mul(x, nd.array(self._weights))\nreturn x",
                init=constructor("super().__init__(**kwargs)\nself._weights = [1.0, 2.0]"),
            ),
            line=13,
            fixed=None,
        ),
        # set again outside __init__: the constant would hold a stale value
        Invalid(
            _net(
                "return F.broadcast_mul(x, nd.array(self._w))",
                init=constructor("super().__init__(**kwargs)\nself._w = [1.0]"),
            )
            + "\n    def reset(self):\n        self._w = [2.0]\n",
            line=12,
            fixed=None,
        ),
        # reaching the graph through fluent methods (the fluent calls stay: a Symbol has them;
        # HL001 then rewrites the tile and `.T`)
        _local_constant(
            "base",
            "[[0.1, 0.2], [0.3, 0.4]]",
            "return F.tile(base.expand_dims(axis=0), reps=(x.shape[0], 1, 1))",
        ),
        _local_constant("w", "[[1.0, 2.0], [3.0, 4.0]]", "return F.dot(x, w.T.astype('float32'))"),
        # a method of the array called with a tensor
        _local_constant("mask", "[[1.0, 0.0, 1.0]]", "return x * mask.broadcast_like(x)"),
        # through a local bound to a chain, arithmetic with a number on the way
        _local_constant(
            "scale",
            "[0.5, 1.0, 2.0]",
            "s = (scale * 2).reshape((1, 3))\nreturn F.broadcast_mul(x, s)",
        ),
        Invalid(_net("return F.broadcast_add(x, np.array([1.0, 2.0]))"), line=8),
        # F.array fails hybridized whatever its value meets (here: nothing)
        Invalid(_net("y = F.array(np.ones((2, 3)))\nreturn y"), line=8),
        Invalid(
            _net(
                "w = nd.array([1.0, 2.0]).asnumpy()\nreturn F.broadcast_add(x, nd.array([0.5, 1.0]))"
            ),
            line=9,
            fix=[
                (
                    "def hybrid_forward(self, F, x):",
                    (
                        "def __init__(self, *args, **kwargs):\n"
                        "    super(Net, self).__init__(*args, **kwargs)\n"
                        "    self.const = self.params.get_constant('const', [0.5, 1.0])\n\n"
                        "def hybrid_forward(self, F, x, const):"
                    ),
                ),
                ("nd.array([0.5, 1.0])", "const"),
            ],
            safety=UNSAFE,
        ),
        # no __init__ and hybrid_forward first: one edit adds __init__ and rewrites hybrid_forward
        # (an __init__ edit beside the signature edit would overlap it); the unused nd import goes
        Invalid(
            _net("return F.broadcast_add(x, nd.array([1.0, 2.0]))"),
            line=8,
            fixed=_NEW_INIT.format(const="[1.0, 2.0]").replace("from mxnet import nd\n", "")
            + "    def hybrid_forward(self, F, x, const):\n        return F.broadcast_add(x, const)\n",
            safety=UNSAFE,
        ),
        # an __init__ inherited from a base class of the module: this class gets its own (the
        # base, whose hybrid_forward takes no constant, is left alone)
        Invalid(
            "from mxnet import nd\nfrom mxnet.gluon import HybridBlock\n\n\nclass Base(HybridBlock):\n"
            "    def __init__(self, k=2, **kwargs):\n        super(Base, self).__init__(**kwargs)\n"
            "        self._k = k\n\n    def hybrid_forward(self, F, x):\n        return x * self._k\n\n\n"
            "class Net(Base):\n    def hybrid_forward(self, F, x):\n"
            "        return F.broadcast_add(x, nd.array([1.0, 2.0])) * self._k\n",
            line=16,
            fixed="from mxnet.gluon import HybridBlock\n\n\nclass Base(HybridBlock):\n"
            "    def __init__(self, k=2, **kwargs):\n        super(Base, self).__init__(**kwargs)\n"
            "        self._k = k\n\n    def hybrid_forward(self, F, x):\n        return x * self._k\n\n\n"
            "class Net(Base):\n    def __init__(self, *args, **kwargs):\n"
            "        super(Net, self).__init__(*args, **kwargs)\n"
            "        self.const = self.params.get_constant('const', [1.0, 2.0])\n\n"
            "    def hybrid_forward(self, F, x, const):\n"
            "        return F.broadcast_add(x, const) * self._k\n",
            safety=UNSAFE,
        ),
        # no __init__: one passing every argument on is added after the docstring
        Invalid(
            'class Net(HybridBlock):\n    """Doc."""\n\n    def hybrid_forward(self, F, x):\n'
            "        return x * nd.array([[1.0, 2.0]])\n",
            line=5,
            fix=(
                "def hybrid_forward(self, F, x):\n    return x * nd.array([[1.0, 2.0]])",
                (
                    "def __init__(self, *args, **kwargs):\n"
                    "    super(Net, self).__init__(*args, **kwargs)\n"
                    "    self.const = self.params.get_constant('const', [[1.0, 2.0]])\n\n"
                    "def hybrid_forward(self, F, x, const):\n    return x * const"
                ),
            ),
            safety=UNSAFE,
        ),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._function: Optional[FunctionFacts] = None
        # local -> (creation, (the local the creation was assigned to, that statement))
        self._pending: Dict[str, Tuple[cst.Call, Tuple[str, cst.CSTNode]]] = {}
        self._done: set = set()
        self._attributes: Dict[Tuple[int, str], Optional[cst.Assign]] = {}

    # -- finding creations that meet tensors -------------------------------------------------
    def _sync(self) -> None:
        if self._function is not self.facts:
            self._function, self._pending, self._done = self.facts, {}, set()

    def visit_Assign(self, node: cst.Assign) -> None:
        self._sync()
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                name = target.target.value
                origin = self._origin(node.value)
                statement = self.statement  # (always set while a statement is walked)
                if origin is None or statement is None:
                    if name in self._pending:  # `acc = acc + t`: its uses first, then rebind
                        node.value.visit(_Forward(self))
                    self._pending.pop(name, None)
                elif origin[1] is None:  # `v = nd.array(...)...`
                    self._pending[name] = (origin[0], (name, statement))
                else:  # `w = v.expand_dims(0)` of a pending `v`: w is v's creation too
                    self._pending[name] = (origin[0], origin[1])

    def _chain_root(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """The expression a chain of array methods both NDArray and Symbol have
        (`.reshape(...)`, `.expand_dims(...)`, `.astype(...)`...), `.T`, unary minus and
        arithmetic with a number literal starts from; not `.asnumpy()` and the like, whose
        result is no tensor, nor `F.<op>(...)` (an F operator is checked as itself)."""
        while True:
            if (
                isinstance(expr, cst.Call)
                and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in _CHAIN_METHODS
                and not any(a.star for a in expr.args)
                and self._kind(expr) is None
                and not self._is_namespace_call(expr)
            ):
                expr = expr.func.value
            elif isinstance(expr, cst.Attribute) and expr.attr.value == "T":
                expr = expr.value
            elif isinstance(expr, cst.Subscript):  # `self.stride[0]`: an NDArray's item is one
                expr = expr.value
            elif isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
                expr = expr.expression
            elif (
                isinstance(expr, cst.BinaryOperation)
                and isinstance(expr.operator, _NUMBER_OPERATORS)
                and _number(expr.right)
            ):
                expr = expr.left
            elif (
                isinstance(expr, cst.BinaryOperation)
                and isinstance(expr.operator, _NUMBER_OPERATORS)
                and _number(expr.left)
            ):
                expr = expr.right
            else:
                return expr

    def _origin(
        self, expr: cst.BaseExpression
    ) -> Optional[Tuple[cst.Call, Optional[Tuple[str, cst.CSTNode]]]]:
        """(the creation call, (the local it was assigned to, that statement) or None) when
        `expr` is a creation, a local bound to one, or a chain (`_chain_root`) of either."""
        root = self._chain_root(expr)
        if isinstance(root, cst.Call) and self._kind(root) is not None:
            origin: Tuple[cst.Call, Optional[Tuple[str, cst.CSTNode]]] = (root, None)
        elif isinstance(root, cst.Name) and root.value in self._pending:
            origin = self._pending[root.value]
        else:
            return None
        if self._kind(origin[0]) == "np" and _reduces(expr, root):
            return None  # `np.array(...).sum()` is a numpy scalar, which tensors take
        return origin

    def visit_Call(self, node: cst.Call) -> None:
        self._sync()
        if self._kind(node) == "F":
            # `F.array` fails hybridized wherever it runs, whatever its value then meets (an
            # input unpacked into names nothing proves are tensors: SphereFace's AngleLoss)
            bound = next((p[1] for p in self._pending.values() if p[0] is node), None)
            self._report(node, bound)
        method_of_tensor = isinstance(node.func, cst.Attribute) and self._array(node.func.value)
        tensor_argument = any(self._array(a.value) for a in node.args)
        if method_of_tensor or self._is_namespace_call(node) or tensor_argument:
            for arg in node.args:
                self._check_operand(arg.value)
        if tensor_argument and isinstance(node.func, cst.Attribute):  # `c.broadcast_like(x)`
            self._check_operand(node.func.value)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self._sync()
        for mine, other in ((node.left, node.right), (node.right, node.left)):
            if self._array(other):
                self._check_operand(mine)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self._sync()
        operands = [node.left] + [c.comparator for c in node.comparisons]
        if len(operands) == 2 and any(self._array(o) for o in operands):
            for operand in operands:
                self._check_operand(operand)

    def _array(self, expr: cst.BaseExpression) -> bool:
        """A tensor, or an input taken for one by position: next to an array created eagerly
        (`x + nd.array(...)`) a list would fail eagerly too, so working code passes an array.
        Arithmetic of a tensor with an NDArray attribute (`x * self.std`) is one too."""
        if self.value(expr).kind == TENSOR:
            return True
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, _NUMBER_OPERATORS):
            sides = (expr.left, expr.right)
            return any(self._array(e) for e in sides) and any(
                self._ndarray_attribute(self._chain_root(e)) is not None for e in sides
            )
        return False

    # -- an NDArray made in __init__ and kept on self ------------------------------------------
    def _ndarray_attribute(self, expr: cst.BaseExpression) -> Optional[cst.Assign]:
        """For `self.<attr>` that the class's own `__init__` sets once to an NDArray it makes
        there (`self.mean = mx.nd.array(mean, ctx=mx.cpu(0))`, `nd.zeros(...)`, a chain of
        array methods on one), and no other method sets: that `__init__` assignment."""
        facts = self.facts
        if (
            not isinstance(expr, cst.Attribute)
            or not isinstance(expr.value, cst.Name)
            or expr.value.value != "self"
            or facts is None
            or facts.klass is None
        ):
            return None
        klass, attr = facts.klass.node, expr.attr.value
        key = (id(klass), attr)
        if key not in self._attributes:
            store = const.init_store(klass, attr)
            made = store is not None and (
                self._makes_ndarray(store.value) or _passed_ndarray(klass, store.value)
            )
            self._attributes[key] = store if made else None
        return self._attributes[key]

    def _makes_ndarray(self, expr: cst.BaseExpression) -> bool:
        """`expr` is an NDArray made by an mx.nd creation function or by a module function
        that returns one, or a chain of array methods (`_CHAIN_METHODS`,
        `.as_in_context(...)`, `.T`) on one."""
        while True:
            if (
                isinstance(expr, cst.Call)
                and isinstance(expr.func, cst.Attribute)
                and expr.func.attr.value in _CHAIN_METHODS | {"as_in_context"}
            ):
                expr = expr.func.value
            elif isinstance(expr, cst.Attribute) and expr.attr.value == "T":
                expr = expr.value
            else:
                break
        if not isinstance(expr, cst.Call):
            return False
        if (
            isinstance(expr.func, cst.Name)
            and expr.func.value in self.state.module.ndarray_functions
        ):
            return True  # `create_window(size, channel)`, a module function returning one
        qualified = self.state.module.qualify(dotted_name(expr.func))
        return qualified is not None and qualified in _ND_CREATIONS

    def _report_attribute(self, use: cst.Attribute, store: cst.Assign) -> None:
        """Report an NDArray attribute once per function, at its first use in the graph."""
        attr = use.attr.value
        facts = self.facts
        key = ("attribute", attr)
        if facts is None or key in self._done:
            return
        self._done.add(key)
        made = "passed to" if isinstance(store.value, cst.Name) else "made in"
        message = (
            f"`self.{attr}` is an NDArray {made} __init__: it cannot enter a Symbol graph "
            "(TypeError: type NDArray not supported / AssertionError under hybridize)"
        )
        edits, why = self._attribute_edits(attr, store)
        if edits is None:
            self.report(use, f"{message}; make it a constant parameter in __init__ ({why})")
            return
        self.report(
            use,
            f"{message}; made a constant parameter (self.params.get_constant) passed to "
            "hybrid_forward",
            edits=edits,
            safety=UNSAFE,
        )

    def _attribute_edits(self, attr: str, store: cst.Assign) -> Tuple[Optional[List[Edit]], str]:
        """`self.<attr> = <nd value>` -> `self.<attr> = self.params.get_constant('<attr>',
        <nd value>)` in place, `<attr>` added to hybrid_forward's signature, and every
        `self.<attr>` of hybrid_forward replaced by it; (None, why not) when that would change
        more than these reads: another method (or a subclass in the module) mentions the
        attribute, hybrid_forward reads it as an NDArray (`.shape`, `.asnumpy()`), or the
        name is taken."""
        facts = self.facts
        assert facts is not None and facts.klass is not None
        if facts.kind != "hybrid_forward":
            return None, "gluon passes parameters to hybrid_forward only, not to this helper"
        klass, function = facts.klass.node, facts.node
        if not const.mentioned_only_in(klass, attr, {"__init__", function.name.value}):
            return None, f"another method uses `self.{attr}` as the NDArray"
        name = klass.name.value
        if any(name in bases for bases in self.state.module.class_bases.values()):
            return None, "a subclass's hybrid_forward would not take the new argument"
        if attr in const.BLOCK_ATTRIBUTES or attr in _names(function):
            return None, f"hybrid_forward already uses the name `{attr}`"
        moves = const.context_moves(function, attr)  # `self.w = self.w.as_in_context(...)`
        reads = _SelfReads(attr, skip=set(moves))
        function.body.visit(reads)
        if reads.other:
            return None, f"hybrid_forward also reads `self.{attr}` as an NDArray"
        value = cst.Module([]).code_for_node(store.value)
        constant = cst.parse_expression(f"self.params.get_constant({attr!r}, {value})")
        edits: List[Edit] = [(store.value, constant), const.signature_edit(function, attr)]
        edits += [(read, cst.Name(attr)) for read in reads.found]
        edits += [(line, cst.RemovalSentinel.REMOVE) for line in moves]
        return edits, ""

    def _is_namespace_call(self, node: cst.Call) -> bool:
        name = namespace_call(node, self.namespace)
        return name is not None and not name.endswith(".array")

    def _kind(self, node: cst.Call) -> Optional[str]:
        """ "nd" (mx.nd.array), "F" (F.array) or "np" (numpy.array) for creation calls."""
        name = dotted_name(node.func)
        if name is None or ("." not in name and name not in self.state.module.imports):
            return None
        if self.namespace is not None and name == f"{self.namespace}.array":
            return "F"
        if name.split(".")[0] in self.env:
            return None
        qualified = self.state.module.qualify(name)
        return {"mxnet.ndarray.array": "nd", "numpy.array": "np"}.get(qualified or "")

    def _check_operand(self, expr: cst.BaseExpression) -> None:
        """`expr` meets the graph: report the creation it is, is bound to, or is a chain of,
        or the NDArray attribute it is a chain of."""
        origin = self._origin(expr)
        if origin is not None:
            self._report(*origin)
            return
        root = self._chain_root(expr)
        creation = self._ndarray_attribute(root)
        if creation is not None:
            assert isinstance(root, cst.Attribute)  # (_ndarray_attribute checked)
            self._report_attribute(root, creation)
        else:
            if (  # `FACTOR.as_in_context(x.context)`: still the module's NDArray
                isinstance(root, cst.Call)
                and isinstance(root.func, cst.Attribute)
                and root.func.attr.value in ("as_in_context", "as_in_ctx", "copy")
            ):
                root = self._chain_root(root.func.value)
            if isinstance(root, cst.Name) and self._ndarray_global(root.value):
                self._report_global(root)

    # -- an NDArray made at module level -------------------------------------------------------
    def _ndarray_global(self, name: str) -> bool:
        """`name` is a module-level NDArray (`ModuleContext.ndarray_globals`) the function
        reads as the global: not a local, a parameter or a name the function binds."""
        facts = self.facts
        if facts is None or name not in self.state.module.ndarray_globals or name in self.env:
            return False
        bound = any(
            name in target_names(target)
            for node in walk_nodes(facts.node.body)
            for target in bound_targets(node)
        )
        return not bound and name not in {p.name.value for p in facts.node.params.params}

    def _report_global(self, use: cst.Name) -> None:
        """Report a module-level NDArray once per function, at its first use in the graph
        (reconet's `RGB_LUMIN_FACTOR = mx.nd.reshape(mx.nd.array([...]), ...)`, read as
        `x * RGB_LUMIN_FACTOR` in a helper of hybrid_forward)."""
        key = ("global", use.value)
        if key in self._done:
            return
        self._done.add(key)
        message = (
            f"`{use.value}` is an NDArray made at module level: it cannot enter a Symbol graph "
            "(TypeError: type NDArray not supported / AssertionError under hybridize)"
        )
        edits = self._global_edits(use.value)
        if edits is None:
            self.report(
                use,
                f"{message}; make it a constant parameter of the block "
                "(self.params.get_constant in __init__) and pass it to hybrid_forward",
            )
            return
        self.report(
            use,
            f"{message}; made a constant parameter of the block (self.params.get_constant of "
            "the module's array) passed to hybrid_forward",
            edits=edits,
            safety=UNSAFE,  # a new parameter: checkpoints saved before lack it
        )

    def _global_edits(self, name: str) -> Optional[List[Edit]]:
        """In hybrid_forward: `self.<c> = self.params.get_constant('<c>', <NAME>)` in
        `__init__`, `<c>` added to the signature, every read of the global (with its
        `.as_in_context(...)`) replaced by it; None when hybrid_forward also reads it as an
        NDArray (`.shape`, `.asnumpy()`) or no `__init__` place is found."""
        facts = self.facts
        if facts is None or facts.klass is None or facts.kind != "hybrid_forward":
            return None
        klass, function = facts.klass.node, facts.node
        if any(name in bases for bases in self.state.module.class_bases.values()):
            return None  # a subclass's hybrid_forward would not take the new argument
        reads = _GlobalReads(name)
        function.body.visit(reads)
        if reads.other or not reads.found:
            return None
        taken = const.taken_names(klass, function)
        constant = const.fresh_name(name.lower().strip("_") or "const", taken)
        statement = const.constant_statement(constant, name)
        edits: List[Edit] = [const.signature_edit(function, constant)]
        edits += [(read, cst.Name(constant)) for read in reads.found]
        return const.with_init_statement(klass, function, statement, edits)

    # -- reporting and fixing ----------------------------------------------------------------
    def _report(self, node: cst.Call, assigned: Optional[Tuple[str, cst.CSTNode]]) -> None:
        if node in self._done:
            return
        self._done.add(node)
        kind = self._kind(node)
        if kind is None:  # (reported nodes are creations: _origin checks it)
            return
        if kind == "np":
            self.report(
                node,
                "a numpy array is neither an NDArray nor a Symbol: F operators reject it even "
                "eagerly; use F.zeros/F.ones/F.full or a constant parameter "
                "(self.params.get_constant)",
            )
            return
        why = (
            "`F.array` does not exist on mx.sym (AttributeError under hybridize)"
            if kind == "F"
            else "an NDArray made with nd.array cannot enter a Symbol graph (AssertionError/TypeError under "
            "hybridize)"
        )
        counted = plan_bincount(self, node)
        if counted is not None:  # `F.take(F.array(np.bincount(label...)), label)`
            self.report(node, f"{why}; {BINCOUNT_NOTE}", edits=counted[0], safety=counted[1])
            return
        parsed = self._literal(node)
        # the values a constant parameter can hold: built from literals here, or stored by
        # __init__ (tried in that order; the first whose edits can be written wins)
        sources = (
            (lambda: self._construction_source(node), "of the same value, built in __init__"),
            (lambda: self._attribute_source(node, assigned), "of the value __init__ stores"),
        )
        for found, what in sources if parsed is None and self.namespace is not None else ():
            if not found():
                continue
            edits = self._constant_edits(node, assigned, call_argument(node, None, "dtype"), kind)
            if edits is not None:
                self.report(
                    node,
                    f"{why}; made a constant parameter {what} (self.params.get_constant)",
                    edits=edits,
                    safety=UNSAFE,
                )
                return
        if parsed is None or self.namespace is None:
            self.report(node, f"{why}; use F.zeros/F.ones/F.full or a constant parameter")
            return
        values, dtype, ctx = parsed
        if values.size and (values == values.flat[0]).all() and values.dtype.kind != "b":
            replacement = self._filled(values, dtype)
            self.report(
                node,
                f"{why}; every element is {values.flat[0].item()!r}: use the F creation op",
                replacement=replacement,
                safety=UNSAFE if ctx else SAFE,
            )
            return
        edits = self._constant_edits(node, assigned, dtype, kind)
        if edits is None:
            self.report(
                node, f"{why}; make it a constant parameter (self.params.get_constant in __init__)"
            )
        else:
            self.report(
                node,
                f"{why}; made a constant parameter (self.params.get_constant)",
                edits=edits,
                safety=UNSAFE,
            )

    def _literal(self, node: cst.Call) -> Optional[Tuple[np.ndarray, Optional[cst.Arg], bool]]:
        """(values, dtype argument, has ctx) for `array(<literal list>, dtype=..., ctx=...)`."""
        source = call_argument(node, 0, "source_array")
        dtype = call_argument(node, None, "dtype")
        ctx = call_argument(node, None, "ctx")
        if source is None or len(node.args) != len({source, dtype, ctx} - {None}):
            return None
        if not isinstance(source.value, (cst.List, cst.Tuple)) or (
            ctx is not None and self._kind(node) == "F"
        ):
            return None
        import numpy

        try:
            python = ast.literal_eval(cst.Module([]).code_for_node(source.value))
            values = numpy.array(python)
        except (ValueError, SyntaxError, TypeError):
            return None
        if values.dtype.kind not in "biuf" or values.ndim == 0 or values.size == 0:
            return None
        if dtype is not None and not isinstance(dtype.value, (cst.SimpleString, cst.Attribute)):
            return None
        return values, dtype, ctx is not None

    def _construction_source(self, node: cst.Call) -> bool:
        """`array(<value>[, dtype=...])` whose value `__init__` can compute the same
        (`helper.construction_value`: module names, builtins, attributes set once in
        `__init__`), made on every call (`helper.runs_always`), not `nd.array(self.<attr>)`
        (`_attribute_source`'s case)."""
        facts = self.facts
        source = call_argument(node, 0, "source_array")
        dtype = call_argument(node, None, "dtype")
        if (
            facts is None
            or facts.klass is None
            or source is None
            or len(node.args) != len({source, dtype} - {None})
            or any(a.star for a in node.args)
            or isinstance(source.value, cst.Attribute)
        ):
            return False
        module = self.state.module

        def module_name(name: str) -> bool:
            return name in module.imports or name in module.bound

        return helper.construction_value(
            source.value, facts.klass.node, module_name
        ) and helper.runs_always(facts.node, node)

    def _attribute_source(
        self, node: cst.Call, assigned: Optional[Tuple[str, cst.CSTNode]]
    ) -> bool:
        """`nd.array(self.<attr>[, dtype=...])` where __init__ sets the attribute once (see
        `const.init_attribute`) and every forward call makes the array: its statement is at the
        top of hybrid_forward after statements that cannot return or raise (a constant built from
        a value only some calls use, e.g. `None` behind an `if`, could fail in __init__)."""
        facts = self.facts
        source = call_argument(node, 0, "source_array")
        dtype = call_argument(node, None, "dtype")
        if (
            source is None
            or len(node.args) != len({source, dtype} - {None})
            or any(a.star for a in node.args)
        ):
            return False
        attribute = self_attribute_name(source.value)
        if attribute is None:
            return False
        if (
            facts is None
            or facts.kind != "hybrid_forward"
            or facts.klass is None
            or "__init__" not in facts.klass.methods
            or not isinstance(facts.node.body, cst.IndentedBlock)
        ):
            return False
        if not const.init_attribute(facts.klass.node, facts.klass.methods["__init__"], attribute):
            return False
        statement = assigned[1] if assigned is not None else self.statement
        body: List[cst.CSTNode] = list(facts.node.body.body)
        if statement not in body:
            return False
        return all(
            isinstance(s, cst.SimpleStatementLine)
            and not any(isinstance(small, (cst.Return, cst.Raise)) for small in s.body)
            for s in body[: body.index(statement)]
        )

    def _filled(self, values: np.ndarray, dtype: Optional[cst.Arg]) -> cst.Call:
        ns = self.namespace
        shape = tuple_of([integer(int(d)) for d in values.shape])
        keywords = [("dtype", dtype.value)] if dtype is not None else []
        first: Union[bool, int, float] = values.flat[0].item()  # (dtype kind b, i, u or f)
        if first == 0:
            return call(f"{ns}.zeros", [shape], keywords)
        if first == 1:
            return call(f"{ns}.ones", [shape], keywords)
        literal = cst.parse_expression(repr(first))
        return call(f"{ns}.full", [shape, literal], keywords)

    def _constant_edits(
        self,
        node: cst.Call,
        assigned: Optional[Tuple[str, cst.CSTNode]],
        dtype: Optional[cst.Arg],
        kind: str,
    ):
        facts = self.facts
        if facts is None or facts.klass is None:
            return None
        if facts.kind == "helper_method":
            return self._helper_constant_edits(node, assigned, dtype, kind)
        if facts.kind != "hybrid_forward":
            return None
        taken = const.taken_names(facts.klass.node, facts.node)
        source = call_argument(node, 0, "source_array")
        written = dotted_name(node.func)
        if source is None or written is None:  # (a creation: `nd.array(<source>...)`)
            return None
        value_code = cst.Module([]).code_for_node(source.value)
        if dtype is not None:
            if kind == "F":
                return None  # no eager namespace to build the typed value in __init__
            written = written.rsplit(".", 1)[0]
            value_code = (
                f"{written}.array({value_code}, dtype={cst.Module([]).code_for_node(dtype.value)})"
            )
        remove: Optional[cst.SimpleStatementLine] = None
        following: Optional[cst.BaseStatement] = None
        attribute = (
            source.value.attr.value.strip("_") if isinstance(source.value, cst.Attribute) else ""
        )
        name = const.fresh_name(attribute if attribute.isidentifier() else "const", taken)
        if assigned is not None and self._single_store(assigned[0]):
            # `v = nd.array(...)...`: the constant is called v (the signature's v is then what
            # the local was); a bare `v = nd.array(...)` line goes away.
            local_taken = const.taken_names(facts.klass.node, facts.node, local=assigned[0])
            if const.fresh_name(assigned[0], local_taken) == assigned[0]:
                name = assigned[0]
                if isinstance(assigned[1], cst.SimpleStatementLine) and self._removable(
                    assigned[1], node
                ):
                    remove = assigned[1]
                    following = _next_statement(facts.node, remove)
                    if following is None:
                        remove = None
        statement = const.constant_statement(name, value_code)
        edits: List[Edit] = [const.signature_edit(facts.node, name)]
        if remove is not None and isinstance(
            following, (cst.SimpleStatementLine, cst.BaseCompoundStatement)
        ):
            # its comment lines move to the next statement
            edits.append((remove, cst.RemovalSentinel.REMOVE))
            edits.append(
                (
                    following,
                    following.with_changes(
                        leading_lines=list(remove.leading_lines) + list(following.leading_lines)
                    ),
                )
            )
        else:
            edits.append((node, cst.Name(name)))
        return const.with_init_statement(facts.klass.node, facts.node, statement, edits)

    def _helper_constant_edits(
        self,
        node: cst.Call,
        assigned: Optional[Tuple[str, cst.CSTNode]],
        dtype: Optional[cst.Arg],
        kind: str,
    ) -> Optional[List[Edit]]:
        """In a helper method: the constant built in `__init__`, threaded to the helper through
        hybrid_forward (`_constant_helper.threading_edits`); the creation becomes the
        helper's new parameter (a bare `v = <creation>` line goes, the parameter named v)."""
        facts = self.facts
        assert facts is not None and facts.klass is not None
        klass, function = facts.klass.node, facts.node
        forward = facts.klass.methods.get("hybrid_forward")
        source = call_argument(node, 0, "source_array")
        written = dotted_name(node.func)
        if forward is None or source is None or written is None:
            return None
        value_code = cst.Module([]).code_for_node(source.value)
        if dtype is not None:
            if kind == "F":
                return None  # no eager namespace to build the typed value in __init__
            value_code = (
                f"{written.rsplit('.', 1)[0]}.array({value_code}, "
                f"dtype={cst.Module([]).code_for_node(dtype.value)})"
            )
        taken = helper.taken(klass, function, forward)
        name = const.fresh_name("const", taken)
        body_edits: List[Edit] = [(node, cst.Name(name))]
        if assigned is not None and self._single_store(assigned[0]):
            local = assigned[0]
            others = const.taken_names(klass, function, local=local) | const.taken_names(
                klass, forward
            )
            name = const.fresh_name(local, others)
            if name != local:
                body_edits = [(node, cst.Name(name))]  # `mask = mask_1`: the local stays
            else:
                following = _next_statement(function, assigned[1])
                if (
                    isinstance(assigned[1], cst.SimpleStatementLine)
                    and self._removable(assigned[1], node)
                    and isinstance(following, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
                ):
                    body_edits = [
                        (assigned[1], cst.RemovalSentinel.REMOVE),
                        (
                            following,
                            following.with_changes(
                                leading_lines=list(assigned[1].leading_lines)
                                + list(following.leading_lines)
                            ),
                        ),
                    ]
        statement = const.constant_statement(name, value_code)
        outer = helper.threading_edits(klass, function, node, name, statement)
        if outer is None:
            return None
        return outer + body_edits

    def _removable(self, statement: cst.CSTNode, creation: cst.Call) -> bool:
        """The statement is `v = <creation>` alone on a line without a trailing comment
        (comment lines above it are kept: they move to the next statement)."""
        if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
            return False
        small = statement.body[0]
        if not (
            isinstance(small, cst.Assign) and small.value is creation and len(small.targets) == 1
        ):
            return False
        return statement.trailing_whitespace.comment is None

    def _single_store(self, name: str) -> bool:
        """`name` is a local of hybrid_forward (not a parameter) bound exactly once."""
        assert self.facts is not None
        if name in self.facts.params:
            return False
        stores: List[cst.Name] = []

        class Stores(cst.CSTVisitor):
            def visit_Assign(self, node: cst.Assign) -> None:
                stores.extend(
                    t.target
                    for t in node.targets
                    if isinstance(t.target, cst.Name) and t.target.value == name
                )

            def visit_AugAssign(self, node: cst.AugAssign) -> None:
                if isinstance(node.target, cst.Name) and node.target.value == name:
                    stores.append(node.target)

            def visit_For(self, node: cst.For) -> None:
                if isinstance(node.target, cst.Name) and node.target.value == name:
                    stores.append(node.target)

        self.facts.node.body.visit(Stores())
        return len(stores) == 1


def _reduces(expr: cst.BaseExpression, root: cst.BaseExpression) -> bool:
    """A method call on the way from `expr` down to `root` (its `_chain_root`) is a reduction."""
    while expr is not root:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            if expr.func.attr.value in _REDUCTIONS:
                return True
            expr = expr.func.value
        elif isinstance(expr, cst.Attribute):
            expr = expr.value
        elif isinstance(expr, cst.UnaryOperation):
            expr = expr.expression
        elif isinstance(expr, cst.BinaryOperation):
            expr = expr.right if _number(expr.left) else expr.left
        else:
            return False
    return False


def _number(expr: cst.BaseExpression) -> bool:
    """A number literal (`2`, `0.5`, `-1`)."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        expr = expr.expression
    return isinstance(expr, (cst.Integer, cst.Float))


def _next_statement(
    function: cst.FunctionDef, statement: cst.CSTNode
) -> Optional[cst.BaseStatement]:
    """The statement after `statement` in its block, or None when it is the last one."""
    found: List[Optional[cst.BaseStatement]] = []

    class Blocks(cst.CSTVisitor):
        def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
            body = list(node.body)
            for index, stmt in enumerate(body):
                if stmt is statement:
                    found.append(body[index + 1] if index + 1 < len(body) else None)

    function.body.visit(Blocks())
    return found[0] if found else None


class _SelfReads(cst.CSTVisitor):
    """Every `self.<attr>` of a body; `other` when one is read through an attribute that is no
    array method a Symbol has too (`.shape`, `.asnumpy()`, `.context`), or assigned."""

    def __init__(self, attr: str, skip: Optional[Set[cst.CSTNode]] = None) -> None:
        self.attr = attr
        self.skip = skip or set()  # lines the fix removes (`const.context_moves`)
        self.found: List[cst.Attribute] = []
        self.other = False

    def on_visit(self, node: cst.CSTNode) -> bool:
        return node not in self.skip and super().on_visit(node)

    def _is_read(self, node: cst.BaseExpression) -> bool:
        return self_attribute_name(node) == self.attr

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._is_read(node):
            self.found.append(node)
        elif self._is_read(node.value) and node.attr.value not in _CHAIN_METHODS | {"T"}:
            self.other = True

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if self._is_read(node.target):
            self.other = True

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        if self._is_read(node.target):
            self.other = True


class _GlobalReads(cst.CSTVisitor):
    """Every read of the module name `name` in a body, as itself or with
    `.as_in_context(...)` (what replaces it is already on the graph's context); `other` when
    it is read through an attribute a Symbol lacks (`.shape`, `.asnumpy()`) or rebound."""

    _MOVES = const.CONTEXT_MOVES

    def __init__(self, name: str) -> None:
        self.name = name
        self.found: List[cst.BaseExpression] = []
        self.other = False

    def visit_Call(self, node: cst.Call) -> Optional[bool]:
        func = node.func
        if (
            isinstance(func, cst.Attribute)
            and func.attr.value in self._MOVES
            and isinstance(func.value, cst.Name)
            and func.value.value == self.name
        ):
            self.found.append(node)
            for arg in node.args:
                arg.visit(self)
            return False
        return None

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        if isinstance(node.value, cst.Name) and node.value.value == self.name:
            if node.attr.value not in _CHAIN_METHODS | {"T"}:
                self.other = True
            self.found.append(node.value)
            return False
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.name:
            self.found.append(node)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        if self.name in target_names(node.target):
            self.other = True


def _names(node: cst.CSTNode) -> set:
    """Every plain name `node` uses or binds (parameters included; not `.attr` names)."""
    names = set()

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            names.add(node.value)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

    node.visit(Names())
    return names


class _Forward(cst.CSTVisitor):
    """Runs the rule's checks on an expression before the walk reaches it (its reports are
    made once: `_done`)."""

    def __init__(self, rule: ArrayCreation) -> None:
        self.rule = rule

    def visit_Call(self, node: cst.Call) -> None:
        self.rule.visit_Call(node)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        self.rule.visit_BinaryOperation(node)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        self.rule.visit_Comparison(node)


# an annotation that is the array type: `NDArray`, `nd.NDArray`, `mx.nd.NDArray`, gluonts'
# `Tensor` (`Union[mx.nd.NDArray, mx.sym.Symbol]`, imported from gluonts.mx), or a Union of
# array types; not a container of them (`List[NDArray]`, `Callable[[Tensor], Tensor]`)
_ARRAY_TYPE = r"(?:[\w.]*\.)?(?:NDArray|Symbol|Tensor)"
_NDARRAY_ANNOTATION = re.compile(
    rf"{_ARRAY_TYPE}|(?:typing\.)?Union\[{_ARRAY_TYPE}(?:,\s*{_ARRAY_TYPE})*\]"
)


def _passed_ndarray(klass: cst.ClassDef, value: cst.BaseExpression) -> bool:
    """`value` is a parameter of the class's own `__init__` annotated as an NDArray, without
    a default or with one other than None (gluonts' COP-DeepAR `GNN(units, num_layers,
    adj_matrix: Tensor)` keeps `adj_matrix`, an `mx.nd.array`, on self for `F.dot`)."""
    init = const.own_init(klass)
    if init is None or not isinstance(value, cst.Name):
        return False
    params = init.params
    for param in [*params.posonly_params, *params.params, *params.kwonly_params]:
        if param.name.value != value.value or param.annotation is None:
            continue
        if isinstance(param.default, cst.Name) and param.default.value == "None":
            return False
        if any(
            value.value in target_names(target)
            for node in walk_nodes(init.body)
            for target in bound_targets(node)
        ):
            return False  # rebound first (`scale = float(scale.asscalar())`)
        text = cst.Module([]).code_for_node(param.annotation.annotation)
        return bool(_NDARRAY_ANNOTATION.fullmatch(text))
    return False
