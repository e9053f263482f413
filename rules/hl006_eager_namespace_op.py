"""HL006 eager-namespace-op: `nd.<op>` / `mx.nd.<op>` / `mx.sym.<op>` inside hybrid_forward."""

from __future__ import annotations

from functools import partial
from typing import Dict, FrozenSet, Optional, Tuple

import libcst as cst

from ._build import attr_chain, source_of
from ._examples import constructor, net
from ..mxnet_facts import (
    ADVICE,
    OPS,
    SHARED_METHODS,
    SHARED_SIGNATURE as _SHARED_SIGNATURE,
    SUBNAMESPACE_OPS,
    fixed_namespace_op,
    ndarray_only,
)
from ._namespace_param import NAME, namespace_param_edits
from ._ndarray_only_fix import ndarray_only_fix
from ._broadcast_like import plan_broadcast_to
from .analysis import NAMESPACE, TENSOR, TENSORS, dotted_name, namespace_call
from .base import SAFE, UNSAFE, Invalid, Rule, Valid, valid_table

# NDArray-only arguments: with them the call has no F equivalent.
_EAGER_ONLY_KEYWORDS = {"out", "ctx"}
_IMPORTS = "import mxnet as mx\nfrom mxnet import nd\nfrom mxnet.gluon import HybridBlock\n\n\n"


# Methods NDArray and Symbol both define as the operator of the same name applied to the array
# (fluent methods), so `x.op(*args, **kwargs)` is `F.op(x, *args, **kwargs)` in both modes; left
# out: the methods with their own Python signatures in MXNet 1.9.1 (reshape, broadcast_to,
# split_v2, astype, copy, ...) and what is not an operator.
_FLUENT = (SHARED_METHODS & OPS) - {"reshape", "broadcast_to", "split_v2", "astype", "copy"}
# Fluent methods whose NDArray signature (inspect.signature, MXNet 1.9.1) is narrower than the
# operator's: how many arguments after the array they take by position, and which keywords.
# `nd.broadcast_like(c, x, lhs_axes=(0,))` has no method form (`broadcast_like(self, other)`).
_NARROW_METHODS: Dict[str, Tuple[int, FrozenSet[str]]] = {
    "broadcast_like": (1, frozenset()),
    "expand_dims": (1, frozenset({"axis"})),
    "squeeze": (1, frozenset({"axis"})),
    "flatten": (0, frozenset()),
}


# an object hybrid code hands F (rl-coach's MultivariateNormalDist): its methods run in the graph
_GRAM = (
    "class Gram:\n"
    "    def __init__(self, x, F=mx.nd):\n"
    "        self.x = x\n"
    "        self.F = F\n\n"
    "    def value(self):\n"
    "        {}\n\n\n"
)
_GRAM_NET = "g = Gram(x, F=F)\nreturn g.value()"


# every example imports nd (the namespace the rule is about)
_net = partial(net, head=_IMPORTS)


class EagerNamespaceOp(Rule):
    code = "HL006"
    name = "eager-namespace-op"
    message = "operator called from a fixed namespace (nd/sym) inside hybrid_forward; call it on F"
    explanation = """\
## What it does
Finds calls of `nd.<op>`, `mx.nd.<op>`, `mx.ndarray.<op>`, `mx.sym.<op>`, `sym.<op>` (and their
`contrib`, `random`, `linalg`, `image` submodules) inside `hybrid_forward` and the helpers it
calls, whatever the import spelling (`from mxnet import nd`, `import mxnet.ndarray as nd`,
`import mxnet as mx`), for operators that exist in both namespaces. Only calls that certainly
meet a tensor are reported: a tensor argument, or the call is an argument or operand next to a
tensor, also through arithmetic (`y + 0.5 * nd.ones((1, n))`). `nd.array` is HL005's.

## Why it breaks under hybridize
`F` is `mx.nd` when the block runs eagerly and `mx.sym` after `hybridize()`; a fixed namespace
is right in only one of the two. In MXNet 1.9.1 `nd.relu(x)` on a Symbol raises
`AssertionError: Argument data must have NDArray type, but got <Symbol data>`, and
`mx.sym.relu(x)` on an NDArray raises (eagerly)
`AssertionError: Argument data must be Symbol instances, but got [[...]] <NDArray 2x3 @cpu(0)>`.
An NDArray result mixed with a Symbol raises
`TypeError: type <class 'mxnet.ndarray.ndarray.NDArray'> not supported`.

## Example
```python
from mxnet import nd

def hybrid_forward(self, F, x):
    return nd.relu(x) + mx.nd.sigmoid(x)
```

## Fix
```python
def hybrid_forward(self, F, x):
    return F.relu(x) + F.sigmoid(x)
```
The namespace is replaced by the function's own namespace parameter (whatever its name); the
arguments are kept as written. Nested calls (`nd.log1p(nd.exp(x))`) are each reported and all
fixed in one `--fix` run; the result of an eager call is a tensor for what follows
(`y = nd.sum(x); nd.log(y)`). The NDArray-only functions (`nd.equal`, `nd.multiply`,
`nd.concatenate`, `nd.moveaxis`, ...) become what HL015 makes of `F.equal`, ...: of two tensors
`F.broadcast_equal(a, b)`, of a tensor and a number `a == 2`, `F.concat(*arrays, dim=k)`.
`y + 0.5 * nd.ones((1, n))` becomes `y + 0.5 * F.ones((1, n))`, which HL007 then makes
`F.broadcast_add(...)` (the `+` of two NDArrays broadcasts, of two Symbols does not).
In a method of an object the block builds and hands F (`dist = Dist(mean, sigma, F=F);
dist.kl_div(other)` with `self.F = F` in `Dist.__init__`), the namespace is the attribute
holding it: `mx.nd.batch_dot(a, self.sigma)` becomes `self.F.batch_dot(a, self.sigma)`.
`nd.broadcast_to(t, shape=x.shape)` becomes `F.broadcast_like(t, x)` at once (HL001's rewrite of
the `x.shape` it would still read). In a helper that takes no F (a module function called
from hybrid_forward, a loss's method) there is no `F` to call: an operator applied to a tensor
becomes that tensor's method, which NDArray and Symbol both have (`nd.log1p(nd.exp(x))` ->
`x.exp().log1p()`); for other calls the helper gets a parameter `F` whose default is the
namespace it names (`def warp(x, flow, F=mx.nd)`), its calls become `F.op(...)`, and each call
from hybrid code passes its F (`warp(x, flow, F=F)`). Without a namespace to pass (a caller
that has no F itself), with `F` already a name in the helper, or with a decorator that may wrap
the signature, the call is reported with the advice to pass F to the helper.

## Fix safety
Safe: eagerly `F` *is* `mx.nd`, so `F.op(...)` is the very call `nd.op(...)` was, and hybridized
`F.op` is `mx.sym.op`, which exists for every operator the rule fixes (the list is MXNet
1.9.1's intersection of both namespaces). The NDArray-only functions are as safe as HL015's
rewrites of them (`nd.add(x, y)` of two tensors *is* `broadcast_add`). Calls with NDArray-only
arguments (`out=`, `ctx=`, or, for the Python-defined `zeros/ones/full/arange/eye/linspace/
maximum/minimum/power/...` whose two signatures differ, an argument the Symbol version does not
take), in helpers without F unless the first argument is a tensor with a fluent method (MXNet
1.9.1 defines `NDArray.exp` and `Symbol.exp` alike as `op.exp(self, *args, **kwargs)`, so
`x.exp()` is the very call; `reshape`, `broadcast_to`, `split_v2`, `astype`, `copy`, whose
methods have their own signatures, are left out), and operators that exist in one namespace
only with no exact F spelling are reported without a fix. A helper's new `F` parameter is safe
too: a call that passes nothing (eager code, another module) gets the namespace the helper
named, and a hybrid caller passes its own F, which eagerly *is* mx.nd; for a method it is
unsafe (a subclass in another module may override it without the parameter; one in this
module: no fix). `self.F.op` in an object's method is unsafe when the constructor's parameter
defaults to something else than mx.nd (code the linter does not see may build the object
without it).
"""

    VALID = valid_table(
        _net,
        "return F.relu(x)",
        "if F is mx.nd:\n    return nd.relu(x)\nreturn F.relu(x)",
        "w = nd.zeros((2, 3))  # not combined with a tensor: eager bookkeeping\nreturn F.relu(x)",
        "return x + nd.array([1.0])",  # HL005's business
        Valid(
            _net(
                "return nd.relu(x)",
                head="import mxnet as mx\nfrom mylib import nd\n"
                "from mxnet.gluon import HybridBlock\n\n\n",
            )
        ),
        Valid("from mxnet import nd\n\n\ndef helper(y):\n    return nd.relu(y)\n"),  # not reached
        Valid(  # what a method returns is no child when it may be anything (a parameter)
            _net(
                "return nd.relu(self.a(x))",
                init=constructor("super().__init__()\nself.a = self._pick(None)", "")
                + "\ndef _pick(self, layer):\n    return layer\n",
            )
        ),
        "return nd.relu(x)  # noqa: HL006",
        # a branch that runs only hybridized (turicreate's InstanceNorm, for CoreML): mx.sym is F
        "if F == mx.sym and x is not None:\n    return mx.sym.relu(x)\nreturn F.relu(x)",
        "if F is not nd:\n    return mx.sym.relu(x)\nreturn F.relu(x)",
        Valid(  # `self.F` is the namespace the block passed; `if self.F is mx.nd` is eager-only
            _net(
                _GRAM_NET,
                head=_IMPORTS
                + _GRAM.format(
                    "if self.F is mx.nd:\n            return nd.batch_dot(self.x, self.x, "
                    "transpose_b=True)\n        return self.F.batch_dot(self.x, self.x, "
                    "transpose_b=True)"
                ),
            )
        ),
    )
    INVALID = [
        # the module's eager namespace is itself named F: the helper's parameter `F=F`
        # defaults to it, and its hybrid caller passes its own (`G`)
        Invalid(
            "from mxnet import nd as F\nfrom mxnet.gluon import HybridBlock\n\n\n"
            "def helper(x):\n    return F.where(x > 0, x, x.zeros_like())\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, G, x):\n"
            "        return helper(x) + 1\n",
            line=6,
            fix=[
                ("def helper(x):", "def helper(x, F=F):"),
                ("return helper(x) + 1", "return helper(x, F=G) + 1"),
            ],
            safety=SAFE,
        ),
        # children set with setattr in a loop and called through getattr (a capsule layer's
        # `getattr(self, 'conv%d' % i)(x)`, blind round 15): gluon layers, so arrays
        Invalid(
            "import mxnet as mx\nfrom mxnet import nd\nfrom mxnet.gluon import HybridBlock, nn\n\n\n"
            + net(
                "a = getattr(self, 'c0')(x)\nb = getattr(self, 'c1')(x)\n"
                "return nd.concat(a, b, dim=1)",
                init=constructor(
                    "super().__init__()\nfor i in range(2):\n"
                    "    setattr(self, 'c%d' % i, nn.Dense(3))",
                    "",
                ),
            ),
            line=15,
            fix=[
                ("from mxnet import nd\n", ""),
                ("nd.concat(a, b, dim=1)", "F.concat(a, b, dim=1)"),
            ],
            safety=SAFE,
        ),
        # children a method builds and returns are children too (gluon's `_make_layer`)
        Invalid(
            _net(
                "a, b = self.a(x), self.b(x)\nreturn nd.concat(a, b, dim=1)",
                init=constructor(
                    "super().__init__()\nself.a = self._make(4)\nself.b, self.c = self._pair()",
                    "",
                )
                + "\ndef _make(self, n):\n    layer = nn.HybridSequential(prefix='')\n"
                "    layer.add(nn.Dense(n))\n    return layer\n"
                "\ndef _pair(self):\n    one = nn.Dense(3)\n    two = nn.Dense(4)\n"
                "    return one, two\n",
                head=_IMPORTS.replace("HybridBlock", "HybridBlock, nn"),
            ),
            line=24,
            fix=[
                ("from mxnet import nd\n", ""),
                ("nd.concat(a, b, dim=1)", "F.concat(a, b, dim=1)"),
            ],
            safety=SAFE,
        ),
        # a list the body appends tensors to (yolov5's detect head)
        Invalid(
            _net(
                "outs = []\nfor scale in (1.0, 2.0):\n    outs.append(F.relu(x) * scale)\n"
                "return nd.concat(*outs, dim=1)"
            ),
            line=11,
            fix=[("from mxnet import nd\n", ""), ("nd.concat(*outs", "F.concat(*outs")],
            safety=SAFE,
        ),
        # what a block the module does not define returns (a siamese net's model-zoo towers;
        # `import mxnet.ndarray as nd`)
        Invalid(
            net(
                "return self.out(nd.abs(self.tower(x) - self.tower(y)))",
                "F, x, y",
                head="import mxnet.ndarray as nd\nfrom mxnet.gluon import HybridBlock, nn\n\n\n",
                init=constructor(
                    "super().__init__()\nself.tower = nn.HybridLambda('tanh')\n"
                    "self.out = nn.Dense(2)",
                    "",
                ),
            ),
            line=12,
            fix=[("import mxnet.ndarray as nd\n", ""), ("nd.abs(", "F.abs(")],
            safety=SAFE,
        ),
        # a list of what a container child's layers return (MixNet-Gluon's MixBlock)
        Invalid(
            _net(
                "outs = [branch(x) for branch in self.branches]\nreturn nd.concat(*outs, dim=1)",
                init=constructor(
                    "super().__init__()\nself.branches = nn.HybridSequential()\n"
                    "self.branches.add(nn.Dense(4), nn.Dense(3))",
                    "",
                ),
                head=_IMPORTS.replace("HybridBlock", "HybridBlock, nn"),
            ),
            line=14,
            fix=[("from mxnet import nd\n", ""), ("nd.concat(*outs", "F.concat(*outs")],
            safety=SAFE,
        ),
        # its items through a comprehension (yolov4-mxnet's `*[bxy_list[i] for i in ...]`)
        Invalid(
            _net(
                "outs = []\nfor scale in (1.0, 2.0):\n    outs.append(F.relu(x) * scale)\n"
                "return nd.concat(*[outs[i] for i in range(2)], dim=1)"
            ),
            line=11,
            fix=[("from mxnet import nd\n", ""), ("nd.concat(*[", "F.concat(*[")],
            safety=SAFE,
        ),
        Invalid(
            _net("return nd.relu(x)"),
            line=8,
            fix=[("from mxnet import nd\n", ""), ("nd.relu(x)", "F.relu(x)")],
            safety=SAFE,
        ),
        Invalid(
            _net("y = mx.nd.softmax(x, axis=-1)  # keep\nreturn y"),
            line=8,
            fix=[
                ("import mxnet as mx\n", ""),
                ("mx.nd.softmax(x, axis=-1)", "F.softmax(x, axis=-1)"),
            ],
            safety=SAFE,
        ),
        Invalid(
            _net("return mx.sym.broadcast_add(x, mx.sym.ones((1, 3)))"),
            line=8,
            fix=[
                ("import mxnet as mx\n", ""),
                (
                    "mx.sym.broadcast_add(x, mx.sym.ones((1, 3)))",
                    "F.broadcast_add(x, F.ones((1, 3)))",
                ),
            ],
            safety=SAFE,
        ),
        Invalid(
            _net("return x + nd.ones((1, 3))"),
            line=8,
            fix=[("from mxnet import nd\n", ""), ("nd.ones((1, 3))", "F.ones((1, 3))")],
            safety=SAFE,
        ),
        Invalid(
            _net("return F.broadcast_add(x, 0.5 * -nd.ones((1, 3)))"),
            line=8,
            fix=[("from mxnet import nd\n", ""), ("nd.ones((1, 3))", "F.ones((1, 3))")],
            safety=SAFE,
        ),
        Invalid(
            _net(
                "return ndarray.contrib.arange_like(x, axis=1)",
                head="import mxnet.ndarray as ndarray\nfrom mxnet.gluon import HybridBlock\n\n\n",
            ),
            line=7,
            fix=[
                ("import mxnet.ndarray as ndarray\n", ""),
                ("ndarray.contrib.arange_like(x, axis=1)", "F.contrib.arange_like(x, axis=1)"),
            ],
            safety=SAFE,
        ),
        # MXNet's second home of the contrib operators
        Invalid(
            _net(
                "return BilinearResize2D(x, height=4, width=4)",
                head="from mxnet.contrib.ndarray import BilinearResize2D\n"
                "from mxnet.gluon import HybridBlock\n\n\n",
            ),
            line=7,
            fix=(
                "return BilinearResize2D(x, height=4, width=4)",
                "return F.contrib.BilinearResize2D(x, height=4, width=4)",
            ),
            safety=SAFE,
        ),
        Invalid(
            "from mxnet import symbol as S\nfrom mxnet.gluon import HybridBlock\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, _, x):\n        return S.tanh(x)\n",
            line=7,
            fix=[("from mxnet import symbol as S\n", ""), ("S.tanh(x)", "_.tanh(x)")],
            safety=SAFE,
        ),
        Invalid(
            _net(
                "return relu(x)",
                head="from mxnet.ndarray import relu\nfrom mxnet.gluon import HybridBlock\n\n\n",
            ),
            line=7,
            fix=("relu(x)", "F.relu(x)"),
            safety=SAFE,
        ),
        Invalid(_net("return nd.relu(x, out=x)"), line=8),
        Invalid(_net("return x + nd.ones((1, 3), mx.cpu())"), line=8),
        Invalid(
            _net("return nd.add(x, x)"),
            line=8,
            fix=[("from mxnet import nd\n", ""), ("nd.add(x, x)", "F.broadcast_add(x, x)")],
            safety=SAFE,
        ),
        Invalid(
            _net("return mx.nd.greater_equal(x, 0.5)"),
            line=8,
            fix=[("import mxnet as mx\n", ""), ("mx.nd.greater_equal(x, 0.5)", "x >= 0.5")],
            safety=SAFE,
        ),
        Invalid(_net("return mx.nd.logical_and(x, 1)"), line=8),  # a Symbol has no `&`
        # nested calls: each its own finding, all fixed in one run
        Invalid(
            _net("return nd.log1p(nd.exp(x))"),
            line=8,
            fix=[("from mxnet import nd\n", ""), ("nd.log1p(nd.exp(x))", "F.log1p(F.exp(x))")],
            safety=SAFE,
        ),
        # the result of an eager call is a tensor: `nd.sum(y)` meets one
        Invalid(
            _net("y = nd.square(x)\nreturn nd.sum(y, axis=1)"),
            line=8,
            fix=[
                ("from mxnet import nd\n", ""),
                ("nd.square(x)", "F.square(x)"),
                ("nd.sum(y, axis=1)", "F.sum(y, axis=1)"),
            ],
            safety=SAFE,
        ),
        Invalid(
            _net("y = F.relu(x)\nreturn nd.concatenate([x, y], axis=1)", signature="F, x"),
            line=9,
            fix=[
                ("from mxnet import nd\n", ""),
                ("nd.concatenate([x, y], axis=1)", "F.concat(x, y, dim=1)"),
            ],
            safety=SAFE,
        ),
        # a helper that takes no F (issue 21 item 7): the tensor's own method serves both modes
        Invalid(
            _IMPORTS + "def softplus(x):\n    return nd.log1p(x.exp())\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        return softplus(F.relu(x))\n",
            line=7,
            fix=[("from mxnet import nd\n", ""), ("nd.log1p(x.exp())", "x.exp().log1p()")],
            safety=SAFE,
        ),
        # a method of an object handed F: its namespace is `self.F`, as the method spells it
        Invalid(
            _net(
                _GRAM_NET,
                head=_IMPORTS
                + _GRAM.format("return nd.batch_dot(self.x, self.x, transpose_b=True)"),
            ),
            line=12,
            fix=[
                ("from mxnet import nd\n", ""),
                (
                    "nd.batch_dot(self.x, self.x, transpose_b=True)",
                    "self.F.batch_dot(self.x, self.x, transpose_b=True)",
                ),
            ],
            safety=SAFE,
        ),
        # a method a class of the module overrides: `self._cat(..., F=F)` would reach the
        # override, which takes no F (reported without a fix)
        Invalid(
            _net(
                "return self._cat(x, F.relu(x))",
                init="def _cat(self, a, b):\n    return nd.concat(a, b, dim=1)\n",
            )
            + "\n\nclass Wide(Net):\n    def _cat(self, a, b):\n        return nd.concat(a, b, b, dim=1)\n",
            line=8,
        ),
        # NDArray.broadcast_like is `(self, other)`: with lhs_axes there is no method form, so
        # the helper gets an F parameter (the eager namespace by default) its caller passes
        Invalid(
            _IMPORTS + "def tile_to(c, x):\n"
            "    return nd.broadcast_like(c, x, lhs_axes=(0,), rhs_axes=(0,))\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        return tile_to(F.sum(x, axis=0, keepdims=True), x)\n",
            line=7,
            fix=[
                ("def tile_to(c, x):", "def tile_to(c, x, F=nd):"),
                ("return nd.broadcast_like", "return F.broadcast_like"),
                ("keepdims=True), x)", "keepdims=True), x, F=F)"),
            ],
            safety=SAFE,
        ),
        Invalid(
            _IMPORTS + "def total(x, n):\n    return x * n + nd.ones((1,))\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        return total(F.relu(x), 2)\n",
            line=7,
            fix=[
                ("def total(x, n):", "def total(x, n, F=nd):"),
                ("nd.ones((1,))", "F.ones((1,))"),
                ("total(F.relu(x), 2)", "total(F.relu(x), 2, F=F)"),
            ],
            safety=SAFE,
        ),
        # a method helper called from hybrid code only with a list of tensors (CapsuleNet's
        # `concat_vectors_in_list`); `*args`: F is keyword-only
        Invalid(
            _net(
                "return self._cat([F.relu(x), x], 1) + self._sum(x, x)",
                init="def _cat(self, parts, axis):\n    out = parts[0]\n"
                "    for i in range(1, len(parts)):\n"
                "        out = nd.concat(out, parts[i], dim=axis)\n    return out\n\n"
                "def _sum(self, a, *rest):\n    return nd.add_n(a, *rest)\n",
            ),
            line=10,
            fix=[
                ("def _cat(self, parts, axis):", "def _cat(self, parts, axis, F=nd):"),
                ("nd.concat(out", "F.concat(out"),
                ("def _sum(self, a, *rest):", "def _sum(self, a, *rest, F=nd):"),
                ("nd.add_n(a, *rest)", "F.add_n(a, *rest)"),
                ("self._cat([F.relu(x), x], 1)", "self._cat([F.relu(x), x], 1, F=F)"),
                ("self._sum(x, x)", "self._sum(x, x, F=F)"),
            ],
            safety=UNSAFE,  # a subclass elsewhere may override the method without F
        ),
        # broadcasting to another tensor's shape: `F.broadcast_like` serves both namespaces at
        # once, where `F.broadcast_to(t, shape=x.shape)` would still read x.shape (item 5)
        Invalid(
            _net("m = x.max(keepdims=True)\nreturn nd.broadcast_to(m, shape=x.shape)"),
            line=9,
            fix=[
                ("from mxnet import nd\n", ""),
                ("nd.broadcast_to(m, shape=x.shape)", "F.broadcast_like(m, x)"),
            ],
            safety=SAFE,
        ),
    ]

    def visit_Call(self, node: cst.Call) -> None:
        resolved = self._resolve(node.func)
        if resolved is not None and any(self._array(arg.value) for arg in node.args):
            self._report(node, *resolved)
        # calls that meet a tensor as siblings: F.op(x, nd.ones(...)), x + nd.ones(...)
        if any(self._array(arg.value) for arg in node.args) or self._is_namespace_call(node):
            for arg in node.args:
                self._check_operand(arg.value)

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> None:
        for mine, other in ((node.left, node.right), (node.right, node.left)):
            if self._array(other):
                self._check_operand(mine)

    def visit_Comparison(self, node: cst.Comparison) -> None:
        operands = [node.left] + [c.comparator for c in node.comparisons]
        if len(operands) == 2 and any(self._array(o) for o in operands):
            for operand in operands:
                self._check_operand(operand)

    # -- helpers ---------------------------------------------------------------------------
    def _check_operand(self, expr: cst.BaseExpression) -> None:
        """Report an eager call `expr` meeting a tensor; arithmetic on an eager call is an NDArray
        too (`y + 0.5 * nd.ones((1, 3))`, `x - (-nd.ones(...))`), so its operands are checked."""
        if isinstance(expr, cst.BinaryOperation):
            self._check_operand(expr.left)
            self._check_operand(expr.right)
            return
        if isinstance(expr, cst.UnaryOperation) and not isinstance(expr.operator, cst.Not):
            self._check_operand(expr.expression)
            return
        if isinstance(expr, cst.Call):
            resolved = self._resolve(expr.func)
            if resolved is not None:
                self._report(expr, *resolved)

    def _array(self, expr: cst.BaseExpression) -> bool:
        """A tensor, or an input taken for one by position: next to an eager op (`nd.relu(x)`,
        `x + nd.ones(...)`) a list would fail eagerly too, so working code passes an array. A
        list of tensors counts (`nd.concatenate([x, y])`): its items are Symbols hybridized."""
        if isinstance(expr, (cst.List, cst.Tuple)):
            return any(isinstance(e, cst.Element) and self._array(e.value) for e in expr.elements)
        return self.value(expr).kind in (TENSOR, TENSORS)

    def _fluent(self, node: cst.Call, op: str, nested: bool = False) -> Optional[cst.Call]:
        """`nd.exp(x, ...)` -> `x.exp(...)` when x (the first, plain argument) is a tensor and
        both NDArray and Symbol have the method as the operator itself (MXNet 1.9.1's fluent
        methods: `def exp(self, *args, **kwargs): return op.exp(self, *args, **kwargs)`).
        `nested`: an eager call as x becomes its method too (`x.exp().log1p()`, for the message:
        the inner call is its own finding, fixed by its own edit)."""
        if op not in _FLUENT or not node.args or node.args[0].keyword is not None:
            return None
        if any(a.star for a in node.args) or self.value(node.args[0].value).kind != TENSOR:
            return None
        if op in _NARROW_METHODS:
            positional, keywords = _NARROW_METHODS[op]
            rest_args = node.args[1:]
            if sum(a.keyword is None for a in rest_args) > positional or any(
                a.keyword is not None and a.keyword.value not in keywords for a in rest_args
            ):
                return None
        data = node.args[0].value
        if nested and isinstance(data, cst.Call):  # `nd.log1p(nd.exp(x))` -> `x.exp().log1p()`
            inner = self._resolve(data.func)
            if (
                inner is not None
                and inner[2]
                and not any(
                    a.keyword is not None and a.keyword.value in _EAGER_ONLY_KEYWORDS
                    for a in data.args
                )
            ):
                data = self._fluent(data, inner[0], nested) or data
        if (
            not isinstance(data, (cst.Name, cst.Attribute, cst.Call, cst.Subscript))
            and not data.lpar
        ):
            data = data.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        rest = list(node.args[1:])
        if rest:
            rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return cst.Call(func=cst.Attribute(value=data, attr=cst.Name(op)), args=rest)

    def _held_namespace(self) -> Optional[str]:
        """`self.F` in a method of an object hybrid code handed F (`analysis._instances`):
        the namespace as the method spells it, the attribute the constructor stored it on."""
        held = self.facts.self_attrs if self.facts is not None else {}
        return next((f"self.{a}" for a, v in held.items() if v.kind == NAMESPACE), None)

    def _held_safety(self, ns: str) -> str:
        """SAFE, as for F, unless `ns` is an object's `self.<a>` whose constructor parameter
        defaults to something else than mx.nd: code not seen that builds the object without
        it would then call another namespace (UNSAFE). No default: every construction passes it."""
        facts = self.facts
        if ns == self.namespace or facts is None or facts.instance_of is None:
            return SAFE
        found = facts.module.instance_class(facts.instance_of)
        default = found.defaults.get(ns[len("self.") :], "") if found is not None else ""
        if default is None or self.state.module.namespace_kind(default) == "eager":
            return SAFE
        return UNSAFE

    def _is_namespace_call(self, node: cst.Call) -> bool:
        return namespace_call(node, self.namespace) is not None

    def _resolve(self, func: cst.BaseExpression) -> Optional[Tuple[str, str, bool, bool]]:
        """(op path like "contrib.arange_like", namespace as written, exists in both, is mx.nd)."""
        dotted = dotted_name(func)
        if dotted is None or dotted.split(".")[0] in self.env:
            return None
        if "." not in dotted and dotted not in self.state.module.imports:
            return None  # a bare name only when imported (`from mxnet.ndarray import relu`)
        resolved = fixed_namespace_op(self.state.module.qualify(dotted))
        if resolved is None:
            return None
        op, eager = resolved
        parts = op.split(".")
        if len(parts) == 1:
            both = op in OPS
        else:
            both = parts[1] in SUBNAMESPACE_OPS[parts[0]]
        written = (
            dotted.rsplit(".", len(parts))[0]
            if dotted.count(".") >= len(parts)
            else ("mx.nd" if eager else "mx.sym")
        )
        return op, written, both, eager

    def _report(self, node: cst.Call, op: str, written: str, both: bool, eager: bool) -> None:
        if not eager and self.facts is not None and node in self.facts.symbol_only:
            return  # `if F is mx.sym:`: the branch runs only on Symbols, as `mx.sym.` expects
        breaks = (
            "its inputs are Symbols after hybridize() (AssertionError: Argument data must have "
            "NDArray type)"
            if eager
            else "it fails eagerly, where the inputs are NDArrays (AssertionError: Argument data must "
            "be Symbol instances)"
        )
        ns = self.namespace or self._held_namespace()
        if not both:
            message = (
                f"`{written}.{op}` exists only in {'mx.nd' if eager else 'mx.sym'}; {breaks}; "
                "use the F operator that does the same (e.g. F.broadcast_add for nd.add)"
            )
            fix = (
                ndarray_only_fix(self, node, op, ns) if eager and ns and ndarray_only(op) else None
            )
            if fix is None:
                advice = ADVICE.get(op) if eager else None
                self.report(node, message + (f" ({advice})" if advice else ""))
            else:
                self.report(node, message, replacement=fix[0], safety=fix[1])
            return
        fluent = None if ns is not None else self._fluent(node, op)
        module_f = written.split(".")[0] == NAME  # `from mxnet import nd as F`
        if fluent is not None:  # a helper without F: the tensor's own method serves both modes
            spelled = source_of(self._fluent(node, op, nested=True) or fluent)
            message = (
                f"`{written}.{op}` is a fixed namespace: {breaks}; this function takes no F: "
                f"use the method, `{spelled}`"
            )
        else:
            message = f"`{written}.{op}` is a fixed namespace: {breaks}; use `{ns or 'F'}.{op}`" + (
                "" if ns is not None else " (pass F to this function)"
            )
            if ns is None and module_f:
                message = (
                    f"`{written}.{op}` is the module's eager `{NAME}`: {breaks}; pass the "
                    f"block's {NAME} to this function as a parameter named {NAME}"
                )
        eager_only = any(
            a.keyword is not None and a.keyword.value in _EAGER_ONLY_KEYWORDS for a in node.args
        )
        if op in _SHARED_SIGNATURE:
            count, keywords = _SHARED_SIGNATURE[op]
            positional = [a for a in node.args if a.keyword is None]
            if (
                len(positional) > count
                or any(a.star for a in node.args)
                or any(a.keyword is not None and a.keyword.value not in keywords for a in node.args)
            ):
                eager_only = True  # an argument the other namespace's signature does not take
        if fluent is not None and not eager_only:
            self.report(node, message, replacement=fluent, safety=SAFE)
            return
        if ns is None and eager and not eager_only:
            # a helper without F: give it one, passed by its hybrid callers (_namespace_param)
            passed = namespace_param_edits(self.facts, written, self.state.module.imports)
            if passed is not None:
                threaded = node.with_changes(func=attr_chain(f"{NAME}.{op}"))
                unsafe = f"; unsafe: {passed[1]}" if passed[1] else ""
                if module_f:
                    message = (
                        f"`{written}.{op}` is the module's eager `{NAME}`: {breaks}; make "
                        f"`{NAME}` this function's parameter (`{NAME}={NAME}` by default, the "
                        f"module's), passed by its hybrid callers{unsafe}"
                    )
                else:
                    message = message.replace(" (pass F to this function)", "") + (
                        f" (F becomes this function's parameter, `{NAME}={written}` by default, "
                        f"passed by its hybrid callers{unsafe})"
                    )
                safety = UNSAFE if passed[1] else SAFE
                self.report(node, message, replacement=threaded, edits=passed[0], safety=safety)
                return
        if ns is None or eager_only:
            self.report(node, message)
            return
        replacement: cst.CSTNode = node.with_changes(func=attr_chain(f"{ns}.{op}"))
        if op == "broadcast_to" and ns == self.namespace:
            # `nd.broadcast_to(t, shape=x.shape)`: HL001's rewrite at once
            plans = plan_broadcast_to(self, node.with_changes(func=attr_chain(f"{ns}.{op}")), ns)
            if plans:  # else the F call would still read `x.shape` (issue 21 item 5)
                replacement = plans[0][1][0][1]
        self.report(node, message, replacement=replacement, safety=self._held_safety(ns))
