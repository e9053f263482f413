"""HL016 autograd-mode-branch: `autograd.is_training()` / `is_recording()` read in traced code."""

from __future__ import annotations

from typing import Optional, Set

import libcst as cst

from .analysis import dotted_name
from .base import Invalid, Rule, Valid
from .guards import classify_guard
from .values import walk_nodes

# what the functions are, qualified (`ModuleContext.qualify`)
_MODE_FUNCTIONS = {"mxnet.autograd.is_training", "mxnet.autograd.is_recording"}
# spellings taken for them when the module binds their head nowhere (snippets, notebooks)
_CONVENTIONAL = {
    "autograd.is_training",
    "autograd.is_recording",
    "mx.autograd.is_training",
    "mx.autograd.is_recording",
}

_HEAD = "from mxnet import autograd\n\n\nclass Net(HybridBlock):\n"


def _net(body: str, signature: str = "F, x") -> str:
    return (
        _HEAD
        + f"    def hybrid_forward(self, {signature}):\n"
        + "".join("        " + line + "\n" for line in body.splitlines())
    )


_ALTERNATIVES = (
    "use ops that read the mode when the graph runs (F.Dropout, F.BatchNorm), pass the mode "
    "in as an input tensor and choose with F.where, or keep one hybridized block per mode "
    "(hybridize() again, which clears the cached graph, when switching)"
)


class AutogradModeBranch(Rule):
    code = "HL016"
    name = "autograd-mode-branch"
    message = (
        "autograd.is_training() / is_recording() inside hybrid_forward is read once, while "
        "tracing: the cached graph keeps the first call's mode"
    )
    explanation = """\
## What it does
Finds `autograd.is_training()` and `autograd.is_recording()` (`mx.autograd.…`, or imported
from `mxnet.autograd`) read inside `hybrid_forward` and the helpers it calls: in an `if`,
`while` or conditional expression (`p if autograd.is_training() else 0.`, `if not
autograd.is_training() or self.p <= 0: return x`), or as a value (`training=is_training()`).

## Why it breaks under hybridize
The call returns a Python bool, so the branch is decided in Python, once: when the block is
traced at its first hybridized call. MXNet 1.9.1 builds the CachedOp once (`_call_cached_op`
traces only while `_cached_op is None`) and does not retrace per mode: the train mode is
passed to the cached graph at every call, but only operators read it (`Dropout`, `BatchNorm`),
not the Python that built the graph. So a DropBlock-style `if autograd.is_training(): x = x *
mask`, hybridized, keeps the mode of its first call, silently (reproduced): first called under
`autograd.record()`, it drops in prediction too; first called in prediction, it never drops
in training. `hybridize()` again (or anything that clears the cache) retraces in the mode of
the next call. A block whose training calls pass other inputs than its prediction calls (gt
boxes) cannot reuse the graph across modes at all: MXNet raises `ValueError: The argument
structure of HybridBlock does not match the cached version`. Python randomness in the branch
(`np.random.binomial`) is drawn once, while tracing, as well.

## Example
```python
def hybrid_forward(self, F, x):
    if autograd.is_training():
        x = F.broadcast_mul(x, self._mask(F, x))
    return x
```

## Fix
Keep the mode out of Python: use operators that read it when the graph runs (`F.Dropout`,
`F.BatchNorm`); pass the mode in as an input (a 0/1 tensor) and choose with
`F.where(mode, dropped, x)`; or keep one hybridized block per mode, or call `hybridize()`
again (it clears the cached graph) whenever the mode changes.

## Fix safety
No automatic fix: which mode-dependent computation the graph needs depends on the program.
"""

    VALID = [
        Valid(_net("return F.Dropout(x, p=0.5)")),
        # eager-only: an `F is nd` branch is never traced
        Valid(_net("if F is mx.nd and autograd.is_training():\n    x = x * 0.5\nreturn x")),
        # a plain Block's forward runs on every call
        Valid(
            "from mxnet import autograd\n\n\nclass Net(Block):\n    def forward(self, x):\n"
            "        if autograd.is_training():\n            x = x * 0.5\n        return x\n"
        ),
        # the block's own method of that name, not autograd's
        Valid(_net("if self.is_training():\n    x = x * 0.5\nreturn x")),
        Valid(
            _net(
                "if autograd.is_training():  # hybridlint: ignore[HL016]\n    x = x * 0.5\nreturn x"
            )
        ),
    ]
    INVALID = [
        Invalid(_net("if autograd.is_training():\n    x = x * 0.5\nreturn x"), line=6),
        # gluoncv's DropBlock
        Invalid(
            "import mxnet as mx\n\n\nclass DropBlock(HybridBlock):\n"
            "    def hybrid_forward(self, F, x):\n"
            "        if not mx.autograd.is_training() or self.drop_prob <= 0:\n"
            "            return x\n        return F.Dropout(x, p=self.drop_prob)\n",
            line=6,
        ),
        Invalid(_net("p = self.p if autograd.is_recording() else 0.0\nreturn x * p"), line=6),
        # the mode handed on as a value is frozen too (gluoncv2's fractalnet)
        Invalid(_net("return self._join(F, x, training=autograd.is_training())"), line=6),
        Invalid(
            "from mxnet.autograd import is_training\n\n\nclass Net(HybridBlock):\n"
            "    def hybrid_forward(self, F, x):\n        while is_training():\n"
            "            break\n        return x\n",
            line=6,
        ),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # calls already reported by their branch, or never run while tracing
        self._reported: Set[cst.CSTNode] = set()

    def visit_If(self, node: cst.If) -> None:
        self._branch(node.test, "an `if`")

    def visit_While(self, node: cst.While) -> None:
        self._branch(node.test, "a `while`")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._branch(node.test, "a conditional expression")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # `F is nd and autograd.is_training()`: the right side never runs while tracing
        eager_only = classify_guard(node.left, self.namespace, self.state.module.namespace_kind)
        if eager_only[0 if isinstance(node.operator, cst.And) else 1]:
            self._reported.update(n for n in walk_nodes(node.right) if isinstance(n, cst.Call))

    def visit_Call(self, node: cst.Call) -> None:
        if node in self._reported:
            return
        function = self._mode_function(node)
        if function is not None:
            self.report(
                node,
                f"`{function}()` is read once, while tracing, when the block is hybridized: the "
                "value is frozen into the cached graph for every later call, in either mode; "
                + _ALTERNATIVES,
            )

    # -- helpers ---------------------------------------------------------------------------
    def _branch(self, test: cst.BaseExpression, what: str) -> None:
        for node in walk_nodes(test, stop=(cst.Lambda,)):
            if isinstance(node, cst.BooleanOperation):
                self.visit_BooleanOperation(node)
        for call in walk_nodes(test, stop=(cst.Lambda,)):
            if not isinstance(call, cst.Call) or call in self._reported:
                continue
            function = self._mode_function(call)
            if function is None:
                continue
            self._reported.add(call)
            self.report(
                call,
                f"{what} on `{function}()` is decided once, when hybridize() traces the graph: "
                "the cached graph keeps the first call's mode (MXNet 1.9.1 does not retrace per "
                "mode), so a training-only branch then runs in prediction too, or never in "
                "training, silently; " + _ALTERNATIVES,
            )

    def _mode_function(self, call: cst.Call) -> Optional[str]:
        """`autograd.is_training` (as written) when `call` calls one of the mode functions."""
        dotted = dotted_name(call.func)
        if not dotted or call.args:
            return None
        module = self.state.module
        qualified = module.qualify(dotted)
        if qualified in _MODE_FUNCTIONS:
            return dotted
        head = dotted.partition(".")[0]
        if (
            qualified is None
            and dotted in _CONVENTIONAL
            and head not in module.imports
            and head not in module.bound
            and head not in self.env
        ):
            return dotted
        return None
