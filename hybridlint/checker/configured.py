"""Dynamic fallbacks an example's configuration takes: HL001 there, fixed as the rule fixes it.

HL001 leaves `in_size = self.in_size if self.fixed_size else x.shape[2:]` alone when the
block's own configuration (the constructor's defaults, the module's constructions of it) never
evaluates the fallback (`rules/guards.configuration_fallback`): gluoncv2's nets default to
`fixed_size=True`, and there the read is no certain hazard. A user whose examples build the
block with `fixed_size=False` does evaluate it, and the hybridized trace fails there
("'Symbol' object has no attribute 'shape'": an observed HL001). For the conditional
expressions on those lines, the fixer made here lets the rules see the fallback as taken, so
HL001 writes the fix it writes for a block whose own default takes it (the static branch kept
as it is: `... if self.fixed_size else F.contrib.BilinearResize2D(x, like=x, mode='like')`):
a candidate the examples prove or reject like every other fix.
"""

from __future__ import annotations

import ast
from typing import Callable, FrozenSet, List, Sequence, Tuple

from ..rules.guards import fallbacks_taken, normalized_text

Keys = FrozenSet[Tuple[str, str]]


def taken_fallbacks(source: str, path: str, reports: Sequence) -> Keys:
    """(class name, normalized code) of each conditional expression, inside a class, that
    spans a line where an example's hybridized run read a shape attribute of a Symbol."""
    lines = {
        finding.line
        for report in reports
        for finding in report.runtime_findings
        if finding.code == "HL001" and finding.path == path
    }
    if not lines:
        return frozenset()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return frozenset()
    keys = set()
    for klass, node in _conditionals(tree):
        end = node.end_lineno or node.lineno
        if any(node.lineno <= line <= end for line in lines):
            segment = ast.get_source_segment(source, node)
            if segment is not None:
                keys.add((klass, normalized_text(segment)))
    return frozenset(keys)


def with_taken_fallbacks(fixer: Callable, keys: Keys) -> Callable:
    """`fixer` run with the rules seeing `keys`' fallbacks as taken. Every call passes an
    `accept` (all by default), so no answer memoised without them is reused (checker_bridge's
    fixer memoises calls without one)."""

    def fix(text: str, path: str = "<string>", *, accept=None, **options):
        with fallbacks_taken(keys):
            return fixer(text, path, accept=accept or _every, **options)

    return fix


def _every(_finding) -> bool:
    return True


def _conditionals(tree: ast.Module) -> List[Tuple[str, ast.IfExp]]:
    """(innermost enclosing class name, node) of every conditional expression in a class."""
    found: List[Tuple[str, ast.IfExp]] = []
    stack: List[Tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, klass = stack.pop()
        for child in ast.iter_child_nodes(node):
            inner = child.name if isinstance(child, ast.ClassDef) else klass
            if isinstance(child, ast.IfExp) and inner:
                found.append((inner, child))
            stack.append((child, inner))
    return found
