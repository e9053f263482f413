"""Hazards the trace observed become fixes: non-broadcast arithmetic (HL007), indexing a
single-output Symbol (HL003), a varargs reshape (HL011) and a cond predicate of the wrong dtype
(HL008), seen at run time at the user's line.

Static analysis cannot always tell that `x * w` mixes shapes (8, 5, 5) and (8, 1, 1); running an
example can: the hybridized call fails in the elementwise operator the user's line created.
With that evidence the rewrite `F.broadcast_mul(x, w)` is exact (NDArray's `*` broadcasts the
same way), so it is offered as a fix and proven like any other: `--verify` applies it only if
the example then runs eagerly, hybridized and exported with the original's outputs.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, cast

from ..mxnet_facts import COND_PREDICATE_DTYPE
from .dynamic import PREDICATE_DTYPE, cond_predicate_message
from .expression import _namespace

_NODE = re.compile(r"(?:Error in operator|in node) \S*?_(plus|minus|mul|div|mod|power)\d+\b")
_BINOPS: Dict[type, Tuple[str, str]] = {
    ast.Add: ("plus", "add"),
    ast.Sub: ("minus", "sub"),
    ast.Mult: ("mul", "mul"),
    ast.Div: ("div", "div"),
    ast.Mod: ("mod", "mod"),
    ast.Pow: ("power", "power"),
}


OBSERVED = "observed at run time while tracing the hybridized graph"

Plan = Dict[Tuple[int, str], List[Optional[str]]]


def is_observed(finding: Any) -> bool:
    """Is this one of the fixes observed_fixes makes (not a static rule's)?"""
    return str(getattr(finding, "message", "")).startswith(OBSERVED)


def observed_fixes(source: str, path: str, reports: Sequence, taken: Sequence = ()):
    """Candidate fixes at the lines where the examples' hybridized runs showed a hazard, one
    per line and rule (none on a line a static fix already rewrites, `taken`):

    - HL007, a `hybrid_error` in elementwise arithmetic: the operator the failing node names
      (`foo0__minus0`) picks which tensor-tensor operations of the line become
      `F.broadcast_*` (every one of that kind: each rewrite is exact, so one too many is still
      equivalent, and the checker proves the line as a whole);
    - HL003, `x[i]` / `x[a:b]` seen on a single-output Symbol: the subscripts of the line
      with those very indices become `x.slice_axis(axis=0, ...)` (`.squeeze(axis=0)` for an
      integer), fluent methods both NDArray and Symbol have, so no namespace is needed;
    - HL011, `x.reshape(a, b)` whose dims a Symbol binds to other parameters: one tuple;
    - HL008, a `contrib.cond` whose predicate a hybridized graph cannot type (MXNet needs it
      float32): the predicate of the cond called on that line gets `.astype('float32')`.
      Eagerly cond reads the predicate as one Python scalar, and the cast keeps its truth
      for every integer and bool (and float16); a float64 below float32's range would become
      0, so that one is an unsafe fix.

    Returns (findings, plan) with `plan[(line, code)]` the details (operator kinds, index
    reprs) that `rewrite` rewrites on that line."""
    busy = {f.line for f in taken}
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return [], {}
    plan: Plan = {}
    for report in reports:
        match = _NODE.search(report.error_message or "")
        for finding in report.runtime_findings:
            line = finding.line
            if finding.path != path or line in busy:
                continue
            if finding.code == "HL007" and report.status == "hybrid_error":
                detail = match.group(1) if match else None
            elif finding.code == "HL003" and report.status in ("hybrid_error", "mismatch"):
                seen = _INDEX.search(finding.message)
                detail = seen.group(1) if seen else None
            elif finding.code == "HL011" and report.status == "hybrid_error":
                detail = None
            elif finding.code == "HL008" and report.status == "hybrid_error":
                seen = PREDICATE_DTYPE.search(finding.message)
                if not seen:  # HL008's other run-time findings are not the cond's dtype
                    continue
                detail = seen.group(1)
                predicates = _cond_predicates(tree, line)
                # keyed by where the predicate starts: the line the fix's finding names
                line = min((p.lineno for p in predicates), default=line)
            else:
                continue
            if _nodes(tree, line, finding.code, [detail]):
                details = plan.setdefault((line, finding.code), [])
                if detail not in details:
                    details.append(detail)
    return planned_fixes(source, path, plan, tree), plan


def planned_fixes(source: str, path: str, plan: Plan, tree: Optional[ast.AST] = None) -> List:
    """The findings of the observed fixes `plan` makes in `source`: one per line and rule,
    spanning the nodes it rewrites (lines where it rewrites nothing are left out)."""
    from hybridlint.ftypes import Finding, FixSafety

    tree = tree or ast.parse(source)
    out = []
    for (line, code), details in plan.items():
        nodes = _nodes(tree, line, code, details)
        if not nodes:
            continue
        first = min(nodes, key=lambda n: (n.lineno, n.col_offset))
        last = max(nodes, key=lambda n: (n.end_lineno, n.end_col_offset))
        lossy = code == "HL008" and any(d not in _EXACT_IN_PREDICATE for d in details)
        out.append(
            Finding(
                code,
                RUNTIME_NAMES.get(code, ""),
                f"{OBSERVED}: {_what(tree, line, code, details)}",
                first.lineno,
                first.col_offset + 1,
                last.end_lineno,
                last.end_col_offset + 1,
                FixSafety.UNSAFE if lossy else FixSafety.SAFE,
                path,
            )
        )
    return out


RUNTIME_NAMES = {
    "HL003": "tensor-indexing",
    "HL008": "tensor-control-flow",
    "HL007": "non-broadcast-arithmetic",
    "HL011": "varargs-reshape",
}


def _nodes(tree: ast.AST, line: int, code: str, details: Sequence[Optional[str]]) -> List[Any]:
    """The nodes of `line` an observed fix of rule `code` rewrites."""
    if code == "HL007":
        return [n for n, _ in _binops(tree, line) if any(_matches(n, d) for d in details)]
    if code == "HL011":
        return _varargs_reshapes(tree, line)
    if code == "HL008":
        return _cond_predicates(tree, line)
    return [n for n in _subscripts(tree, line) if _index_repr(n) in details]


# predicate dtypes whose every value keeps its truth as a float32 (float64 may underflow to 0)
_EXACT_IN_PREDICATE = frozenset(
    ["bool", "int8", "int32", "int64", "uint8", "float16", "float32", "unknown"]
)


def _cond_predicates(tree: ast.AST, line: int) -> List[ast.expr]:
    """The predicate (first argument, or `pred=`) of each `<ns>.contrib.cond(...)` call whose
    source spans `line` (MXNet names the cond node; the line is where the call was made)."""
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "cond"
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "contrib"
            and node.lineno <= line <= cast(int, node.end_lineno)
        ):
            given = [k.value for k in node.keywords if k.arg == "pred"]
            predicate = node.args[0] if node.args else (given[0] if given else None)
            if predicate is not None and not isinstance(predicate, ast.Starred):
                out.append(predicate)
    return out


def _varargs_reshapes(tree: ast.AST, line: int) -> List[ast.Call]:
    """`<expr>.reshape(a, b, ...)` on one line: two or more plain positional arguments and
    no keyword (what NDArray takes as the dims and a Symbol binds to other parameters)."""
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr == "reshape"
        and n.lineno == n.end_lineno == line
        and len(n.args) >= 2
        and not n.keywords
        and not any(isinstance(a, ast.Starred) for a in n.args)
    ]


def _what(tree: ast.AST, line: int, code: str, details: List[Optional[str]]) -> str:
    if code == "HL007":
        uses = sorted(
            {
                f"{ns}.broadcast_{_BINOPS[type(n.op)][1]}"
                for n, ns in _binops(tree, line)
                if any(_matches(n, d) for d in details)
            }
        )
        return "elementwise arithmetic between tensors of different shapes; use " + ", ".join(uses)
    if code == "HL011":
        return "a Symbol's reshape takes the dims as one tuple: x.reshape((a, b, ...))"
    if code == "HL008":
        return cond_predicate_message(", ".join(str(d) for d in details))
    shown = ", ".join(str(d) for d in details)
    return f"indexing a Symbol with {shown} selects an output, not rows; use slice_axis (+ squeeze)"


_INDEX = re.compile(r"indexing a Symbol with (.+?) selects")


def _subscripts(tree: ast.AST, line: int) -> List[ast.Subscript]:
    """The rewritable subscripts of `line`; not one measured by `len()` (`len(x[0])`: the
    len has no number under hybridize whatever the index's form, as HL003 decides too)."""
    nodes = [n for n in ast.walk(tree) if getattr(n, "lineno", None) == line]
    measured = {
        id(n.args[0])
        for n in nodes
        if isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "len"
        and len(n.args) == 1
    }
    return [
        n
        for n in nodes
        if isinstance(n, ast.Subscript)
        and isinstance(n.ctx, ast.Load)
        and n.lineno == n.end_lineno == line
        and id(n) not in measured
        and _bounds(n) is not None
    ]


def _int(node: Optional[ast.expr]) -> Optional[int]:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _int(node.operand)
        return None if inner is None else -inner
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def _bounds(node: ast.Subscript):
    """(begin, end, squeeze) of an axis-0 index with literal bounds, else None."""
    index = node.slice
    i = _int(index)
    if i is not None:
        return i, (None if i == -1 else i + 1), True
    if isinstance(index, ast.Slice) and index.step is None:
        ends = [index.lower, index.upper]
        if all(e is None or _int(e) is not None for e in ends):
            return (
                0 if index.lower is None else _int(index.lower),
                None if index.upper is None else _int(index.upper),
                False,
            )
    return None


def _index_repr(node: ast.Subscript) -> str:
    """How Python reprs the index object the Symbol received (`0`, `slice(1, 3, None)`)."""
    index: Any = node.slice  # an int literal or an ast.Slice (what _subscripts keeps)
    if _int(index) is not None:
        return repr(_int(index))
    lower = None if index.lower is None else _int(index.lower)
    upper = None if index.upper is None else _int(index.upper)
    return repr(slice(lower, upper, None))


def _matches(node: ast.BinOp, name: Optional[str]) -> bool:
    return name is None or _BINOPS[type(node.op)][0] == name


def _binops(tree: ast.AST, line: int):
    """Tensor-tensor arithmetic on one line (no numeric literal operand), with the namespace
    (`F`) of the function it is in."""

    def walk(node, function):
        for child in ast.iter_child_nodes(node):
            inner = (
                child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            )
            if (
                isinstance(child, ast.BinOp)
                and type(child.op) in _BINOPS
                and child.lineno == child.end_lineno == line
                and function is not None
                and not (_literal(child.left) or _literal(child.right))
            ):
                namespace = _namespace(function)
                if namespace:
                    yield child, namespace
            yield from walk(child, inner)

    yield from walk(tree, None)


def _literal(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float))


def rewrite(source: str, plan: Plan) -> str:
    """Apply the planned observed fixes (see observed_fixes) to their lines."""
    if not plan:
        return source
    casts = [line for line, code in plan if code == "HL008"]
    plan = {key: details for key, details in plan.items() if key[1] != "HL008"}
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    namespaces: Dict[int, Optional[str]] = {}
    by_line: Dict[int, List[ast.expr]] = {}
    for (line, code), details in plan.items():
        nodes = _nodes(tree, line, code, details)
        by_line.setdefault(line, []).extend(nodes)
        if code == "HL007":
            namespaces.update({id(n): ns for n, ns in _binops(tree, line) if n in nodes})
    for line, group in by_line.items():
        text = lines[line - 1]
        lines[line - 1] = _render_span(text, 0, len(text.encode("utf-8")), group, namespaces)
    return _cast_predicates("".join(lines), casts)


def _cast_predicates(source: str, lines: Sequence[int]) -> str:
    """`source` with the cond predicates of `lines` cast to float32. The one-line rewrites
    before it keep every line's number, so the lines still name the same calls; a predicate
    may span lines, so the cast is two insertions, made from the end of the file backwards."""
    if not lines:
        return source
    tree = ast.parse(source)
    predicates = {id(p): p for line in lines for p in _cond_predicates(tree, line)}
    text = source.splitlines(keepends=True)
    insertions: List[Tuple[int, int, str]] = []
    for p in predicates.values():
        atom = isinstance(p, (ast.Name, ast.Attribute, ast.Call, ast.Subscript))
        cast_to = f".astype('{COND_PREDICATE_DTYPE}')"
        end = (cast(int, p.end_lineno), cast(int, p.end_col_offset))  # parsed: set
        insertions.append((*end, cast_to if atom else ")" + cast_to))
        if not atom:
            insertions.append((p.lineno, p.col_offset, "("))
    for line, col, piece in sorted(insertions, reverse=True):
        raw = text[line - 1].encode("utf-8")
        text[line - 1] = (raw[:col] + piece.encode("utf-8") + raw[col:]).decode("utf-8")
    return "".join(text)


def _render_span(text: str, start: int, end: int, nodes: List[Any], namespaces) -> str:
    """The bytes [start, end) of one line, with the outermost chosen nodes inside rewritten."""
    raw = text.encode("utf-8")
    inside = [n for n in nodes if start <= n.col_offset and n.end_col_offset <= end]
    outer = [
        n
        for n in inside
        if not any(
            o is not n and o.col_offset <= n.col_offset and n.end_col_offset <= o.end_col_offset
            for o in inside
        )
    ]
    out, pos = [], start
    for node in sorted(outer, key=lambda n: n.col_offset):
        out.append(raw[pos : node.col_offset].decode("utf-8"))
        if isinstance(node, ast.Subscript):
            value = _render_span(
                text,
                node.value.col_offset,
                cast(int, node.value.end_col_offset),  # parsed: set
                inside,
                namespaces,
            )
            if not isinstance(node.value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                value = f"({value})"
            begin, stop, squeeze = _bounds(node)
            out.append(
                f"{value}.slice_axis(axis=0, begin={begin}, end={stop})"
                + (".squeeze(axis=0)" if squeeze else "")
            )
        elif isinstance(node, ast.Call):  # a varargs reshape: the dims as one tuple
            base = cast(ast.Attribute, node.func).value  # `_varargs_reshapes` keeps those
            value = _render_span(
                text, base.col_offset, cast(int, base.end_col_offset), inside, namespaces
            )
            dims = [
                _render_span(text, a.col_offset, cast(int, a.end_col_offset), inside, namespaces)
                for a in node.args
            ]
            out.append(f"{value}.reshape(({', '.join(dims)}))")
        else:
            _, op = _BINOPS[type(node.op)]
            left = _render_span(
                text, node.left.col_offset, node.left.end_col_offset, inside, namespaces
            )
            right = _render_span(
                text, node.right.col_offset, node.right.end_col_offset, inside, namespaces
            )
            out.append(f"{namespaces.get(id(node)) or 'F'}.broadcast_{op}({left}, {right})")
        pos = node.end_col_offset
    out.append(raw[pos:end].decode("utf-8"))
    return "".join(out)


def with_observed(fixer: Callable, source: str, candidates: Sequence, plan: Plan) -> Callable:
    """A fixer that also applies the accepted observed fixes (only to `source` itself)."""

    def fix(text: str, path: str = "<string>", *, accept: Optional[Callable] = None, **options):
        from hybridlint.linter import FixResult

        chosen = [c for c in candidates if accept is None or accept(c)] if text == source else []
        rewritten = rewrite(text, {(c.line, c.code): plan[(c.line, c.code)] for c in chosen})
        result = fixer(rewritten, path, accept=accept, **options)
        return FixResult(result.source, chosen + list(result.applied), result.remaining)

    return fix
