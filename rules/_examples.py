"""Scaffolding for the rules' VALID / INVALID examples: one way to write a block's source
(`net`), a child block with the parent that calls it (`with_parent`), and the expected fixed
source derived from the change a fix makes (`apply_fix`, behind `Invalid(fix=...)`)."""

from __future__ import annotations

import re
from typing import List, Sequence, Tuple, Union, cast

# A fix stated as the change it makes: one (old, new) pair, or several applied in order.
Change = Tuple[str, str]
Fix = Union[Change, Sequence[Change]]


def net(
    body: str, signature: str = "F, x", head: str = "", init: str = "", base: str = "HybridBlock"
) -> str:
    """The source of a `Net` block (a `<base>`) whose `hybrid_forward(self, <signature>)` runs
    `body`. `body` and `init` are written without indentation (they are indented here, so an
    example reads as the code it stands for): `head` (imports, helpers) comes first, `init`
    (the class body before hybrid_forward, e.g. a :func:`constructor`) is followed by an empty
    line."""
    methods = "".join(f"    {line}\n" if line else "\n" for line in init.splitlines())
    methods += "\n" if init else ""
    lines = "".join("        " + line + "\n" for line in body.splitlines())
    return f"{head}class Net({base}):\n{methods}    def hybrid_forward(self, {signature}):\n{lines}"


def constructor(body: str, params: str = "**kwargs") -> str:
    """`def __init__(self, <params>)` (`params` "": `__init__(self)`) running `body`, written
    without indentation, as :func:`net`'s `init`."""
    signature = f"self, {params}" if params else "self"
    return f"def __init__({signature}):\n" + "".join(
        f"    {line}\n" if line else "\n" for line in body.splitlines()
    )


def net_xy(body: str) -> str:
    """:func:`net` with two inputs, `hybrid_forward(self, F, x, y)` (binary-operator rules)."""
    return net(body, "F, x, y")


def with_parent(child: str, klass: str, call: str, parent: str = "Net") -> str:
    """`child` (a block's source, ending in a newline) followed by a parent block that builds
    it (`self.child = <klass>()`) and calls it from `hybrid_forward(self, F, x)` as
    `return self.child(<call>)`: the call site is the evidence for the child's inputs
    (issue 11, `analysis._call_site_evidence`). A parent named `Net` is the block the
    ground-truth harnesses run."""
    return (
        f"{child}\n\nclass {parent}(HybridBlock):\n    def __init__(self):\n"
        f"        super({parent}, self).__init__()\n        self.child = {klass}()\n\n"
        f"    def hybrid_forward(self, F, x):\n        return self.child({call})\n"
    )


def fix_changes(fix: Fix) -> Tuple[Change, ...]:
    """`fix` as a tuple of (old, new) pairs (a single pair is written without the list)."""
    first, second = fix[0], fix[1] if len(fix) == 2 else None
    if isinstance(first, str) and isinstance(second, str):
        return ((first, second),)
    return tuple((old, new) for old, new in cast(Sequence[Change], fix))


def _indented(text: str, indent: str) -> str:
    """`text`, written like a body for :func:`net` (no indentation), with every line after the
    first indented by `indent`, the indentation of the line the text starts on (an empty line
    in the middle stays empty, as between a class's methods)."""
    return re.sub("\n(?!\n)", "\n" + indent, text)


def _occurrences(source: str, old: str) -> List[Tuple[int, str]]:
    """(start, indent) of every place `old` stands in `source`, its lines after the first
    read at the indentation of the line it starts on (overlapping places count)."""
    first = old.split("\n", 1)[0]
    found = []
    start = source.find(first)
    while start != -1:
        line = source[source.rfind("\n", 0, start) + 1 : start]
        indent = line[: len(line) - len(line.lstrip())]
        if source.startswith(_indented(old, indent), start):
            found.append((start, indent))
        start = source.find(first, start + 1)
    return found


def apply_fix(source: str, fix: Fix) -> str:
    """The source after the change `fix` states: each (old, new) replaced in order, each `old`
    found EXACTLY once in the source as it stands by then, so an example reads like a diff
    and cannot silently change another place. `old` and `new` are written like a body for
    :func:`net`: a line after the first continues at the indentation of the line `old` starts
    on (`("return z", "z = F.relu(z)\nreturn z")` adds a statement). Raises ValueError naming
    the `old` that is missing or ambiguous."""
    for old, new in fix_changes(fix):
        if not old:
            raise ValueError(f"fix: an empty `old` (replacing with {new!r}) says no place")
        found = _occurrences(source, old)
        if len(found) != 1:
            raise ValueError(
                f"fix: {old!r} occurs {len(found)} times in the source it applies to "
                f"(it must occur exactly once):\n{source}"
            )
        (start, indent), end = found[0], found[0][0] + len(_indented(old, found[0][1]))
        source = source[:start] + _indented(new, indent) + source[end:]
    return source
