"""``--stdin-filename PATH``: the source comes from stdin (editors, formatter plugins), is
reported as PATH with PATH's configuration, and with --fix the fixed source goes to stdout."""

import subprocess
import sys

HAZARD = (
    "from mxnet import nd\nfrom mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n"
    "    def hybrid_forward(self, F, x):\n        return nd.relu(x)\n"
)

FIXED = HAZARD.replace("nd.relu", "F.relu").replace("from mxnet import nd\n", "")  # nd unused


def run(args, stdin, cwd):
    return subprocess.run(
        [sys.executable, "-m", "hybridlint", *args], input=stdin, cwd=cwd, capture_output=True
    )


def test_lint_reports_the_given_path_and_writes_nothing(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    proc = run(["--stdin-filename", "models/net.py"], HAZARD.encode(), tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("models/net.py:7:16: HL006")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pyproject.toml"]  # no cache, no file


def test_fix_prints_the_fixed_source_and_reports_on_stderr(tmp_path):
    proc = run(["--fix", "--stdin-filename", "net.py"], HAZARD.encode(), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.decode() == FIXED
    assert "Fixed 1 finding" in proc.stderr.decode()


def test_fix_keeps_crlf_and_prints_clean_input_unchanged(tmp_path):
    crlf = HAZARD.replace("\n", "\r\n").encode()
    fixed = run(["--fix", "--stdin-filename", "net.py"], crlf, tmp_path)
    assert fixed.stdout == FIXED.replace("\n", "\r\n").encode()
    clean = b"x = 1\n"
    assert run(["--fix", "--stdin-filename", "net.py"], clean, tmp_path).stdout == clean


def test_per_file_ignores_apply_to_the_given_path(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hybridlint]\n[tool.hybridlint.per-file-ignores]\n"legacy/*" = ["HL006"]\n'
    )
    assert run(["--stdin-filename", "legacy/a.py"], HAZARD.encode(), tmp_path).returncode == 0
    assert run(["--stdin-filename", "new/a.py"], HAZARD.encode(), tmp_path).returncode == 1


def test_syntax_errors_and_diff(tmp_path):
    broken = run(["--stdin-filename", "a.py"], b"def f(:\n", tmp_path)
    assert broken.returncode == 1 and b"HL900" in broken.stdout
    diff = run(["--diff", "--stdin-filename", "a.py"], HAZARD.encode(), tmp_path)
    assert diff.returncode == 1 and b"+        return F.relu(x)" in diff.stdout


def test_paths_with_stdin_are_a_usage_error(tmp_path):
    proc = run(["--stdin-filename", "a.py", "b.py"], HAZARD.encode(), tmp_path)
    assert proc.returncode == 2 and b"stdin" in proc.stderr
