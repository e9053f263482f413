"""Cold and warm lint time on the real-world packages: a baseline install against this checkout.

Issue 11 asks that the cold run over the real-world packages stay within 1.2x of a fixed older
version and that the warm run stay unchanged. This script measures both in one run:

* base: the ``hybridlint`` installed in another interpreter (``--base-python``, default
  ``/tmp/basevenv/bin/python``, e.g. a venv with ``pip install`` of an older commit);
* head: this checkout, run from a snapshot of its sources (so that edits made while the
  benchmark runs change nothing) with ``--head-python`` (default ``sys.executable``). The two
  interpreters' LibCST versions are printed: LibCST's parser is much of a cold run, so give
  ``--head-python /tmp/basevenv/bin/python`` to compare the code alone (the snapshot comes first
  on ``PYTHONPATH``, before the installed old version).

Each package of ``benchmarks/realworld/packages.py`` (downloaded once by ``realworld/run.py``) is
copied twice into a temporary directory, one copy per version, so that each version keeps its own
``.hybridlint_cache`` and nothing is written into the shared download directory. Then, ``--repeat``
times, per package: base cold, head cold (cache removed first), base warm, head warm, interleaved
(A B A B), so that load from other work on the machine hits both alike. The best of the repeats is
kept for each figure; wall and CPU (the process and its workers) are printed with head/base ratios,
per package and in total::

    python benchmarks/realworld_speed.py [--repeat 3] [--jobs 1] [--package gluonts-0.14.4]
        [--head-python /tmp/basevenv/bin/python] [--no-warm | --no-cold]

Every run is a real ``python -m hybridlint --quiet --exit-zero .`` subprocess (start-up included).
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
from typing import Dict, List, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "realworld"))
from lint_speed import snapshot_sources  # noqa: E402
from packages import DEFAULT_CACHE, PACKAGES, fetch  # noqa: E402

CACHE_DIR = ".hybridlint_cache"


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(python: str, env: dict, root: str, jobs: int) -> Tuple[float, float]:
    """One lint of ``root``; returns (wall seconds, CPU seconds)."""
    command = [python, "-m", "hybridlint", "check", "--quiet", "--exit-zero"]
    if jobs:
        command += ["--jobs", str(jobs)]
    command.append(".")
    start, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run(
        command, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(
            f"{python} -m hybridlint failed on {root} ({proc.returncode}):\n{proc.stderr.decode()}"
        )
    return elapsed, _children_cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base-python", default="/tmp/basevenv/bin/python")
    parser.add_argument(
        "--head-python",
        default=sys.executable,
        help="the interpreter running the checkout (default: this one); give --base-python's to "
        "compare the code alone, with the same LibCST, click and numpy",
    )
    parser.add_argument(
        "--head-src",
        help="run this copy of the sources (as installed: hybridlint/, hybridlint/rules/, "
        "hybridlint/engine/) as the head instead of a snapshot of this checkout",
    )
    parser.add_argument("--cache", default=DEFAULT_CACHE, help="where run.py keeps the downloads")
    parser.add_argument("--package", action="append", help="only these packages")
    parser.add_argument("--jobs", type=int, default=0, help="hybridlint --jobs (0: default)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; best is kept")
    parser.add_argument("--no-warm", action="store_true", help="time the cold runs only")
    parser.add_argument(
        "--no-cold",
        action="store_true",
        help="time the warm runs only (one untimed cold run per copy fills the cache first)",
    )
    args = parser.parse_args()

    roots = fetch(args.cache)
    names = [p.name for p in PACKAGES if not args.package or p.name in args.package]
    workdir = tempfile.mkdtemp(prefix="hybridlint-rwspeed-")
    try:
        if args.head_src:  # sources laid out as installed (hybridlint/, hybridlint/rules/...)
            head_src = os.path.join(workdir, "head-src")
            shutil.copytree(args.head_src, head_src, ignore=shutil.ignore_patterns("__pycache__"))
            head_env = dict(os.environ)
            head_env["PYTHONPATH"] = head_src + os.pathsep + head_env.get("PYTHONPATH", "")
        else:
            head_env = snapshot_sources(os.path.join(workdir, "head-src"))
        # bytecode, as pip writes it when it installs the base (this environment may set
        # PYTHONDONTWRITEBYTECODE: every head run would compile its sources again)
        subprocess.run(
            [args.head_python, "-m", "compileall", "-q", os.path.join(workdir, "head-src")],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        base_env = dict(os.environ)
        base_env.pop("PYTHONPATH", None)
        variants = {
            "base": (args.base_python, base_env),
            "head": (args.head_python, head_env),
        }
        copies: Dict[Tuple[str, str], str] = {}
        for name in names:
            for variant in variants:
                target = os.path.join(workdir, variant, name)
                shutil.copytree(
                    roots[name], target, ignore=shutil.ignore_patterns(CACHE_DIR, "__pycache__")
                )
                copies[variant, name] = target
        if args.no_warm and args.no_cold:
            parser.error("--no-warm and --no-cold leave nothing to time")
        kinds = ["cold"] if args.no_warm else ["warm"] if args.no_cold else ["cold", "warm"]
        if args.no_cold:  # fill each copy's cache once, untimed
            for (variant, _), root in copies.items():
                run_once(*variants[variant], root=root, jobs=args.jobs)
        times: Dict[Tuple[str, str, str], List[Tuple[float, float]]] = {}
        load_before = os.getloadavg()[0]
        for _ in range(args.repeat):
            for name in names:
                for kind in kinds:
                    for variant, (python, env) in variants.items():
                        root = copies[variant, name]
                        if kind == "cold":
                            shutil.rmtree(os.path.join(root, CACHE_DIR), ignore_errors=True)
                        timing = run_once(python, env, root, args.jobs)
                        times.setdefault((variant, name, kind), []).append(timing)
        print(
            f"jobs: {args.jobs or 'default'}; repeat: {args.repeat} (best kept); load average "
            f"before/after: {load_before:.2f} / {os.getloadavg()[0]:.2f}"
        )
        for variant, (python, env) in variants.items():
            print(f"{variant}: {python} (LibCST {_libcst_version(python, env)})")
        header = f"{'package':<18} {'':4} {'base wall':>9} {'head wall':>9} {'ratio':>6}"
        print(header + f" {'base cpu':>9} {'head cpu':>9} {'ratio':>6}")
        for kind in kinds:
            totals = {"base": [0.0, 0.0], "head": [0.0, 0.0]}
            for name in names:
                best = {}
                for variant in variants:
                    wall = min(t[0] for t in times[variant, name, kind])
                    cpu = min(t[1] for t in times[variant, name, kind])
                    best[variant] = (wall, cpu)
                    totals[variant][0] += wall
                    totals[variant][1] += cpu
                print(_row(name, kind, best["base"], best["head"]))
            print(_row("total", kind, tuple(totals["base"]), tuple(totals["head"])))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _libcst_version(python: str, env: dict) -> str:
    code = "import importlib.metadata as m; print(m.version('libcst'))"
    proc = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env)
    return proc.stdout.strip() or "?"


def _row(name: str, kind: str, base: Tuple[float, ...], head: Tuple[float, ...]) -> str:
    return (
        f"{name:<18} {kind:4} {base[0]:9.3f} {head[0]:9.3f} {head[0] / base[0]:6.3f}"
        f" {base[1]:9.3f} {head[1]:9.3f} {head[1] / base[1]:6.3f}"
    )


if __name__ == "__main__":
    main()
