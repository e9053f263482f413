"""HL013 state-mutation: the block's Python state changed inside hybrid_forward (runs once)."""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

from ._examples import constructor, net
from .analysis import PARAMETER, TENSOR, TENSORS, class_lineage
from .base import Invalid, Rule, Valid, WalkState, invalid_table, valid_table
from .values import self_attribute_name, syntax_children, walk_nodes

if TYPE_CHECKING:
    from .analysis import ClassFacts

# Methods that change a list, dict or set in place.
_MUTATORS = {
    "append",
    "extend",
    "insert",
    "pop",
    "remove",
    "clear",
    "update",
    "add",
    "discard",
    "setdefault",
    "popitem",
    "sort",
    "reverse",
}
# Parameter methods that change its value (or its gradient, context, ...).
_PARAMETER_SETTERS = {"set_data", "initialize", "reset_ctx", "zero_grad", "cast"}

_INIT = constructor("super().__init__()\nself.calls = 0\nself.cache = []", "")


# a block whose lambda child reads `self.basis` (GluonTS's N-BEATS), and a hybrid_forward that
# fills it on the first call only
_LAMBDA_CHILD = (
    "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
    "        self.ready = False\n        self.basis = None\n        with self.name_scope():\n"
    "            self.head = nn.HybridLambda(lambda F, t: F.broadcast_mul(t, self.basis))\n\n"
)
_FIRST_CALL = (
    "    def hybrid_forward(self, F, x):\n        if not self.ready:\n            {store}\n"
    "            self.ready = True\n        return self.head(x)\n"
)

# every example's block keeps a call count and a cache
_net = partial(net, init=_INIT)


_self_attribute = self_attribute_name  # `self.<a>` -> "<a>"


def _attribute_reads(node: cst.CSTNode) -> Iterator[cst.Attribute]:
    """The attributes under `node` that are read (not the target of an assignment)."""
    stored = {
        id(t.target) for n in walk_nodes(node) if isinstance(n, cst.Assign) for t in n.targets
    }
    return (n for n in walk_nodes(node) if isinstance(n, cst.Attribute) and id(n) not in stored)


def _reads_attribute(cls: cst.ClassDef, name: str, besides: Tuple[str, ...] = ()) -> bool:
    """A method of the class body (not one named in `besides`) reads `self.<name>`."""
    return any(
        _self_attribute(read) == name
        for method in cls.body.body
        if isinstance(method, cst.FunctionDef) and method.name.value not in besides
        for read in _attribute_reads(method)
    )


def _reads_private(node: cst.CSTNode, name: str) -> bool:
    """Some code in `node` reads `<anything>.<name>` (not only through `self`: `other.__x`
    in a method of the class, `this.__x`, a class-level lambda are mangled alike)."""
    return any(read.attr.value == name for read in _attribute_reads(node))


class StateMutation(Rule):
    code = "HL013"
    name = "state-mutation"
    message = (
        "the block's Python state is changed inside hybrid_forward, which runs once when hybridized "
        "(while tracing), not on every call"
    )
    explanation = """\
## What it does
Finds changes to the block's own Python state inside `hybrid_forward` and the helpers it calls:
augmented assignment to an attribute (`self.calls += 1`, `self._cache += [x]`), in-place
container methods on one (`self._cache.append(x)`, `.extend`, `.update`, `.pop`, ...),
`self.<param>.set_data(...)` (and `initialize`, `reset_ctx`, `zero_grad`, `cast`) on a
parameter, and a tensor stored on an attribute: `self.last = F.relu(x)`, a tuple or list of
tensors (`self.masks = [F.Dropout(F.ones_like(s), p=p) for s in states]`), a conditional
expression with a tensor branch, or a local that holds a tensor on some path
(`self._prev_output = output`), also under `if self.mask is None:` guards and when `__init__` or
`reset()` set the attribute too. Not reported: containers and numbers assigned afresh
(`self.scale = 2`: the same value on every call), tensors kept for a lambda child that reads them within the same trace
(`nn.HybridLambda(lambda F, t: F.dot(t, self.basis))`) unless they are computed on the first
call only (`if not self.ready: self.make_basis(F); self.ready = True`, GluonTS's N-BEATS: a
block called eagerly and then hybridized hands its graph the first call's NDArrays), and
`__call__` overrides the analysis follows from hybrid_forward (they run on every call of the
block); nor a private attribute (`self.__last = y`) nothing in its class reads (through any
object) and the file never spells as `_Net__last`: Python renames it for that class alone, so
no other code sees it. A Python value recomputed from
state the body updates is reported as an update
(`self.lamb = max(lo, hi / (1 + 0.1 * self.it))` after `self.it += 1`, `self.m = self.m * 0.9`).

Also reported, at the read: state stored only in a branch an NDArray test guards (`if
isinstance(x, mx.nd.NDArray): self.xs = x.shape`, `if hasattr(y, 'shape'):
self.sizes[k] = ...`) and read on the path that runs hybridized (`rows = self.xs[2]`). Such a
size cache works when the block is called eagerly first and hybridized at that one shape
only: the graph is traced with what the last eager call left (nothing before one: a
TypeError or KeyError), and an input of another shape runs with the old values (checked
against MXNet 1.9.1 on three such blocks of a blind test). No fix: the size must come from
the inputs through shape-free operators.

## Why it breaks under hybridize
A hybridized block runs `hybrid_forward` once, with Symbols, to build its graph, and from then
on runs the cached graph: Python statements in the body do not run again. So `self.calls += 1`
counts 1 however many times the block is called (eagerly it counts every call), a cache filled
with `append` holds the first call's entry only (and that entry is a Symbol), an attribute
assigned a tensor holds a `Symbol` instead of the last call's NDArray (a value meant for the
next call never reaches it: MXNet 1.9.1's own `ZoneoutCell`, hybridized and unrolled, zones
units out to the zeros it traced instead of the previous step's output, and
`VariationalDropoutCell` draws a new mask at every step; inside a hybridized parent that
unrolls the cell, one trace covers every step and the result matches eager), and
`self.u.set_data(F.relu(x))` hands a Symbol to the Parameter: MXNet 1.9.1 raises
`AttributeError: 'Symbol' object has no attribute 'shape'`. Outputs that depend on such state
are silently different from the second call on (checked against MXNet 1.9.1).

## Example
```python
def hybrid_forward(self, F, x):
    self.calls += 1
    return x * self.calls
```

## Fix
Keep state out of the traced function: count or cache in the caller (or in `forward` of a
plain `Block` wrapping the hybrid one), pass values in as inputs, and return tensors as outputs
instead of storing them on the block. Parameters that must change are updated outside the
graph (`param.set_data(...)` between calls), or the update becomes an output the caller
applies.

## Fix safety
No automatic fix: where the state should live depends on the program.
"""

    VALID = valid_table(
        _net,
        "n = self.calls + 1\nreturn x * n",
        "cache = []\ncache.append(x)\nreturn F.add_n(*cache)",
        "if F is mx.nd:\n    self.calls += 1\nreturn x",
        "self.scale = 2\nreturn x * self.scale",  # a constant: the same value every call
        "return F.relu(x) * len(self.cache)",
        # Python values assigned afresh, whatever their form: the same on every call
        "self.mode = 'a' if x is None else 'b'\nself.sizes = (2, 3)\nreturn x",
        "self.names = [str(i) for i in range(3)]\nreturn x",
        # a cache filled only eagerly (an eager-only branch is never traced)
        "if F is mx.nd:\n    self.last = F.relu(x)\nreturn x",
        "self.calls += 1  # hybridlint: ignore[HL013]\nreturn x",
        "self.cache = self.cache or []\nreturn x",  # a default filled once: the same later
        # a private attribute nothing in the class reads (accel-brain-base's EncoderDecoder)
        "self.__out = F.relu(x)\nreturn x * 2",
        # a scratch value of the call, replaced before it returns (accel-brain-base's RBM)
        "self.h = F.relu(x)\ny = self.h * 2\nself.h = None\nreturn y",
        # a block made on first use from a factory stored in __init__ (GluonCV's Faster R-CNN
        # target generator): after the first call, eager or traced, the test is false
        "if not isinstance(self.gen, HybridBlock):\n    self.gen = self.gen()\nreturn self.gen(x)",
        # a tensor kept for a lambda child that reads it within the same trace (GluonTS N-BEATS)
        Valid(
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.basis = None\n        with self.name_scope():\n"
            "            self.head = nn.HybridLambda(lambda F, t: F.broadcast_mul(t, self.basis))\n\n"
            "    def hybrid_forward(self, F, x):\n        self.basis = F.ones_like(x) * 2\n"
            "        return self.head(x)\n"
        ),
        # the lambda child's tensor computed on every call, after a first-call guard
        Valid(
            _LAMBDA_CHILD
            + _FIRST_CALL.format(store="pass").replace(
                "        return", "        self.basis = F.ones((1, 3)) * 2\n        return"
            )
        ),
        # a size recorded eagerly and read on the eager path only
        "if isinstance(x, mx.nd.NDArray):\n    self.size = x.shape\n    return x * self.size[0]\n"
        "return x",
        # recorded eagerly, set on the hybridized path too: what it reads is this call's
        "if isinstance(x, mx.nd.NDArray):\n    self.size = x.shape[0]\nelse:\n    self.size = 2\n"
        "return x * self.size",
        # a method the analysis does not follow sets it too (the caller's to call)
        Valid(
            "class Net(HybridBlock):\n    def set_size(self, size):\n        self.size = size\n\n"
            "    def hybrid_forward(self, F, x):\n        if F is mx.nd:\n"
            "            self.size = x.shape[0]\n        return x * self.size\n"
        ),
        # a __call__ override runs on every call (MXNet's HybridSequentialRNNCell counter)
        Valid(
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        self.calls = 0\n\n    def __call__(self, x):\n        self.calls += 1\n"
            "        return super().__call__(x)\n\n"
            "    def hybrid_forward(self, F, x):\n        return self.__call__(x)\n"
        ),
    )
    INVALID = invalid_table(
        _net,
        ("self.calls += 1\nreturn x * self.calls", 8),
        # an item of a list kept on self (blind round 15's YOLOv5 detect: `[nd.zeros((1,))] * 3`)
        Invalid(
            net(
                "self.grid[0] = F.relu(x)\nreturn x * 2",
                init=constructor("super().__init__()\nself.grid = [None] * 2", ""),
            ),
            line=7,
        ),
        # annealed Python values: recomputed from updated state, or from themselves (gluonfr)
        ("self.scale = max(0.1, 1 / (1 + self.calls))\nself.calls += 1\nreturn x * self.scale", 8),
        ("self.calls = self.calls + 1\nreturn x * self.calls", 8),
        # a size recorded on the eager path only and read on the hybridized one (a blind
        # test's interactive-segmentation block): the graph keeps the last eager call's size
        (
            "if isinstance(x, mx.nd.NDArray):\n    self.xs = x.shape\n"
            "return F.reshape(x, shape=(self.xs[0], -1))",
            10,
        ),
        # a size cache keyed in a dict, filled under `hasattr(y, 'shape')` (False for a Symbol)
        (
            "if hasattr(x, 'shape'):\n    self.cache['h'] = x.shape[2]\nelse:\n"
            "    h = self.cache['h']\nreturn x * 2",
            11,
        ),
        ("self.cache.append(F.relu(x))\nreturn x * len(self.cache)", 8),
        ("self.cache += [x]\nreturn x + len(self.cache)", 8),
        ("self.last = F.relu(x)\nreturn x", 8),
        # a private attribute a method of its class reads
        Invalid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        self.__last = F.relu(x)\n        return x\n\n"
            "    def last(self):\n        return self.__last\n",
            line=3,
        ),
        # read through another instance of the class, or by its mangled name from outside
        Invalid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        self.__last = F.relu(x)\n        return x\n\n"
            "    def last_of(self, other):\n        return other.__last\n",
            line=3,
        ),
        Invalid(
            "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            "        self.__last = F.relu(x)\n        return x\n\n\n"
            "def peek(net):\n    return net._Net__last\n",
            line=3,
        ),
        # replaced later, but a return between may leave it as the call's last store
        ("self.h = F.relu(x)\nif not self.calls:\n    return x\nself.h = None\nreturn x", 8),
        # MXNet 1.9.1's ZoneoutCell: a tensor on one branch of a ternary, read back next call
        Invalid(
            _net(
                "prev = self.prev\nif prev is None:\n    prev = F.zeros_like(x)\n"
                "out = F.where(F.relu(x), x, prev) if self.calls else x\n"
                "self.prev = out\nreturn out"
            ),
            line=12,
        ),
        # a tensor on one path of an if statement
        ("out = x\nif self.calls:\n    out = F.relu(x)\nself.prev = out\nreturn out", 11),
        # gluonts' VariationalZoneoutCell: a list of masks, one per state
        Invalid(
            _net(
                "self.masks = [F.Dropout(F.ones_like(s), p=0.5) for s in states]\nreturn x",
                signature="F, x, states",
            ),
            line=8,
        ),
        ("self.pair = (F.relu(x), 2)\nreturn x", 8),
        # a tensor a lambda child reads, computed on the first call only (GluonTS's N-BEATS):
        # called eagerly and then hybridized, the graph gets the first call's NDArray
        Invalid(_LAMBDA_CHILD + _FIRST_CALL.format(store="self.basis = F.ones((1, 3)) * 2"), 11),
        Invalid(  # the guard on one line, testing the cache itself
            _LAMBDA_CHILD + "    def hybrid_forward(self, F, x):\n"
            "        if self.basis is None: self.basis = F.ones((1, 3)) * 2\n"
            "        return self.head(x)\n",
            line=10,
        ),
        Invalid(
            _LAMBDA_CHILD
            + "    def make_basis(self, F):\n        self.basis = F.ones((1, 3)) * 2\n\n"
            + _FIRST_CALL.format(store="self.make_basis(F)"),
            line=14,
        ),
        Invalid(
            "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
            "        with self.name_scope():\n"
            "            self.u = self.params.get('u', shape=(2, 3), grad_req='null')\n\n"
            "    def hybrid_forward(self, F, x, u):\n"
            "        self.u.set_data(F.relu(x))\n        return x + u\n",
            line=8,
        ),
    )

    def __init__(self, state: Optional[WalkState] = None) -> None:
        super().__init__(state)
        # function -> its statements under a first-call guard (`_first_call_guards`), per file
        self._guards: Dict[cst.CSTNode, Dict[cst.CSTNode, str]] = {}
        self._updates: Dict[cst.CSTNode, Set[str]] = {}  # function -> `_updated`, per file
        self._lambda_reads: Dict[cst.CSTNode, Set[str]] = {}  # class -> `_read_by_lambdas`
        self._overwritten: Dict[cst.CSTNode, Set[int]] = {}  # function -> `_overwritten_stores`

    def check_class(self, klass: "ClassFacts") -> None:
        """State the block records only on the eager path and reads on the path that runs
        hybridized (`if isinstance(x, mx.nd.NDArray): self.xs = x.shape` then `rows =
        self.xs[2]`): hybridized, the graph is traced with what the last eager call left."""
        for name, (store, read) in sorted(_eager_only_state(klass).items()):
            stored = cst.Module([]).code_for_node(store).strip()
            self.report(
                read,
                f"`self.{name}` is set only when the block runs eagerly (`{stored}`, in a "
                "branch an NDArray test guards) and read here, on the path that runs "
                "hybridized: the graph is traced with what the last eager call left in it "
                "(nothing before one), so an input of another shape runs with the old "
                "values; compute it from the inputs with shape-free ops (F.shape_array, "
                "F.slice_like, F.broadcast_like, F.contrib.arange_like) instead",
            )

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        name = _self_attribute(node.target)
        if name is not None and not self._is_child(name) and self._traced():
            self.report(
                node,
                f"`self.{name}` is updated inside hybrid_forward: when hybridized this runs once, "
                "while tracing, not on every call (the value then stays as the first call left it)",
            )

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Subscript):  # `self.cache[0] = x.sigmoid()`
                held = _self_attribute(target.target.value)
                if held is not None and self._traced() and self._is_container(held):
                    self.report(
                        node,
                        f"`self.{held}[...] = ...` changes the block's state inside "
                        "hybrid_forward: when hybridized it runs once, while tracing, not on "
                        "every call",
                    )
                continue
            name = _self_attribute(target.target)
            if name is None or not self._traced():
                continue
            flag = self._first_call_flag(node)
            if name in self._read_by_lambdas() and flag is None:
                continue
            what = self._stored_tensor(node.value, self.env, node)
            if what is None:
                self._check_derived_state(node, name)
                continue
            if self._overwritten_later(node):
                continue  # a scratch value of this call: a later store replaces it
            if name in self._read_by_lambdas():  # kept from the first call on: `flag` guards it
                self.report(node, _cached_once(f"{what} stored in `self.{name}`", flag))
                return
            read_back = self._read_back(name)
            if not read_back and self._unreadable(name):
                continue  # `self.__x` that nothing in its class reads: no code can see it
            if read_back:
                consequence = (
                    f"the cached graph keeps what `self.{name}` held at the first call (a mask "
                    "or previous output is not carried from call to call as it is eagerly)"
                )
            else:
                consequence = f"`self.{name}` holds a Symbol, not the latest call's array"
            if self._reset_clears(name):  # a recurrent cell's per-sequence state
                consequence += (
                    f" (`reset()` clears `self.{name}` per sequence: outputs differ when this "
                    "cell is hybridized on its own and stepped or unrolled; inside a hybridized "
                    "parent that unrolls it, one trace covers every step as eagerly)"
                )
            self.report(
                node,
                f"{what} is stored in `self.{name}` inside hybrid_forward: hybridized, the body "
                f"runs once, while tracing, so what is stored is a Symbol and {consequence}; "
                "pass it in as an input and return it as an output instead",
            )
            return

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if not isinstance(func, cst.Attribute):
            return
        if isinstance(func.value, cst.Name) and func.value.value == "self" and self._traced():
            self._check_cached_by_method(node, func.attr.value)
            return
        name = _self_attribute(func.value)
        method = func.attr.value
        if name is None or not self._traced():
            return
        if method in _PARAMETER_SETTERS and self.value(func.value).kind == PARAMETER:
            self.report(
                node,
                f"`self.{name}.{method}(...)` inside hybrid_forward: when hybridized it runs once, "
                "while tracing, with Symbols (MXNet: AttributeError: 'Symbol' object has no "
                "attribute 'shape' for set_data); update parameters outside the graph",
            )
        elif method in _MUTATORS and self._is_container(name):
            self.report(
                node,
                f"`self.{name}.{method}(...)` changes the block's state inside hybrid_forward: "
                "when hybridized it runs once, while tracing, not on every call",
            )

    def _check_derived_state(self, node: cst.Assign, name: str) -> None:
        """`self.lamb = max(lo, hi / (1 + 0.1 * self.it))` after `self.it += 1`, or `self.m =
        self.m * 0.9`: a Python value recomputed from state the body updates is updated state
        too (gluonfr's ASoftmax anneals `lamb` so), frozen at the first call's value."""
        if self._is_child(name):
            return
        read = _self_attributes(node.value)
        source = name if name in read else next(iter(sorted(read & self._updated())), None)
        if source is None:
            return
        if source == name and isinstance(node.value, (cst.BooleanOperation, cst.IfExp)):
            return  # `self.n = self.n or 0`: a default filled once, the same on later calls
        if source == name and self.facts is not None and _filled_once(self.facts.node, node, name):
            # `if not isinstance(self.gen, Block): self.gen = self.gen()` (GluonCV's lazy
            # target generator): after the first call, eager or traced, the test is false
            return
        how = "its own value" if source == name else f"`self.{source}`, which it updates"
        self.report(
            node,
            f"`self.{name}` is recomputed from {how} inside hybrid_forward: when hybridized this "
            "runs once, while tracing, not on every call (the value then stays as the first call "
            "left it)",
        )

    def _updated(self) -> Set[str]:
        """The attributes the function updates in place (`self.it += 1`), traced or not."""
        assert self.facts is not None
        found = self._updates.get(self.facts.node)
        if found is None:
            found = self._updates[self.facts.node] = {
                name
                for n in walk_nodes(self.facts.node.body)
                if isinstance(n, cst.AugAssign)
                and (name := _self_attribute(n.target)) is not None
                and not self._is_child(name)
            }
        return found

    def _check_cached_by_method(self, node: cst.Call, method: str) -> None:
        """`self.initialize_basis(F)` under a first-call guard, where the method stores on
        `self` values it computes with its namespace parameter that lambda children read
        (GluonTS's N-BEATS bases): those stores are exempt where they stand, since a lambda
        reading them within the trace is fine, but the guard keeps the first call's arrays."""
        klass = self.facts.klass if self.facts is not None else None
        function = klass.methods.get(method) if klass is not None else None
        flag = self._first_call_flag(self.statement) if function is not None else None
        if function is None or flag is None:
            return
        stored = sorted(_namespace_stores(function) & self._read_by_lambdas())
        if stored:
            attrs = ", ".join(f"`self.{a}`" for a in stored)
            self.report(node, _cached_once(f"what `self.{method}(...)` stores in {attrs}", flag))

    def _first_call_flag(self, statement: Optional[cst.CSTNode]) -> Optional[str]:
        """The `self.<flag>` of the first-call guard `statement` runs under, if any."""
        if self.facts is None or statement is None:
            return None
        guards = self._guards.get(self.facts.node)
        if guards is None:
            guards = self._guards[self.facts.node] = _first_call_guards(self.facts.node)
        return guards.get(statement)

    # -- helpers ---------------------------------------------------------------------------
    def _stored_tensor(
        self, expr: cst.BaseExpression, env, statement: cst.CSTNode, depth: int = 0
    ) -> Optional[str]:
        """What of `expr` is a tensor on some path ("a tensor", "a list of tensors", ...), None
        when nothing is: a tensor itself, a tuple/list/comprehension of tensors, a conditional
        expression with a tensor branch (`F.where(...) if p else next_output`, MXNet's
        ZoneoutCell), or a local name one of whose earlier assignments is one of these (the
        join of a tensor and an unknown value is unknown, but the tensor path stores a Symbol)."""
        assert self.facts is not None
        value = self.facts.value(expr, env)
        if value.kind == TENSOR and (
            not value.assumed
            or (isinstance(expr, cst.Name) and self.facts.used_as_array(expr.value))
        ):
            return "a tensor"
        if value.kind == TENSORS and not value.assumed:
            return "a list of tensors"
        if isinstance(expr, cst.IfExp):
            return self._stored_tensor(expr.body, env, statement, depth) or self._stored_tensor(
                expr.orelse, env, statement, depth
            )
        if isinstance(expr, (cst.List, cst.Tuple, cst.Set)):
            for element in expr.elements:
                if not isinstance(element, cst.StarredElement) and self._stored_tensor(
                    element.value, env, statement, depth
                ):
                    kind = "tuple" if isinstance(expr, cst.Tuple) else "list"
                    return f"a {kind} holding tensors"
            return None
        if isinstance(expr, (cst.ListComp, cst.GeneratorExp, cst.SetComp)):
            bound = self.facts.comp_envs.get(expr)
            if bound is not None and self._stored_tensor(expr.elt, bound, statement, depth):
                return "a list of tensors"
            return None
        if isinstance(expr, cst.Name) and depth < 3:
            here = self.facts.order.get(statement, 1 << 30)
            for small, before in self.facts.env_at.items():
                if (
                    isinstance(small, cst.Assign)
                    and small is not statement
                    and self.facts.order.get(small, 1 << 30) < here
                    and any(
                        isinstance(t.target, cst.Name) and t.target.value == expr.value
                        for t in small.targets
                    )
                ):
                    found = self._stored_tensor(small.value, before, small, depth + 1)
                    if found is not None:
                        return found
        return None

    def _overwritten_later(self, node: cst.Assign) -> bool:
        """`node` stores on `self` what a later statement of the same block always stores
        again, with no return or raise between (`_overwritten_stores`)."""
        function = self.facts.node if self.facts is not None else None
        if function is None:
            return False
        if function not in self._overwritten:
            self._overwritten[function] = _overwritten_stores(function)
        return id(node) in self._overwritten[function]

    def _reset_clears(self, name: str) -> bool:
        """The class's `reset()` assigns `self.<name>`: state per sequence, which gluon's
        `unroll` clears before each one (MXNet's ZoneoutCell, VariationalDropoutCell)."""
        klass = self.facts.klass if self.facts is not None else None
        reset = klass.methods.get("reset") if klass is not None else None
        return reset is not None and any(
            isinstance(n, cst.Assign) and any(_self_attribute(t.target) == name for t in n.targets)
            for n in walk_nodes(reset)
        )

    def _read_back(self, name: str) -> bool:
        """`self.<name>` is read in a method of the class other than `__init__` and `reset`
        (`prev_output = self._prev_output`): the stored value is meant to reach later calls."""
        klass = self.facts.klass if self.facts is not None else None
        return klass is not None and _reads_attribute(klass.node, name, ("__init__", "reset"))

    def _unreadable(self, name: str) -> bool:
        """`self.<name>` is a private (name-mangled) attribute, `__x`, that no method of the
        class whose body stores it reads: Python renames it to `_Class__x` there, so no other
        code reads it either (accel-brain-base's EncoderDecoder keeps `self.__pred_arr`, never
        read). What the store leaves on the block differs hybridized, but nothing sees it."""
        facts = self.facts
        klass = facts.klass if facts is not None else None
        if facts is None or klass is None or klass.module is None:
            return False
        if not name.startswith("__") or name.endswith("__"):
            return False
        lineage = class_lineage(klass.node, klass.module.class_nodes or {})
        for cls in lineage:
            if facts.node in cls.body.body:
                if sum(c.name.value == cls.name.value for c in lineage) > 1:
                    return False  # `class Net(base.Net)`: both bodies mangle to `_Net__x`
                # the mangled name spelled anywhere in the file (`net._Net__x`) may read it
                mangled = f"_{cls.name.value.lstrip('_')}{name}"
                return not _reads_private(cls, name) and not self.state.module.spells(mangled)
        return False

    def _traced(self) -> bool:
        """Not in a dunder method the analysis followed (`hybrid_forward` returning
        `self.__call__(...)`, MXNet's sequential RNN cells): a `__call__` override runs on every
        call of the block itself, so its counters are not trace-time state."""
        return self.facts is not None and not self.facts.node.name.value.startswith("__")

    def _read_by_lambdas(self) -> set:
        """Attributes a lambda of the class reads (`nn.HybridLambda(lambda F, t: F.dot(t,
        self.basis))`): such lambdas run inside the same trace, so a tensor stored for them is
        used within the graph (GluonTS's N-BEATS bases), not state kept across calls."""
        klass = self.facts.klass if self.facts is not None else None
        if klass is None:
            return set()
        found = self._lambda_reads.get(klass.node)
        if found is None:
            found = self._lambda_reads[klass.node] = set().union(
                *(_self_attributes(f) for f in walk_nodes(klass.node) if isinstance(f, cst.Lambda))
            )
        return found

    def _is_child(self, name: str) -> bool:
        klass = self.facts.klass if self.facts is not None else None
        return klass is not None and (name in klass.children or name in klass.parameters)

    def _is_container(self, name: str) -> bool:
        """`self.<name>` was set to a list, dict or set literal (or list()/dict()/set()) in __init__."""
        klass = self.facts.klass if self.facts is not None else None
        if klass is None:
            return False
        for small in _init_assignments(klass.node):
            targets = [t.target for t in small.targets]
            if any(_self_attribute(t) == name for t in targets):
                value = small.value
                if isinstance(value, cst.BinaryOperation) and isinstance(
                    value.operator, cst.Multiply
                ):  # `[nd.zeros((1,))] * 3`
                    value = value.left if isinstance(value.left, cst.List) else value.right
                return isinstance(
                    value, (cst.List, cst.Dict, cst.Set, cst.ListComp, cst.DictComp, cst.SetComp)
                ) or (
                    isinstance(value, cst.Call)
                    and isinstance(value.func, cst.Name)
                    and value.func.value
                    in ("list", "dict", "set", "OrderedDict", "defaultdict", "deque")
                )
        return False


def _cached_once(what: str, flag: Optional[str]) -> str:
    return (
        f"{what} is computed once, on the first call (under the `self.{flag}` guard), with "
        "that call's F: called eagerly first it holds NDArrays, which the hybridized graph "
        "cannot take (MXNet: 'Argument rhs must be Symbol instances'), and hybridized first it "
        "holds Symbols, which eager calls cannot take; compute it on every call (or in "
        "`__init__` as a constant parameter)"
    )


def _first_call_guards(function: cst.FunctionDef) -> Dict[cst.CSTNode, str]:
    """The statements of `function` that run under a first-call guard, with its flag: an `if`
    whose test reads `self.<flag>` and whose body assigns `self.<flag>` (`if not
    self.basis_initialized: ...; self.basis_initialized = True`, `if self.cache is None:
    self.cache = ...`). Its body runs on the first call only, eager or traced."""
    found: Dict[cst.CSTNode, str] = {}

    def suite(block: cst.BaseSuite, flag: Optional[str]) -> None:
        if isinstance(block, cst.SimpleStatementSuite):  # `if c: a = 1` on one line
            found.update((small, flag) for small in block.body if flag is not None)
        elif isinstance(block, cst.IndentedBlock):
            for statement in block.body:
                visit(statement, flag)

    def visit(statement: cst.BaseStatement, flag: Optional[str]) -> None:
        if isinstance(statement, cst.If):
            own = flag or _guard_flag(statement)
            if own is not None:
                found[statement] = own
            suite(statement.body, own)
            if isinstance(statement.orelse, cst.If):  # `elif`: not under this guard
                visit(statement.orelse, flag)
            elif isinstance(statement.orelse, cst.Else):
                suite(statement.orelse.body, flag)
            return
        if flag is not None:
            found[statement] = flag
            if isinstance(statement, cst.SimpleStatementLine):
                found.update((small, flag) for small in statement.body)
        if isinstance(statement, cst.BaseCompoundStatement):
            for block in _suites(statement):
                suite(block, flag)

    suite(function.body, None)
    return found


def _overwritten_stores(function: cst.FunctionDef) -> Set[int]:
    """The ids of the `self.<a> = ...` assignments of `function` that a later statement of
    the same block assigns `self.<a>` again, unconditionally, with no `return`, `raise`,
    `break` or `continue` between: the call's own scratch values (accel-brain-base's RBM keeps
    its activities on `self` while it computes, each overwritten before the call returns).
    What is stored there never outlives the call, eagerly or hybridized; the last store is
    still judged."""
    found: Set[int] = set()
    exits = (cst.Return, cst.Raise, cst.Break, cst.Continue)

    def stores(statement: cst.BaseStatement) -> List[Tuple[cst.Assign, str]]:
        if not isinstance(statement, cst.SimpleStatementLine):
            return []
        return [
            (small, name)
            for small in statement.body
            if isinstance(small, cst.Assign)
            for target in small.targets
            if (name := _self_attribute(target.target)) is not None
        ]

    def block(statements: Sequence[cst.BaseStatement]) -> None:
        pending: Dict[str, List[cst.Assign]] = {}  # attribute -> its stores not yet replaced
        for statement in statements:
            if any(isinstance(n, exits) for n in walk_nodes(statement)):
                pending.clear()  # a store before an exit may be the call's last
            for small, name in stores(statement):
                found.update(id(store) for store in pending.pop(name, []) if store is not small)
            for small, name in stores(statement):
                pending.setdefault(name, []).append(small)
            if isinstance(statement, cst.BaseCompoundStatement):
                for suite in _all_suites(statement):
                    if isinstance(suite, cst.IndentedBlock):
                        block(suite.body)

    block(function.body.body if isinstance(function.body, cst.IndentedBlock) else [])
    return found


def _all_suites(statement: cst.BaseCompoundStatement) -> List[cst.BaseSuite]:
    """Every block of a compound statement, `elif`/`else` chains included."""
    if isinstance(statement, cst.If):
        suites: List[cst.BaseSuite] = [statement.body]
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            suites.extend(_all_suites(orelse))
        elif orelse is not None:
            suites.append(orelse.body)
        return suites
    return _suites(statement)


def _suites(statement: cst.BaseCompoundStatement) -> List[cst.BaseSuite]:
    """The blocks of a compound statement other than `if` (loops, `with`, `try`)."""
    blocks = [statement.body]
    for part in (
        getattr(statement, "orelse", None),
        getattr(statement, "finalbody", None),
        *getattr(statement, "handlers", ()),
    ):
        if part is not None:
            blocks.append(part.body)
    return blocks


def _self_attributes(node: cst.CSTNode) -> Set[str]:
    """The `<a>` of every `self.<a>` under `node`."""
    return {
        name
        for n in walk_nodes(node)
        if isinstance(n, cst.Attribute) and (name := _self_attribute(n)) is not None
    }


def _filled_once(function: cst.FunctionDef, assign: cst.Assign, name: str) -> bool:
    """Whether `assign` runs under an `if` that tests `self.<name>` for being unset: `is None`,
    `not self.<name>`, `not isinstance(self.<name>, ...)` (what the assignment then makes it)."""
    for node in walk_nodes(function.body):
        if isinstance(node, cst.If) and _unset_test(node.test, name):
            if any(inner is assign for inner in walk_nodes(node.body)):
                return True
    return False


def _unset_test(test: cst.BaseExpression, name: str) -> bool:
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = test.expression
        if _self_attribute(inner) == name:
            return True
        return (
            isinstance(inner, cst.Call)
            and isinstance(inner.func, cst.Name)
            and inner.func.value == "isinstance"
            and len(inner.args) == 2
            and _self_attribute(inner.args[0].value) == name
        )
    return (
        isinstance(test, cst.Comparison)
        and _self_attribute(test.left) == name
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    )


def _guard_flag(statement: cst.If) -> Optional[str]:
    """`self.<a>` read by the test of `statement` and assigned in its body, else None."""
    read = _self_attributes(statement.test)
    if not read:
        return None
    for node in walk_nodes(statement.body):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                if _self_attribute(target.target) in read:
                    return _self_attribute(target.target)
    return None


def _namespace_stores(method: cst.FunctionDef) -> Set[str]:
    """The attributes `method` assigns values that use its namespace parameter (the first
    after `self`): `self.basis = trend_model(F, ...)`."""
    params = method.params.params
    if len(params) < 2:
        return set()
    namespace = params[1].name.value
    return {
        name
        for node in walk_nodes(method.body)
        if isinstance(node, cst.Assign)
        for target in node.targets
        if (name := _self_attribute(target.target)) is not None
        and any(isinstance(n, cst.Name) and n.value == namespace for n in walk_nodes(node.value))
    }


_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _eager_only_state(klass: "ClassFacts") -> Dict[str, tuple]:
    """`self.<a>` -> (its first store, its first read) for the attributes the class's analysed
    methods store only in branches an NDArray test guards (`FunctionFacts.eager_branches`) and
    read outside every eager-only branch; an attribute any other store sets (outside those
    branches, in a method the analysis does not follow, a child) is left out. `__init__`'s own
    stores (`self.xs = None`) are the default such code reads before any eager call."""
    scopes = [f for f in klass.module.scopes if f.klass is klass] if klass.module else []
    eager: Dict[str, cst.CSTNode] = {}
    for facts in scopes:
        for branch in facts.eager_branches:
            for node in walk_nodes(branch, _SCOPES):
                if isinstance(node, cst.Assign) and len(node.targets) == 1:
                    name = _self_attribute(_stored(node.targets[0].target))
                    if name is not None:
                        eager[name] = node  # the walk meets siblings last first
    if not eager:
        return {}
    stored: Set[str] = set()
    reads: Dict[str, cst.CSTNode] = {}
    analysed = {f.node for f in scopes}
    for method in klass.methods.values():
        if method in analysed or method.name.value == "__init__":
            continue
        stored |= _stored_attributes(method.body)
    for facts in scopes:
        targets: Set[cst.CSTNode] = set()
        stack: List[cst.CSTNode] = [facts.node.body]
        while stack:
            node = stack.pop()
            if node in facts.skip:
                continue
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
                for written in map(_stored, _targets(node)):
                    targets.add(written)
                    name = _self_attribute(written)
                    if name is not None:
                        stored.add(name)
            elif isinstance(node, cst.Attribute) and node not in targets:
                name = _self_attribute(node)
                if name in eager:
                    reads.setdefault(name, node)
            if node is not facts.node.body and isinstance(node, _SCOPES):
                continue
            stack.extend(reversed(list(syntax_children(node))))
    return {
        name: (eager[name], reads[name])
        for name in reads
        if name not in stored and name not in klass.children
    }


def _stored_attributes(body: cst.CSTNode) -> Set[str]:
    """The `self.<a>` a body assigns anywhere."""
    found: Set[str] = set()
    for node in walk_nodes(body):
        if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)):
            for target in _targets(node):
                name = _self_attribute(_stored(target))
                if name is not None:
                    found.add(name)
    return found


def _targets(node: cst.CSTNode) -> List[cst.BaseExpression]:
    """The targets an assignment statement (plain, augmented, annotated) writes."""
    if isinstance(node, cst.Assign):
        return [t.target for t in node.targets]
    return [node.target] if isinstance(node, (cst.AugAssign, cst.AnnAssign)) else []


def _stored(target: cst.BaseExpression) -> cst.BaseExpression:
    """What a store target writes: `self.cache[k] = v` writes (into) `self.cache`."""
    return target.value if isinstance(target, cst.Subscript) else target


def _init_assignments(klass: cst.ClassDef):
    """The simple assignments of the class's own `__init__` (the last one of a name wins)."""
    found = []
    for statement in klass.body.body:
        if isinstance(statement, cst.FunctionDef) and statement.name.value == "__init__":
            for line in _walk(statement.body.body):
                if isinstance(line, cst.Assign):
                    found.append(line)
    return list(reversed(found))


def _walk(body):
    for statement in body:
        if isinstance(statement, cst.SimpleStatementLine):
            yield from statement.body
        elif isinstance(statement, (cst.If, cst.With, cst.For, cst.While, cst.Try)):
            yield from _walk(statement.body.body)
