"""Eager-only guards: which branches of an `if` only ever run on NDArrays."""

from __future__ import annotations

import io
import re
import tokenize
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Callable, FrozenSet, Iterator, Mapping, Optional, Tuple

import libcst as cst

from ..mxnet_facts import NDARRAY_ONLY_ATTRIBUTES
from .values import (
    EAGER_NAMESPACES,
    SYMBOL_NAMESPACES,
    Value,
    dotted_name,
    self_attribute_name,
    walk_nodes,
)


def classify_guard(
    test: cst.BaseExpression,
    namespace: Optional[str],
    kind_of: Optional[Callable[[Optional[str]], Optional[str]]] = None,
    is_tensor: Optional[Callable[[cst.BaseExpression], bool]] = None,
    *,
    symbol: bool = False,
    predicates: Optional[Mapping[str, Tuple[Tuple[str, ...], str]]] = None,
) -> Tuple[bool, bool]:
    """(body is eager-only, orelse is eager-only) for `if test:`; with ``symbol``, (body is
    symbol-only, orelse is symbol-only): `if F == mx.sym and ...:` runs only hybridized, where
    a fixed `mx.sym.` call is right (turicreate's InstanceNorm builds its CoreML graph so).

    `kind_of` resolves module names to "eager" / "symbol" (`_ND = proxy_of(ndarray)`,
    `from mxnet import ndarray as _ND`: `ModuleContext.namespace_kind`); `is_tensor`, when
    given, tells which expressions hold tensors (`hasattr(y, "shape")` guards only a tensor's
    branch: a numpy array has a shape in both modes). `predicates` are the module's one-line
    test functions (`ModuleContext.predicates`): `if mxnet_is_ndarray(F):` is read as the test
    it returns."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        body, orelse = classify_guard(
            test.expression, namespace, kind_of, is_tensor, symbol=symbol, predicates=predicates
        )
        return orelse, body
    if isinstance(test, cst.BooleanOperation):
        left = classify_guard(
            test.left, namespace, kind_of, is_tensor, symbol=symbol, predicates=predicates
        )
        right = classify_guard(
            test.right, namespace, kind_of, is_tensor, symbol=symbol, predicates=predicates
        )
        if isinstance(test.operator, cst.And):
            return left[0] or right[0], False
        return left[0] and right[0], left[1] or right[1]
    if isinstance(test, cst.Call) and namespace is not None:
        tested = _predicate_call(test, namespace, kind_of, predicates, symbol)
        if tested is not None:
            return tested
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comp = test.comparisons[0]
        positive = isinstance(comp.operator, (cst.Is, cst.Equal))
        negative = isinstance(comp.operator, (cst.IsNot, cst.NotEqual))
        named = _module_name_kind(test.left, comp.comparator, namespace)
        if named is not None:  # `F.__name__ == 'mxnet.ndarray'` (equality only)
            if not isinstance(comp.operator, (cst.Equal, cst.NotEqual)):
                return False, False
            return _decided(named == "eager", positive, negative, symbol)
        sides = [dotted_name(test.left), dotted_name(comp.comparator)]
        if namespace is None or namespace not in sides:
            return False, False
        other = sides[1] if sides[0] == namespace else sides[0]
        if other == "None":
            # `if F is None:`: gluon always passes a namespace, so that branch runs only when
            # the block's own code calls hybrid_forward(None, ...) on Python numbers (sockeye's
            # BrevityPenalty): never on a Symbol
            if symbol:
                return False, False
            return _decided(True, positive, negative, symbol)
        kind = (kind_of(other) if kind_of is not None else None) or _named_kind(other)
        eager = other in EAGER_NAMESPACES or kind == "eager"
        if not eager and not (other in SYMBOL_NAMESPACES or kind == "symbol"):
            return False, False
        return _decided(eager, positive, negative, symbol)
    if (
        isinstance(test, cst.Call)
        and dotted_name(test.func) == "isinstance"
        and len(test.args) == 2
    ):
        types = test.args[1].value
        names = (
            [dotted_name(e.value) for e in types.elements]
            if isinstance(types, cst.Tuple)
            else [dotted_name(types)]
        )
        if names and all(n is not None and n.split(".")[-1] == "NDArray" for n in names):
            return (False, True) if symbol else (True, False)
        if names and all(n is not None and n.split(".")[-1] == "Symbol" for n in names):
            return (True, False) if symbol else (False, True)
    if symbol:
        return False, False
    if (
        is_tensor is not None
        and isinstance(test, cst.Call)
        and dotted_name(test.func) == "hasattr"
        and len(test.args) == 2
        and isinstance(test.args[1].value, cst.SimpleString)
        and test.args[1].value.evaluated_value in NDARRAY_ONLY_ATTRIBUTES
        and is_tensor(test.args[0].value)
    ):
        # `if hasattr(y, "shape"):`: a Symbol has no shape, so the body runs eagerly only (a
        # size cache filled from NDArrays); the else branch runs in both modes
        return True, False
    return False, False


def _decided(eager: bool, positive: bool, negative: bool, symbol: bool) -> Tuple[bool, bool]:
    """(body, orelse) of a test that F is (`positive`) or is not (`negative`) the eager or
    the symbol namespace: the branch that runs only in the mode asked about (`symbol`)."""
    if eager == symbol:  # the test names the other mode
        positive, negative = negative, positive
    return (True, False) if positive else (False, True) if negative else (False, False)


# what `F.__name__` is in each mode
_MODULE_NAMES = {"mxnet.ndarray": "eager", "mxnet.symbol": "symbol"}


def _module_name_kind(
    left: cst.BaseExpression, right: cst.BaseExpression, namespace: Optional[str]
) -> Optional[str]:
    """ "eager" / "symbol" for `F.__name__ == 'mxnet.ndarray'` / `'mxnet.symbol'` (either side)."""
    if namespace is None:
        return None
    for name, text in ((left, right), (right, left)):
        if dotted_name(name) == namespace + ".__name__" and isinstance(text, cst.SimpleString):
            return _MODULE_NAMES.get(str(text.evaluated_value))
    return None


@lru_cache(maxsize=256)
def _parsed_test(source: str) -> Optional[cst.BaseExpression]:
    try:
        return cst.parse_expression(source)
    except cst.ParserSyntaxError:
        return None


def _predicate_call(
    call: cst.Call,
    namespace: str,
    kind_of: Optional[Callable[[Optional[str]], Optional[str]]],
    predicates: Optional[Mapping[str, Tuple[Tuple[str, ...], str]]],
    symbol: bool,
) -> Optional[Tuple[bool, bool]]:
    """`pred(F)`: what a module function that tests the namespace it is given decides
    (`ModuleContext.predicates`: one defined in the module as `return <test>`, read as that
    test one level deep, or one imported under a name like `mxnet_is_ndarray`)."""
    if not isinstance(call.func, cst.Name):
        return None
    position = next(
        (
            i
            for i, arg in enumerate(call.args)
            if arg.keyword is None and not arg.star and dotted_name(arg.value) == namespace
        ),
        None,
    )
    if position is None:
        return None
    definition = (predicates or {}).get(call.func.value)
    if definition is None:
        return None
    params, source = definition
    parsed = _parsed_test(source)
    if parsed is None or position >= len(params):
        return None
    tested = params[position]
    others = set(params) - {tested}
    if any(isinstance(n, cst.Name) and n.value in others for n in walk_nodes(parsed)):
        return None  # `def same(F, nd): return F is nd`: what the test means depends on the call
    return classify_guard(parsed, tested, kind_of, symbol=symbol)


def configuration_guard(test: cst.BaseExpression, klass) -> Tuple[bool, bool]:
    """(body is eager-only, orelse is eager-only) by the block's own opt-out of hybridization:
    `if self.hybridizable: return ...` (a flag whose name says so: what follows runs only when
    the block is not hybridizable), and tests the constructor asserts whenever the block is
    hybridizable (`assert use_nms or not hybridizable` makes `else` of `if self.use_nms:` eager-only).
    """
    if klass is None or not (klass.opt_out_flags or klass.invariants):
        return False, False
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        body, orelse = configuration_guard(test.expression, klass)
        return orelse, body
    if (
        isinstance(test, cst.Attribute)
        and isinstance(test.value, cst.Name)
        and test.value.value == "self"
        and test.attr.value in klass.opt_out_flags
    ):
        return False, True
    if klass.invariants and normalized_code(test) in klass.invariants:
        return False, True
    return False, False


def normalized_code(node: cst.CSTNode) -> str:
    """`node`'s source without parentheses, whitespace or comments (to compare two spellings
    of a test)."""
    return normalized_text(cst.Module([]).code_for_node(node))


def normalized_text(code: str) -> str:
    """Source text without parentheses, whitespace or comments (`normalized_code` of its node).
    Comments go too: a LibCST node holds those inside its own parentheses, which ast's source
    segment of the same expression leaves out (configured.py keys a conditional by ast)."""
    if "#" in code:
        code = _without_comments(code)
    return re.sub(r"[\s()]", "", code)


def _without_comments(code: str) -> str:
    """`code`'s tokens without its comments (`code` itself when it does not tokenize)."""
    try:  # in parentheses: the lines of an expression, their indentation no block's
        tokens = list(tokenize.generate_tokens(io.StringIO(f"({code}\n)").readline))
    except (tokenize.TokenError, SyntaxError):
        return code
    return " ".join(t.string for t in tokens if t.type != tokenize.COMMENT)


# The fallbacks a configuration the checker ran does take: (class name, the conditional
# expression's `normalized_code`). Set only while `--verify` fixes a file whose examples build
# the block so (hybridlint/checker/configured.py); empty, every lint reads the module's own
# configuration.
_TAKEN_FALLBACKS: ContextVar[FrozenSet[Tuple[str, str]]] = ContextVar(
    "taken_fallbacks", default=frozenset()
)


@contextmanager
def fallbacks_taken(keys: FrozenSet[Tuple[str, str]]) -> Iterator[None]:
    """Within: `configuration_fallback` lets the rules see the dynamic fallbacks named by
    ``keys`` ((class name, normalized code of the conditional expression)) as taken."""
    token = _TAKEN_FALLBACKS.set(keys)
    try:
        yield
    finally:
        _TAKEN_FALLBACKS.reset(token)


def taken_fallbacks_now() -> FrozenSet[Tuple[str, str]]:
    """The fallbacks `fallbacks_taken` names here (part of what a lint's result depends on:
    hybridlint/linter.py keys its memo of located findings on it)."""
    return _TAKEN_FALLBACKS.get()


def configuration_fallback(expr: cst.IfExp, klass) -> Optional[cst.BaseExpression]:
    """The branch of `self.in_size if self.fixed_size else x.shape[2:]` that the block's default
    configuration does not evaluate, when the other branch is a `self` attribute (a static value
    the constructor stores): with `fixed_size=True` by default the dynamic fallback runs only in
    a configuration the caller chooses (not a certain hazard). The test is decided by the
    module's configuration (`ClassFacts.default_of`: what its constructions of the class pass,
    else the parameter's literal default), or left to the callers when it reads a constructor
    argument without a default that the module never passes. None when the module's
    configuration takes the dynamic branch, or nothing decides the test."""
    if klass is None or not (klass.defaults or klass.required):
        return None
    lifted = _TAKEN_FALLBACKS.get()
    if lifted and (klass.name, normalized_code(expr)) in lifted:
        return None  # an example's configuration evaluated it: a hazard like any other
    static_body, static_orelse = _self_attribute(expr.body), _self_attribute(expr.orelse)
    if static_body == static_orelse:
        return None
    taken = _by_defaults(expr.test, klass)
    if taken is None:
        # a flag without a default that this module never passes (`HeatmapMaxDetBlock(channels,
        # in_size, fixed_size)` built by the pose models of other modules): every caller chooses
        # the branch, so the dynamic fallback is no more certain than the static value
        if _chosen_by_callers(expr.test, klass):
            return expr.orelse if static_body else expr.body
        return None
    if taken and static_body:
        return expr.orelse
    if not taken and static_orelse:
        return expr.body
    return None


def _by_defaults(test: cst.BaseExpression, klass) -> Optional[bool]:
    """The truth of a test on `self` attributes in the block's default configuration
    (`ClassFacts.default_of`)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _by_defaults(test.expression, klass)
        return None if inner is None else not inner
    attribute = _self_attribute_name(test)
    if attribute is not None:
        value = klass.default_of(attribute)
        return None if value is _no_default() else bool(value)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        attribute = _self_attribute_name(test.left)
        comparator = test.comparisons[0].comparator
        if attribute is None or not (
            isinstance(comparator, cst.Name) and comparator.value == "None"
        ):
            return None
        value = klass.default_of(attribute)
        if value is _no_default():
            return None
        is_none = value is None
        operator = test.comparisons[0].operator
        return (
            is_none
            if isinstance(operator, cst.Is)
            else (not is_none)
            if isinstance(operator, cst.IsNot)
            else None
        )
    return None


def _chosen_by_callers(test: cst.BaseExpression, klass) -> bool:
    """A test on one `self` attribute (`self.flag`, `not self.flag`, `self.size is None`) that
    stores a constructor argument without a default which this module never passes."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        return _chosen_by_callers(test.expression, klass)
    if (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))
        and dotted_name(test.comparisons[0].comparator) == "None"
    ):
        test = test.left
    attribute = _self_attribute_name(test)
    return attribute is not None and klass.chosen_by_callers(attribute)


def _self_attribute(node: cst.BaseExpression) -> bool:
    return _self_attribute_name(node) is not None


_self_attribute_name = self_attribute_name


def _no_default():
    from .analysis import NO_DEFAULT  # noqa: WPS433 (analysis imports this module)

    return NO_DEFAULT


def _named_kind(name: Optional[str]) -> Optional[str]:
    """What `F is <name>` compares F with when the module does not say (a name imported from a
    sibling module, `from ._sequence import F_ND`): F is a namespace, so the other side is one
    too, and a name spelled with an `nd` / `ndarray` part is mx.nd, with `sym` / `symbol` mx.sym."""
    parts = {p.lower() for p in re.split(r"[._]", name or "") if p}
    if parts & {"nd", "ndarray"}:
        return "eager"
    if parts & {"sym", "symbol"}:
        return "symbol"
    return None


def always_exits(block: cst.BaseSuite) -> bool:
    """True when a block ends in raise or return (the code after its `if` is the other case)."""
    if not isinstance(block, cst.IndentedBlock) or not block.body:
        return (
            isinstance(block, cst.SimpleStatementSuite)
            and bool(block.body)
            and isinstance(block.body[-1], (cst.Raise, cst.Return))
        )
    last = block.body[-1]
    return (
        isinstance(last, cst.SimpleStatementLine)
        and bool(last.body)
        and isinstance(last.body[-1], (cst.Raise, cst.Return))
    )


# What `isinstance(x, T)` / `type(x) in (T, ...)` proves about x in the branch it guards.
_SEQUENCE_TYPES = {"list", "tuple", "List", "Tuple", "Sequence", "MutableSequence", "Iterable"}
_MAPPING_TYPES = {"dict", "Dict", "Mapping", "MutableMapping", "OrderedDict", "defaultdict"}
_NUMBER_TYPES = {"int", "float", "bool", "complex", "Number", "Real", "Integral", "str"}
_ARRAY_TYPES = {"NDArray", "Symbol", "ndarray"}


def _type_kind(names) -> Optional[str]:
    """The kind every named type belongs to, or None when they differ or one is unknown."""
    kinds = set()
    for name in names:
        last = (name or "").split(".")[-1]
        kind = (
            "sequence"
            if last in _SEQUENCE_TYPES
            else "mapping"
            if last in _MAPPING_TYPES
            else "scalar"
            if last in _NUMBER_TYPES
            else "tensor"
            if last in _ARRAY_TYPES
            else None
        )
        if kind is None:
            return None
        kinds.add(kind)
    return kinds.pop() if len(kinds) == 1 else None


def _type_test(test: cst.BaseExpression) -> Optional[Tuple[str, str, bool]]:
    """(name, kind, positive) for `isinstance(n, T)`, `type(n) in (T, ...)`, `type(n) is T`,
    `type(n) == T` and their negations (`not isinstance`, `not in`, `is not`, `!=`)."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _type_test(test.expression)
        return None if inner is None else (inner[0], inner[1], not inner[2])
    if (
        isinstance(test, cst.Call)
        and dotted_name(test.func) == "isinstance"
        and len(test.args) == 2
        and isinstance(test.args[0].value, cst.Name)
    ):
        types = test.args[1].value
        names = (
            [dotted_name(e.value) for e in types.elements]
            if isinstance(types, (cst.Tuple, cst.List))
            else [dotted_name(types)]
        )
        kind = _type_kind(names)
        return None if kind is None else (test.args[0].value.value, kind, True)
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        left, comp = test.left, test.comparisons[0]
        if not (
            isinstance(left, cst.Call)
            and dotted_name(left.func) == "type"
            and len(left.args) == 1
            and isinstance(left.args[0].value, cst.Name)
        ):
            return None
        other = comp.comparator
        names = (
            [dotted_name(e.value) for e in other.elements]
            if isinstance(other, (cst.Tuple, cst.List, cst.Set))
            else [dotted_name(other)]
        )
        kind = _type_kind(names)
        if kind is None:
            return None
        positive = isinstance(comp.operator, (cst.In, cst.Is, cst.Equal))
        if not positive and not isinstance(comp.operator, (cst.NotIn, cst.IsNot, cst.NotEqual)):
            return None
        return left.args[0].value.value, kind, positive
    return None


def _none_test(test: cst.BaseExpression, env):
    """`x is not None` -> (x, True), `x is None` -> (x, False), for a name whose value says
    what it holds when not None (`Value.unless_none`); else None."""
    if not (
        isinstance(test, cst.Comparison)
        and len(test.comparisons) == 1
        and isinstance(test.left, cst.Name)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
        and isinstance(test.comparisons[0].operator, (cst.Is, cst.IsNot))
    ):
        return None
    value = env.get(test.left.value)
    if value is None or value.unless_none is None:
        return None
    return test.left.value, isinstance(test.comparisons[0].operator, cst.IsNot)


def narrowed(test: cst.BaseExpression, env):
    """(env of the branch taken when `test` holds, env of the other branch).

    A type test proves the kind of a name in the branch it selects: in `if isinstance(x, (list,
    tuple)):` x is a sequence whatever it was taken for; in its `else`, x taken for a tensor by
    position stays so (nothing is proven). `a and b` narrows the taken branch by both.
    """
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        body, _ = narrowed(test.left, env)
        body, _ = narrowed(test.right, body)
        return body, env
    optional = _none_test(test, env)
    if optional is not None:  # `bias is not None` of an optional Parameter's input
        name, positive = optional
        updated = {**env, name: env[name].unless_none}
        return (updated, env) if positive else (env, updated)
    found = _type_test(test)
    if found is None:
        return env, env
    name, kind, positive = found
    value = Value(kind, evidence=f"a type test of {name}")
    updated = {**env, name: value}
    return (updated, env) if positive else (env, updated)


def one_sided_reshape(
    expr: cst.IfExp, rule
) -> Optional[Tuple[cst.Call, cst.BaseExpression, cst.BaseExpression]]:
    """`a.reshape(b.shape) if F is nd else <the same a reshaped otherwise>` (issue 21 item 7):
    (the Symbol branch's call, a, b) when the guard's eager branch reshapes a tensor `a` like a
    tensor `b`; `F.reshape_like(a, b)` then does in both modes what the eager branch does. The
    mirrored guard (`if F is sym`) is left alone: its Symbol branch is the one written first."""
    namespace = rule.namespace
    if namespace is None or not isinstance(expr.orelse, cst.Call):
        return None
    body_eager, orelse_eager = classify_guard(
        expr.test,
        namespace,
        rule.facts.module.namespace_kind,
        predicates=rule.facts.module.predicates,
    )
    body = expr.body
    if not body_eager or orelse_eager or not isinstance(body, cst.Call):
        return None
    func, other = body.func, expr.orelse.func
    if not (
        isinstance(func, cst.Attribute)
        and func.attr.value == "reshape"
        and len(body.args) == 1
        and body.args[0].keyword in (None,)
        and isinstance(body.args[0].value, cst.Attribute)
        and body.args[0].value.attr.value == "shape"
        and isinstance(other, cst.Attribute)
        and other.attr.value == "reshape"
        and normalized_code(other.value) == normalized_code(func.value)
    ):
        return None
    like = body.args[0].value.value
    if not (rule.is_tensor(func.value) and rule.is_tensor(like)):
        return None
    return expr.orelse, func.value, like
