"""HL010 non-hybrid-child: a HybridBlock whose `__init__` creates a non-hybrid Block child."""

from __future__ import annotations

from typing import Dict, List, Optional, Set

import libcst as cst

from ._examples import constructor, net
from .analysis import ClassFacts, dotted_name
from .base import SAFE, Invalid, Rule, Valid, valid_table
from .values import walk_nodes

_IMPORTS = "from mxnet import gluon\nfrom mxnet.gluon import nn\n\n\n"


_CELL = "class Cell(gluon.HybridBlock):\n    def hybrid_forward(self, F, x):\n        return F.relu(x)\n\n\n"


def _net(init: str, extra: str = "") -> str:
    """A `Net` whose `__init__(**kwargs)` runs `init` and whose hybrid_forward returns
    `self.body(x)`: this rule's examples differ in the children `__init__` builds."""
    return net(
        "return self.body(x)",
        head=_IMPORTS + extra,
        init=constructor("super(Net, self).__init__(**kwargs)\n" + init),
        base="gluon.HybridBlock",
    )


class NonHybridChild(Rule):
    code = "HL010"
    name = "non-hybrid-child"
    message = (
        "a HybridBlock cannot have a non-hybrid child; use HybridSequential / HybridBlock children"
    )
    explanation = """\
## What it does
Finds HybridBlock classes whose `__init__` creates a non-hybrid Block as a child: `nn.Sequential()`
(also `gluon.nn.Sequential`, `mx.gluon.nn.Sequential`), gluon's other plain Blocks (`nn.Lambda`,
`gluon.contrib.nn.Concurrent`, `rnn.SequentialRNNCell`, `rnn.RecurrentCell`, ...) or a class of
the same module that derives from `Block` and not `HybridBlock` — assigned to `self.<attr>`
directly or through a local variable, added to a hybrid container (`self.features.add(...)`),
or built and returned by a helper method whose result `__init__` stores (`_make_layer`).

## Why it breaks under hybridize
MXNet 1.9.1 refuses the child as soon as it is assigned, in `__init__` (before any hybridize):
`ValueError: Children of HybridBlock must also be HybridBlock, but Sequential(...) has type
<class 'mxnet.gluon.nn.basic_layers.Sequential'>. If you are using Sequential, please try
HybridSequential instead.` A non-hybrid child could not be traced into the graph anyway.

## Example
```python
class Head(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Head, self).__init__(**kwargs)
        self.body = nn.Sequential()
        self.body.add(nn.Dense(64, activation='relu'), nn.Dense(10))
```

## Fix
`nn.Sequential()` → `nn.HybridSequential()` (the namespace is kept as written), when every
child added to it (`.add(...)` anywhere in the class) is known to be hybrid: gluon's hybrid
layers or HybridBlock classes of the same module.

## Fix safety
Safe when all children are known hybrid: HybridSequential runs its children in order exactly as
Sequential does (the same `forward` loop, eagerly; hybridized it traces that loop). Parameter
*names* change with the block's default prefix (`hybridsequential0_` instead of
`sequential0_`), which matters only to `collect_params().save` files — files that MXNet 1.9.1
could never have written for this class, since it cannot be constructed. With an unknown or
non-hybrid child (or `.add(*layers)`), and for other non-hybrid classes, it is reported only.
"""

    VALID = valid_table(
        _net,
        "self.body = nn.HybridSequential()\nself.body.add(nn.Dense(4))",
        "with self.name_scope():\n    self.body = nn.Dense(4)",
        Valid(
            "from mxnet import gluon\nfrom mxnet.gluon import nn\n\n\n"
            "class Net(gluon.Block):\n    def __init__(self):\n        super().__init__()\n"
            "        self.body = nn.Sequential()\n\n    def hybrid_forward(self, F, x):\n"
            "        return self.body(x)\n"
        ),
        "self.body = nn.Sequential()  # hybridlint: ignore[HL010]",
        "self.body = nn.HybridSequential()\nself.cache = dict()",
    )
    INVALID = [
        Invalid(
            _net(
                "self.body = nn.Sequential()\nself.body.add(nn.Dense(8, activation='relu'), nn.Dense(2))"
            ),
            line=8,
            fix=("nn.Sequential()", "nn.HybridSequential()"),
            safety=SAFE,
        ),
        Invalid(
            _net(
                "with self.name_scope():\n    self.body = gluon.nn.Sequential(prefix='body_')\n"
                "    for _ in range(2):\n        self.body.add(Cell())  # a module HybridBlock",
                extra=_CELL,
            ),
            line=14,
            fix=(
                "gluon.nn.Sequential(prefix='body_')",
                "gluon.nn.HybridSequential(prefix='body_')",
            ),
            safety=SAFE,
        ),
        Invalid(
            _net("body = nn.Sequential()\nbody.add(nn.Dense(4))\nself.body = body"),
            line=8,
            fix=("nn.Sequential()", "nn.HybridSequential()"),
            safety=SAFE,
        ),
        Invalid(
            _net("self.body = self._make_stage(2)").replace(
                "\n    def hybrid_forward",
                "\n    def _make_stage(self, n):\n        stage = nn.Sequential()\n"
                "        for _ in range(n):\n            stage.add(nn.Dense(4))\n        return stage\n\n"
                "    def hybrid_forward",
            ),
            line=11,
            fix=("nn.Sequential()", "nn.HybridSequential()"),
            safety=SAFE,
        ),
        Invalid(
            _net(
                "self.body = nn.HybridSequential()\nfor i in range(2):\n    stage = nn.Sequential()\n"
                "    stage.add(nn.Dense(4))\n    self.body.add(stage)"
            ),
            line=10,
            fix=("nn.Sequential()", "nn.HybridSequential()"),
            safety=SAFE,
        ),
        Invalid(
            _net("self.body = nn.HybridSequential()\nself.body.add(nn.Dense(4), nn.Sequential())"),
            line=9,
        ),
        Invalid(
            _net(
                "self.body = nn.Sequential()\nself.body.add(Plain())",
                extra="class Plain(gluon.Block):\n    pass\n\n\n",
            ),
            line=12,
        ),
        Invalid(
            _net("self.body = nn.Sequential()\nself.body.add(*[nn.Dense(4) for _ in range(3)])"),
            line=8,
        ),
        Invalid(
            _net("self.body = Plain()", extra="class Plain(gluon.Block):\n    pass\n\n\n"), line=12
        ),
        Invalid(_net("self.body = nn.Lambda(lambda x: x * 2)"), line=8),
    ]

    def check_class(self, klass: ClassFacts) -> None:
        context = self.state.module
        init = klass.methods.get("__init__")
        if init is None or context.hybrid_kind(klass.name) is not True:
            return
        if not _may_create_non_hybrid(klass, init, context):
            return  # the common case: nothing to report, and no LibCST walk paid for it
        adds: Optional[_Adds] = None  # computed when a Sequential child needs it
        for holder, created in _children(
            klass, init, lambda name: context.hybrid_kind(name) is True
        ):
            func = dotted_name(created.func)
            if context.hybrid_kind(func) is not False:
                continue
            gluon = context.gluon_class(func)
            shown = gluon or func
            message = (
                f"`{func}` is not a HybridBlock: MXNet refuses it as a child of HybridBlock "
                f"`{klass.name}` (ValueError: Children of HybridBlock must also be HybridBlock, "
                f"but {shown}(...) has type ...)"
            )
            if gluon != "Sequential" or not isinstance(created.func, cst.Attribute):
                self.report(created, message + "; make it a HybridBlock")
                continue
            if adds is None:
                adds = _Adds(klass.node)
            added = adds.by_holder.get(holder, []) if holder is not None else []
            if (
                holder is None
                or holder in adds.unknown
                or any(  # anonymous: its adds are not visible
                    arg is None or context.hybrid_kind(dotted_name(arg.func)) is not True
                    for arg in added
                )
            ):
                self.report(
                    created,
                    message + "; use HybridSequential once every child added to it is hybrid",
                )
                continue
            new_func = created.func.with_changes(attr=cst.Name("HybridSequential"))
            self.report(
                created,
                message + "; use HybridSequential",
                replacement=created.with_changes(func=new_func),
                safety=SAFE,
            )


class _ChildCreations(cst.CSTVisitor):
    """Child blocks created in one method: (holder, creating call) pairs.

    A call is a child when it is assigned to `self.<a>` (holder "self.a"), assigned to a local
    later stored in `self.<a>`, added to a container known to be hybrid, or returned (for
    helper methods whose result `__init__` stores). The holder is the name `.add(...)` calls
    use: "self.a" or the local name.
    """

    def __init__(self, is_hybrid) -> None:
        super().__init__()
        self.children: List[tuple] = []
        self.returned: List[tuple] = []
        self.helper_calls: List[str] = []  # self.<method>(...) results stored as children
        self._locals: Dict[str, cst.Call] = {}
        self._hybrid_holders: Set[str] = set()
        self._is_hybrid = is_hybrid

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            holder = dotted_name(target.target)
            if holder is None:
                continue
            value = node.value
            if holder.startswith("self.") and holder.count(".") == 1:
                if isinstance(value, cst.Call):
                    callee = dotted_name(value.func) or ""
                    if callee.startswith("self.") and callee.count(".") == 1:
                        self.helper_calls.append(callee[len("self.") :])
                    else:
                        self._child(holder, value)
                elif isinstance(value, cst.Name) and value.value in self._locals:
                    self._child(value.value, self._locals[value.value])
            elif "." not in holder and isinstance(value, cst.Call):
                self._locals[holder] = value
                if self._is_hybrid(dotted_name(value.func)):
                    self._hybrid_holders.add(holder)

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Attribute) and node.func.attr.value == "add"):
            return
        if dotted_name(node.func.value) not in self._hybrid_holders:
            return
        for arg in node.args:
            if isinstance(arg.value, cst.Call):
                self._child(None, arg.value)
            elif isinstance(arg.value, cst.Name) and arg.value.value in self._locals:
                self._child(arg.value.value, self._locals[arg.value.value])

    def visit_Return(self, node: cst.Return) -> None:
        if isinstance(node.value, cst.Name) and node.value.value in self._locals:
            self.returned.append((node.value.value, self._locals[node.value.value]))

    def _child(self, holder: Optional[str], call: cst.Call) -> None:
        self.children.append((holder, call))
        if holder is not None and self._is_hybrid(dotted_name(call.func)):
            self._hybrid_holders.add(holder)


def _children(klass: ClassFacts, init: cst.FunctionDef, is_hybrid) -> List[tuple]:
    """Children created by __init__ and by the helper methods whose results it stores."""
    creations = _ChildCreations(is_hybrid)
    init.body.visit(creations)
    found = list(creations.children)
    for method_name in dict.fromkeys(creations.helper_calls):
        method = klass.methods.get(method_name)
        if method is None or method is init:
            continue
        helper = _ChildCreations(is_hybrid)
        method.body.visit(helper)
        found.extend(helper.children)
        found.extend(helper.returned)
    seen: Set[int] = set()
    unique = []
    for holder, call in found:
        if id(call) not in seen:
            seen.add(id(call))
            unique.append((holder, call))
    return unique


class _Adds:
    """`<holder>.add(a, b, ...)` calls anywhere in the class: the calls added per holder
    (None for an argument that is not a call); holders with `*args` adds are unknown."""

    def __init__(self, node: cst.CSTNode) -> None:
        self.by_holder: Dict[str, List[Optional[cst.Call]]] = {}
        self.unknown: Set[str] = set()
        for call in _calls(node):
            if not (isinstance(call.func, cst.Attribute) and call.func.attr.value == "add"):
                continue
            holder = dotted_name(call.func.value)
            if holder is None:
                continue
            for arg in call.args:
                if arg.star or arg.keyword is not None:
                    self.unknown.add(holder)
                self.by_holder.setdefault(holder, []).append(
                    arg.value if isinstance(arg.value, cst.Call) else None
                )


def _may_create_non_hybrid(klass: ClassFacts, init: cst.FunctionDef, context) -> bool:
    """False when no child `_children` can find is a certain non-hybrid Block.

    Every child `_children` returns is a call in `__init__`'s body or in the body of a method
    that `__init__` calls as `self.<m>(...)`; so when none of those calls names a class that
    `hybrid_kind` calls non-hybrid, HL010 has nothing to report. This check is one cheap pass
    (`_calls`) over those bodies: nearly every HybridBlock passes it, and only the rare class
    that fails it pays for `_children`'s order-sensitive LibCST walks.
    """
    calls = _calls(init.body)
    for call in list(calls):
        callee = dotted_name(call.func) or ""
        if callee.startswith("self.") and callee.count(".") == 1:
            method = klass.methods.get(callee[len("self.") :])
            if method is not None and method is not init:
                calls.extend(_calls(method.body))
    return any(context.hybrid_kind(dotted_name(call.func)) is False for call in calls)


def _calls(node: cst.CSTNode) -> List[cst.Call]:
    """Every Call below `node` (nested defs, lambdas and classes included), in no set order.

    Read with :func:`values.walk_nodes` (the nodes' fields, layout skipped): LibCST's `visit`
    rebuilds every node it passes, which made HL010's whole-class walks about a third of the
    linter's time on a model repository.
    """
    return [current for current in walk_nodes(node) if isinstance(current, cst.Call)]
