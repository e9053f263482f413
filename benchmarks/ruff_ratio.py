"""Cold hybridlint against ruff on the same public corpus, side by side in one process tree.

Issue 22 item 4 asks that a cold lint (``--no-cache``) of a public corpus cost at most 5x
``ruff check --select E,F,W --no-cache`` on the same files. This script copies the corpus (the
real-world packages that ``benchmarks/realworld/run.py`` downloads, by default, plus any
``--extra`` directories, e.g. MXNet's own sources) into a temporary directory, then runs, ``--repeat``
times and interleaved (A B A B, so that load from other work hits both alike):

* ``ruff check --select E,F,W --no-cache --exit-zero -q .``
* ``python -m hybridlint check --no-cache --exit-zero -q .`` from a snapshot of this checkout
  (``--sources DIR`` to run another one; start-up and imports included)

and prints, for the best run of each, wall seconds and CPU seconds (the process and its
workers), and the ratios hybridlint/ruff. It also prints where hybridlint's CPU goes by kind
of file (``--split``): files without hybrid code (skipped by the text pre-filter after Python's
own syntax check) against those linted::

    python benchmarks/ruff_ratio.py [--repeat 3] [--extra /tmp/mxv/lib/python3.8/site-packages/mxnet]
        [--sources DIR] [--split]

Figures (``--repeat 1 --split``; 2-core container shared with other work, so CPU seconds are the
meaningful ones), realworld sources (1,781 files, 20 MB; 360 with hybrid code), ruff 0.61 s CPU:

* checkout before issue 22's perf work (11:00 UTC, 2026-11-28): hybridlint 15.1 s CPU (24x);
  in-process: LibCST parse of the regions 6.8 s, rules 2.2 s, Python's syntax check 2.5 s;
* HEAD 5d0214e (rules grown since by other work): 25.6 s CPU (40x); rules 11.9 s;
* after hybridlint/cstwalk.py (5384778): 18.5 s CPU (30x); rules 6.1 s, parse 5.4 s, syntax 1.9 s.

On the larger corpus of 2026-11-29 (4,164 files: the realworld and e2e packages), ruff 1.54 s
CPU: 29.2 s CPU (18.9x; parse 10.6 s, rules 8.5 s, syntax 4.3 s) at 8f49799; 27.6 s (17.9x;
rules 6.5 s) after HL001's `resizes_last` was asked once per function (998daa7). Keeping each
function's walked nodes (`values.walk_nodes`) measured no gain and was not kept.

2026-11-29, later: the runner sends files to its workers in batches (470038d) and the rules read
children from node fields instead of LibCST's `children` (78f1d54). Measured as
`--repeat 2 --sources <snapshot>` of 7e784e3 and of 470038d, alternated twice, best run of each,
both with libcst 1.9.0 (what `pip install` takes; this container had 1.0.1, whose parse of the
hybrid regions is ~30% slower: 10.3 s against 7.9 s for the same regions): 27.9 -> 25.0 s CPU,
17.8x -> 15.9x the best ruff run (1.57 s CPU). The container's timings vary by up to a third between runs of
the same tree (a shared host), so only alternated runs compare.

The LibCST parse of the 94k lines in hybrid regions alone is ~9x ruff's whole run: 5x needs a
cheaper parse than LibCST's, not a cheaper pre-filter (files without hybrid code cost their
syntax check and the text pre-filter, ~2.4 s of the 14.9 s in-process).

2026-12-03, inherited hybrid_forwards (5362328..2988e6a: a file without hybrid code whose class
derives from another module's hybrid class is linted; every file's `from` lines importing a
class base are indexed). `--repeat 1 --sources <snapshot>` of 7423917 and 2988e6a alternated
three times on 4,182 files: 56.0 / 59.6 / 52.5 s CPU before, 62.8 / 63.4 / 56.8 s after (about
+8%); in-process (`--split`): the pre-filter 1.5 -> 2.4 s, the parse of hybrid regions 20.0 ->
22.3 s (the subclass files now linted), the rules 17.3 -> 18.4 s. Python's own syntax check of
all files is 7 s of it: `compile()` instead of `ast.parse` measured 6.3 against 6.9-7.2 s, not
worth the change.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from typing import List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from lint_speed import snapshot_sources  # noqa: E402

DEFAULT_CORPUS = os.path.expanduser("~/.cache/hybridlint-realworld/src")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: List[str], cwd: str, env: dict) -> Tuple[float, float]:
    """(wall seconds, CPU seconds of the process and the workers it waited for)."""
    start, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run(
        command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    wall, used = time.perf_counter() - start, _children_cpu() - cpu
    if proc.returncode != 0:
        sys.exit(f"{command[0]} failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    return wall, used


def ruff_command() -> List[str]:
    """The ruff binary itself (a pyenv shim or ``python -m ruff`` would add its start-up)."""
    found = shutil.which("ruff", path=os.path.dirname(sys.executable)) or shutil.which("ruff")
    if found is None:
        sys.exit("ruff not found")
    return [found, "check", "--select", "E,F,W", "--no-cache", "--exit-zero", "-q", "."]


def copy_corpus(sources: List[str], target: str) -> int:
    """Copy the corpus directories; returns the number of .py files."""
    for index, source in enumerate(sources):
        shutil.copytree(
            source,
            os.path.join(target, f"{index}-{os.path.basename(source.rstrip(os.sep))}"),
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", ".hybridlint_cache"),
        )
    return sum(f.endswith(".py") for _, _, files in os.walk(target) for f in files)


def split(root: str, env: dict) -> None:
    """CPU of one in-process hybridlint run (``--jobs 1``) by kind of file."""
    script = (
        "import sys, time, collections\n"
        "import hybridlint.runner as R, hybridlint.linter as L\n"
        "acc = collections.Counter()\n"
        "def timing(owner, name):\n"
        "    f = getattr(owner, name)\n"
        "    def g(*a, **k):\n"
        "        t = time.process_time()\n"
        "        try: return f(*a, **k)\n"
        "        finally: acc[name] += time.process_time() - t\n"
        "    setattr(owner, name, g)\n"
        "for owner, name in [(R, '_syntax_problem'), (L, 'lint_source'),\n"
        "                    (L, 'may_contain_hybrid_code'), (L, '_parse_regions'),\n"
        "                    (L, '_run_rules')]:\n"
        "    timing(owner, name)\n"
        "from hybridlint.cli import main\n"
        "t = time.process_time()\n"
        "try:\n"
        "    main(['check', '--no-cache', '--exit-zero', '-q', '--jobs', '1', '.'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "total = time.process_time() - t\n"
        "print('in-process CPU (s): total %.2f; ' % total + ', '.join(\n"
        "    '%s %.2f' % item for item in sorted(acc.items())), file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script],
        cwd=root,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    print(proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "(no output)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", default=DEFAULT_CORPUS)
    parser.add_argument("--extra", action="append", default=[], help="more source directories")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sources", help="run hybridlint from this snapshot directory")
    parser.add_argument("--split", action="store_true", help="also: CPU by kind of file")
    args = parser.parse_args()
    if not os.path.isdir(args.corpus):
        sys.exit(f"no corpus at {args.corpus}: run benchmarks/realworld/run.py once")
    workdir = tempfile.mkdtemp(prefix="hybridlint-ruff-ratio-")
    try:
        root = os.path.join(workdir, "corpus")
        os.makedirs(root)
        files = copy_corpus([args.corpus, *args.extra], root)
        if args.sources:
            env = dict(os.environ, PYTHONPATH=os.path.abspath(args.sources))
        else:
            env = snapshot_sources(os.path.join(workdir, "src"))
        hybridlint = [sys.executable, "-m", "hybridlint", "check", "--no-cache"]
        hybridlint += ["--exit-zero", "-q", "."]
        print(f"corpus: {files} .py files; load average {os.getloadavg()[0]:.1f}")
        ruffs, hybrids = [], []
        for _ in range(args.repeat):
            ruffs.append(timed(ruff_command(), root, env))
            hybrids.append(timed(hybridlint, root, env))
        (ruff_wall, ruff_cpu), (hl_wall, hl_cpu) = min(ruffs), min(hybrids)
        ruff_cpu, hl_cpu = min(c for _, c in ruffs), min(c for _, c in hybrids)
        print(f"ruff (E,F,W):       {ruff_wall:7.2f} s wall {ruff_cpu:7.2f} s CPU")
        print(f"hybridlint (cold):  {hl_wall:7.2f} s wall {hl_cpu:7.2f} s CPU")
        print(
            f"hybridlint/ruff:    {hl_wall / ruff_wall:7.2f} x wall {hl_cpu / ruff_cpu:6.2f} x CPU"
            "  (target <= 5)"
        )
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        if args.split:
            split(root, env)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
