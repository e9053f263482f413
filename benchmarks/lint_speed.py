"""How fast is hybridlint on a big model repository? Ratios measured in one run.

Generates a synthetic repository (default 2,000 files; 10% hold HybridBlocks, several blocks a
file and a few hazards each; every file 200-2,000 lines of realistic code) in a temporary
directory, then measures on this machine:

* floor: parsing just the hybrid files once with LibCST, on one core, in this process;
* cold:  ``python -m hybridlint`` on the repository with an empty cache (a real subprocess,
         interpreter start-up and imports included, default ``--jobs``);
* warm:  the same command again, everything cached;
* one file, as a pre-commit hook runs it on a commit touching one file: ``--no-cache`` on one
  file without hybrid code (the linter, LibCST and the rules are never loaded), and on one
  hybrid file.

and prints cold/floor (target <= 0.75) and warm/cold (target <= 0.05). Usage::

    python benchmarks/lint_speed.py [--files 2000] [--seed 0] [--jobs N] [--keep]

Timing is wall clock (time.perf_counter); the best of ``--repeat`` runs is taken for each figure.
hybridlint runs from a snapshot of this checkout's sources (copied into the temporary directory
with the package layout setup.py installs), so that files edited while the benchmark runs cannot
invalidate the cache between the cold and the warm run.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from typing import List, Tuple

HYBRID_SHARE = 0.10
MIN_LINES, MAX_LINES = 200, 2000

BLOCK = '''

class {name}(HybridBlock):
    """A residual unit with {channels} channels."""

    def __init__(self, channels={channels}, **kwargs):
        super({name}, self).__init__(**kwargs)
        with self.name_scope():
            self.conv1 = nn.Conv2D(channels, kernel_size=3, padding=1)
            self.bn1 = nn.BatchNorm()
            self.conv2 = nn.Conv2D(channels, kernel_size=3, padding=1)
            self.bn2 = nn.BatchNorm()
            self.dense = nn.Dense({channels})

    def hybrid_forward(self, F, x):
        residual = x
        out = F.Activation(self.bn1(self.conv1(x)), act_type="relu")
        out = self.bn2(self.conv2(out))
        out = F.broadcast_add(out, residual)
{hazard}        return F.Activation(out, act_type="relu")
'''

HAZARDS = [
    "        first = out[0]\n",
    "        batch = x.shape[0]\n",
    "        out += residual\n",
    "        if out.sum() > 0:\n            out = out * 2\n",
    "        print(out)\n",
    "",
    "",
]

HELPER = '''

def {name}(values, scale={scale}):
    """Normalise a list of numbers; used by the data pipeline."""
    total = 0.0
    for value in values:
        total += value * scale
    if not values:
        return []
    mean = total / len(values)
    result = []
    for value in values:
        result.append((value * scale - mean) / (abs(mean) + 1e-6))
    return result
'''

DATASET = '''

class {name}(object):
    """Reads records from disk and yields (data, label) pairs."""

    def __init__(self, root, transform=None):
        self.root = root
        self.transform = transform
        self.items = sorted(os.listdir(root)) if os.path.isdir(root) else []

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        path = os.path.join(self.root, self.items[index])
        with open(path, "rb") as handle:
            data = handle.read()
        label = index % {classes}
        if self.transform is not None:
            data = self.transform(data)
        return data, label
'''

HEADER_HYBRID = '''"""Model definitions (generated for the hybridlint speed benchmark)."""
import os

import mxnet as mx
from mxnet import nd
from mxnet.gluon import HybridBlock, nn
'''

HEADER_PLAIN = '''"""Utilities (generated for the hybridlint speed benchmark)."""
import os
import sys
'''


def generate_file(rng: random.Random, hybrid: bool, index: int) -> str:
    """One module of MIN_LINES..MAX_LINES lines; hybrid ones hold 2-6 HybridBlocks."""
    target = rng.randint(MIN_LINES, MAX_LINES)
    parts = [HEADER_HYBRID if hybrid else HEADER_PLAIN]
    lines = parts[0].count("\n")
    blocks = rng.randint(2, 6) if hybrid else 0
    counter = 0
    while lines < target or blocks > 0:
        counter += 1
        if blocks > 0:
            blocks -= 1
            text = BLOCK.format(
                name=f"Unit{index}_{counter}",
                channels=rng.choice([16, 32, 64]),
                hazard=rng.choice(HAZARDS),
            )
        elif rng.random() < 0.5:
            text = HELPER.format(name=f"normalise_{index}_{counter}", scale=rng.randint(1, 9))
        else:
            text = DATASET.format(name=f"Records{index}_{counter}", classes=rng.randint(2, 1000))
        parts.append(text)
        lines += text.count("\n")
    return "".join(parts)


def generate_repo(root: str, files: int, seed: int) -> List[str]:
    """Write the synthetic repository; returns the paths of the hybrid files."""
    rng = random.Random(seed)
    hybrid_paths = []
    hybrid_indices = set(rng.sample(range(files), int(files * HYBRID_SHARE)))
    for i in range(files):
        package = os.path.join(root, f"pkg{i // 100:02d}")
        os.makedirs(package, exist_ok=True)
        path = os.path.join(package, f"module_{i:04d}.py")
        hybrid = i in hybrid_indices
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(generate_file(rng, hybrid, i))
        if hybrid:
            hybrid_paths.append(path)
    with open(os.path.join(root, "pyproject.toml"), "w", encoding="utf-8") as handle:
        handle.write("[tool.hybridlint]\n")
    return hybrid_paths


def floor_seconds(paths: List[str]) -> Tuple[float, float]:
    """Parse each hybrid file once with LibCST on one core (reading included).

    Returns (wall seconds, CPU seconds).
    """
    import libcst

    start, cpu = time.perf_counter(), time.process_time()
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            libcst.parse_module(handle.read())
    return time.perf_counter() - start, time.process_time() - cpu


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SNAPSHOT_LAYOUT = {
    "hybridlint": "hybridlint",
    "engine": "hybridlint/engine",
    "rules": "hybridlint/rules",
}


def snapshot_sources(target: str) -> dict:
    """Copy hybridlint's sources into ``target`` as installed (byte-compiled); returns the env
    to run them."""
    for source, dest in SNAPSHOT_LAYOUT.items():
        shutil.copytree(
            os.path.join(REPO, source),
            os.path.join(target, dest),
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
            dirs_exist_ok=True,
        )
    # byte-compiled as pip installs it: with PYTHONDONTWRITEBYTECODE set (as in this project's
    # containers) every run would otherwise compile each module again, in every worker
    compileall.compile_dir(target, quiet=1)
    env = dict(os.environ)
    env["PYTHONPATH"] = target + os.pathsep + env.get("PYTHONPATH", "")
    return env


def hybridlint_seconds(root: str, jobs: int, env: dict) -> Tuple[float, float]:
    """One `python -m hybridlint` run on the repository.

    Returns (wall seconds, CPU seconds of the process and its workers).
    """
    command = [sys.executable, "-m", "hybridlint", "--quiet", "--exit-zero", "."]
    if jobs:
        command[3:3] = ["--jobs", str(jobs)]
    start, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run(
        command, cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"hybridlint failed ({proc.returncode}): {proc.stderr.decode()}")
    return elapsed, _children_cpu() - cpu


def one_file_seconds(root: str, path: str, env: dict) -> Tuple[float, float]:
    """One cold `python -m hybridlint --no-cache <path>` run, as a pre-commit hook makes it.

    Returns (wall seconds, CPU seconds)."""
    command = [sys.executable, "-m", "hybridlint", "--quiet", "--exit-zero", "--no-cache", path]
    start, cpu = time.perf_counter(), _children_cpu()
    proc = subprocess.run(command, cwd=root, stdout=subprocess.DEVNULL, env=env)
    if proc.returncode != 0:
        sys.exit(f"hybridlint failed ({proc.returncode}) on {path}")
    return time.perf_counter() - start, _children_cpu() - cpu


def count_findings(root: str, env: dict) -> int:
    proc = subprocess.run(
        [sys.executable, "-m", "hybridlint", "--quiet", "--exit-zero", "."],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
    )
    return sum(1 for line in proc.stdout.splitlines() if ": HL" in line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=0, help="hybridlint --jobs (0: default)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure; best is kept")
    parser.add_argument("--keep", action="store_true", help="keep the generated repository")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="hybridlint-bench-")
    root = os.path.join(workdir, "repo")
    try:
        env = snapshot_sources(os.path.join(workdir, "src"))
        hybrid = generate_repo(root, args.files, args.seed)
        total_lines = sum(
            open(os.path.join(d, f), encoding="utf-8").read().count("\n")
            for d, _, fs in os.walk(root)
            for f in fs
            if f.endswith(".py")
        )
        hybrid_lines = sum(open(p, encoding="utf-8").read().count("\n") for p in hybrid)
        print(
            f"repository: {args.files} files, {total_lines:,} lines; {len(hybrid)} hybrid "
            f"files, {hybrid_lines:,} lines  ({root})"
        )
        cache = os.path.join(root, ".hybridlint_cache")
        load_before = os.getloadavg()[0]
        floors, colds = [], []
        for _ in range(args.repeat):  # interleaved, so that load from elsewhere hits both alike
            floors.append(floor_seconds(hybrid))
            shutil.rmtree(cache, ignore_errors=True)
            colds.append(hybridlint_seconds(root, args.jobs, env))
        (floor, floor_cpu), (cold, cold_cpu) = min(floors), min(colds)
        warm, warm_cpu = min(hybridlint_seconds(root, args.jobs, env) for _ in range(args.repeat))
        caches = [n for n in os.listdir(cache) if n.startswith("lint-")]
        if len(caches) != 1:
            print(f"warning: {len(caches)} cache files: the warm runs were not all cached")
        findings = count_findings(root, env)
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        print(
            f"cores: {cores}; load average before/after: {load_before:.2f} / "
            f"{os.getloadavg()[0]:.2f} (other work on the machine slows the parallel run)"
        )
        print(
            f"floor (LibCST parse of the hybrid files, 1 core): {floor:7.3f} s wall "
            f"{floor_cpu:7.3f} s CPU"
        )
        print(
            f"hybridlint cold (empty cache):                   {cold:7.3f} s wall "
            f"{cold_cpu:7.3f} s CPU   cold/floor = {cold / floor:.3f}  (target <= 0.75)"
        )
        print(
            f"hybridlint warm (cached):                        {warm:7.3f} s wall "
            f"{warm_cpu:7.3f} s CPU   warm/cold  = {warm / cold:.3f}  (target <= 0.05)"
        )
        print(
            f"CPU ratios: cold/floor = {cold_cpu / floor_cpu:.3f}, "
            f"warm/cold = {warm_cpu / cold_cpu:.3f}"
        )
        print(f"findings reported: {findings}")
        plain = next(
            os.path.join(d, f)
            for d, _, fs in sorted(os.walk(root))
            for f in sorted(fs)
            if f.endswith(".py") and os.path.join(d, f) not in hybrid
        )
        for label, path in (("without hybrid code", plain), ("with hybrid code", hybrid[0])):
            wall, cpu = min(one_file_seconds(root, path, env) for _ in range(args.repeat))
            print(f"one file {label:20} (--no-cache): {wall:7.3f} s wall {cpu:7.3f} s CPU")
    finally:
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
