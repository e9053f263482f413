"""Plain objects that hybrid code hands the namespace (issue 20, "F-carrying objects").

rl-coach's PPO losses (and GluonTS' distributions, in their own way) build a plain object in
hybrid_forward and give it F:

    class MultivariateNormalDist:
        def __init__(self, num_var, mean, sigma, F=mx.nd):
            self.mean = mean; self.sigma = sigma; self.F = F
        def kl_div(self, alt):
            ... mx.nd.batch_dot(sigma_b_inv, self.sigma) ...   # NDArray-only once hybridized

    dist = MultivariateNormalDist(2, mean, sigma, F=F)       # in hybrid_forward
    return dist.kl_div(other)

`dist.kl_div(...)` runs in the graph exactly as a helper method would, with `self.F` the
block's namespace. This module decides, from the class alone, when the analysis may follow such
calls: which constructor parameters the object keeps as they are, on which attribute, with
nothing else in the class writing that attribute. Precision before recall: a class with a
base (a Block, a mixin that may define `__setattr__`), a decorator (a dataclass builds its own
`__init__`), or that rewrites the attribute anywhere, is not followed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Set

import libcst as cst

from .values import bound_targets, dotted_name, self_attribute_name, target_names, walk_nodes

# methods that change how attributes are read or written: their class is not followed
_ATTRIBUTE_HOOKS = frozenset({"__setattr__", "__getattr__", "__getattribute__", "__delattr__"})


@dataclass(frozen=True)
class InstanceClass:
    """A plain module class whose methods hybrid code may reach through an instance."""

    name: str
    init: cst.FunctionDef
    # constructor parameter -> the attribute `__init__` stores it on as it is (`self.F = F`),
    # for attributes no other statement of the class writes
    stored: Dict[str, str] = field(default_factory=dict)
    methods: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    # attribute -> the default of the parameter it stores, dotted (`mx.nd`; "" for another
    # expression), None when it has none: what `self.<a>` holds when code the linter does not
    # see builds the object without that argument
    defaults: Dict[str, Optional[str]] = field(default_factory=dict)

    def method(self, name: str) -> Optional[cst.FunctionDef]:
        """The plain method `instance.<name>(...)` runs (not a static/class method, a
        property or a dunder: those bind differently or are not helpers)."""
        node = self.methods.get(name)
        if node is None or name.startswith("__") or node.decorators:
            return None
        return node


def instance_class(node: cst.ClassDef) -> Optional[InstanceClass]:
    """The facts of `node` when it is a plain class the analysis may follow (module
    docstring), else None."""
    if node.decorators or node.keywords or not isinstance(node.body, cst.IndentedBlock):
        return None
    if any(dotted_name(base.value) != "object" for base in node.bases):
        return None
    methods = {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}
    init = methods.get("__init__")
    if init is None or init.decorators or _ATTRIBUTE_HOOKS.intersection(methods):
        return None
    params = list(init.params.posonly_params) + list(init.params.params)
    names = {p.name.value for p in params[1:] + list(init.params.kwonly_params)}
    if not params or params[0].name.value != "self":
        return None
    rebound = _rebound_names(init)
    stored: Dict[str, str] = {}
    if isinstance(init.body, cst.IndentedBlock):
        for statement in init.body.body:  # top-level statements only: stored on every path
            if any(isinstance(n, cst.Return) for n in walk_nodes(statement)):
                break  # `if m is None: return` first: what follows is not stored on every path
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                if (
                    isinstance(small, cst.Assign)
                    and len(small.targets) == 1
                    and isinstance(small.value, cst.Name)
                    and small.value.value in names - rebound
                ):
                    attr = self_attribute_name(small.targets[0].target)
                    if attr is not None:
                        stored[small.value.value] = attr
    writes = _attribute_writes(node)
    stored = {p: a for p, a in stored.items() if writes.get(a, 0) == 1}
    if not stored:
        return None
    declared = {p.name.value: p for p in params[1:] + list(init.params.kwonly_params)}
    defaults = {
        attr: None if default is None else dotted_name(default) or ""
        for param, attr in stored.items()
        for default in [declared[param].default]
    }
    return InstanceClass(node.name.value, init, stored, methods, defaults)


def _rebound_names(function: cst.FunctionDef) -> Set[str]:
    """Names a function body binds (any way but reading): a parameter so rebound may no
    longer hold what the call passed."""
    return {
        name
        for node in walk_nodes(function.body)
        for target in bound_targets(node)
        for name in target_names(target)
    }


def _attribute_writes(node: cst.ClassDef) -> Dict[str, int]:
    """How many statements of the class write `self.<attr>` (assign, augment, annotate,
    delete, unpack into); {} when `setattr(self, ...)` may write any of them."""
    counts: Dict[str, int] = {}
    for sub in walk_nodes(node):
        if isinstance(sub, cst.Call) and dotted_name(sub.func) in ("setattr", "delattr"):
            return {}
        for target in bound_targets(sub):
            for part in walk_nodes(target):
                attr = self_attribute_name(part) if isinstance(part, cst.Attribute) else None
                if attr is not None:  # `self.a = ...`, `self.a, b = ...`, also `self.a.b = ...`
                    counts[attr] = counts.get(attr, 0) + 1
    return counts
