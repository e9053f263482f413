"""HL017 autograd-function-call: an `mx.autograd.Function` called in hybrid code."""

from __future__ import annotations

from typing import Dict, Optional, Set

import libcst as cst

from ._examples import constructor, net
from .base import Invalid, Rule, Valid
from .module_context import ModuleContext
from .values import dotted_name, self_attribute_name, walk_nodes

_FUNCTION = "mxnet.autograd.Function"

_SIGN = (
    "class Sign(mx.autograd.Function):\n    def forward(self, x):\n"
    "        return x.sign() / x.shape[1]\n\n    def backward(self, dy):\n        return dy\n\n\n"
)
_COV = (
    "class Cov(autograd.Function):\n    def forward(self, x):\n"
    "        return mx.nd.batch_dot(x, x, transpose_b=True)\n\n"
    "    def backward(self, dy):\n        return dy\n\n\n"
)
_INIT = constructor("super(Net, self).__init__()\nself.cov = Cov()", "")
_ADVICE = (
    "no rewrite keeps its backward: make it an mx.operator.CustomOp called as "
    "F.Custom(..., op_type=...), or keep the block eager"
)


def autograd_function_classes(context: ModuleContext) -> Set[str]:
    """The module's top-level classes that derive (directly or through each other) from
    MXNet's `autograd.Function`, however it is imported (`mx.autograd.Function`,
    `from mxnet.autograd import Function`); torch's Function and others are not."""
    return {name for name in context.class_bases if context.derives_from(name, _FUNCTION)}


class AutogradFunctionCall(Rule):
    code = "HL017"
    name = "autograd-function-call"
    message = "an mx.autograd.Function called in hybrid code cannot be part of a Symbol graph"
    explanation = """\
Off by default: turn it on with `--select HL017`, `--extend-select HL017` or
`extend-select = ["HL017"]`. On real code 6 of its 7 reports are true under MXNet 1.9.1; the
seventh calls the Function on a bias its forward cannot take even eagerly. Off, it still
reports the calls in a block that configured examples build (`[tool.hybridlint.examples]`):
that block is meant to be hybridized, and a plain `--fix` must not pass it silently.

## What it does
Finds calls of an `mx.autograd.Function` (a class of the module deriving from
`mx.autograd.Function`, imported in any spelling) inside `hybrid_forward` and the helpers it
calls: `Binarize()(weight)`, or `self.cov(x)` where `__init__` stores `self.cov = Cov()`.

## Why it breaks under hybridize
An `autograd.Function` is an eager construct: its `forward` runs Python on NDArrays and MXNet
records its `backward` as a custom node for those NDArrays. Hybridized, the call gets Symbols:
`forward`'s NDArray-only code fails while the graph is built (`x.shape`: AttributeError:
'Symbol' object has no attribute 'shape'; `mx.nd.batch_dot(sym, ...)`: AssertionError), and
under `autograd.record()` MXNet hands the Symbols to its recorder in place of NDArrays
(MXNetError), so even a `forward` that Symbols survive trains only eagerly; outside recording
such a graph silently drops the hand-written backward.

## Example
```python
class Sign(mx.autograd.Function):
    def forward(self, x):
        return x.sign() / x.shape[1]

    def backward(self, dy):
        return dy


class Net(HybridBlock):
    def hybrid_forward(self, F, x):
        return Sign()(x)
```

## Fix
None automatic: the gradient is the point of the Function, and ops written in its place would
get MXNet's own gradient instead. Write it as a custom operator (`mx.operator.CustomOp` with
its `forward`/`backward`, registered by `mx.operator.register`, called as
`F.Custom(x, op_type=...)`), which a Symbol graph holds with its backward; or keep the block
un-hybridized.

## Fix safety
Reported only.
"""

    VALID = [
        Valid(net("return F.sign(x)", head=_SIGN)),
        Valid(net("if F is mx.nd:\n    return Sign()(x)\nreturn F.sign(x)", head=_SIGN)),
        Valid(
            "import torch\n\n\nclass Sign(torch.autograd.Function):\n    pass\n\n\n"
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        return Sign()(x)\n"
        ),
        Valid(_SIGN + "class Net(Block):\n    def forward(self, x):\n        return Sign()(x)\n"),
    ]
    INVALID = [
        Invalid(net("return Sign()(x) + 1", head=_SIGN), line=11),
        Invalid(
            net("return self.cov(x)", head="from mxnet import autograd\n\n\n" + _COV, init=_INIT),
            line=18,
        ),
        Invalid(
            net(
                "y = F.relu(x)\nreturn Deeper()(y)",
                head=_SIGN + "class Deeper(Sign):\n    pass\n\n\n",
            ),
            line=16,
        ),
    ]

    def __init__(self, state=None) -> None:
        super().__init__(state)
        self._context: Optional[ModuleContext] = None
        self._classes: Set[str] = set()
        self._children: Dict[tuple, Optional[str]] = {}

    def _function_classes(self) -> Set[str]:
        context = self.state.module
        if context is not self._context:
            self._context, self._classes = context, autograd_function_classes(context)
            self._children = {}
        return self._classes

    def visit_Call(self, node: cst.Call) -> None:
        classes = self._function_classes()
        if not classes:
            return  # nearly every module: nothing to find
        func = node.func
        built = dotted_name(func.func) if isinstance(func, cst.Call) else None
        how = f"`{built}(...)`"
        if built not in classes:
            attr = self_attribute_name(func)
            built = self._child_class(attr) if attr is not None else None
            how = f"`self.{attr}` (a `{built}`)"
        if built not in classes:
            return
        klass = self.facts.klass if self.facts is not None else None
        built_by = (
            f"; the configured examples build `{klass.name}`"
            if klass is not None and self.configured_examples(klass)
            else ""
        )
        if self.examples_only and not built_by:
            return
        self.report(
            node,
            f"{how} is an mx.autograd.Function: hybridized its forward gets Symbols (NDArray "
            "code there fails: x.shape, mx.nd.*) and autograd.record cannot record it "
            f"(MXNetError){built_by}; " + _ADVICE,
        )

    def _child_class(self, attr: str) -> Optional[str]:
        """The class every `self.<attr> = <Class>(...)` of the block's `__init__` builds."""
        klass = self.facts.klass if self.facts is not None else None
        init = klass.methods.get("__init__") if klass is not None else None
        if init is None:
            return None
        key = (id(init), attr)
        if key not in self._children:
            built: Set[Optional[str]] = set()
            for node in walk_nodes(init.body, stop=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                if isinstance(node, (cst.Assign, cst.AnnAssign)):
                    targets = (
                        [t.target for t in node.targets]
                        if isinstance(node, cst.Assign)
                        else [node.target]
                    )
                    if any(self_attribute_name(t) == attr for t in targets):
                        value = node.value
                        built.add(dotted_name(value.func) if isinstance(value, cst.Call) else None)
            self._children[key] = built.pop() if len(built) == 1 else None
        return self._children[key]
