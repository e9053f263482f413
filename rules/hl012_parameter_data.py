"""HL012 parameter-data: `self.weight.data()` inside hybrid_forward puts an NDArray in the graph."""
from __future__ import annotations

from typing import List, Optional, Set

import libcst as cst

from .analysis import PARAMETER
from .base import SAFE, UNSAFE, Invalid, Rule, Valid

# Reading these from the parameter's array is the same as reading them from the Parameter.
_STATIC = {"shape", "dtype", "context", "ctx", "stype", "size", "ndim"}
# Methods that turn the array into Python values: frozen at trace time, but they hybridize.
_EAGER_READS = {"asnumpy", "asscalar", "tolist", "wait_to_read", "copyto", "copy",
                "as_in_context"}

_INIT = ("    def __init__(self):\n        super().__init__()\n        with self.name_scope():\n"
         "            self.weight = self.params.get('weight', shape=(1, 3))\n\n")


def _net(signature: str, body: str) -> str:
    return ("class Net(HybridBlock):\n" + _INIT + f"    def hybrid_forward(self, {signature}):\n"
            + "".join("        " + line + "\n" for line in body.splitlines()))


def _param_names(params: cst.Parameters) -> Set[str]:
    names = [p.name.value for p in list(params.posonly_params) + list(params.params)
             + list(params.kwonly_params)]
    if isinstance(params.star_arg, cst.Param):
        names.append(params.star_arg.name.value)
    if params.star_kwarg is not None:
        names.append(params.star_kwarg.name.value)
    return set(names)


class _Uses(cst.CSTVisitor):
    """Names the function binds (assignments, loops, imports, nested defs) and names it reads."""

    def __init__(self) -> None:
        self.stored: Set[str] = set()
        self.loaded: Set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.loaded.add(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._store(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._store(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._store(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._store(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._store(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._store(node.asname.name)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._store(node.target)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stored.add(node.name.value)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        name = node.asname.name if node.asname is not None else node.name
        if isinstance(name, cst.Name):
            self.stored.add(name.value)

    def _store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.stored.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._store(element.value)
        elif isinstance(target, cst.StarredElement):
            self._store(target.value)


class ParameterData(Rule):
    code = "HL012"
    name = "parameter-data"
    message = ("`self.<param>.data()` inside hybrid_forward puts the parameter's NDArray into the Symbol "
               "graph (AssertionError / TypeError under hybridize); use the argument gluon passes")
    explanation = """\
## What it does
Finds `self.weight.data()` (any parameter or constant declared with `self.params.get`,
`self.params.get_constant`, `gluon.Parameter` or `gluon.Constant` in `__init__`) inside
`hybrid_forward` and the helpers it calls.

## Why it breaks under hybridize
Gluon passes every registered parameter to `hybrid_forward` as a keyword argument of the
attribute's name: an NDArray eagerly, a Symbol variable when hybridized. `self.weight.data()`
is always the NDArray, so after `hybridize()` it meets Symbols. MXNet 1.9.1 then fails:
`F.FullyConnected(x, self.weight.data(), ...)` raises `AssertionError: Argument weight must be
Symbol instances, but got <NDArray ...>`; `x * self.weight.data()` raises `TypeError: type
<class 'mxnet.ndarray.ndarray.NDArray'> not supported`. Read through `.asnumpy()` or
`.asscalar()`, the value is baked into the graph when it is traced and never follows later
updates of the parameter (training, `set_data`, `load_parameters`).

## Example
```python
def __init__(self):
    super().__init__()
    with self.name_scope():
        self.weight = self.params.get('weight', shape=(1, 3))

def hybrid_forward(self, F, x, weight):
    return F.broadcast_mul(x, self.weight.data())
```

## Fix
```python
def hybrid_forward(self, F, x, weight):
    return F.broadcast_mul(x, weight)
```
`self.<name>.data()` becomes the argument `<name>`. When the signature takes it only through
`**kwargs`, the fix adds it as a keyword-only parameter (`def hybrid_forward(self, F, x, *,
weight, **kwargs)`). In helpers, in functions that bind the name to something else, and for
parameters gluon does not pass (a child's, `self.child.weight.data()`), the finding has no fix.

## Fix safety
Safe when `.data()` (no arguments) is used as an array: gluon passes `param.data(ctx)` of the
input's context, the very NDArray `self.weight.data()` returns on one device, so the eager
outputs are unchanged, and hybridized it is the parameter's Symbol. Unsafe when the body also
uses `**kwargs` (the parameter leaves it), for `.data(ctx)` with an explicit context, and when
the array is used through a method or attribute (`self.weight.data().reshape(...)`: the
rewrite is exact eagerly, but a hybridized graph that only worked on the frozen value, such
as `.sum().asscalar()` after it, then fails loudly instead). Reads of `.shape`, `.dtype` and the
like are static and not reported; `.asnumpy()` / `.asscalar()` of the data are reported
without a fix (the graph needs the value as a tensor: rewrite that computation with `F`).
"""

    VALID = [
        Valid(_net("F, x, weight", "return F.broadcast_mul(x, weight)")),
        Valid(_net("F, x, weight", "return x.reshape((0, self.weight.data().shape[1]))")),
        Valid(_net("F, x, weight", "if F is mx.nd:\n    print(self.weight.data())\nreturn F.broadcast_mul(x, weight)")),
        Valid("class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
              "        self.table = {'a': 1}\n\n    def hybrid_forward(self, F, x):\n"
              "        return x * len(self.table)\n"),
        Valid(_net("F, x, weight", "return F.broadcast_mul(x, self.weight.data())  # hybridlint: ignore[HL012]")),
    ]
    INVALID = [
        Invalid(_net("F, x, weight", "return F.broadcast_mul(x, self.weight.data())"), line=8,
                fixed=_net("F, x, weight", "return F.broadcast_mul(x, weight)"), safety=SAFE),
        Invalid(_net("F, x, weight", "w = self.weight.data()\nreturn F.broadcast_add(x, w)"), line=8,
                fixed=_net("F, x, weight", "w = weight\nreturn F.broadcast_add(x, w)"), safety=SAFE),
        Invalid(_net("F, x, **kwargs", "return F.broadcast_mul(x, self.weight.data())"), line=8,
                fixed=_net("F, x, *, weight, **kwargs", "return F.broadcast_mul(x, weight)"), safety=SAFE),
        Invalid(_net("F, x, weight", "return F.broadcast_mul(x, self.weight.data().reshape((1, 3)))"), line=8,
                fixed=_net("F, x, weight", "return F.broadcast_mul(x, weight.reshape((1, 3)))"), safety=UNSAFE),
        Invalid(_net("F, x, weight", "return x * float(self.weight.data().asnumpy().sum())"), line=8),
        Invalid("class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                "        with self.name_scope():\n"
                "            self.const = self.params.get_constant('const', [[1.0, 2.0, 3.0]])\n\n"
                "    def hybrid_forward(self, F, x, const):\n"
                "        return F.broadcast_add(x, self.const.data())\n", line=8,
                fixed="class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
                      "        with self.name_scope():\n"
                      "            self.const = self.params.get_constant('const', [[1.0, 2.0, 3.0]])\n\n"
                      "    def hybrid_forward(self, F, x, const):\n"
                      "        return F.broadcast_add(x, const)\n", safety=SAFE),
    ]

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._static: Set[cst.CSTNode] = set()   # .data() calls whose static attributes are read
        self._chained: Set[cst.CSTNode] = set()  # .data() calls used through a method/attribute
        self._eager: Set[cst.CSTNode] = set()    # .data() calls read into Python values

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._parameter_of(node.value) is None:
            return
        attr = node.attr.value
        target = self._static if attr in _STATIC else self._eager if attr in _EAGER_READS else self._chained
        target.add(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        name = self._parameter_of(node)
        if name is None or node in self._static:
            return
        message = (f"`self.{name}.data()` is the parameter's NDArray: under hybridize it meets Symbols "
                   f"(AssertionError: Argument ... must be Symbol instances, or TypeError); use the "
                   f"argument `{name}` gluon passes to hybrid_forward")
        if node in self._eager:
            self.report(node, f"`self.{name}.data()` read into Python values inside hybrid_forward: under "
                              "hybridize the value is frozen into the graph when it is traced and never follows "
                              "updates of the parameter; compute with the argument "
                              f"`{name}` and F operators instead")
            return
        edits = self._fix(node, name)
        if edits is None:
            self.report(node, message)
            return
        unsafe = bool(node.args) or node in self._chained or edits[1]
        self.report(node, message, edits=edits[0], safety=UNSAFE if unsafe else SAFE)

    # -- helpers ---------------------------------------------------------------------------
    def _parameter_of(self, node: cst.BaseExpression) -> Optional[str]:
        """`self.<p>.data(...)` with <p> a declared parameter of the class -> "<p>"."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
                and node.func.attr.value == "data"):
            return None
        owner = node.func.value
        if not (isinstance(owner, cst.Attribute) and isinstance(owner.value, cst.Name)
                and owner.value.value == "self"):
            return None
        if self.facts is None or self.value(owner).kind != PARAMETER:
            return None
        return owner.attr.value

    def _fix(self, node: cst.Call, name: str):
        """(edits, unsafe) replacing the call by the injected argument, or None."""
        facts = self.facts
        if facts is None or facts.kind != "hybrid_forward":
            return None
        function = facts.node
        params = function.params
        uses = _Uses()
        function.body.visit(uses)
        if name in uses.stored:
            return None
        edits: List = [(node, cst.Name(name))]
        unsafe = False
        if name not in _param_names(params):
            if params.star_kwarg is None:
                return None   # gluon would have raised TypeError eagerly: not a parameter it passes
            unsafe = params.star_kwarg.name.value in uses.loaded
            new = cst.Param(name=cst.Name(name))
            star = params.star_arg if isinstance(params.star_arg, (cst.Param, cst.ParamStar)) else cst.ParamStar()
            kwonly = list(params.kwonly_params)
            kwonly = [p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in kwonly] + [new]
            edits.append((params, params.with_changes(star_arg=star, kwonly_params=kwonly)))
        return edits, unsafe
