"""Giving a helper without F a namespace parameter: `def warp(x, flow, F=mx.nd)`.

A helper that hybrid code calls with tensors but that takes no F (reconet's `warp(x, flow)`
calling `mx.nd.GridGenerator`, a loss's `self._concat(parts)` calling `nd.concat`) has no
namespace to call its operators on. HL006 then adds one: a parameter `F` whose default is the
eager namespace the helper names (so every call that passes nothing, from eager code or code
the linter does not see, runs exactly as before), and `F=<caller's F>` at each call from a
function that has F. Eagerly the caller's F *is* mx.nd, the default; hybridized it is
mx.sym, which is the point.

HL001 and HL007 (`Rule.threads_namespace`) give a helper F the same way when their fix calls
`F.<op>` there and the helper names no namespace (U-GAT-IT's `var(x, dim)` subtracting a
keepdims mean): the default is then the module's own import of the eager namespace
(`eager_default`: `nd`, `mx.nd`), and no fix is offered in a module that imports neither.

No such edit is offered (the finding stays without a fix) when a call from analysed code has
no namespace to pass (a helper calling the helper without F), when the helper or a call
already uses the name `F`, or for decorated helpers other than static and class methods (a
decorator may wrap the signature). The default is evaluated when the def runs: a namespace the
module imports is bound then; one taken by convention (`nd` from `from utils import *`) may
not be, so that fix is unsafe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Mapping, Optional, Sequence, Tuple

import libcst as cst

from ._build import attr_chain
from .analysis import FunctionFacts, dotted_name, walk_nodes
from .module_context import normalise
from .values import parameter_names

NAME = "F"
_NO_SPACE = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
)
_PLAIN_DECORATORS = {"staticmethod", "classmethod"}


def namespace_param_edits(
    facts: Optional[FunctionFacts], default: str, imports, spelled: bool = True
) -> Optional[Tuple[List[Tuple[cst.CSTNode, cst.CSTNode]], str]]:
    """The edits that give the helper `facts` a parameter `F=<default>` and pass the
    caller's namespace at every call analysed code makes, with why they are unsafe ("" when
    safe), or None (see the module docstring). A method's are unsafe: a subclass elsewhere
    may override it without the parameter, and `self.m(..., F=F)` would then raise where the
    original call ran (with a class of this module defining the name: no edits at all).
    `spelled=False`: the default is a module import (`eager_default`) that the helper's body
    need not name."""
    if facts is None or facts.namespace is not None or facts.kind == "hybrid_forward":
        return None
    if facts.instance_of is not None:
        return None
    node = facts.node
    module = facts.module
    if node in module.origins or node.asynchronous is not None:
        return None  # a lambda (no default parameter to add there), a coroutine
    if any(dotted_name(d.decorator) not in _PLAIN_DECORATORS for d in node.decorators):
        return None
    root = default.split(".")[0]
    params = parameter_names(node.params)
    if root in params or NAME in params or (root != NAME and _spells(node.body, NAME)):
        # the namespace's name is the helper's own, or `F` is taken already (unless it is
        # the module's eager namespace itself, `from mxnet import nd as F`: `F=F` then
        # defaults to it and makes every `F.` of the body the caller's)
        return None
    if spelled and not _spells(node.body, root):
        return None  # `relu` of `from mxnet.ndarray import relu`: no namespace name to default to
    if not spelled and root not in imports:
        return None
    sites = module.helper_calls.get(node, {})
    if not sites:
        return None
    # a namespace the module imports is bound when the def runs; one the linter takes by
    # convention (`nd` through `from utils import *`) may be bound only later: unsafe
    why = "" if root in imports else f"`{root}` is no import of the module: it may be bound later"
    if facts.kind == "helper_method":
        name = node.name.value
        owners = [m for m in module.class_methods.values() if m.get(name) is not None]
        if len({id(m[name]) for m in owners}) > 1:
            return None  # overridden (or overriding) in this module
        why = "a subclass may override the method without F"
    edits: List[Tuple[cst.CSTNode, cst.CSTNode]] = [
        (node.params, _with_param(node.params, default))
    ]
    for call, caller in sites.items():
        if caller.namespace is None or "." in caller.namespace:
            return None  # nothing (or an object's attribute) to pass
        if any(a.keyword is not None and a.keyword.value == NAME for a in call.args):
            return None
        edits.append((call, _with_argument(call, caller.namespace)))
    return edits, why


def eager_default(imports: Mapping[str, str]) -> Optional[str]:
    """The module's own spelling of MXNet's eager namespace, for the default of an F that a
    fix of another rule (HL001, HL007) adds to a helper whose body names no namespace (the
    U-GAT-IT `var(x, dim)` helper): `nd` of `from mxnet import nd`, `mx.nd` of `import mxnet
    as mx`; None when the module imports neither (no default to give)."""
    direct = sorted(n for n, q in imports.items() if normalise(q) == "mxnet.ndarray")
    if direct:
        return min(direct, key=len)
    package = sorted(n for n, q in imports.items() if q == "mxnet")
    return f"{min(package, key=len)}.nd" if package else None


@dataclass(frozen=True)
class Threading:
    """F given to a helper without one so that a fix there can call `F.<op>`: the edits (the
    parameter `F=<default>`, `F=F` at every analysed call), why they are unsafe ("" when safe)
    and the note a finding's message gets."""

    edits: Tuple[Tuple[cst.CSTNode, cst.CSTNode], ...]
    why: str
    note: str


def threading_for(
    facts: Optional[FunctionFacts], imports: Mapping[str, str]
) -> Optional[Threading]:
    """How a helper without F gets one for another rule's fix (see `Rule.namespace`), or None."""
    default = eager_default(imports)
    if default is None:
        return None
    passed = namespace_param_edits(facts, default, imports, spelled=False)
    if passed is None:
        return None
    edits, why = passed
    return Threading(tuple(edits), why, threading_note(default, why))


def threading_note(default: str, why: str) -> str:
    """The message's note for a fix that gives its helper F."""
    return (
        f" (F becomes this function's parameter, `{NAME}={default}` by default, passed by its "
        "hybrid callers" + (f"; unsafe: {why}" if why else "") + ")"
    )


def mentions_namespace(
    edits: Sequence[Tuple[cst.CSTNode, object]], helper: cst.FunctionDef
) -> bool:
    """Whether a replacement of `edits` inside `helper` names F (then the helper needs the
    parameter; a caller's own F in an edit of the caller does not count)."""
    inside = None
    for old, new in edits:
        if not isinstance(new, cst.CSTNode) or not any(
            isinstance(n, cst.Name) and n.value == NAME for n in walk_nodes(new)
        ):
            continue
        if inside is None:
            inside = {id(n) for n in walk_nodes(helper.body)}
        if id(old) in inside:
            return True
    return False


def _spells(tree: cst.CSTNode, name: str) -> bool:
    """Whether the tree uses `name` as a name (parameters of nested defs and lambdas too)."""
    return any(isinstance(n, cst.Name) and n.value == name for n in walk_nodes(tree))


def _with_param(params: cst.Parameters, default: str) -> cst.Parameters:
    """`params` with `F=<default>` last among those a call can name: keyword-only after a
    `*args` or bare `*`, else after the positional parameters (before `**kwargs`)."""
    added = cst.Param(name=cst.Name(NAME), default=attr_chain(default), equal=_NO_SPACE)
    if isinstance(params.star_arg, (cst.Param, cst.ParamStar)):
        return params.with_changes(kwonly_params=[*params.kwonly_params, added])
    return params.with_changes(params=[*params.params, added])  # after a `/` too


def _with_argument(call: cst.Call, namespace: str) -> cst.Call:
    """`call` with `F=<namespace>` appended (after a `**kwargs` too, which Python allows)."""
    added = cst.Arg(keyword=cst.Name(NAME), value=cst.Name(namespace), equal=_NO_SPACE)
    return call.with_changes(args=[*call.args, added])  # LibCST writes the ", " before it
