"""Closed or full standard streams (issue 24, item 5): the exit code follows the findings, or
is 2 with one line on the stream that still works when the report cannot be written; never
"internal error", never the interpreter's "Exception ignored" at exit. Subprocess runs with
the descriptors closed or on /dev/full by a shell, as a user's redirection does."""

import os
import subprocess
import sys

import pytest

GOOD = (
    "from mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n"
    "    def hybrid_forward(self, F, x):\n        return x.asnumpy()\n"
)
FIXABLE = GOOD.replace("x.asnumpy()", "F.zeros(x.shape)")  # HL001, fixed
CLEAN = "x = 1\n"

full = pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")


def run(redirect: str, args, cwd, stdin=None, cache=False):
    """hybridlint ARGS with the shell redirection ``redirect`` (``>&-``, ``2>/dev/full``)."""
    command = f'exec "$0" -m hybridlint "$@" {redirect}'
    proc = subprocess.run(
        ["sh", "-c", command, sys.executable, *(args if cache else ["--no-cache", *args])],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=120,
    )
    return proc.returncode, proc.stdout.decode(), proc.stderr.decode()


@pytest.fixture
def files(tmp_path):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "fixable.py").write_text(FIXABLE)
    return tmp_path


def assert_one_line(err: str, says: str) -> None:
    assert "internal error" not in err and "Exception ignored" not in err, err
    assert err.splitlines() == [f"hybridlint: error: {says}"], err


def test_stdout_closed_with_findings_is_one_line_and_exit_2(files):
    code, _, err = run(">&-", ["good.py"], files)
    assert code == 2
    assert_one_line(err, "cannot write the report to stdout: stdout is closed")


def test_stdout_closed_on_a_run_that_writes_nothing_exits_by_its_findings(files):
    code, _, err = run(">&-", ["-q", "clean.py"], files)
    assert (code, err) == (0, "")


def test_stdout_closed_with_diff_is_one_line_and_exit_2(files):
    code, _, err = run(">&-", ["--diff", "fixable.py"], files)
    assert code == 2
    assert "cannot write the diff to stdout: stdout is closed" in err
    assert "internal error" not in err


@full
@pytest.mark.parametrize("args", [["good.py"], ["clean.py"], ["--format", "json", "good.py"]])
def test_stdout_on_a_full_disk_is_one_line_and_exit_2(files, args):
    code, _, err = run("> /dev/full", args, files)
    assert code == 2
    assert_one_line(err, "cannot write the report to stdout: No space left on device")


@full
def test_fixed_source_on_a_full_disk_is_one_line_and_exit_2(files):
    code, _, err = run("> /dev/full", ["--fix", "--stdin-filename", "x.py"], files, GOOD.encode())
    assert code == 2
    assert_one_line(err, "cannot write the fixed source to stdout: No space left on device")


@full
def test_rules_on_a_full_disk_is_one_line_and_exit_2(files):
    code, _, err = run("> /dev/full", ["rules"], files, cache=True)
    assert code == 2
    assert_one_line(err, "cannot write the output: No space left on device")


@pytest.mark.parametrize("name, expected", [("clean.py", 0), ("good.py", 1)])
def test_stderr_closed_exits_by_the_findings(files, name, expected):
    code, out, _ = run("2>&-", [name], files)
    assert code == expected
    assert ("All checks passed" in out) == (expected == 0)
    assert ("good.py:6:16: HL002" in out) == (expected == 1)


def test_stderr_closed_and_fix_on_stdin_gives_the_source_and_exit_code(files):
    # with --fix the report goes to stderr: a closed stderr loses it (exit 2), unless there
    # is nothing to report (--quiet, nothing to fix)
    code, out, _ = run("2>&-", ["--fix", "--stdin-filename", "x.py"], files, FIXABLE.encode())
    assert code == 2
    assert "F.zeros_like(x)" in out
    code, out, _ = run("2>&-", ["-q", "--fix", "--stdin-filename", "x.py"], files, b"x = 1\n")
    assert (code, out) == (0, "x = 1\n")
