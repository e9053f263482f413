"""HL010 non-hybrid-child: a HybridBlock whose `__init__` creates a non-hybrid Block child."""
from __future__ import annotations

from typing import Dict, List, Optional, Set

import libcst as cst

from .analysis import ClassFacts, dotted_name
from .base import SAFE, Invalid, Rule, Valid

_IMPORTS = "from mxnet import gluon\nfrom mxnet.gluon import nn\n\n\n"


def _net(init: str, extra: str = "") -> str:
    return (_IMPORTS + extra + "class Net(gluon.HybridBlock):\n    def __init__(self, **kwargs):\n"
            "        super(Net, self).__init__(**kwargs)\n"
            + "".join(f"        {line}\n" for line in init.splitlines())
            + "\n    def hybrid_forward(self, F, x):\n        return self.body(x)\n")


class NonHybridChild(Rule):
    code = "HL010"
    name = "non-hybrid-child"
    message = "a HybridBlock cannot have a non-hybrid child; use HybridSequential / HybridBlock children"
    explanation = """\
## What it does
Finds HybridBlock classes whose `__init__` creates a non-hybrid Block as a child: `nn.Sequential()`
(also `gluon.nn.Sequential`, `mx.gluon.nn.Sequential`), gluon's other plain Blocks (`nn.Lambda`,
`gluon.contrib.nn.Concurrent`, `rnn.SequentialRNNCell`, `rnn.RecurrentCell`, ...) or a class of
the same module that derives from `Block` and not `HybridBlock` — assigned to `self.<attr>`
directly or through a local variable.

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

    VALID = [
        Valid(_net("self.body = nn.HybridSequential()\nself.body.add(nn.Dense(4))")),
        Valid(_net("with self.name_scope():\n    self.body = nn.Dense(4)")),
        Valid("from mxnet import gluon\nfrom mxnet.gluon import nn\n\n\n"
              "class Net(gluon.Block):\n    def __init__(self):\n        super().__init__()\n"
              "        self.body = nn.Sequential()\n\n    def hybrid_forward(self, F, x):\n"
              "        return self.body(x)\n"),
        Valid(_net("self.body = nn.Sequential()  # hybridlint: ignore[HL010]")),
        Valid(_net("self.body = nn.HybridSequential()\nself.cache = dict()")),
    ]
    INVALID = [
        Invalid(_net("self.body = nn.Sequential()\nself.body.add(nn.Dense(8, activation='relu'), nn.Dense(2))"),
                line=8, fixed=_net("self.body = nn.HybridSequential()\n"
                                   "self.body.add(nn.Dense(8, activation='relu'), nn.Dense(2))"), safety=SAFE),
        Invalid(_net("with self.name_scope():\n    self.body = gluon.nn.Sequential(prefix='body_')\n"
                     "    for _ in range(2):\n        self.body.add(Cell())  # a module HybridBlock",
                     extra="class Cell(gluon.HybridBlock):\n    pass\n\n\n"),
                line=13, fixed=_net("with self.name_scope():\n    self.body = gluon.nn.HybridSequential(prefix='body_')\n"
                                    "    for _ in range(2):\n        self.body.add(Cell())  # a module HybridBlock",
                                    extra="class Cell(gluon.HybridBlock):\n    pass\n\n\n"), safety=SAFE),
        Invalid(_net("body = nn.Sequential()\nbody.add(nn.Dense(4))\nself.body = body"), line=8,
                fixed=_net("body = nn.HybridSequential()\nbody.add(nn.Dense(4))\nself.body = body"), safety=SAFE),
        Invalid(_net("self.body = nn.Sequential()\nself.body.add(Plain())",
                     extra="class Plain(gluon.Block):\n    pass\n\n\n"), line=12),
        Invalid(_net("self.body = nn.Sequential()\nself.body.add(*[nn.Dense(4) for _ in range(3)])"), line=8),
        Invalid(_net("self.body = Plain()", extra="class Plain(gluon.Block):\n    pass\n\n\n"), line=12),
        Invalid(_net("self.body = nn.Lambda(lambda x: x * 2)"), line=8),
    ]

    def check_class(self, klass: ClassFacts) -> None:
        context = self.state.module
        init = klass.methods.get("__init__")
        if init is None or context.hybrid_kind(klass.name) is not True:
            return
        creations = _ChildCreations()
        init.body.visit(creations)
        adds = _Adds()
        klass.node.visit(adds)
        for holder, created in creations.children:
            func = dotted_name(created.func)
            if context.hybrid_kind(func) is not False:
                continue
            gluon = context.gluon_class(func)
            shown = gluon or func
            message = (f"`{func}` is not a HybridBlock: MXNet refuses it as a child of HybridBlock "
                       f"`{klass.name}` (ValueError: Children of HybridBlock must also be HybridBlock, "
                       f"but {shown}(...) has type ...)")
            if gluon != "Sequential" or not isinstance(created.func, cst.Attribute):
                self.report(created, message + "; make it a HybridBlock")
                continue
            added = adds.by_holder.get(holder, [])
            if any(arg is None or context.hybrid_kind(dotted_name(arg.func)) is not True for arg in added) \
                    or holder in adds.unknown:
                self.report(created, message + "; use HybridSequential once every child added to it is hybrid")
                continue
            new_func = created.func.with_changes(attr=cst.Name("HybridSequential"))
            self.report(created, message + "; use HybridSequential",
                        replacement=created.with_changes(func=new_func), safety=SAFE)


class _ChildCreations(cst.CSTVisitor):
    """`self.a = Cls(...)` and `v = Cls(...)` ... `self.a = v` in __init__: (holder, call) pairs.

    The holder is "self.a" for attributes and the local name for variables (adds use either).
    """

    def __init__(self) -> None:
        super().__init__()
        self.children: List[tuple] = []
        self._locals: Dict[str, cst.Call] = {}
        self._emitted: Set[int] = set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            holder = dotted_name(target.target)
            if holder is None:
                continue
            if holder.startswith("self.") and holder.count(".") == 1:
                if isinstance(node.value, cst.Call):
                    self.children.append((holder, node.value))
                elif isinstance(node.value, cst.Name) and node.value.value in self._locals:
                    local = node.value.value
                    self.children.append((local, self._locals[local]))
            elif "." not in holder and isinstance(node.value, cst.Call):
                self._locals[holder] = node.value


class _Adds(cst.CSTVisitor):
    """`<holder>.add(a, b, ...)` calls anywhere in the class: the calls added per holder
    (None for an argument that is not a call); holders with `*args` adds are unknown."""

    def __init__(self) -> None:
        super().__init__()
        self.by_holder: Dict[str, List[Optional[cst.Call]]] = {}
        self.unknown: Set[str] = set()

    def visit_Call(self, node: cst.Call) -> None:
        if not (isinstance(node.func, cst.Attribute) and node.func.attr.value == "add"):
            return
        holder = dotted_name(node.func.value)
        if holder is None:
            return
        for arg in node.args:
            if arg.star or arg.keyword is not None:
                self.unknown.add(holder)
            self.by_holder.setdefault(holder, []).append(arg.value if isinstance(arg.value, cst.Call) else None)
