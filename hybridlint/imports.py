"""Imports that fixes made unused are removed (``nd`` once ``nd.zeros`` became ``F.zeros``).

Only what the fixes caused is touched, as ruff's F401 fix would do it after the rewrite, and only
for the namespaces the fixes replace with ``F`` (``mxnet.nd``/``ndarray``/``sym``/``symbol``
imported under any name; ``import mxnet as mx`` too once ``mx.nd.transpose`` became
``F.transpose``, when another import of the module keeps importing mxnet, e.g. ``from mxnet
import gluon``, so no import side effect goes): a name bound by a module-level import
that the source used before the fixes and no longer uses anywhere after them (no Name or
attribute root, not listed in a module-level ``__all__``). The import statement must be a whole
line of its own; the name is dropped from it, and a statement left empty is deleted. The result
must parse, or nothing is removed.
"""

from __future__ import annotations

import ast
from typing import List, Set, Tuple


def _used(tree: ast.Module) -> Set[str]:
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    for node in tree.body:  # names exported through __all__ count as used
        if isinstance(node, (ast.Assign, ast.AugAssign)) and any(
            isinstance(t, ast.Name) and t.id == "__all__"
            for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        ):
            names |= {
                c.value
                for c in ast.walk(node.value)
                if isinstance(c, ast.Constant) and isinstance(c.value, str)
            }
    return names


_NAMESPACES = ("nd", "ndarray", "sym", "symbol")


def _bound(alias: ast.alias) -> str:
    return alias.asname or alias.name.split(".")[0]


def _is_namespace(node: ast.stmt, alias: ast.alias) -> bool:
    """``from mxnet import nd``, ``import mxnet.ndarray as nd`` and the like."""
    if isinstance(node, ast.ImportFrom):
        return node.level == 0 and node.module == "mxnet" and alias.name in _NAMESPACES
    parts = alias.name.split(".")
    return (
        alias.asname is not None
        and len(parts) == 2
        and parts[0] == "mxnet"
        and parts[1] in _NAMESPACES
    )


def _is_mxnet(node: ast.stmt, alias: ast.alias) -> bool:
    """``import mxnet`` or ``import mxnet as mx``."""
    return isinstance(node, ast.Import) and alias.name == "mxnet"


def _imports_mxnet_otherwise(tree: ast.Module) -> bool:
    """A module-level ``from mxnet import <not a namespace>`` or ``from mxnet.<sub> import``
    (``from mxnet import gluon``, ``from mxnet.gluon import HybridBlock``): mxnet is imported
    whatever happens to ``import mxnet as mx``."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module.startswith("mxnet."):
                return True
            if node.module == "mxnet" and any(a.name not in _NAMESPACES for a in node.names):
                return True
    return False


def drop_unused_imports(original: str, fixed: str) -> Tuple[str, List[int]]:
    """``fixed`` without the imports its fixes made unused, and the deleted line numbers
    (1-based, in ``fixed``) so that positions after them can be moved up."""
    if original == fixed:
        return fixed, []
    try:
        before, after = ast.parse(original), ast.parse(fixed)
    except (SyntaxError, ValueError):
        return fixed, []
    used_before, used_after = _used(before), _used(after)
    imports = [
        node
        for node in after.body
        if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno == node.end_lineno
    ]
    if _imports_mxnet_otherwise(after):
        candidates = lambda node, alias: _is_namespace(node, alias) or _is_mxnet(node, alias)  # noqa: E731
    else:
        candidates = _is_namespace
    stale = {_bound(a) for node in imports for a in node.names if candidates(node, a)}
    stale = {name for name in stale if name in used_before and name not in used_after}
    if not stale:
        return fixed, []
    lines = fixed.splitlines(keepends=True)
    deleted: List[int] = []
    for node in sorted(imports, key=lambda n: -n.lineno):
        keep = [a for a in node.names if not candidates(node, a) or _bound(a) not in stale]
        if len(keep) == len(node.names):
            continue
        line = lines[node.lineno - 1]
        head, tail = line[: node.col_offset], line[node.end_col_offset :]
        if head.strip() or tail.strip().startswith(";"):
            continue  # shares its line with other statements: left alone
        if not keep:
            if tail.strip():  # a trailing comment would lose its statement: left alone
                continue
            del lines[node.lineno - 1]
            deleted.append(node.lineno)
            continue
        names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in keep)
        statement = (
            f"from {'.' * node.level}{node.module or ''} import {names}"
            if isinstance(node, ast.ImportFrom)
            else f"import {names}"
        )
        lines[node.lineno - 1] = head + statement + tail
    result = "".join(lines)
    try:
        ast.parse(result)
    except (SyntaxError, ValueError):
        return fixed, []
    return result, sorted(deleted)


def shift(line: int, deleted: List[int]) -> int:
    """A line number of the text before the deletions, in the text after them."""
    return line - sum(1 for d in deleted if d < line)


def apply(original: str, fixed: str, remaining: list) -> Tuple[str, list]:
    """:func:`drop_unused_imports`, with the remaining findings' lines moved accordingly."""
    from dataclasses import replace

    new, deleted = drop_unused_imports(original, fixed)
    if not deleted:
        return new, remaining
    return new, [
        replace(f, line=shift(f.line, deleted), end_line=shift(f.end_line, deleted))
        for f in remaining
    ]
