"""HL012 parameter-data: `self.weight.data()` inside hybrid_forward puts an NDArray in the graph."""

from __future__ import annotations

from functools import partial
from typing import AbstractSet, Dict, List, Optional, Set, Tuple

import libcst as cst

from ..cstwalk import walk
from ..mxnet_facts import DEFERRED_LAYER_PARAMETERS, LAYER_PARAMETERS
from ._constant_param import fresh_name, init_attribute, init_edit, signature_edit, taken_names
from .analysis import PARAMETER, ClassFacts, dotted_name
from .values import (
    NameBindings,
    class_method,
    last_name,
    parameter_names,
    self_attribute_name,
    walk_nodes,
)
from ._examples import constructor, net
from .base import SAFE, UNSAFE, Invalid, Rule, Valid

# Reading these from the parameter's array is the same as reading them from the Parameter.
_STATIC = {"shape", "dtype", "context", "ctx", "stype", "size", "ndim"}
# Methods that turn the array into Python values: frozen at trace time, but they hybridize.
_EAGER_READS = {"asnumpy", "asscalar", "tolist", "wait_to_read", "copyto", "copy", "as_in_context"}

_INIT = constructor(
    "super().__init__()\nwith self.name_scope():\n"
    "    self.weight = self.params.get('weight', shape=(1, 3))",
    "",
)


_TIED = (
    "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
    "        with self.name_scope():\n            self.embed = nn.Embedding(4, 3)\n"
    "            self.cell = nn.Dense(3, flatten=False)\n"
)


def _initialized(value: str, imports: str = "import numpy as np\n") -> str:
    """A block whose parameter is initialized by `init.Constant(<value>)`."""
    return (
        imports + "from mxnet import init\nfrom mxnet.gluon import HybridBlock\n\n\n"
        "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
        "        with self.name_scope():\n"
        f"            self.scale = self.params.get('scale', shape=(1, 3), init=init.Constant({value}))\n\n"
        "    def hybrid_forward(self, F, x, scale):\n        return F.broadcast_mul(x, scale)\n"
    )


# every example's block has a `weight` parameter
_net = partial(net, init=_INIT)


def _init_assignments(init: Optional[cst.FunctionDef]) -> List[Tuple[str, cst.BaseExpression]]:
    """(attr, value) of every `self.<attr> = value` in `init`."""
    found: List[Tuple[str, cst.BaseExpression]] = []

    class Assignments(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                attr = self_attribute_name(target.target)
                if attr is not None:
                    found.append((attr, node.value))

    if init is not None:
        init.visit(Assignments())
    return found


_DIRECT = {
    "mxnet.gluon.Parameter": "Parameter",
    "mxnet.gluon.parameter.Parameter": "Parameter",
    "mxnet.gluon.Constant": "Constant",
    "mxnet.gluon.parameter.Constant": "Constant",
}


def _direct_parameters(init: cst.FunctionDef, qualify) -> List[Tuple[str, cst.Call, str]]:
    """(attr, call, "Parameter"/"Constant") of each `self.<attr> = gluon.Parameter(...)`
    in `init`."""
    found = []
    for node in walk_nodes(init.body, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if not (isinstance(node, cst.Assign) and isinstance(node.value, cst.Call)):
            continue
        kind = _DIRECT.get(qualify(dotted_name(node.value.func)) or "")
        if kind is None:
            continue
        for target in node.targets:
            attr = self_attribute_name(target.target)
            if attr is not None:
                found.append((attr, node.value, kind))
    return found


def _registers_by_hand(klass: cst.ClassDef) -> bool:
    """The class touches gluon's registries itself (`self.params.update(...)`,
    `self._params`, `self._reg_params`): what `collect_params()` holds is not what it seems."""
    for node in walk_nodes(klass.body):
        if isinstance(node, cst.Attribute) and node.attr.value in ("_params", "_reg_params"):
            return True
        if (
            isinstance(node, cst.Attribute)
            and node.attr.value == "update"
            and self_attribute_name(node.value) == "params"
        ):
            return True
    return False


def _child_call(klass: cst.ClassDef, child: str) -> Optional[cst.Call]:
    """The call of `self.<child> = Ctor(...)` in the class's own `__init__` (assigned exactly
    once), else None."""
    values = [
        value for attr, value in _init_assignments(class_method(klass, "__init__")) if attr == child
    ]
    if len(values) != 1 or not isinstance(values[0], cst.Call):
        return None
    return values[0]


def _child_constructor(klass: cst.ClassDef, child: str) -> Optional[str]:
    """The dotted constructor of `self.<child> = Ctor(...)` in the class's own `__init__`
    (assigned exactly once), else None."""
    call = _child_call(klass, child)
    return None if call is None else dotted_name(call.func)


def _deferred(call: cst.Call, param: str, child_class: Optional[cst.ClassDef]) -> bool:
    """Whether the child built by `call` may leave `param` waiting for its first input to get
    a shape (deferred initialization): a gluon layer not given the input's size
    (`nn.Dense(1)`, no `in_units`: mxnet_facts.DEFERRED_LAYER_PARAMETERS), or an in-module
    block declaring it with `allow_deferred_init` or a 0 in a literal shape."""
    layer = (dotted_name(call.func) or "").split(".")[-1]
    if layer in DEFERRED_LAYER_PARAMETERS:
        argument, sized = DEFERRED_LAYER_PARAMETERS[layer]
        if param not in sized:
            return False
        given = [
            a.value for a in call.args if a.keyword is not None and a.keyword.value == argument
        ]
        if any(a.star for a in call.args):
            return True  # `**kwargs` may or may not hold the size
        return not given or (isinstance(given[0], cst.Integer) and given[0].evaluated_value == 0)
    if child_class is None:
        return False
    for attr, value in _init_assignments(class_method(child_class, "__init__")):
        if attr != param or not isinstance(value, cst.Call):
            continue
        for arg in value.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword == "allow_deferred_init" and not (
                isinstance(arg.value, cst.Name) and arg.value.value == "False"
            ):
                return True
            if keyword == "shape" and isinstance(arg.value, cst.Tuple):
                if any(
                    isinstance(e.value, cst.Integer) and e.value.evaluated_value == 0
                    for e in arg.value.elements
                ):
                    return True
    return False


def _declared_parameters(klass: cst.ClassDef) -> Set[str]:
    """Attributes an in-module block's `__init__` sets to `self.params.get(...)` and the like."""
    names = set()
    for attr, value in _init_assignments(class_method(klass, "__init__")):
        if isinstance(value, cst.Call) and last_name(value.func) in (
            "get",
            "get_constant",
            "Parameter",
            "Constant",
        ):
            names.add(attr)
    return names


def _registered_as(init: cst.FunctionDef, child: str, param: str) -> Optional[str]:
    """The name under which `__init__` already registers `self.<child>.<param>`, if any."""
    for attr, value in _init_assignments(init):
        if dotted_name(value) == f"self.{child}.{param}":
            return attr
    return None


def _data_owner(node: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """`<owner>` of a `<owner>.data(...)` call (a Parameter read by value), else None."""
    if (
        isinstance(node, cst.Call)
        and isinstance(node.func, cst.Attribute)
        and node.func.attr.value == "data"
    ):
        return node.func.value
    return None


class _ChildDataCalls(cst.CSTVisitor):
    """Every `self.<child>.<param>.data(...)` of a body; `plain` the ones not read through an
    attribute (`.data().reshape(...)`, `.data().shape`)."""

    def __init__(self, child: str, param: str) -> None:
        self.dotted = f"self.{child}.{param}.data"
        self.found: List[cst.Call] = []
        self.chained: Set[cst.CSTNode] = set()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if isinstance(node.value, cst.Call) and dotted_name(node.value.func) == self.dotted:
            self.chained.add(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        if dotted_name(node.func) == self.dotted:
            self.found.append(node)

    @property
    def plain(self) -> List[cst.Call]:
        return [c for c in self.found if c not in self.chained]


class _Uses(NameBindings):
    """Names the function binds (assignments, loops, imports, nested defs) and names it reads."""

    def __init__(self) -> None:
        self.stored: Set[str] = set()
        self.loaded: Set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.loaded.add(node.value)

    def bind_name(self, name: cst.Name) -> None:
        self.stored.add(name.value)

    def visit_ImportAlias(self, node: cst.ImportAlias) -> None:
        name = node.asname.name if node.asname is not None else node.name
        if isinstance(name, cst.Name):
            self.stored.add(name.value)

    @classmethod
    def of(cls, function: cst.FunctionDef) -> "_Uses":
        uses = cls()
        function.body.visit(uses)
        return uses


# MXNet 1.9.1's Constant initializer, however imported (`init`, `mx.init`, `mx.initializer`)
_CONSTANT_INITIALIZERS = {"mxnet.init.Constant", "mxnet.initializer.Constant"}


def _listy_value(expr: cst.BaseExpression) -> bool:
    """A list or tuple display, or `<expr>.tolist()`: a Python sequence, never a number or a
    numpy array (the two values `Constant.dumps` serializes)."""
    if isinstance(expr, (cst.List, cst.Tuple)):
        return True
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and expr.func.attr.value == "tolist"
        and not expr.args
    )


def _single_element(expr: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The element of a one-element list or tuple display (`[v]`, `(v,)`), else None."""
    if isinstance(expr, (cst.List, cst.Tuple)) and len(expr.elements) == 1:
        element = expr.elements[0]
        if isinstance(element, cst.Element):  # not `*rest`
            return element.value
    return None


def _number_literal(expr: cst.BaseExpression) -> bool:
    """`2`, `0.5`, `-1e-3`: a number whatever the names around it mean. An integer from 2**53
    on is not: MXNet fills with a scalar through a double, so `Constant(9007199254740993)`
    gives an int64 parameter ...992 where `Constant([9007199254740993])` gives ...993."""
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        expr = expr.expression
    if isinstance(expr, cst.Integer):
        return abs(int(expr.evaluated_value)) < 2**53
    return isinstance(expr, cst.Float)


class _ConstantInitializers(cst.CSTVisitor):
    """Every `Constant(<list>)` call of a class body (`_listy_value`), also of a name its
    function binds, apart from that call, only to list displays or comprehensions (LQ-Nets'
    `init_basis = [[...] for i in range(n)]`, then `init_basis = mx.init.Constant(init_basis)`;
    an empty `[]` then filled by appends)."""

    def __init__(self, qualify) -> None:
        self.qualify = qualify
        self.direct: List[cst.Call] = []
        self.named: List[Tuple[cst.Call, int, str]] = []  # (call, function, name)
        self.bound: Dict[Tuple[int, str], List[cst.BaseExpression]] = {}
        self.functions: List[int] = [0]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.functions.append(id(node))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.functions.pop()

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                key = (self.functions[-1], target.target.value)
                self.bound.setdefault(key, []).append(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        if self.qualify(dotted_name(node.func)) not in _CONSTANT_INITIALIZERS:
            return
        if len(node.args) != 1:
            return
        arg = node.args[0]
        keyword = arg.keyword.value if arg.keyword is not None else "value"
        if keyword != "value" or arg.star:
            return
        if _listy_value(arg.value):
            self.direct.append(node)
        elif isinstance(arg.value, cst.Name):
            self.named.append((node, self.functions[-1], arg.value.value))

    @property
    def found(self) -> List[cst.Call]:
        found = list(self.direct)
        for call, function, name in self.named:
            values = [v for v in self.bound.get((function, name), []) if v is not call]
            if values and all(
                isinstance(v, (cst.ListComp, cst.List)) or _listy_value(v) for v in values
            ):
                found.append(call)
        return found


_DIRECT_EXAMPLE = (
    "from mxnet import gluon\n\n\n"
    "class Net(gluon.HybridBlock):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        with self.name_scope():\n"
    "            self.weight = {}\n"
    "            self.weight.initialize()\n\n"
    "    def hybrid_forward(self, F, x, weight):\n"
    "        return F.FullyConnected(x, weight, no_bias=True, num_hidden=3)\n"
)


class ParameterData(Rule):
    code = "HL012"
    name = "parameter-data"
    message = (
        "`self.<param>.data()` inside hybrid_forward puts the parameter's NDArray into the Symbol "
        "graph (AssertionError / TypeError under hybridize); use the argument gluon passes"
    )
    explanation = """\
## What it does
Finds `self.weight.data()` (any parameter or constant declared with `self.params.get`,
`self.params.get_constant`, `gluon.Parameter` or `gluon.Constant` in `__init__`) and a child
block's `self.embed.weight.data()` (the child built in `__init__` as a gluon layer whose
parameters are known, `nn.Embedding`'s `weight`, `nn.Dense`'s `weight`/`bias`, ..., or as a
class of the module declaring that parameter) inside `hybrid_forward` and the helpers it calls,
and `self.ws[i].data()` of Parameters `__init__` keeps in a list (reported without a fix: gluon
passes no argument for them).
Also two hazards of how a block makes its parameters: an `init.Constant(<list>)` initializer
and a `gluon.Parameter(...)` built directly (`--details`).

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
- `self.<name>.data()` of the block's own parameter → the argument `<name>` gluon passes;
- the same, with the signature taking it only through `**kwargs` → a keyword-only parameter
  (`def hybrid_forward(self, F, x, *, weight, **kwargs)`);
- `self.<child>.<p>.data()` of a child's parameter (a tied embedding) →
  `self.<child>_<p> = self.<child>.<p>` at the end of `__init__` (`Block.__setattr__`
  registers a Parameter attribute, so gluon passes it: an NDArray eagerly, the child's own
  Symbol variable hybridized), the argument `<child>_<p>` added to the signature, and every
  such read replaced by it.

A tied decoder then reads:
```python
def __init__(self, vocab_size, units):
    ...
    with self.name_scope():
        self.embed = nn.Embedding(vocab_size, units)
        self.embed_weight = self.embed.weight

def hybrid_forward(self, F, tokens, embed_weight):
    h = self.embed(tokens)
    return F.FullyConnected(h, embed_weight, no_bias=True, num_hidden=self._vocab_size, flatten=False)
```

No fix, with the reason in the message:
- in helpers (gluon passes parameters to hybrid_forward only), and in functions that bind the
  name to something else;
- a child's parameter when the child is not built exactly once, unconditionally, in the
  class's own `__init__` before where the registration goes (it may not exist there), when
  `__init__` does not call `super().__init__` where the statement could follow, or for
  `.data(ctx)` and reads through an attribute of the child's data (left to the user);
- a child's parameter whose shape waits for the child's first input (`nn.Dense(1)` without
  `in_units`): it would reach hybrid_forward uninitialized (DeferredInitializationError);
- `.asnumpy()` / `.asscalar()` of the data: the graph needs the value as a tensor, so that
  computation has to be rewritten with `F` (see HL002).

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

A child's parameter is always unsafe: outputs, gradients and training steps are unchanged
(one Parameter, passed under a second name; `collect_params()` and `export()` still hold it
once, checked on MXNet 1.9.1), and checkpoints saved by the original still load, but
`save_parameters()` (without `deduplicate=True`) now also writes the parameter under the new
name (`embed_weight` next to `embed.weight`), which the original code refuses to load unless
`ignore_extra=True`.

## Constant(<list>) initializers
`init.Constant(<list>)` (a list or tuple display, `<x>.tolist()`, or a name its function
binds only to list displays and comprehensions) anywhere in the class, the initializer of a
parameter: eagerly the list fills it, but under hybridize `Parameter.var()` serializes the
initializer and MXNet 1.9.1's `Constant.dumps()` calls `.asnumpy()` on any value that is not
a number or a numpy array (AttributeError: 'list' object has no attribute 'asnumpy'). Fix:
`init.Constant(np.array(<list>))` (safe: eagerly `arr[:] = value` builds the same array from
either, `nd.array(value, dtype=arr.dtype)`, and `dumps()` writes the same list); a one-
element display `Constant([v])` becomes `Constant(v)` (safe for a number literal, whose fill
is the same: a float, or an integer below 2**53, which MXNet's fill keeps exact; unsafe for
a name, which may hold an array that broadcasts differently) when v is a number literal or
the module does not import numpy; reported without a fix otherwise.

## Parameters built directly
A Parameter (or Constant) built directly and stored on the block, `self.weight =
gluon.Parameter('norm_weight', shape=(c, f))`, that hybrid_forward reads under the argument
gluon passes for it: `Block.__setattr__` registers it, so eagerly gluon passes its data, but
`collect_params()` holds only what `self.params` made, and hybridized MXNet 1.9.1 fails with
`AssertionError: Unknown input to HybridBlock: norm_weight` (the engine likewise; checked).
`initialize()` and a `Trainer` of `collect_params()` skip it too. Fix:
`self.params.get('norm_weight', shape=(c, f))` (`self.params.get_constant(...)` for a
Constant), unsafe: the parameter now joins `collect_params()` (`initialize()` and a
`Trainer` of it include it; its name gains the block's prefix; `save_parameters` wrote it
before too, under the attribute's name, and still does). Not reported when the class
registers parameters by hand (`self.params.update`, `_params`, `_reg_params`) or defines
`collect_params`; no fix when a Parameter argument after the name is positional.
"""

    VALID = [
        # built directly but never read by hybrid_forward: the graph does not hold it
        Valid(
            _DIRECT_EXAMPLE.format("gluon.Parameter('w', shape=(3, 4))").replace(
                "F.FullyConnected(x, weight, no_bias=True, num_hidden=3)", "F.relu(x)"
            )
        ),
        # registered by hand
        Valid(
            _DIRECT_EXAMPLE.format("gluon.Parameter('w', shape=(3, 4))").replace(
                "            self.weight.initialize()\n",
                "            self.params.update({'w': self.weight})\n",
            )
        ),
        Valid(_net("return F.broadcast_mul(x, weight)", "F, x, weight")),
        Valid(_net("return x.reshape((0, self.weight.data().shape[1]))", "F, x, weight")),
        Valid(
            _net(
                "if F is mx.nd:\n    print(self.weight.data())\nreturn F.broadcast_mul(x, weight)",
                "F, x, weight",
            )
        ),
        Valid(
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.table = {'a': 1}\n\n    def hybrid_forward(self, F, x):\n"
            "        return x * len(self.table)\n"
        ),
        Valid(
            _net(
                "return F.broadcast_mul(x, self.weight.data())  # hybridlint: ignore[HL012]",
                "F, x, weight",
            )
        ),
        # a child's parameter read for its static shape only
        Valid(
            _TIED + "\n    def hybrid_forward(self, F, x):\n"
            "        return F.reshape(self.cell(self.embed(x)), shape=(0, 0, self.embed.weight.data().shape[1]))\n"
        ),
        # a child built by an unknown factory: nothing says `.weight` is a Parameter
        Valid(
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.head = make_head()\n\n    def hybrid_forward(self, F, x):\n"
            "        return F.FullyConnected(x, self.head.weight.data(), no_bias=True, num_hidden=3)\n"
        ),
        # a number or a numpy array: Constant.dumps() serializes both
        Valid(_initialized("0.5")),
        Valid(_initialized("np.array([[0.5, 1.0, 2.0]])")),
    ]
    INVALID = [
        # Parameters kept in a list have no argument: reported, no fix (blind round 19)
        Invalid(
            net(
                "return F.broadcast_mul(x, self.ws[1].data())",
                init=constructor(
                    "super().__init__()\nself.ws = []\nfor i in range(2):\n"
                    "    w = self.params.get('w%d' % i, shape=(1, 3))\n    self.ws.append(w)",
                    "",
                ),
            ),
            line=10,
        ),
        # a Parameter built directly: eagerly passed, hybridized an unknown input
        Invalid(
            _DIRECT_EXAMPLE.format("gluon.Parameter('norm_weight', shape=(3, 4))"),
            line=8,
            fix=(
                "gluon.Parameter('norm_weight', shape=(3, 4))",
                "self.params.get('norm_weight', shape=(3, 4))",
            ),
            safety=UNSAFE,
        ),
        Invalid(
            _DIRECT_EXAMPLE.format("gluon.Constant('norm_weight', mx.nd.ones((3, 4)))"),
            line=8,
            fix=(
                "gluon.Constant('norm_weight', mx.nd.ones((3, 4)))",
                "self.params.get_constant('norm_weight', mx.nd.ones((3, 4)))",
            ),
            safety=UNSAFE,
        ),
        # a positional argument after the name: get() takes keywords only, no fix
        Invalid(_DIRECT_EXAMPLE.format("gluon.Parameter('norm_weight', 'write', (3, 4))"), line=8),
        # Constant(<list>): Parameter.var() fails under hybridize; the same values as an array
        Invalid(
            _initialized("[[0.5, 1.0, 2.0]]"),
            line=10,
            fix=("[[0.5, 1.0, 2.0]]", "np.array([[0.5, 1.0, 2.0]])"),
            safety=SAFE,
        ),
        # one value: the value itself (safe for a number; a name may hold an array, whose
        # broadcast differs from the one-element list's)
        Invalid(_initialized("[0.5]"), line=10, fix=("[0.5]", "0.5"), safety=SAFE),
        Invalid(
            _initialized("[coef,]", imports="coef = 0.5\n"),
            line=10,
            fix=("[coef,]", "coef"),
            safety=UNSAFE,
        ),
        Invalid(_initialized("[0.5, 1.0, 2.0]", imports=""), line=9),  # no numpy to build with
        # a name the constructor binds to a comprehension (LQ-Nets' quantized activation)
        Invalid(
            _initialized(
                "basis",
                imports="import numpy as np\n",
            ).replace(
                "        with self.name_scope():\n",
                "        basis = [[0.5 * 2.0 ** i for i in range(3)]]\n"
                "        with self.name_scope():\n",
            ),
            line=11,
            fix=("init.Constant(basis)", "init.Constant(np.array(basis))"),
            safety=SAFE,
        ),
        Invalid(
            _initialized("np.full((1, 3), 0.5).tolist()"),
            line=10,
            fix=("np.full((1, 3), 0.5).tolist()", "np.array(np.full((1, 3), 0.5).tolist())"),
            safety=SAFE,
        ),
        Invalid(
            _net("return F.broadcast_mul(x, self.weight.data())", "F, x, weight"),
            line=8,
            fix=("self.weight.data()", "weight"),
            safety=SAFE,
        ),
        Invalid(
            _net("w = self.weight.data()\nreturn F.broadcast_add(x, w)", "F, x, weight"),
            line=8,
            fix=("self.weight.data()", "weight"),
            safety=SAFE,
        ),
        Invalid(
            _net("return F.broadcast_mul(x, self.weight.data())", "F, x, **kwargs"),
            line=8,
            fix=[
                (
                    "def hybrid_forward(self, F, x, **kwargs):",
                    "def hybrid_forward(self, F, x, *, weight, **kwargs):",
                ),
                ("self.weight.data()", "weight"),
            ],
            safety=SAFE,
        ),
        Invalid(
            _net("return F.broadcast_mul(x, self.weight.data().reshape((1, 3)))", "F, x, weight"),
            line=8,
            fix=("self.weight.data()", "weight"),
            safety=UNSAFE,
        ),
        Invalid(
            _net("return x * float(self.weight.data().asnumpy().sum())", "F, x, weight"), line=8
        ),
        Invalid(
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        with self.name_scope():\n"
            "            self.const = self.params.get_constant('const', [[1.0, 2.0, 3.0]])\n\n"
            "    def hybrid_forward(self, F, x, const):\n"
            "        return F.broadcast_add(x, self.const.data())\n",
            line=8,
            fix=("self.const.data()", "const"),
            safety=SAFE,
        ),
        # a tied embedding: the child's Parameter is registered on the block, gluon passes it
        Invalid(
            _TIED + "\n    def hybrid_forward(self, F, x):\n        h = self.cell(self.embed(x))\n"
            "        return F.FullyConnected(h, self.embed.weight.data(), no_bias=True, num_hidden=4,\n"
            "                                flatten=False)\n",
            line=10,
            fix=[
                (
                    "self.cell = nn.Dense(3, flatten=False)",
                    "self.cell = nn.Dense(3, flatten=False)\nself.embed_weight = self.embed.weight",
                ),
                (
                    "def hybrid_forward(self, F, x):",
                    "def hybrid_forward(self, F, x, embed_weight):",
                ),
                ("self.embed.weight.data()", "embed_weight"),
            ],
            safety=UNSAFE,
        ),
        # a child whose weight waits for its first input (a Dense without in_units): the
        # parent would be handed it before the child runs, so no fix (UGATIT's gap_fc)
        Invalid(
            _TIED + "\n    def hybrid_forward(self, F, x):\n        h = self.cell(self.embed(x))\n"
            "        return F.broadcast_mul(h, F.sum(self.cell.weight.data()))\n",
            line=10,
        ),
        # the same layer given its input size: registered like the embedding's
        Invalid(
            _TIED.replace("nn.Dense(3, flatten=False)", "nn.Dense(3, flatten=False, in_units=3)")
            + "\n    def hybrid_forward(self, F, x):\n        h = self.cell(self.embed(x))\n"
            "        return F.broadcast_mul(h, F.sum(self.cell.weight.data()))\n",
            line=10,
            fix=[
                ("in_units=3)", "in_units=3)\nself.cell_weight = self.cell.weight"),
                ("def hybrid_forward(self, F, x):", "def hybrid_forward(self, F, x, cell_weight):"),
                ("self.cell.weight.data()", "cell_weight"),
            ],
            safety=UNSAFE,
        ),
        # an in-module child declaring its parameter; both reads become the one argument
        Invalid(
            "class Scale(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.gamma = self.params.get('gamma', shape=(1, 3))\n\n"
            "    def hybrid_forward(self, F, x, gamma):\n        return F.broadcast_mul(x, gamma)\n\n\n"
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.scale = Scale()\n\n    def hybrid_forward(self, F, x):\n"
            "        y = F.broadcast_add(self.scale(x), self.scale.gamma.data())\n"
            "        return F.broadcast_mul(y, self.scale.gamma.data())\n",
            line=16,
            fix=[
                (
                    "self.scale = Scale()",
                    "self.scale = Scale()\nself.scale_gamma = self.scale.gamma",
                ),
                (
                    (
                        "def hybrid_forward(self, F, x):\n    y = F.broadcast_add(self.scale(x), "
                        "self.scale.gamma.data())\n    return F.broadcast_mul(y, "
                        "self.scale.gamma.data())"
                    ),
                    (
                        "def hybrid_forward(self, F, x, scale_gamma):\n"
                        "    y = F.broadcast_add(self.scale(x), scale_gamma)\n"
                        "    return F.broadcast_mul(y, scale_gamma)"
                    ),
                ),
            ],
            safety=UNSAFE,
        ),
        # a child built in a branch: it may not exist where the registration would go
        Invalid(
            "class Net(HybridBlock):\n    def __init__(self, tie=True):\n        super().__init__()\n"
            "        if tie:\n            self.embed = nn.Embedding(4, 3)\n\n"
            "    def hybrid_forward(self, F, x):\n"
            "        return F.FullyConnected(x, self.embed.weight.data(), no_bias=True, num_hidden=4)\n",
            line=8,
        ),
    ]

    def check_class(self, klass: ClassFacts) -> None:
        self._check_unregistered(klass)
        self._check_constant_initializers(klass)

    def _check_unregistered(self, klass: ClassFacts) -> None:
        """`self.<p> = gluon.Parameter(...)` (or Constant) in `__init__`, read by
        hybrid_forward as the argument `<p>`: hybridized, no collected parameter feeds its
        Symbol variable (explanation)."""
        init, forward = klass.methods.get("__init__"), klass.methods.get("hybrid_forward")
        if init is None or forward is None or "collect_params" in klass.methods:
            return
        built = _direct_parameters(init, self.state.module.qualify)
        if not built or _registers_by_hand(klass.node):
            return
        read = {n.value for n in walk_nodes(forward.body) if isinstance(n, cst.Name)}
        declared = set(parameter_names(forward.params))
        for attr, call, kind in built:
            if attr not in declared or attr not in read:
                continue
            name = call.args[0].value if call.args and call.args[0].keyword is None else None
            shown = cst.Module([]).code_for_node(name) if name is not None else repr(attr)
            message = (
                f"`self.{attr}` is a {kind} built directly, not with `self.params`: "
                "`collect_params()` never holds it, so hybridized MXNet 1.9.1 fails with "
                f"`AssertionError: Unknown input to HybridBlock: {shown.strip(chr(39) + chr(34))}` "
                "(and initialize() and a Trainer skip it)"
            )
            method = "get" if kind == "Parameter" else "get_constant"
            rest = call.args[1:]
            if name is None or (kind == "Parameter" and any(a.keyword is None for a in rest)):
                self.report(call, message + f"; use self.params.{method}(...)")
                continue
            replacement = call.with_changes(func=cst.parse_expression(f"self.params.{method}"))
            self.report(
                call,
                message + f"; use self.params.{method}(...) (unsafe: the {kind.lower()} then joins "
                "collect_params(): initialize() and a Trainer of it include it, and its name "
                "gains the block's prefix)",
                edits=[(call, replacement)],
                safety=UNSAFE,
            )

    def _check_constant_initializers(self, klass: ClassFacts) -> None:
        """`init.Constant(<list>)` anywhere in a HybridBlock: eagerly the list fills the
        parameter, but hybridized `Parameter.var()` serializes the initializer and MXNet
        1.9.1's `Constant.dumps()` calls `.asnumpy()` on any value that is not a number or a
        numpy array (AttributeError: 'list' object has no attribute 'asnumpy')."""
        if not self.state.module.spells("Constant"):
            return  # (the walk below costs as much as a rule's whole run on a large class)
        finder = _ConstantInitializers(self.state.module.qualify)
        walk(klass.node, finder)  # read-only (LibCST's visit rebuilds, issue 22), with leaves
        found = finder.found  # resolved once: the names are looked up on each read
        if not found:
            return
        numpy = next((k for k, v in self.state.module.imports.items() if v == "numpy"), None)
        message = (
            "`Constant(<list>)` initializer: hybridize() fails when the parameter's Symbol is "
            "made (MXNet 1.9.1 Constant.dumps() calls .asnumpy() on a value that is not a number "
            "or a numpy array: AttributeError: 'list' object has no attribute 'asnumpy'); pass "
            "a numpy array"
        )
        for node in found:
            arg = node.args[0]
            single = _single_element(arg.value)
            if single is not None and (numpy is None or _number_literal(single)):
                # `Constant([v])` -> `Constant(v)`: eagerly `arr[:] = [v]` and `arr[:] = v` fill
                # the parameter alike for a number v (checked with MXNet 1.9.1 on (1,), (3,),
                # (2, 3)); for an array v the (1, ...) shape of `[v]` can broadcast otherwise
                self.report(
                    node,
                    message + " (or the one value itself)",
                    edits=[(arg.value, single)],
                    safety=SAFE if _number_literal(single) else UNSAFE,
                )
                continue
            if numpy is None:
                self.report(node, message + " (no numpy import to build it with)")
                continue
            wrapped = cst.Call(
                func=cst.parse_expression(f"{numpy}.array"), args=[cst.Arg(arg.value)]
            )
            # exact: eagerly `arr[:] = value` makes the same array from the numpy array as from
            # the list (nd.array(value, dtype=arr.dtype)), and dumps() writes the same list
            self.report(
                node,
                message + f" ({numpy}.array(...))",
                edits=[(arg.value, wrapped)],
                safety=SAFE,
            )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._static: Set[cst.CSTNode] = set()  # .data() calls whose static attributes are read
        self._chained: Set[cst.CSTNode] = set()  # .data() calls used through a method/attribute
        self._eager: Set[cst.CSTNode] = set()  # .data() calls read into Python values

    def visit_Attribute(self, node: cst.Attribute) -> None:
        if self._parameter_of(node.value) is None and self._child_parameter_of(node.value) is None:
            return
        attr = node.attr.value
        target = (
            self._static
            if attr in _STATIC
            else self._eager
            if attr in _EAGER_READS
            else self._chained
        )
        target.add(node.value)

    def visit_Call(self, node: cst.Call) -> None:
        child = self._child_parameter_of(node)
        if child is not None and node not in self._static:
            self._check_child(node, *child)
            return
        listed = self._listed_parameter(node)
        if listed is not None and node not in self._static:
            self.report(
                node,
                f"`{listed}` reads a Parameter kept in a list: gluon passes hybrid_forward only "
                "the Parameters set as attributes, so under hybridize this NDArray meets Symbols "
                "(AssertionError: Argument ... must be Symbol instances); set each Parameter as "
                "an attribute (`setattr(self, f'w{i}', p)` in __init__) and use the arguments "
                "gluon passes (`**kwargs`)",
            )
            return
        name = self._parameter_of(node)
        if name is None or node in self._static:
            return
        message = (
            f"`self.{name}.data()` is the parameter's NDArray: under hybridize it meets Symbols "
            f"(AssertionError: Argument ... must be Symbol instances, or TypeError); use the "
            f"argument `{name}` gluon passes to hybrid_forward"
        )
        if node in self._eager:
            self.report(
                node,
                f"`self.{name}.data()` read into Python values inside hybrid_forward: under "
                "hybridize the value is frozen into the graph when it is traced and never follows "
                "updates of the parameter; compute with the argument "
                f"`{name}` and F operators instead",
            )
            return
        edits = self._fix(node, name)
        if edits is None:
            self.report(node, message)
            return
        unsafe = bool(node.args) or node in self._chained or edits[1]
        self.report(node, message, edits=edits[0], safety=UNSAFE if unsafe else SAFE)

    # -- a child's parameter ---------------------------------------------------------------
    def _check_child(self, node: cst.Call, child: str, param: str) -> None:
        """`self.<child>.<param>.data()`: gluon passes only the block's own parameters, so the
        fix registers the child's Parameter on this block (`self.<child>_<param> =
        self.<child>.<param>` at the end of `__init__`: Block.__setattr__ registers a Parameter
        attribute) and uses the argument gluon then passes."""
        what = f"self.{child}.{param}.data()"
        if node in self._eager:
            self.report(
                node,
                f"`{what}` read into Python values inside hybrid_forward: under hybridize the "
                "value is frozen into the graph when it is traced; compute with the parameter "
                "as an argument (register it on this block) and F operators instead",
            )
            return
        message = (
            f"`{what}` is the child's parameter's NDArray: under hybridize it meets Symbols "
            f"(AssertionError: Argument ... must be Symbol instances, or TypeError); register the "
            f"Parameter on this block (`self.{child}_{param} = self.{child}.{param}` in __init__) "
            f"and use the argument gluon passes to hybrid_forward"
        )
        edits = self._child_fix(child, param)
        if isinstance(edits, str):
            self.report(node, f"{message}; no automatic fix: {edits}")
            return
        # unsafe: save_parameters() also writes the registered name (old code then needs
        # ignore_extra=True to load new files); `.data(ctx)` and chained uses as for own parameters
        self.report(
            node,
            message + " (unsafe: checkpoints gain a duplicate entry under the new name)",
            edits=edits,
            safety=UNSAFE,
        )

    def _child_parameter_of(self, node: cst.BaseExpression) -> Optional[Tuple[str, str]]:
        """`self.<child>.<p>.data(...)` with <child> a child block built in `__init__` whose
        class declares the parameter <p> -> ("<child>", "<p>")."""
        owner = _data_owner(node)
        if not (
            isinstance(owner, cst.Attribute)
            and isinstance(owner.value, cst.Attribute)
            and isinstance(owner.value.value, cst.Name)
            and owner.value.value.value == "self"
        ):
            return None
        facts = self.facts
        if facts is None or facts.klass is None:
            return None
        klass = facts.klass
        child, param = owner.value.attr.value, owner.attr.value
        if child not in klass.children:
            return None
        built = _child_constructor(klass.node, child)
        if built is None:
            return None
        layer = built.split(".")[-1]
        declared: AbstractSet[str] = LAYER_PARAMETERS.get(layer, frozenset())
        if layer not in LAYER_PARAMETERS:
            child_class = (facts.module.class_nodes or {}).get(built)
            declared = _declared_parameters(child_class) if child_class is not None else set()
        return (child, param) if param in declared else None

    def _child_fix(self, child: str, param: str):
        """The edits registering `self.<child>.<param>` on this block and using the argument:
        every `self.<child>.<param>.data()` of hybrid_forward, `__init__`, the signature."""
        facts = self.facts
        if facts is None or facts.kind != "hybrid_forward" or facts.klass is None:
            return "gluon passes parameters to hybrid_forward only, not to this helper"
        klass, function = facts.klass.node, facts.node
        init = class_method(klass, "__init__")
        if init is None or not init_attribute(klass, init, child):
            return (
                f"`self.{child}` is not built exactly once, unconditionally, in this class's own "
                "__init__: it may not exist where the registration would go"
            )
        calls = _ChildDataCalls(child, param)
        function.body.visit(calls)
        if any(c.args for c in calls.found) or len(calls.found) != len(calls.plain):
            return "`.data(ctx)` or a read through an attribute of the data: left to the user"
        call = _child_call(klass, child)
        nodes = facts.module.class_nodes or {}
        if call is not None and _deferred(call, param, nodes.get(dotted_name(call.func) or "")):
            return (
                f"`self.{child}.{param}` waits for the child's first input to get its shape "
                "(deferred initialization: give the layer its input size, e.g. `in_units` or "
                "`in_channels`); registered on this block it would be read before the child "
                "runs (DeferredInitializationError on every call)"
            )
        existing = _registered_as(init, child, param)
        params = function.params
        if existing is not None:
            name = existing
            if name in _Uses.of(function).stored:
                return f"hybrid_forward binds `{name}` to something else"
            edits: List = [(call_node, cst.Name(name)) for call_node in calls.found]
            if name not in parameter_names(params):
                edits.append(signature_edit(function, name))
            return edits
        name = fresh_name(f"{child}_{param}", taken_names(klass, function))
        statement = cst.parse_statement(f"self.{name} = self.{child}.{param}\n")
        init_change = init_edit(init, statement)
        if init_change is None:
            return "__init__ calls no super().__init__(...) after which the registration could go"
        return [(call_node, cst.Name(name)) for call_node in calls.found] + [
            init_change,
            signature_edit(function, name),
        ]

    # -- helpers ---------------------------------------------------------------------------
    def _listed_parameter(self, node: cst.BaseExpression) -> Optional[str]:
        """`self.<ws>[i].data(...)` with <ws> a list of Parameters (`parameter_lists`): the
        call's text, else None."""
        owner = _data_owner(node)
        if not isinstance(owner, cst.Subscript) or self.facts is None:
            return None
        attr = self_attribute_name(owner.value)
        klass = self.facts.klass
        if attr is None or klass is None:
            return None
        if attr not in klass.parameter_lists:
            return None
        return f"self.{attr}[...].data()"

    def _parameter_of(self, node: cst.BaseExpression) -> Optional[str]:
        """`self.<p>.data(...)` with <p> a declared parameter of the class -> "<p>"."""
        owner = _data_owner(node)
        if not (
            isinstance(owner, cst.Attribute)
            and isinstance(owner.value, cst.Name)
            and owner.value.value == "self"
        ):
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
        if name not in parameter_names(params):
            if params.star_kwarg is None:
                return None  # gluon would have raised TypeError eagerly: not a parameter it passes
            unsafe = params.star_kwarg.name.value in uses.loaded
            new = cst.Param(name=cst.Name(name))
            star = (
                params.star_arg
                if isinstance(params.star_arg, (cst.Param, cst.ParamStar))
                else cst.ParamStar()
            )
            kwonly = list(params.kwonly_params)
            kwonly = [p.with_changes(comma=cst.MaybeSentinel.DEFAULT) for p in kwonly] + [new]
            edits.append((params, params.with_changes(star_arg=star, kwonly_params=kwonly)))
        return edits, unsafe
