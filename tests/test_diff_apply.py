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


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Every case's file, `<case>/net.py` in one git work tree, through one `--diff` run and
    one `--fix` run (a hybridlint process costs about a second of imports; one run per case and
    mode was most of this module's time). Returns (root, {case: original bytes}, the diff run,
    {case: bytes after --diff}, the fix run, {case: bytes --fix wrote})."""
    root = tmp_path_factory.mktemp("diff-apply")
    (root / "pyproject.toml").write_text("[tool.hybridlint]\n")
    subprocess.run(["git", "init", "-q", "."], cwd=root, check=True)
    raws = {}
    for case, (text, encoding) in sorted(CASES.items()):
        text = text.replace("{extra}", EXTRA.get(case, "# plain"))
        raws[case] = text.encode("utf-8" if encoding == "utf-8" else encoding)
        (root / case).mkdir()
        (root / case / "net.py").write_bytes(raws[case])
    files = [case + "/net.py" for case in sorted(CASES)]
    diff = run(["--no-cache", "--diff", *files], root)
    after_diff = {case: (root / case / "net.py").read_bytes() for case in CASES}
    fixed = run(["--no-cache", "--fix", *files], root)
    wants = {case: (root / case / "net.py").read_bytes() for case in CASES}
    (root / "fix.patch").write_bytes(diff.stdout)
    return root, raws, diff, after_diff, fixed, wants


@pytest.mark.parametrize("case", sorted(CASES))
def test_diff_applies_with_git_apply(runs, case):
    root, raws, diff, after_diff, fixed, wants = runs
    raw, path = raws[case], root / case / "net.py"
    assert diff.returncode == 1, diff.stderr
    assert after_diff[case] == raw  # --diff writes nothing
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    want = wants[case]
    assert want != raw and b"F.relu" in want
    path.write_bytes(raw)
    # this case's part of the patch only: each case's file is patched from its original
    applied = subprocess.run(
        ["git", "apply", "--include", case + "/net.py", "fix.patch"],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert applied.returncode == 0, applied.stderr.decode() + "\n" + diff.stdout.decode("latin-1")
    assert path.read_bytes() == want
