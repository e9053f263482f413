"""`hybridlint check --fix --verify` before and after the one-way data path (issue 15 item 3),
measured in one run.

    python benchmarks/verify_path.py [--before REV] [--rounds N] [--data DIR]

Builds two importable copies of hybridlint in a temporary directory (hybridlint/, with engine/
and rules/ placed inside it as setup.py maps them):

* ``after``: the working tree as it is;
* ``before``: the same tree with the product-surface modules (runner, cli, checker_bridge,
  reporters, baseline, cache, ``__init__``) taken from REV, by default the commit before issue
  15's data-path work. The rules, the linter core, the engine and the checker are the same in
  both, so the difference measured is the path alone: the fixes the worker pool made and threw
  away, the examples table parsed per file, the checker fixing each file from scratch.

Each round runs ``hybridlint check --no-cache --fix --verify .`` once with each copy (in
alternating order) on a fresh copy of DIR (default testdata/verify, every file with its
examples from examples.toml as ``[tool.hybridlint.examples]``; give ``--data testdata`` for
the whole folder, whose other files have no examples), and prints the wall times, their ratio,
the calls of ``fix_source`` and of the examples-table parser, and whether both copies wrote
the same files, the same report and the same verification notes (they must: the path
changed, not the results). With files of more than 150 kB in all (``--data testdata``) the
runner lints in a process pool, whose calls are not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from tests.verify_cases import EXAMPLES, toml_value  # noqa: E402  testdata/verify's examples

BEFORE = "51d54da4e139967c5f4b04221a20b3c82e2cbd31"  # parent of the first issue-15 commit
SURFACE = (
    "runner.py",
    "cli.py",
    "checker_bridge.py",
    "baseline.py",
    "cache.py",
    "__init__.py",
    "reporters/__init__.py",
    "reporters/text.py",
    "reporters/json_format.py",
    "reporters/github.py",
    "reporters/sarif.py",
    "reporters/junit.py",
)
COMMAND = ("check", "--no-cache", "--fix", "--verify", "--timeout", "600", ".")
# The command, counting the calls of fix_source and of the examples-table parser (both looked
# up at call time by the runner, the bridge and the checker) into the file $HL_BENCH_COUNTS.
MAIN = """
import atexit, json, os, sys
import hybridlint.checker as checker, hybridlint.linter as linter
counts = {"fix_source": 0, "examples_from_config": 0}
def counted(module, name):
    real = getattr(module, name)
    def wrapper(*args, **kwargs):
        counts[name] += 1
        return real(*args, **kwargs)
    setattr(module, name, wrapper)
counted(linter, "fix_source")
counted(checker, "examples_from_config")
atexit.register(lambda: open(os.environ["HL_BENCH_COUNTS"], "w").write(json.dumps(counts)))
from hybridlint.cli import main
sys.argv[0] = "hybridlint"
main()
"""


def build_tree(dest: str, before: str = "") -> str:
    """An importable copy of the working tree (hybridlint/ with engine/ and rules/ inside);
    with ``before``, its product-surface modules come from that revision."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    package = os.path.join(dest, "hybridlint")
    shutil.copytree(os.path.join(ROOT, "hybridlint"), package, ignore=skip)
    for folder in ("engine", "rules"):
        shutil.copytree(os.path.join(ROOT, folder), os.path.join(package, folder), ignore=skip)
    for name in SURFACE if before else ():
        text = subprocess.run(
            ["git", "show", f"{before}:hybridlint/{name}"],
            cwd=ROOT,
            check=True,
            capture_output=True,
        ).stdout
        with open(os.path.join(package, name), "wb") as handle:
            handle.write(text)
    return dest


def make_project(dest: str, data: str) -> str:
    """A project folder: a copy of ``data`` and a pyproject.toml with the examples of
    testdata/verify (keys made relative to the project root)."""
    shutil.copytree(
        data,
        os.path.join(dest, os.path.basename(data)),
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    inside = os.path.relpath(os.path.join(ROOT, "testdata", "verify"), data)
    if inside.startswith(".."):
        sys.exit(f"{data}: give testdata/verify or a folder that holds it (the examples)")
    prefix = os.path.normpath(os.path.join(os.path.basename(data), inside))
    lines = ["[tool.hybridlint.examples]"]
    lines += [
        f'"{os.path.normpath(os.path.join(prefix, k))}" = {toml_value(v)}'
        for k, v in EXAMPLES.items()
    ]
    with open(os.path.join(dest, "pyproject.toml"), "w") as handle:
        handle.write("\n".join(lines) + "\n")
    return dest


def snapshot(folder: str) -> dict:
    files = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in ("__pycache__", ".hybridlint_cache")]
        for name in filenames:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as handle:
                files[os.path.relpath(path, folder)] = handle.read()
    return files


def run_once(tree: str, project: str):
    """(seconds, completed process, call counts) of one run of COMMAND in ``project``."""
    counts = project + ".counts.json"
    env = dict(os.environ, PYTHONPATH=tree, HYBRIDLINT_DEBUG="", HL_BENCH_COUNTS=counts)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MAIN, *COMMAND], cwd=project, env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - start
    try:
        with open(counts) as handle:
            calls = json.load(handle)
    except (OSError, ValueError):
        calls = {}
    return seconds, done, calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=BEFORE, help="revision of the old product surface")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--data", default=os.path.join(ROOT, "testdata", "verify"))
    args = parser.parse_args()
    data = os.path.abspath(args.data)
    with tempfile.TemporaryDirectory(prefix="hl-verify-path-") as tmp:
        trees = {
            "before": build_tree(os.path.join(tmp, "before"), args.before),
            "after": build_tree(os.path.join(tmp, "after")),
        }
        times = {name: [] for name in trees}
        results = {}
        for round_ in range(args.rounds):
            order = ["before", "after"] if round_ % 2 == 0 else ["after", "before"]
            for name in order:
                project = make_project(os.path.join(tmp, f"p-{name}-{round_}"), data)
                seconds, done, calls = run_once(trees[name], project)
                times[name].append(seconds)
                print(
                    f"  round {round_ + 1} {name:6s} {seconds:7.2f} s  exit {done.returncode}  "
                    + "  ".join(f"{k} x{v}" for k, v in calls.items()),
                    flush=True,
                )
                if name not in results:
                    results[name] = (done.returncode, done.stdout, done.stderr, snapshot(project))
        print(
            f"\n`hybridlint {' '.join(COMMAND)}` on {os.path.relpath(data, ROOT)} "
            f"({args.rounds} rounds, before = {args.before[:10]}):"
        )
        for name, values in times.items():
            print(
                f"  {name:6s} min {min(values):7.2f} s  median {statistics.median(values):7.2f} s"
            )
        ratio = min(times["before"]) / min(times["after"])
        print(
            f"  after/before: {1 / ratio:.2f} of the time (before is {ratio:.2f}x slower, "
            "by the minimum)"
        )
        same = {
            part: results["before"][i] == results["after"][i]
            for i, part in enumerate(("exit code", "report", "verification notes", "written files"))
        }
        print(
            "  same results: " + ", ".join(f"{k} {'yes' if v else 'NO'}" for k, v in same.items())
        )
        if not all(same.values()):
            sys.exit(1)


if __name__ == "__main__":
    main()
