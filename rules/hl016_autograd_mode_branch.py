"""HL016 autograd-mode-branch: `autograd.is_training()` / `is_recording()` read in traced code."""

from __future__ import annotations

from functools import partial
from typing import Dict, Optional, Set

import libcst as cst

from ._examples import net
from .analysis import dotted_name
from .base import Invalid, Rule, Valid, invalid_table, valid_table
from .guards import classify_guard
from .values import parent_map, walk_nodes

# what the functions are, qualified (`ModuleContext.qualify`)
_MODE_FUNCTIONS = {"mxnet.autograd.is_training", "mxnet.autograd.is_recording"}
# spellings taken for them when the module binds their head nowhere (snippets, notebooks)
_CONVENTIONAL = {
    "autograd.is_training",
    "autograd.is_recording",
    "mx.autograd.is_training",
    "mx.autograd.is_recording",
}


_net = partial(net, head="from mxnet import autograd\n\n\n")


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
Off by default: turn it on with `--select HL016`, `--extend-select HL016` or
`extend-select = ["HL016"]` (a prefix or `ALL` leaves it off). On real code most reports are
inside detector heads whose parent's mode switch MXNet refuses loudly (below), which the rule
cannot see from the child.

## What it does
Finds `autograd.is_training()` and `autograd.is_recording()` (`mx.autograd.…`, or imported
from `mxnet.autograd`) read inside `hybrid_forward` and the helpers it calls: in an `if`,
`while` or conditional expression (`p if autograd.is_training() else 0.`, `if not
autograd.is_training() or self.p <= 0: return x`), or as a value (`training=is_training()`).

## Why it breaks under hybridize
The call returns a Python bool, so the branch is decided once, when the block is traced at
its first hybridized call. MXNet 1.9.1 builds the CachedOp once and does not retrace per mode:
operators read the mode at every call (`Dropout`, `BatchNorm`), the Python that built the graph
does not. So a hybridized DropBlock-style `if autograd.is_training(): x = x * mask` keeps its
first call's mode, silently (reproduced): drops in prediction too, or never in training.
Python randomness in the branch (`np.random.binomial`) is drawn once, while tracing, too.

Not reported: a `hybrid_forward` with an optional input (`*args`, `gt_box=None`) read on
training sides only (and in mode tests): its training calls pass inputs its prediction calls
do not, and MXNet refuses the cached graph when the argument structure changes (`ValueError:
... does not match the cached version`, reproduced), so a mode switch fails loudly. Blocks
traced inside such a parent (YOLO output layers, an R-CNN's RPN) are still reported: whether
the parent refuses is not visible from the child.

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

    VALID = valid_table(
        _net,
        "return F.Dropout(x, p=0.5)",
        # YOLOV3-like: training calls pass targets, prediction calls only x; MXNet refuses the
        # cached graph on a mode switch (ValueError) instead of running the traced mode
        Valid(
            _net(
                "if len(args) != 0 and not autograd.is_training():\n    raise TypeError('x only')\n"
                "if autograd.is_training():\n    return self._loss(x, *args)\nreturn x",
                signature="F, x, *args",
            )
        ),
        Valid(
            _net(
                "if autograd.is_training():\n    return self.sampler(x, gt_box)\nreturn x",
                signature="F, x, gt_box=None",
            )
        ),
        # eager-only: an `F is nd` branch is never traced
        "if F is mx.nd and autograd.is_training():\n    x = x * 0.5\nreturn x",
        # a plain Block's forward runs on every call
        Valid(
            "from mxnet import autograd\n\n\nclass Net(Block):\n    def forward(self, x):\n"
            "        if autograd.is_training():\n            x = x * 0.5\n        return x\n"
        ),
        # the block's own method of that name, not autograd's
        "if self.is_training():\n    x = x * 0.5\nreturn x",
        "if autograd.is_training():  # hybridlint: ignore[HL016]\n    x = x * 0.5\nreturn x",
    )
    INVALID = invalid_table(
        _net,
        ("if autograd.is_training():\n    x = x * 0.5\nreturn x", 6),
        # gluoncv's DropBlock
        Invalid(
            "import mxnet as mx\n\n\nclass DropBlock(HybridBlock):\n"
            "    def hybrid_forward(self, F, x):\n"
            "        if not mx.autograd.is_training() or self.drop_prob <= 0:\n"
            "            return x\n        return F.Dropout(x, p=self.drop_prob)\n",
            line=6,
        ),
        ("p = self.p if autograd.is_recording() else 0.0\nreturn x * p", 6),
        # an RPN-like block: its `*x` (features) are read in both modes, so calls do not differ
        Invalid(
            _net(
                "n = 2000 if autograd.is_training() else 300\nreturn self.propose(x[0], n)",
                signature="F, img, *x",
            ),
            line=6,
        ),
        # the mode handed on as a value is frozen too (gluoncv2's fractalnet)
        ("return self._join(F, x, training=autograd.is_training())", 6),
        Invalid(
            "from mxnet.autograd import is_training\n\n\nclass Net(HybridBlock):\n"
            "    def hybrid_forward(self, F, x):\n        while is_training():\n"
            "            break\n        return x\n",
            line=6,
        ),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # calls already reported by their branch, or never run while tracing
        self._reported: Set[cst.CSTNode] = set()
        # hybrid_forward -> the optional input only its training side reads (None: no such input)
        self._mode_inputs: Dict[cst.FunctionDef, Optional[str]] = {}

    def visit_If(self, node: cst.If) -> None:
        self._branch(node.test, "an `if`")

    def visit_While(self, node: cst.While) -> None:
        self._branch(node.test, "a `while`")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._branch(node.test, "a conditional expression")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        # `F is nd and autograd.is_training()`: the right side never runs while tracing
        module = self.state.module
        eager_only = classify_guard(
            node.left, self.namespace, module.namespace_kind, predicates=module.predicates
        )
        if eager_only[0 if isinstance(node.operator, cst.And) else 1]:
            self._reported.update(n for n in walk_nodes(node.right) if isinstance(n, cst.Call))

    def visit_Call(self, node: cst.Call) -> None:
        if node in self._reported or self._switch_refused():
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
        if self._switch_refused():
            return
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

    def _switch_refused(self) -> bool:
        """Whether the block being walked cannot reuse its cached graph across modes: its
        hybrid_forward has an optional input (`*args`, `=None`) that only training sides read, so
        training calls pass more inputs than prediction calls and MXNet 1.9.1 refuses the cached
        graph on a mode switch (`ValueError: The argument structure of HybridBlock does not match
        the cached version`) instead of running it in the traced mode."""
        facts = self.facts
        if facts is None or facts.kind != "hybrid_forward":
            return False
        function = facts.node
        if function not in self._mode_inputs:
            self._mode_inputs[function] = self._training_only_input(function)
        return self._mode_inputs[function] is not None

    def _training_only_input(self, function: cst.FunctionDef) -> Optional[str]:
        """The first optional input of `function` read on a training side of a mode branch
        and nowhere else but in mode tests (`if args and not autograd.is_training(): raise`)."""
        params = function.params
        optional = [
            p.name.value
            for p in (*params.params, *params.kwonly_params)
            if isinstance(p.default, cst.Name) and p.default.value == "None"
        ]
        if isinstance(params.star_arg, cst.Param):
            optional.append(params.star_arg.name.value)
        if not optional:
            return None
        parents = parent_map(function.body)
        sides: Dict[str, Set[str]] = {name: set() for name in optional}
        for node in walk_nodes(function.body):
            if isinstance(node, cst.Name) and node.value in sides and _is_read(node, parents):
                sides[node.value].add(self._side(node, parents))
        for name in optional:
            if sides[name] and "training" in sides[name] and sides[name] <= {"training", "test"}:
                return name
        return None

    def _side(self, node: cst.CSTNode, parents: Dict[cst.CSTNode, cst.CSTNode]) -> str:
        """Where `node` runs: "training" / "prediction" (the side of the innermost mode branch
        that decides it), "test" (in a mode branch's test), or "both"."""
        child, parent = node, parents.get(node)
        while parent is not None:
            if isinstance(parent, (cst.If, cst.IfExp, cst.While)) and self._is_mode_test(
                parent.test
            ):
                if child is parent.test:
                    return "test"
                truth = child is parent.body
                side = _mode_side(parent.test, truth, self._mode_function)
                if side is not None:
                    return side
            child, parent = parent, parents.get(parent)
        return "both"

    def _is_mode_test(self, test: cst.BaseExpression) -> bool:
        return any(
            isinstance(n, cst.Call) and self._mode_function(n) is not None
            for n in walk_nodes(test, stop=(cst.Lambda,))
        )


def _is_read(name: cst.Name, parents: Dict[cst.CSTNode, cst.CSTNode]) -> bool:
    """Whether this `Name` reads the variable (not an attribute, keyword or parameter name)."""
    parent = parents.get(name)
    if isinstance(parent, cst.Attribute) and parent.attr is name:
        return False
    if isinstance(parent, cst.Arg) and parent.keyword is name:
        return False
    return not isinstance(parent, (cst.Param, cst.FunctionDef, cst.ClassDef))


def _mode_side(test: cst.BaseExpression, truth: bool, mode_function) -> Optional[str]:
    """The mode that `test` evaluating to `truth` implies: "training" (is_training() or
    is_recording() is true), "prediction", or None when it does not settle it."""
    if isinstance(test, cst.Call) and mode_function(test) is not None:
        return "training" if truth else "prediction"
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _mode_side(test.expression, not truth, mode_function)
    if isinstance(test, cst.BooleanOperation):
        left = _mode_side(test.left, truth, mode_function)
        right = _mode_side(test.right, truth, mode_function)
        # `a and b` true (`a or b` false) settles what either settles; the other outcome only
        # what both settle alike
        if truth == isinstance(test.operator, cst.And):
            if left is not None and right is not None and left != right:
                return None
            return left or right
        return left if left == right else None
    return None
