"""Does ``--fix`` cost grow with the file, not faster? CPU and peak memory per file size.

Issue 22 item 4: ``--fix`` was quadratic (one whole-file difflib per fix, and spans chosen by
scanning every hybrid_forward for each statement) and a 1M-line file needed 2.8 GB to lint.
This script writes one file of each size into a temporary directory and runs a real
``python -m hybridlint check --no-cache --fix`` on it (start-up included), reporting the CPU
seconds and the peak resident memory of that process:

* classes: N small HybridBlocks, each with two safe fixes (``out += y``, ``nd.relu``);
* lines:   N lines of plain Python (no hybrid code) and one HybridBlock with two fixes;
* lint:    a plain ``check`` (no fix) of an N-line file like ``lines`` (memory).

Each file size is run from a snapshot of this checkout's sources (as lint_speed.py does).
The growth figure is CPU(4N)/CPU(N) for the first and third sizes (linear: about 4; the
target is <= 5)::

    python benchmarks/fix_speed.py [--classes 100,200,400,800] [--lines 5000,10000,20000]
        [--lint-lines 1000000] [--sources DIR]

Measured on a 2-core container shared with other work (CPU seconds; before = the checkout
before issue 22's change, run with ``--sources`` pointing at a snapshot of it):

    classes 100/200/400(/800):  before 1.30/4.31/23.03 s  (growth 17.7)
                                after  1.29/2.13/3.72/6.86 s (growth 2.9)
    lines 5k/10k/20k:           before 1.06/1.84/4.87 s, after 0.82/1.20/2.06 s
    lint of 1,000,000 lines:    before 17.4 s, 3,747 MB peak RSS; after 13.2 s, 852 MB
                                (Python's syntax check parses a large file in chunks)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from typing import List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lint_speed import snapshot_sources  # noqa: E402

HEADER = "import mxnet as mx\nfrom mxnet import nd\nfrom mxnet.gluon import HybridBlock, nn\n"

BLOCK = """

class Unit{index}(HybridBlock):
    def __init__(self, **kwargs):
        super(Unit{index}, self).__init__(**kwargs)
        self.dense = nn.Dense(16)

    def hybrid_forward(self, F, x, y):
        out = self.dense(x)
        out += y
        return nd.relu(out)
"""

PLAIN = '''

def normalise_{index}(values, scale={scale}):
    """Normalise a list of numbers; used by the data pipeline."""
    total = 0.0
    for value in values:
        total += value * scale
    if not values:
        return []
    mean = total / len(values)
    return [(value * scale - mean) / (abs(mean) + 1e-6) for value in values]
'''


def classes_file(count: int) -> str:
    return HEADER + "".join(BLOCK.format(index=i) for i in range(count))


def lines_file(lines: int) -> str:
    parts, total, index = [HEADER, BLOCK.format(index=0)], 0, 0
    while total < lines:
        index += 1
        text = PLAIN.format(index=index, scale=index % 9 + 1)
        parts.append(text)
        total += text.count("\n")
    return "".join(parts)


def measure(path: str, env: dict, fix: bool) -> Tuple[float, float]:
    """(CPU seconds, peak RSS in MB) of one hybridlint run on ``path``."""
    command = [sys.executable, "-m", "hybridlint", "check", "--no-cache", "--exit-zero", "-q"]
    if fix:
        command.append("--fix")
    proc = subprocess.Popen(
        command + [os.path.basename(path)],
        cwd=os.path.dirname(path),  # not the checkout: `-m` imports from the working directory
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if proc.returncode != 0:
        sys.exit(f"hybridlint failed ({proc.returncode}): {stderr}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def sizes(text: str) -> List[int]:
    return [int(part) for part in text.split(",") if part]


def run_series(label: str, counts: List[int], make, env: dict, workdir: str, fix: bool) -> None:
    cpus = []
    for count in counts:
        path = os.path.join(workdir, f"{label}_{count}.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(make(count))
        cpu, rss = measure(path, env, fix)
        cpus.append(cpu)
        print(f"{label:8s} {count:>9,}: {cpu:8.2f} s CPU  {rss:8.0f} MB peak RSS", flush=True)
    if len(cpus) >= 3:
        print(f"{label:8s} growth CPU({counts[2]})/CPU({counts[0]}) = {cpus[2] / cpus[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--classes", default="100,200,400,800")
    parser.add_argument("--lines", default="5000,10000,20000")
    parser.add_argument("--lint-lines", default="1000000")
    parser.add_argument(
        "--sources", help="run hybridlint from this snapshot (e.g. an older checkout's layout)"
    )
    args = parser.parse_args()
    workdir = tempfile.mkdtemp(prefix="hybridlint-fix-speed-")
    try:
        if args.sources:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(args.sources))
        else:
            env = snapshot_sources(os.path.join(workdir, "src"))
        run_series("classes", sizes(args.classes), classes_file, env, workdir, True)
        run_series("lines", sizes(args.lines), lines_file, env, workdir, True)
        run_series("lint", sizes(args.lint_lines), lines_file, env, workdir, False)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
