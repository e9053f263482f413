"""``hybridlint server``: a language server (LSP over stdio, built on pygls and lsprotocol).

What an editor gets (README.md, "Editor integration"):

* diagnostics when a document is opened or saved, and :data:`DEBOUNCE_SECONDS` after the last
  change, each with the rule code, a link to the rules' documentation
  (``codeDescription.href``, :func:`rule_doc_url`) and a severity (error; HL100, a
  suppression that suppresses nothing, is a warning tagged *unnecessary*);
* code actions (``quickfix``) for each finding's safe fix, each unsafe fix (titled
  "(unsafe)") and "suppress on this line" (a ``# hybridlint: ignore[CODE]`` comment, or the
  code added to the line's existing one), and one ``source.fixAll.hybridlint`` action
  applying every safe fix of the document;
* hover on a finding: the rule, the finding's message, why it breaks under hybridize and the
  fix's safety.

The configuration is the CLI's: the nearest ``hybridlint.toml`` or ``[tool.hybridlint]`` above
the document (:func:`hybridlint.config.load_config`, per-file-ignores and excludes included:
an excluded file gets no diagnostics), re-read when that file changes. A document Python
cannot parse gets the HL900 diagnostic; a linter bug becomes one diagnostic on the first line
and a log message, never a server exit. ``--verify`` is never run: it executes the user's
code, which an editor keystroke must not do.

Fix edits are computed by the library the CLI uses, so that applying an action gives exactly
what ``hybridlint --fix`` would write: one fix is ``fix_source(accept=...)`` accepting that
finding alone (:func:`hybridlint.fixedits.single_fix`, shared with ``--format json``'s
``fix_details``: identified by rule, line, and column where one rule has several findings on
the line, as ``--verify``'s FixIdentity does), "fix all" is ``fix_source`` with the
configured line length, and each result is sent as one minimal TextEdit (the changed span
between the common prefix and suffix of the two texts).

Warm and fast: the linter is imported and run once at ``initialized`` in the server's one
worker thread (every lint and fix runs there, serially, so the event loop stays free to take
edits and cancellations); per document the server keeps the text it last analysed, its
findings and every fix text computed for it, so code actions and hover on an unchanged
document cost no lint. A lint whose document changed meanwhile is dropped, not published.

The pure part (:class:`Settings`, :class:`Analysis`, :func:`minimal_edit`, ...) does not need
pygls; :func:`main` and :func:`create_server` do.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, List, Optional, Tuple, TypeVar

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from . import __version__
from .config import CONFIG_FILES, ConfigError, RuleSelection, load_config
from .files import lf_to_cr, lone_cr_to_lf
from .fixedits import LINE_BREAK as _LINE_BREAK
from .fixedits import fix_key, fix_title, line_starts, minimal_edit, single_fix
from .ftypes import RUNNER_CODES, Finding, FixSafety
from .project import Constructions, ExampleInputs, FileProject, Project
from .reporters import RULES_URL, rule_doc_url

DEBOUNCE_SECONDS = 0.3  # after the last change, before a changed document is linted
FIX_ALL_KIND = "source.fixAll.hybridlint"
SOURCE = "hybridlint"
_WORKER_STACK = 256 * 1024 * 1024  # LibCST and the analysis recurse deeply (linter._nesting_guard)
_NO_SUPPRESSION = frozenset({"HL100", *RUNNER_CODES})  # a suppression cannot silence these

log = logging.getLogger("hybridlint.server")
T = TypeVar("T")


# ----------------------------------------------------------------------------------------
# What to lint a document with: the CLI's configuration, resolved per path
# ----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Settings:
    """How one path is linted: the rule codes (configuration and per-file-ignores), the
    fixer's line length, whether the configuration excludes it, or why it cannot be linted."""

    codes: Tuple[str, ...] = ()
    line_length: Optional[int] = None
    excluded: bool = False
    error: Optional[str] = None
    config_file: Optional[str] = None  # re-read when its modification time changes
    config_mtime: Optional[int] = None
    constructions: Constructions = ()  # of the path's configured examples (as the runner's)
    example_inputs: ExampleInputs = ()  # what they pass the path's blocks (as the runner's)


def resolve_settings(path: str) -> Settings:
    """The settings ``hybridlint PATH`` would use (cli._check, runner._Plan.rule_codes)."""
    from .runner import all_rule_codes

    try:
        config = load_config([path])
        selection = RuleSelection.build(config)
        codes = all_rule_codes()
        selection.check_known(codes)
        config.check_known(codes)
    except ConfigError as exc:
        return Settings(error=f"configuration error: {exc}")
    ignores = config.ignores_for(path)
    enabled = selection.enabled(codes, ignores) | selection.examples_only(codes, ignores)
    return Settings(
        codes=tuple(sorted(c for c in enabled if c not in RUNNER_CODES)),
        line_length=config.line_length,
        excluded=config.is_excluded(path),
        config_file=config.path,
        config_mtime=_mtime(config.path),
        constructions=config.constructions_for(path),
        example_inputs=config.example_inputs_for(path),
    )


def _project(text: str, path: str, settings: Settings) -> Optional[FileProject]:
    """The document's project as the runner gives it (with its configured examples'
    constructions); None, the linter's own reading of the files around ``path``, without."""
    if not settings.constructions and not settings.example_inputs:
        return None
    return replace(
        Project().for_source(text, path),
        constructions=settings.constructions,
        example_inputs=settings.example_inputs,
    )


def _mtime(path: Optional[str]) -> Optional[int]:
    try:
        return os.stat(path).st_mtime_ns if path else None
    except OSError:
        return None


class SettingsCache:
    """Settings per path; a path's entry is re-resolved when its configuration file changed
    on disk, and every entry when :meth:`clear` is called (a pyproject.toml saved, created
    or deleted in the workspace)."""

    def __init__(self) -> None:
        self._by_path: Dict[str, Settings] = {}

    def get(self, path: str) -> Settings:
        known = self._by_path.get(path)
        if known is None or _mtime(known.config_file) != known.config_mtime:
            known = self._by_path[path] = resolve_settings(path)
        return known

    def clear(self) -> None:
        self._by_path.clear()


# ----------------------------------------------------------------------------------------
# One document's analysis: findings, and the texts its fixes and suppressions give
# ----------------------------------------------------------------------------------------
def _syntax_problem(text: str) -> Optional[Tuple[int, int, str]]:
    """``(line, col, message)`` when Python's parser rejects the text, as the runner checks
    every file before LibCST sees it (HL900), else None."""
    from .runner import _syntax_problem as python_rejects

    return python_rejects(text)


def _syntax_finding(line: int, col: int, msg: str, path: str) -> Finding:
    return Finding(
        "HL900", "syntax-error", f"cannot parse: {msg}", line, col, line, col, None, path
    )


@dataclass
class Analysis:
    """The findings of one document text, and (computed on demand, kept) what applying one
    fix, every safe fix, or one suppression makes of that text."""

    text: str
    path: str
    settings: Settings
    findings: List[Finding] = field(default_factory=list)
    problem: Optional[str] = None  # a configuration error or a linter bug: one diagnostic
    _texts: Dict[Any, Optional[str]] = field(default_factory=dict, repr=False)

    # -- fixes ---------------------------------------------------------------------------
    def _fix_options(self) -> Dict[str, Any]:
        return {
            "select": list(self.settings.codes),
            "line_length": self.settings.line_length,
            "project": _project(self.text, self.path, self.settings),
        }

    def fix_key(self, finding: Finding) -> Tuple[str, int, int, str]:
        """A fix's identity in every pass of the fixer (:func:`hybridlint.fixedits.fix_key`)."""
        return fix_key(self.findings, finding)

    def _fixed(self, key: Any, fix: Callable[[str], str]) -> Optional[str]:
        """The text ``fix`` makes of this one (lone CRs handled as the runner does), None when
        it changes nothing or fails (the action is then not offered)."""
        if key not in self._texts:
            linted, converted = lone_cr_to_lf(self.text)
            try:
                fixed = fix(linted)
            except Exception:  # a fix the linter cannot make is no action, not a crash
                log.exception("hybridlint: computing %s failed", key)
                fixed = linted
            if converted:
                fixed = lf_to_cr(fixed)
            self._texts[key] = None if fixed == self.text else fixed
        return self._texts[key]

    def fix_text(self, finding: Finding) -> Optional[str]:
        """The text after this finding's fix alone (safe or unsafe), as ``hybridlint --fix``
        (``--unsafe-fixes`` for an unsafe one) restricted to it would write it."""

        def fix(text: str) -> str:
            return single_fix(
                text,
                self.path,
                finding,
                self.findings,
                select=self.settings.codes,
                line_length=self.settings.line_length,
                project=_project(text, self.path, self.settings),
            )

        return self._fixed(("fix", self.fix_key(finding)), fix)

    def fix_all_text(self) -> Optional[str]:
        """The text after every safe fix: what ``hybridlint --fix`` writes."""
        from .linter import fix_source

        return self._fixed(
            "fix-all", lambda text: fix_source(text, self.path, **self._fix_options()).source
        )

    def fixable(self, finding: Finding) -> bool:
        return finding.fix is not None and self.problem is None

    # -- suppressions --------------------------------------------------------------------
    def suppress_text(self, finding: Finding) -> Optional[str]:
        """The text with the finding's code suppressed on its line (README, suppressions):
        added to the line's ``ignore[...]`` or ``noqa: ...`` list, or a new
        ``# hybridlint: ignore[CODE]`` at the end of the line. None when the comment would not
        suppress it (a line continued by a backslash, a line ending inside a string)."""
        if finding.code in _NO_SUPPRESSION:
            return None
        key = ("suppress", finding.code, finding.line, finding.col)
        if key not in self._texts:
            self._texts[key] = self._suppressed(finding)
        return self._texts[key]

    def _suppressed(self, finding: Finding) -> Optional[str]:
        from . import suppression

        starts = line_starts(self.text)
        if not 0 < finding.line <= len(starts):
            return None
        begin = starts[finding.line - 1]
        line = _LINE_BREAK.split(self.text[begin:], 1)[0]
        # with their line ends (the tokenizer finds the comments in the joined lines)
        lines = [self.text[a:b] for a, b in zip(starts, starts[1:] + [len(self.text)])]
        directives = suppression.Suppressions(lines).by_line.get(finding.line, [])
        existing = next((d for d in directives if d.codes and d.kind in ("line", "noqa")), None)
        if existing is not None:
            at = existing.end - 1 if line[existing.end - 1 : existing.end] == "]" else existing.end
            new_line = f"{line[:at]}, {finding.code}{line[at:]}"
        else:
            new_line = f"{line.rstrip()}  # hybridlint: ignore[{finding.code}]"
        text = self.text[:begin] + new_line + self.text[begin + len(line) :]
        after = analyze(text, self.path, self.settings)
        still = any(
            (f.code, f.line, f.col) == (finding.code, finding.line, finding.col)
            or f.code == "HL900"
            for f in after.findings
        )
        return None if still or after.problem else text


def analyze(text: str, path: str, settings: Settings) -> Analysis:
    """Lint one document text as ``hybridlint PATH`` would lint the file holding it."""
    analysis = Analysis(text, path, settings)
    if settings.error is not None:
        analysis.problem = settings.error
        return analysis
    if settings.excluded:
        return analysis
    problem = _syntax_problem(text)
    if problem is not None:
        analysis.findings = [_syntax_finding(*problem, path)]
        return analysis
    if not settings.codes:
        return analysis
    from .linter import SourceSyntaxError, lint_source, may_contain_hybrid_code

    if not may_contain_hybrid_code(text, path):
        return analysis
    try:
        analysis.findings = lint_source(
            lone_cr_to_lf(text)[0],
            path,
            select=list(settings.codes),
            project=_project(text, path, settings),
        )
    except SourceSyntaxError as exc:
        analysis.findings = [_syntax_finding(exc.line, exc.col, exc.msg, path)]
    except Exception as exc:  # a linter bug: reported on the document, the server lives on
        log.exception("hybridlint: internal error while linting %s", path)
        analysis.problem = f"internal error while linting: {type(exc).__name__}: {exc}"
    return analysis


# ----------------------------------------------------------------------------------------
# Text positions
# ----------------------------------------------------------------------------------------
class Positions:
    """Offsets and (1-based line, 1-based code point column) of one text as LSP positions,
    counted in the client's units (``units(text)``: UTF-16 code units unless negotiated)."""

    def __init__(self, text: str, units: Callable[[str], int]) -> None:
        self.text = text
        self.starts = line_starts(text)
        self.units = units

    def _line(self, index: int) -> str:
        begin = self.starts[index]
        return _LINE_BREAK.split(self.text[begin:], 1)[0]

    def at(self, line: int, col: int) -> lsp.Position:
        """1-based line and column (a finding's), clamped to the text."""
        index = min(max(line, 1), len(self.starts)) - 1
        text = self._line(index)
        return lsp.Position(index, self.units(text[: max(col, 1) - 1]))

    def at_offset(self, offset: int) -> lsp.Position:
        import bisect

        index = bisect.bisect_right(self.starts, offset) - 1
        return lsp.Position(index, self.units(self.text[self.starts[index] : offset]))

    def finding_range(self, finding: Finding) -> lsp.Range:
        start = self.at(finding.line, finding.col)
        end = self.at(finding.end_line, finding.end_col)
        if (end.line, end.character) <= (start.line, start.character):  # a point (HL900)
            text = self._line(start.line)
            end = lsp.Position(start.line, self.units(text))
            if end.character <= start.character:
                start = lsp.Position(start.line, max(0, end.character - 1))
        return lsp.Range(start, end)

    def edit(self, new: str) -> lsp.TextEdit:
        start, end, replacement = minimal_edit(self.text, new)
        return lsp.TextEdit(lsp.Range(self.at_offset(start), self.at_offset(end)), replacement)


def _overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    def key(p: lsp.Position) -> Tuple[int, int]:
        return p.line, p.character

    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)


# ----------------------------------------------------------------------------------------
# What the editor shows
# ----------------------------------------------------------------------------------------
def diagnostic(finding: Finding, positions: Positions) -> lsp.Diagnostic:
    unused = finding.code == "HL100"
    return lsp.Diagnostic(
        range=positions.finding_range(finding),
        message=finding.message,
        severity=lsp.DiagnosticSeverity.Warning if unused else lsp.DiagnosticSeverity.Error,
        code=finding.code,
        code_description=lsp.CodeDescription(href=rule_doc_url(finding.code)),
        source=SOURCE,
        tags=[lsp.DiagnosticTag.Unnecessary] if unused else None,
        data={"name": finding.name, "fix": None if finding.fix is None else str(finding.fix)},
    )


def diagnostics(analysis: Analysis, positions: Positions) -> List[lsp.Diagnostic]:
    found = [diagnostic(f, positions) for f in analysis.findings]
    if analysis.problem is not None:
        found.insert(
            0,
            lsp.Diagnostic(
                range=lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0)),
                message=f"hybridlint: {analysis.problem}",
                severity=lsp.DiagnosticSeverity.Error,
                source=SOURCE,
            ),
        )
    return found


def _section(explanation: str, title: str) -> str:
    """The first paragraph of a ``## title`` section of a rule's documentation."""
    match = re.search(
        rf"^## {re.escape(title)}[^\n]*\n(.*?)(?=\n\s*\n|\n## |\Z)", explanation, re.S | re.M
    )
    return match.group(1).strip() if match else ""


def hover_markdown(finding: Finding) -> str:
    """The rule's short explanation, for a hover on one of its findings."""
    from .reporters import rule_catalog

    name, summary, explanation = rule_catalog().get(finding.code, (finding.name, "", ""))
    parts = [f"**{finding.code}** `{name}`: {finding.message}"]
    if summary and summary != finding.message:
        parts.append(summary)
    why = _section(explanation, "Why it breaks under hybridize") or _section(
        explanation, "Why it matters"
    )
    if why:
        parts.append(why)
    if finding.fix is FixSafety.SAFE:
        fix = "safe: a code action applies it (as `hybridlint --fix`)"
    elif finding.fix is FixSafety.UNSAFE:
        fix = (
            "unsafe: a code action applies it (as `--fix --unsafe-fixes`); review it, or "
            "prove it with `hybridlint --fix --verify`"
        )
    else:
        fix = "none automatic"
    parts.append(f"Fix: {fix}.")
    parts.append(f"Full documentation: `hybridlint rule {finding.code}`, [rules]({RULES_URL})")
    return "\n\n".join(parts)


# ----------------------------------------------------------------------------------------
# The server
# ----------------------------------------------------------------------------------------
@dataclass
class _Document:
    analysis: Optional[Analysis] = None
    pending: Optional["asyncio.Task[None]"] = None


class HybridlintServer(LanguageServer):
    """The language server: documents' analyses, one worker thread, debounced lints."""

    def __init__(self, debounce: float = DEBOUNCE_SECONDS) -> None:
        super().__init__("hybridlint", __version__)
        self.debounce = debounce
        self.settings = SettingsCache()
        self.documents: Dict[str, _Document] = {}
        self._worker: Optional[ThreadPoolExecutor] = None

    # -- the worker ----------------------------------------------------------------------
    def worker(self) -> ThreadPoolExecutor:
        if self._worker is None:
            self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hybridlint")
            previous = threading.stack_size(_WORKER_STACK)
            try:  # the one thread is started by this first job, with the larger stack
                self._worker.submit(lambda: None).result()
            finally:
                threading.stack_size(previous)
        return self._worker

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.worker(), function, *args)

    def warm_up(self) -> None:
        """Import the linter and lint a small block once, so the first document is fast."""
        sample = (
            "from mxnet.gluon import HybridBlock\n\n\nclass Warm(HybridBlock):\n"
            "    def hybrid_forward(self, F, x):\n        return x[0] + x.shape[0]\n"
        )

        def warm() -> None:
            from .linter import fix_source

            fix_source(sample, "<warm-up>", unsafe=True, line_length=88)

        self.worker().submit(warm)

    # -- documents -----------------------------------------------------------------------
    def path_of(self, uri: str) -> str:
        document = self.workspace.get_text_document(uri)
        if document.path:
            return os.path.abspath(document.path)
        root = self.workspace.root_path or os.getcwd()
        return os.path.join(root, "untitled.py")

    def _analyze(self, text: str, path: str) -> Analysis:
        return analyze(text, path, self.settings.get(path))

    async def analysis_for(self, uri: str) -> Optional[Analysis]:
        """The analysis of the document's current text (kept per document)."""
        if uri not in self.documents:
            return None
        text = self.workspace.get_text_document(uri).source
        path = self.path_of(uri)
        known = self.documents[uri].analysis
        if known is not None and known.text == text and known.path == path:
            return known
        analysis = await self.run(self._analyze, text, path)
        state = self.documents.get(uri)
        if state is not None and self.workspace.get_text_document(uri).source == text:
            state.analysis = analysis
        return analysis

    def positions(self, text: str) -> Positions:
        return Positions(text, self.workspace.position_codec.client_num_units)

    def schedule(self, uri: str, delay: float) -> None:
        """Lint the document after ``delay`` seconds unless it changes again before."""
        state = self.documents.setdefault(uri, _Document())
        if state.pending is not None:
            state.pending.cancel()
        state.pending = asyncio.ensure_future(self._lint_later(uri, delay))

    async def _lint_later(self, uri: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        try:
            analysis = await self.analysis_for(uri)
        except Exception:  # never end the server: log it and leave the diagnostics as they are
            log.exception("hybridlint: linting %s failed", uri)
            return
        if analysis is None or uri not in self.documents:
            return
        document = self.workspace.get_text_document(uri)
        if document.source != analysis.text:
            return  # changed while linting: the newer lint publishes
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(
                uri=uri,
                version=document.version,
                diagnostics=diagnostics(analysis, self.positions(analysis.text)),
            )
        )

    def close(self, uri: str) -> None:
        state = self.documents.pop(uri, None)
        if state is not None and state.pending is not None:
            state.pending.cancel()
        self.text_document_publish_diagnostics(
            lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[])
        )

    def configuration_changed(self) -> None:
        self.settings.clear()
        for uri, state in self.documents.items():
            state.analysis = None
            self.schedule(uri, 0)

    # -- code actions and hover ----------------------------------------------------------
    def workspace_edit(
        self, uri: str, version: Optional[int], edit: lsp.TextEdit
    ) -> lsp.WorkspaceEdit:
        capabilities = self.client_capabilities.workspace
        edit_caps = capabilities.workspace_edit if capabilities else None
        if edit_caps is not None and edit_caps.document_changes:
            return lsp.WorkspaceEdit(
                document_changes=[
                    lsp.TextDocumentEdit(
                        text_document=lsp.OptionalVersionedTextDocumentIdentifier(uri, version),
                        edits=[edit],
                    )
                ]
            )
        return lsp.WorkspaceEdit(changes={uri: [edit]})

    def resolves_edits(self) -> bool:
        """Whether the client fills in an action's edit by ``codeAction/resolve`` (VS Code,
        Neovim 0.8+): the actions are then listed at once and each fix is computed only when
        the user picks it (a fix re-lints the file; the lightbulb must not wait for that)."""
        document = self.client_capabilities.text_document
        options = document.code_action if document else None
        resolve = options.resolve_support if options else None
        return bool(options and options.data_support and resolve and "edit" in resolve.properties)

    async def code_actions(self, params: lsp.CodeActionParams) -> List[lsp.CodeAction]:
        uri = params.text_document.uri
        analysis = await self.analysis_for(uri)
        if analysis is None:
            return []
        version = self.workspace.get_text_document(uri).version
        only = params.context.only
        lazy = self.resolves_edits()

        def wanted(kind: str) -> bool:
            return not only or any(kind == k or kind.startswith(f"{k}.") for k in only)

        positions = self.positions(analysis.text)
        actions: List[lsp.CodeAction] = []

        async def add(title: str, kind: str, what: str, finding: Optional[Finding]) -> None:
            found = [diagnostic(finding, positions)] if finding is not None else None
            preferred = what == "fix" and finding is not None and finding.fix is FixSafety.SAFE
            action = lsp.CodeAction(
                title=title, kind=kind, diagnostics=found, is_preferred=preferred or None
            )
            where = None if finding is None else [finding.code, finding.line, finding.col]
            action.data = {"uri": uri, "version": version, "what": what, "finding": where}
            if not lazy:
                edit = await self.action_edit(analysis, what, finding, uri, version)
                if edit is None:
                    return
                action.edit, action.data = edit, None
            actions.append(action)

        quick = lsp.CodeActionKind.QuickFix
        for finding in analysis.findings:
            if not _overlaps(positions.finding_range(finding), params.range) or not wanted(quick):
                continue
            if analysis.fixable(finding):
                await add(fix_title(finding), quick, "fix", finding)
            if finding.code not in _NO_SUPPRESSION:
                await add(f"Suppress {finding.code} on this line", quick, "suppress", finding)
        safe = any(f.fix is FixSafety.SAFE for f in analysis.findings)
        if wanted(FIX_ALL_KIND) and safe and analysis.problem is None:
            await add("hybridlint: fix all safe fixes", FIX_ALL_KIND, "fix-all", None)
        return actions

    async def action_edit(
        self, analysis: Analysis, what: str, finding: Optional[Finding], uri: str, version: Any
    ) -> Optional[lsp.WorkspaceEdit]:
        """The edit of one action on this analysis' text, None when it changes nothing."""
        if what == "fix-all":
            new = await self.run(analysis.fix_all_text)
        elif finding is None:
            return None
        elif what == "fix":
            new = await self.run(analysis.fix_text, finding)
        else:
            new = await self.run(analysis.suppress_text, finding)
        if new is None:
            return None
        return self.workspace_edit(uri, version, self.positions(analysis.text).edit(new))

    async def resolve_action(self, action: lsp.CodeAction) -> lsp.CodeAction:
        """``codeAction/resolve``: the edit of an action listed without one. An action of an
        older version of the document, or whose fix turns out to change nothing, is returned
        without an edit (applying it does nothing)."""
        data = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        if not isinstance(uri, str) or uri not in self.documents:
            return action
        if self.workspace.get_text_document(uri).version != data.get("version"):
            return action
        analysis = await self.analysis_for(uri)
        if analysis is None:
            return action
        where = data.get("finding")
        finding = None
        if where is not None:
            finding = next(
                (f for f in analysis.findings if [f.code, f.line, f.col] == list(where)), None
            )
        edit = await self.action_edit(
            analysis, str(data.get("what")), finding, uri, data["version"]
        )
        if edit is not None:
            action.edit = edit
        return action

    async def hover(self, params: lsp.HoverParams) -> Optional[lsp.Hover]:
        analysis = await self.analysis_for(params.text_document.uri)
        if analysis is None:
            return None
        positions = self.positions(analysis.text)
        point = lsp.Range(params.position, params.position)
        for finding in analysis.findings:
            where = positions.finding_range(finding)
            if _overlaps(where, point):
                return lsp.Hover(
                    contents=lsp.MarkupContent(lsp.MarkupKind.Markdown, hover_markdown(finding)),
                    range=where,
                )
        return None


def _is_config_file(uri: str) -> bool:
    """A pyproject.toml, hybridlint.toml or .hybridlint.toml (config.CONFIG_FILES)."""
    name = uri.rstrip("/").rsplit("/", 1)[-1]
    return name in CONFIG_FILES


def create_server(debounce: float = DEBOUNCE_SECONDS) -> HybridlintServer:
    """The server with its features registered (started by :func:`main`)."""
    server = HybridlintServer(debounce)

    @server.feature(lsp.INITIALIZED)
    def initialized(ls: HybridlintServer, params: lsp.InitializedParams) -> None:
        ls.warm_up()

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: HybridlintServer, params: lsp.DidOpenTextDocumentParams) -> None:
        if _is_config_file(params.text_document.uri):
            return
        ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: HybridlintServer, params: lsp.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri in ls.documents:
            ls.schedule(params.text_document.uri, ls.debounce)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE, lsp.SaveOptions(include_text=False))
    def did_save(ls: HybridlintServer, params: lsp.DidSaveTextDocumentParams) -> None:
        if _is_config_file(params.text_document.uri):
            ls.configuration_changed()
        elif params.text_document.uri in ls.documents:
            ls.schedule(params.text_document.uri, 0)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: HybridlintServer, params: lsp.DidCloseTextDocumentParams) -> None:
        ls.close(params.text_document.uri)

    @server.feature(lsp.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def watched(ls: HybridlintServer, params: lsp.DidChangeWatchedFilesParams) -> None:
        if any(_is_config_file(change.uri) for change in params.changes):
            ls.configuration_changed()

    @server.feature(
        lsp.TEXT_DOCUMENT_CODE_ACTION,
        lsp.CodeActionOptions(
            code_action_kinds=[lsp.CodeActionKind.QuickFix, FIX_ALL_KIND], resolve_provider=True
        ),
    )
    async def code_action(
        ls: HybridlintServer, params: lsp.CodeActionParams
    ) -> List[lsp.CodeAction]:
        return await ls.code_actions(params)

    @server.feature(lsp.CODE_ACTION_RESOLVE)
    async def code_action_resolve(ls: HybridlintServer, action: lsp.CodeAction) -> lsp.CodeAction:
        return await ls.resolve_action(action)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    async def hover(ls: HybridlintServer, params: lsp.HoverParams) -> Optional[lsp.Hover]:
        return await ls.hover(params)

    return server


def main() -> None:
    """Serve over stdin/stdout until the client says exit (``hybridlint server``)."""
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    create_server().start_io()
