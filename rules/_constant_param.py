"""Class-level edits that turn a value into a constant parameter of a HybridBlock (HL005).

Adding `self.<name> = self.params.get_constant('<name>', <value>)` touches two places besides
the use: `__init__` (at the end of `with self.name_scope():` when there is one, else at the
end of `__init__`, which must call `super().__init__(...)`) and the hybrid_forward signature
(gluon passes every parameter as a keyword argument named like the attribute). The edits are
returned together so the linter core applies all or none.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable, Dict, FrozenSet, Iterable, List, Optional, Set, Tuple, TypeVar

import libcst as cst

from ..cstwalk import visit_only
from ._init_arrays import is_name_scope, top_statements
from .base import Edit
from .values import NameBindings, bound_targets, self_attribute_name, walk_nodes

# Attributes every HybridBlock has in MXNet 1.9.1 (dir(HybridBlock())): never a constant's name.
BLOCK_ATTRIBUTES = {
    "apply",
    "cast",
    "collect_params",
    "export",
    "forward",
    "hybrid_forward",
    "hybridize",
    "infer_shape",
    "infer_type",
    "initialize",
    "load",
    "load_parameters",
    "load_params",
    "name",
    "name_scope",
    "optimize_for",
    "params",
    "prefix",
    "register_child",
    "register_forward_hook",
    "register_forward_pre_hook",
    "register_op_hook",
    "save",
    "save_parameters",
    "save_params",
    "summary",
}


def taken_names(
    klass: cst.ClassDef, function: cst.FunctionDef, local: Optional[str] = None
) -> Set[str]:
    """Names a new constant must not take: every `self.<attr>` of the class (and strings that
    may name parameters) and every name used in `function`, whose signature gains it, except
    `local` (the local variable the constant replaces)."""
    names: Set[str] = set()

    class Attributes(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> None:
            attr = self_attribute_name(node)
            if attr is not None:
                names.add(attr)

        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            text = node.value.strip("'\"")
            if text.isidentifier():
                names.add(text)

    class Names(cst.CSTVisitor):
        def visit_Name(self, node: cst.Name) -> None:
            if node.value != local:
                names.add(node.value)

    visit_only(klass, Attributes())  # sets: the walk's order does not matter
    visit_only(function, Names())
    return names


def fresh_name(base: str, taken: Iterable[str]) -> str:
    taken = set(taken) | BLOCK_ATTRIBUTES
    if base not in taken and not base.startswith("_"):
        return base
    index = 1
    while f"{base}_{index}" in taken:
        index += 1
    return f"{base}_{index}"


def _is_super_init(statement: cst.BaseStatement) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            func = small.value.func
            if isinstance(func, cst.Attribute) and func.attr.value == "__init__":
                return True
    return False


def init_edit(init: cst.FunctionDef, statement: cst.BaseStatement) -> Optional[Edit]:
    """Insert `statement` at the end of `with self.name_scope():` (a top-level one in __init__),
    else at the end of __init__ (before a final `return`) when it calls super().__init__(...);
    None otherwise (the parameter dictionary may not exist yet). Appending keeps several
    constants in the order they are added."""
    if not isinstance(init.body, cst.IndentedBlock):
        return None
    body: List[cst.BaseStatement] = list(init.body.body)
    for stmt in body:
        if (
            isinstance(stmt, cst.With)
            and any(is_name_scope(i) for i in stmt.items)
            and isinstance(stmt.body, cst.IndentedBlock)
        ):
            block = stmt.body
            return block, block.with_changes(body=list(block.body) + [statement])
    if not any(_is_super_init(stmt) for stmt in body):
        return None
    index = len(body)
    if isinstance(body[-1], cst.SimpleStatementLine) and isinstance(body[-1].body[-1], cst.Return):
        index -= 1
    return init.body, init.body.with_changes(body=body[:index] + [statement] + body[index:])


def signature_edit(function: cst.FunctionDef, name: str) -> Edit:
    """Add `name` to the parameters: last positional one, or keyword-only after defaults/`*args`."""
    params = function.params
    new_param = cst.Param(name=cst.Name(name))
    has_default = any(p.default is not None for p in params.params)
    if isinstance(params.star_arg, cst.Param) or isinstance(params.star_arg, cst.ParamStar):
        new = params.with_changes(kwonly_params=list(params.kwonly_params) + [new_param])
    elif has_default or params.kwonly_params:
        new = params.with_changes(
            star_arg=cst.ParamStar(), kwonly_params=list(params.kwonly_params) + [new_param]
        )
    else:
        positional = list(params.params)
        last = positional[-1]
        if isinstance(last.comma, cst.Comma):  # keep a trailing comma where the author had one
            positional.append(new_param.with_changes(comma=last.comma))
            positional[-2] = last.with_changes(
                comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
            )
        else:
            positional.append(new_param)
        new = params.with_changes(params=positional)
    return params, new


def constant_statement(name: str, value_code: str) -> cst.BaseStatement:
    return cst.parse_statement(f"self.{name} = self.params.get_constant({name!r}, {value_code})\n")


# `self.<attr>` facts of a subtree, found by one walk and looked up by attribute afterwards:
# HL005 asks about every attribute it meets, each time for every method of the class (issue 22).
# Keyed by id() with the node kept alongside (CST nodes take no weak references), so an id
# reused after a tree is freed cannot match; emptied when it grows past _CACHE_SIZE.
_CACHE_SIZE = 4096
_STORED: Dict[int, Tuple[cst.CSTNode, FrozenSet[str]]] = {}
_MENTIONED: Dict[int, Tuple[cst.CSTNode, Counter]] = {}
_T = TypeVar("_T")


def _per_node(
    cache: Dict[int, Tuple[cst.CSTNode, _T]],
    node: cst.CSTNode,
    compute: Callable[[cst.CSTNode], _T],
) -> _T:
    """`compute(node)`, remembered in `cache` under the node's id (the node kept alongside so a
    reused id cannot match; the cache emptied when it reaches _CACHE_SIZE)."""
    entry = cache.get(id(node))
    if entry is None or entry[0] is not node:
        if len(cache) >= _CACHE_SIZE:
            cache.clear()
        entry = cache[id(node)] = (node, compute(node))
    return entry[1]


def _stores_attribute(node: cst.CSTNode, attr: str) -> bool:
    """`node` assigns `self.<attr>` (plain, augmented or annotated assignment, or a for target)."""
    return attr in _per_node(_STORED, node, _stored_attributes)


class _Stores(cst.CSTVisitor):
    """Collects the `<attr>` of every `self.<attr>` a subtree assigns (`_stores_attribute`)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: Set[str] = set()

    def _target(self, target: cst.BaseExpression) -> None:
        attr = self_attribute_name(target)
        if attr is not None:
            self.found.add(attr)

    def _targets(self, target: cst.BaseExpression) -> None:
        """A target and, in `(self.a, b) = ...` / `[a, *self.b] = ...`, its elements (only
        there: a tuple display elsewhere, `x.reshape((self.a, -1))`, stores nothing)."""
        if isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._targets(element.value)
        else:
            self._target(target)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._targets(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._target(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._target(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target)


def _stored_attributes(node: cst.CSTNode) -> FrozenSet[str]:
    """Every `<attr>` that `node` assigns as `self.<attr>` (`_stores_attribute`)."""
    stores = _Stores()
    visit_only(node, stores)  # read-only: LibCST's visit would rebuild the tree (issue 22)
    return frozenset(stores.found)


def init_attribute(klass: cst.ClassDef, init: cst.FunctionDef, attr: str) -> bool:
    """`self.<attr>` is set once, by a top-level statement of `__init__` that runs before where
    `init_edit` inserts the constant (before a `with self.name_scope():`, or inside it at its
    top level), and by no other method: a constant built from it at the end of `__init__` then
    holds what every forward call reads."""
    if not isinstance(init.body, cst.IndentedBlock):
        return False
    for method in klass.body.body if isinstance(klass.body, cst.IndentedBlock) else ():
        if (
            isinstance(method, cst.FunctionDef)
            and method is not init
            and _stores_attribute(method, attr)
            and not _only_moved(method, attr)
        ):
            return False
    body: List[cst.BaseStatement] = list(init.body.body)
    scope = next(
        (
            s
            for s in body
            if isinstance(s, cst.With)
            and any(is_name_scope(i) for i in s.items)
            and isinstance(s.body, cst.IndentedBlock)
        ),
        None,
    )
    top: List[cst.BaseStatement]
    if scope is not None and isinstance(scope.body, cst.IndentedBlock):  # (as picked)
        inner = list(scope.body.body)
        top = body[: body.index(scope)] + inner
        rest = body[body.index(scope) + 1 :]
    else:
        top, rest = body, []
    stores = [s for s in top if _stores_attribute(s, attr)]
    if len(stores) != 1 or not isinstance(stores[0], cst.SimpleStatementLine):
        return False  # in a branch or loop, or set twice: what the forward reads can differ
    return not any(_stores_attribute(s, attr) for s in rest)  # set again after the constant


CONTEXT_MOVES = ("as_in_context", "as_in_ctx")  # array methods that only change the device


def context_moves(method: cst.FunctionDef, attr: str) -> List[cst.SimpleStatementLine]:
    """The lines of `method` that only move `self.<attr>` to a context, alone on their line:
    `self.<attr> = self.<attr>.as_in_context(x.context)` (an SSIM loss's window, each call)
    or what HL001's fix leaves of one, `self.<attr> = self.<attr>`. They keep the array's
    values, and a constant parameter is on the inputs' context already: such a fix drops them."""
    lines = []
    for line in walk_nodes(method.body, stop=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            continue
        assign = line.body[0]
        if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
            continue
        if self_attribute_name(assign.targets[0].target) != attr:
            continue
        value = assign.value
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Attribute)
            and value.func.attr.value in CONTEXT_MOVES
        ):
            value = value.func.value
        if self_attribute_name(value) == attr:
            lines.append(line)
    return lines


def _only_moved(method: cst.FunctionDef, attr: str) -> bool:
    """Every store of `self.<attr>` in `method` is one of its `context_moves`."""
    moves = context_moves(method, attr)
    if not moves:
        return False
    for node in walk_nodes(method.body, stop=(cst.SimpleStatementLine,)):
        if isinstance(node, cst.SimpleStatementLine):
            if node not in moves and _stores_attribute(node, attr):
                return False
        elif any(  # a compound statement's own targets: `for self.a in ...`, `with ... as self.a`
            self_attribute_name(part) == attr
            for target in bound_targets(node)
            for part in walk_nodes(target)
        ):
            return False
    return True


def _new_init(klass: cst.ClassDef, statement: cst.BaseStatement) -> cst.BaseStatement:
    name = klass.name.value
    return cst.parse_statement(
        f"def __init__(self, *args, **kwargs):\n"
        f"    super({name}, self).__init__(*args, **kwargs)\n"
        f"    {cst.Module([]).code_for_node(statement).strip()}\n"
    )


class _Apply(cst.CSTTransformer):
    """Applies (original node, replacement) edits inside a subtree, by identity."""

    def __init__(self, edits: Iterable[Edit]) -> None:
        super().__init__()
        self.edits = {id(old): new for old, new in edits}

    def on_leave(self, original_node, updated_node):
        return self.edits.get(id(original_node), updated_node)


def own_init(klass: cst.ClassDef) -> Optional[cst.FunctionDef]:
    """The class's own `__init__` (not one it inherits), or None."""
    if not isinstance(klass.body, cst.IndentedBlock):
        return None
    for stmt in klass.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "__init__":
            return stmt
    return None


def new_init_with_function(
    klass: cst.ClassDef,
    function: cst.FunctionDef,
    statement: cst.BaseStatement,
    function_edits: Iterable[Edit],
) -> Optional[Edit]:
    """For a class without `__init__` whose first statement is `function` (the hybrid_forward
    that the other edits change): ONE edit replacing `function` by the new `__init__` and the
    function with `function_edits` (of nodes inside it) applied, so no two edits overlap.
    None when `function` is not the class's first statement."""
    if (
        not isinstance(klass.body, cst.IndentedBlock)
        or not klass.body.body
        or klass.body.body[0] is not function
    ):
        return None
    changed = function.visit(_Apply(function_edits))
    if not isinstance(changed, cst.FunctionDef):
        return None
    init = _new_init(klass, statement).with_changes(leading_lines=list(function.leading_lines))
    changed = changed.with_changes(leading_lines=[cst.EmptyLine(indent=False)])
    return function, cst.FlattenSentinel([init, changed])


def with_init_statement(
    klass: cst.ClassDef,
    function: cst.FunctionDef,
    statement: cst.BaseStatement,
    edits: List[Edit],
) -> Optional[List[Edit]]:
    """`edits` (of `function`, the hybrid_forward) with `statement` added to the class's own
    `__init__` (one inherited from a base class of the module would give the base and its other
    subclasses a constant their hybrid_forward does not take), or to a new one that passes every
    argument on (exact whatever the base class takes); when `function` is the class's first
    statement, one edit holds all (the new `__init__` and the changed function). None when no
    place is found."""
    init = own_init(klass)
    if init is not None:
        insert = init_edit(init, statement)
    else:
        insert = new_init_edit(klass, function, statement)
        if insert is None:
            whole = new_init_with_function(klass, function, statement, edits)
            return [whole] if whole is not None else None
    return None if insert is None else [insert] + edits


def new_init_edit(
    klass: cst.ClassDef, function: cst.FunctionDef, statement: cst.BaseStatement
) -> Optional[Edit]:
    """For a class without `__init__`: add one that passes every argument to the inherited one
    (`def __init__(self, *args, **kwargs): super(Cls, self).__init__(*args, **kwargs)`) and then
    runs `statement`, after the class docstring or before the first statement. None when that
    first statement is `function` (whose signature the fix also edits: the edits would overlap)."""
    if not isinstance(klass.body, cst.IndentedBlock) or not klass.body.body:
        return None
    init = _new_init(klass, statement)
    first = klass.body.body[0]
    docstring = (
        isinstance(first, cst.SimpleStatementLine)
        and len(first.body) == 1
        and isinstance(first.body[0], cst.Expr)
        and isinstance(first.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )
    if first is function:
        return None
    if docstring:
        return first, cst.FlattenSentinel(
            [first, init.with_changes(leading_lines=[cst.EmptyLine(indent=False)])]
        )
    return first, cst.FlattenSentinel(
        [init, first.with_changes(leading_lines=[cst.EmptyLine(indent=False)])]
    )


class _Binds(NameBindings):
    """Whether a statement binds `name` (any binding form NameBindings lists)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.found = False

    def bind_name(self, name: cst.Name) -> None:
        if name.value == self.name:
            self.found = True


def binds(node: cst.CSTNode, name: str) -> bool:
    """`node` (a statement, a function body) binds `name` somewhere."""
    finder = _Binds(name)
    node.visit(finder)
    return finder.found


def init_store(klass: cst.ClassDef, attr: str) -> Optional[cst.Assign]:
    """The one `self.<attr> = value` of the class's own `__init__` (`init_attribute`), alone on
    its line with one target, when a `super().__init__(...)` runs before it (so
    `self.params` exists there) and `__init__` reads `self.<attr>` nowhere else: that value
    can become a constant parameter in place. None otherwise."""
    init = own_init(klass)
    if init is None or not init_attribute(klass, init, attr):
        return None
    top = top_statements(init)
    index = next((i for i, s in enumerate(top) if _stores_attribute(s, attr)), None)
    if index is None or not any(_is_super_init(s) for s in top[:index]):
        return None
    line = top[index]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    assign = line.body[0]
    if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
        return None
    if _mentions_attribute(init, attr) != 1:
        return None
    return assign


def _mentions_attribute(node: cst.CSTNode, attr: str) -> int:
    """How many times `self.<attr>` appears in `node` (reads and writes)."""
    return _per_node(_MENTIONED, node, _mentioned_attributes)[attr]


class _Mentions(cst.CSTVisitor):
    def __init__(self) -> None:
        super().__init__()
        self.count: Counter = Counter()

    def visit_Attribute(self, node: cst.Attribute) -> None:
        attr = self_attribute_name(node)
        if attr is not None:
            self.count[attr] += 1


def _mentioned_attributes(node: cst.CSTNode) -> Counter:
    """How many times each `self.<attr>` appears in `node`, by `<attr>`."""
    mentions = _Mentions()
    visit_only(node, mentions)
    return mentions.count


def mentioned_only_in(klass: cst.ClassDef, attr: str, methods: Set[str]) -> bool:
    """`self.<attr>` appears in no method of the class other than `methods`."""
    if not isinstance(klass.body, cst.IndentedBlock):
        return False
    return all(
        not isinstance(stmt, cst.FunctionDef)
        or stmt.name.value in methods
        or not _mentions_attribute(stmt, attr)
        for stmt in klass.body.body
    )
