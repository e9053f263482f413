"""Running the linter over many files: pre-filter, cache, parallel workers, fixes, --verify.

Data flows one way, each file once through each step (docs/architecture.md, "The product
surface"): discover (discovery.py) -> read (HL902 on failure) and content-hash cache lookup ->
decode (HL901) -> lint or fix in a worker (Python's own parser first: HL900 when it rejects the
file, a syntax error, a truncated file, 200 nested brackets, a parser out of memory; checked
for every file, before LibCST ever sees it, since LibCST crashes on some of what CPython
rejects; then the ``may_contain_hybrid_code`` text pre-filter: a file without hybrid code has
no findings) -> verify (``--verify``: the checker starts from the worker's fix, it does not fix
the file again) -> write or diff -> a :class:`~hybridlint.ftypes.FileOutcome` for the
reporters. What a run decides once (the rule codes it knows, the codes enabled per
per-file-ignores combination, the parsed examples table) is resolved before the first file
(:class:`_Plan`).

HL900–HL903 are reported whatever the rule selection: a gate must not pass a file it could
not read or parse (ruff reports E902 the same way). Files needing real work are linted in a
:class:`concurrent.futures.ProcessPoolExecutor`; a small run is linted in this process because
starting workers would cost more than it saves. The linter core (and with it LibCST) is
imported only when some file actually needs linting, which keeps a fully cached run, and a
cold one over files without hybrid code, cheap.
The data types (Finding, WorkResult, VerifiedFile, FileOutcome, RunResult) live in
hybridlint/ftypes.py; ``Issue``, ``FileOutcome``, ``RunResult`` and ``RUNNER_CODES`` are
importable from here too.
"""

from __future__ import annotations

import ast
import contextlib
import difflib
import gc
import importlib.util
import os
import re
import sys
from dataclasses import dataclass, field, replace
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
)

from .cache import LintCache, result_key, signature_of
from .config import Config, RuleSelection
from .discovery import discover
from .files import (
    SourceDecodeError,
    SourceFile,
    SourceReadError,
    SourceWriteError,
    decode_source,
    encode_source,
    lf_to_cr,
    lone_cr_to_lf,
    read_bytes_and_identity,
    remove_stale_temp_files,
    write_source,
)
from .ftypes import RUNNER_CODES, FileOutcome, Finding, Issue, RunResult, VerifiedFile, WorkResult
from .project import NO_PROJECT, FileFacts, FileProject, Project, digest_of, facts_of

if TYPE_CHECKING:  # imported where used: a cached run starts no worker and writes no diff
    from concurrent.futures import ProcessPoolExecutor

__all__ = [
    "RUNNER_CODES",
    "FileOutcome",
    "Finding",
    "Issue",
    "RunOptions",
    "RunResult",
    "all_rule_codes",
    "default_jobs",
    "diff_bytes",
    "run",
    "run_stdin",
    "unified_diff",
]

SERIAL_MAX_BYTES = 150_000  # below this much text to lint, workers cost more than they save
_LINE_SPLIT = re.compile(r"\r\n|\r|\n")


@dataclass
class RunOptions:
    """Everything a run needs besides the paths."""

    config: Config
    selection: RuleSelection = field(default_factory=RuleSelection)
    fix: bool = False
    diff: bool = False
    unsafe_fixes: bool = False
    verify: bool = False
    backend: str = "engine"  # --verify: the checker's backend and per-job time limit
    timeout: Optional[float] = None
    jobs: int = 0  # 0 = number of cores
    use_cache: bool = True
    # Called as progress(done, total) while files are linted (not for cached or skipped ones).
    progress: Optional[Callable[[int, int], Any]] = None
    # --verify: the parsed [tool.hybridlint.examples] (checker_bridge.examples_table: path
    # relative to the project root -> examples); None: run() parses config.examples once
    examples: Optional[Mapping[str, Sequence[Any]]] = None
    # --format json/sarif: each fixable finding carries its fix alone as edits (a fix_source
    # run per fixable finding; not under --verify, whose findings are the checker's)
    fix_edits: bool = False


# A rule's module is named for its code: `rules/hl003_tensor_indexing.py`, `rules/hl001/`.
_RULE_MODULE = re.compile(r"^hl(\d{3})(?:_\w+)?(?:\.py)?$")


def all_rule_codes() -> List[str]:
    """Every code a run can report: the rules' codes and the runner's HL9xx codes.

    The rules' codes are read from their modules' names, without importing them: resolving
    the selection must not load the rules (and LibCST, numpy) before any file needs linting,
    so that a run over files without hybrid code costs next to nothing, cached or not. A test
    holds the names to the codes the rule classes declare."""
    from .suppression import CODE

    spec = importlib.util.find_spec("hybridlint.rules")
    names: List[str] = []
    for folder in (spec.submodule_search_locations or []) if spec else []:
        names.extend(os.listdir(folder))
    rules = {f"HL{m.group(1)}" for m in map(_RULE_MODULE.match, names) if m}
    return sorted(rules | set(RUNNER_CODES) | {CODE})


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class _Plan:
    """What a run resolves once, before the first file: the codes it knows (checked against
    the selection and per-file-ignores), the rule codes enabled for each per-file-ignores
    combination (the runner's HL9xx codes are always on), the examples table (--verify) and
    what each worker is asked to do."""

    def __init__(self, options: RunOptions, codes: Sequence[str]):
        options.selection.check_known(codes)
        options.config.check_known(codes)
        self.options = options
        self.codes = list(codes)
        self._rule_codes: Dict[Tuple[str, ...], Tuple[str, ...]] = {}
        self.examples: Mapping[str, Sequence[Any]] = {}
        if options.verify:
            if options.examples is None:
                from .checker_bridge import examples_table

                options.examples = examples_table(options.config)
            self.examples = options.examples

    def rule_codes(self, extra_ignore: Tuple[str, ...]) -> Tuple[str, ...]:
        """The rule codes to run on a file with these per-file-ignores, sorted."""
        if extra_ignore not in self._rule_codes:
            selection = self.options.selection
            enabled = selection.enabled(self.codes, extra_ignore)
            enabled |= selection.examples_only(self.codes, extra_ignore)
            self._rule_codes[extra_ignore] = tuple(
                sorted(c for c in enabled if c not in RUNNER_CODES)
            )
        return self._rule_codes[extra_ignore]

    def with_examples(self, path: str, project: FileProject) -> FileProject:
        """``project`` with the constructions and inputs of the file's configured examples
        (the file's configuration for the analysis: ``Config.constructions_for``; what HL018
        reads: ``Config.example_inputs_for``)."""
        config = self.options.config
        constructions, inputs = config.constructions_for(path), config.example_inputs_for(path)
        if not constructions and not inputs:
            return project
        return replace(project, constructions=constructions, example_inputs=inputs)

    def examples_for(self, path: str) -> List[Any]:
        """--verify: the configured examples of one file (keys relative to the root)."""
        return list(self.examples.get(self.options.config.relpath(path), ()))

    def mode(self, path: str) -> Tuple[bool, bool, Optional[int], bool, bool]:
        """What the worker does with a file: ``(fix, unsafe, line_length, for_checker,
        edits)``, ``edits``: compute each finding's fix edits (``RunOptions.fix_edits``).

        Under --verify the worker makes the checker's first fix of the file (every fix, safe
        and unsafe, when the file has examples; unwrapped: the checker proves the text its
        bookkeeping of lines sees, and the proven result is wrapped afterwards) and returns
        it whole, so that the checker starts from it instead of fixing again."""
        options = self.options
        if options.verify:
            unsafe = options.unsafe_fixes or bool(self.examples_for(path))
            return True, unsafe, None, True, False
        return (
            options.fix or options.diff,
            options.unsafe_fixes,
            options.config.line_length,
            False,
            options.fix_edits and not options.diff,
        )


class _Task(NamedTuple):
    """One file to lint, fix (and verify): settled up to the worker."""

    path: str
    source: SourceFile
    codes: Tuple[str, ...]  # rule codes to run (empty: no hybrid code, syntax check only)
    key: str  # the result's key in the cache
    mode: Tuple[bool, bool, Optional[int], bool, bool]  # _Plan.mode
    project: FileProject = NO_PROJECT  # what its lint reads from the rest of the project


# The cyclic garbage collector's thresholds while a run lints: LibCST trees, Python's ASTs and
# the analysis allocate millions of objects that live until their file is done, and Python's
# default (700, 10, 10) ran the collector over them so often that it took ~15% of a cold run
# (gluonts, --jobs 1); the peak memory grows by a few MB. Restored when the run returns.
_GC_THRESHOLDS = (20_000, 20, 100)


@contextlib.contextmanager
def _fewer_collections():
    previous = gc.get_threshold()
    gc.set_threshold(*_GC_THRESHOLDS)
    try:
        yield
    finally:
        gc.set_threshold(*previous)


def _missing_example_files(examples: Mapping[str, Any], config: Config) -> List[str]:
    """--verify: a configured example whose file does not exist (a typo, a moved file) would
    leave its block unverified without a word, and a failing block would pass: say so. With
    no examples at all only the blocks the code shows how to build run, on inputs inferred
    from it (checker/inferred.py; none with `infer-examples = false`); the other fixes are
    checked expression by expression, and a safe fix that check cannot run is applied
    unverified, as --fix applies it."""
    if not examples:
        ran = (
            "only blocks the code shows how to build (no arguments, a literal call, or "
            "arguments guessed from their stated types, names or uses) are run, on inputs "
            "inferred from the code; other fixes"
            if config.infer_examples
            else "no block is run (infer-examples = false); fixes"
        )
        return [
            f"--verify: no examples configured ([tool.hybridlint.examples]); {ran} "
            "are checked expression by expression, and safe ones no such check can run are "
            "applied unverified (README: What --verify proves)"
        ]
    return [
        f"{config.path}: examples for {key!r}: no such file under {config.root}; "
        "its blocks are not verified"
        for key in sorted(examples)
        if not os.path.isfile(os.path.join(config.root, key))
    ]


def run(paths: Sequence[str], options: RunOptions) -> RunResult:
    """Lint (or fix) ``paths``; see the module docstring for the pipeline."""
    with _fewer_collections():
        return _run(paths, options)


def _run(paths: Sequence[str], options: RunOptions) -> RunResult:
    config = options.config
    found = discover(paths, config)
    writing = options.fix or options.diff
    cache = LintCache(
        config.root, options.selection.key(), enabled=options.use_cache and not writing
    )
    warnings = [cache.warning] if cache.warning else []
    warnings += _clean_leftovers(found.files, found.temp_names)
    plan = _Plan(options, _known_codes(cache))
    if options.verify:
        warnings += _missing_example_files(plan.examples, config)
    project = Project(
        lambda path, st: _cached_facts(cache, path, signature_of(st)),
        lambda path, st, digest, facts: _record_facts(cache, path, signature_of(st), digest, facts),
    )

    outcomes: Dict[str, FileOutcome] = {}
    for path in found.missing:
        outcomes[path] = _runner_outcome(path, "HL902", "no such file or directory")
    # first every file's digest and project facts (the project model needs them all before
    # any file's cache key can be known), then each file's result
    known: Dict[str, _Known] = {}
    for path in found.files:
        st = found.stats.get(path)
        signature = signature_of(st) if st is not None else None
        known[path] = _identify(path, signature, cache, project)
    tasks: List[_Task] = []
    for path in found.files:
        extra_ignore = config.ignores_for(path)  # per-file-ignores globs: once per file
        outcome, task = _triage(path, plan, extra_ignore, cache, project, known.pop(path))
        if task is not None:
            tasks.append(task)
        elif outcome is not None:
            outcomes[path] = outcome
    for outcome, key in _execute(tasks, plan):
        outcomes[outcome.path] = outcome
        if not writing and not outcome.internal:
            cache.put(key, [_issue_fields(i) for i in outcome.issues])
    cache.save()
    ordered = [outcomes[p] for p in sorted(outcomes, key=_path_sort_key)]
    return RunResult(outcomes=ordered, files_checked=len(found.files), warnings=warnings)


def run_stdin(raw: bytes, path: str, options: RunOptions) -> Tuple[RunResult, bytes]:
    """Lint (or fix) source bytes read from stdin as if they were the file ``path`` (its
    per-file-ignores apply; nothing is read from or written to disk, no cache). Returns the
    result and the output bytes: the fixed source with ``options.fix``, else ``raw``."""
    plan = _Plan(options, all_rule_codes())
    try:
        source = decode_source(raw, path)
    except SourceDecodeError as exc:
        decode_error = _runner_outcome(path, "HL901", str(exc), exc.line, exc.col)
        return RunResult([decode_error], 1), raw
    rule_codes = plan.rule_codes(options.config.ignores_for(path))
    if path.endswith(".ipynb"):  # as in a run over files: its cells; --fix: the fixed JSON
        cells, fixed = _notebook(source, rule_codes, plan, write=False)
        if fixed is not None and options.fix:
            try:
                return RunResult([cells], 1), encode_source(fixed, source.encoding)
            except SourceWriteError as exc:
                cells.error, cells.fixed = f"fixes not applied: {exc}", 0
        return RunResult([cells], 1), raw
    outcome: Optional[FileOutcome] = _python_rejects(source)
    out = raw
    if outcome is None and rule_codes:
        # the files on disk around `path`
        project = plan.with_examples(path, Project().for_source(source.text, path))
        if _may_hold_hybrid_code(source.text, path, project):
            task = _Task(path, source, rule_codes, "", plan.mode(path), project)
            work = _work(path, source.text, rule_codes, task.mode, project)
            outcome = _finish(work, task, plan, write=False)
            if work.applied and work.internal_error is None and work.syntax_error is None:
                outcome.fixed = len(work.applied)
                outcome.revealed = work.revealed
                outcome.fixed_codes = work.fixed_codes
                if options.diff:
                    bom = "\ufeff" if source.encoding.lower() == "utf-8-sig" else ""
                    outcome.diff = unified_diff(path, bom + source.text, bom + work.source)
                    outcome.encoding = source.encoding
                try:
                    out = encode_source(work.source, source.encoding)
                except SourceWriteError as exc:
                    outcome.error, outcome.fixed = f"fixes not applied: {exc}", 0
    return RunResult([outcome or FileOutcome(path)], 1), out


def _clean_leftovers(files: Sequence[str], listed: Mapping[str, List[str]]) -> List[str]:
    """Remove the temporary files a killed ``--fix`` left next to the linted files, and warn
    about backups an interrupted in-place write left (the file may be half-written).
    ``listed``: the candidate names of the directories discovery listed already."""
    warnings = []
    for directory in sorted({os.path.dirname(f) or "." for f in files}):
        for backup in remove_stale_temp_files(directory, listed.get(directory)):
            warnings.append(
                f"{backup}: an interrupted `hybridlint --fix` left this copy of a "
                "file's previous content; compare it with the file, then delete it"
            )
    return warnings


def _known_codes(cache: LintCache) -> List[str]:
    """All rule codes (from the cache when possible: a cached run never imports LibCST)."""
    codes = cache.codes
    if codes is None:
        codes = all_rule_codes()
        cache.codes = codes
    return codes


class _Known(NamedTuple):
    """What the first pass learnt of a file: its digest and project facts, and its bytes
    when it read them (None: the stat signature answered; the error when it cannot be read)."""

    digest: str = ""
    facts: FileFacts = FileFacts(False)
    raw: Optional[bytes] = None
    identity: Optional[Tuple[int, int, int, int]] = None
    error: Optional[str] = None


def _cached_facts(
    cache: LintCache, path: str, signature: Optional[List[int]]
) -> Optional[Tuple[str, FileFacts]]:
    """A file's digest and project facts from the cache, if its stat signature is known."""
    digest = cache.digest_for_signature(path, signature)
    facts = cache.facts(digest) if digest is not None else None
    return None if digest is None or facts is None else (digest, facts)


def _record_facts(
    cache: LintCache, path: str, signature: List[int], digest: str, facts: FileFacts
) -> None:
    """Remember a project file's digest and facts (a file the run does not lint, read by the
    project model), so that the next run does not read it."""
    cache.remember_signature(path, signature, digest)
    cache.put_facts(digest, facts)


def _identify(
    path: str, signature: Optional[List[int]], cache: LintCache, project: Project
) -> _Known:
    """A file's digest and project facts: from the cache when its stat signature is unchanged
    (the file is not read), else from its bytes (kept for the file's lint). ``signature`` is
    the one discovery took, before reading (None if unknown)."""
    found = _cached_facts(cache, path, signature)
    if found is not None:
        project.know(path, *found)
        return _Known(*found)
    try:
        raw, identity = read_bytes_and_identity(path)
    except SourceReadError as exc:
        return _Known(error=str(exc))
    digest, facts = digest_of(raw), facts_of(raw)
    cache.remember_signature(path, signature, digest)
    cache.put_facts(digest, facts)
    project.know(path, digest, facts, raw)
    return _Known(digest, facts, raw, identity)


def _triage(
    path: str,
    plan: _Plan,
    extra_ignore: Tuple[str, ...],
    cache: LintCache,
    project: Project,
    known: _Known,
) -> Tuple[Optional[FileOutcome], Optional[_Task]]:
    """Everything up to the linter: cache, decode, pre-filter.

    ``known`` is what :func:`_identify` learnt of the file. Its result is cached under its
    bytes, its settings and what it reads from the project (``FileProject.key``). Returns
    ``(outcome, None)`` when the file is settled here, or ``(None, task)`` when it must be
    linted. Settled results are put in the cache (read errors are not: there is no content).
    """
    if known.error is not None:
        return _runner_outcome(path, "HL902", known.error), None
    settings = repr(extra_ignore)
    dependencies = plan.with_examples(
        path,
        project.for_file(
            path,
            known.facts.defines,
            texts=False,
            imports=known.facts.imports,
            bases=known.facts.bases,
        ),
    )
    cached = cache.get(result_key(known.digest, settings, dependencies.key))
    if cached is not None and not _needs_edits(cached, plan):
        return _cached_outcome(path, cached), None
    raw, identity = known.raw, known.identity
    if raw is None:  # the stat signature answered, but the result is not cached: read it
        try:
            raw, identity = read_bytes_and_identity(path)
        except SourceReadError as exc:
            return _runner_outcome(path, "HL902", str(exc)), None
        digest, facts = digest_of(raw), facts_of(raw)
        project.know(path, digest, facts, raw)
        known = _Known(digest, facts, raw, identity)
    # the importers' texts: read now if need be, so that the key names the bytes linted
    dependencies = plan.with_examples(
        path,
        project.for_file(
            path, known.facts.defines, imports=known.facts.imports, bases=known.facts.bases
        ),
    )
    key = result_key(known.digest, settings, dependencies.key)
    cached = cache.get(key)
    if cached is not None and not _needs_edits(cached, plan):
        return _cached_outcome(path, cached), None
    try:
        source = decode_source(raw, path, identity)
    except SourceDecodeError as exc:
        outcome = _runner_outcome(path, "HL901", str(exc), exc.line, exc.col)
    else:
        rule_codes = plan.rule_codes(extra_ignore)
        if path.endswith(".ipynb"):  # cells are linted without the examples (keyed on them
            # all the same: a notebook's examples would only cost a lint again)
            outcome = _notebook(source, rule_codes, plan)[0]
        else:  # the syntax check runs in the workers too: Python's parser is most of the cost
            hybrid = rule_codes and _may_hold_hybrid_code(source.text, path, dependencies)
            codes = rule_codes if hybrid else ()
            return None, _Task(path, source, codes, key, plan.mode(path), dependencies)
    cache.put(key, [_issue_fields(i) for i in outcome.issues])
    return outcome, None


def _needs_edits(cached: List[Dict[str, Any]], plan: _Plan) -> bool:
    """Whether a cached result lacks what the run prints: the cache keeps findings, not their
    fixes' edits, so a file with a fixable finding is linted again under --format json/sarif."""
    return plan.options.fix_edits and any(fields.get("fix") for fields in cached)


def _cached_outcome(path: str, cached: List[Dict[str, Any]]) -> FileOutcome:
    return FileOutcome(path, [Finding(path=path, **fields) for fields in cached])


def _notebook(
    source: SourceFile, rule_codes: Tuple[str, ...], plan: _Plan, *, write: bool = True
) -> Tuple[FileOutcome, Optional[str]]:
    """A notebook's code cells, linted in this process and reported per cell, and fixed with
    --fix/--diff (not under --verify: the checker runs files, not notebooks): written when
    ``write`` (--fix), else the fixed notebook's text is returned (stdin); --diff diffs each
    changed cell. Returns the outcome and the fixed text (None: nothing changed or written).
    See hybridlint/notebook.py."""
    from . import notebook

    path, options = source.path, plan.options
    try:
        book = notebook.read(source.text)
    except notebook.NotebookError as exc:
        return _syntax_error(source, 1, 1, str(exc)), None
    originals = [cell.source for cell in book.cells]

    def cannot_parse(cell: int, line: int, col: int, msg: str) -> Finding:
        lines = originals[cell - 1].split("\n")
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        message = f"cell {cell}: cannot parse: {msg}"
        return Finding("HL900", "syntax-error", message, line, col, line, col, None, path, text)

    errors = [cannot_parse(c.number, *c.error) for c in book.cells if c.error is not None]
    module, starts = book.module()
    from .linter import SourceSyntaxError, fix_source, lint_source, may_contain_hybrid_code

    if not rule_codes or not may_contain_hybrid_code(module):
        return FileOutcome(path, errors), None
    fixing = (options.fix or options.diff) and not options.verify
    unsafe = options.unsafe_fixes
    select = list(rule_codes)
    try:  # in this process: a failure is this notebook's, never the run's
        if fixing:
            result = fix_source(
                module,
                path,
                select=select,
                unsafe=unsafe,
                line_length=options.config.line_length,
                project=NO_PROJECT,
            )
            found = result.initial
        else:
            found = lint_source(module, path, select=select, project=NO_PROJECT)
    except SourceSyntaxError as exc:  # valid cells nested deeper than the linter can analyse
        cell, line = notebook.locate(exc.line, starts)
        return FileOutcome(path, errors + [cannot_parse(cell, line, exc.col, exc.msg)]), None
    except Exception as exc:  # a linter bug, as _work reports it
        if os.environ.get("HYBRIDLINT_DEBUG") == "1":
            raise
        error = f"internal error while linting: {type(exc).__name__}: {exc}"
        return FileOutcome(path, error=error, internal=True), None
    outcome = FileOutcome(path, errors + _cell_findings(found, starts, originals, path))
    if not fixing or not result.applied:
        if fixing:
            outcome.issues = errors + _cell_findings(result.remaining, starts, originals, path)
        return outcome, None
    split = book.split(result.source)
    if split is None:
        outcome.error = "fixes not applied: the fixed cells could not be put back in the notebook"
        return outcome, None
    sources, new_starts = split
    try:
        fixed = notebook.rewrite(source.text, book, sources)
    except notebook.NotebookError as exc:
        outcome.error = f"fixes not applied: {exc}"
        return outcome, None
    if options.diff:
        outcome.diff = "".join(
            notebook.cell_diff(path, cell.number, cell.source, new)
            for cell, new in zip(book.cells, sources)
            if new != cell.source
        )
        outcome.encoding = source.encoding
    elif write:
        try:
            write_source(source, fixed, problem_of=notebook.json_problem)
        except (SourceWriteError, OSError) as exc:
            outcome.error = f"fixes not written: {exc}"
            return outcome, None
    outcome.issues = errors + _cell_findings(result.remaining, new_starts, sources, path)
    outcome.fixed = len(result.applied)
    outcome.revealed = _revealed(result.initial, result.applied, result.remaining, unsafe)
    outcome.fixed_codes = [(f.code, f.name) for f in result.applied]
    return outcome, fixed


def _cell_findings(
    found: Sequence[Finding], starts: List[int], sources: Sequence[str], path: str
) -> List[Finding]:
    """Findings of a notebook's joined module at their line in their cell (``cell N:``)."""
    from .notebook import locate

    issues = []
    for finding in found:
        cell, line = locate(finding.line, starts)
        lines = sources[cell - 1].split("\n")
        issues.append(
            Finding(
                finding.code,
                finding.name,
                f"cell {cell}: {finding.message}",
                line,
                finding.col,
                finding.end_line - finding.line + line,
                finding.end_col,
                finding.fix,
                path,
                lines[line - 1] if 0 < line <= len(lines) else "",
            )
        )
    return issues


def _python_rejects(source: SourceFile) -> Optional[FileOutcome]:
    """The HL900 outcome when Python's own parser rejects the file, else None."""
    problem = _syntax_problem(source.text)
    return None if problem is None else _syntax_error(source, *problem)


def _syntax_problem(text: str) -> Optional[Tuple[int, int, str]]:
    """``(line, col, message)`` when Python's own parser rejects ``text``, else None.

    Every file is checked, hybrid code or not, so that a syntax error or a truncated file
    never passes a gate. CPython stops at 200 nested brackets (LibCST segfaults on 1,500) and
    raises MemoryError on some deep expressions (5,000 chained ``**``): both are HL900 here.
    """
    if len(text) > _SYNTAX_CHUNK and all(_parses(chunk) for chunk in _chunks(text)):
        return None
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return exc.lineno or 1, exc.offset or 1, exc.msg
    except ValueError as exc:  # null bytes
        return 1, 1, str(exc)
    except (MemoryError, RecursionError):
        return 1, 1, "too deeply nested for Python's parser"
    return None


# Python's parse tree of a whole file costs ~3.7 KB a line (3.7 GB for a 1M-line file), so a
# large file is checked in chunks of about this many characters, split before a top-level
# `def`, `class` or decorator that follows a blank line (issue 22).
_SYNTAX_CHUNK = 1 << 20
_TOP_BOUNDARY = re.compile(r"\n[ \t\f]*\r?\n(?=@|(?:async[ \t]+)?def[ \t]|class[ \t])")


def _chunks(text: str) -> Iterator[str]:
    """``text`` in consecutive pieces of at least ``_SYNTAX_CHUNK`` characters (the last may be
    shorter), each ending just after a blank line that a column-0 def, class or decorator
    follows.

    Why checking the pieces is exact: a piece that is cut inside a string, brackets, a
    continued line or a decorated definition does not parse alone, and then the whole file is
    parsed as before; pieces that all parse end where the tokenizer is between statements at
    column 0, and statements followed by statements are a module. So the file parses exactly
    when they all do (errors, when some piece fails, come from the whole-file parse)."""
    start = 0
    for match in _TOP_BOUNDARY.finditer(text, _SYNTAX_CHUNK):
        if match.end() - start < _SYNTAX_CHUNK:
            continue
        yield text[start : match.end()]
        start = match.end()
    yield text[start:]


def _parses(chunk: str) -> bool:
    try:
        ast.parse(chunk)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def _syntax_error(source: SourceFile, line: int, col: int, msg: str) -> FileOutcome:
    """The HL900 outcome of a file that does not parse."""
    finding = Finding("HL900", "syntax-error", f"cannot parse: {msg}", line, col, line, col, None)
    return FileOutcome(
        source.path, [finding.with_source_line(source.path, _LINE_SPLIT.split(source.text))]
    )


def _path_sort_key(path: str) -> Tuple[str, ...]:
    return tuple(path.replace(os.sep, "/").split("/"))


def _issue_fields(issue: Finding) -> Dict[str, Any]:
    """A reported finding as the cache stores it (its path is the cache's key)."""
    data = issue.to_dict()
    del data["path"]
    return data


def _runner_outcome(path: str, code: str, message: str, line: int = 1, col: int = 1) -> FileOutcome:
    """A file problem (HL901/HL902): reported whatever the rule selection."""
    name, _ = RUNNER_CODES[code]
    return FileOutcome(path, [Finding(code, name, message, line, col, line, col, None, path)])


def _execute(tasks: Sequence[_Task], plan: _Plan):
    """Lint or fix each task, in this process or in worker processes; yields (outcome, key)."""
    if not tasks:
        return
    options = plan.options
    jobs = min(options.jobs or default_jobs(), MAX_JOBS_PER_CORE * default_jobs())
    total = sum(len(task.source.text) for task in tasks)
    report = options.progress or (lambda done, total: None)
    report(0, len(tasks))
    pool = None
    workers = min(jobs, len(tasks))
    if jobs > 1 and len(tasks) > 1 and total >= SERIAL_MAX_BYTES:
        pool = _new_pool(workers)
    if pool is None:
        for done, task in enumerate(tasks, 1):
            work = _work(task.path, task.source.text, task.codes, task.mode, task.project)
            yield _finish(work, task, plan), task.key
            report(done, len(tasks))
        return
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    orphans = []  # tasks a dying worker took down with the pool: each is rerun on its own
    done = 0
    with pool:
        futures = {
            pool.submit(
                _work_batch,
                [(t.path, t.source.text, t.codes, t.mode, t.project) for t in batch],
            ): batch
            for batch in _batches(tasks, workers)
        }
        for future in as_completed(futures):
            batch = futures[future]
            try:
                works = future.result()
            except BrokenProcessPool:  # a worker died (killed, out of memory, crashed)
                orphans.extend(batch)
                continue
            for task, work in zip(batch, works):
                done += 1
                yield _finish(work, task, plan), task.key
                report(done, len(tasks))
    for task in sorted(orphans, key=lambda t: _path_sort_key(t.path)):
        done += 1
        work = _work_isolated(task.path, task.source.text, task.codes, task.mode, task.project)
        yield _finish(work, task, plan), task.key
        report(done, len(tasks))


MAX_JOBS_PER_CORE = 2  # --jobs beyond this many workers per core only adds memory and forks
# Files go to the workers in batches: a future per file costs its scheduling and pickling in
# both processes (a cold `--jobs 2` run over 4,164 files, most of which only get Python's
# syntax check: 29.2 s CPU with a future per file, 26.1 s in batches, means of three
# alternated runs). A batch holds at most this much text and this many files, and at most a
# quarter of each worker's share of both, so that every worker gets several batches; the
# largest files go first, so the workers finish together.
BATCH_BYTES = 1 << 18
BATCH_FILES = 32
BATCHES_PER_WORKER = 4


def _batches(tasks: Sequence[_Task], workers: int) -> List[List[_Task]]:
    """``tasks``, largest first, in batches (see BATCH_BYTES); a file larger than a batch's
    share of text is a batch alone."""
    parts = BATCHES_PER_WORKER * max(1, workers)
    total = sum(len(task.source.text) for task in tasks)
    most_bytes = min(BATCH_BYTES, total // parts)
    most_files = max(1, min(BATCH_FILES, len(tasks) // parts))
    batches: List[List[_Task]] = []
    size = 0
    for task in sorted(tasks, key=lambda t: -len(t.source.text)):
        length = len(task.source.text)
        if not batches or size + length > most_bytes or len(batches[-1]) >= most_files:
            batches.append([])
            size = 0
        batches[-1].append(task)
        size += length
    return batches


def _work_batch(
    items: Sequence[Tuple[str, str, Tuple[str, ...], Any, FileProject]],
) -> List[WorkResult]:
    """:func:`_work` for each (path, text, codes, mode, project) of a batch, in a worker."""
    return [_work(*item) for item in items]


def _new_pool(workers: int) -> Optional["ProcessPoolExecutor"]:
    from concurrent.futures import ProcessPoolExecutor

    from . import linter  # noqa: F401  imported before forking, so workers inherit it

    if not _can_fork_workers():
        return None
    try:
        return ProcessPoolExecutor(
            max_workers=workers, initializer=_worker_init, initargs=(os.getpid(),)
        )
    except (OSError, ImportError, NotImplementedError):  # e.g. no /dev/shm for semaphores
        return None


def _can_fork_workers() -> bool:
    """Workers are forked (they inherit the imported linter), unless MXNet is loaded in this
    process (the API called from a notebook or a test that uses MXNet): forking it while its
    engine threads run aborted the process (seen on CI: 'Fatal Python error: Aborted' in
    os.fork). Spawned workers were tried instead and failed on CI too (a worker starting
    after its pool's semaphores were gone: `SemLock._rebuild` FileNotFoundError, its file
    reported as died), so with MXNet loaded the files are linted in this process."""
    return "mxnet" not in sys.modules


def _work_isolated(path: str, text: str, codes, mode, project: FileProject) -> WorkResult:
    """One file in a worker of its own, after a pool broke: only the file that kills its
    worker is lost (reported as an internal error), never the files queued beside it."""
    from concurrent.futures.process import BrokenProcessPool

    pool = _new_pool(1)
    if pool is None:
        return _work(path, text, codes, mode, project)
    with pool:
        try:
            return pool.submit(_work, path, text, codes, mode, project).result()
        except BrokenProcessPool:
            return WorkResult(
                internal_error="internal error: the worker process linting this "
                "file died (killed, out of memory or crashed)"
            )


def _worker_init(parent: int) -> None:
    """Workers die with the main process (killed with -9, it cannot shut the pool down), and
    collect garbage as the run does (a forked worker inherits it; a spawned one would not)."""
    gc.set_threshold(*_GC_THRESHOLDS)
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError, ImportError):
        import threading
        import time

        def watch() -> None:  # elsewhere: notice being re-parented
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _may_hold_hybrid_code(text: str, path: str, project: FileProject) -> bool:
    """linter.may_contain_hybrid_code, answered here, without importing the linter (LibCST,
    the rules), for a file with no hybrid_forward that nothing else makes hybrid
    (FileProject.may_make_code_hybrid): a run over such files never loads them."""
    if "hybrid_forward" not in text and not project.may_make_code_hybrid:
        return False
    from .linter import may_contain_hybrid_code

    return may_contain_hybrid_code(text, path, project=project)


def _work(
    path: str, text: str, codes: Tuple[str, ...], mode, project: FileProject = NO_PROJECT
) -> WorkResult:
    """The part that runs in a worker: Python's parser first (HL900), then lint or fix one
    source text with ``codes`` (none: a file without hybrid code); ``mode`` is
    :meth:`_Plan.mode`, ``project`` what the file's lint reads from the rest of the project
    (the runner's, the same that keys its cached result). Plain data in and out."""
    problem = _syntax_problem(text)
    if problem is not None:
        return WorkResult(text, syntax_error=problem)
    if not codes:
        return WorkResult(text)
    from .linter import SourceSyntaxError, fix_source, lint_source

    fix, unsafe, line_length, for_checker, edits = mode  # line_length: wrap.py
    linted, converted = lone_cr_to_lf(text)  # the linter core knows LF and CRLF, not lone CR
    try:
        if fix:
            result = fix_source(
                linted,
                path,
                select=list(codes),
                unsafe=unsafe,
                line_length=line_length,
                project=project,
            )
            fixed = lf_to_cr(result.source) if converted else result.source
            work = WorkResult(
                fixed,
                list(result.remaining),
                list(result.applied),
                _revealed(result.initial, result.applied, result.remaining, unsafe),
                fix_result=(linted, unsafe, result) if for_checker else None,
            )
            linted = result.source  # what the remaining findings were found in
        else:
            work = WorkResult(text, lint_source(linted, path, select=list(codes), project=project))
        if edits:
            from .fixedits import all_fix_details

            work.fix_edits = all_fix_details(
                linted,
                path,
                work.findings,
                select=codes,
                line_length=line_length,
                project=project,
                lone_cr=converted,
            )
        return work
    except SourceSyntaxError as exc:
        return WorkResult(text, syntax_error=(exc.line, exc.col, exc.msg))
    except Exception as exc:  # a linter bug must not end the run for every other file
        if os.environ.get("HYBRIDLINT_DEBUG") == "1":
            raise
        return WorkResult(
            internal_error=f"internal error while linting: {type(exc).__name__}: {exc}"
        )


def _revealed(initial, applied, remaining, unsafe: bool) -> int:
    """How many applied fixes were for findings the first lint did not count as fixable.

    The fixable findings check reported are fixed unless they are still there afterwards
    (counted, not matched by line: lines inside a rewritten statement move); every other
    applied fix was revealed by an earlier one (the outer index of ``x[0][1]``)."""

    def fixable(findings) -> int:
        return sum(1 for f in findings if f.fixable(unsafe))

    fixed_initial = max(0, fixable(initial) - fixable(remaining))
    return max(0, len(applied) - fixed_initial)


_NOTE_AT = re.compile(r"(\d+):(\d+): ")


def _notes_at_written_lines(notes: List[str], path: str, before: str, after: str) -> List[str]:
    """`--verify`'s notes name a fix by where its finding was (`net.py:15:7: HL011 fix
    rejected`); once other fixes are written, the file's lines have moved (a removed import),
    and the findings printed after the notes are at the written file's lines. A note's position
    is moved the same way (:func:`_written_line`), and so are the lines its text names."""
    if before == after:
        return notes
    line = _written_line(before, after)
    old_lines, new_lines = _LINE_SPLIT.split(before), _LINE_SPLIT.split(after)
    prefix = f"{path}:"
    out = []
    for note in notes:
        at = _NOTE_AT.match(note, len(prefix)) if note.startswith(prefix) else None
        if at is None:
            out.append(note)
            continue
        body = _lines_named_at_written_lines(note[at.end() :], line)
        number, column = int(at.group(1)), int(at.group(2))
        moved = int(line(str(number)))
        was = old_lines[number - 1] if 0 < number <= len(old_lines) else ""
        text = new_lines[moved - 1] if 0 < moved <= len(new_lines) else ""
        if text != was and _head(text) == _head(was):
            # a rewrite changed or wrapped the code it pointed at: the same word in the
            # written statement, by a word diff (two HL003 fixes nested in a rewritten
            # and wrapped `nd.concat(encoded[0], encoded[-1])` were both noted at the
            # `nd.concat`, blind round 18); a dropped part (chansel's `.as_in_context(
            # x.context)`, blind round 13) maps to where it was, at its `)`
            down, column = _column_in_written(was, _statement_lines(new_lines, moved), column)
            moved += down
        elif text != was and column > len(text):
            # a deleted line's note, at the line after it: that line's indent
            column = len(text) - len(text.lstrip()) + 1
        out.append(f"{prefix}{moved}:{column}: {body}")
    return out


def _statement_lines(lines: List[str], first: int) -> List[str]:
    """The written lines from line `first` (1-based) to the end of its statement: while its
    brackets are open (strings are not parsed: a bracket in one may end it early or late,
    which moves a note's column, never its text), 30 lines at most."""
    out: List[str] = []
    depth = 0
    for text in lines[first - 1 : first + 29]:
        out.append(text)
        depth += sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
        if depth <= 0:
            break
    return out


_WORD = re.compile(r"\w+")


def _column_in_written(was: str, written: List[str], column: int) -> Tuple[int, int]:
    """(lines down from the first written line, 1-based column) of the word at `column` of the
    original line `was` (the next word when a bracket or operator is there) in the written
    lines of its statement, by a diff of their words: a word the rewrite kept is found where
    it went (`encoded[-1]` -> `F.squeeze(F.slice_axis(encoded, ...))` on the next line: at that
    `encoded`), a word it replaced at the start of what replaced it. Words only: brackets and
    operators recur all over a rewrite and misalign a diff of every token."""
    joined = "\n".join(written)
    old = [(m.start(), m.group()) for m in _WORD.finditer(was)]
    new = [(m.start(), m.group()) for m in _WORD.finditer(joined)]
    at = next((k for k, (offset, text) in enumerate(old) if offset + len(text) > column - 1), None)
    if not new or at is None:
        return 0, column
    found = len(new) - 1
    steps = difflib.SequenceMatcher(
        None, [t for _, t in old], [t for _, t in new], autojunk=False
    ).get_opcodes()
    for index, (tag, i1, i2, j1, _j2) in enumerate(steps):
        if i1 <= at < i2 and tag == "equal" and at == i1 and index:
            _, _, _, k1, k2 = steps[index - 1]
            if steps[index - 1][0] == "insert":
                # words inserted right before it: the rewrite of the expression it starts
                # (`x - m` -> `F.broadcast_sub(x, m)`, `(a - b) * c + d` ->
                # `F.broadcast_add(...`) begins at the first of them that only opens calls up
                # to it (no bracket closed between: not the tail of a rewrite before it)
                opening = [
                    k for k in range(k1, k2) if not set(joined[new[k][0] : new[j1][0]]) & set(")]}")
                ]
                if opening:
                    found = opening[0]
                    break
        if i1 <= at < i2:
            if tag == "delete" and j1:  # dropped (`.as_in_context(x.context)`): just after
                target = new[j1 - 1][0] + len(new[j1 - 1][1])  # the word before, at its `)`
                start = joined.rfind("\n", 0, target) + 1
                return joined.count("\n", 0, target), target - start + 1
            found = min(j1 + (at - i1 if tag == "equal" else 0), len(new) - 1)
            break
    target = new[found][0]
    start = joined.rfind("\n", 0, target) + 1
    return joined.count("\n", 0, target), target - start + 1


def _written_line(before: str, after: str) -> Callable[[str], str]:
    """A line number of `before` (as text) -> the same line in `after`: where it is now; inside
    a run of lines the fixes rewrote, the written line that starts the same way (the same
    assignment target, `return`, the same first word: a wrapped `return F.broadcast_add(` is
    the `return (a - b) * c` it came from), else its share of the run's lines (two stacks each
    wrapped to three lines: the second at the fourth line, not both at the first); a line the
    fixes deleted goes to the line after it. Blank lines anchor nothing (a blank line matched
    to the file's last put a `return` after the end of a rewritten body)."""
    old, new = _LINE_SPLIT.split(before), _LINE_SPLIT.split(after)
    moved: Dict[int, int] = {}
    matcher = difflib.SequenceMatcher(_blank, old, new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            moved.update((i + 1, j1 + (i - i1) + 1) for i in range(i1, i2))
            continue
        heads = difflib.SequenceMatcher(
            _blank, [_head(t) for t in old[i1:i2]], [_head(t) for t in new[j1:j2]], autojunk=False
        )
        for _, a1, a2, b1, b2 in heads.get_opcodes():
            for a in range(a1, a2):
                # line for line, or its share where the count of lines changed; a deleted
                # line (b1 == b2): the line after it
                b = b1 + (a - a1) * (b2 - b1) // (a2 - a1)
                moved[i1 + a + 1] = min(j1 + b, max(len(new) - 1, 0)) + 1
    return lambda number: str(moved.get(int(number), number))


def _blank(line: str) -> bool:
    return not line.strip()


_HEAD = re.compile(r"\s*(?:[\w.]+\s*(?:\[[^\]]*\])?\s*=(?!=)|\w+|\S)")


def _head(line: str) -> str:
    """How a line starts, for matching a rewritten line to its original: an assignment's
    target (`area = `), else its first word (`return`, `assert`) or character."""
    found = _HEAD.match(line)
    return found.group(0).replace(" ", "").strip() if found else ""


def _lines_named_at_written_lines(text: str, line: Callable[[str], str]) -> str:
    """`text` (a note's or a finding's reason) with the original's lines it names moved
    (`no example ran the rewritten code at line(s) 175, 229`, `together with HL007 at 77:51`:
    blind round 9 printed `net.py:110:25: ... at line 107` for one line)."""

    def lines_of(match: "re.Match[str]") -> str:
        head, numbers = str(match[1]), str(match[2])
        return head + re.sub(r"\d+", lambda n: line(str(n[0])), numbers)

    text = _ORIGINAL_LINES.sub(lines_of, text)
    return _FIX_AT.sub(lambda m: f"{m[1]}{line(m[2])}:", text)


# what a note's text says in the original's lines (not "still fails hybridized elsewhere, at
# line N": that is a line of the fixed text, moved by checker_bridge._wrap)
_ORIGINAL_LINES = re.compile(r"(rewritten code at line(?:\(s\))? )(\d+(?:, \d+)*)")
_FIX_AT = re.compile(r"(\bHL\d{3} at )(\d+):")


def _finish(work: WorkResult, task: _Task, plan: _Plan, *, write: bool = True) -> FileOutcome:
    """Back in the main process: verify (starting from the worker's fix), then write the
    fixes or diff them (not with ``write=False``), and attach source lines to findings."""
    path, source, options = task.path, task.source, plan.options
    if work.internal_error is not None:
        return FileOutcome(path, error=work.internal_error, internal=True)
    if work.syntax_error is not None:
        return _syntax_error(source, *work.syntax_error)
    new_text, applied, findings = work.source, len(work.applied), work.findings
    codes, revealed = work.fixed_codes, work.revealed
    outcome = FileOutcome(path)
    if options.verify:  # also without fixes: examples give run-time findings (dynamic lint)
        verified = _verify(task, work, plan)
        new_text, applied, findings = verified.source, verified.applied, verified.findings
        codes, revealed = verified.codes, 0  # (what the proof kept; none counted as revealed)
        outcome.rejected, outcome.verification = verified.rejected, verified.notes
        outcome.error, outcome.internal = verified.error, verified.internal
    shown = False  # the fixes were written, or diffed
    if applied and write and options.diff:
        bom = "\ufeff" if source.encoding.replace("_", "-").lower() == "utf-8-sig" else ""
        outcome.diff = unified_diff(path, bom + source.text, bom + new_text)
        outcome.encoding = source.encoding
        shown = True
    elif applied and write and options.fix:
        try:
            write_source(source, new_text)
            shown = True
        except (SourceWriteError, OSError) as exc:
            outcome.error = f"fixes not written: {exc}"
            new_text = source.text
            from .linter import lint_source

            findings = lint_source(
                lone_cr_to_lf(source.text)[0], path, select=list(task.codes), project=task.project
            )
    if shown:
        outcome.fixed = applied
        outcome.revealed, outcome.fixed_codes = revealed, codes
    before = lone_cr_to_lf(source.text)[0]
    if outcome.verification:  # at the lines of the text the findings below are at
        outcome.verification = _notes_at_written_lines(outcome.verification, path, before, new_text)
    if options.verify and before != new_text:  # their reasons name lines too
        line = _written_line(before, new_text)
        findings = [
            replace(f, message=_lines_named_at_written_lines(f.message, line)) for f in findings
        ]
    lines = _LINE_SPLIT.split(new_text)
    outcome.issues = [f.with_source_line(path, lines) for f in findings]
    if findings is work.findings:  # not re-linted (a failed write) nor --verify's findings
        outcome.fix_edits = work.fix_edits
    return outcome


def _verify(task: _Task, work: WorkResult, plan: _Plan) -> VerifiedFile:
    """``--fix --verify``: keep only the fixes the equivalence checker proves (see
    ``checker_bridge.verify_file``; a checker problem is an error of this file only). The
    checker's first fix of the file is the one the worker made (``work.fix_result``); the
    proven result is wrapped to the line length as ``--fix`` wraps its own."""
    from .checker_bridge import verify_file

    options = plan.options
    return verify_file(
        task.source.text,
        task.path,
        task.codes,
        plan.examples_for(task.path),
        unsafe=options.unsafe_fixes,
        backend=options.backend,
        timeout=options.timeout,
        fixed=work.fix_result,
        line_length=options.config.line_length,
        project=task.project,
        infer=options.config.infer_examples,
        example_key=_example_key(options.config, task.path),
    )


def _example_key(config: Config, path: str) -> Optional[str]:
    """The file as `[tool.hybridlint.examples]` names it: relative to the project root."""
    try:
        return config.relpath(path)
    except ValueError:  # Windows: another drive than the root's
        return None


def unified_diff(path: str, before: str, after: str) -> str:
    """A ``git diff``-style unified diff of one file (what ``--diff`` prints).

    Lines are split where git splits them, at LF only: ``str.splitlines`` also splits at
    lone CR, form feed, ``\\v``, NEL and U+2028, which would give hunks ``git apply`` cannot
    match. A last line without a newline gets git's ``\\ No newline at end of file`` marker.
    """

    lines = []
    for line in difflib.unified_diff(
        _git_lines(before), _git_lines(after), fromfile=f"a/{path}", tofile=f"b/{path}"
    ):
        lines.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(lines)


def diff_bytes(outcome: "FileOutcome") -> bytes:
    """The diff of one file encoded as the file is (a latin-1 file's patch is latin-1 bytes,
    a BOM stays on the first line), so that ``git apply`` matches it byte for byte."""
    encoding = outcome.encoding or "utf-8"
    if encoding.replace("_", "-").lower() == "utf-8-sig":
        encoding = "utf-8"  # the BOM is a character of the text given to unified_diff
    return (outcome.diff or "").encode(encoding, errors="surrogateescape")


def _git_lines(text: str) -> List[str]:
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines
