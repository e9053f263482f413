"""The project model: which files of a project import what, an explicit input of the linter.

A module function that hybrid code of another file calls with ``F`` is analysed as a helper
when its own file is linted (docs/architecture.md, "Helpers in other modules"). So a file's
findings depend on more than its bytes: on the files of its project that hold a
``hybrid_forward`` and import from its module (its *importers*). This module finds them and
says exactly what a file's lint reads from the rest of the project, as a
:class:`FileProject`: the file's qualified module and its importers (module, bytes digest,
text). The linter reads nothing else from disk; the runner passes each file's
``FileProject`` to it and puts :attr:`FileProject.key` into the file's cache key, so a cached
result is reused only when its importers are the same files with the same bytes.

Which files can be importers: the ``.py`` files of the file's top package (the directories
with ``__init__.py`` above it; root = the directory holding the top package), or, for a module
outside a package, the ``.py`` files of its directory; a tree of more than ``MAX_FILES`` files
is not indexed. Of each, :func:`facts_of` keeps whether it defines top-level functions and
(when it holds a ``hybrid_forward``) the ``from <dots><module> import`` lines it has, resolved
to qualified modules by :func:`resolve`; of a file without one, the `from` lines that import
a base of its top-level classes (:attr:`FileFacts.bases`: a subclass may inherit a
hybrid_forward that calls the methods it overrides, `hybridlint/linter.py`
`inherited_hybrid_classes`).

A :class:`Project` caches what it learnt for its own lifetime only (one run, or one
``lint_source`` call of an API user who gives no project): nothing is kept between runs but
what the runner's result cache keeps, keyed by bytes.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Set, Tuple

MAX_FILES = 5000  # a project larger than this is not indexed (no imported helpers)
MAX_INDEXED_BYTES = 2_000_000  # a larger file's import lines are not read
MAX_DEFINITIONS = 16  # project modules one file's children may be built from, at most
_TOP_DEF = re.compile(r"^(?:async[ \t]+)?def[ \t]+(\w+)", re.M)
# `from <dots><module> import <names>` (names parenthesised or continued with a backslash)
FROM_IMPORT = re.compile(
    r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n\\]|\\\r?\n)*)", re.M
)
# the base names of a top-level `class Name(<bases>):` (the last part of each dotted base)
_CLASS_BASES = re.compile(r"^class[ \t]+\w+[ \t]*\(([^)]*)\)", re.M)


def digest_of(raw: bytes) -> str:
    """The digest of a file's bytes (what the cache's stat records map a signature to)."""
    return hashlib.sha256(raw).hexdigest()[:32]


def universal_newlines(text: str) -> str:
    """Text as `open(..., encoding=...)` reads it: CRLF and lone CR become LF."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


@dataclass(frozen=True)
class FileFacts:
    """What the project model needs of one file, read from its bytes alone."""

    defines: bool  # a top-level `def`: it may hold helpers other files' hybrid code imports
    # the `from <dots><module> import` lines of a file holding a hybrid_forward, as (dots,
    # module); empty for other files (their imports seed nothing)
    imports: Tuple[Tuple[str, str], ...] = ()
    # of a file without a hybrid_forward, the `from` lines importing a name one of its
    # top-level classes derives from: the modules its lint reads for an inherited
    # hybrid_forward (empty for a file holding one: its `imports` name them all)
    bases: Tuple[Tuple[str, str], ...] = ()


def facts_of(raw: bytes) -> FileFacts:
    """:class:`FileFacts` of a file's bytes (read as UTF-8, undecodable bytes replaced)."""
    text = universal_newlines(raw.decode("utf-8", errors="replace"))
    if len(raw) > MAX_INDEXED_BYTES:
        return FileFacts(bool(_TOP_DEF.search(text)))
    return FileFacts(bool(_TOP_DEF.search(text)), imports_of(text), base_imports_of(text))


def imports_of(text: str) -> Tuple[Tuple[str, str], ...]:
    """`FileFacts.imports` of a text: its `from` lines as (dots, module) when it holds a
    hybrid_forward, else ()."""
    if "hybrid_forward" not in text:
        return ()
    return tuple(sorted({(m.group(1), m.group(2)) for m in FROM_IMPORT.finditer(text)}))


def base_imports_of(text: str) -> Tuple[Tuple[str, str], ...]:
    """`FileFacts.bases` of a text: of a file without a hybrid_forward, its `from` lines (as
    (dots, module)) that import a name one of its top-level classes derives from."""
    if "hybrid_forward" in text or "class" not in text:
        return ()
    bases = class_base_names(text)
    if not bases:
        return ()
    found = set()
    for match in FROM_IMPORT.finditer(text):
        if bases & set(imported_names(match.group(3))):
            found.add((match.group(1), match.group(2)))
    return tuple(sorted(found))


def class_base_names(text: str) -> Set[str]:
    """The bases of the top-level classes of a text that are plain names (`class B(Base):`;
    not `nn.Dense`, nor `metaclass=...`)."""
    names: Set[str] = set()
    for match in _CLASS_BASES.finditer(text):
        names.update(b.strip() for b in match.group(1).split(",") if b.strip().isidentifier())
    return names


def imported_names(names: str) -> Dict[str, str]:
    """local name -> imported name, for the names part of a `from ... import` line (a
    `FROM_IMPORT` match's third group: parenthesised or continued with a backslash)."""
    found: Dict[str, str] = {}
    # comments end at their line: `from .base import (  # bases` keeps the names below it
    text = " ".join(line.split("#")[0] for line in names.splitlines())
    for part in text.replace("(", " ").replace(")", " ").replace("\\", " ").split(","):
        words = part.split()
        if len(words) == 1:
            found[words[0]] = words[0]
        elif len(words) == 3 and words[1] == "as":
            found[words[2]] = words[0]
    return found


def importer_text(raw: bytes) -> Optional[str]:
    """An importer's text as the linter analyses it (strict UTF-8, universal newlines), or
    None when it is not UTF-8 (such an importer seeds nothing)."""
    try:
        return universal_newlines(raw.decode("utf-8"))
    except UnicodeDecodeError:
        return None


def resolve(importer_module: str, is_package: bool, dots: str, module: str) -> str:
    """The qualified module a `from <dots><module> import` of `importer_module` names."""
    if not dots:
        return module
    base = importer_module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (len(dots) - 1)] if len(dots) > 1 else base
    return ".".join(base + ([module] if module else []))


@dataclass(frozen=True)
class Definitions:
    """A module of the project the file's hybrid code imports names from (`from .common import
    conv1x1_block`): the linter reads how the children it builds are made (a factory's body, a
    block class's `__init__`: rules/_pooled.py), never lints it."""

    path: str  # absolute
    module: str  # its qualified module
    digest: str  # digest_of its bytes
    text: Optional[str] = None  # importer_text of those bytes (None: not UTF-8, or not loaded)


@dataclass(frozen=True)
class Importer:
    """A file holding a hybrid_forward that imports from the linted file's module."""

    path: str  # absolute
    module: str  # its qualified module (`pkg.net`; a package's `__init__.py`: `pkg`)
    is_package: bool  # an `__init__.py` (relative imports resolve from the package itself)
    digest: str  # digest_of its bytes
    text: Optional[str] = None  # importer_text of those bytes (None: not UTF-8, or not loaded)


# How the configured examples of a file build its blocks (`Config.constructions_for`):
# (class name, its constructor's keyword arguments as sorted (name, value) pairs), one per
# example; values are hashable (lists as tuples, None for `{ none = true }`). The analysis
# reads them under the same name (rules/analysis.py `configured_constructions`).
Constructions = Tuple[Tuple[str, Tuple[Tuple[str, Any], ...]], ...]
# the value of an argument whose truth no literal tells (a numpy array: `bool()` of one with
# several elements raises): the analysis leaves what it decides undecided
OPAQUE = ("<numpy array>",)
# What the configured examples of a file pass its blocks (`Config.example_inputs_for`): (class
# name, one (kind, shown value) per positional input), one per example. The kind is "array"
# (one array), "arrays" (a list or tuple of them), "none", or the Python type of a value a
# hybridized block refuses as an input ("int", "float", "bool", "str"; also when inside a list
# of inputs): HL018 reports what they prove.
ExampleInputs = Tuple[Tuple[str, Tuple[Tuple[str, str], ...]], ...]
ARRAY_KINDS = frozenset(("array", "arrays"))  # the kinds a hybridized block takes as inputs


@dataclass(frozen=True)
class FileProject:
    """Everything one file's lint reads from the rest of its project: the file's qualified
    module, its importers, the project modules it imports names from (its definitions), and
    how the project's configured examples build its blocks (read as the file's configuration,
    `rules/analysis.configured_constructions`). Plain data: it crosses to the runner's worker
    processes."""

    module: str = ""
    importers: Tuple[Importer, ...] = ()
    constructions: Constructions = ()
    example_inputs: ExampleInputs = ()
    definitions: Tuple[Definitions, ...] = ()

    @property
    def may_make_code_hybrid(self) -> bool:
        """Whether other files can make code of this file hybrid code without a hybrid_forward
        of its own: importers whose hybrid code may call its functions, or imported modules
        whose classes it may derive from. Without either, a file with no hybrid_forward has
        nothing to lint (linter.may_contain_hybrid_code; the runner asks before it imports
        the linter)."""
        return bool(self.importers or self.definitions)

    @property
    def key(self) -> str:
        """What the cache key of the file's result must include ("" without importers,
        definitions or configured examples)."""
        if not (self.importers or self.definitions or self.constructions or self.example_inputs):
            return ""
        digest = hashlib.sha256(self.module.encode())
        for importer in self.importers:
            digest.update(
                f"\0{importer.module}\0{int(importer.is_package)}\0{importer.digest}".encode()
            )
        for imported in self.definitions:
            digest.update(f"\0definitions\0{imported.module}\0{imported.digest}".encode())
        if self.constructions:
            digest.update(f"\0constructions\0{self.constructions!r}".encode())
        if self.example_inputs:
            digest.update(f"\0inputs\0{self.example_inputs!r}".encode())
        return digest.hexdigest()[:32]


NO_PROJECT = FileProject()  # a file with no importers (stdin without a path, a notebook)

# How a Project may learn a file without reading it: (digest, facts) for a path and its stat,
# or None (then the file is read, and what was learnt is passed to a FactsRecorder with the
# stat taken before reading).
FactsLookup = Callable[[str, os.stat_result], Optional[Tuple[str, FileFacts]]]
FactsRecorder = Callable[[str, os.stat_result, str, FileFacts], None]


class Project:
    """The project model of one run: files, modules, imports. See the module docstring.

    ``lookup(path, stat)`` may answer a file's digest and facts without reading it (the
    runner's cache does, from the stat signature); without it every file is read. Files the
    caller has read already are given with :meth:`know`."""

    def __init__(
        self, lookup: Optional[FactsLookup] = None, record: Optional[FactsRecorder] = None
    ):
        self._lookup = lookup
        self._record = record
        self._known: Dict[str, Tuple[str, FileFacts]] = {}
        # bytes of the files that may be importers (facts with imports), when read: their
        # digest in _known is always the digest of these bytes
        self._raw: Dict[str, bytes] = {}
        self._texts: Dict[str, Optional[str]] = {}
        self._roots: Dict[str, Optional[Tuple[str, List[str]]]] = {}  # directory -> root
        self._modules: Dict[str, Optional[Tuple[str, str]]] = {}
        self._groups: Dict[Tuple[str, str], List[str]] = {}
        self._by_module: Dict[Tuple[str, str], Dict[str, List[str]]] = {}
        self._definition_texts: Dict[str, Optional[Tuple[str, Optional[str]]]] = {}

    # -- files -------------------------------------------------------------------------------
    def know(self, path: str, digest: str, facts: FileFacts, raw: Optional[bytes] = None) -> None:
        """Record a file the caller has looked up or read (`raw`, whose digest is `digest`):
        it is not read again."""
        path = os.path.abspath(path)
        self._known[path] = (digest, facts)
        self._texts.pop(path, None)
        if raw is not None and facts.imports:
            self._raw[path] = raw
        else:
            self._raw.pop(path, None)

    def _entry(self, path: str) -> Optional[Tuple[str, FileFacts]]:
        """A file's digest and facts: known, looked up, or read."""
        known = self._known.get(path)
        if known is not None:
            return known
        found: Optional[Tuple[str, FileFacts]] = None
        st: Optional[os.stat_result] = None
        if self._lookup is not None:
            try:
                st = os.stat(path)
            except OSError:
                st = None
            found = self._lookup(path, st) if st is not None else None
        if found is None:
            found = self._read(path)
            if found is not None and st is not None and self._record is not None:
                self._record(path, st, *found)
            return found
        self._known[path] = found
        return found

    def _read(self, path: str) -> Optional[Tuple[str, FileFacts]]:
        """Read a file now: its digest and facts (None when it cannot be read)."""
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except OSError:
            self._known.pop(path, None)
            self._raw.pop(path, None)
            return None
        found = (digest_of(raw), facts_of(raw))
        self.know(path, *found, raw=raw)
        return found

    def _load(self, path: str) -> bool:
        """Make sure the bytes of a possible importer are at hand (its digest and text are
        then theirs); whether what was known of the file changed."""
        if path in self._raw:
            return False
        before = self._known.get(path)
        after = self._read(path)
        return before != after

    # -- modules -------------------------------------------------------------------------------
    def module_file(self, path: str) -> Optional[Tuple[str, str]]:
        """(root, qualified module name) of a Python file on disk, else None (`<stdin>`,
        notebooks). In a package (directories with `__init__.py`) the root is the directory
        holding the top package (`gluonts/mx/util.py` -> "gluonts.mx.util"); otherwise the
        file's directory."""
        if not path or path.startswith("<") or not path.endswith(".py"):
            return None
        path = os.path.abspath(path)
        if path in self._modules:
            return self._modules[path]
        found: Optional[Tuple[str, str]] = None
        if os.path.isfile(path):
            directory, name = os.path.split(path)
            if directory not in self._roots:
                root: str = directory
                parts: List[str] = []
                where: Optional[Tuple[str, List[str]]] = None
                while os.path.isfile(os.path.join(root, "__init__.py")):
                    root, package = os.path.split(root)
                    parts.insert(0, package)
                    if not package:
                        break
                else:
                    where = (root, parts)
                self._roots[directory] = where
            where = self._roots[directory]
            if where is not None:
                names = where[1] + ([] if name == "__init__.py" else [name[:-3]])
                found = (where[0], ".".join(names))
        self._modules[path] = found
        return found

    def _group(self, root: str, module: str) -> Tuple[Tuple[str, str], List[str]]:
        """The Python files the importers of `module` may be, with a key naming that set: its
        package's tree under `root` (the top package), or the files of `root` for a module
        outside a package."""
        top = module.split(".")[0]
        package = "." in module or os.path.isfile(os.path.join(root, top, "__init__.py"))
        key = (root, top if package else "")
        if key not in self._groups:
            files: List[str] = []
            try:
                if not package:
                    names = sorted(os.listdir(root))
                    files = [os.path.join(root, n) for n in names if n.endswith(".py")]
                else:
                    for directory, subdirectories, names in os.walk(os.path.join(root, top)):
                        subdirectories[:] = sorted(
                            d
                            for d in subdirectories
                            if not d.startswith(".")
                            and os.path.isfile(os.path.join(directory, d, "__init__.py"))
                        )
                        files.extend(
                            os.path.join(directory, n) for n in sorted(names) if n.endswith(".py")
                        )
                        if len(files) > MAX_FILES:
                            files = []
                            break
            except OSError:
                files = []
            self._groups[key] = files
        return key, self._groups[key]

    def _importers_of(self, root: str, module: str) -> List[str]:
        """The files of `module`'s group holding a hybrid_forward that import from it."""
        key, files = self._group(root, module)
        index = self._by_module.get(key)
        if index is None:
            index = {}
            for file in files:
                entry = self._entry(file)
                own = self.module_file(file) if entry is not None and entry[1].imports else None
                if entry is None or own is None:
                    continue
                package = file.endswith("__init__.py")
                for target in {resolve(own[1], package, d, m) for d, m in entry[1].imports}:
                    index.setdefault(target, []).append(file)
            self._by_module[key] = index
        return index.get(module, [])

    # -- what one file's lint reads ----------------------------------------------------------
    def for_file(
        self,
        path: str,
        defines: bool,
        *,
        texts: bool = True,
        imports: Tuple[Tuple[str, str], ...] = (),
        bases: Tuple[Tuple[str, str], ...] = (),
    ) -> FileProject:
        """The :class:`FileProject` of the file at `path` (``defines``: it has a top-level
        def; without one nothing can be a helper; ``imports``: its `FileFacts.imports`, the
        `from` lines of a file holding a hybrid_forward; ``bases``: its `FileFacts.bases`, those
        of another file importing its classes' bases). With ``texts`` the importers' and
        definitions' texts are loaded (read if need be: their digests are then those of the
        bytes read); without, only their digests are known (enough for a cache key)."""
        where = self.module_file(path) if defines or imports or bases else None
        if where is None:
            return NO_PROJECT
        root, module = where
        own = os.path.abspath(path)
        definitions = self._definitions(root, module, own, imports or bases, texts)
        if not defines:
            return FileProject(module, definitions=definitions)
        files = [f for f in self._importers_of(root, module) if f != own]
        for _ in range(3):  # an importer that changed since it was looked up: index again
            if not texts or not any([self._load(f) for f in files]):
                break
            self._by_module.clear()
            files = [f for f in self._importers_of(root, module) if f != own]
        importers = []
        for file in files:
            entry = self._known.get(file)
            own_module = self.module_file(file)
            if entry is None or own_module is None:
                continue
            text = self._text(file) if texts else None
            package = file.endswith("__init__.py")
            importers.append(Importer(file, own_module[1], package, entry[0], text))
        return FileProject(module, tuple(importers), definitions=definitions)

    def _definitions(
        self,
        root: str,
        module: str,
        own: str,
        imports: Tuple[Tuple[str, str], ...],
        texts: bool,
    ) -> Tuple[Definitions, ...]:
        """The project modules a file imports names from (`from .common import f`, `from
        pkg.common import f` within its own tree): the files under `root` they resolve to,
        at most ``MAX_DEFINITIONS``, each with its digest (and text with ``texts``)."""
        package = own.endswith("__init__.py")
        found: List[Definitions] = []
        for target in sorted({resolve(module, package, d, m) for d, m in imports if m}):
            file = self._module_path(root, target)
            if file is None or file == own:
                continue
            if texts:
                read = self._definition_text(file)
                if read is not None:
                    found.append(Definitions(file, target, *read))
            else:
                entry = self._entry(file)
                if entry is not None:
                    found.append(Definitions(file, target, entry[0]))
            if len(found) == MAX_DEFINITIONS:
                break
        return tuple(found)

    def _module_path(self, root: str, module: str) -> Optional[str]:
        """The file of a qualified module under `root` (`a.b` -> `root/a/b.py`, else
        `root/a/b/__init__.py`), None when there is none."""
        base = os.path.join(root, *module.split("."))
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
        return None

    def _definition_text(self, path: str) -> Optional[Tuple[str, Optional[str]]]:
        """(digest, text) of a definitions module, read once per run (None: unreadable; the
        text is None for a file larger than ``MAX_INDEXED_BYTES`` or not UTF-8)."""
        if path not in self._definition_texts:
            try:
                with open(path, "rb") as handle:
                    raw = handle.read()
            except OSError:
                self._definition_texts[path] = None
            else:
                text = importer_text(raw) if len(raw) <= MAX_INDEXED_BYTES else None
                self._definition_texts[path] = (digest_of(raw), text)
        return self._definition_texts[path]

    def for_source(self, source: str, path: str) -> FileProject:
        """:meth:`for_file` for a text at hand (the file's own bytes are not read)."""
        text = universal_newlines(source)
        return self.for_file(
            path,
            bool(_TOP_DEF.search(source)),
            imports=imports_of(text),
            bases=base_imports_of(text),
        )

    def _text(self, path: str) -> Optional[str]:
        if path not in self._texts:
            raw = self._raw.get(path)
            self._texts[path] = importer_text(raw) if raw is not None else None
        return self._texts[path]
