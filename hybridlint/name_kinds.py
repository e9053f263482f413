"""Which names of hybrid code the shared analysis knows to hold Python numbers.

`--verify` without examples checks a fix on its expression alone (checker/expression.py):
the free names of the expression become the inputs of a generated block, fed arrays of
generated shapes. A loop index or an axis (`pts[b, k, 0]`, `F.sum(x, axis=a)`) is a Python
number in the user's code, and fed an array it makes the check fail for a reason the code
never meets (`F.slice(pts, begin=(b, k, 0), ...)` refuses an array), or pass for one it does
not (an operator that broadcasts a number but not an array). The analysis the rules read
already says what each name holds; this module asks it, by line, so the check binds those
names to a number.
"""

from __future__ import annotations

import json
from typing import Dict, Iterable, Optional, Set, Tuple

import libcst as cst

from .rules.base import Rule
from .rules.values import SCALAR, TENSOR, Shape, Value, self_attribute_name

# {line: {name: its known dims, None where a dim is unknown}}
KnownShapes = Dict[int, Dict[str, Shape]]


def number_names(source: str, path: str, lines: Iterable[int]) -> Dict[int, Set[str]]:
    """{line: the names (and `self.<a>` attributes) read on it that hold a Python number},
    for the given lines of `source` (a name holding a number on some path and an array on
    another is not one). Lines outside hybrid code, and a source the linter cannot read,
    give nothing."""
    return name_kinds(source, path, lines)[0]


def name_kinds(
    source: str, path: str, lines: Iterable[int]
) -> Tuple[Dict[int, Set[str]], KnownShapes, Dict[int, Set[str]]]:
    """:func:`number_names`; the arrays on those lines whose shape the analysis knows in
    part: a parameter of declared shape `(1, 1, units)` is `(1, 1, None)` (a check that
    feeds such a name another shape judges the fix on an input the code never meets: the
    class token a tile broadcasts along its leading 1); and the names that hold a list or
    tuple of numbers (`rows = [0, 2]`: a number fed there fails `for i in rows`)."""
    from .linter import lint_source

    wanted = set(lines)
    if not wanted:
        return {}, {}, {}
    numbers: Dict[int, Set[str]] = {}
    sequences: Dict[int, Set[str]] = {}
    arrays: Dict[int, Set[str]] = {}
    shapes: KnownShapes = {}

    class _NameKinds(Rule):
        code = "HL999"
        name = "name-kinds"
        message = "what a name holds"

        def visit_Name(self, node: cst.Name) -> None:
            value = self.value(node)
            shape = value.shape if value.kind == TENSOR else None
            self.report(node, json.dumps([_kind(value), node.value, shape]))

        def visit_Attribute(self, node: cst.Attribute) -> None:
            attr = self_attribute_name(node)
            if attr is not None:  # `self.axis`, `self._eps`: a constructor's number
                self.report(node, json.dumps([_kind(self.value(node)), f"self.{attr}", None]))

    try:
        findings = lint_source(source, path, rules=[_NameKinds])
    except Exception:  # noqa: BLE001 - no kinds is the old behaviour: every name an array
        return {}, {}, {}
    for finding in findings:
        if finding.line not in wanted:
            continue
        flag, name, shape = json.loads(finding.message)
        kind = {_NUMBER: numbers, _SEQUENCE: sequences}.get(flag, arrays)
        kind.setdefault(finding.line, set()).add(name)
        known: Optional[Shape] = tuple(shape) if shape else None
        if known and any(isinstance(d, int) for d in known):
            shapes.setdefault(finding.line, {})[name] = known
    kinds = {line: names - arrays.get(line, set()) for line, names in numbers.items() if names}
    return kinds, shapes, sequences


_ARRAY, _NUMBER, _SEQUENCE = 0, 1, 2


def _kind(value: Value) -> int:
    """What the check binds a name of this value to: a number, a list of numbers, an array."""
    if value.kind != SCALAR:
        return _ARRAY
    return _SEQUENCE if value.sequence else _NUMBER
