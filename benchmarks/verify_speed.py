"""How long verification takes per block, including the worker's start-up.

    python benchmarks/verify_speed.py [--backend engine|mxnet|both] [--rounds N]

Checks every example of testdata/checker/model_examples.toml (the testdata/models files)
plus the clean blocks of testdata/checker/good.py, in one CheckerSession (the worker is
started once and reused), and prints per block the wall time of check_file (eager +
hybridized + export/imports round trip) and of check_fix (the `--fix --verify` job: original
and fixed module, parameter copy, three runs). Then the same blocks each in a fresh session,
to show what reusing the worker saves. Target (issue 5): under 1 s per block, start-up
included, with the worker reused.
"""

from __future__ import annotations

import argparse
import os

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from hybridlint.checker import (  # noqa: E402
    CheckerSession,
    Example,
    check_file,
    check_fix,
    examples_from_config,
)


def cases():
    with open(os.path.join(ROOT, "testdata", "checker", "model_examples.toml"), "rb") as fh:
        table = examples_from_config(tomllib.load(fh)["examples"])
    out = [(os.path.join(ROOT, path), ex) for path, exs in table.items() for ex in exs]
    good = os.path.join(ROOT, "testdata", "checker", "good.py")
    out += [(good, Example("Residual", ((2, 8),))), (good, Example("TwoOutputs", ((2, 3), (2, 3))))]
    return out


def run_backend(backend: str, rounds: int) -> None:
    blocks = cases()
    print(f"\n== backend {backend}: {len(blocks)} blocks, worker reused ==")
    start = time.perf_counter()
    with CheckerSession() as session:
        times, statuses = [], []
        for path, example in blocks:
            t0 = time.perf_counter()
            (report,) = check_file(path, [example], backend=backend, session=session)
            times.append(time.perf_counter() - t0)
            statuses.append(report.status)
            name = f"{os.path.basename(path)}::{example.target}"
            print(f"  check_file {name:44s} {times[-1]:6.3f} s  {report.status}")
        first_round = time.perf_counter() - start
        fix_times = []
        for _ in range(rounds):
            for path, example in blocks:
                with open(path) as fh:
                    text = fh.read()
                t0 = time.perf_counter()
                check_fix(
                    text,
                    text,
                    example.target,
                    example.specs(),
                    kwargs=example.kwargs,
                    path=path,
                    backend=backend,
                    session=session,
                )
                fix_times.append(time.perf_counter() - t0)
        print(f"  workers started: {session.workers_started}, jobs: {session.jobs_run}")
    print(
        f"  check_file, first round incl. worker start-up: {first_round:.3f} s total, "
        f"{first_round / len(blocks):.3f} s per block"
    )
    print(
        f"  check_file per block: median {statistics.median(times):.3f} s, "
        f"max {max(times):.3f} s (first block, incl. start-up: {times[0]:.3f} s)"
    )
    print(
        f"  check_fix per block ({rounds} round(s)): median "
        f"{statistics.median(fix_times):.3f} s, max {max(fix_times):.3f} s"
    )
    cold = []
    for path, example in blocks[:3]:
        t0 = time.perf_counter()
        with CheckerSession() as fresh:
            check_file(path, [example], backend=backend, session=fresh)
        cold.append(time.perf_counter() - t0)
    print(f"  fresh worker per block (first 3 blocks): mean {statistics.mean(cold):.3f} s")
    print(f"  statuses: { {s: statuses.count(s) for s in set(statuses)} }")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["engine", "mxnet", "both"], default="engine")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    for backend in ["engine", "mxnet"] if args.backend == "both" else [args.backend]:
        run_backend(backend, args.rounds)


if __name__ == "__main__":
    main()
