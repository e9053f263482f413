"""A value stored in names nothing reads: the statement goes (HL001 and HL014 rewrites).

gluoncv 0.1's SyncBatchNorm reads `ctx = x.context` in its inference branch and never uses it
there (only the training branch passes its own `ctx` on); SFnet's FAM unpacks `B, C, H, W =
F.shape_array(x_low)` and reads none of them (blind round 20). Hybridized, the read or the
unpacking alone raises, and it computes nothing: the statement goes. HL001 asks for tensor
attributes, HL014 for unpackings of values without effects.

- **The pattern**: in a hybrid function, a statement `NAME = x.<attr>` (also `x.shape[i]`, or
  names unpacked from `x.shape`) of a tensor x, or (HL014) names unpacked from a value without
  effects (`B, C, H, W = F.shape_array(x)`), where no read of a bound name can follow the
  statement: none later in its block, none in a loop around it, none after the compound
  statements around it (for an `if`, its other branch cannot follow; a `try`'s handlers and
  `finally` can), none in a nested function, lambda or comprehension, no `del` or augmented
  assignment (`n += 1`) of it, and no `locals()`, `vars()`, `eval` or `exec` in the
  function. The names are not declared `global` or `nonlocal`.
- **Exactness**: reading an attribute of an NDArray (or a pure operator) has no effect, and a
  value nothing reads
  changes nothing; the name is left unbound where it was bound before, and nothing reads it.
- **Safety: safe.**
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Set, Tuple

import libcst as cst

from .base import SAFE, Edit, Invalid, invalid_table
from .values import (
    NESTED_SCOPES,
    bound_targets,
    dotted_name,
    target_name_nodes,
    variables,
    walk_nodes,
)
from ._examples import net

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_INTROSPECTION = {"locals", "vars", "eval", "exec"}
_LOOPS = (cst.For, cst.While)


def plan_dead_store(rule, node: cst.BaseExpression) -> Optional[Tuple[Tuple[Edit, ...], str]]:
    """(the statement's removal, SAFE) when `node` (a value without effects: the caller
    checks) is read only into names nothing reads."""
    facts = rule.facts
    if facts is None or not isinstance(facts.node.body, cst.IndentedBlock):
        return None
    forward = facts.node
    found = _statement_of(forward.body, node)
    if found is None:
        return None
    path, line, small = found
    names = _stored_names(small, node)
    if not names or _introspects(forward) or _declared(forward, names):
        return None
    if any(_reads(n, names) for n in walk_nodes(forward.body) if isinstance(n, NESTED_SCOPES)):
        return None
    if _read_after(path, line, small, names):
        return None
    return ((small, cst.RemovalSentinel.REMOVE),), SAFE


def _statement_of(
    body: cst.BaseSuite, target: cst.CSTNode
) -> Optional[
    Tuple[
        List[Tuple[cst.CSTNode, Sequence[cst.BaseStatement]]],
        cst.SimpleStatementLine,
        cst.BaseSmallStatement,
    ]
]:
    """(the enclosing (compound statement, its block) pairs, outermost first, the line, the
    small statement) holding `target`, not inside a nested scope."""

    def search(owner: cst.CSTNode, block: Sequence[cst.BaseStatement], path):
        for statement in block:
            if isinstance(statement, cst.SimpleStatementLine):
                for small in statement.body:
                    if any(n is target for n in walk_nodes(small, _SCOPES)):
                        return path + [(owner, block)], statement, small
                continue
            if isinstance(statement, _SCOPES):
                continue
            for inner_owner, inner_block in _blocks(statement):
                hit = search(inner_owner, inner_block, path + [(owner, block)])
                if hit is not None:
                    return hit
        return None

    if not isinstance(body, cst.IndentedBlock):
        return None
    return search(body, body.body, [])


def _blocks(statement: cst.BaseStatement) -> List[Tuple[cst.CSTNode, Sequence[cst.BaseStatement]]]:
    """The statement blocks directly inside a compound statement, each with its owner."""
    out: List[Tuple[cst.CSTNode, Sequence[cst.BaseStatement]]] = []
    for name in ("body", "orelse", "finalbody"):
        part = getattr(statement, name, None)
        if isinstance(part, (cst.Else, cst.Finally)):
            part = part.body
        if isinstance(part, cst.If):  # elif
            out.append((statement, [part]))
        elif isinstance(part, cst.IndentedBlock):
            out.append((statement, part.body))
    for handler in getattr(statement, "handlers", ()):  # owned by the try (see _read_after)
        if isinstance(handler.body, cst.IndentedBlock):
            out.append((statement, handler.body.body))
    return out


def _stored_names(small: cst.BaseSmallStatement, node: cst.BaseExpression) -> Set[str]:
    """The names `NAME = <node>` (`x.<attr>[i]`, `a, b = x.shape`, `a, b = F.op(x)`) binds,
    else empty."""
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1):
        return set()
    value = small.value
    if isinstance(value, cst.Subscript):
        value = value.value
    if value is not node:
        return set()
    target = small.targets[0].target
    elements = (
        [e.value for e in target.elements]
        if isinstance(target, (cst.Tuple, cst.List))
        else [target]
    )
    if not all(isinstance(e, cst.Name) for e in elements):
        return set()
    return {e.value for e in elements if isinstance(e, cst.Name)}


def _reads(node: cst.CSTNode, names: Set[str]) -> bool:
    """Whether a name of `names` is read under node: `del` and an augmented assignment
    (`n += 1`) bind their target but read it first, so their names count as reads."""
    bound = {
        id(name)
        for n in walk_nodes(node)
        if not isinstance(n, (cst.Del, cst.AugAssign))
        for target in bound_targets(n)
        for name in target_name_nodes(target)
    }
    return any(v.value in names and id(v) not in bound for v in variables(node))


def _read_after(path, line: cst.SimpleStatementLine, small, names: Set[str]) -> bool:
    """Whether a read of `names` can follow the statement (module docstring)."""
    later = list(line.body)
    if any(_reads(s, names) for s in later[later.index(small) + 1 :]):
        return True
    current: cst.CSTNode = line
    for owner, block in reversed(path):
        index = next(i for i, s in enumerate(block) if s is current)
        if any(_reads(s, names) for s in block[index + 1 :]):
            return True
        if isinstance(owner, _LOOPS) and _reads(owner, names):
            return True  # the next iteration
        if isinstance(owner, (cst.Try, cst.TryStar)) and any(
            _reads(part, names)
            for part in (*owner.handlers, owner.orelse, owner.finalbody)
            if part is not None
        ):
            return True  # an exception, or the try's end, leads there (conservative)
        current = owner
    return False


def _introspects(forward: cst.FunctionDef) -> bool:
    return any(
        isinstance(n, cst.Call) and dotted_name(n.func) in _INTROSPECTION
        for n in walk_nodes(forward.body)
    )


def _declared(forward: cst.FunctionDef, names: Set[str]) -> bool:
    return any(
        isinstance(n, (cst.Global, cst.Nonlocal)) and any(i.name.value in names for i in n.names)
        for n in walk_nodes(forward.body)
    )


_SYNC_BN = (
    "if not autograd.is_training():\n    ctx = x.context\n    return F.relu(x)\n"
    "else:\n    ctx = x.context\n    self.update(ctx)\n    return F.relu(x)"
)
_AUTOGRAD = "from mxnet import autograd\n\n\n"
INVALID = invalid_table(
    net,
    ("ctx = x.context\nreturn F.relu(x)", 3, ("ctx = x.context\n", ""), SAFE),
    # gluoncv 0.1's SyncBatchNorm: the other branch's read cannot follow this store
    Invalid(
        net(_SYNC_BN, head=_AUTOGRAD),
        line=7,
        fix=(
            "if not autograd.is_training():\n    ctx = x.context",
            "if not autograd.is_training():",
        ),
        safety=SAFE,
    ),
    # read after the store (a later statement, the next iteration): reported only
    ("ctx = x.context\nreturn F.zeros((2,), ctx=ctx)", 3),
    Invalid(
        net(
            "for i in range(2):\n    if i:\n        x = F.relu(x) if ctx is not None else x\n"
            "    ctx = x.context\nreturn x"
        ),
        line=6,
    ),
)
