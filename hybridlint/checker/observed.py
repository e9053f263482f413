"""Hazards the trace observed become fixes: non-broadcast arithmetic (HL007) seen at run time.

Static analysis cannot always tell that `x * w` mixes shapes (8, 5, 5) and (8, 1, 1); running an
example can: the hybridized call fails in the elementwise operator the user's line created.
With that evidence the rewrite `F.broadcast_mul(x, w)` is exact (NDArray's `*` broadcasts the
same way), so it is offered as a fix and proven like any other: `--verify` applies it only if
the example then runs eagerly, hybridized and exported with the original's outputs.
"""
from __future__ import annotations

import ast
import re
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from .expression import _namespace

_NODE = re.compile(r"(?:Error in operator|in node) \S*?_(plus|minus|mul|div|mod|power)\d+\b")
_BINOPS: Dict[type, Tuple[str, str]] = {
    ast.Add: ("plus", "add"), ast.Sub: ("minus", "sub"), ast.Mult: ("mul", "mul"),
    ast.Div: ("div", "div"), ast.Mod: ("mod", "mod"), ast.Pow: ("power", "power")}


def observed_fixes(source: str, path: str, reports: Sequence, taken: Sequence = ()):
    """Candidate HL007 fixes at the lines where the examples' hybridized runs failed in
    elementwise arithmetic, one per line (none on a line a static fix already rewrites).

    Returns (findings, plan): `plan[line]` is the operator the failing node names (`minus`),
    or None when the error does not say; the fix of a line rewrites every tensor-tensor
    operation of that kind on it (each rewrite is exact, so rewriting one too many is still
    equivalent, and the checker proves the line as a whole)."""
    from hybridlint.linter import Finding
    busy = {f.line for f in taken}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [], {}
    out, plan = [], {}
    for report in reports:
        if report.status != "hybrid_error":
            continue
        match = _NODE.search(report.error_message or "")
        for finding in report.runtime_findings:
            line = finding.line
            if finding.code != "HL007" or finding.path != path or line in busy or line in plan:
                continue
            name = match.group(1) if match else None
            nodes = [n for n, _ in _binops(tree, line) if _matches(n, name)]
            if not nodes:
                continue
            plan[line] = name
            first = min(nodes, key=lambda n: n.col_offset)
            ops = sorted({f"{ns}.broadcast_{_BINOPS[type(n.op)][1]}"
                          for n, ns in _binops(tree, line) if _matches(n, name)})
            out.append(Finding(
                "HL007", "non-broadcast-arithmetic",
                "observed at run time while tracing the hybridized graph: elementwise "
                f"arithmetic between tensors of different shapes; use {', '.join(ops)}",
                line, first.col_offset + 1, line, max(n.end_col_offset for n in nodes) + 1,
                "safe", path))
    return out, plan


def _matches(node: ast.BinOp, name: Optional[str]) -> bool:
    return name is None or _BINOPS[type(node.op)][0] == name


def _binops(tree: ast.AST, line: int):
    """Tensor-tensor arithmetic on one line (no numeric literal operand), with the namespace
    (`F`) of the function it is in."""
    def walk(node, function):
        for child in ast.iter_child_nodes(node):
            inner = child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                else function
            if (isinstance(child, ast.BinOp) and type(child.op) in _BINOPS
                    and child.lineno == child.end_lineno == line and function is not None
                    and not (_literal(child.left) or _literal(child.right))):
                namespace = _namespace(function)
                if namespace:
                    yield child, namespace
            yield from walk(child, inner)
    yield from walk(tree, None)


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float))


def rewrite(source: str, plan: Dict[int, Optional[str]]) -> str:
    """On each planned line, replace the tensor-tensor operations of the planned kind with
    F.broadcast_* calls; nested ones are rewritten inside their parents' arguments."""
    if not plan:
        return source
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    namespaces: Dict[int, Optional[str]] = {}
    by_line: Dict[int, List[ast.BinOp]] = {}
    for line, name in plan.items():
        for node, namespace in _binops(tree, line):
            if _matches(node, name):
                namespaces[id(node)] = namespace
                by_line.setdefault(line, []).append(node)
    for line, group in by_line.items():
        text = lines[line - 1]
        lines[line - 1] = _render_span(text, 0, len(text.encode("utf-8")), group, namespaces)
    return "".join(lines)


def _render_span(text: str, start: int, end: int, nodes: List[ast.BinOp], namespaces) -> str:
    """The bytes [start, end) of one line, with the outermost chosen nodes inside rewritten."""
    raw = text.encode("utf-8")
    inside = [n for n in nodes if start <= n.col_offset and n.end_col_offset <= end]
    outer = [n for n in inside if not any(o is not n and o.col_offset <= n.col_offset
                                          and n.end_col_offset <= o.end_col_offset
                                          for o in inside)]
    out, pos = [], start
    for node in sorted(outer, key=lambda n: n.col_offset):
        out.append(raw[pos:node.col_offset].decode("utf-8"))
        _, op = _BINOPS[type(node.op)]
        left = _render_span(text, node.left.col_offset, node.left.end_col_offset, inside,
                            namespaces)
        right = _render_span(text, node.right.col_offset, node.right.end_col_offset, inside,
                             namespaces)
        out.append(f"{namespaces.get(id(node)) or 'F'}.broadcast_{op}({left}, {right})")
        pos = node.end_col_offset
    out.append(raw[pos:end].decode("utf-8"))
    return "".join(out)


def with_observed(fixer: Callable, source: str, candidates: Sequence,
                  plan: Dict[int, Optional[str]]) -> Callable:
    """A fixer that also applies the accepted observed fixes (only to `source` itself)."""
    def fix(text: str, path: str = "<string>", *, accept: Optional[Callable] = None,
            **options):
        from hybridlint.linter import FixResult
        chosen = [c for c in candidates if accept is None or accept(c)] \
            if text == source else []
        rewritten = rewrite(text, {c.line: plan[c.line] for c in chosen})
        result = fixer(rewritten, path, accept=accept, **options)
        return FixResult(result.source, chosen + list(result.applied), result.remaining)
    return fix
