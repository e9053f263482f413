"""The ``hybridlint`` command.

``hybridlint [OPTIONS] [PATHS]...`` lints, like ruff. To offer that together with subcommands
(``rule``, ``rules``, ``verify``) the top-level group is a :class:`DefaultCommandGroup`: when the
first argument is not a subcommand name (or the group's own ``--help``/``--version``), the
arguments belong to the default ``check`` command. A directory literally named like a
subcommand is linted with ``hybridlint check rules`` or ``hybridlint ./rules``.

Exit codes: 0 nothing left to report, 1 findings remain, 2 usage, configuration or internal
error. Any unexpected exception becomes one line on stderr and exit 2; set
``HYBRIDLINT_DEBUG=1`` to see the traceback instead.
"""

from __future__ import annotations

import errno
import io
import os
import sys
import textwrap
from typing import TYPE_CHECKING, BinaryIO, List, Optional, Sequence

import click

from . import __version__
from .baseline import BaselineError, BaselineFilter, write_baseline
from .checker_bridge import (
    VerificationUnavailable,
    examples_for,
    examples_table,
    load_checker,
    require_backend,
)
from .config import ConfigError, RuleSelection, load_config, split_codes
from .ftypes import RunResult
from .reporters import EDIT_FORMATS, FORMATS, ReportContext, get_reporter
from .reporters.text import fixes_sentence, not_proven
from .runner import RunOptions, default_jobs, diff_bytes, run

if TYPE_CHECKING:  # rich is imported when a bar is drawn, not at startup
    from rich.progress import Progress, TaskID

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
PROGRESS_MIN_FILES = 20  # fewer files than this finish before a bar is worth drawing
VERIFY_MIN_WIDTH = 40  # --verify notes on a terminal narrower than this wrap at this width
VERIFY_DEFAULT_WIDTH = 100  # ... and on a terminal that does not tell its width


class HybridlintError(click.ClickException):
    """A failure the user can act on, printed as one line; exit code 2."""

    exit_code = EXIT_ERROR

    def show(self, file=None) -> None:
        click.echo(f"hybridlint: error: {self.format_message()}", err=True)


class DefaultCommandGroup(click.Group):
    """A group that runs ``check`` when the first argument is not a subcommand.

    It is also where every exception turns into an exit code: hybridlint's own errors
    (configuration, baseline, verification unavailable) become one line and exit 2, and so does
    anything unexpected ("internal error"), unless ``HYBRIDLINT_DEBUG=1`` asks for the traceback.
    """

    default_command = "check"

    def parse_args(self, ctx: click.Context, args: List[str]) -> List[str]:
        group_options = {"--help", "-h", "--version"}
        if not args or (args[0] not in self.commands and args[0] not in group_options):
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except (ConfigError, BaselineError, VerificationUnavailable) as exc:
            raise HybridlintError(str(exc)) from exc
        except BrokenPipeError:  # `hybridlint rules | head`: exit quietly, as other CLIs do
            _silence_stdout()
            raise click.exceptions.Exit(EXIT_FINDINGS) from None
        except OSError as exc:
            if exc.errno not in _OUTPUT_ERRNOS:
                raise _internal_error(exc) from exc
            # stdout closed (`>&-`) or failing (a full disk, `> /dev/full`): the output is lost
            _silence_stdout()
            raise HybridlintError(f"cannot write the output: {_reason(exc)}") from None
        except KeyboardInterrupt:  # click would exit 1, which reads as "findings remain"
            raise HybridlintError("interrupted") from None
        except Exception as exc:  # noqa: BLE001 - the promise is "never a traceback"
            raise _internal_error(exc) from exc


def _internal_error(exc: BaseException) -> HybridlintError:
    if os.environ.get("HYBRIDLINT_DEBUG") == "1":
        raise exc
    return HybridlintError(
        f"internal error: {type(exc).__name__}: {exc} (HYBRIDLINT_DEBUG=1 shows the traceback)"
    )


# errnos of a standard stream that cannot take the output: closed, a full disk or quota, a
# file size limit, an I/O error (OSErrors with other errnos stay internal errors)
_OUTPUT_ERRNOS = {errno.EBADF, errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


class _ClosedOutput(io.TextIOBase):
    """``sys.stdout`` when its descriptor was closed (``hybridlint ... >&-``: Python then sets
    it to None): output written to it is an OSError (EBADF, "stdout is closed"), so that a
    report that cannot be written ends the run with exit 2 and one line on stderr; a run
    that writes nothing (``--quiet``, clean) exits as its findings say."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name
        self.buffer = _ClosedBinaryOutput(name)

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if text:
            raise OSError(errno.EBADF, f"{self.name} is closed")
        return 0

    def isatty(self) -> bool:
        return False


class _ClosedBinaryOutput(io.RawIOBase):
    """The binary side of :class:`_ClosedOutput` (diffs and fixed sources are bytes)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        if len(data):
            raise OSError(errno.EBADF, f"{self.name} is closed")
        return 0


def _closed_streams_to_devnull() -> None:
    """Standard descriptors that were closed (``>&-``, ``2>&-``) are opened on /dev/null,
    so that no file hybridlint opens takes their number (a child process writing to its
    stdout would write into it). A closed stdout becomes :class:`_ClosedOutput`; a closed
    stderr stays None, which click's echo skips (messages on stderr are not the report; with
    ``--stdin-filename --fix`` the report goes to stderr and a closed one loses it: exit 2)."""
    for fd in (0, 1, 2):
        try:
            os.fstat(fd)
        except OSError:
            try:
                opened = os.open(os.devnull, os.O_RDWR)
            except OSError:
                continue
            if opened != fd:  # a lower descriptor was free: not this one's place
                os.dup2(opened, fd)
                os.close(opened)
    if sys.stdout is None:
        sys.stdout = _ClosedOutput("stdout")


def _backend_option(default: Optional[str], text: str):
    """``--backend engine|mxnet`` (check --verify, verify)."""
    return click.option(
        "--backend",
        type=click.Choice(["engine", "mxnet"]),
        default=default,
        show_default=default is not None,
        help=text,
    )


def _timeout_option(text: str):
    """``--timeout SECONDS``: the checker's time limit per job."""
    return click.option(
        "--timeout",
        type=click.FloatRange(min=0, min_open=True),
        default=None,
        metavar="SECONDS",
        help=text,
    )


@click.group(cls=DefaultCommandGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(
    __version__, "--version", prog_name="hybridlint", message="%(prog)s %(version)s"
)
def cli() -> None:
    """Find and fix MXNet Gluon code that breaks under HybridBlock.hybridize().

    Without a subcommand, `hybridlint [OPTIONS] [PATHS]...` runs `check`
    (see `hybridlint check --help`).
    """


@cli.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--fix", is_flag=True, help="Apply fixes to the files.")
@click.option("--diff", is_flag=True, help="Print the fixes as a unified diff; write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes marked unsafe.")
@click.option(
    "--verify",
    is_flag=True,
    help="With --fix/--diff: keep only fixes the equivalence checker proves "
    "(runs your code, as a test suite does).",
)
@_backend_option(None, "With --verify: run on the bundled engine (default) or on real MXNet.")
@_timeout_option("With --verify: time limit per checker job (default 60).")
@click.option("--select", metavar="CODES", help="Enable only these codes or prefixes (HL003,HL0).")
@click.option("--ignore", metavar="CODES", help="Disable these codes or prefixes.")
@click.option("--extend-select", metavar="CODES", help="Enable these in addition to the selection.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option("--statistics", is_flag=True, help="Show counts per rule instead of each finding.")
@click.option(
    "--show-fixes", is_flag=True, help="With --fix: list what was fixed, per file and code."
)
@click.option(
    "--stdin-filename",
    metavar="PATH",
    help="Read the source from stdin and report it as PATH (editors); with --fix, "
    "print the fixed source on stdout and the findings on stderr.",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: the number of cores).",
)
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    help="Read [tool.hybridlint] from this file instead of searching for one.",
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False),
    help="Tolerate the findings recorded in this baseline file.",
)
@click.option(
    "--write-baseline",
    "write_baseline_file",
    type=click.Path(dir_okay=False),
    help="Record the current findings in this baseline file and exit 0.",
)
@click.option("--quiet", "-q", is_flag=True, help="Print findings only: no source, no summary.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the result cache.")
@click.version_option(
    __version__, "--version", prog_name="hybridlint", message="%(prog)s %(version)s"
)
@click.pass_context
def check(ctx: click.Context, paths: Sequence[str], **options) -> None:
    """Lint PATHS (default: the current directory); with --fix, rewrite them."""
    ctx.exit(_check(list(paths) or ["."], **options))


def _check(
    paths: List[str],
    *,
    fix: bool,
    diff: bool,
    unsafe_fixes: bool,
    verify: bool,
    backend: Optional[str] = None,
    timeout: Optional[float] = None,
    select: Optional[str],
    ignore: Optional[str],
    extend_select: Optional[str],
    output_format: str,
    statistics: bool,
    exit_zero: bool,
    jobs: Optional[int],
    show_fixes: bool = False,
    stdin_filename: Optional[str] = None,
    config_file: Optional[str],
    baseline_file: Optional[str],
    write_baseline_file: Optional[str],
    quiet: bool,
    no_cache: bool,
) -> int:
    """The check command's work; returns the exit code."""
    if verify and not (fix or diff):
        raise click.UsageError("--verify checks fixes: use it with --fix or --diff")
    if (backend or timeout) and not verify:
        raise click.UsageError("--backend and --timeout apply to --verify")
    if write_baseline_file and baseline_file:
        raise click.UsageError("--baseline and --write-baseline cannot be used together")
    if stdin_filename is not None:
        if paths not in (["."], ["-"]):
            raise click.UsageError("--stdin-filename reads stdin: give no PATHS (or -)")
        if verify or write_baseline_file:
            raise click.UsageError(
                "--stdin-filename cannot be used with --verify or --write-baseline"
            )
        paths = [stdin_filename]
    config = load_config(paths, config_file)
    selection = RuleSelection.build(
        config,
        select=split_codes(select, "--select"),
        extend_select=split_codes(extend_select, "--extend-select"),
        ignore=split_codes(ignore, "--ignore"),
    )
    # --verify: the examples table is parsed (and validated) once, here, for the whole run,
    # and a backend that cannot be used is one error before any block starts
    examples = examples_table(config) if verify else None
    if verify:
        require_backend(backend or "engine")
    baseline = BaselineFilter.load(baseline_file) if baseline_file else None
    if stdin_filename is not None:
        return _check_stdin(
            stdin_filename,
            RunOptions(
                config=config,
                selection=selection,
                fix=fix and not diff,
                diff=diff,
                unsafe_fixes=unsafe_fixes,
                use_cache=False,
                fix_edits=output_format in EDIT_FORMATS,
            ),
            baseline,
            output_format,
            statistics,
            exit_zero,
            quiet,
            show_fixes,
        )
    options = RunOptions(
        config=config,
        selection=selection,
        fix=fix and not diff,
        diff=diff,
        unsafe_fixes=unsafe_fixes,
        verify=verify,
        backend=backend or "engine",
        timeout=timeout,
        jobs=jobs or default_jobs(),
        use_cache=not no_cache,
        examples=examples,
        fix_edits=output_format in EDIT_FORMATS and not write_baseline_file,
    )
    with _progress_bar(enabled=not quiet and _isatty(sys.stderr)) as progress:
        options.progress = progress
        result = run(paths, options)
    for warning in result.warnings:
        click.echo(f"hybridlint: warning: {warning}", err=True)

    if write_baseline_file:
        count = write_baseline(write_baseline_file, result.issues)
        click.echo(f"Wrote {count} findings to {write_baseline_file}.", err=True)
        return EXIT_CLEAN
    baselined = _apply_baseline(result, baseline) if baseline else 0
    if verify and not quiet:
        _report_verification(result)
    if diff:
        return _report_diff(result, quiet)
    ctx = ReportContext(
        unsafe_fixes=unsafe_fixes,
        fix_mode=fix,
        statistics=statistics,
        quiet=quiet,
        color=output_format == "text" and _color(sys.stdout),
        baselined=baselined,
        root=config.root,
        show_fixes=show_fixes,
        verify=verify,
    )
    try:
        get_reporter(output_format)(result, sys.stdout, ctx)
        sys.stdout.flush()
    except BrokenPipeError:  # `hybridlint | head`: the reader has seen enough
        _silence_stdout()
    except OSError as exc:  # closed, or a full disk: the report is lost
        raise _unwritten("the report", "stdout", exc) from None
    # A file that could not be written (or linted) is an error whatever --exit-zero says:
    # the user asked for a fix that did not happen.
    if any(o.internal or o.error for o in result.outcomes):
        return EXIT_ERROR
    if exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if result.issues else EXIT_CLEAN


def _check_stdin(
    path: str,
    options: RunOptions,
    baseline,
    output_format: str,
    statistics: bool,
    exit_zero: bool,
    quiet: bool,
    show_fixes: bool,
) -> int:
    """``--stdin-filename``: one source from stdin. With --fix the fixed source goes to stdout
    (whole, even when nothing changed, as formatters' editor plugins expect) and the report
    to stderr; with --diff the diff goes to stdout."""
    from .runner import run_stdin

    raw = _binary_stream("stdin").read()
    result, out = run_stdin(raw, path, options)
    baselined = _apply_baseline(result, baseline) if baseline else 0
    stdout = _binary_stream("stdout")
    if options.diff:
        return _report_diff(result, quiet)
    report_to, name = sys.stdout, "stdout"
    if options.fix:
        try:
            stdout.write(out)
            stdout.flush()
        except OSError as exc:  # a pipe closed early included: the source did not get out
            raise _unwritten("the fixed source", "stdout", exc) from None
        report_to, name = sys.stderr or _ClosedOutput("stderr"), "stderr"
    ctx = ReportContext(
        unsafe_fixes=options.unsafe_fixes,
        fix_mode=options.fix,
        statistics=statistics,
        quiet=quiet,
        color=False,
        baselined=baselined,
        root=options.config.root,
        show_fixes=show_fixes,
    )
    try:
        get_reporter(output_format)(result, report_to, ctx)
        report_to.flush()
    except BrokenPipeError:
        if name == "stdout":
            _silence_stdout()
    except OSError as exc:
        raise _unwritten("the report", name, exc) from None
    if any(o.internal or o.error for o in result.outcomes):
        return EXIT_ERROR
    if exit_zero:
        return EXIT_CLEAN
    return EXIT_FINDINGS if result.issues else EXIT_CLEAN


def _unwritten(what: str, name: str, exc: OSError) -> Exception:
    """The error ending a run whose ``what`` could not be written to stream ``name``: one
    line on stderr (exit 2); stdout is silenced so that the interpreter's last flush does
    not fail on it again. Other OSErrors are internal errors."""
    if exc.errno not in _OUTPUT_ERRNOS:
        return _internal_error(exc)
    if name == "stdout":
        _silence_stdout()
    return HybridlintError(f"cannot write {what} to {name}: {_reason(exc)}")


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so that nothing else (the interpreter's
    final flush included) fails writing to it."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (tests' captured output)
        pass


def _color(stream) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org)."""
    return _isatty(stream) and not os.environ.get("NO_COLOR")


def _isatty(stream) -> bool:
    """Whether ``stream`` is a terminal; a closed one (None, or closed by now) is not."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def _apply_baseline(result: RunResult, baseline: BaselineFilter) -> int:
    kept, tolerated = baseline.new_issues(result.issues)
    keep = {id(issue) for issue in kept}
    for outcome in result.outcomes:
        outcome.issues = [issue for issue in outcome.issues if id(issue) in keep]
    return tolerated


def _report_verification(result: RunResult) -> None:
    """--verify: for each file, which fixes which example proved, which were left out and
    why, and each example's final verdict (stderr, so stdout stays the report or the diff).

    On a terminal each note is wrapped to its width, the continuation lines indented under
    the note's text; piped, a note is one line (for grep, as the finding lines are)."""
    width = _terminal_width(sys.stderr)
    for outcome in result.outcomes:
        if outcome.verification:
            click.echo(f"verify {outcome.path}:", err=True)
            for line in outcome.verification:
                click.echo(verification_note(line, width), err=True)


def _terminal_width(stream) -> Optional[int]:
    """The width of the terminal ``stream`` writes to (``COLUMNS`` first, as
    ``shutil.get_terminal_size`` does for stdout; unknown: 100), None when it is no terminal."""
    try:
        if not stream.isatty():
            return None
    except (AttributeError, ValueError):  # no isatty, or closed
        return None
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(stream.fileno()).columns
        except (AttributeError, OSError, ValueError):
            columns = 0
    return columns if columns > 0 else VERIFY_DEFAULT_WIDTH


def verification_note(note: str, width: Optional[int]) -> str:
    """One ``--verify`` note as printed: indented by two, and with a ``width``, wrapped at
    spaces to it with continuation lines indented by six (``path:line:col:`` and other
    words are never split, so the location stays clickable)."""
    if width is None:
        return f"  {note}"
    return textwrap.fill(
        note,
        width=max(width, VERIFY_MIN_WIDTH),
        initial_indent="  ",
        subsequent_indent="      ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def _binary_stream(name: str) -> BinaryIO:
    """The byte stream under ``sys.stdin`` or ``sys.stdout``: diffs and fixed sources are bytes
    in each file's own encoding. (Click's ``get_binary_stream`` is deprecated since 8.5.)"""
    buffer = getattr(getattr(sys, name), "buffer", None)
    if buffer is None:  # replaced by a text-only stream (an embedding host, StringIO)
        raise HybridlintError(f"{name} takes no bytes here (it has no binary buffer)")
    return buffer


def _report_diff(result: RunResult, quiet: bool) -> int:
    """``--diff``: the diffs on stdout, a summary on stderr; exit 1 when something would change."""
    diffs = [o for o in result.outcomes if o.diff]
    out = _binary_stream("stdout")
    try:
        for outcome in diffs:  # bytes in each file's own encoding, so that `git apply` matches
            out.write(diff_bytes(outcome))
        out.flush()
    except BrokenPipeError:
        _silence_stdout()
    except OSError as exc:
        raise _unwritten("the diff", "stdout", exc) from None
    for outcome in result.outcomes:
        if outcome.error:
            click.echo(f"{outcome.path}: error: {outcome.error}", err=True)
    if not quiet:
        fixes, revealed = sum(o.fixed for o in diffs), sum(o.revealed for o in diffs)
        message = fixes_sentence(fixes, revealed, len(diffs)) if diffs else "No fixes to apply."
        rejected = sum(o.rejected for o in result.outcomes)
        if rejected:
            message += " " + not_proven(rejected, "left out")
        click.echo(message, err=True)
    if any(o.internal or o.error for o in result.outcomes):
        return EXIT_ERROR
    failing = any(i.code == "HL903" for o in result.outcomes for i in o.issues)
    return EXIT_FINDINGS if diffs or failing else EXIT_CLEAN


class _progress_bar:
    """A transient rich progress bar on stderr, drawn only for runs with many files to lint."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self._progress: Optional[Progress] = None  # once drawn
        self._task: Optional[TaskID] = None  # set together with _progress

    def __enter__(self):
        return self.update if self.enabled else None

    def update(self, done: int, total: int) -> None:
        if self._progress is None:
            if total < PROGRESS_MIN_FILES:
                return
            from rich.console import Console
            from rich.progress import Progress

            self._progress = Progress(console=Console(stderr=True), transient=True)
            self._progress.start()
            self._task = self._progress.add_task("Linting", total=total)
        assert self._task is not None  # set together with _progress
        self._progress.update(self._task, completed=done)

    def __exit__(self, *exc_info) -> None:
        if self._progress is not None:
            self._progress.stop()


@cli.command()
@click.argument("code")
@click.option("--details", is_flag=True, help="Also print the rule's reference sections.")
def rule(code: str, details: bool) -> None:
    """Explain rule CODE: what it does, why it breaks, an example, the fix and its safety."""
    from .reporters import rule_catalog
    from .ruledoc import page

    catalog = rule_catalog()
    key = code.strip().upper()
    if key not in catalog:
        raise click.UsageError(f"unknown rule {code!r} (run `hybridlint rules` for the list)")
    name, message, explanation = catalog[key]
    text = page(key, name, message, explanation, details=details)
    if _color(sys.stdout):
        from rich.console import Console
        from rich.markdown import Markdown

        Console().print(Markdown(text))
    else:
        click.echo(text, nl=False)


@cli.command(name="rules")
def list_rules() -> None:
    """List every rule: code, name and what it reports."""
    from .reporters import rule_catalog

    catalog = rule_catalog()
    if _color(sys.stdout):
        from rich.console import Console
        from rich.table import Table

        table = Table("code", "name", "what")
        for code, (name, message, _) in catalog.items():
            table.add_row(code, name, message)
        Console().print(table)
    else:
        width = max(len(name) for name, _, _ in catalog.values())
        for code, (name, message, _) in catalog.items():
            click.echo(f"{code}  {name:<{width}}  {message}")


@cli.command()
def server() -> None:
    """Run the language server (LSP over stdio) for editors: README, "Editor integration"."""
    try:
        from .server import main as serve
    except ImportError as exc:  # pygls and lsprotocol: the optional `lsp` extra
        if (exc.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise
        click.echo(
            "hybridlint: error: the language server needs pygls and lsprotocol: pip install "
            "'pygls>=2,<3' 'lsprotocol>=2025.0.0' (from a clone: pip install -e '.[lsp]')",
            err=True,
        )
        click.get_current_context().exit(EXIT_ERROR)
    serve()


@cli.command()
@click.argument("target", metavar="FILE::CLASS")
@click.option(
    "--input",
    "inputs",
    multiple=True,
    metavar="SHAPE[:DTYPE]",
    help="One forward() input, e.g. 2,64,8,8 or 2,16:int32 (repeat per input). "
    "Default: the examples configured for the file.",
)
@click.option(
    "--kwarg",
    "kwargs",
    multiple=True,
    metavar="NAME=VALUE",
    help="A constructor argument, e.g. channels=64 (a Python literal; repeatable).",
)
@_backend_option("engine", "Run on the bundled engine or on real MXNet.")
@_timeout_option("Time limit per checked example (default 60).")
@click.option(
    "--config",
    "config_file",
    type=click.Path(dir_okay=False),
    help="Read [tool.hybridlint] from this file instead of searching for one.",
)
def verify(
    target: str,
    inputs: Sequence[str],
    kwargs: Sequence[str],
    backend: str,
    timeout: Optional[float],
    config_file: Optional[str],
) -> None:
    """Run block CLASS of FILE eagerly and hybridized and compare the outputs."""
    require_backend(backend)  # README: exit 2, not "not equal"
    checker = load_checker()
    try:
        path, class_name = checker.parse_target(target)
        specs = tuple(checker.parse_input_option(text) for text in inputs)
        constructor = checker.parse_kwarg_options(kwargs)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from exc
    if not os.path.isfile(path):
        raise click.UsageError(f"{path}: no such file")
    _check_kwarg_kinds(path, class_name, kwargs)
    if specs:
        if not class_name:
            raise click.UsageError("with --input, name the block: FILE::CLASS")
        examples = [checker.Example(target=class_name, inputs=specs, kwargs=constructor)]
    else:
        config = load_config([path], config_file)
        examples = examples_for(config, path)  # a malformed table is a ConfigError
        examples = [e for e in examples if not class_name or e.target == class_name]
        if not examples:
            raise click.UsageError(
                f"no inputs for {target}: give --input SHAPE or configure "
                "[tool.hybridlint.examples] (or [examples] in a hybridlint.toml)"
            )
    reports = checker.check_file(path, examples, backend=backend, timeout=timeout)
    for report in reports:
        click.echo(report.summary())
        for finding in report.runtime_findings:  # dynamic lint: seen while tracing
            click.echo(
                f"  {finding.path}:{finding.line}:{finding.col}: {finding.code} {finding.message}"
            )
    click.get_current_context().exit(
        EXIT_CLEAN if reports and all(r.ok for r in reports) else EXIT_FINDINGS
    )


def _check_kwarg_kinds(path: str, class_name: Optional[str], options: Sequence[str]) -> None:
    """``--kwarg units=eight`` is a usage error when ``CLASS.__init__`` declares ``units`` a
    number (annotation or literal default): the value is not a literal, so it would reach
    the constructor as the string 'eight' and fail far from the typo. Read from the source
    with ``ast``; nothing is imported."""
    import ast

    if not class_name or not options:
        return
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return  # the checker reports what is wrong with the file
    init = next(
        (
            item
            for node in ast.walk(tree)
            if isinstance(node, ast.ClassDef) and node.name == class_name
            for item in node.body
            if isinstance(item, ast.FunctionDef) and item.name == "__init__"
        ),
        None,
    )
    if init is None:
        return
    args = init.args.posonlyargs + init.args.args
    defaults = dict(
        zip([a.arg for a in args][len(args) - len(init.args.defaults) :], init.args.defaults)
    )
    defaults.update({a.arg: d for a, d in zip(init.args.kwonlyargs, init.args.kw_defaults) if d})
    numbers = {"int": int, "float": float, "bool": bool}
    for arg in args + init.args.kwonlyargs:
        kind = None
        if isinstance(arg.annotation, ast.Name) and arg.annotation.id in numbers:
            kind = arg.annotation.id
        default = defaults.get(arg.arg)
        if (
            kind is None
            and isinstance(default, ast.Constant)
            and type(default.value) in numbers.values()
        ):
            kind = type(default.value).__name__
        if kind is None:
            continue
        for text in options:
            name, _, value = text.partition("=")
            if name.strip() != arg.arg:
                continue
            try:
                parsed = ast.literal_eval(value.strip())
            except (ValueError, SyntaxError):
                parsed = value.strip()
            if isinstance(parsed, str):
                raise click.UsageError(
                    f"--kwarg {text}: {class_name}.__init__ takes {arg.arg} as {kind}, "
                    f"and {value.strip()!r} is not a number"
                )


def main(argv: Optional[Sequence[str]] = None) -> None:
    """Console-script entry point (also ``python -m hybridlint``)."""
    _closed_streams_to_devnull()
    for stream in (sys.stdout, sys.stderr):
        # A source line the terminal's encoding cannot show must not end the run.
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    cli.main(args=list(argv) if argv is not None else None, prog_name="hybridlint")
