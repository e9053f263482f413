"""The real `hybridlint` process: entry points, exit codes, piped vs terminal output."""

import os
import pty
import shutil
import subprocess
import sys
import textwrap

import pytest
from cli_support import read_pty

BAD = textwrap.dedent("""\
    class Net(HybridBlock):
        def hybrid_forward(self, F, x):
            return x[:, 0]
""")


@pytest.fixture
def project(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    (tmp_path / "net.py").write_text(BAD)
    return tmp_path


def run(args, cwd, env=None):
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "HYBRIDLINT_DEBUG")}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "hybridlint", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_python_dash_m_lints_and_exits_1(project):
    result = run(["."], project)
    assert result.returncode == 1
    assert result.stdout.startswith("net.py:3:16: HL003 [*] ")
    assert "\x1b[" not in result.stdout + result.stderr  # piped: plain text, no progress bar


def test_console_script_is_installed(project):
    script = shutil.which("hybridlint", path=os.path.dirname(sys.executable))
    if script is None:
        pytest.skip("hybridlint console script not installed next to this python")
    result = subprocess.run([script, "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout.startswith("hybridlint ")


def test_exit_codes(project):
    assert run(["--fix", "."], project).returncode == 0
    assert run(["."], project).returncode == 0
    assert run(["--select", "nonsense"], project).returncode == 2
    assert run(["--no-such-option"], project).returncode == 2


def test_config_error_has_no_traceback(project):
    (project / "pyproject.toml").write_text("[tool.hybridlint]\nselect = 'HL003'\n")
    result = run(["."], project)
    assert result.returncode == 2
    assert result.stderr.startswith("hybridlint: error: ")
    assert "Traceback" not in result.stderr and len(result.stderr.splitlines()) == 1


def test_baseline_write_failure_is_one_line(project):
    result = run(["--write-baseline", "no-such-dir/baseline.json", "."], project)
    assert result.returncode == 2
    assert result.stderr.startswith(
        "hybridlint: error: no-such-dir/baseline.json: cannot write baseline"
    )
    assert len(result.stderr.splitlines()) == 1


CRASHING = """
import sys
import hybridlint.cli as cli
def boom(*args, **kwargs):
    raise KeyError("surprise")
cli.run = boom
sys.argv = ["hybridlint", "."]
cli.main()
"""


@pytest.mark.parametrize("debug", [False, True])
def test_unexpected_error_traceback_only_with_debug_env(project, debug):
    env = {k: v for k, v in os.environ.items() if k not in ("HYBRIDLINT_DEBUG",)}
    if debug:
        env["HYBRIDLINT_DEBUG"] = "1"
    result = subprocess.run(
        [sys.executable, "-c", CRASHING],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    if debug:
        assert "Traceback" in result.stderr and "KeyError: 'surprise'" in result.stderr
    else:
        assert result.returncode == 2
        assert result.stderr == (
            "hybridlint: error: internal error: KeyError: 'surprise' "
            "(HYBRIDLINT_DEBUG=1 shows the traceback)\n"
        )


def test_colour_only_on_a_terminal(project):
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "HYBRIDLINT_DEBUG")}
    env["TERM"] = "xterm-256color"
    proc = subprocess.Popen(
        [sys.executable, "-m", "hybridlint", "."], cwd=project, stdout=slave, stderr=slave, env=env
    )
    os.close(slave)
    raw = read_pty(master)
    proc.wait(timeout=120)
    os.close(master)
    output = raw.decode()
    assert proc.returncode == 1
    assert "\x1b[" in output and "HL003" in output
    no_color = run(["."], project, env={"NO_COLOR": "1"})
    assert "\x1b[" not in no_color.stdout


def test_output_encoding_cannot_break_the_run(project):
    (project / "net.py").write_text(
        BAD.replace("x[:, 0]", "x[:, 0]  # caf\u00e9"), encoding="utf-8"
    )
    result = run(["."], project, env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 1
    assert "# caf\\xe9" in result.stdout
