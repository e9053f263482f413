"""The `hybridlint` command through click's CliRunner: options, exit codes, files, config."""

import json
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridlint import runner
from hybridlint.cli import cli

BAD = textwrap.dedent("""\
    from mxnet.gluon import HybridBlock


    class Net(HybridBlock):
        def hybrid_forward(self, F, x):
            y = x[:, 0]
            return y + 1
""")
FIXED_LINE = "F.slice_axis("
CLEAN = textwrap.dedent("""\
    from mxnet.gluon import HybridBlock


    class Net(HybridBlock):
        def hybrid_forward(self, F, x):
            return F.relu(x)
""")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project (its own pyproject.toml, so nothing above leaks in) as the cwd."""
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def put(root, rel, text, newline="\n", encoding="utf-8"):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode(encoding))
    return path


def _runner():
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        return CliRunner(mix_stderr=False)
    except TypeError:  # click >= 8.2: always separate
        return CliRunner()


def hl(*args):
    return _runner().invoke(cli, list(args))


def test_findings_exit_1_with_clickable_location(project):
    put(project, "pkg/net.py", BAD)
    result = hl("pkg")
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith("pkg/net.py:6:13: HL003 [*] ")
    assert "    y = x[:, 0]" in result.stdout
    assert result.stdout.splitlines()[-1].startswith("Found 1 finding in 1 file.")


def test_clean_tree_exit_0_and_default_path(project):
    put(project, "net.py", CLEAN)
    put(project, "notes.txt", "x[0]\n")
    result = hl()
    assert result.exit_code == 0, result.output
    assert result.stdout == "All checks passed (1 file checked).\n"


def test_subcommand_form_and_default_form_agree(project):
    put(project, "net.py", BAD)
    assert hl("check", "net.py").stdout == hl("net.py").stdout


def test_fix_rewrites_and_is_idempotent(project):
    path = put(project, "net.py", BAD)
    result = hl("--fix", "net.py")
    assert result.exit_code == 0, result.output
    assert "Fixed 1 finding." in result.stdout
    fixed = path.read_text()
    assert FIXED_LINE in fixed and "x[:, 0]" not in fixed
    again = hl("--fix", "net.py")
    assert again.exit_code == 0 and "Fixed" not in again.stdout
    assert path.read_text() == fixed


def test_fix_keeps_crlf_bom_and_mode(project):
    path = put(project, "net.py", BAD, newline="\r\n", encoding="utf-8-sig")
    os.chmod(path, 0o640)
    assert hl("--fix", "net.py").exit_code == 0
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert data.count(b"\r\n") == BAD.count("\n") and b"\n" not in data.replace(b"\r\n", b"")
    assert FIXED_LINE.encode() in data
    assert os.stat(path).st_mode & 0o777 == 0o640


def test_diff_prints_and_writes_nothing(project):
    path = put(project, "net.py", BAD)
    result = hl("--diff", "net.py")
    assert result.exit_code == 1
    assert result.stdout.startswith("--- a/net.py\n+++ b/net.py\n")
    assert "-        y = x[:, 0]" in result.stdout and "+        y = F.squeeze(" in result.stdout
    assert "Would fix 1 finding in 1 file." in result.stderr
    assert path.read_text() == BAD
    put(project, "clean.py", CLEAN)
    assert hl("--diff", "clean.py").exit_code == 0


def test_select_ignore_extend_select(project):
    put(project, "net.py", BAD)
    put(project, "broken.py", "class A(HybridBlock):\n    def hybrid_forward(self, F, x):\n  (\n")
    assert hl("--select", "HL003", ".").stdout.count("HL003") == 1
    assert "HL900" in hl("--select", "HL003", ".").stdout  # file errors: whatever the selection
    assert "HL003" not in hl("--ignore", "HL0", ".").stdout
    extended = hl("--select", "HL003", "--extend-select", "HL900", ".").stdout
    assert "HL003" in extended and "HL900" in extended
    ignored = hl("--ignore", "HL003,HL9", ".")
    assert ignored.exit_code == 1 and "HL900" in ignored.stdout and "HL003" not in ignored.stdout


def test_bad_codes_are_usage_errors(project):
    put(project, "net.py", BAD)
    for args in (["--select", "E501"], ["--ignore", "HL05"]):
        result = hl(*args, ".")
        assert result.exit_code == 2
        assert result.stderr.startswith("hybridlint: error: ")
        assert "Traceback" not in result.output


def test_config_file_is_honoured(project):
    put(project, "net.py", BAD)
    put(project, "tests/test_net.py", BAD)
    put(project, "legacy/old.py", BAD)
    (project / "pyproject.toml").write_text(
        textwrap.dedent("""\
        [tool.hybridlint]
        extend-exclude = ["legacy"]
        [tool.hybridlint.per-file-ignores]
        "tests/*" = ["HL003"]
    """)
    )
    result = hl(".")
    assert [line.split(":")[0] for line in result.stdout.splitlines() if "HL003" in line] == [
        "net.py"
    ]
    # excludes apply to files named explicitly (pre-commit names files)
    assert hl("legacy/old.py").exit_code == 0


def test_invalid_config_is_one_line_exit_2(project):
    put(project, "net.py", BAD)
    (project / "pyproject.toml").write_text("[tool.hybridlint]\nselct = ['HL003']\n")
    result = hl(".")
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "unknown key 'selct'" in result.stderr
    other = put(project, "cfg/alt.toml", "[tool.hybridlint]\nignore = ['HL003']\n")
    assert hl("--config", str(other), ".").exit_code == 0
    assert hl("--config", "missing.toml", ".").exit_code == 2


def test_runner_codes_and_the_run_goes_on(project):
    put(project, "a_broken.py", "class A(HybridBlock):\n    def hybrid_forward(self, F, x):\n  (\n")
    (project / "b_latin.py").write_bytes(b"x = '\xff'\n")
    put(project, "c_net.py", BAD)
    result = hl(".", "missing.py")
    codes = [line.split(" ")[1] for line in result.stdout.splitlines() if ": HL" in line]
    assert codes == ["HL900", "HL901", "HL003", "HL902"]
    assert result.exit_code == 1


def test_unreadable_file_is_hl902(project):
    os.symlink(project / "gone.py", project / "dangling.py")
    result = hl(".")
    assert result.stdout.startswith("dangling.py:1:1: HL902 No such file or directory")
    if os.geteuid() != 0:  # root can read anything
        path = put(project, "net.py", BAD)
        os.chmod(path, 0)
        assert "net.py:1:1: HL902 Permission denied" in hl("net.py").stdout


def test_symlinks_followed_once_and_loops_do_not_hang(project):
    put(project, "pkg/net.py", BAD)
    os.symlink(project / "pkg", project / "pkg" / "loop")
    os.symlink(project / "pkg" / "net.py", project / "alias.py")
    result = hl(".")
    assert result.stdout.count(": HL003") == 1
    assert "Found 1 finding in 1 file." in result.stdout
    # an explicitly named symlink is linted (and fixed through the link)
    assert hl("--fix", "alias.py").exit_code == 0
    assert os.path.islink(project / "alias.py")
    assert FIXED_LINE in (project / "pkg" / "net.py").read_text()


@pytest.mark.skipif(__import__("shutil").which("git") is None, reason="needs git")
def test_gitignore_is_respected_in_a_git_repo(project):
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    (project / ".gitignore").write_text("generated/\n")
    put(project, "generated/net.py", BAD)
    put(project, "src/net.py", BAD)
    result = hl(".")
    assert "src/net.py" in result.stdout and "generated" not in result.stdout
    assert "generated/net.py" in hl("generated/net.py").stdout  # named explicitly: linted
    subprocess.run(["git", "add", "-f", "generated/net.py"], cwd=project, check=True)
    assert "generated/net.py" in hl(".").stdout  # tracked: git's semantics, linted


def test_output_formats(project):
    put(project, "net.py", BAD)
    document = json.loads(hl("--format", "json", ".").stdout)
    assert document["summary"]["findings"] == 1
    assert document["findings"][0]["path"] == "net.py"
    github = hl("--format", "github", ".").stdout
    assert github.startswith("::error file=net.py,line=6,col=13,")
    sarif = json.loads(hl("--format", "sarif", ".").stdout)
    assert sarif["runs"][0]["results"][0]["ruleId"] == "HL003"
    assert "<testsuites" in hl("--format", "junit", ".").stdout
    assert hl("--format", "yaml", ".").exit_code == 2


def test_statistics_quiet_exit_zero(project):
    put(project, "net.py", BAD)
    put(project, "net2.py", BAD)
    first = hl("--statistics", ".").stdout.splitlines()[0]
    assert first == "2  HL003  [*] 2 fixable  tensor-indexing"
    quiet = hl("--quiet", ".")
    assert quiet.exit_code == 1 and len(quiet.stdout.splitlines()) == 2
    assert hl("--exit-zero", ".").exit_code == 0


def test_baseline_tolerates_old_findings_not_new_ones(project):
    path = put(project, "net.py", BAD)
    result = hl("--write-baseline", "hl-baseline.json", ".")
    assert result.exit_code == 0 and "Wrote 1 findings" in result.stderr
    gate = hl("--baseline", "hl-baseline.json", ".")
    assert gate.exit_code == 0, gate.stdout
    assert "1 finding tolerated by the baseline" in gate.stdout
    # moving the finding down does not resurrect it
    path.write_text("import os\n\n" + BAD)
    assert hl("--baseline", "hl-baseline.json", ".").exit_code == 0
    # a second, identical hazard is new
    path.write_text(BAD.replace("return y + 1", "z = x[:, 0]\n        return y + z"))
    gate = hl("--baseline", "hl-baseline.json", ".")
    assert gate.exit_code == 1 and gate.stdout.count(": HL003") == 1
    bad = put(project, "not-a-baseline.json", "[]")
    assert hl("--baseline", str(bad), ".").exit_code == 2
    assert hl("--baseline", "nope.json", ".").exit_code == 2


def test_cache_is_used_and_invalidated_by_content(project, monkeypatch):
    import hybridlint.linter as linter

    path = put(project, "net.py", BAD)
    assert hl(".").exit_code == 1
    assert any(n.startswith("lint-") for n in os.listdir(project / ".hybridlint_cache"))

    def explode(*args, **kwargs):
        raise AssertionError("linted although cached")

    monkeypatch.setattr(linter, "lint_source", explode)
    cached = hl(".")
    assert cached.exit_code == 1 and ": HL003" in cached.stdout  # from the cache
    path.write_text(BAD + "\n")
    assert hl(".").exit_code == 2  # content changed: linted again (and the stub fails)
    assert hl("--no-cache", "net.py").exit_code == 2


def test_linter_crash_is_one_line_and_exit_2(project, monkeypatch):
    import hybridlint.linter as linter

    put(project, "net.py", BAD)
    monkeypatch.setattr(linter, "lint_source", lambda *a, **k: 1 / 0)
    result = hl("--no-cache", ".")
    assert result.exit_code == 2
    assert "internal error while linting: ZeroDivisionError" in result.stdout
    assert "Traceback" not in result.output


def test_unexpected_exception_is_one_line_and_exit_2(project, monkeypatch):
    import hybridlint.cli as cli_module

    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(cli_module, "run", boom)
    result = hl(".")
    assert result.exit_code == 2
    assert result.stderr == (
        "hybridlint: error: internal error: RuntimeError: disk on fire "
        "(HYBRIDLINT_DEBUG=1 shows the traceback)\n"
    )
    monkeypatch.setenv("HYBRIDLINT_DEBUG", "1")
    assert isinstance(hl(".").exception, RuntimeError)


def test_parallel_and_serial_runs_agree(project, monkeypatch):
    import concurrent.futures

    pools = []

    class SpyPool(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(kwargs)
            super().__init__(*args, **kwargs)

    # the runner imports the pool class when it starts one (a cached run never does)
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", SpyPool)
    filler = "".join(f"def helper_{i}(a):\n    return a + {i}\n\n\n" for i in range(900))
    for i in range(8):
        put(project, f"m{i}.py", filler + BAD.replace("x[:, 0]", f"x[:, {i % 3}]"))
    serial = hl("--no-cache", "--jobs", "1", "--format", "json", ".")
    assert pools == []
    parallel = hl("--no-cache", "--jobs", "2", "--format", "json", ".")
    # a test process that has loaded MXNet lints in-process (runner._can_fork_workers)
    forks = runner._can_fork_workers()
    assert [p["max_workers"] for p in pools] == ([2] if forks else [])
    assert json.loads(serial.stdout) == json.loads(parallel.stdout)
    assert json.loads(serial.stdout)["summary"]["findings"] == 8


def test_verify_needs_fix_and_a_checker(project, monkeypatch):
    put(project, "net.py", BAD)
    assert hl("--verify", ".").exit_code == 2
    import sys

    import hybridlint

    # The import must fail even when another test imported the checker before: drop both the
    # sys.modules entry and the package attribute that `from . import checker` would find.
    monkeypatch.setitem(sys.modules, "hybridlint.checker", None)
    monkeypatch.delattr(hybridlint, "checker", raising=False)
    result = hl("--fix", "--verify", ".")
    assert result.exit_code == 2
    assert "verification is not available" in result.stderr


def test_rule_and_rules_commands(project):
    listing = hl("rules")
    assert listing.exit_code == 0
    assert any(line.startswith("HL003  tensor-indexing") for line in listing.stdout.splitlines())
    assert "HL900" in listing.stdout
    explained = hl("rule", "hl003")
    assert explained.exit_code == 0
    assert explained.stdout.startswith("# HL003 (tensor-indexing)")
    assert "## Why it breaks under hybridize" in explained.stdout
    assert hl("rule", "HL999").exit_code == 2


def test_version_and_help(project):
    from hybridlint import __version__

    assert hl("--version").stdout == f"hybridlint {__version__}\n"
    assert "--unsafe-fixes" in hl("check", "--help").stdout
    assert "--write-baseline" in hl("--fix", "--help").stdout


CHECKER_DATA = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "testdata", "checker"
)


def test_verify_command_runs_the_checker(project):
    import shutil

    shutil.copy(os.path.join(CHECKER_DATA, "first_row.py"), project / "first_row.py")
    result = hl("verify", "first_row.py::FirstRow", "--input", "2,3")
    assert result.exit_code == 1
    assert result.stdout.startswith("mismatch: first_row.py::FirstRow")
    assert hl("verify", "first_row.py::FirstRow").exit_code == 2  # no inputs anywhere
    assert hl("verify", "first_row.py::1x", "--input", "2").exit_code == 2
    assert hl("verify", "missing.py::Net", "--input", "2").exit_code == 2


def test_fix_verify_applies_proven_fixes(project):
    import shutil

    shutil.copy(os.path.join(CHECKER_DATA, "slicing.py"), project / "slicing.py")
    (project / "pyproject.toml").write_text(
        '[tool.hybridlint.examples]\n"slicing.py::PickColumn" = { inputs = [[3, 4]] }\n'
    )
    result = hl("--fix", "--verify", "--select", "HL003", "slicing.py")
    assert result.exit_code == 0, result.output
    assert "F.slice_axis(h, axis=1, begin=1, end=2)" in (project / "slicing.py").read_text()
    (project / "pyproject.toml").write_text(
        '[tool.hybridlint.examples]\n"slicing.py::PickColumn" = { inputs = "3,4" }\n'
    )
    bad = hl("--fix", "--verify", "slicing.py")
    assert bad.exit_code == 2 and "examples" in bad.stderr


def test_missing_path_is_reported_whatever_the_selection(project):
    assert hl("missing.py").exit_code == 1
    for selection in (["--ignore", "HL902"], ["--ignore", "HL9"], ["--select", "HL0"]):
        result = hl(*selection, "missing.py")
        assert result.exit_code == 1 and "HL902" in result.stdout, selection
        assert "All checks passed" not in result.stdout


def test_progress_bar_only_for_long_runs():
    from hybridlint.cli import PROGRESS_MIN_FILES, _progress_bar

    with _progress_bar(enabled=False) as update:
        assert update is None
    bar = _progress_bar(enabled=True)
    with bar as update:
        update(0, PROGRESS_MIN_FILES - 1)
        assert bar._progress is None
    bar = _progress_bar(enabled=True)
    with bar as update:
        update(0, PROGRESS_MIN_FILES)
        update(PROGRESS_MIN_FILES, PROGRESS_MIN_FILES)
        assert bar._progress.tasks[0].completed == PROGRESS_MIN_FILES


_DYING_WORKER = """
import os, sys
import hybridlint.runner as runner
from hybridlint.cli import cli

real_work = runner._work


def die_on_m3(path, *args):  # in the forked workers: the one linting m3.py dies
    if path.endswith("m3.py"):
        os._exit(9)
    return real_work(path, *args)


runner._work = die_on_m3
sys.exit(cli.main(["--no-cache", "--jobs", "2", "."], standalone_mode=True))
"""


def test_a_dying_worker_is_an_internal_error_not_a_hang(project):
    # a fresh interpreter: its workers are forked (they inherit the patched _work), which a
    # test process that has loaded MXNet does not do (runner._can_fork_workers: no pool there)
    filler = "".join(f"def helper_{i}(a):\n    return a + {i}\n\n\n" for i in range(900))
    for i in range(6):
        put(project, f"m{i}.py", filler + BAD)
    result = subprocess.run(
        [sys.executable, "-c", _DYING_WORKER], capture_output=True, text=True, cwd=project
    )
    assert result.returncode == 2, result.stdout + result.stderr
    assert (
        "m3.py: error: internal error: the worker process linting this file died" in result.stdout
    )
    # the files queued beside it were rerun one by one, not lost as "worker process died"
    for i in (0, 1, 2, 4, 5):
        assert f"m{i}.py:" in result.stdout and f"m{i}.py: error" not in result.stdout


def test_interrupt_is_exit_2_not_1(project, monkeypatch):
    import hybridlint.cli as cli_module

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_module, "run", interrupted)
    result = hl(".")
    assert result.exit_code == 2 and result.stderr == "hybridlint: error: interrupted\n"


@settings(max_examples=25, deadline=None)
@given(
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]),
    trailing_newline=st.booleans(),
)
def test_fix_changes_only_the_fixed_line(newline, encoding, trailing_newline):
    header = "# -*- coding: latin-1 -*-\n" if encoding == "latin-1" else ""
    text = header + BAD.replace("return y + 1", "return y + 1  # d\u00e9j\u00e0")
    if not trailing_newline:
        text = text.rstrip("\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "net.py")
        with open(path, "wb") as handle:
            handle.write(text.replace("\n", newline).encode(encoding))
        result = hl("--fix", "--select", "HL003", path)
        assert result.exit_code == 0, result.output
        with open(path, "rb") as handle:
            data = handle.read()
    expected = text.replace(
        "y = x[:, 0]", "y = F.squeeze(F.slice_axis(x, axis=1, begin=0, end=1), axis=1)"
    )
    assert data == expected.replace("\n", newline).encode(encoding)


def test_files_go_to_the_workers_in_batches_every_worker_gets_several():
    from types import SimpleNamespace

    from hybridlint.runner import BATCH_FILES, BATCHES_PER_WORKER, _batches

    def task(size):
        return SimpleNamespace(source=SimpleNamespace(text="x" * size))

    small = [task(5_000) for _ in range(40)]  # a review's case: 2 batches for 2 workers
    batches = _batches(small, workers=2)
    assert len(batches) >= BATCHES_PER_WORKER * 2
    assert sorted(len(t.source.text) for b in batches for t in b) == [5_000] * 40
    many = [task(100) for _ in range(10_000)]
    assert max(len(b) for b in _batches(many, workers=2)) == BATCH_FILES
    mixed = [task(10), task(2_000_000), task(20)]  # the largest first, alone
    assert [len(t.source.text) for t in _batches(mixed, workers=2)[0]] == [2_000_000]
