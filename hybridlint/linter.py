"""The linter core: lint_source / fix_source (contract in docs/architecture.md).

Speed: most of a model file is not hybrid code. A cheap text check and a fast `ast` pre-pass
locate the top-level statements that hold a hybrid_forward (and the module functions they
call); only those regions are parsed with LibCST, their positions are shifted back to file
lines, and fixes are spliced back into the original text without touching anything else.
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import contextvars
import difflib
import itertools
import re
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import (
    Callable,
    Dict,
    Hashable,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    Type,
    Union,
)

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from .mxnet_facts import SHAPE_PRESERVING_LAYERS
from .rules import ALL_RULES
from .rules.guards import taken_fallbacks_now
from .rules.analysis import (
    ExternalCall,
    FunctionFacts,
    ModuleFacts,
    Value,
    analyze,
    configured_constructions,
)
from .rules.base import Replacement, Report, Rule, WalkState, SAFE, UNSAFE
from . import suppression as _suppression
from . import toplevel
from .config import DEFAULT_OFF, EXAMPLE_PROVEN, EXAMPLES_ONLY
from .ftypes import Finding  # the one finding type of every layer
from .rules.module_context import ModuleContext, module_context
from .rules.values import (
    LAYOUT_TYPES,
    holds_node,
    is_node_class,
    syntax_children,
    visit_order,
    walk_nodes,
)
from .project import (
    FROM_IMPORT,
    NO_PROJECT,
    FileProject,
    Importer,
    Project,
    class_base_names,
    imported_names,
    resolve,
)

MAX_FIX_PASSES = 10


@dataclass
class FixResult:
    source: str
    applied: List[Finding] = field(default_factory=list)
    remaining: List[Finding] = field(default_factory=list)
    # the findings of the source as given (the first pass's lint): what `check` reported, so
    # that a caller can tell fixes of those from fixes of findings the first fixes revealed
    initial: List[Finding] = field(default_factory=list)


class SourceSyntaxError(Exception):
    """The source cannot be parsed (reported by the runner as HL900)."""

    def __init__(self, msg: str, line: int = 1, col: int = 1) -> None:
        super().__init__(f"{line}:{col}: {msg}")
        self.msg = msg
        self.line = line
        self.col = col


def may_contain_hybrid_code(
    source: str, path: Optional[str] = None, *, project: Optional[FileProject] = None
) -> bool:
    """Cheap textual pre-filter: without a hybrid_forward no rule can report anything, unless
    the file defines functions that hybrid code of other files of its project calls with F
    (:func:`_project_seeds`, from `project`; without one, from the files on disk around
    `path`). Without a path, a module function taking `F` first (`def split_heads(F, x, n)`)
    may be such a helper: the linter then decides from the file's path."""
    if "hybrid_forward" in source:
        return True
    if path is None:  # callers that give no path: a module function taking F by its usual name
        return bool(_NAMESPACE_HELPER.search(source))
    # only when some importer's hybrid code calls one of its functions with F: a module that
    # hybrid files merely import (most utility modules) has nothing to lint, and parsing it
    # cost a third of a cold run on gluonts (the analysis is memoised for the lint that follows)
    if not _TOP_DEF.search(source) and not _CLASS_HEADER.search(source):
        return False  # no module function to seed, no class to inherit: no project to read
    if project is None:
        project = Project().for_source(source, path)
    if not project.may_make_code_hybrid:
        return False
    return bool(_project_seeds(source, path, project) or _hybrid_bases(source, path, project))


_NAMESPACE_HELPER = re.compile(r"^(?:async[ \t]+)?def[ \t]+\w+[ \t]*\([ \t]*F[ \t]*[,)]", re.M)


# ----------------------------------------------------------------------------------------
# Helpers imported from another module of the project (issue 12)
# ----------------------------------------------------------------------------------------
# The decision (docs/architecture.md, "Helpers in other modules"): a module function is
# analysed as a helper when the file that defines it is linted, from the calls the hybrid
# code of the files of its project makes to it (`from .utils import f`, `from pkg.utils
# import f`): those files (its importers) come from the project model (hybridlint/project.py:
# the runner's, or one made for the call), are analysed (not linted) for their calls into it.
# So `hybridlint --fix` over a project fixes the helper in its own file, and linting one file
# gives the same findings whatever else is linted in the run. The result is a function of
# (source, path, project): the runner keys its cache on the project's part too.
_TOP_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)", re.M)
# Pure memos, keyed by the whole input (an importer's text): they spare work, never change a
# result. text -> names called in its hybrid code (None: unsure); text -> its calls into
# imported names, by (level, module, name); text -> its _parse_regions (no roots), for the
# importer's own lint in this process (taken once): the trees are not changed by an analysis.
_HYBRID_CALLS: Dict[str, Optional[Set[str]]] = {}
_CALLS: Dict[str, Dict[Tuple[int, str, str], List[ExternalCall]]] = {}
_PARSED: Dict[str, Tuple[List[str], List["_Region"], ModuleContext]] = {}
_MEMO_SIZE = 512


def _remember(memo: Dict, key: Hashable, value, size: int = _MEMO_SIZE) -> None:
    memo[key] = value
    while len(memo) > size:
        del memo[next(iter(memo))]


def _project_seeds(
    source: str, path: str, project: Optional[FileProject] = None
) -> Dict[str, List[ExternalCall]]:
    """This file's functions that hybrid code in other files of its project calls with F or
    tensors, with those calls (bound to the functions by `analysis.analyze(seeds=...)`).
    `project`: the file's importers (None: found on disk now, by a fresh Project)."""
    if not _TOP_DEF.search(source):
        return {}
    if project is None:
        project = Project().for_source(source, path) if path else NO_PROJECT
    if not project.importers:
        return {}
    defined = set(_TOP_DEF.findall(source))
    seeds: Dict[str, List[ExternalCall]] = {}
    for importer in project.importers:
        for name, calls in _calls_into(importer, project.module, defined).items():
            if name in defined:
                seeds.setdefault(name, []).extend(calls)
    return seeds


def _calls_into(
    importer: Importer, module: str, defined: Optional[Set[str]] = None
) -> Dict[str, List[ExternalCall]]:
    """The calls `importer`'s hybrid code makes with F or tensors to functions it imports from
    `module` (qualified), by their name in `module`. The importer is analysed (not linted)
    only when its text calls one of those names with `F` in the arguments (the namespace by
    its usual name: `split_heads(F, x, n)`, `weighted_average(F=F, x=x)`, `flatten(F.relu(x))`)
    in hybrid code (the classes holding a
    hybrid_forward and the module functions they call, outside `__init__`), and then once per
    text for all its imports: analysing every importer would cost as much as linting it
    again (`flatten(y)` of a tensor-only imported helper is not followed)."""
    text = importer.text
    if text is None:
        return {}
    importer_module, is_package = importer.module, importer.is_package
    names = _imported_names(text, importer_module, is_package, module)
    if names and defined is not None and not set(names.values()) & defined:
        return {}  # only classes or constants of the module imported
    if not names:
        return {}
    if text in _HYBRID_CALLS:
        hybrid_calls = _HYBRID_CALLS[text]
    else:
        hybrid_calls = _called_in_hybrid_code(text)
        _remember(_HYBRID_CALLS, text, hybrid_calls)
    if hybrid_calls is not None and not hybrid_calls & {n + "(F" for n in names}:
        return {}  # nothing imported from the module is called with F in hybrid code
    calls = _CALLS.get(text)
    if calls is None:
        calls = {}
        try:
            parsed = _parse_regions(text)
            _, regions, context = parsed
            # the importer's own lint, if it comes, parses it again
            _remember(_PARSED, text, parsed, 16)
            if regions:
                external: Dict[str, Dict[cst.Call, List[Value]]] = {}
                classes, functions, _ = _collect(regions)
                with _nesting_guard(), configured_constructions(()):  # not this file's
                    analyze(classes, functions, context, external=external)
                for local, by_call in external.items():
                    origin = context.from_imports.get(local)
                    if origin is not None:
                        calls.setdefault(origin, []).extend(by_call.items())
        except (SourceSyntaxError, RecursionError, ValueError):
            calls = {}
        _remember(_CALLS, text, calls)
    result: Dict[str, List[ExternalCall]] = {}
    for (level, source_module, original), found in calls.items():
        if resolve(importer_module, is_package, "." * level, source_module) == module:
            result.setdefault(original, []).extend(found)
    return result


# ----------------------------------------------------------------------------------------
# Definitions imported from another module of the project (how children are built)
# ----------------------------------------------------------------------------------------
# `self.conv2 = conv1x1_block(..., activation=lambda: nn.Activation("sigmoid"))` with
# `conv1x1_block` imported from `.common`: whether the child keeps a pooled gate's spatial 1s
# (rules/_pooled.py) reads the factory's body and the `__init__` of the class it builds, which
# live in that module. The project model gives the file's definitions modules
# (`FileProject.definitions`, in the cache key); the imported names, and the module's
# functions and classes they call (transitively, found from the text), are parsed from those
# texts and handed to the analysis as evidence only: no rule walks or reports them. A name the
# file binds itself is its own.
_FOREIGN_LIMIT = 64  # definitions taken from other modules for one file, at most
# pure memos, keyed by the definitions module's digest: its lines and top-level def/class
# spans; a parsed definition (None: it does not parse)
_FOREIGN_SPANS: Dict[str, Tuple[List[str], Dict[str, Tuple[str, int, int]]]] = {}
_FOREIGN_NODES: Dict[Tuple[str, str], Optional[cst.CSTNode]] = {}
_Foreign = Tuple[Mapping[str, cst.FunctionDef], Mapping[str, cst.ClassDef]]


class _LazyDefinitions(Mapping):
    """Definitions of other modules by their name here, parsed when first looked up: most of
    what a file imports never builds a child the analysis asks about (the parse of every
    imported class cost a cold run ~10%). A definition that does not parse is absent."""

    def __init__(self) -> None:
        self._where: Dict[str, Tuple[str, List[str], str, Tuple[int, int]]] = {}

    def add(self, local: str, digest: str, lines: List[str], name: str, span) -> None:
        self._where.setdefault(local, (digest, lines, name, span))

    def _node(self, local: str) -> Optional[cst.CSTNode]:
        where = self._where.get(local)
        return None if where is None else _foreign_node(*where)

    def __getitem__(self, local: str) -> cst.CSTNode:
        node = self._node(local)
        if node is None:
            raise KeyError(local)
        return node

    def __contains__(self, local: object) -> bool:
        return isinstance(local, str) and self._node(local) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)


def _foreign_definitions(
    source: str, path: str, project: FileProject, context: ModuleContext, inherits: bool = False
) -> Optional[_Foreign]:
    """(functions, classes) by their name here, from the file's definitions modules (lazy:
    `_LazyDefinitions`); None when there are none. Which definitions: the names the file
    imports, and the module's functions and classes they call, transitively, found from
    the text. `inherits`: the file's classes inherit a hybrid_forward from another module
    (then a file without one of its own has hybrid code too)."""
    if not project.definitions or ("hybrid_forward" not in source and not inherits):
        return None
    functions, classes = _LazyDefinitions(), _LazyDefinitions()
    package = path.endswith("__init__.py")
    budget = _FOREIGN_LIMIT
    for imported in project.definitions:
        if imported.text is None or budget <= 0:
            continue
        names = _imported_names(source, project.module, package, imported.module)
        lines, spans = _foreign_spans(imported.digest, imported.text)
        queue = [(local, original) for local, original in names.items() if original in spans]
        seen = {original for _, original in queue}
        found: List[Tuple[str, str]] = []
        clash = False
        while queue and budget > 0 and not clash:
            local, name = queue.pop()
            budget -= 1
            found.append((local, name))
            _, first, last = spans[name]
            for called in _CALLED.findall("".join(lines[first - 1 : last])):
                if called not in spans or called in seen:
                    continue
                # the file binding a name the module's definitions call: looked up by name,
                # theirs would be taken for the file's, so nothing of the module is used
                clash = called in context.bound and names.get(called) != called
                if clash:
                    break
                seen.add(called)
                queue.append((called, called))
        for local, name in () if clash else found:
            kind, first, last = spans[name]
            table = functions if kind == "def" else classes
            table.add(local, imported.digest, lines, name, (first, last))
    return (functions, classes) if len(functions) or len(classes) else None


def _foreign_spans(digest: str, text: str) -> Tuple[List[str], Dict[str, Tuple[str, int, int]]]:
    """A definitions module's lines and its top-level def/class name -> (kind, first line,
    last line) (no names when its top level cannot be read)."""
    found = _FOREIGN_SPANS.get(digest)
    if found is None:
        spans: Dict[str, Tuple[str, int, int]] = {}
        statements = toplevel.scan(text)
        for statement in statements or ():
            if statement.kind in ("def", "class") and statement.name:
                spans[statement.name] = (statement.kind, statement.first, statement.last)
        found = (split_lines(text), spans)
        _remember(_FOREIGN_SPANS, digest, found, 64)
    return found


def _foreign_node(
    digest: str, lines: List[str], name: str, span: Tuple[int, int]
) -> Optional[cst.CSTNode]:
    """The parsed top-level definition `name` of a definitions module (None: it does not
    parse)."""
    key = (digest, name)
    if key not in _FOREIGN_NODES:
        node: Optional[cst.CSTNode] = None
        try:
            with _nesting_guard():
                module = _parse_region(lines, *span)
            node = module.body[0] if len(module.body) == 1 else None
        except (cst.ParserSyntaxError, SourceSyntaxError):
            node = None
        if not isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            node = None
        _remember(_FOREIGN_NODES, key, node, 4096)
    return _FOREIGN_NODES[key]


def _imported_names(
    text: str, importer_module: str, is_package: bool, module: str
) -> Dict[str, str]:
    """local name -> name in `module`, for the `from ... import a, b as c` lines of `text`
    (parenthesised or continued too) that import from `module`, read from the text."""
    names: Dict[str, str] = {}
    for match in FROM_IMPORT.finditer(text):
        if resolve(importer_module, is_package, match.group(1), match.group(2)) == module:
            names.update(imported_names(match.group(3)))
    return names


# ----------------------------------------------------------------------------------------
# A hybrid_forward inherited from a class of another module of the project
# ----------------------------------------------------------------------------------------
# `class RepellingCAE(ConvolutionalAutoEncoder)` (accel-brain-base) overrides only
# `forward_propagation`, which the hybrid_forward of its base, imported from another module,
# calls with F: the override runs in the graph. A top-level class deriving from a class
# imported from a module of its project (`FileProject.definitions`; for a file without a
# hybrid_forward, those of `FileFacts.bases`) whose own body defines a hybrid_forward is
# linted, its file too: the analysis takes that class as its base (`analyze(inherited=...)`),
# as it does a base of the same module. One level: the imported class must hold the
# hybrid_forward itself. Findings are reported in the file's own code only.
_Where = Tuple[str, List[str], str, Tuple[int, int]]  # digest, lines, name, span
_CLASS_HEADER = re.compile(r"^class[ \t]+(\w+)[ \t]*\(([^)]*)\)", re.M)
_TOP_CLASS = re.compile(r"^class[ \t]+(\w+)[ \t]*(?:\(([^)]*)\))?", re.M)


def _hybrid_bases(source: str, path: str, project: FileProject) -> Dict[str, _Where]:
    """The bases of the file's top-level classes (plain names) imported from a definitions
    module whose class there defines a hybrid_forward: local name -> where it is, read from
    the texts (nothing parsed)."""
    if not project.definitions or "class" not in source:
        return {}
    # a class of the file itself named like the imported base shadows it (`class Net(gluon.
    # Block)` after `from .base import Net`): its subclasses derive from the local one
    shadowing = {
        m.group(1)
        for m in _TOP_CLASS.finditer(source)
        if m.group(1) not in {b.strip() for b in (m.group(2) or "").split(",")}  # Net(Net)
    }
    bases = class_base_names(source) - shadowing
    found: Dict[str, _Where] = {}
    package = path.endswith("__init__.py")
    for imported in project.definitions:
        if imported.text is None or not bases:
            continue
        names = _imported_names(source, project.module, package, imported.module)
        lines, spans = _foreign_spans(imported.digest, imported.text)
        for local, original in names.items():
            span = spans.get(original)
            if local in bases and span is not None and span[0] == "class":
                if _HYBRID_DEF.search("".join(lines[span[1] - 1 : span[2]])):
                    found.setdefault(local, (imported.digest, lines, original, span[1:]))
    return found


def inherited_hybrid_classes(source: str, path: str, project: FileProject) -> Dict[str, str]:
    """The file's top-level classes deriving from a class of another module of its project
    that defines a hybrid_forward: class name -> the local name of that base."""
    hybrid = _hybrid_bases(source, path, project)
    found: Dict[str, str] = {}
    if hybrid:
        for match in _CLASS_HEADER.finditer(source):
            for base in match.group(2).split(","):
                if base.strip() in hybrid:
                    found.setdefault(match.group(1), base.strip())
    return found


def _inherited_definitions(
    source: str, path: str, project: FileProject
) -> Optional[Mapping[str, cst.ClassDef]]:
    """The classes of other modules the file's classes inherit a hybrid_forward from, by their
    local name (parsed when first looked up); None when there are none."""
    hybrid = _hybrid_bases(source, path, project)
    if not hybrid:
        return None
    found = _LazyDefinitions()
    for local, where in hybrid.items():
        found.add(local, *where)
    return found


_DEF_LINE = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(\w+)", re.M)


_CALLED = re.compile(r"(?<![\w.])(\w+)\s*\(")
_NAMESPACE_ARGUMENT = re.compile(r"(?<![\w.])F(?![\w(])")  # `f(F, x)`, `f(x, F=F)`


def _arguments(text: str, start: int) -> str:
    """The text of a call's arguments from just after its `(` to the matching `)`."""
    depth = 1
    for index in range(start, min(len(text), start + 2000)):
        char = text[index]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if not depth:
                return text[start:index]
    return text[start : start + 2000]


def _called_in_hybrid_code(text: str) -> Optional[Set[str]]:
    """The names called (`name(`) in the classes of `text` holding a hybrid_forward and in the
    top-level functions those call, outside a constructor (`__init__` builds layers with
    imported builders: no hybrid code); None when the scanner is unsure."""
    statements = toplevel.scan(text)
    if statements is None:
        return None
    lines = split_lines(text)
    starts = [0, *itertools.accumulate(map(len, lines))]

    def calls(first: int, last: int) -> Set[str]:
        chunk = text[starts[first - 1] : starts[min(last, len(lines))]]
        defs = [(m.start(), m.group(1)) for m in _DEF_LINE.finditer(chunk)]
        positions = [position for position, _ in defs]
        found = set()
        for match in _CALLED.finditer(chunk):
            index = bisect.bisect_left(positions, match.start()) - 1
            if index < 0 or defs[index][1] != "__init__":
                found.add(match.group(1))
                if _NAMESPACE_ARGUMENT.search(_arguments(chunk, match.end())):
                    found.add(match.group(1) + "(F")
        return found

    names: Set[str] = set()
    functions = {}
    for st in statements:
        if st.kind == "def" and st.name:
            functions[st.name] = (st.first, st.last)
        elif st.kind == "class" and _HYBRID_DEF.search(
            text, starts[st.first - 1], starts[min(st.last, len(lines))]
        ):
            names |= calls(st.first, st.last)
    for name in names & set(functions):  # module functions the hybrid code calls (one level)
        names = names | calls(*functions[name])
    return names


# ----------------------------------------------------------------------------------------
# Regions: the parts of a file parsed with LibCST
# ----------------------------------------------------------------------------------------
@dataclass(eq=False)
class _Region:
    first_line: int  # 1-based line of the region's first line in the file
    last_line: int
    module: cst.Module


def _parse_ast(source: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError as error:
        raise SourceSyntaxError(
            error.msg or "invalid syntax", error.lineno or 1, (error.offset or 1)
        ) from None
    except (ValueError, MemoryError, RecursionError) as error:  # null bytes, too deep nesting
        raise SourceSyntaxError(str(error)) from None


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")


def split_lines(source: str) -> List[str]:
    """Lines with their endings, split only where Python ends lines (not at \\f, \\x1c,
    \\u2028... which str.splitlines also splits at), so indices match ast/LibCST lines."""
    return _LINE.findall(source)


_HYBRID_DEF = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+hybrid_forward\b", re.M)


_Span = Tuple[int, int, Optional[str]]  # first line, last line, name when a function def


def _class_bases(tree: ast.Module) -> Dict[str, List[str]]:
    """Top-level class name -> the last parts of its base names (`gluon.HybridBlock` -> ...)."""
    bases: Dict[str, List[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names = []
            for base in node.bases:
                if isinstance(base, ast.Attribute):
                    names.append(base.attr)
                elif isinstance(base, ast.Name):
                    names.append(base.id)
            bases[node.name] = names
    return bases


def _chosen_spans(
    spans: Sequence[_Span],
    source: str,
    lines: List[str],
    classes: Optional[Dict[str, Tuple[int, List[str]]]] = None,
    roots: Iterable[str] = (),
) -> List[Tuple[int, int]]:
    """Spans of the top-level statements holding a hybrid_forward, plus the module classes
    related to them by inheritance (a base's helpers, a subclass's overrides) and the module
    functions they call (transitively), found from the text: nothing walks a tree.

    `lines` are the file's `split_lines`; `classes` maps a top-level class name to (its span
    index, its base names); `roots` names top-level functions and classes chosen as well (the
    helpers other files' hybrid code imports: :func:`_project_seeds`; the classes inheriting
    a hybrid_forward from another module: :func:`inherited_hybrid_classes`)."""
    line_starts = [0, *itertools.accumulate(map(len, lines))]
    hybrid_lines = [
        bisect.bisect_right(line_starts, m.start()) for m in _HYBRID_DEF.finditer(source)
    ]
    chosen: Dict[int, Tuple[int, int]] = {}
    work: List[Tuple[int, int]] = []
    roots = set(roots)
    for index, (first, last, name) in enumerate(spans):
        k = bisect.bisect_left(hybrid_lines, first)  # hybrid_lines ascend: one look per span
        if (k < len(hybrid_lines) and hybrid_lines[k] <= last) or (
            name is not None and name in roots
        ):
            chosen[index] = (first, last)
            work.append((first, last))
    for name, (index, _) in (classes or {}).items():
        if name in roots and index not in chosen:  # a class inheriting a hybrid_forward
            chosen[index] = spans[index][:2]
            work.append(chosen[index])
    if classes:
        for index in _related_classes(classes, list(chosen)):
            chosen[index] = spans[index][:2]
            work.append(chosen[index])
    top_functions = {name: index for index, (_, _, name) in enumerate(spans) if name}
    # plain classes (no base but `object`) hybrid code constructs: an object handed F
    # (`dist = Dist(mean, sigma, F=F); dist.kl_div(...)`) runs its methods in the graph, so
    # they are parsed like the functions hybrid code calls (`analysis` decides whether to follow)
    # and subclasses of gluon's shape-keeping layers (`class BatchNormExtra(nn.BatchNorm)`):
    # whether a child built from one keeps a pooled gate's 1s reads its body (rules/_pooled.py)
    for name, (index, bases) in (classes or {}).items():
        if all(base == "object" for base in bases) or (
            bases and all(base in SHAPE_PRESERVING_LAYERS for base in bases)
        ):
            top_functions.setdefault(name, index)
    if top_functions and work:
        # any name followed by `(`, then looked up: an alternation of every function's name
        # costs its length at each character (quadratic in a file of many functions)
        called = re.compile(r"(?<![\w.])((?!\d)\w+)\s*\(")
        while work:
            first, last = work.pop()
            text = source[
                line_starts[first - 1] : line_starts[last]
                if last < len(line_starts)
                else len(source)
            ]
            for match in called.finditer(text):
                index = top_functions.get(match.group(1), -1)
                if index >= 0 and index not in chosen:
                    chosen[index] = spans[index][:2]
                    work.append(chosen[index])
    return sorted(chosen.values())


def _related_classes(classes: Dict[str, Tuple[int, List[str]]], chosen: Iterable[int]) -> List[int]:
    """Span indices of the module classes, not among ``chosen``, that are bases or subclasses
    of chosen classes, transitively: a walk of the inheritance links, linear in the classes
    (re-scanning every class for every chosen one was quadratic in a file of many)."""
    names = {index: name for name, (index, _) in classes.items()}
    subclasses: Dict[str, List[str]] = {}
    for name, (_, bases) in classes.items():
        for base in bases:
            subclasses.setdefault(base, []).append(name)
    seen = set(chosen)
    queue = [names[i] for i in seen if i in names]
    added: List[int] = []
    while queue:
        name = queue.pop()
        for other in classes[name][1] + subclasses.get(name, []):
            if other in classes and classes[other][0] not in seen:
                seen.add(classes[other][0])
                added.append(classes[other][0])
                queue.append(other)
    return added


_OPERATOR_CHARS = "+-*/%&|^<>@("
# `and`/`or` chains are one flat BoolOp in `ast` but a BooleanOperation nested one level per
# operator in LibCST, whose parser overflows the C stack (a segfault) at ~7,000 of them;
# `elif` chains nest in both. These words count as operators (in strings and names too: at
# worst an `ast` check too many).
_CHAIN_WORDS = re.compile(r"\b(?:and|or|elif)\b")
_GUARD_ABOVE = 3000  # operator characters and chain words in one region
_BRACKETS_ABOVE = 150  # Python's tokenizer refuses 200 nested brackets; checked from 150
_BRACKET = re.compile(r"[()\[\]{}]")
# `ast` nesting beyond which the analysis surely hits the recursion limit: it fails from ~750
# levels of `x + x + ...` (one LibCST level per `ast` level; calls, with Call and Arg, fail
# sooner). LibCST's tree is never shallower than `ast`'s, so this rejects nothing analysable,
# and it spares LibCST's parse (seconds for such a region) before the inevitable failure.
_AST_DEPTH_LIMIT = 1000


def _parse_region(lines: List[str], first: int, last: int) -> cst.Module:
    """LibCST parse of a region. LibCST crashes the process (C stack overflow) on expressions
    nested ~7000 deep (an `a and b and ...` chain of 7,000 terms, which `ast` keeps flat), and
    on ~1,500 nested brackets, which Python's own parser refuses beyond
    200; `ast` raises RecursionError from ~4000. So regions with that many operators, or with
    brackets nested that deep, are checked with `ast` first (rare: a 300-line class has ~1000
    operators and brackets nested a few deep). The runner has checked each file with Python's
    parser already; this guards the API (`lint_source`, `fix_source`)."""
    text = "".join(lines[first - 1 : last])
    if not text.endswith(("\n", "\r")):
        text += "\n"
    operators = sum(text.count(char) for char in _OPERATOR_CHARS)
    if operators <= _GUARD_ABOVE:
        operators += len(_CHAIN_WORDS.findall(text))
    openers = text.count("(") + text.count("[") + text.count("{")
    if operators > _GUARD_ABOVE or (openers > _BRACKETS_ABOVE and _deeply_bracketed(text)):
        try:
            tree = ast.parse(text)
        except RecursionError:
            raise SourceSyntaxError("too deeply nested for hybridlint to analyse", first) from None
        except SyntaxError as exc:
            if "too many nested" in str(exc.msg):  # LibCST would crash on it: report it here
                line = first + (exc.lineno or 1) - 1
                raise SourceSyntaxError(str(exc.msg), line, exc.offset or 1) from None
            # otherwise LibCST reports it with its position
        except ValueError:
            pass
        else:
            if _ast_depth(tree) > _AST_DEPTH_LIMIT:
                raise SourceSyntaxError("too deeply nested for hybridlint to analyse", first)
    return cst.parse_module(_without_indent_form_feeds(text))


def _deeply_bracketed(text: str) -> bool:
    """Whether brackets in ``text`` nest more than _BRACKETS_ABOVE deep (brackets in strings
    and comments count too: at worst an `ast` check too many)."""
    depth = 0
    for bracket in _BRACKET.findall(text):
        if bracket in "([{":
            depth += 1
            if depth > _BRACKETS_ABOVE:
                return True
        else:
            depth -= 1
    return False


def _ast_depth(tree: ast.AST) -> int:
    """The deepest nesting of ``tree`` as LibCST will nest it (iteratively: the tree may be
    deeper than the stack): a BoolOp of n values is n - 1 nested BooleanOperations there."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        step = len(node.values) - 1 if isinstance(node, ast.BoolOp) else 1
        stack.extend((child, depth + max(step, 1)) for child in ast.iter_child_nodes(node))
    return deepest


_INDENT_FF = re.compile(r"^[ \t\f]*\f", re.M)


def _without_indent_form_feeds(text: str) -> str:
    """The text with the indentation before a form feed dropped, form feed included: CPython
    resets the indentation count at a form feed, LibCST's tokenizer fails on one ("no matching
    outer block for dedent"). Columns on such lines shift; :func:`_restore_form_feeds` puts
    the characters back into rewritten code."""
    return _INDENT_FF.sub("", text) if "\f" in text else text


def _restore_form_feeds(original: str, rewritten: str) -> str:
    """Give the lines of ``rewritten`` back the form-feed prefixes :func:`_without_indent_form_feeds`
    took from ``original``: line by line when the line count is unchanged, else for the lines
    left unchanged."""
    if "\f" not in original:
        return rewritten
    old = split_lines(original)
    new = split_lines(rewritten)
    prefixes = [(m.group(0) if m else "") for m in (_INDENT_FF.match(line) for line in old)]
    if len(old) == len(new):
        return "".join(p + line for p, line in zip(prefixes, new))
    stripped = {line[len(p) :]: p for p, line in zip(prefixes, old) if p}
    return "".join(stripped.get(line, "") + line for line in new)


def _fast_regions(
    source: str, lines: List[str], roots: Iterable[str] = ()
) -> Optional[Tuple[List[_Region], ModuleContext]]:
    """Regions from the text scanner and a skeleton parse; None when anything does not parse
    (then the exact `ast` path decides)."""
    statements = toplevel.scan(source)
    if statements is None:
        return None
    text = toplevel.skeleton(source, statements, lines)
    if statements and not text:
        return None
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    spans = [(s.first, s.last, s.name if s.kind == "def" else None) for s in statements]
    bases = _class_bases(tree)
    classes = {
        s.name: (i, bases.get(s.name, []))
        for i, s in enumerate(statements)
        if s.kind == "class" and s.name
    }
    regions = []
    for first, last in _chosen_spans(spans, source, lines, classes, roots):
        try:
            regions.append(_Region(first, last, _parse_region(lines, first, last)))
        except cst.ParserSyntaxError:
            return None
    return regions, module_context(tree, source, text)


def _parse_regions(
    source: str, roots: Iterable[str] = ()
) -> Tuple[List[str], List[_Region], ModuleContext]:
    """The file's lines, its LibCST regions and its module context.

    Syntax errors are looked for in what is parsed: the regions and the skeleton (imports,
    class and def headers, the other top-level statements). When the fast path fails anywhere,
    the whole file is parsed with `ast`, which raises SourceSyntaxError for broken files.
    """
    lines = split_lines(source)
    fast = _fast_regions(source, lines, roots)
    if fast is not None:
        return lines, fast[0], fast[1]
    tree = _parse_ast(source)

    def first_line(node: ast.stmt) -> int:
        return min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])

    spans = [
        (
            first_line(node),
            node.end_lineno or node.lineno,
            node.name if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None,
        )
        for node in tree.body
    ]
    bases = _class_bases(tree)
    classes = {
        node.name: (i, bases[node.name])
        for i, node in enumerate(tree.body)
        if isinstance(node, ast.ClassDef)
    }
    regions = []
    for first, last in _chosen_spans(spans, source, lines, classes, roots):
        try:
            regions.append(_Region(first, last, _parse_region(lines, first, last)))
        except cst.ParserSyntaxError as error:
            raise SourceSyntaxError(
                error.message, first + error.raw_line - 1, error.raw_column + 1
            ) from None
    return lines, regions, module_context(tree, source)


# ----------------------------------------------------------------------------------------
# Walking: every analysed function once, every node to every interested rule
# ----------------------------------------------------------------------------------------
_COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)


# node class -> (the walk stops there: a nested scope; it is a statement; it is a
# comprehension), filled as met: one dict lookup per node instead of isinstance checks against
# LibCST's abstract bases, each a call into ABCMeta when it fails
_NODE_FLAGS: Dict[type, Tuple[bool, bool, bool]] = {}


def _node_flags(kind: type) -> Tuple[bool, bool, bool]:
    flags = _NODE_FLAGS[kind] = (
        issubclass(kind, (cst.FunctionDef, cst.ClassDef, cst.Lambda)),
        issubclass(kind, (cst.SimpleStatementLine, cst.BaseCompoundStatement)),
        issubclass(kind, _COMPREHENSIONS),
    )
    return flags


class _Dispatcher(cst.CSTVisitor):
    """One walk of a function body; dispatches each node to the rules' visit_<Type>."""

    def __init__(
        self, facts: FunctionFacts, state: WalkState, table: Dict[str, List[Callable]]
    ) -> None:
        super().__init__()
        self.facts = facts
        self.state = state
        self.table = table
        self.saved_envs: List[Dict[str, Value]] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        kind = node.__class__
        flags = _NODE_FLAGS.get(kind) or _node_flags(kind)
        if flags[0] or node in self.facts.skip:
            return False
        env = self.facts.env_at.get(node)
        if env is not None:
            self.state.env = env
        if flags[1]:
            self.state.statement = node
        if flags[2]:
            self.saved_envs.append(self.state.env)
            bound = self.facts.comp_envs.get(node)  # the targets as the analysis bound them
            if bound is None:
                bound = dict(self.state.env)
                for name in _comprehension_targets(node):
                    bound[name] = Value("unknown")
            self.state.env = bound
        for method in self.table.get(kind.__name__, ()):
            method(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        kind = original_node.__class__
        if (_NODE_FLAGS.get(kind) or _node_flags(kind))[2]:
            self.state.env = self.saved_envs.pop()

    def walk(self, node: cst.CSTNode) -> None:
        """What ``node.visit(self)`` does, in the same order, without LibCST rebuilding every
        node it passes (most of a rule run's time): the children are read from the fields
        LibCST's visitor visits, in its order (:func:`values.visit_order`); layout (whitespace,
        commas, brackets, operator tokens) is passed over, where no rule and nothing in
        ``on_visit`` looks."""
        if self.on_visit(node):
            order, others = visit_order(type(node))
            if others and any(holds_node(getattr(node, name)) for name in others):
                node._visit_and_replace_children(self)  # a child where the order is unknown
            else:
                for name in order:
                    value = getattr(node, name)
                    kind = value.__class__
                    if kind is tuple or kind is list:
                        for item in value:
                            if is_node_class(item.__class__):
                                self.walk(item)
                    elif is_node_class(kind):
                        self.walk(value)
        self.on_leave(node)


def _comprehension_targets(node: cst.CSTNode) -> Iterable[str]:
    comp = getattr(node, "for_in", None)
    while comp is not None:
        for name_node in _names_in(comp.target):
            yield name_node
        comp = comp.inner_for_in


def _names_in(target: cst.CSTNode) -> Iterable[str]:
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, (cst.Tuple, cst.List)):
        for element in target.elements:
            yield from _names_in(element.value)


def _selected(rules: Sequence[Type[Rule]], select, ignore) -> List[Type[Rule]]:
    """The rules `select` (codes or prefixes; None: all) and `ignore` leave, as the command
    line selects: of the default rule set, a default-off rule (config.DEFAULT_OFF) runs only
    when named by its code (rules a caller passes itself are its choice)."""
    off = DEFAULT_OFF if rules is ALL_RULES else frozenset()
    chosen = []
    for rule in rules:
        if select is None:
            if rule.code in off:
                continue
        elif not any(rule.code.startswith(s) for s in select) or (
            rule.code in off and rule.code not in select
        ):
            continue
        if any(rule.code.startswith(i) for i in ignore):
            continue
        chosen.append(rule)
    return chosen


def _examples_only(chosen: Sequence[Type[Rule]], select, ignore) -> List[Type[Rule]]:
    """The default-off rules of config.EXAMPLE_PROVEN that report what the file's configured
    examples prove (``Rule.examples_only``): under the default selection (``select`` None)
    or a prefix that covers the code (``["HL"]``), as a caller of the API selects, or where
    the runner selects ``CODE:examples`` (``RuleSelection.examples_only``); never when
    ignored, nor for a rule ``chosen`` already runs in full. They are
    not among the rules that "ran" for unused suppressions: a `# noqa` of the full rule may
    stand where the examples prove nothing."""
    variants = []
    for rule in ALL_RULES:
        if rule.code not in EXAMPLE_PROVEN or rule in chosen:
            continue
        if any(rule.code.startswith(i) for i in ignore):
            continue
        covered = select is None or any(rule.code.startswith(s) for s in select)
        if covered or rule.code + EXAMPLES_ONLY in select:
            variants.append(_examples_only_variant(rule))
    return variants


_VARIANTS: Dict[Type[Rule], Type[Rule]] = {}


def _examples_only_variant(rule: Type[Rule]) -> Type[Rule]:
    """`rule` reporting only what the configured examples prove (one class per rule)."""
    if rule not in _VARIANTS:
        _VARIANTS[rule] = type(rule.__name__, (rule,), {"examples_only": True})
    return _VARIANTS[rule]


def _collect(
    regions: Sequence[_Region],
) -> Tuple[List[cst.ClassDef], List[cst.FunctionDef], Dict[cst.CSTNode, _Region]]:
    """The classes (at any depth a block can be defined) and top-level functions of the
    regions, and the region owning each class, method and function."""
    classes: List[cst.ClassDef] = []
    functions: List[cst.FunctionDef] = []
    owner: Dict[cst.CSTNode, _Region] = {}

    def collect(node: cst.CSTNode, region: _Region) -> None:
        # what a LibCST visitor with visit_ClassDef and visit_FunctionDef below would see, in
        # its order; no class is under an expression or a simple statement
        if isinstance(node, cst.ClassDef):
            # every class: hybrid_forward and its helpers may be inherited within the module
            classes.append(node)
            owner[node] = region
            if isinstance(node.body, cst.IndentedBlock):
                for statement in node.body.body:
                    if isinstance(statement, cst.FunctionDef):
                        owner[statement] = region
        elif isinstance(node, cst.FunctionDef) and not (
            # block factories (`def make(): class B(HybridBlock): ...`, a class defined in
            # `__init__`) hold classes too; other function bodies are not walked
            node in top_level
            or (
                isinstance(node.body, cst.IndentedBlock)
                and any(isinstance(statement, cst.ClassDef) for statement in node.body.body)
            )
        ):
            return
        for child in syntax_children(node):
            if not isinstance(child, (cst.BaseExpression, cst.BaseSmallStatement)):
                collect(child, region)

    top_level: Set[cst.CSTNode] = set()
    for region in regions:
        for statement in region.module.body:
            if isinstance(statement, cst.FunctionDef):
                functions.append(statement)
                owner[statement] = region
                top_level.add(statement)
            collect(statement, region)
    return classes, functions, owner


def _run_rules(
    regions: Sequence[_Region],
    rule_classes: Sequence[Type[Rule]],
    context: Optional[ModuleContext] = None,
    seeds: Optional[Dict[str, List[ExternalCall]]] = None,
    foreign: Optional[_Foreign] = None,
    inherited: Optional[Mapping[str, cst.ClassDef]] = None,
) -> List[Tuple[_Region, Report]]:
    """Analyse the regions together (helpers may live in another region) and run the rules.

    `seeds`: the calls other files' hybrid code makes to this file's functions
    (:func:`_project_seeds`): those functions are analysed as helpers of those calls.
    `foreign`: the definitions imported from other modules (:func:`_foreign_definitions`).
    `inherited`: the classes of other modules the file's classes inherit a hybrid_forward
    from (:func:`_inherited_definitions`)."""
    classes, functions, owner = _collect(regions)
    module_facts: ModuleFacts = analyze(
        classes, functions, context, seeds=seeds, foreign=foreign, inherited=inherited
    )

    state = WalkState(module=context or ModuleContext())
    named = Counter(klass.name.value for klass in classes)
    state.example_classes = {
        statement.name.value
        for region in regions
        for statement in region.module.body
        if isinstance(statement, cst.ClassDef) and named[statement.name.value] == 1
    }
    rules = [rule_class(state) for rule_class in rule_classes]
    table: Dict[str, List[Callable]] = {}
    for rule in rules:
        for attribute in dir(rule):
            if attribute.startswith("visit_"):
                table.setdefault(attribute[len("visit_") :], []).append(getattr(rule, attribute))
    layout_visited = any(  # a rule visiting layout nodes: LibCST's walk, which passes them
        isinstance(getattr(cst, name, None), type) and issubclass(getattr(cst, name), LAYOUT_TYPES)
        for name in table
    )
    results: List[Tuple[_Region, Report]] = []
    region_of = _region_lookup(module_facts, owner, regions)
    for klass in module_facts.classes.values():
        state.facts, state.env, state.statement = None, {}, klass.node
        region = region_of(klass.node)
        for rule in rules:
            rule.check_class(klass)
            results.extend((region, report) for report in rule.reports if region is not None)
            rule.reports.clear()
    for facts in module_facts.scopes:
        region = region_of(module_facts.origins.get(facts.node, facts.node)) if inherited else None
        if inherited and region is None:
            continue  # the inherited hybrid_forward of another module (and its helpers there)
        state.facts, state.env, state.statement = facts, dict(facts.params), facts.node
        dispatcher = _Dispatcher(facts, state, table)
        if layout_visited:
            facts.node.body.visit(dispatcher)
        else:
            dispatcher.walk(facts.node.body)
        for rule in rules:
            if rule.reports and region is None:
                region = region_of(module_facts.origins.get(facts.node, facts.node))
            results.extend((region, report) for report in rule.reports if region is not None)
            rule.reports.clear()
    return results


def _region_lookup(
    module_facts: ModuleFacts, owner: Dict[cst.CSTNode, _Region], regions: Sequence[_Region]
) -> Callable[[cst.CSTNode], Optional[_Region]]:
    """Map any analysed def/class to the region holding it (None: not the file's own, a
    method of a class of another module it inherits a hybrid_forward from)."""
    mapping: Dict[cst.CSTNode, _Region] = dict(owner)  # classes and their own methods
    walked = False

    def lookup(node: cst.CSTNode) -> Optional[_Region]:
        nonlocal walked
        if node not in mapping and not walked:
            walked = True
            for region in regions:
                for found in walk_nodes(region.module):
                    if isinstance(found, (cst.FunctionDef, cst.Lambda)):  # a lambda helper too
                        mapping.setdefault(found, region)
        return mapping.get(node)

    return lookup


# ----------------------------------------------------------------------------------------
# Findings, positions and suppression
# ----------------------------------------------------------------------------------------
@dataclass(eq=False)
class _Located:
    """A rule's finding: its report (edits of the region's tree) and the region."""

    finding: Finding
    report: Report
    region: _Region
    start: Tuple[int, int]  # (line, col) in the file, 1-based col
    end: Tuple[int, int]


@dataclass(eq=False)
class _UnusedDirective:
    """HL100: an unused suppression comment and the codes to remove from it (a text fix, no
    region or tree edits)."""

    finding: Finding
    directive: Tuple[_suppression.Directive, List[str]]
    start: Tuple[int, int]
    end: Tuple[int, int]


_Found = Union[_Located, _UnusedDirective]


class _Positions:
    """The positions of each region's nodes, resolved on first use (LibCST's PositionProvider
    walks the whole region): linting resolves the regions with findings only, fixing also
    those a fix edits beside its own (a helper's call sites, `region_of`)."""

    def __init__(self, regions: Sequence[_Region] = ()) -> None:
        self.regions = list(regions)
        self._resolved: Dict[_Region, Mapping[cst.CSTNode, CodeRange]] = {}

    def __getitem__(self, region: _Region) -> Mapping[cst.CSTNode, CodeRange]:
        where = self._resolved.get(region)
        if where is None:
            where = MetadataWrapper(region.module, unsafe_skip_copy=True).resolve(PositionProvider)
            self._resolved[region] = where
        return where

    def region_of(self, node: cst.CSTNode, first: _Region) -> Optional[_Region]:
        """The region whose tree holds ``node``, ``first`` tried first."""
        if node in self[first]:
            return first
        return next((r for r in self.regions if r is not first and node in self[r]), None)


# `_locate` results kept by their inputs, while a `SameFindingsMemo` is entered only:
# `--format json` fixes each finding alone (`fixedits.single_fix`, a `fix_source` per finding),
# and `--verify` fixes the same text with many subsets of its fixes (the bisection, and each
# fix alone to find what it rewrites); every one of those runs starts by locating the findings
# of the same text in the same context. The key holds that context: the project (whose
# configured constructions the analysis reads) and `--verify`'s taken fallbacks
# (rules/guards.py). Outside a memo nothing is kept. Results are only read.
_Kept = Dict[Hashable, Tuple[FileProject, Tuple[List[str], List["_Found"], "_Positions"]]]
_LOCATED: "contextvars.ContextVar[Optional[_Kept]]" = contextvars.ContextVar(
    "located", default=None
)


class SameFindingsMemo:
    """A context manager, entered once per fix of one text (`fixedits.all_fix_details`): within,
    `_locate` results are kept by (text, path, selection, rules, project) for this memo's
    lifetime, so the fixes' first passes share one location of the text's findings. A context
    variable: another thread or task (the language server's) never sees this memo."""

    def __init__(self) -> None:
        self.kept: _Kept = {}
        self._tokens: List[contextvars.Token] = []

    def __enter__(self) -> "SameFindingsMemo":
        self._tokens.append(_LOCATED.set(self.kept))
        return self

    def __exit__(self, *exc: object) -> None:
        _LOCATED.reset(self._tokens.pop())


def _locate(
    source: str, path: str, select, ignore, rules, project: FileProject
) -> Tuple[List[str], List[_Found], _Positions]:
    """Findings (not suppressed) with their reports, and the positions of the regions' nodes."""
    memo = _LOCATED.get()
    if memo is None:
        return _locate_anew(source, path, select, ignore, rules, project)
    key = (
        source,
        path,
        None if select is None else tuple(select),
        tuple(ignore),
        tuple(rules),
        id(project),
        taken_fallbacks_now(),
    )
    kept = memo.pop(key, None)
    if kept is not None and kept[0] is project:
        memo[key] = kept  # the most recently used is kept longest: the original text, in verify
        return kept[1]
    result = _locate_anew(source, path, select, ignore, rules, project)
    _remember(memo, key, (project, result), 4)
    return result


def _locate_anew(
    source: str, path: str, select, ignore, rules, project: FileProject
) -> Tuple[List[str], List[_Found], _Positions]:
    seeds = _project_seeds(source, path, project)
    subclasses = inherited_hybrid_classes(source, path, project)
    if "hybrid_forward" not in source and not seeds and not subclasses:
        return [], [], _Positions()
    parsed = _PARSED.pop(source, None)  # parsed (no roots) for another file's helpers?
    roots = [*seeds, *subclasses]
    lines, regions, context = parsed if parsed and not roots else _parse_regions(source, roots)
    positions = _Positions(regions)
    rule_classes = _selected(rules, select, ignore)
    if project.example_inputs and rules is ALL_RULES:
        rule_classes += _examples_only(rule_classes, select, ignore)
    suppressions = _suppression.Suppressions(lines)
    if not regions or not rule_classes:
        return lines, _unused_suppressions(suppressions, path, select, ignore, rules), positions
    foreign = _foreign_definitions(source, path, project, context, bool(subclasses))
    inherited = _inherited_definitions(source, path, project) if subclasses else None
    raw = _run_rules(regions, rule_classes, context, seeds, foreign, inherited)
    shifted = (
        {n: len(m.group(0)) for n, m in enumerate(map(_INDENT_FF.match, lines), 1) if m}
        if "\f" in source
        else {}
    )
    located: List[_Found] = []
    seen: Set[Tuple[str, int, int, int, int]] = set()
    for region, report in raw:
        # a class fact read from a base's own definition (an inherited __init__ or
        # hybrid_forward) has its node in another region of this file, or in the base's
        # module, whose own lint reports it
        found = positions.region_of(report.node, region)
        if found is None:
            continue
        region = found
        where = positions[region]
        span = where[report.node]
        offset = region.first_line - 1
        start = (span.start.line + offset, span.start.column + 1)
        end = (span.end.line + offset, span.end.column + 1)
        if shifted:  # columns LibCST saw without a form-feed indentation prefix
            start = (start[0], start[1] + shifted.get(start[0], 0))
            end = (end[0], end[1] + shifted.get(end[0], 0))
        rule = type(report.rule)
        key = (rule.code, *start, *end)
        if key in seen:
            continue
        seen.add(key)
        suppress_lines = {start[0]}
        if report.statement is not None and report.statement in where:
            suppress_lines.add(where[report.statement].start.line + offset)
        if suppressions.suppresses(rule.code, suppress_lines):
            continue
        finding = Finding(
            rule.code,
            rule.name,
            report.message,
            start[0],
            start[1],
            end[0],
            end[1],
            report.safety if report.edits else None,
            path,
        )
        located.append(_Located(finding, report, region, start, end))
    located += _unused_suppressions(suppressions, path, select, ignore, rules)
    located.sort(key=lambda item: (item.start, item.finding.code))
    return lines, located, positions


def _unused_suppressions(
    suppressions: "_suppression.Suppressions", path: str, select, ignore, rules
) -> List[_Found]:
    """HL100 for the suppression comments that named no rule or suppressed nothing, with
    the directive (a text fix, applied by :func:`_apply_pass`)."""

    def enabled(code: str) -> bool:
        return (select is None or any(code.startswith(s) for s in select)) and not any(
            code.startswith(i) for i in ignore
        )

    if not enabled(_suppression.CODE) or rules is not ALL_RULES:
        return []  # a caller's own rule list asks for those rules only
    codes = [rule.code for rule in rules] + [_suppression.CODE, "HL900", "HL901", "HL902"]
    selected = {rule.code for rule in _selected(rules, select, ignore)}

    def known(prefix: str) -> bool:
        return any(code.startswith(prefix) for code in codes)

    def checked(prefix: str) -> bool:  # a code of a rule that ran: its silence means unused
        return any(code.startswith(prefix) for code in selected)

    found: List[_Found] = []
    for directive, remove, message in suppressions.unused(checked, known):
        start, end = (directive.line, directive.start + 1), (directive.line, directive.end + 1)
        finding = Finding(_suppression.CODE, _suppression.NAME, message, *start, *end, SAFE, path)
        found.append(_UnusedDirective(finding, (directive, remove), start, end))
    return found


def lint_source(
    source: str,
    path: str = "<string>",
    *,
    select=None,
    ignore=(),
    rules: Optional[Sequence[Type[Rule]]] = None,
    project: Optional[FileProject] = None,
) -> List[Finding]:
    """Lint Python source; raises SourceSyntaxError when a candidate file cannot be parsed.

    Sources without `hybrid_forward` are not parsed at all (nothing can be found there),
    unless they define helpers other files' hybrid code calls: ``project`` says which
    (hybridlint/project.py: ``Project().for_source(source, path)``, what the runner passes
    and keys its cache on); without it the files on disk around `path` are read now.
    """
    _check_text(source)
    project = _file_project(source, path, project)
    with _nesting_guard(), configured_constructions(project.constructions, project.example_inputs):
        located = _locate(source, path, select, ignore, rules or ALL_RULES, project)[1]
        return [item.finding for item in located]


def _file_project(source: str, path: str, project: Optional[FileProject]) -> FileProject:
    """The given project, else the file's project read from disk now (nothing is kept)."""
    if project is not None:
        return project
    if not path or not (
        _TOP_DEF.search(source) or "hybrid_forward" in source or _CLASS_HEADER.search(source)
    ):
        return NO_PROJECT  # no helpers other files call, children built from imports, bases
    return Project().for_source(source, path)


def _check_text(source: object) -> None:
    if not isinstance(source, str):
        raise TypeError(
            f"hybridlint lints text (str), not {type(source).__name__}: decode the file first "
            "(hybridlint.files reads bytes, BOMs and encoding declarations)"
        )


_RECURSION_LIMIT = (
    3000  # LibCST walks take ~7 frames a nesting level; far more overflows the C stack
)


@contextlib.contextmanager
def _nesting_guard():
    """LibCST and the analysis recurse over the tree: allow deep (but real-world) nesting, and
    report code nested beyond even that as a file that cannot be parsed, not a traceback."""
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, _RECURSION_LIMIT))
    try:
        yield
    except RecursionError:
        raise SourceSyntaxError(
            "too deeply nested for hybridlint to analyse (Python recursion limit)"
        ) from None
    finally:
        sys.setrecursionlimit(previous)


# ----------------------------------------------------------------------------------------
# Fixing
# ----------------------------------------------------------------------------------------
class _Replacer(cst.CSTTransformer):
    def __init__(self, edits: Dict[cst.CSTNode, Replacement]) -> None:
        super().__init__()
        self.edits = edits

    def on_leave(self, original_node, updated_node):
        replaced = self.edits.get(original_node, updated_node)
        if replaced is not updated_node or not isinstance(
            original_node, (cst.IndentedBlock, cst.Module)
        ):
            return replaced
        body, footer = self._comments_kept(original_node, updated_node)
        if (
            isinstance(original_node, cst.IndentedBlock)
            and original_node.body
            and body
            and self.edits.get(original_node.body[0]) is cst.RemovalSentinel.REMOVE
        ):  # a body's first statements removed: the blank lines that set them apart go too
            lines = list(body[0].leading_lines)
            while lines and lines[0].comment is None:
                lines.pop(0)
            body[0] = body[0].with_changes(leading_lines=lines)
        if body == list(updated_node.body) and footer == list(updated_node.footer):
            return updated_node
        return updated_node.with_changes(body=body, footer=footer)

    def _comments_kept(self, original, updated) -> Tuple[list, list]:
        """The block's statements and footer with the comments above each removed statement
        moved to the next statement kept (to the footer after the last): a fix deleting `h =
        x.shape[2] * 2` deleted the comment lines above it too (blind round 13)."""
        body, footer = list(updated.body), list(updated.footer)
        pending: list = []
        kept = 0
        for statement in original.body:
            replacement = self.edits.get(statement)
            if replacement is cst.RemovalSentinel.REMOVE:
                if any(line.comment is not None for line in statement.leading_lines):
                    pending.extend(statement.leading_lines)
                continue
            if pending and kept < len(body):
                lines = body[kept].leading_lines
                if not _comments(pending) <= _comments(lines):  # (a rule that moved them: kept)
                    body[kept] = body[kept].with_changes(leading_lines=[*pending, *lines])
                pending = []
            kept += len(replacement.nodes) if isinstance(replacement, cst.FlattenSentinel) else 1
        return body, [*pending, *footer]


def _comments(lines: Sequence[cst.EmptyLine]) -> Set[str]:
    return {line.comment.value for line in lines if line.comment is not None}


_Spot = Tuple[Tuple[int, int], Tuple[int, int]]


def _split_edits(item: _Located, positions: _Positions) -> Optional[Dict[_Region, list]]:
    """A fix's edits by the region whose tree holds each edited node (its own region, and
    others for a fix that also edits, say, a helper's call sites); None when an edited node is
    in no region (a rule bug: such a fix is never applied)."""
    parts: Dict[_Region, list] = {}
    for old, new in item.report.edits:
        region = positions.region_of(old, item.region)
        if region is None:
            return None
        parts.setdefault(region, []).append((old, new))
    return parts


def _spans(edits, where) -> List[_Spot]:
    spans = []
    for old, _ in edits:
        span = where[old]
        spans.append(((span.start.line, span.start.column), (span.end.line, span.end.column)))
    return spans


def _same_edit(old: cst.CSTNode, new: Replacement, taken: Dict[cst.CSTNode, Replacement]) -> bool:
    """Is this edit already taken, to the letter (two findings of one node that a single
    rewrite fixes, as HL001 on each `x.shape[k]` of one reshape target, or the signature and
    call sites two fixes of one helper both change)?"""
    chosen = taken.get(old)
    return (
        chosen is not None
        and isinstance(chosen, cst.CSTNode)
        and isinstance(new, cst.CSTNode)
        and chosen.deep_equals(new)
    )


def _overlaps(a, b) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _apply_pass(
    source: str,
    path: str,
    select,
    ignore,
    rules,
    unsafe: bool,
    accept: Optional[Callable[[Finding], bool]],
    project: FileProject,
) -> Tuple[str, List[Finding], List[Finding], list]:
    """One fixing pass: apply the non-overlapping accepted fixes; returns (source, applied,
    the findings of the source given, as lint_source would return them, and the replaced
    line blocks for :func:`_block_mapper`)."""
    lines, located, positions = _locate(source, path, select, ignore, rules, project)
    found = [item.finding for item in located]
    items: List[_Located] = []  # the fixes to apply, in the order of the file
    comments: List[_UnusedDirective] = []  # HL100: removed once no rule fix is left (text edit)
    for item in located:
        if isinstance(item, _UnusedDirective):
            if accept is None or accept(item.finding):
                comments.append(item)
        elif item.finding.fix == SAFE or (item.finding.fix == UNSAFE and unsafe):
            items.append(item)
    if not items and comments:
        new_source = _suppression.remove_codes(source, [item.directive for item in comments])
        if new_source is None:
            return source, [], found, []
        return new_source, [item.finding for item in comments], found, []
    if not items:
        return source, [], found, []
    new_texts, applied = _region_texts(items, positions, lines, accept)
    if any(len(parts) > 1 and not parts.keys() <= new_texts.keys() for _, parts in applied):
        # a fix spanning regions is applied whole or not at all: when a region it edits
        # could not be rebuilt, this pass goes without such fixes
        items = [i for i in items if len(_split_edits(i, positions) or ()) <= 1]
        new_texts, applied = _region_texts(items, positions, lines, accept)
    applied_findings = [item.finding for item, parts in applied if parts.keys() <= new_texts.keys()]
    if not new_texts:
        return source, [], found, []
    pieces: List[str] = []
    blocks: list = []
    cursor = 0
    shift = 0  # new line number minus old line number after the last block
    for region in sorted(new_texts, key=lambda r: r.first_line):
        pieces.extend(lines[cursor : region.first_line - 1])
        original = "".join(lines[region.first_line - 1 : region.last_line])
        text = new_texts[region]
        if not original.endswith(("\n", "\r")) and text.endswith("\n"):
            text = text[:-1]
        pieces.append(text)
        new_first = region.first_line + shift
        new_lines = split_lines(text)
        new_count = len(new_lines)
        line_map = aligned_lines(split_lines(original), new_lines)
        blocks.append(
            (region.first_line, region.last_line, new_first, new_first + new_count - 1, line_map)
        )
        shift += new_count - (region.last_line - region.first_line + 1)
        cursor = region.last_line
    pieces.extend(lines[cursor:])
    new_source = "".join(pieces)
    try:
        ast.parse(new_source)
    except (SyntaxError, ValueError):
        return source, [], found, []
    return new_source, applied_findings, found, blocks


def _region_texts(
    items: Sequence[_Located], positions: _Positions, lines: Sequence[str], accept
) -> Tuple[Dict[_Region, str], List[Tuple[_Located, Dict[_Region, list]]]]:
    """The new text of every region the accepted, non-overlapping fixes edit, and those fixes
    with their edits by region. A fix overlapping one taken before waits for the next pass,
    unless each of its overlapping edits is one already taken (`_same_edit`)."""
    taken: Dict[_Region, List[_Spot]] = {}
    edits: Dict[_Region, Dict[cst.CSTNode, Replacement]] = {}
    chosen: List[Tuple[_Located, Dict[_Region, list]]] = []
    for item in items:
        parts = _split_edits(item, positions)
        if parts is None:
            continue  # a rule bug: an edit of a node outside the trees is never applied
        if accept is not None and not accept(item.finding):
            continue
        fresh: Dict[_Region, Tuple[List[Tuple[cst.CSTNode, Replacement]], List[_Spot]]] = {}
        for region, region_edits in parts.items():
            mine = edits.get(region, {})
            new_edits = [(o, n) for o, n in region_edits if not _same_edit(o, n, mine)]
            spans = _spans(new_edits, positions[region])
            if any(_overlaps(a, b) for a in spans for b in taken.get(region, ())):
                break  # the next pass re-lints and applies it if it still applies
            fresh[region] = (new_edits, spans)
        else:
            for region, (new_edits, spans) in fresh.items():
                taken.setdefault(region, []).extend(spans)
                edits.setdefault(region, {}).update(new_edits)
            chosen.append((item, parts))
    new_texts: Dict[_Region, str] = {}
    for region, replacements in edits.items():
        if not replacements:
            continue
        try:
            text = region.module.visit(_Replacer(replacements)).code
            text = _restore_form_feeds(
                "".join(lines[region.first_line - 1 : region.last_line]), text
            )
            ast.parse(text)
        except Exception:  # noqa: BLE001 -- any failure to build valid code drops its fixes
            continue
        new_texts[region] = text
    return new_texts, chosen


def _block_mapper(blocks: Sequence[Tuple[int, int, int, int, List[int]]]) -> Callable[[int], int]:
    """Maps a line after one fixing pass to the line before it, from the pass's replaced
    blocks ``(old_first, old_last, new_first, new_last, line_map)`` in order. Lines between
    blocks shift by a constant; inside a block (one top-level statement) ``line_map`` gives
    each new line's offset in the old statement (:func:`aligned_lines`). The cost is O(log n)
    per line plus the size of the changed statements: a difflib comparison of the whole file
    per pass was quadratic in its size (50/100/200/400 classes took 4/8/20/54 s)."""
    starts = [block[2] for block in blocks]

    def mapping(line: int) -> int:
        index = bisect.bisect_right(starts, line) - 1
        if index < 0:
            return line
        old_first, old_last, new_first, new_last, line_map = blocks[index]
        if line > new_last:
            return old_last + (line - new_last)
        return old_first + line_map[line - new_first]

    return mapping


_ALIGNED_PAIRS_MAX = 2500  # line pairs compared in one replaced run of lines; beyond: by position


def aligned_lines(old: Sequence[str], new: Sequence[str]) -> List[int]:
    """For each line of `new`, the 0-based index of the line of `old` it comes from: unchanged
    lines by a line diff, and inside a run of lines a rewrite replaced by a different number
    of lines, each new line with the most similar old line, in order. By position alone, a
    removed `_, c, h, w = x.shape` put every later line of the run one line early, so a fix a
    later pass made there was reported (and judged by --verify) at the line above it. A new
    line like no old line maps to the old line after the ones matched before it."""
    out: List[int] = []
    last = max(len(old) - 1, 0)
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out.extend(range(i1, i2))
        elif tag != "delete":
            out.extend(min(i, last) for i in _matched_run(old[i1:i2], new[j1:j2], i1))
    return out


def _matched_run(old: Sequence[str], new: Sequence[str], base: int) -> List[int]:
    """`aligned_lines` inside one replaced run: an order-keeping matching of the lines that
    maximises their summed similarity (pairs under 0.5 do not match)."""
    n, m = len(old), len(new)
    if n == m or not n or n * m > _ALIGNED_PAIRS_MAX:
        return [base + min(k, max(n - 1, 0)) for k in range(m)]  # by position
    similar = [
        [difflib.SequenceMatcher(None, a.strip(), b.strip(), autojunk=False).ratio() for b in new]
        for a in old
    ]
    # best[a][b]: the best total for the first a old and first b new lines
    best = [[0.0] * (m + 1) for _ in range(n + 1)]
    for a in range(1, n + 1):
        for b in range(1, m + 1):
            pair = similar[a - 1][b - 1]
            best[a][b] = max(
                best[a - 1][b],
                best[a][b - 1],
                best[a - 1][b - 1] + pair if pair >= 0.5 else 0.0,
            )
    matched: Dict[int, int] = {}
    a, b = n, m
    while a and b:
        pair = similar[a - 1][b - 1]
        if pair >= 0.5 and best[a][b] == best[a - 1][b - 1] + pair:
            matched[b - 1] = a - 1
            a, b = a - 1, b - 1
        elif best[a][b] == best[a - 1][b]:
            a -= 1
        else:
            b -= 1
    out, after = [], 0  # `after`: the old line following the last matched one
    for k in range(m):
        if k in matched:
            after = matched[k] + 1
            out.append(base + matched[k])
        else:
            out.append(base + min(after, n - 1))
    return out


def _column_before(new_line: str, old_line: str, col: int) -> int:
    """The 1-based column of `old_line` whose character a fixing pass moved to `col` of
    `new_line` (matching runs of a character diff); where that character is new (a rewrite's
    own text, or text a rewrite joined from the next line), the column where the rewrite
    stands in `old_line`: just after the last run that matched before it, never past the
    line's end (`61:139` on a 100-character line told the user nothing)."""
    index = col - 1
    matcher = difflib.SequenceMatcher(None, old_line, new_line, autojunk=False)
    after = 0  # the old column just after the last matching run before `index`
    for old_start, new_start, size in matcher.get_matching_blocks():
        if new_start <= index < new_start + size:
            return old_start + (index - new_start) + 1
        if size and new_start + size <= index:
            after = old_start + size
    return min(after, len(old_line.rstrip("\r\n"))) + 1


def fix_source(
    source: str,
    path: str = "<string>",
    *,
    select=None,
    ignore=(),
    unsafe: bool = False,
    accept: Optional[Callable[[Finding], bool]] = None,
    rules: Optional[Sequence[Type[Rule]]] = None,
    line_length: Optional[int] = None,
    project: Optional[FileProject] = None,
) -> FixResult:
    """Apply fixes until nothing changes (at most MAX_FIX_PASSES passes).

    Never returns source that does not parse: a pass whose result does not parse is dropped.
    `applied` findings carry positions mapped back to the original source (by line diff).
    With ``line_length`` (the runner passes the configured one; None, the library default,
    leaves lines as the rules wrote them), lines the fixes made longer than that are broken
    at a natural point (hybridlint/wrap.py) and `remaining` is re-linted on the result.
    ``project``: as for :func:`lint_source`.
    """
    _check_text(source)
    project = _file_project(source, path, project)
    with _nesting_guard(), configured_constructions(project.constructions, project.example_inputs):
        result = _fix_to_fixed_point(
            source, path, select, ignore, unsafe, accept, rules or ALL_RULES, project
        )
    if result.applied:  # imports the fixes made unused (nd after nd.zeros -> F.zeros)
        from . import imports

        result.source, result.remaining = imports.apply(source, result.source, result.remaining)
    if result.applied and line_length is not None:
        from .wrap import wrap_fixed_lines

        wrapped = wrap_fixed_lines(source, result.source, line_length)
        if wrapped != result.source:
            result.source = wrapped
            result.remaining = lint_source(
                wrapped, path, select=select, ignore=ignore, rules=rules, project=project
            )
    return result


def _fix_to_fixed_point(
    source: str,
    path: str,
    select,
    ignore,
    unsafe: bool,
    accept: Optional[Callable[[Finding], bool]],
    rules: Sequence[Type[Rule]],
    project: FileProject,
) -> FixResult:
    current = source
    applied: List[Finding] = []
    remaining: Optional[List[Finding]] = None
    back: List[Callable[[int], int]] = []  # per pass so far: its new lines to its old lines
    initial: Optional[List[Finding]] = None

    texts = [source]  # the text each pass started from, then the last pass's result
    pass_lines: Dict[int, List[str]] = {}  # texts[i] split into lines, when a column asks

    def lines_of(index: int) -> List[str]:
        if index not in pass_lines:
            pass_lines[index] = split_lines(texts[index])
        return pass_lines[index]

    def to_original_place(line: int, col: int) -> Tuple[int, int]:
        """(line, col) of the text the latest pass started from -> the same place in
        `source`: the line through each pass's line mapping, the column through a character
        diff of the line before and after that pass (a fix nested in another fix's rewrite
        is applied by a later pass, where its column has moved)."""
        for index in range(len(back) - 1, -1, -1):
            old_line = back[index](line)
            new_lines, old_lines = lines_of(index + 1), lines_of(index)
            if 0 < line <= len(new_lines) and 0 < old_line <= len(old_lines):
                col = _column_before(new_lines[line - 1], old_lines[old_line - 1], col)
            line = old_line
        return line, col

    def in_original(finding: Finding) -> Finding:
        """The finding with its position mapped back to `source`."""
        if not back:
            return finding
        line, col = to_original_place(finding.line, finding.col)
        end_line, end_col = to_original_place(finding.end_line, max(finding.end_col - 1, 1))
        if (end_line, end_col) < (line, col):  # the end did not map inside the same text
            end_line, end_col = line, col
        return replace(finding, line=line, col=col, end_line=end_line, end_col=end_col + 1)

    # `accept` judges findings in the coordinates of `source`, whatever pass finds them: a fix
    # a later pass applies (one nested in another fix's node) keeps its original line, so a
    # caller that accepts by line accepts it in every subset of fixes (verify's bisection).
    pass_accept = None if accept is None else (lambda finding: accept(in_original(finding)))
    for _ in range(MAX_FIX_PASSES):
        new_source, pass_applied, found, blocks = _apply_pass(
            current, path, select, ignore, rules, unsafe, pass_accept, project
        )
        if initial is None:
            initial = found
        if not pass_applied or new_source == current:
            remaining = found  # the last pass linted `current` already
            break
        applied.extend(in_original(finding) for finding in pass_applied)
        back.append(_block_mapper(blocks))
        texts.append(new_source)
        current = new_source
    if remaining is None:  # every pass changed the source: lint the last result
        remaining = lint_source(
            current, path, select=select, ignore=ignore, rules=rules, project=project
        )
    return FixResult(current, applied, remaining, initial or [])
