"""The end-to-end cases: real HybridBlocks copied byte for byte from pinned public packages.

A case file (``cases/<package>.toml``) names one pinned package of
``benchmarks/realworld/packages.py`` and lists blocks taken from it::

    package = "gluonts-0.14.4"

    [[case]]
    id = "lipswish"                       # unique within the file
    source = "gluonts/mx/activation.py"   # the module inside the package
    copy = ["LipSwish"]                   # its top-level definitions, in this order
    prelude = '''
    from mxnet.gluon import HybridBlock
    '''                                    # what the copied code imports (see below)
    block = "LipSwish"                    # the HybridBlock measured
    kind = "fails"                        # "fails": eager works, hybridized fails or differs
                                          # under MXNet 1.9.1; "works": hybridizes already
    examples = [{ kwargs = {...}, inputs = [[4, 8]] }]   # given to hybridlint (pyproject)
    unseen = [{ kwargs = {...}, inputs = [[7, 8]] }]     # judged only: hybridlint never sees them
    calls = 1                             # optional: consecutive calls per example (state)
    extra = [{ source = "gluonts/mx/block/mlp.py", copy = ["MLP"] }]   # optional: definitions
                                          # of other modules of the package, copied first; an
                                          # entry with `package = "<name>"` copies from another
                                          # pinned package (a base class the block's package
                                          # imports from its dependency: pygan's models subclass
                                          # accel-brain-base's)
    why = "how the package's callers call it"
    reference = [{ old = "x.shape[0]", new = "..." }]   # optional, "fails" only: a hand-written
                                          # exact fix (each `old` occurs once in block.py);
                                          # the judge must find it fixed: it proves the block's
                                          # hazards all have an exact rewrite
    no_exact_rewrite = "why not"          # optional, "fails" only: the hazard no rewrite of
                                          # this block can remove (the caller must change)

Each name in ``copy`` is a top-level class, function or assignment of ``source``; its lines
(decorators included) are copied byte for byte, nothing else of the module is. ``prelude`` is
the one place a case adds text: the imports the copied code needs (the module's own import
lines, or a small stand-in for a package-internal helper such as gluonts's ``@validated()``),
so the copy runs without installing the package. Examples use the format of
``[tool.hybridlint.examples]`` (README, Configuration).

``reference`` and ``no_exact_rewrite`` split the failing blocks for issue 20's first measure
("every failing block whose hazards all have an exact rewrite ends fixed"): a block has an exact
rewrite when its reference fix, or any mode's rewrite, is judged fixed under MXNet; a block
labelled ``no_exact_rewrite`` says why none exists (e.g. a Python branch on a static shape that
changes the graph's structure, a caller passing an int as a graph input).

This module uses the standard library only: the harness and the judge (which runs under the
MXNet venv's interpreter) both import it.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - the harness runs on 3.11+, the judge only reads JSON
    tomllib = None

CASES_DIR = Path(__file__).resolve().parent / "cases"
BLOCK_FILE = "block.py"
KINDS = ("fails", "works")


class CaseError(ValueError):
    """A case file is malformed or names code its package does not hold."""


@dataclass
class Case:
    package: str
    id: str
    source: str
    copy: List[str]
    prelude: str
    block: str
    kind: str
    examples: List[Dict[str, Any]]
    unseen: List[Dict[str, Any]] = field(default_factory=list)
    calls: int = 1
    why: str = ""
    extra: List[Dict[str, Any]] = field(default_factory=list)
    reference: List[Dict[str, str]] = field(default_factory=list)
    no_exact_rewrite: str = ""

    @property
    def name(self) -> str:
        """`package/id`, e.g. `gluonts-0.14.4/lipswish`."""
        return f"{self.package}/{self.id}"

    @property
    def slug(self) -> str:
        return re.sub(r"[^A-Za-z0-9_]+", "_", self.name)


def load_cases(directory: Path = CASES_DIR) -> List[Case]:
    """Every case of every ``*.toml`` in ``directory``, in file then listing order."""
    cases: List[Case] = []
    seen = set()
    for path in sorted(directory.glob("*.toml")):
        with open(path, "rb") as handle:
            try:
                data = tomllib.loads(handle.read().decode("utf-8"))
            except tomllib.TOMLDecodeError as exc:
                raise CaseError(f"{path}: {exc}") from None
        package = data.get("package")
        if not isinstance(package, str):
            raise CaseError(f"{path}: `package` must name a pinned package")
        for index, entry in enumerate(data.get("case", [])):
            case = _case(package, entry, f"{path.name}: case[{index}]")
            if case.name in seen:
                raise CaseError(f"{path.name}: duplicate case id {case.id!r}")
            seen.add(case.name)
            cases.append(case)
    return cases


def _case(package: str, entry: Dict[str, Any], where: str) -> Case:
    required = ("id", "source", "copy", "block", "kind", "examples")
    missing = [key for key in required if key not in entry]
    if missing:
        raise CaseError(f"{where}: missing {', '.join(missing)}")
    known = set(required) | {
        "prelude",
        "unseen",
        "calls",
        "why",
        "extra",
        "reference",
        "no_exact_rewrite",
    }
    unknown = sorted(set(entry) - known)
    if unknown:
        raise CaseError(f"{where}: unknown key(s) {unknown}")
    if entry["kind"] not in KINDS:
        raise CaseError(f"{where}: kind must be one of {KINDS}")
    if not entry["examples"]:
        raise CaseError(f"{where}: at least one example")
    if ("reference" in entry or "no_exact_rewrite" in entry) and entry["kind"] != "fails":
        raise CaseError(f"{where}: reference / no_exact_rewrite are for failing blocks")
    if "reference" in entry and "no_exact_rewrite" in entry:
        raise CaseError(f"{where}: a reference fix contradicts no_exact_rewrite")
    for extra in entry.get("extra", []):
        if not {"source", "copy"} <= set(extra) <= {"source", "copy", "package"}:
            raise CaseError(f"{where}: each extra is {{ source, copy }} (and an optional package)")
    for edit in entry.get("reference", []):
        if set(edit) != {"old", "new"}:
            raise CaseError(f"{where}: each reference edit is {{ old = ..., new = ... }}")
    return Case(
        package=package,
        id=str(entry["id"]),
        source=str(entry["source"]),
        copy=[str(name) for name in entry["copy"]],
        prelude=_dedent(str(entry.get("prelude", ""))),
        block=str(entry["block"]),
        kind=str(entry["kind"]),
        examples=list(entry["examples"]),
        unseen=list(entry.get("unseen", [])),
        calls=int(entry.get("calls", 1)),
        why=str(entry.get("why", "")),
        extra=[dict(e) for e in entry.get("extra", [])],
        reference=[
            {"old": str(e["old"]), "new": str(e["new"])} for e in entry.get("reference", [])
        ],
        no_exact_rewrite=str(entry.get("no_exact_rewrite", "")),
    )


def _dedent(text: str) -> str:
    import textwrap

    text = textwrap.dedent(text).strip("\n")
    return text + "\n" if text else ""


def extra_packages(case: Case) -> List[str]:
    """The other pinned packages the case's ``extra`` definitions come from."""
    return sorted({str(e["package"]) for e in case.extra if "package" in e} - {case.package})


def copied_source(case: Case, package_root: str, roots: Optional[Dict[str, str]] = None) -> str:
    """The case's module: its prelude, then each copied definition's lines, byte for byte
    (those of ``extra`` modules first). `roots` maps the packages an ``extra`` entry names
    to their extracted roots."""
    pieces = [case.prelude] if case.prelude else []
    roots = dict(roots or {}, **{case.package: package_root})
    for other in extra_packages(case):
        if other not in roots:
            raise CaseError(f"{case.name}: extra package {other!r} is not fetched")
    for package, source, names in [
        (str(e.get("package", case.package)), e["source"], e["copy"]) for e in case.extra
    ] + [(case.package, case.source, case.copy)]:
        path = os.path.join(roots[package], source)
        try:
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8")
        except OSError as exc:
            raise CaseError(f"{case.name}: {source}: {exc.strerror}") from None
        lines = text.splitlines(keepends=True)
        spans = _definitions(ast.parse(text), case, source, names)
        for name in names:
            first, last = spans[name]
            pieces.append("\n\n" + "".join(lines[first - 1 : last]))
    if case.block not in case.copy:
        raise CaseError(f"{case.name}: block {case.block!r} is not among the copied names")
    return "".join(pieces).lstrip("\n")


def _definitions(tree: ast.Module, case: Case, source: str, copy: List[str]) -> Dict[str, tuple]:
    spans: Dict[str, tuple] = {}
    for node in tree.body:
        names: List[str] = []
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names = [node.name]
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names = [t.id for t in targets if isinstance(t, ast.Name)]
            first = node.lineno
        else:
            continue
        for name in names:
            spans[name] = (first, node.end_lineno)
    absent = [name for name in copy if name not in spans]
    if absent:
        raise CaseError(f"{case.name}: {source} defines no top-level {', '.join(absent)}")
    return spans


def toml_value(value: Any) -> str:
    """An inline TOML value for the JSON-like data of examples (tables, arrays, scalars)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{ " + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
        )
    raise TypeError(f"no TOML form for {value!r}")


def materialize(
    case: Case, package_root: str, into: Path, roots: Optional[Dict[str, str]] = None
) -> Path:
    """Write the case as a one-file project: ``block.py`` and a pyproject.toml whose
    ``[tool.hybridlint.examples]`` holds the case's examples (never the unseen inputs)."""
    into.mkdir(parents=True, exist_ok=True)
    (into / BLOCK_FILE).write_bytes(copied_source(case, package_root, roots).encode("utf-8"))
    key = f"{BLOCK_FILE}::{case.block}"
    (into / "pyproject.toml").write_text(
        "[tool.hybridlint.examples]\n" + f"{json.dumps(key)} = {toml_value(case.examples)}\n"
    )
    return into / BLOCK_FILE


def apply_reference(case: Case, source: str) -> str:
    """``source`` with the case's hand-written reference fix applied, edit by edit."""
    for edit in case.reference:
        count = source.count(edit["old"])
        if count != 1:
            raise CaseError(
                f"{case.name}: reference edit {edit['old']!r} occurs {count} times in "
                f"{BLOCK_FILE} (it must occur once)"
            )
        source = source.replace(edit["old"], edit["new"])
    return source


def block_lines(source: str, block: str) -> Optional[tuple]:
    """(first, last) line of class `block` in `source`, or None."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == block:
            return node.lineno, node.end_lineno
    return None
