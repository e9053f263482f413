"""Acceptance: the files a model repository really holds, through the CLI.

Every case runs twice, through a real subprocess (`python -m hybridlint`) and through click's
CliRunner, and must give the same exit code, a clear message and never a traceback:
Python 2 files, syntax errors, latin-1 / UTF-16 / BOM+CRLF files, empty files, symlink loops,
missing paths, FIFOs, read-only files under --fix, bad configuration, --fix twice, --diff.
"""

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from hybridlint.cli import cli

HEADER = "from mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
HAZARD = HEADER + "        return x.reshape((x.shape[0], -1))\n"  # HL001 on line 6, fixable
FIXED = HEADER + "        return x.reshape((0, -1))\n"


class Run:
    def __init__(self, code, out, err=""):
        self.code, self.out, self.err = code, out, err

    @property
    def text(self):
        return self.out + self.err


def cli_both(args, cwd, in_process=True):
    """Run the CLI as a subprocess, then with CliRunner (in `cwd`); both must agree on the exit
    code and neither may print a traceback. Returns the subprocess' result. With --fix the
    CliRunner run meets the files the subprocess already fixed, so it must agree that nothing
    else is left to do (same exit code)."""
    proc = subprocess.run(
        [sys.executable, "-m", "hybridlint", *args],
        cwd=str(cwd),
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HYBRIDLINT_DEBUG": ""},
    )
    sub = Run(proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in sub.text, sub.text
    if not in_process:
        return sub
    old = os.getcwd()
    os.chdir(str(cwd))
    try:
        result = CliRunner().invoke(cli, list(args))
    finally:
        os.chdir(old)
    inproc = Run(result.exit_code, result.output)
    for run in (sub, inproc):
        assert "Traceback" not in run.text, run.text
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert sub.code == inproc.code, (sub.text, inproc.text)
    return sub


def write(path, data):
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


# -- files that cannot be parsed or decoded ------------------------------------------------
def test_python2_file_is_a_syntax_finding_and_the_run_goes_on(tmp_path):
    write(tmp_path / "legacy.py", HEADER + '        print "x =", x\n        return x\n')
    write(tmp_path / "net.py", HAZARD)
    run = cli_both(["--no-cache", "."], tmp_path)
    assert run.code == 1
    assert "legacy.py:6:9: HL900" in run.out and "print" in run.out
    assert "net.py:6:27: HL001" in run.out


def test_syntax_error_names_the_line(tmp_path):
    write(tmp_path / "broken.py", HEADER + "        return F.relu(x\n")
    run = cli_both(["--no-cache", "broken.py"], tmp_path)
    assert run.code == 1
    assert "broken.py:6:" in run.out and "HL900" in run.out and "never closed" in run.out


def test_utf16_file_is_a_decode_finding(tmp_path):
    write(tmp_path / "wide.py", ("# -*- coding: utf-16 -*-\n" + HAZARD).encode("utf-16"))
    run = cli_both(["--no-cache", "wide.py"], tmp_path)
    assert run.code == 1
    assert "wide.py:1:1: HL901" in run.out


def test_undeclared_latin1_bytes_are_a_decode_finding(tmp_path):
    write(tmp_path / "cafe.py", (HAZARD + "# caf\xe9\n").encode("latin-1"))
    run = cli_both(["--no-cache", "cafe.py"], tmp_path)
    assert run.code == 1
    assert "cafe.py:7:" in run.out and "HL901" in run.out


def test_empty_and_zero_byte_files_are_clean(tmp_path):
    write(tmp_path / "blank.py", "\n\n")
    write(tmp_path / "zero.py", b"")
    run = cli_both(["--no-cache", "blank.py", "zero.py"], tmp_path)
    assert run.code == 0
    assert "All checks passed (2 files checked)." in run.out


def test_missing_path_is_reported(tmp_path):
    run = cli_both(["--no-cache", "nope/missing.py"], tmp_path)
    assert run.code == 1
    assert "missing.py:1:1: HL902 no such file or directory" in run.out


def test_a_fifo_named_py_does_not_hang_the_run(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    os.mkfifo(str(tmp_path / "pipe.py"))
    write(tmp_path / "net.py", HAZARD)
    run = cli_both(["--no-cache", "."], tmp_path)
    assert run.code == 1
    assert "pipe.py:1:1: HL902 not a regular file" in run.out
    assert "net.py:6:27: HL001" in run.out


def test_directory_symlink_loop_terminates_and_lints_each_file_once(tmp_path):
    write(tmp_path / "pkg" / "sub" / "net.py", HAZARD)
    os.symlink("..", str(tmp_path / "pkg" / "sub" / "up"))
    os.symlink(str(tmp_path / "pkg"), str(tmp_path / "pkg" / "again"))
    run = cli_both(["--no-cache", "pkg"], tmp_path)
    assert run.code == 1
    assert run.out.count("HL001") == 1
    assert "Found 1 finding in 1 file." in run.out


def test_deeply_nested_code_is_analysed_or_reported_never_passed_silently(tmp_path):
    """150 nested calls compile in Python and hide a hazard: the run either finds it or says
    the file could not be analysed (HL900 / an error, exit 1 or 2); "All checks passed"
    would be a silent miss."""
    write(
        tmp_path / "deep.py",
        HEADER
        + "        return "
        + "F.relu(" * 150
        + "x.reshape((x.shape[0], -1))"
        + ")" * 150
        + "\n",
    )
    run = cli_both(["--no-cache", "deep.py"], tmp_path)
    assert "All checks passed" not in run.text
    assert run.code in (1, 2)
    assert (
        re.search(r"deep\.py:6:\d+: HL001", run.out)
        or "deep.py:1:1: HL900" in run.out
        or "deep.py: error:" in run.text
    )


@pytest.mark.parametrize("fmt", ["text", "json", "github", "sarif", "junit"])
def test_file_name_that_is_not_utf8_is_reported_in_every_format(tmp_path, fmt):
    try:
        with open(os.fsencode(str(tmp_path)) + b"/bad\xff.py", "wb") as handle:
            handle.write(HAZARD.encode())
    except (OSError, UnicodeError):
        pytest.skip("the file system refuses non-UTF-8 names")
    # the console entry point makes stdout/stderr write unencodable characters escaped
    # (errors="backslashreplace"); CliRunner's captured streams are strict UTF-8 and would
    # test the harness, so only the real process counts here
    run = cli_both(["--no-cache", "--format", fmt, "."], tmp_path, in_process=False)
    assert run.code == 1, run.text
    assert "internal error" not in run.text
    if fmt == "sarif":
        import json

        result = json.loads(run.out)["runs"][0]["results"][0]
        assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad%FF.py"


# -- fixing --------------------------------------------------------------------------------
def test_latin1_file_is_fixed_in_latin1(tmp_path):
    original = ("# -*- coding: latin-1 -*-\n# caf\xe9\n" + HAZARD + "# \xe9t\xe9\n").encode(
        "latin-1"
    )
    path = write(tmp_path / "cafe.py", original)
    run = cli_both(["--no-cache", "cafe.py"], tmp_path)
    assert run.code == 1 and "cafe.py:8:27: HL001" in run.out
    run = cli_both(["--no-cache", "--fix", "cafe.py"], tmp_path)
    assert run.code == 0
    assert path.read_bytes() == original.replace(b"(x.shape[0], -1)", b"(0, -1)")


def test_bom_and_crlf_are_kept_byte_for_byte(tmp_path):
    text = "# caf\u00e9 \u2014 r\u00e9sum\u00e9\n" + HAZARD + "# end\n"
    original = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode("utf-8")
    path = write(tmp_path / "bom.py", original)
    run = cli_both(["--no-cache", "bom.py"], tmp_path)
    assert run.code == 1 and "bom.py:7:27: HL001" in run.out
    run = cli_both(["--no-cache", "--fix", "bom.py"], tmp_path)
    assert run.code == 0
    want = original.replace(b"x.reshape((x.shape[0], -1))", b"x.reshape((0, -1))")
    assert want != original
    assert path.read_bytes() == want


def test_fix_twice_is_a_no_op(tmp_path):
    path = write(tmp_path / "net.py", HAZARD)
    first = cli_both(["--fix", "net.py"], tmp_path)
    assert first.code == 0 and "Fixed 1 finding." in first.out
    after_first = path.read_bytes()
    assert after_first == FIXED.encode()
    mtime = os.stat(str(path)).st_mtime_ns
    second = cli_both(["--fix", "net.py"], tmp_path)
    assert second.code == 0 and "Fixed" not in second.out
    assert path.read_bytes() == after_first
    assert os.stat(str(path)).st_mtime_ns == mtime  # not even rewritten with the same bytes


def test_diff_writes_nothing(tmp_path):
    path = write(tmp_path / "net.py", HAZARD)
    before = sorted(os.listdir(str(tmp_path)))
    run = cli_both(["--no-cache", "--diff", "net.py"], tmp_path)
    assert run.code == 1
    assert "-        return x.reshape((x.shape[0], -1))" in run.out
    assert "+        return x.reshape((0, -1))" in run.out
    assert path.read_bytes() == HAZARD.encode()
    assert sorted(os.listdir(str(tmp_path))) == before


def _fix_as_unprivileged_user(path):
    """Run `hybridlint --fix path` as a user who may not write the file (exit code, output)."""
    from hybridlint.linter import lint_source

    lint_source(HAZARD, "warm.py")  # import the rules before dropping privileges
    if os.geteuid() != 0:
        result = CliRunner().invoke(cli, ["--no-cache", "--jobs", "1", "--fix", str(path)])
        return result.exit_code, result.output
    read, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: become nobody, then run the CLI in-process
        code = 99
        try:
            os.close(read)
            os.setgid(65534)
            os.setuid(65534)
            result = CliRunner().invoke(cli, ["--no-cache", "--jobs", "1", "--fix", str(path)])
            os.write(write_end, result.output.encode())
            code = result.exit_code
        finally:
            os._exit(code)
    os.close(write_end)
    chunks = []
    while True:
        chunk = os.read(read, 65536)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read)
    _, status = os.waitpid(pid, 0)
    return os.WEXITSTATUS(status), b"".join(chunks).decode()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_read_only_file_is_not_replaced_under_fix():
    # a world-writable directory in the system temp dir (reachable by an unprivileged user):
    # os.replace alone would succeed there
    folder = tempfile.mkdtemp(prefix="hybridlint-ro-")
    try:
        os.chmod(folder, 0o777)
        path = write(Path(folder) / "net.py", HAZARD)
        if os.geteuid() == 0:
            os.chown(str(path), 65534, 65534)
        os.chmod(str(path), 0o444)
        code, out = _fix_as_unprivileged_user(path)
        assert code == 2, out  # a fix that was not written is an error (README: exit codes)
        assert "fixes not written" in out and "not writable" in out
        assert "Traceback" not in out
        assert path.read_bytes() == HAZARD.encode()
        assert stat.S_IMODE(os.stat(str(path)).st_mode) == 0o444
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# -- configuration -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "table, expected",
    [
        ('[tool.hybridlint]\nselct = ["HL0"]\n', "unknown key 'selct'"),
        ('[tool.hybridlint]\nselect = "HL001"\n', "select must be a list"),
        ('[tool.hybridlint\nselect = ["HL001"]\n', "invalid TOML"),
        ('[tool.hybridlint]\nselect = ["XX1"]\n', "'XX1' is not a rule code"),
        ('[tool.hybridlint]\nignore = ["HL999"]\n', "ignore: unknown rule code 'HL999'"),
        ('[tool.hybridlint.per-file-ignores]\n"net.py" = "HL001"\n', "must be a list"),
    ],
)
def test_bad_configuration_is_one_line_naming_the_file_and_exit_2(tmp_path, table, expected):
    write(tmp_path / "pyproject.toml", table)
    write(tmp_path / "net.py", HAZARD)
    run = cli_both(["--no-cache", "net.py"], tmp_path)
    assert run.code == 2
    errors = [line for line in run.text.splitlines() if line.startswith("hybridlint: error:")]
    assert len(errors) == 1, run.text
    assert str(tmp_path / "pyproject.toml") in errors[0] and expected in errors[0]


def test_non_utf8_configuration_is_a_clear_error(tmp_path):
    write(tmp_path / "pyproject.toml", b"\xff\xfe[tool.hybridlint]\n")
    write(tmp_path / "net.py", HAZARD)
    run = cli_both(["--no-cache", "net.py"], tmp_path)
    assert run.code == 2
    assert "pyproject.toml" in run.err and "UTF-8" in run.err


def test_unknown_code_on_the_command_line_names_the_option(tmp_path):
    write(tmp_path / "net.py", HAZARD)
    run = cli_both(["--no-cache", "--extend-select", "HL998", "net.py"], tmp_path)
    assert run.code == 2
    assert "--extend-select: unknown rule code 'HL998'" in run.text


def test_usage_error_is_exit_2(tmp_path):
    run = cli_both(["--no-cache", "--format", "yaml", "."], tmp_path)
    assert run.code == 2
    assert "yaml" in run.text


# -- fixing the hazard corpus --------------------------------------------------------------
def test_fixing_the_hazard_corpus_reaches_a_fixed_point_without_new_findings(tmp_path):
    """`--fix --unsafe-fixes` on testdata/zoo_hazards: every file still parses, a second run
    changes no byte, and what remains is a subset of what was there (no fix adds a hazard)."""
    import ast
    import json
    from collections import Counter

    corpus = Path(__file__).resolve().parent.parent / "testdata" / "zoo_hazards"
    for source in sorted(corpus.glob("*.py")):
        shutil.copy(str(source), str(tmp_path / source.name))

    def codes():
        run = cli_both(["--no-cache", "--format", "json", "."], tmp_path)
        assert run.code == 1
        return Counter(f["code"] for f in json.loads(run.out)["findings"])

    before = codes()
    first = cli_both(["--no-cache", "--fix", "--unsafe-fixes", "."], tmp_path)
    assert first.code == 1 and "Fixed" in first.out
    fixed = {p.name: p.read_bytes() for p in sorted(tmp_path.glob("*.py"))}
    for name, data in fixed.items():
        ast.parse(data.decode("utf-8"), name)
    after = codes()
    assert sum(after.values()) < sum(before.values())
    assert all(after[code] <= before[code] for code in after), (before, after)
    second = cli_both(["--no-cache", "--fix", "--unsafe-fixes", "."], tmp_path)
    assert second.code == 1 and "Fixed" not in second.out
    assert {p.name: p.read_bytes() for p in sorted(tmp_path.glob("*.py"))} == fixed


def test_fix_verify_proves_the_fixes_of_a_hazard_file_that_runs_eagerly(tmp_path):
    """rnn_hazards runs eagerly; under --fix --verify its two fixable hazards (a time step
    picked by indexing, a product needing broadcast_mul) are applied and proven by the
    checker, while the hazards no rule can fix (a loop over `.shape`, ...) stay reported."""
    corpus = Path(__file__).resolve().parent.parent / "testdata" / "zoo_hazards"
    shutil.copy(str(corpus / "rnn_hazards.py"), str(tmp_path / "rnn_hazards.py"))
    write(
        tmp_path / "pyproject.toml",
        "[tool.hybridlint.examples]\n"
        '"rnn_hazards.py::GRUDecoder" = { inputs = [[2, 4, 3], [2, 4]] }\n',
    )
    run = cli_both(["--no-cache", "--fix", "--verify", "rnn_hazards.py"], tmp_path)
    assert run.code == 1
    assert "Fixed 2 findings." in run.out and "fix rejected" not in run.out
    fixed = (tmp_path / "rnn_hazards.py").read_text()
    assert "x = F.squeeze(F.slice_axis(inputs, axis=1, begin=t, end=t + 1), axis=1)" in fixed
    assert (  # wrapped to 88 columns as plain --fix wraps it
        "out = (\n"
        "            F.broadcast_mul(out, F.expand_dims(mask, axis=-1))\n"
        "            if F.sum(mask) > 0\n"
        "            else out\n"
        "        )\n"
    ) in fixed
    assert "for t in range(inputs.shape[1]):" in fixed and "HL008" in run.out
