"""The statement walk of the shared analysis: a small forward abstract interpretation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst

from ..mxnet_facts import CREATION_OPS, fixed_namespace_op
from ._shape_forms import root
from .evaluate import Evaluator
from .guards import always_exits, classify_guard, configuration_guard, narrowed
from .values import (
    BLOCK,
    SELF_PREFIX,
    self_attribute_name,
    unpacked,
    walk_nodes,
    NONNEGATIVE,
    iterated_names,
    SCALAR,
    SCALAR_VALUE,
    SEQUENCE,
    TENSOR,
    TENSORS,
    UNKNOWN_VALUE,
    Env,
    Value,
    dotted_name,
    join_envs,
    with_form,
    literal_int,
    target_names,
    bound_targets,
)

if TYPE_CHECKING:  # pragma: no cover
    from .analysis import FunctionFacts


class FunctionAnalyzer:
    def __init__(self, facts: FunctionFacts, on_call) -> None:
        self.facts = facts
        self.evaluator = Evaluator(facts, self)
        self.on_call = on_call
        self.counter = 0
        self.loop_stack: List[cst.CSTNode] = []
        self.local_defs: Dict[str, cst.FunctionDef] = {}
        # inputs taken for tensors by position whose len() is taken or that a `for` iterates:
        # `analysis.list_inputs` decides whether they are lists of arrays
        self.sequence_hints: Set[str] = set()
        self.initial: Env = {}
        self.outer_names: Set[str] = {
            name.name.value
            for node in walk_nodes(facts.node.body)
            if isinstance(node, (cst.Global, cst.Nonlocal))
            for name in node.names
        }
        self.appended = _appended_lists(facts.node)

    def join(self, a: Env, b: Env) -> Env:
        """The env where two paths meet. A name bound on one path only is unbound on the
        other (every key is a name the walk bound, and a name bound anywhere in a function is
        local to all of it): reading it there raises NameError whatever it would hold, so it
        holds the one path's value (`if c: m = x.astype(...)`, later `if c: m.size`). A name
        the function declares global or nonlocal holds an outer value on the other path."""
        joined = join_envs(a, b)
        for name in a.keys() ^ b.keys():
            if name not in self.outer_names:
                joined[name] = a[name] if name in a else b[name]
        for name in self.appended & a.keys() & b.keys():  # still empty on one path
            kinds = {a[name].kind, b[name].kind}
            if kinds == {SCALAR, TENSORS}:
                grown = a[name] if a[name].kind == TENSORS else b[name]
                joined[name] = Value(
                    TENSORS,
                    assumed=a[name].assumed or b[name].assumed,
                    item_form=grown.item_form,
                )
        return joined

    def alias_use(self, name: str) -> None:
        self.facts.alias_uses.setdefault(name, []).append((self.counter, tuple(self.loop_stack)))

    def call_site(self, key: Tuple[object, ...], call: cst.Call, args: List[Value]) -> None:
        """Hand a call the walk met to `on_call`: `key` names the callee (("function",
        name), ("method", name), ("instance", class, method, what `self.<a>` holds), ...)."""
        name = key[1]
        if key[0] == "function" and isinstance(name, str) and name in self.local_defs:
            self.on_call(self.local_defs[name], self.facts, call, args)
        else:
            self.on_call(key, self.facts, call, args)

    def eval(self, expr: Optional[cst.BaseExpression], env: Env) -> Value:
        if expr is None:
            return UNKNOWN_VALUE
        return self.evaluator.eval(expr, env)

    def run(self) -> None:
        # each tensor input is the root of its own shape form (`_shape_forms`): what a caller's
        # forms said is relative to the caller's roots
        env = {
            name: with_form(value, root(f"{name}@{id(self.facts.node)}"))
            if value.kind == TENSOR
            else value
            for name, value in self.facts.params.items()
        }
        if (
            self.facts.kind != "hybrid_forward"
            and self.facts.namespace is None
            and any(v.assumed for v in env.values())
            and _host_code(self.facts)
        ):
            # a helper that gets no F and computes with numpy is host code: gluon hands a
            # child's non-array inputs to hybrid_forward unchanged (HybridBlock.forward), so an
            # input nothing proved an MXNet array may be the numpy array a parent made
            # (CIFARFractalNet's np.random.randint columns into FractalBlock.calc_drop_mask);
            # what numpy arrays share with NDArrays there (.shape, arithmetic, indexing) proves
            # nothing more. A helper that also runs MXNet operators (yolov4's
            # `yolo_forward_dynamic`: numpy grids beside `nd.concat` of the input's slices) is
            # array code that makes numpy constants, not host code
            env = {name: UNKNOWN_VALUE if value.assumed else value for name, value in env.items()}
        self.initial = env  # what a name holds until rebound (`_input_uses.tensors_by_use`)
        self.block(self.facts.node.body, env)

    def block(self, suite: cst.BaseSuite, env: Env) -> Tuple[Env, bool]:
        """Analyse a suite; returns the env after it and whether it always exits."""
        # a SimpleStatementSuite (`if x: return y`) is one statement, walked as a whole
        statements: Sequence[cst.CSTNode] = []
        if isinstance(suite, cst.IndentedBlock):
            statements = suite.body
        else:
            statements = [suite]
        for index, stmt in enumerate(statements):
            env, exits, rest_eager = self.statement(stmt, env)
            if rest_eager:
                self.facts.skip.update(statements[index + 1 :])
                return env, exits
            if exits:
                return env, True
        return env, False

    def statement(self, stmt: cst.CSTNode, env: Env) -> Tuple[Env, bool, bool]:
        """Returns (env after, always exits, the rest of the block is eager-only)."""
        self.counter += 1
        self.facts.env_at[stmt] = env
        self.facts.order[stmt] = self.counter
        self.facts.loops[stmt] = tuple(self.loop_stack)
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            exits = False
            for small in stmt.body:
                env, small_exits = self.small_statement(small, env)
                exits = exits or small_exits
            return env, exits, False
        if isinstance(stmt, cst.If):
            return self.if_statement(stmt, env)
        if isinstance(stmt, (cst.For, cst.While)):
            return self.loop(stmt, env), False, False
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                self.eval(item.item, env)
                if item.asname is not None:
                    env = self.bind(item.asname.name, UNKNOWN_VALUE, env)
            env, exits = self.block(stmt.body, env)
            return env, exits, False
        if isinstance(stmt, cst.Try):
            after, _ = self.block(stmt.body, dict(env))
            joined = self.join(env, after)
            for handler in stmt.handlers:
                handler_env, _ = self.block(handler.body, dict(joined))
                joined = self.join(joined, handler_env)
            if stmt.orelse is not None:
                joined = self.join(joined, self.block(stmt.orelse.body, dict(after))[0])
            if stmt.finalbody is not None:
                joined = self.block(stmt.finalbody.body, joined)[0]
            return joined, False, False
        if isinstance(stmt, cst.FunctionDef):
            self.local_defs[stmt.name.value] = stmt
            self.facts.local_defs[stmt.name.value] = stmt
            self.facts.module.local_envs[stmt] = dict(env)
            return {**env, stmt.name.value: UNKNOWN_VALUE}, False, False
        if isinstance(stmt, cst.ClassDef):
            return {**env, stmt.name.value: UNKNOWN_VALUE}, False, False
        return env, False, False

    def small_statement(self, small: cst.BaseSmallStatement, env: Env) -> Tuple[Env, bool]:
        self.facts.env_at[small] = env
        self.facts.order[small] = self.counter
        self.facts.loops[small] = tuple(self.loop_stack)
        if isinstance(small, cst.Assign):
            if (
                len(small.targets) == 1
                and isinstance(small.targets[0].target, (cst.Tuple, cst.List))
                and isinstance(small.value, (cst.Tuple, cst.List))
                and len(small.targets[0].target.elements) == len(small.value.elements)
            ):
                values = [self.eval(e.value, env) for e in small.value.elements]
                env = dict(env)
                for element, value in zip(small.targets[0].target.elements, values):
                    env = self.bind(element.value, value, env)
                return env, False
            value = self.eval(small.value, env)
            for target in small.targets:
                env = self.bind(target.target, value, env)
            return env, False
        if isinstance(small, cst.AnnAssign):
            if small.value is None:
                return env, False
            return self.bind(small.target, self.eval(small.value, env), env), False
        if isinstance(small, cst.AugAssign):
            value = self.eval(small.value, env)
            if isinstance(small.target, cst.Name):
                old = env.get(small.target.value, UNKNOWN_VALUE)
                joins = isinstance(small.operator, (cst.AddAssign, cst.MultiplyAssign))
                if isinstance(small.value, (cst.Integer, cst.Float)) or (
                    not joins and value.is_tensor
                ):
                    self.evaluator.array_use(small.target, old)  # `feats += 1`: no list does that
                if old.kind == TENSOR or value.kind == TENSOR:
                    new = Value(TENSOR, old.shape, fresh=old.fresh)
                elif old.kind == SCALAR and value.kind == SCALAR:
                    new = SCALAR_VALUE
                else:
                    new = UNKNOWN_VALUE
                return {**env, small.target.value: new}, False
            self.eval(small.target, env)
            return env, False
        if isinstance(small, cst.Expr):
            self.eval(small.value, env)
            appended = _append_call(small.value, self.appended)
            if appended is not None:  # `outs.append(y)`: a list of tensors while each item is one
                name, item = appended
                value, held = self.eval(item, env), env.get(name, UNKNOWN_VALUE)
                if value.kind == TENSOR and held.kind in (SCALAR, TENSORS):
                    # the first item's form, or the items' while every item has the same
                    same = held.kind == SCALAR or held.item_form == value.form
                    grown = Value(
                        TENSORS,
                        assumed=value.assumed or held.assumed,
                        item_form=value.form if same else None,
                    )
                else:
                    grown = Value(SEQUENCE)
                return {**env, name: grown}, False
            return env, False
        if isinstance(small, cst.Return):
            value = self.eval(small.value, env) if small.value is not None else SCALAR_VALUE
            self.facts.returns.append(value)
            return env, True
        if isinstance(small, cst.Raise):
            self.eval(small.exc, env)
            return env, True
        if isinstance(small, cst.Assert):
            self.eval(small.test, env)
            return env, False
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            names = small.names if not isinstance(small.names, cst.ImportStar) else ()
            env = dict(env)
            for alias in names:
                bound = alias.asname.name if alias.asname else alias.name
                key = dotted_name(bound) if isinstance(bound, (cst.Name, cst.Attribute)) else None
                if key:
                    env[key.split(".")[0]] = UNKNOWN_VALUE
            return env, False
        return env, False

    def bind_loop_target(
        self, target: cst.BaseExpression, iterable: cst.BaseExpression, element: Value, env: Env
    ) -> Env:
        """`for target in iterable`, each element being `element` (analysis.py binds `zip`
        and `enumerate` element by element)."""
        return self.bind(target, element, env)

    def bind(self, target: cst.BaseExpression, value: Value, env: Env) -> Env:
        if isinstance(target, cst.Name):
            return {**env, target.value: value}
        if isinstance(target, (cst.Tuple, cst.List)):
            for item, known in zip(target.elements, unpacked(value, target.elements)):
                env = self.bind(item.value, known, env)
            return env
        if isinstance(target, (cst.Attribute, cst.Subscript)):
            self.evaluator.eval(target.value, env, consumed=True)
            attr = self_attribute_name(target)
            if attr is not None:  # read back later in this function (`Evaluator`)
                return {**env, SELF_PREFIX + attr: value}
        return env

    def if_statement(self, stmt: cst.If, env: Env) -> Tuple[Env, bool, bool]:
        self.eval(stmt.test, env)
        body_eager, orelse_eager = classify_guard(
            stmt.test,
            self.facts.namespace,
            self.facts.module.namespace_kind,
            lambda expr: self.evaluator.eval(expr, env).kind == TENSOR,
            predicates=self.facts.module.predicates,
        )
        body_symbol, orelse_symbol = classify_guard(
            stmt.test,
            self.facts.namespace,
            self.facts.module.namespace_kind,
            symbol=True,
            predicates=self.facts.module.predicates,
        )
        for branch in (stmt.body if body_symbol else None, stmt.orelse if orelse_symbol else None):
            if branch is not None:
                self.facts.symbol_only.update(walk_nodes(branch))
        opted_body, opted_orelse = configuration_guard(stmt.test, self.facts.klass)
        if body_eager:
            self.facts.eager_branches.add(stmt.body)
        if orelse_eager and stmt.orelse is not None:
            self.facts.eager_branches.add(stmt.orelse)
        body_eager, orelse_eager = body_eager or opted_body, orelse_eager or opted_orelse
        taken, other = narrowed(stmt.test, env)  # `isinstance(x, list)`: x's kind in each branch
        if body_eager:
            self.facts.skip.add(stmt.body)
            body_env, body_exits = env, always_exits(stmt.body)
        else:
            body_env, body_exits = self.block(stmt.body, dict(taken))
        orelse_exits = False
        orelse_env = other
        if stmt.orelse is not None:
            if orelse_eager:
                self.facts.skip.add(stmt.orelse)
                orelse_exits = isinstance(stmt.orelse, cst.Else) and always_exits(stmt.orelse.body)
            elif isinstance(stmt.orelse, cst.If):
                orelse_env, orelse_exits, _ = self.statement(stmt.orelse, dict(other))
            else:
                orelse_env, orelse_exits = self.block(stmt.orelse.body, dict(other))
        # `if F is mx.sym: raise` -> the rest is eager-only; likewise `if eager: ... else: raise`.
        rest_eager = (orelse_eager and body_exits) or (
            body_eager and stmt.orelse is not None and orelse_exits
        )
        if (body_exits or body_eager) and not orelse_exits:
            # hybridized, an eager-only body never runs: what it assigns is not what follows
            return orelse_env, False, rest_eager
        if (orelse_exits or orelse_eager) and not body_exits:
            return body_env, False, rest_eager
        return self.join(body_env, orelse_env), body_exits and orelse_exits, rest_eager

    def loop(self, stmt, env: Env) -> Env:
        self.loop_stack.append(stmt)
        try:
            if isinstance(stmt, cst.For):
                iterable = self.eval(stmt.iter, env)
                for name in iterated_names(stmt.iter):  # `for f in feats`, `zip(blocks, feats)`
                    if env.get(name, UNKNOWN_VALUE).assumed:
                        self.sequence_hints.add(name)
                element = (
                    Value(TENSOR, assumed=iterable.assumed)
                    if iterable.kind in (TENSORS, TENSOR)
                    else iterable  # `for layer in self.features`: each a block
                    if iterable.kind == BLOCK
                    else UNKNOWN_VALUE
                )
                if isinstance(stmt.iter, cst.Call) and dotted_name(stmt.iter.func) == "range":
                    element = (
                        NONNEGATIVE
                        if _counts_up_from_zero_or_more(stmt.iter, self, env)
                        else SCALAR_VALUE
                    )
                start = self.bind_loop_target(stmt.target, stmt.iter, element, dict(env))
            else:
                self.eval(stmt.test, env)
                start = dict(env)
            after, _ = self.block(stmt.body, start)
            second_start = self.join(start, after)  # a second pass sees values from the loop end
            after, _ = self.block(stmt.body, second_start)
            result = self.join(env, after)
            if stmt.orelse is not None:
                result = self.block(stmt.orelse.body, result)[0]
            return result
        finally:
            self.loop_stack.pop()


def _appended_lists(function: cst.FunctionDef) -> Set[str]:
    """Names the function binds only to an empty list (`outs = []`) and then only appends to
    (`outs.append(y)`; reads and `*outs` too, no other method, no item stores): the walk
    follows what they hold (a list of tensors while every appended item is one). The walk
    reads `[]` as a number otherwise (nothing in it is an array)."""
    stores: Dict[str, int] = {}
    empty: Dict[str, int] = {}
    other: Set[str] = set()
    for node in walk_nodes(function.body, stop=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if isinstance(node, cst.Assign):
            for target in node.targets:
                for name in _bound_empty(target.target, node.value):  # `w, o = [], []` too
                    empty[name] = empty.get(name, 0) + 1
                if isinstance(target.target, cst.Subscript):
                    other.update(
                        n.value for n in walk_nodes(target.target.value) if isinstance(n, cst.Name)
                    )
        for bound in bound_targets(node):
            for name in target_names(bound):
                stores[name] = stores.get(name, 0) + 1
        if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            if node.attr.value != "append":
                other.add(node.value.value)
    return {name for name, count in empty.items() if stores.get(name) == count} - other


def _empty_list(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.List) and not node.elements


def _bound_empty(target: cst.BaseExpression, value: cst.BaseExpression) -> List[str]:
    """The names `target = value` binds to an empty list: `outs = []`, and each name of
    `w, o = [], []` paired with one."""
    if isinstance(target, cst.Name):
        return [target.value] if _empty_list(value) else []
    if (
        isinstance(target, (cst.Tuple, cst.List))
        and isinstance(value, (cst.Tuple, cst.List))
        and len(target.elements) == len(value.elements)
    ):
        return [
            t.value.value
            for t, v in zip(target.elements, value.elements)
            if isinstance(t, cst.Element)
            and isinstance(t.value, cst.Name)
            and isinstance(v, cst.Element)
            and _empty_list(v.value)
        ]
    return []


def _append_call(
    expr: cst.BaseExpression, names: Set[str]
) -> Optional[Tuple[str, cst.BaseExpression]]:
    """(name, item) for `name.append(item)` with name in `names`."""
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and isinstance(expr.func.value, cst.Name)
        and expr.func.value.value in names
        and expr.func.attr.value == "append"
        and len(expr.args) == 1
        and expr.args[0].keyword is None
        and not expr.args[0].star
    ):
        return expr.func.value.value, expr.args[0].value
    return None


def _counts_up_from_zero_or_more(call: cst.Call, analyzer: "FunctionAnalyzer", env: Env) -> bool:
    """`range(n)`, `range(a, n)` with a >= 0, `range(a, n, s)` with a literal step > 0."""
    args = [a for a in call.args if a.keyword is None and not a.star]
    if len(args) != len(call.args) or not 1 <= len(args) <= 3:
        return False
    if len(args) == 3:
        step = literal_int(args[2].value)
        if step is None or step <= 0:
            return False
    if len(args) >= 2:
        start = literal_int(args[0].value)
        if start is None:
            return analyzer.evaluator.eval(args[0].value, env, consumed=True).nonnegative
        return start >= 0
    return True


def _host_code(facts: "FunctionFacts") -> bool:
    """Whether the function calls numpy (`np.zeros(...)`, `numpy.where(...)`, any import alias)
    and no operator of mx.nd on arrays (`nd.concat(...)`, `mx.nd.sigmoid(x)`; creation
    functions such as `nd.zeros(shape)` or `nd.array(np_value)` are what host code makes its
    results with)."""
    context = facts.module.context
    numpy = False
    for node in walk_nodes(facts.node.body):
        if not isinstance(node, cst.Call):
            continue
        name = dotted_name(node.func)
        if name is None or "." not in name:
            continue
        if context is None:
            numpy = numpy or name.startswith(("np.", "numpy."))
            continue
        qualified = context.qualify(name) or ""
        numpy = numpy or qualified.startswith("numpy.")
        found = fixed_namespace_op(qualified)
        if found is not None and found[1] and found[0] not in _HOST_CREATION:
            return False
    return numpy


# mx.nd functions that make an array from a shape or a value, as host code does
_HOST_CREATION = CREATION_OPS | {"arange", "eye", "linspace", "random.randint"}
