"""Expression-level verification of one fix, for files that have no example inputs.

The fix's change is located (common prefix/suffix of the two texts), widened to the smallest
expression of the original that contains it, and both versions of that expression are run by
`check_expression` on generated shapes: the original eagerly, the rewrite eagerly and
hybridized. A fix that is not a change inside one expression (a statement rewrite, a new
constant parameter) or whose expression uses names other than tensors, the namespace and
`mx`/`nd`/`np`/`sym` cannot be verified this way: the result is `cannot_run` with the reason.
"""

from __future__ import annotations

import ast
import builtins
import functools
import re
import textwrap
from typing import AbstractSet, Dict, Iterator, List, Mapping, Optional, Tuple, cast

from .checks import check_expression
from .report import EquivalenceReport

KNOWN_MODULES = {
    "mx": "import mxnet as mx",
    "nd": "from mxnet import nd",
    "np": "import numpy as np",
    "sym": "from mxnet import sym",
}
BASE_SHAPES = [(2, 3, 4), (3, 4), (5,), (2, 3, 4, 5)]
MAX_SHAPE_SETS = 9
NUMBER = 1  # what a name holding a Python number is bound to
# ... and one holding a tuple or list of numbers (rows an index picks, axes, a shape): two, out
# of order, each valid on every generated shape's axes but the 1-d one's; a tuple, the form
# operators' axis and shape arguments take
SEQUENCE = "(1, 0)"
_HYBRIDIZED_STAGES = ("fixed hybridize", "fixed export")


def changed_expression(original: str, fixed: str) -> Optional[Tuple[str, str, Optional[str]]]:
    """(original expression, rewritten expression, namespace name), or None."""
    found = _changed(original, fixed)
    return None if found is None else found[2:]


def changed_region(original: str, fixed: str) -> Optional[Tuple[int, int]]:
    """The character span of `original` that holds the smallest expression of a hybrid
    function containing the whole change, or None (as :func:`changed_expression`)."""
    found = _changed(original, fixed)
    return None if found is None else found[:2]


def _changed(original: str, fixed: str) -> Optional[Tuple[int, int, str, str, Optional[str]]]:
    start, end = _changed_span(original, fixed)
    parsed = _parsed(original) if original != fixed else None
    if parsed is None:
        return None
    tree, offsets = parsed
    best: Optional[Tuple[int, int, Optional[ast.FunctionDef], ast.expr]] = None
    for node, function in _expressions(tree):
        assert node.end_lineno is not None and node.end_col_offset is not None  # ast.parse's
        if isinstance(node, (ast.Name, ast.Attribute)):
            # a bare name or dotted path (`nd` of `nd.where(...)` made `F`) computes nothing
            # to compare: the call or operation around it is the expression
            continue
        node_start = _offset(original, offsets, node.lineno, node.col_offset)
        node_end = _offset(original, offsets, node.end_lineno, node.end_col_offset)
        if (
            node_start <= start
            and end <= node_end
            and (best is None or node_end - node_start < best[1] - best[0])
        ):
            best = (node_start, node_end, function, node)
    if best is None:
        return None
    node_start, node_end, function, found = best
    if function is None:
        return None
    delta = len(fixed) - len(original)
    before, after = original[node_start:node_end], fixed[node_start : node_end + delta]
    receiver = _unchanged_receiver(found, original, offsets, start)
    if receiver is not None:
        # `encoder_hs[-1].reshape(-3, -2)` -> `...reshape((-3, -2))`: the fix changes the
        # arguments of a method of an array; fed generated arrays, the receiver's own
        # expression (an item of a list) would fail for a reason the code never meets
        before = RECEIVER + before[receiver - node_start :]
        after = RECEIVER + after[receiver - node_start :]
    for text in (before, after):
        try:
            ast.parse(f"({text})", mode="eval")
        except SyntaxError:
            return None
    return node_start, node_end, before, after, _namespace(function)


RECEIVER = "_receiver"  # the array a method is called on, fed as an input of its own


def _unchanged_receiver(
    node: ast.expr, original: str, offsets: List[int], start: int
) -> Optional[int]:
    """Where the receiver of a method call ends, when the change lies in the call's
    arguments only and the receiver is more than a name (`a[-1].reshape(...)`), else None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    receiver = node.func.value
    if isinstance(receiver, ast.Name) or receiver.end_col_offset is None:
        return None
    assert receiver.end_lineno is not None
    receiver_end = _offset(original, offsets, receiver.end_lineno, receiver.end_col_offset)
    attribute_end = _offset(
        original, offsets, cast(int, node.func.end_lineno), cast(int, node.func.end_col_offset)
    )
    return receiver_end if start >= attribute_end else None


def changed_statement(original: str, fixed: str) -> Optional[Tuple[str, str, str, Optional[str]]]:
    """(original statement, rewritten statement, the name both assign, namespace name) when
    the change is one simple assignment of a hybrid function rewritten as another assignment
    of the same name (`z += y` -> `z = z + y`), else None: checked by running the statement
    and returning the name."""
    start, end = _changed_span(original, fixed)
    parsed = _parsed(original)
    if parsed is None:
        return None
    tree, offsets = parsed
    for node, function in _statements(tree):
        assert node.end_lineno is not None and node.end_col_offset is not None
        node_start = _offset(original, offsets, node.lineno, node.col_offset)
        node_end = _offset(original, offsets, node.end_lineno, node.end_col_offset)
        if not (node_start <= start and end <= node_end) or function is None:
            continue
        target = _assigned_name(node)
        delta = len(fixed) - len(original)
        before, after = original[node_start:node_end], fixed[node_start : node_end + delta]
        try:
            rewritten = ast.parse(textwrap.dedent(after)).body
        except SyntaxError:
            return None
        if target is None or len(rewritten) != 1 or _assigned_name(rewritten[0]) != target:
            return None
        return before, after, target, _namespace(function)
    return None


def _assigned_name(node: ast.stmt) -> Optional[str]:
    """The one name a simple assignment binds (`z = ...`, `z += ...`, `z: T = ...`)."""
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and node.value is not None:
        target = node.target
    else:
        return None
    return target.id if isinstance(target, ast.Name) else None


def _statements(tree: ast.AST) -> Iterator[Tuple[ast.stmt, Optional[ast.FunctionDef]]]:
    """The simple assignments of `tree`, each with the function it is in."""
    for node, function in _expressions_and_statements(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            yield node, function


@functools.lru_cache(maxsize=8)
def _parsed(original: str) -> Optional[Tuple[ast.Module, List[int]]]:
    """The syntax tree and line offsets of `original`, or None when it does not parse: every
    fix of a file is checked against the same original (its region, then its expression or
    statement), which was parsed again for each. The tree is only read."""
    try:
        return ast.parse(original), line_offsets(original)
    except SyntaxError:
        return None


def _changed_span(original: str, fixed: str) -> Tuple[int, int]:
    """[start, end) of `original` that `fixed` replaced: all but their common prefix and
    suffix."""
    limit = min(len(original), len(fixed))
    prefix = 0
    while prefix < limit and original[prefix] == fixed[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and original[-1 - suffix] == fixed[-1 - suffix]:
        suffix += 1
    return prefix, len(original) - suffix


def _expressions(tree: ast.AST) -> Iterator[Tuple[ast.expr, Optional[ast.FunctionDef]]]:
    for node, function in _expressions_and_statements(tree):
        if isinstance(node, ast.expr):
            yield node, function


def _expressions_and_statements(
    tree: ast.AST,
) -> Iterator[Tuple[ast.AST, Optional[ast.FunctionDef]]]:
    """Every expression and statement with the function it is in, None outside functions and
    in a constructor: `__init__` never runs in a graph, and its names are the constructor's
    arguments, not arrays (rl-coach's `init.Constant([coefficient])` -> `np.array(...)`, fed
    an array for the number, was "rejected")."""

    def walk(node, function):
        for child in ast.iter_child_nodes(node):
            inner = (
                child if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            )
            if inner is not None and inner.name == "__init__":
                inner = None
            if isinstance(child, (ast.expr, ast.stmt)):
                yield child, function
            yield from walk(child, inner)

    yield from walk(tree, None)


def _namespace(function: ast.FunctionDef) -> Optional[str]:
    """hybrid_forward(self, F, ...) or a helper(F, ...): the namespace is found by position."""
    args = [a.arg for a in function.args.args]
    if function.name == "hybrid_forward" and len(args) >= 2:
        return args[1]
    return args[0] if args and args[0] != "self" else (args[1] if len(args) > 1 else None)


def line_offsets(text: str) -> List[int]:
    """The character offset each line of `text` starts at (and its length, last)."""
    offsets, total = [0], 0
    for line in text.splitlines(keepends=True):
        total += len(line)
        offsets.append(total)
    return offsets


def _offset(text: str, offsets: List[int], lineno: int, byte_col: int) -> int:
    """ast columns count UTF-8 bytes; convert to a character offset into `text`."""
    line_start = offsets[lineno - 1]
    line = text[line_start : offsets[lineno] if lineno < len(offsets) else len(text)]
    return line_start + len(line.encode("utf-8")[:byte_col].decode("utf-8", "ignore"))


def free_names(expression: str) -> List[str]:
    """The names an expression (or a statement) reads or binds, in order; "" has none."""
    if not expression.strip():
        return []
    try:
        tree: ast.AST = ast.parse(f"({expression})", mode="eval")
    except SyntaxError:
        tree = ast.parse(textwrap.dedent(expression))
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in names:
            names.append(node.id)
    return names


def shape_sets(
    names: List[str], known: Optional[Mapping[str, tuple]] = None
) -> Iterator[Tuple[Dict[str, tuple], bool]]:
    """(shapes, broadcasting): the same shapes for all tensors first, then one tensor with a
    size-1 axis (broadcasting: True). A name of `known` shape (its dims, None where unknown:
    a parameter declared `(1, 1, units)`) always gets that shape, its unknown dims those of
    the base shape at the same place from the end."""
    known = known or {}
    count = 0

    def fill(base: tuple) -> Dict[str, tuple]:
        return {n: _filled(known[n], base) if n in known else base for n in names}

    for base in BASE_SHAPES:
        yield fill(base), False
        count += 1
    for base in BASE_SHAPES[:2]:
        for name in names:
            if name in known:
                continue
            for axis in range(len(base)):
                if count >= MAX_SHAPE_SETS:
                    return
                shapes = fill(base)
                shapes[name] = base[:axis] + (1,) + base[axis + 1 :]
                yield shapes, True
                count += 1


def _filled(dims: tuple, base: tuple) -> tuple:
    """`dims` with each None the dim of `base` at the same place from the end (else 2)."""
    out = []
    for i, dim in enumerate(dims):
        back = len(dims) - i
        out.append(dim if dim is not None else (base[-back] if back <= len(base) else 2))
    return tuple(out)


def verify_expression_fix(
    original: str,
    fixed: str,
    *,
    backend: str = "engine",
    session=None,
    rtol: float = 1e-5,
    atol: float = 1e-6,
    timeout=None,
    numbers: AbstractSet[str] = frozenset(),
    sequences: AbstractSet[str] = frozenset(),
    statements: bool = False,
    shapes: Optional[Mapping[str, tuple]] = None,
) -> EquivalenceReport:
    """Verify the change between `original` and `fixed` (one fix, or fixes that share an
    expression) at expression level. `numbers`: names the analysis knows hold Python numbers
    there (hybridlint/name_kinds.py): they are bound to the number 1 (a valid index, axis
    and divisor on the generated shapes); `sequences`, names holding lists of numbers, to
    `SEQUENCE`; the other free names get generated arrays.
    `statements`: an assignment rewritten as another of the same name (`z += y` -> `z = z +
    y`) may be checked as a statement, run and its name returned. That proves the name's
    value only, not what an in-place update wrote through another reference to the same
    array: only for fixes whose rule found no such reference (safe ones). `shapes`: the
    names whose shape the analysis knows in part (name_kinds.py), fed only such shapes."""
    found = changed_expression(original, fixed)
    preludes = ("", "")
    if found is None:
        statement = changed_statement(original, fixed)
        if statement is not None and not statements:
            return _cannot(
                f"the fix rewrites the assignment {statement[0].strip()!r}, whose in-place "
                "update another reference to the array may see (an unsafe fix): running the "
                "statement shows only its own name, an example run shows the block"
            )
        if statement is None:
            return _cannot(
                "the fix is not a change inside one expression or assignment of a hybrid function"
            )
        # the statement runs, then what it assigned is the block's output
        preludes, target, namespace = statement[:2], statement[2], statement[3]
        found = (target, target, namespace)
    before, after, namespace = found
    shown_before, shown_after = (before, after) if not preludes[0] else preludes
    # `self.axis` holding a number: the expression reads it as a name of its own
    attributes = {a: "_".join(a.split(".")) + "_" for a in {*numbers, *sequences} if "." in a}
    for attribute, name in attributes.items():
        pattern = rf"\b{re.escape(attribute)}\b"
        before, after = re.sub(pattern, name, before), re.sub(pattern, name, after)
        preludes = (re.sub(pattern, name, preludes[0]), re.sub(pattern, name, preludes[1]))
    listed = {attributes.get(n, n) for n in sequences}
    numbers = ({n for n in numbers if "." not in n} | set(attributes.values())) - listed
    read_before = free_names(before) + free_names(preludes[0])
    read_after = free_names(after) + free_names(preludes[1])
    names = list(dict.fromkeys(read_before + read_after))
    free = [
        n for n in names if n != namespace and n not in KNOWN_MODULES and not hasattr(builtins, n)
    ]
    constants = [
        f"{n} = {SEQUENCE if n in listed else NUMBER}" for n in free if n in numbers | listed
    ]
    tensors = [n for n in free if n not in numbers | listed]
    if "self" in tensors:
        return _cannot(f"the expression {shown_before!r} uses self: needs example inputs")
    if not tensors:
        return _cannot(f"the expression {shown_before!r} has no tensor operand to feed")
    imports = [KNOWN_MODULES[n] for n in names if n in KNOWN_MODULES] + constants
    options = dict(
        backend=backend,
        session=session,
        rtol=rtol,
        atol=atol,
        namespace=namespace or "F",
        timeout=timeout,
        imports=imports,
    )
    # A fix that writes no broadcast op cannot make arithmetic between arrays of different
    # shapes hybridize (Symbol arithmetic never broadcasts): on a broadcasting shape set
    # where the original fails hybridized too, the expression's other hazard fails, not this
    # fix, and the set does not judge it. Nor does a set of another rank on which such a fix
    # fails hybridized where the original fails too (`t.broadcast_to(x.shape)` of a
    # lower-rank t: NDArray's method adds the leading axes, the Symbol operator cannot):
    # the fix leaves those shapes as they were. Eager values are compared on every set.
    broadcasts = after.count("broadcast_") > before.count("broadcast_")
    ran: List[EquivalenceReport] = []
    left: Optional[EquivalenceReport] = None  # the first set left unjudged that way
    for fed, broadcasting in shape_sets(tensors, shapes):
        report = check_expression(before, after, fed, preludes=preludes, **options)
        if report.status == "cannot_run" and report.stage == "original eager":
            continue  # the original itself rejects these shapes
        if report.status != "equal":
            report.notes.append(
                f"expression-level check of {shown_before!r} -> {shown_after!r} with shapes {fed}"
            )
        if (
            (broadcasting or report.status == "hybrid_error")
            and not broadcasts
            and report.stage in _HYBRIDIZED_STAGES
            and not check_expression(
                before, before, fed, preludes=(preludes[0], preludes[0]), **options
            ).ok
        ):
            if not broadcasting and left is None:
                left = report
            continue
        if report.status != "equal":
            return report
        ran.append(report)
    if not ran and left is not None:
        return left  # failing hybridized on every set, as the original does
    if not ran:
        return _cannot(f"no generated shapes run the original expression {shown_before!r}")
    final = ran[0]
    final.notes.append(
        f"expression-level check of {shown_before!r} -> {shown_after!r} on {len(ran)} shape set(s)"
    )
    return final


def _cannot(reason: str) -> EquivalenceReport:
    return EquivalenceReport(
        "cannot_run",
        target="<expression>",
        stage="expression",
        reason=f"cannot verify without example inputs: {reason}",
    )
