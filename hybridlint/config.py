"""``[tool.hybridlint]`` configuration: finding it, validating it, and what it means per file.

The configuration is found as ruff finds its own: in each directory from the linted paths
upward, the first of ``.hybridlint.toml``, ``hybridlint.toml`` (the table's keys at top level:
``select = [...]``, ``[examples]``) and a ``pyproject.toml`` that has a ``[tool.hybridlint]``
table; its directory is the project root (where relative globs and the cache live).
Validation is strict and happens before anything is linted: an unknown key, a wrong type or a
malformed rule code is one :class:`ConfigError` naming the file and the key, never a traceback
and never a silently ignored setting.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import (
    Any,
    Callable,
    Dict,
    FrozenSet,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
)

from .project import OPAQUE, Constructions, ExampleInputs

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.9/3.10 only
    import tomli as tomllib

CONFIG_FILE = "pyproject.toml"
# files of hybridlint's own, checked before pyproject.toml in each directory (ruff's order)
OWN_CONFIG_FILES = (".hybridlint.toml", "hybridlint.toml")
CONFIG_FILES = OWN_CONFIG_FILES + (CONFIG_FILE,)

DEFAULT_EXCLUDE: Tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".hg",
    ".hybridlint_cache",
    ".mypy_cache",
    ".nox",
    ".pytype",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pycache__",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)

_CODE_RE = re.compile(r"^(ALL|HL\d{0,3})$")

_LIST_KEYS = ("select", "ignore", "extend-select", "exclude", "extend-exclude")
_KNOWN_KEYS = frozenset(
    _LIST_KEYS + ("per-file-ignores", "examples", "line-length", "infer-examples")
)
# Where the fixer's line length comes from when [tool.hybridlint] has none, in order: the
# project's formatter settings, as ruff/black users expect; else black's default.
_BORROWED_LINE_LENGTH = ("ruff", "black")
DEFAULT_LINE_LENGTH = 88


class ConfigError(Exception):
    """Invalid configuration or rule selection; the CLI prints it on one line and exits 2."""


@dataclass(frozen=True)
class Config:
    """The validated ``[tool.hybridlint]`` table (defaults when there is none)."""

    root: str
    path: Optional[str] = None
    select: Optional[Tuple[str, ...]] = None
    ignore: Tuple[str, ...] = ()
    extend_select: Tuple[str, ...] = ()
    per_file_ignores: Tuple[Tuple[str, Tuple[str, ...]], ...] = ()
    exclude: Tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: Tuple[str, ...] = ()
    # Verification examples are data for the checker, passed through untouched:
    # {"path/to/model.py::ClassName": {"inputs": ["1x3x32x32"], ...}}.
    examples: Mapping[str, Any] = field(default_factory=dict)
    # --fix breaks the lines its rewrites make longer than this (hybridlint/wrap.py)
    line_length: int = DEFAULT_LINE_LENGTH
    # --verify on a file without examples runs the blocks it can build on inputs inferred
    # from the code (checker/inferred.py); `infer-examples = false` checks expressions only
    infer_examples: bool = True

    @property
    def all_excludes(self) -> Tuple[str, ...]:
        return self.exclude + self.extend_exclude

    def constructions_for(self, path: str) -> Constructions:
        """How the configured examples of the file at ``path`` build its blocks: (class name,
        its constructor keyword arguments as sorted (name, value) pairs), one per example.
        The linter reads them as the file's configuration (a block the examples build with
        ``fixed_size = false`` takes its dynamic-size branch), so they are part of what a
        file's result depends on (``FileProject.constructions``)."""
        return self._of_file(self._constructions, path)

    def example_inputs_for(self, path: str) -> ExampleInputs:
        """What the configured examples of the file at ``path`` pass its blocks: (class name,
        one (kind, shown value) per positional input), one per example (``input_kind``). HL018
        reports what they prove (a Python int an example passes makes the hybridized call
        fail), so they are part of what a file's result depends on too."""
        return self._of_file(self._example_inputs, path)

    def _of_file(self, table: Dict[str, Any], path: str) -> Any:
        if not table:
            return ()
        try:
            return table.get(self.relpath(path), ())
        except ValueError:  # Windows: a path on another drive than the root has no relpath
            return ()

    def _example_entries(self) -> Iterator[Tuple[str, str, Mapping]]:
        """(file, class name, example table) of each well-formed key of the examples, in
        order (an entry that is no table as an empty one: numbered as --verify numbers)."""
        for key, value in self.examples.items():
            path, sep, name = str(key).rpartition("::")
            if not sep or not path or not name.isidentifier():
                continue  # malformed: --verify says so (examples_from_config); lint reads none
            file = os.path.normpath(path).replace(os.sep, "/")
            for entry in value if isinstance(value, list) else [value]:
                yield file, name, entry if isinstance(entry, Mapping) else {}

    @cached_property
    def _constructions(self) -> Dict[str, Constructions]:
        table: Dict[str, List[Tuple[str, Tuple[Tuple[str, Any], ...]]]] = {}
        for file, name, entry in self._example_entries():
            kwargs = entry.get("kwargs", {})
            if entry and isinstance(kwargs, Mapping):
                for built, given in [(name, kwargs), *_children(kwargs)]:
                    if "." in built:
                        continue  # `gluon.rnn.LSTMCell`: no class of the file
                    pairs = tuple(sorted((str(k), _literal(v)) for k, v in given.items()))
                    table.setdefault(file, []).append((built, pairs))
        return {file: tuple(built) for file, built in table.items()}

    @cached_property
    def _example_inputs(self) -> Dict[str, ExampleInputs]:
        table: Dict[str, List[Tuple[str, Tuple[Tuple[str, str], ...]]]] = {}
        for file, name, entry in self._example_entries():
            inputs = entry.get("inputs")  # a malformed one keeps its place: #k as --verify counts
            kinds = tuple(map(input_kind, inputs)) if isinstance(inputs, list) else ()
            table.setdefault(file, []).append((name, kinds))
        return {file: tuple(given) for file, given in table.items()}

    def relpath(self, path: str) -> str:
        """``path`` relative to the project root, with forward slashes (for globs)."""
        rel = os.path.relpath(os.path.abspath(path), self.root)
        return rel.replace(os.sep, "/")

    @cached_property
    def _exclude_matcher(self) -> "_GlobMatcher":
        return _GlobMatcher(self.all_excludes)

    @cached_property
    def _ignore_matchers(self) -> Tuple[Tuple["_GlobMatcher", Tuple[str, ...]], ...]:
        return tuple((_GlobMatcher((pattern,)), codes) for pattern, codes in self.per_file_ignores)

    def is_excluded(self, path: str) -> bool:
        """Whether ``path`` or one of its directories below the root matches an exclude glob."""
        rel = self.relpath(path)
        if rel.startswith("../") or rel == "..":  # outside the root: judge by the name alone
            return self._exclude_matcher.matches_name(os.path.basename(os.path.abspath(path)))
        return self._exclude_matcher.matches_parts(rel.split("/"))

    def is_excluded_entry(self, parent_rel: Optional[str], name: str) -> bool:
        """The walk's fast check for one entry whose parent directory is known not excluded.

        ``parent_rel`` is the parent's path relative to the root ("" for the root itself, None
        when the walk is outside the root).
        """
        matcher = self._exclude_matcher
        if matcher.matches_name(name):
            return True
        if parent_rel is None or not matcher.has_path_globs:
            return False
        return matcher.matches_rel(f"{parent_rel}/{name}" if parent_rel else name)

    def check_known(self, all_codes: Iterable[str]) -> None:
        """Raise :class:`ConfigError` naming the file and the glob for a ``per-file-ignores``
        code that matches no rule."""
        codes = list(all_codes)
        for pattern, pattern_codes in self.per_file_ignores:
            for code in pattern_codes:
                if not _matching(code, codes):
                    raise ConfigError(
                        f"{self.path or '[tool.hybridlint]'}: per-file-ignores.{pattern!r}: "
                        f"unknown rule code {code!r} (run `hybridlint rules` for the list)"
                    )

    def ignores_for(self, path: str) -> Tuple[str, ...]:
        """The extra codes ``per-file-ignores`` switches off for ``path``."""
        if not self.per_file_ignores:
            return ()
        parts = self.relpath(path).split("/")
        codes: list = []
        for matcher, pattern_codes in self._ignore_matchers:
            if matcher.matches_parts(parts):
                codes.extend(pattern_codes)
        return tuple(codes)


class _GlobMatcher:
    """Globs compiled once (exclude, per-file-ignores): a walk checks thousands of entries.

    A pattern without ``/`` matches any single path component (``build``, ``*_pb2.py``); a
    pattern with ``/`` matches the path relative to the root, or one of its leading directories
    (``src/legacy`` excludes everything below it).
    """

    def __init__(self, patterns: Iterable[str]):
        literal, name_globs, path_globs = set(), [], []
        for raw in patterns:
            pattern = raw.strip()
            if "/" not in pattern.rstrip("/"):
                name = pattern.rstrip("/")
                if any(ch in name for ch in "*?["):
                    name_globs.append(fnmatch.translate(name))
                else:
                    literal.add(name)
            else:
                pattern = pattern.strip("/")
                path_globs.append(
                    fnmatch.translate(pattern[2:] if pattern.startswith("./") else pattern)
                )
        self._literal = frozenset(literal)
        self._name_re = re.compile("|".join(name_globs)) if name_globs else None
        self._path_re = re.compile("|".join(path_globs)) if path_globs else None
        self.has_path_globs = self._path_re is not None

    def matches_name(self, name: str) -> bool:
        return name in self._literal or bool(self._name_re and self._name_re.match(name))

    def matches_rel(self, rel: str) -> bool:
        return bool(self._path_re and self._path_re.match(rel))

    def matches_parts(self, parts: Sequence[str]) -> bool:
        if any(self.matches_name(part) for part in parts):
            return True
        return any(self.matches_rel("/".join(parts[:i])) for i in range(1, len(parts) + 1))


def find_config_file(paths: Iterable[str]) -> Optional[str]:
    """The nearest configuration above the paths: in each directory the first of
    ``.hybridlint.toml``, ``hybridlint.toml`` and a ``pyproject.toml`` with a
    ``[tool.hybridlint]`` table.

    The search starts at the deepest directory containing all the paths, so linting one
    sub-package of a monorepo uses that sub-package's configuration.
    """
    start = _common_directory(paths)
    directory = start
    while True:
        for name in OWN_CONFIG_FILES:
            candidate = os.path.join(directory, name)
            if os.path.isfile(candidate):
                return candidate
        candidate = os.path.join(directory, CONFIG_FILE)
        if os.path.isfile(candidate) and "hybridlint" in _read_toml(candidate).get("tool", {}):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def is_own_config(config_file: str) -> bool:
    """A ``hybridlint.toml`` or ``.hybridlint.toml`` (keys at top level), not a pyproject."""
    return os.path.basename(config_file) in OWN_CONFIG_FILES


def tool_table(config_file: str) -> Dict[str, Any]:
    """The configuration table of a file: the whole of a ``hybridlint.toml``, the
    ``[tool.hybridlint]`` table of a ``pyproject.toml`` (empty when it has none);
    unreadable or invalid TOML raises ConfigError."""
    data = _read_toml(config_file)
    if is_own_config(config_file):
        return data
    table = data.get("tool", {}).get("hybridlint", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{config_file}: [tool.hybridlint] must be a table")
    return table


def find_project_root(paths: Iterable[str]) -> str:
    """Where a project without configuration keeps its cache: the nearest directory with a
    configuration file (``pyproject.toml``, ``hybridlint.toml``) or ``.git``, else the
    current directory."""
    directory = _common_directory(paths)
    while True:
        if any(os.path.exists(os.path.join(directory, m)) for m in (*CONFIG_FILES, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return os.getcwd()
        directory = parent


def _common_directory(paths: Iterable[str]) -> str:
    absolute = [os.path.abspath(p) for p in paths] or [os.getcwd()]
    dirs = [p if os.path.isdir(p) else os.path.dirname(p) for p in absolute]
    try:
        return os.path.commonpath(dirs)
    except ValueError:  # different drives on Windows
        return os.getcwd()


def _read_toml(path: str) -> Dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8: {exc}") from exc


def load_config(paths: Sequence[str], config_file: Optional[str] = None) -> Config:
    """Find (or read the given) configuration for ``paths`` and validate it."""
    if config_file is not None:
        if not os.path.isfile(config_file):
            raise ConfigError(f"{config_file}: no such configuration file")
        config_file = os.path.abspath(config_file)
        if not is_own_config(config_file) and "hybridlint" not in _read_toml(config_file).get(
            "tool", {}
        ):
            raise ConfigError(f"{config_file}: has no [tool.hybridlint] table")
        return _parse_file(config_file)
    found = find_config_file(paths)
    if found is None:
        nearest = _nearest_pyproject(paths)
        tools = _read_toml(nearest).get("tool", {}) if nearest else {}
        return Config(
            root=find_project_root(paths),
            line_length=borrowed_line_length(tools, nearest or CONFIG_FILE),
        )
    return _parse_file(found)


def _parse_file(config_file: str) -> Config:
    """The Config of a configuration file; a ``hybridlint.toml`` borrows ruff's or black's
    line length from the pyproject.toml beside it, as the table of that pyproject would."""
    root = os.path.dirname(config_file)
    if is_own_config(config_file):
        beside = os.path.join(root, CONFIG_FILE)
        tools = _read_toml(beside).get("tool", {}) if os.path.isfile(beside) else {}
        return parse_table(tool_table(config_file), root=root, path=config_file, tools=tools)
    data = _read_toml(config_file)
    return parse_table(
        data["tool"]["hybridlint"], root=root, path=config_file, tools=data.get("tool", {})
    )


def _nearest_pyproject(paths: Iterable[str]) -> Optional[str]:
    """The nearest ``pyproject.toml`` above the paths (any tables), for ruff/black settings."""
    directory = _common_directory(paths)
    while True:
        candidate = os.path.join(directory, CONFIG_FILE)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _line_length(value: Any, where: str) -> int:
    # bool is an int in Python; `line-length = true` is a mistake, not 1
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigError(f"{where} must be a positive integer, got {value!r}")
    return value


def borrowed_line_length(tools: Any, where: str) -> int:
    """``[tool.ruff] line-length``, else ``[tool.black] line-length``, else 88 (black's
    default): the limit the project's formatter enforces when hybridlint sets none."""
    if not isinstance(tools, dict):
        return DEFAULT_LINE_LENGTH
    for tool in _BORROWED_LINE_LENGTH:
        table = tools.get(tool)
        if isinstance(table, dict) and "line-length" in table:
            return _line_length(table["line-length"], f"{where}: [tool.{tool}] line-length")
    return DEFAULT_LINE_LENGTH


def parse_table(
    table: Any, *, root: str, path: Optional[str] = None, tools: Optional[Mapping[str, Any]] = None
) -> Config:
    """Validate a ``[tool.hybridlint]`` table into a :class:`Config`; ``tools`` is the file's
    whole ``[tool]`` table, where ruff's or black's line length is read when the table has
    no ``line-length``."""
    where = path or "[tool.hybridlint]"
    own = path is not None and is_own_config(path)
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [tool.hybridlint] must be a table")
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        known = ", ".join(sorted(_KNOWN_KEYS))
        if own and unknown == ["tool"]:
            raise ConfigError(
                f"{where}: the settings of a {os.path.basename(where)} are top-level keys "
                "(select = [...], [examples]), without [tool.hybridlint]"
            )
        inside = "" if own else " in [tool.hybridlint]"
        raise ConfigError(f"{where}: unknown key {unknown[0]!r}{inside} (known: {known})")
    values: Dict[str, Any] = {}
    for key in _LIST_KEYS:
        if key in table:
            items = _string_list(table[key], where, key)
            if key in ("select", "ignore", "extend-select"):
                items = validate_codes(items, f"{where}: {key}")
            if key == "select" and not items:  # would enable no rule: every run would pass
                raise ConfigError(
                    f"{where}: select is empty (remove it to enable every "
                    'rule, or list codes such as "HL0")'
                )
            values[key] = tuple(items)
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}: per-file-ignores must be a table of glob = [codes]")
    per_file_ignores = tuple(
        (
            glob,
            tuple(
                validate_codes(
                    _string_list(codes, where, f"per-file-ignores.{glob!r}"),
                    f"{where}: per-file-ignores.{glob!r}",
                )
            ),
        )
        for glob, codes in per_file.items()
    )
    examples = table.get("examples", {})
    if not isinstance(examples, dict) or not all(
        isinstance(v, dict) or (isinstance(v, list) and all(isinstance(e, dict) for e in v))
        for v in examples.values()
    ):  # the checker validates the contents (examples_from_config) when it is used
        raise ConfigError(
            f'{where}: examples must be a table of "path.py::Class" = {{ inputs = [...] }}'
            " (or a list of such tables)"
        )
    if "line-length" in table:
        line_length = _line_length(table["line-length"], f"{where}: line-length")
    else:
        line_length = borrowed_line_length(tools or {}, where)
    infer_examples = table.get("infer-examples", True)
    if not isinstance(infer_examples, bool):
        raise ConfigError(f"{where}: infer-examples must be true or false, got {infer_examples!r}")
    return Config(
        root=root,
        path=path,
        line_length=line_length,
        select=values.get("select"),
        ignore=values.get("ignore", ()),
        extend_select=values.get("extend-select", ()),
        per_file_ignores=per_file_ignores,
        exclude=values.get("exclude", DEFAULT_EXCLUDE),
        extend_exclude=values.get("extend-exclude", ()),
        examples=examples,
        infer_examples=infer_examples,
    )


# The tables an example's `kwargs` spell what TOML cannot (README, *kwargs*): one definition
# for the linter (`_literal`) and the checker (checker/inputs.py `config_kwargs`).
def is_none_table(value: Any) -> bool:
    """`{ none = true }`: None."""
    return isinstance(value, Mapping) and dict(value) == {"none": True}


def is_block_table(value: Any) -> bool:
    """`{ block = "Name", kwargs = {...} }`: a child block built for the example."""
    return isinstance(value, Mapping) and "block" in value and set(value) <= {"block", "kwargs"}


def is_class_table(value: Any) -> bool:
    """`{ class = "nn.BatchNorm" }`: that class (or function) itself, not called: a
    constructor argument such as `norm_layer` that the block calls itself."""
    return isinstance(value, Mapping) and set(value) == {"class"}


def is_numpy_table(value: Any) -> bool:
    """`{ numpy = [...], dtype = "float64" }`: a numpy array."""
    return isinstance(value, Mapping) and "numpy" in value and set(value) <= {"numpy", "dtype"}


_PYTHON_INPUT_KEYS: Dict[str, type] = {"int": int, "float": float, "bool": bool, "str": str}


def input_kind(value: Any) -> Tuple[str, str]:
    """One configured example input as HL018 reads it: ("none", "None"), (the Python type,
    the value shown) for a value a hybridized block refuses as an input (`{ int = 12 }`, a
    bare float or bool; the first such value inside `{ list = [...] }` or a list of inputs),
    else ("arrays", "") for a list or tuple of arrays, ("array", "") for anything else (a
    shape, an array table; what the checker cannot read either, which --verify reports)."""
    if is_none_table(value):
        return ("none", "None")
    if isinstance(value, bool):
        return ("bool", repr(value))
    if isinstance(value, float):
        return ("float", repr(value))
    if isinstance(value, Mapping):
        for key, kind in _PYTHON_INPUT_KEYS.items():
            if key in value and len(value) == 1:
                item = value[key]
                ok = isinstance(item, kind) and (kind is bool or not isinstance(item, bool))
                ok = ok or (kind is float and type(item) is int)
                # a value the checker refuses (`{ int = true }`) makes the example invalid,
                # which --verify reports: it proves nothing here
                return (key, repr(item)) if ok else ("array", "")
        items = value.get("list", value.get("tuple")) if len(value) == 1 else None
        return _first_python_value(items) if isinstance(items, list) else ("array", "")
    if isinstance(value, list) and not all(
        isinstance(d, int) and not isinstance(d, bool) for d in value
    ):
        return _first_python_value(value)  # a list of inputs (a list of ints is a shape)
    return ("array", "")


def _first_python_value(items: List[Any]) -> Tuple[str, str]:
    """The first Python value of a list input, its kind marked as inside one (`int in a
    list`): HL018 reports it, but the input itself is no number. ("arrays", "") without one."""
    for item in items:
        kind, shown = input_kind(item)
        if kind not in ("array", "arrays", "none"):
            return (kind if kind.endswith(" in a list") else kind + " in a list"), shown
    return ("arrays", "")


def _literal(value: Any) -> Any:
    """A configured constructor argument as the linter's analysis reads it (hashable, the
    truth and None-ness of the value the checker would pass): `{ none = true }` is None, a
    list a tuple, a child block a marker that is neither None nor false (a block), a numpy
    array `OPAQUE`."""
    if is_none_table(value):
        return None
    if is_block_table(value):
        return ("<block>", str(value["block"]))
    if is_class_table(value):
        return ("<class>", str(value["class"]))
    if is_numpy_table(value):
        return OPAQUE
    if isinstance(value, Mapping):
        return tuple(sorted((str(k), _literal(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_literal(v) for v in value)
    return value


def _children(kwargs: Mapping[str, Any]) -> Iterable[Tuple[str, Mapping[str, Any]]]:
    """(name, kwargs) of every child block an example's kwargs build, at any depth: each is a
    construction of its block too."""
    for value in kwargs.values():
        items = value if isinstance(value, list) else [value]
        for item in items:
            if is_block_table(item) and isinstance(item.get("kwargs", {}), Mapping):
                yield str(item["block"]), item.get("kwargs", {})
                yield from _children(item.get("kwargs", {}))
            elif isinstance(item, Mapping) and not is_block_table(item):
                yield from _children(item)


def _string_list(value: Any, where: str, key: str) -> list:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: {key} must be a list of strings, got {value!r}")
    return value


def validate_codes(codes: Iterable[str], where: str) -> list:
    """Upper-case and check rule codes/prefixes (``HL003``, ``HL0``, ``ALL``)."""
    result = []
    for code in codes:
        normal = code.strip().upper()
        if not _CODE_RE.match(normal):
            raise ConfigError(
                f"{where}: {code!r} is not a rule code or prefix (expected e.g. HL003, HL0 or ALL)"
            )
        result.append(normal)
    return result


def split_codes(option_value: Optional[str], where: str) -> Optional[list]:
    """Parse a comma-separated ``--select HL001,HL0`` option (None when not given)."""
    if option_value is None:
        return None
    parts = [p for p in (s.strip() for s in option_value.split(",")) if p]
    if not parts:  # `--select ""` (an unset CI variable) must not select nothing and pass
        raise ConfigError(
            f"{where}: empty list of codes (give codes or prefixes such as HL003,HL0, or ALL)"
        )
    return validate_codes(parts, where)


# Rules off by default (README's rule table says which and why): their findings are right only
# for some callers of the code they read, below the precision the default selection keeps
# (issue 21: >= 97% on every real-world package), so a project opts in by naming the code:
# `--select HL016`, `--extend-select HL016`, or `extend-select = ["HL016"]` in its
# configuration. A prefix or `ALL` leaves them off. A constant here, not a rule attribute, so
# that resolving the selection never imports the rules (a cached run does not load LibCST).
DEFAULT_OFF: FrozenSet[str] = frozenset({"HL016", "HL017", "HL018"})
# Default-off rules that still report, on the blocks a configured example builds, what those
# examples prove: where a selection would enable the code but for its being off by default
# (the default selection, a prefix, ALL), the run selects `CODE:examples`
# (:meth:`RuleSelection.examples_only`), and the rule reports only example-proven findings.
EXAMPLE_PROVEN: FrozenSet[str] = frozenset({"HL017", "HL018"})
EXAMPLES_ONLY = ":examples"


@dataclass(frozen=True)
class RuleSelection:
    """Which rule codes are on, as layers applied in order: configuration, then command line.

    Each layer is ``(select, extend_select, ignore)``. A layer's ``select`` (when given)
    replaces everything enabled so far, ``extend_select`` adds, ``ignore`` removes. So
    ``--select`` on the command line overrides the configured selection entirely, while
    ``--ignore``/``--extend-select`` adjust it. Prefixes match by ``startswith``; ``ALL``
    matches every code.

    The codes of :data:`DEFAULT_OFF` are off until a ``select`` or ``extend-select`` names
    them by their exact code: a prefix or ``ALL`` does not turn them on (``ignore`` by prefix
    still turns them off).
    """

    layers: Tuple[Tuple[Optional[Tuple[str, ...]], Tuple[str, ...], Tuple[str, ...]], ...] = ()
    # where each layer comes from, for error messages: (file or None for the command line)
    origins: Tuple[Optional[str], ...] = ()

    @classmethod
    def build(cls, config: Config, select=None, extend_select=None, ignore=None) -> "RuleSelection":
        config_layer = (config.select, tuple(config.extend_select), tuple(config.ignore))
        cli_layer = (
            tuple(select) if select is not None else None,
            tuple(extend_select or ()),
            tuple(ignore or ()),
        )
        return cls(layers=(config_layer, cli_layer), origins=(config.path or "configuration", None))

    def key(self) -> str:
        """A stable text form, part of the cache key."""
        return repr(self.layers)

    def check_known(self, all_codes: Iterable[str]) -> None:
        """Raise :class:`ConfigError` for a code or prefix that names no rule."""
        codes = list(all_codes)
        for index, (select, extend, ignore) in enumerate(self.layers):
            origin = self.origins[index] if index < len(self.origins) else None
            for key, items in (
                ("select", select or ()),
                ("extend-select", extend),
                ("ignore", ignore),
            ):
                for item in items:
                    if _matching(item, codes):
                        continue
                    where = (
                        f"{origin}: {key}: " if origin else (f"--{key}: " if self.origins else "")
                    )
                    raise ConfigError(
                        f"{where}unknown rule code {item!r} (run `hybridlint rules` for the list)"
                    )

    def enabled(self, all_codes: Iterable[str], extra_ignore: Iterable[str] = ()) -> frozenset:
        """The enabled codes among ``all_codes``, after ``extra_ignore`` (per-file-ignores)."""
        codes = list(all_codes)
        return frozenset(self._layered(codes, set(codes) - DEFAULT_OFF, _selecting, extra_ignore))

    def examples_only(
        self, all_codes: Iterable[str], extra_ignore: Iterable[str] = ()
    ) -> frozenset:
        """The selection items ``CODE:examples`` for the :data:`EXAMPLE_PROVEN` codes this
        selection leaves off only because they are off by default: a ``select`` by prefix or
        the default selection covers them, no ``ignore`` removes them."""
        codes = [code for code in all_codes if code in EXAMPLE_PROVEN]
        covered = self._layered(codes, set(codes), _matching, extra_ignore)
        covered -= self.enabled(codes, extra_ignore)
        return frozenset(code + EXAMPLES_ONLY for code in covered)

    def _layered(
        self,
        codes: List[str],
        enabled: set,
        selecting: Callable[[str, Sequence[str]], set],
        extra_ignore: Iterable[str],
    ) -> set:
        """``enabled`` after each layer (``selecting`` what a select item turns on), then
        ``extra_ignore``."""
        for select, extend, ignore in self.layers:
            if select is not None:
                enabled = set().union(*(selecting(s, codes) for s in select))
            enabled |= set().union(*(selecting(s, codes) for s in extend))
            enabled -= set().union(*(_matching(s, codes) for s in ignore))
        return enabled - set().union(*(_matching(s, codes) for s in extra_ignore))


def _selecting(prefix: str, codes: Sequence[str]) -> set:
    """The codes a ``select``/``extend-select`` item turns on: a default-off code only when
    the item is that very code."""
    return {code for code in _matching(prefix, codes) if code not in DEFAULT_OFF or code == prefix}


def _matching(prefix: str, codes: Sequence[str]) -> set:
    if prefix == "ALL":
        return set(codes)
    return {code for code in codes if code.startswith(prefix)}
