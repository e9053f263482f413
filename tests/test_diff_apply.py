"""``hybridlint --diff`` output applies with ``git apply`` and gives exactly what ``--fix``
writes, whatever the line endings, a missing final newline, characters that
``str.splitlines`` treats as line breaks (form feed, \\v, NEL, U+2028), a BOM or a non-UTF-8
coding."""

import shutil
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

HEAD = "from mxnet import nd\nfrom mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n"
BODY = "    def hybrid_forward(self, F, x):\n        y = nd.relu(x)  {extra}\n        return y"

CASES = {
    "lf": (HEAD + BODY + "\n", "utf-8"),
    "no-final-newline": (HEAD + BODY, "utf-8"),
    "crlf": ((HEAD + BODY + "\n").replace("\n", "\r\n"), "utf-8"),
    "crlf-no-final-newline": ((HEAD + BODY).replace("\n", "\r\n"), "utf-8"),
    "lone-cr": ((HEAD + BODY + "\n").replace("\n", "\r"), "utf-8"),
    "lone-cr-no-final": ((HEAD + BODY).replace("\n", "\r"), "utf-8"),
    "form-feed": (HEAD + BODY + "\n", "utf-8"),
    "vt-nel-u2028": (HEAD + BODY + "\n", "utf-8"),
    "bom": ("\ufeff" + HEAD + BODY + "\n", "utf-8"),
    "latin-1": ("# -*- coding: latin-1 -*-\n" + HEAD + BODY + "\n", "latin-1"),
}
EXTRA = {
    "form-feed": "# a\x0cb",
    "vt-nel-u2028": "# \x0b \x85 \u2028 \u2029 \x1c",
    "latin-1": "# caf\xe9",
}


def run(args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "hybridlint", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_diff_applies_with_git_apply(tmp_path, case):
    text, encoding = CASES[case]
    text = text.replace("{extra}", EXTRA.get(case, "# plain"))
    raw = text.encode("utf-8" if encoding == "utf-8" else encoding)
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    subprocess.run(["git", "init", "-q", "."], cwd=tmp_path, check=True)
    path = tmp_path / "net.py"
    path.write_bytes(raw)
    diff = run(["--no-cache", "--diff", "net.py"], tmp_path)
    assert diff.returncode == 1, diff.stderr
    assert path.read_bytes() == raw  # --diff writes nothing
    fixed = run(["--no-cache", "--fix", "net.py"], tmp_path)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    want = path.read_bytes()
    assert want != raw and b"F.relu" in want
    path.write_bytes(raw)
    (tmp_path / "fix.patch").write_bytes(diff.stdout)
    applied = subprocess.run(
        ["git", "apply", "fix.patch"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert applied.returncode == 0, applied.stderr.decode() + "\n" + diff.stdout.decode("latin-1")
    assert path.read_bytes() == want
