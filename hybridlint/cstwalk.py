"""Read-only walks of a LibCST tree that do not rebuild it (issue 22 item 4).

``node.visit(visitor)`` rebuilds every node it passes (LibCST's visit is also its transform:
each parent is constructed again from its visited children, with validation), which made a
rule's search of a class for a few calls cost more than the linter's own walk of it. Rules
that only collect can use:

* :func:`visit_only` (a ``CSTVisitor`` with ``visit_<Type>`` methods and no ``leave_`` or
  attribute hooks): hands the visitor the same nodes and honours a ``False`` return (skip the
  children);
* :func:`walk` (a visitor that also keeps a stack in ``on_visit``/``on_leave``): the same, with
  ``on_leave`` after a node's children.

Only the order of siblings may differ from LibCST's, so the visitor's result must not depend on
it (a list of found nodes that is sorted or only tested for being empty, a count, a flag, a
set). Both skip *trivia* (whitespace, comments, parentheses, commas, operator tokens: nodes that
hold nothing but more trivia) when the visitor has no hook that could see them: a
``visit_<Type>`` for one of them, or its own ``on_visit`` (unless ``trivia=False`` is passed to
:func:`walk`, for a stack that never looks at them). Type checks go through a per-type table:
``isinstance(value, cst.CSTNode)`` is an ABC check, most of the walk's cost before.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any, Callable, Dict, List, Optional, Tuple

import libcst as cst

_FIELDS: Dict[type, Tuple[str, ...]] = {}
_NODE, _SEQUENCE, _OTHER, _TRIVIA = 1, 2, 0, 3
_KIND: Dict[type, int] = {}
_TRIVIA_BASES: Tuple[type, ...] = (
    cst.BaseParenthesizableWhitespace,
    cst.Newline,
    cst.TrailingWhitespace,
    cst.EmptyLine,
    cst.Comment,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Comma,
    cst.Dot,
    cst.Colon,
    cst.Semicolon,
    cst.AssignEqual,
    cst.ImportStar,
    cst.Asynchronous,
    cst.BaseBinaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseUnaryOp,
    cst.BaseAugOp,
)
_TRIVIA_NAMES = frozenset(
    kind.__name__
    for kind in vars(cst).values()
    if isinstance(kind, type) and issubclass(kind, _TRIVIA_BASES)
)
_SKIPS: Dict[type, bool] = {}


def _field_names(kind: type) -> Tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        names = _FIELDS[kind] = tuple(field.name for field in dataclasses.fields(kind))
    return names


_SYNTAX_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _syntax_field_names(kind: type) -> Tuple[str, ...]:
    """The fields of `kind` whose declared type admits a node that is not trivia (all fields
    when the declarations cannot be read): `Name` has none, `Call` only `func` and `args`."""
    names = _SYNTAX_FIELDS.get(kind)
    if names is None:
        try:
            hints = typing.get_type_hints(kind)
            names = tuple(name for name in _field_names(kind) if _admits_syntax(hints[name]))
        except Exception:  # noqa: BLE001 - an unreadable declaration: walk the field
            names = _field_names(kind)
        _SYNTAX_FIELDS[kind] = names
    return names


def _admits_syntax(hint: object) -> bool:
    if isinstance(hint, type):
        return issubclass(hint, cst.CSTNode) and not issubclass(hint, _TRIVIA_BASES)
    args = getattr(hint, "__args__", None)
    if args is None:
        return not isinstance(hint, str)  # a forward reference left unresolved: walk it
    if typing.get_origin(hint) is typing.Literal:
        return False
    return any(_admits_syntax(arg) for arg in args)


def _kind(value_type: type) -> int:
    kind = _KIND.get(value_type)
    if kind is None:
        if issubclass(value_type, _TRIVIA_BASES):
            kind = _TRIVIA
        elif issubclass(value_type, cst.CSTNode):
            kind = _NODE
        elif issubclass(value_type, (list, tuple)):
            kind = _SEQUENCE
        else:
            kind = _OTHER
        _KIND[value_type] = kind
    return kind


def _own_hook(visitor_type: type, name: str) -> Optional[Callable[..., object]]:
    """The visitor class's `name` function, or None where it is CSTVisitor's own (which
    declares a do-nothing `visit_<Type>` for every node type)."""
    hook = getattr(visitor_type, name, None)
    return None if hook is None or hook is getattr(cst.CSTVisitor, name, None) else hook


def _skips_trivia(visitor: cst.CSTVisitor) -> bool:
    """`visitor` cannot see a trivia node: no hook of its own for one, nor its own on_visit."""
    kind = type(visitor)
    skips = _SKIPS.get(kind)
    if skips is None:
        skips = kind.on_visit is cst.CSTVisitor.on_visit and not any(
            _own_hook(kind, f"visit_{name}") for name in _TRIVIA_NAMES
        )
        _SKIPS[kind] = skips
    return skips


def _push_children(current: cst.CSTNode, stack: List, trivia: bool) -> None:
    kinds = _KIND
    fields = _field_names(type(current)) if trivia else _syntax_field_names(type(current))
    for name in fields:
        value = getattr(current, name)
        kind = kinds.get(value.__class__)
        if kind is None:
            kind = _kind(value.__class__)
        if kind == _NODE or (kind == _TRIVIA and trivia):
            stack.append(value)
        elif kind == _SEQUENCE:
            for item in value:
                kind = kinds.get(item.__class__)
                if kind is None:
                    kind = _kind(item.__class__)
                if kind == _NODE or (kind == _TRIVIA and trivia):
                    stack.append(item)


_UNKNOWN = object()
_HOOKS: Dict[type, Dict[type, Any]] = {}


def _hooks(visitor_type: type) -> Dict[type, Any]:
    """Node type -> the visitor class's `visit_<Type>` function or None (filled as met)."""
    hooks = _HOOKS.get(visitor_type)
    if hooks is None:
        if len(_HOOKS) >= 256:  # visitor classes made per call would keep every one alive
            _HOOKS.clear()
        hooks = _HOOKS[visitor_type] = {}
    return hooks


def visit_only(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Call ``visitor.on_visit`` on ``node`` and every node below it (not below a node whose
    visit returned False), without rebuilding the tree and without recursion."""
    trivia = not _skips_trivia(visitor)
    stack: List[cst.CSTNode] = [node]
    if type(visitor).on_visit is not cst.CSTVisitor.on_visit:
        while stack:
            current = stack.pop()
            if visitor.on_visit(current):
                _push_children(current, stack, trivia)
        return
    hooks = _hooks(type(visitor))  # CSTVisitor.on_visit's dispatch, looked up once per type
    while stack:
        current = stack.pop()
        kind = current.__class__
        hook = hooks.get(kind, _UNKNOWN)
        if hook is _UNKNOWN:
            hook = hooks[kind] = _own_hook(type(visitor), f"visit_{kind.__name__}")
        if hook is None or hook(visitor, current) is not False:
            _push_children(current, stack, trivia)


_LEAVE = object()


def walk(node: cst.CSTNode, visitor: cst.CSTVisitor, trivia: bool = True) -> None:
    """``visitor.on_visit`` on ``node`` and every node below it, ``visitor.on_leave`` after a
    node's children (also when its visit returned False, as LibCST does), without rebuilding
    the tree. ``trivia=False``: skip trivia nodes whatever the visitor's hooks (its on_visit
    and on_leave keep a stack that trivia never changes the meaning of)."""
    trivia = trivia and not _skips_trivia(visitor)
    stack: List[object] = [node]
    while stack:
        current = stack.pop()
        if current is _LEAVE:
            visitor.on_leave(stack.pop())  # type: ignore[arg-type]
            continue
        stack.append(current)
        stack.append(_LEAVE)
        if visitor.on_visit(current):  # type: ignore[arg-type]
            _push_children(current, stack, trivia)  # type: ignore[arg-type]
