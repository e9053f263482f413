"""One file never ends the run (issue 24, item 1): a file nested deeper than hybridlint's
parsers and walks can take is its own HL900 finding, every other file is linted, and the exit
code follows the findings. Subprocess runs: the failures were a segfault (an ``and`` chain of
10,000 terms: LibCST's parser overflows the C stack) and a RecursionError in the main process
(a notebook whose JSON nests thousands of levels), neither of which a test process survives
or sees in-process."""

import json
import subprocess
import sys

import pytest

from hybridlint.linter import fix_source
from hybridlint.runner import SERIAL_MAX_BYTES

HEADER = (
    "from mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n"
    "    def hybrid_forward(self, F, x):\n        return "
)
GOOD = HEADER + "x.asnumpy()\n"  # HL002 at 6:16


def chain(operator: str, terms: int) -> str:
    return HEADER + f" {operator} ".join(["x"] * terms) + "\n"


def notebook(*sources: str) -> str:
    cells = [{"cell_type": "code", "source": s, "metadata": {}, "outputs": []} for s in sources]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


HOSTILE = {
    "and_chain.py": chain("and", 10_000),  # valid Python; LibCST segfaulted on it
    "or_chain.py": chain("or", 10_000),
    "deep.ipynb": '{"cells": [' + "[" * 3000 + "]" * 3000 + "]}",  # json: RecursionError
    "chain_cell.ipynb": notebook(chain("and", 10_000)),
    "deep_cell.ipynb": notebook(chain("and", 2_000)),  # the analysis' RecursionError
}


def run(args, cwd, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "hybridlint", "--no-cache", *args],
        input=stdin,
        cwd=cwd,
        capture_output=True,
        timeout=300,
    )


def assert_reported(proc, bad: str) -> None:
    out = proc.stdout.decode(errors="replace")
    err = proc.stderr.decode(errors="replace")
    assert proc.returncode == 1, (proc.returncode, err[-2000:])
    assert "internal error" not in out + err
    assert "good.py:6:16: HL002" in out  # the other file's finding
    hl9 = [line for line in out.splitlines() if line.startswith(f"{bad}:") and " HL9" in line]
    assert len(hl9) == 1 and " HL900 " in hl9[0], out[-3000:]


@pytest.mark.parametrize("jobs", ["-j1", "-j2"])
@pytest.mark.parametrize("bad", sorted(HOSTILE))
def test_a_file_too_deep_to_analyse_is_its_own_finding(tmp_path, bad, jobs):
    # -j2 with enough text to lint that the run takes its worker pool
    padding = "# " + "x" * 98 + "\n"
    (tmp_path / "good.py").write_text(GOOD + padding * (SERIAL_MAX_BYTES // len(padding) + 1))
    (tmp_path / bad).write_text(HOSTILE[bad])
    assert_reported(run([jobs, "good.py", bad], tmp_path), bad)


@pytest.mark.parametrize("bad", sorted(HOSTILE))
def test_stdin_of_a_file_too_deep_to_analyse_is_a_finding(tmp_path, bad):
    for fix in ([], ["--fix"]):
        proc = run([*fix, "--stdin-filename", bad, "-"], tmp_path, HOSTILE[bad].encode())
        assert proc.returncode == 1, proc.stderr.decode()[-2000:]
        report = (proc.stderr if fix else proc.stdout).decode()
        assert f"{bad}:" in report and " HL900 " in report, report[-2000:]
        if fix:  # the source comes back unchanged
            assert proc.stdout == HOSTILE[bad].encode()


def test_a_notebook_on_stdin_is_linted_as_a_notebook(tmp_path):
    proc = run(["--stdin-filename", "nb.ipynb", "-"], tmp_path, notebook(GOOD).encode())
    assert proc.returncode == 1
    assert proc.stdout.decode().startswith("nb.ipynb:6:16: HL002 cell 1: ")


def test_a_fixed_line_too_deep_to_wrap_stays_as_the_fix_wrote_it():
    source = (
        "from mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n"
        "    def hybrid_forward(self, F, x, a):\n"
        "        return F.zeros(x.shape), (" + " and ".join(["a"] * 400) + ")\n"
    )
    result = fix_source(source, "net.py", line_length=100)
    assert [f.code for f in result.applied] == ["HL001"]
    assert "F.zeros_like(x)" in result.source
