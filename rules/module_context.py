"""Module-level facts that the LibCST regions cannot see: imports and top-level classes.

The linter core parses only the statements holding a hybrid_forward (and the helpers they
call) with LibCST, so a rule never sees `from mxnet import nd` or `class Body(gluon.Block)`
elsewhere in the file. The core's `ast` pre-pass already has the whole module; this module
extracts from it, once per file, what rules need to resolve names:
- `imports`: local name -> qualified name (`nd` -> `mxnet.ndarray`, `mx` -> `mxnet`), with
  MXNet's namespace aliases normalised (`mxnet.nd` is `mxnet.ndarray`, `mxnet.sym` is
  `mxnet.symbol`), so `mx.nd.relu`, `nd.relu` and `mxnet.ndarray.relu` all resolve the same;
- `class_bases`: top-level class -> its base classes as written, to decide which classes of the
  module are HybridBlocks (HL010) and which are plain Blocks.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Tuple

from ..mxnet_facts import HYBRID_GLUON, NON_HYBRID_GLUON
from ..toplevel import looks_like_test

# Conventional names assumed only when the module binds them nowhere (snippets, notebooks).
_CONVENTIONS = {
    "mx": "mxnet",
    "nd": "mxnet.ndarray",
    "sym": "mxnet.symbol",
    "np": "numpy",
    "gluon": "mxnet.gluon",
    "nn": "mxnet.gluon.nn",
}
_NORMALISE = (
    ("mxnet.nd.", "mxnet.ndarray."),
    ("mxnet.sym.", "mxnet.symbol."),
    # MXNet registers the contrib operators a second time there (`from mxnet.contrib.ndarray
    # import BilinearResize2D`): the operators of mx.nd.contrib (checked on 1.9.1)
    ("mxnet.contrib.ndarray.", "mxnet.ndarray.contrib."),
    ("mxnet.contrib.nd.", "mxnet.ndarray.contrib."),
    ("mxnet.contrib.symbol.", "mxnet.symbol.contrib."),
    ("mxnet.contrib.sym.", "mxnet.symbol.contrib."),
)

_GLUON_PREFIXES = ("mxnet.gluon.",)
# importing these marks numpy-mode code (MXNet's numpy gluon tests: `from mxnet import np, npx`,
# `from mxnet.util import use_np`): legacy-mode rules and rewrites do not apply to it
_NUMPY_MODULES = (
    "mxnet.np",
    "mxnet.numpy",
    "mxnet.npx",
    "mxnet.numpy_extension",
    "mxnet.util.use_np",
    "mxnet.util.set_np",
)
# names a relative import binds inside MXNet's own package (mxnet/gluon/loss.py: `from .. import ndarray`)
_RELATIVE_NAMESPACES = {
    "ndarray": "mxnet.ndarray",
    "nd": "mxnet.ndarray",
    "symbol": "mxnet.symbol",
    "sym": "mxnet.symbol",
}


def normalise(qualified: str) -> str:
    """`mxnet.nd.relu` -> `mxnet.ndarray.relu` (one spelling per MXNet namespace)."""
    text = qualified + "."
    for old, new in _NORMALISE:
        if text.startswith(old):
            text = new + text[len(old) :]
    return text[:-1]


@dataclass(frozen=True)
class ModuleContext:
    """Imports and top-level classes of one file (see the module docstring)."""

    imports: Dict[str, str] = field(default_factory=dict)
    bound: Set[str] = field(default_factory=set)  # every name bound at module level
    class_bases: Dict[str, Tuple[str, ...]] = field(default_factory=dict)
    # module names standing for an MXNet namespace: `_ND = proxy_of(ndarray)`, `F_SYM = mx.sym`
    aliases: Dict[str, str] = field(default_factory=dict)
    numpy_mode: bool = False  # `npx.set_np()` at module level or mxnet.np/npx/use_np imported
    # local name -> (level, module, name) of every `from <module> import <name> [as local]`,
    # relative ones included (`from ._nlp_utils import split_heads` -> (1, "_nlp_utils",
    # "split_heads")): which module functions of the project a block's helpers come from
    from_imports: Dict[str, Tuple[int, str, str]] = field(default_factory=dict)
    # module names bound once, at module level, to an NDArray an mx.nd function makes
    # (`MEAN = mx.nd.array([...]).reshape((1, 3, 1, 1))`): host data, not a graph value (HL005)
    ndarray_globals: Set[str] = field(default_factory=set)
    # top-level functions whose every return is an NDArray they make (`return mx.nd.array(...)`,
    # or a name bound in them only to one: an SSIM loss's `create_window(size, channel)`)
    ndarray_functions: Set[str] = field(default_factory=set)
    # top-level functions that are one `return <test>` (after a docstring): name -> (parameter
    # names, the test's source), read by the guard analysis as the test itself:
    # `if mxnet_is_ndarray(F):` with `def mxnet_is_ndarray(F): return F.__name__ == ...`
    predicates: Dict[str, Tuple[Tuple[str, ...], str]] = field(default_factory=dict)
    # the file's text ("" when not known): a rule may skip a walk of its own when the name the
    # walk looks for is spelled nowhere in the file (`spells`)
    source: str = field(default="", repr=False, compare=False)

    def spells(self, word: str) -> bool:
        """Whether `word` may occur in the file: False only when the text is known and lacks
        it (every way to reach `mxnet.init.Constant` spells `Constant` somewhere)."""
        return not self.source or word in self.source

    def namespace_kind(self, dotted: Optional[str]) -> Optional[str]:
        """ "eager" when `dotted` names mx.nd (`nd`, `mx.ndarray`, `_ND` bound to it, also its
        `ndarray` submodule), "symbol" for mx.sym likewise, else None: what `F is <dotted>` tests."""
        if not dotted:
            return None
        qualified = self.aliases.get(dotted) or self.qualify(dotted)
        if qualified in ("mxnet.ndarray", "mxnet.ndarray.ndarray"):
            return "eager"
        if qualified in ("mxnet.symbol", "mxnet.symbol.symbol"):
            return "symbol"
        return None

    def qualify(self, dotted: Optional[str]) -> Optional[str]:
        """`nd.relu` -> `mxnet.ndarray.relu` when `nd` is an import (or, unbound, by convention)."""
        if not dotted:
            return None
        head, _, rest = dotted.partition(".")
        base = self.imports.get(head)
        if base is None and head not in self.bound:
            base = _CONVENTIONS.get(head)
        if base is None:
            return None
        return normalise(base + ("." + rest if rest else ""))

    def gluon_class(self, dotted: Optional[str]) -> Optional[str]:
        """The class name when `dotted` names a class of mxnet.gluon (any submodule)."""
        qualified = self.qualify(dotted)
        if qualified and qualified.startswith(_GLUON_PREFIXES):
            return qualified.rsplit(".", 1)[-1]
        return None

    def derives_from(self, name: str, qualified: str, _seen: Optional[Set[str]] = None) -> bool:
        """Whether the module's class `name` is, or derives through the module's classes from,
        the class `qualified` names (`mxnet.autograd.Function`), however it is imported."""
        if self.qualify(name) == qualified:
            return True
        seen = _seen if _seen is not None else set()
        if name not in self.class_bases or name in self.imports or name in seen:
            return False
        seen.add(name)
        return any(self.derives_from(base, qualified, seen) for base in self.class_bases[name])

    def hybrid_kind(
        self, dotted: Optional[str], _seen: Optional[Set[str]] = None
    ) -> Optional[bool]:
        """True: certainly a HybridBlock class; False: certainly a non-hybrid Block; None: unknown."""
        if not dotted:
            return None
        gluon = self.gluon_class(dotted)
        if gluon is not None:
            return True if gluon in HYBRID_GLUON else False if gluon in NON_HYBRID_GLUON else None
        if dotted in self.class_bases and dotted not in self.imports:
            seen = _seen or set()
            if dotted in seen:
                return None
            seen.add(dotted)
            kinds = [self.hybrid_kind(base, seen) for base in self.class_bases[dotted]]
            if any(kind is True for kind in kinds):
                return True
            if kinds and all(kind is False for kind in kinds):
                return False
        return None


def module_context(
    tree: ast.Module, source: str = "", parsed_text: Optional[str] = None
) -> ModuleContext:
    """Collect the imports (at any depth outside functions) and top-level classes of `tree`
    (parsed from `parsed_text`, by default `source`, the file's text, kept for
    `ModuleContext.spells`; the linter's fast path parses a skeleton of it)."""
    tree_lines = (source if parsed_text is None else parsed_text).splitlines(True)
    imports: Dict[str, str] = {}
    bound: Set[str] = set()
    classes: Dict[str, Tuple[str, ...]] = {}

    def visit(statements) -> None:
        for node in statements:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        imports[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        imports[head] = head
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if alias.name != "*":
                        from_imports[alias.asname or alias.name] = (
                            node.level or 0,
                            node.module or "",
                            alias.name,
                        )
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if alias.name != "*":
                        imports[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif (
                isinstance(node, ast.ImportFrom) and node.level
            ):  # inside MXNet: `from .. import ndarray`
                for alias in node.names:
                    if alias.name in _RELATIVE_NAMESPACES and not node.module:
                        imports[alias.asname or alias.name] = _RELATIVE_NAMESPACES[alias.name]
            elif isinstance(node, ast.ClassDef):
                bound.add(node.name)
                classes[node.name] = tuple(filter(None, (_dotted(b) for b in node.bases)))
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                bound.add(node.name)
                functions[node.name] = node
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    names = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
                    bound.update(names)
                    assignments.update(names)
                if (
                    isinstance(node, ast.Assign)
                    and len(node.targets) == 1
                    and isinstance(node.targets[0], ast.Name)
                ):
                    candidates[node.targets[0].id] = node.value
            elif (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and (_dotted(node.value.func) or "").split(".")[-1] == "set_np"
            ):
                numpy_calls.append(node.value)
            for block in ("body", "orelse", "finalbody", "handlers"):
                if isinstance(node, (ast.If, ast.Try, ast.With, ast.ExceptHandler)) or (
                    type(node).__name__ == "TryStar"
                ):
                    visit(getattr(node, block, ()) or ())

    candidates: Dict[str, ast.expr] = {}
    functions: Dict[str, ast.AST] = {}
    assignments: Counter = Counter()
    numpy_calls: list = []
    from_imports: Dict[str, Tuple[int, str, str]] = {}
    visit(tree.body)
    bound.update(imports)
    numpy_imports = any(normalise(q).startswith(_NUMPY_MODULES) for q in imports.values())
    context = ModuleContext(
        imports,
        bound,
        classes,
        numpy_mode=bool(numpy_calls) or numpy_imports,
        from_imports=from_imports,
        source=source,
    )
    mxnet = any(normalise(q).startswith("mxnet") for q in imports.values())
    for name, function in functions.items() if mxnet else ():
        if (
            name not in imports
            and assignments[name] == 0
            and _returns_made_ndarray(function, context)
        ):
            context.ndarray_functions.add(name)
    for name, value in candidates.items():
        if assignments[name] == 1 and name not in imports and _makes_ndarray(value, context):
            context.ndarray_globals.add(name)
    for name, function in functions.items():
        test = _single_return(function)
        if (
            test is not None
            and isinstance(function, ast.FunctionDef)  # not async: a coroutine is truthy
            and not function.decorator_list
            and _bound_once(name, source)
            and looks_like_test(tree_lines[function.lineno - 1 : function.end_lineno])
        ):
            arguments = function.args
            params = tuple(a.arg for a in [*arguments.posonlyargs, *arguments.args])
            context.predicates[name] = (params, ast.unparse(test))
    for local, (_, _, imported) in from_imports.items():
        # an imported test of the namespace, known by its name alone: `mxnet_is_ndarray(F)`
        named = _PREDICATE_NAME.match(imported)
        if named is not None and local not in context.predicates and _bound_once(local, source):
            eager = named.group(1).lower() in ("nd", "ndarray")
            context.predicates[local] = (("F",), "F is mx.nd" if eager else "F is mx.sym")
    for name, value in candidates.items():  # `_ND = proxy_of(ndarray)`, `F_SYM = mx.sym`
        if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
            value = value.args[0]
        kind = context.namespace_kind(_dotted(value))
        if kind is not None:
            context.aliases[name] = "mxnet.ndarray" if kind == "eager" else "mxnet.symbol"
    return context


# the name of an imported namespace test: `is_nd`, `mxnet_is_ndarray`, `mx_is_symbol`
_PREDICATE_NAME = re.compile(r"^(?:_?mx_|_?mxnet_|_)?is_(nd|ndarray|sym|symbol)$", re.I)


def _bound_once(name: str, source: str) -> bool:
    """Whether the text binds `name` once only (its def or its import): a local def, lambda,
    assignment, parameter, loop or with target, global statement or second import of the
    name anywhere in the file may be what a call of it reaches, so such a name is not read
    as a module test. A text check, conservative: a keyword argument `name=` counts too.
    Without the text (no source known), nothing is read."""
    if not source:
        return False
    n = re.escape(name)
    patterns = (
        rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{n}\b",
        rf"\b{n}[ \t]*(?::=|=(?!=))",
        rf"\b(?:for|as|global|nonlocal|del|lambda)\b[^\n:]*\b{n}\b",
        rf"\bimport\b[^\n]*\b{n}\b",
        rf"\bdef[ \t]+\w+[ \t]*\([^)]*\b{n}\b",
    )
    return sum(len(re.findall(p, source, re.M)) for p in patterns) == 1


def _single_return(function: ast.AST) -> Optional[ast.expr]:
    """The returned expression of a function whose body is `return <expr>`, after an optional
    docstring; None otherwise."""
    body = list(getattr(function, "body", ()))
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    if len(body) == 1 and isinstance(body[0], ast.Return) and body[0].value is not None:
        return body[0].value
    return None


def _returns_made_ndarray(function: ast.AST, context: ModuleContext) -> bool:
    """Every `return` of `function` (outside nested scopes; at least one) gives an NDArray it
    makes: `_makes_ndarray`, or a name the function binds only to such (plain `name = ...`)."""
    returns: List[Optional[ast.expr]] = []
    stores: Dict[str, List[Optional[ast.expr]]] = {}
    todo = list(getattr(function, "body", ()))
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, ast.Return):
            returns.append(node.value)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                value = node.value if isinstance(target, ast.Name) else None
                for name in (n.id for n in ast.walk(target) if isinstance(n, ast.Name)):
                    stores.setdefault(name, []).append(value)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.With, ast.NamedExpr)):
            for part in ast.walk(node):
                if isinstance(part, ast.Name) and isinstance(part.ctx, ast.Store):
                    stores.setdefault(part.id, []).append(None)
        todo.extend(ast.iter_child_nodes(node))

    def made(value: Optional[ast.expr]) -> bool:
        if isinstance(value, ast.Name):
            bound = stores.get(value.id) or []
            return bool(bound) and all(b is not None and _makes_ndarray(b, context) for b in bound)
        return value is not None and _makes_ndarray(value, context)

    return bool(returns) and all(made(value) for value in returns)


def _makes_ndarray(value: ast.expr, context: ModuleContext) -> bool:
    """A call of an mx.nd function (`mx.nd.array(...)`, `nd.reshape(nd.array(...), ...)`),
    or a chain of method calls on one (`.reshape(...)`, `.astype(...)`), or a call of a
    top-level function that returns one (`ModuleContext.ndarray_functions`)."""
    while (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Call)
    ):
        value = value.func.value
    if not isinstance(value, ast.Call):
        return False
    if isinstance(value.func, ast.Name) and value.func.id in context.ndarray_functions:
        return True
    qualified = context.qualify(_dotted(value.func)) or ""
    return qualified.startswith("mxnet.ndarray.") and qualified.rsplit(".", 1)[1] not in (
        "load",
        "save",
        "waitall",
    )


def _dotted(node: ast.expr) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
