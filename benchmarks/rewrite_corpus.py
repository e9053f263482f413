"""How many hazardous corpus blocks hybridize with equal outputs after `--fix --unsafe-fixes`?

The measurement of issue 12. For every block of testdata/rewrite_corpus/ (one per file, its
inputs in the module's EXAMPLES, its hazard classes in the first docstring line):

1. the ORIGINAL runs eagerly under real MXNet: the reference outputs and parameters;
2. the original runs hybridized: it must fail or differ, else it is no hazard (reported);
3. `hybridlint check --fix --unsafe-fixes --no-cache` rewrites a temporary copy of the corpus
   (one run over the whole copy, as a user would run it on a project, so helper modules are
   fixed too);
4. the FIXED block runs eagerly and hybridized under real MXNet with the reference parameters
   (loaded by structural name, so a parameter added by a fix does not break the transfer) and
   is compared with the reference (rtol 1e-5, atol 1e-6); `--backend engine` also runs the
   fixed block hybridized on the bundled engine.

Every block runs in a subprocess with a timeout (it is user code). Prints one row per block,
the headline figure and the figure per hazard class. Run from the repository root:

    python benchmarks/rewrite_corpus.py [--mxnet-python /tmp/mxv/bin/python] [--backend engine]
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "testdata" / "rewrite_corpus"
WORKER = Path(__file__).resolve().parent / "rewrite_corpus_worker.py"
FIXED_PACKAGE = "rewrite_corpus_fixed"
RTOL, ATOL = 1e-5, 1e-6
# The rewrite classes of issue 12, then the classes the first rules (HL001-HL010) target.
HAZARD_CLASSES = (
    "reshape-codes",
    "reshape-like",
    "tile-broadcast",
    "creation-like",
    "shape-scalar",
    "ndim-axis",
    "asscalar",
    "const-array",
    "static-creation",
    "multi-hazard-line",
    "helper-static",
    "helper-lambda",
    "helper-import",
    "varargs-reshape",
    "param-data",
    "state-mutation",
    "tensor-iteration",
    "shape-control",
    "indexing",
    "inplace",
    "broadcast-arith",
    "eager-ns",
)
_HEADER = re.compile(
    r"^Hazards:\s*(?P<classes>[a-z0-9\-, ]+)\.\s*Exact rewrite:\s*"
    r"(?P<exact>yes|no)\b\s*(?:\((?P<reason>.*)\))?\.?\s*$"
)


@dataclass
class Block:
    """One corpus block: its file, class, example and declared hazard classes."""

    path: Path
    cls: str
    example: dict
    classes: list[str]
    exact: bool
    reason: str

    @property
    def name(self) -> str:
        return f"{self.path.stem}::{self.cls}"


@dataclass
class Result:
    block: Block
    original: str = ""  # "fails", "differs", "equal" (not a hazard) or "eager error"
    changed: bool = False  # did --fix change the block's file
    fixed_eager: str = ""  # "equal", "differs", or the error
    fixed_hybrid: str = ""  # the same, hybridized
    engine_hybrid: str = ""  # the same on the bundled engine (--backend engine)
    remaining: list[str] = field(default_factory=list)
    detail: str = ""

    @property
    def success(self) -> bool:
        return self.original in ("fails", "differs") and self.fixed_hybrid == "equal"


def parse_header(doc: str | None) -> tuple[list[str], bool, str]:
    """(classes, exact, reason) from 'Hazards: a, b. Exact rewrite: no (reason).'."""
    first = (doc or "").strip().splitlines()[0] if (doc or "").strip() else ""
    match = _HEADER.match(first)
    if not match:
        raise ValueError(
            f"first docstring line is not 'Hazards: ... Exact rewrite: yes|no': {first!r}"
        )
    classes = [c.strip() for c in match["classes"].split(",") if c.strip()]
    unknown = sorted(set(classes) - set(HAZARD_CLASSES))
    if unknown:
        raise ValueError(f"unknown hazard classes {unknown} (known: {HAZARD_CLASSES})")
    return classes, match["exact"] == "yes", (match["reason"] or "").strip()


def load_blocks(corpus: Path = CORPUS) -> list[Block]:
    """Every block of the corpus: files not starting with '_', one entry per EXAMPLES key."""
    blocks = []
    for path in sorted(corpus.glob("*.py")):
        if path.name.startswith("_"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        classes, exact, reason = parse_header(ast.get_docstring(tree))
        examples = None
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "EXAMPLES" for t in node.targets
            ):
                examples = ast.literal_eval(node.value)
        if not examples:
            raise ValueError(f"{path.name}: no EXAMPLES")
        for cls, example in examples.items():
            blocks.append(Block(path, cls, example, classes, exact, reason))
    return blocks


def default_mxnet_python() -> str:
    try:
        import mxnet  # noqa: F401

        return sys.executable
    except ImportError:
        return "/tmp/mxv/bin/python"


def run_worker(python: str, job: dict, workdir: Path, timeout: float) -> dict[str, dict]:
    """Run a worker job; returns step name -> result line (missing steps: timeout/crash)."""
    job_path = workdir / f"job-{job['backend']}.json"
    job_path.write_text(json.dumps(job))
    env = dict(
        os.environ,
        PYTHONDONTWRITEBYTECODE="1",
        OMP_NUM_THREADS="1",
        MXNET_ENGINE_TYPE=os.environ.get("MXNET_ENGINE_TYPE", "NaiveEngine"),
    )
    try:
        proc = subprocess.run(
            [python, str(WORKER), str(job_path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=str(workdir),
        )
        out, why = proc.stdout, f"worker exited {proc.returncode}: {proc.stderr.strip()[-200:]}"
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        why = f"timeout after {timeout:.0f}s"
    results = {}
    for line in out.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            results[item["step"]] = item
    for step in job["steps"]:
        results.setdefault(step["name"], {"ok": False, "error": why, "outputs": None})
    return results


def compare(reference: str, other: str) -> str:
    """'equal' or a short description of the first difference."""
    with np.load(reference) as ref, np.load(other) as got:
        if len(ref.files) != len(got.files):
            return f"differs: {len(got.files)} outputs, expected {len(ref.files)}"
        for key in ref.files:
            a, b = ref[key], got[key]
            if a.shape != b.shape:
                return f"differs: output {key} shape {b.shape}, expected {a.shape}"
            if a.dtype != b.dtype:
                return f"differs: output {key} dtype {b.dtype}, expected {a.dtype}"
            if not np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True):
                return f"differs: output {key} max abs diff {np.max(np.abs(a - b)):.3g}"
    return "equal"


def _verdict(results: dict, step: str, reference: str | None) -> str:
    res = results[step]
    if not res["ok"]:
        return res["error"] or "error"
    return compare(reference, res["outputs"]) if reference else "equal"


def run_block(
    block: Block, fixed_root: Path, args: argparse.Namespace, remaining: dict[str, list[str]]
) -> Result:
    result = Result(block)
    fixed_file = fixed_root / FIXED_PACKAGE / block.path.name
    result.changed = fixed_file.read_bytes() != block.path.read_bytes()
    result.remaining = remaining.get(block.path.name, [])
    with tempfile.TemporaryDirectory(prefix="hl-rc-") as tmp:
        work = Path(tmp)
        stem = block.path.stem
        orig, fixed = f"rewrite_corpus.{stem}", f"{FIXED_PACKAGE}.{stem}"
        job = {
            "roots": [str(CORPUS.parent), str(fixed_root)],
            "cls": block.cls,
            "example": block.example,
            "backend": "mxnet",
            "workdir": str(work),
            "steps": [
                {"name": "reference", "module": orig, "mode": "reference"},
                {"name": "original_hybrid", "module": orig, "mode": "hybrid"},
                {"name": "fixed_eager", "module": fixed, "mode": "eager"},
                {"name": "fixed_hybrid", "module": fixed, "mode": "hybrid"},
            ],
        }
        res = run_worker(args.mxnet_python, job, work, args.timeout)
        if not res["reference"]["ok"]:
            result.original = "eager error"
            result.detail = res["reference"]["error"]
            return result
        ref = res["reference"]["outputs"]
        hyb = _verdict(res, "original_hybrid", ref)
        result.original = (
            "equal" if hyb == "equal" else ("differs" if hyb.startswith("differs") else "fails")
        )
        result.fixed_eager = _verdict(res, "fixed_eager", ref)
        result.fixed_hybrid = _verdict(res, "fixed_hybrid", ref)
        if args.backend == "engine":
            ejob = dict(
                job,
                backend="engine",
                steps=[{"name": "engine_hybrid", "module": fixed, "mode": "hybrid"}],
            )
            eres = run_worker(sys.executable, ejob, work, args.timeout)
            result.engine_hybrid = _verdict(eres, "engine_hybrid", ref)
    if result.original == "equal":
        result.detail = "NOT A HAZARD: the original hybridizes with equal outputs"
    elif not block.exact:
        result.detail = f"no exact rewrite: {block.reason}"
    elif not result.success:
        result.detail = result.fixed_hybrid
    if result.changed and result.fixed_eager != "equal":
        result.detail = f"the fix changed the EAGER result: {result.fixed_eager}; {result.detail}"
    return result


def fix_copy(dest: Path, python: str, timeout: float) -> tuple[dict[str, list[str]], str]:
    """Copy the corpus to dest/rewrite_corpus_fixed, fix it; remaining findings per file."""
    target = dest / FIXED_PACKAGE
    shutil.copytree(CORPUS, target, ignore=shutil.ignore_patterns("__pycache__", "*.md"))
    cmd = [
        python,
        "-m",
        "hybridlint",
        "check",
        "--fix",
        "--unsafe-fixes",
        "--no-cache",
        "--format",
        "json",
        "--exit-zero",
        str(target),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=str(dest))
    remaining: dict[str, list[str]] = {}
    note = ""
    try:
        report = json.loads(proc.stdout)
    except json.JSONDecodeError:
        return remaining, f"hybridlint exited {proc.returncode}: {proc.stderr.strip()[-300:]}"
    for finding in report.get("findings", []):
        name = Path(finding["path"]).name
        remaining.setdefault(name, []).append(f"{finding['code']}@{finding['line']}")
    for error in report.get("errors", []):
        name = Path(error["path"]).name
        remaining.setdefault(name, []).append(f"ERROR {error['message'][:80]}")
        note += f"\n  hybridlint error on {name}: {error['message']}"
    return remaining, note


def print_report(results: list[Result], backend: str) -> None:
    print(
        f"{'block':52} {'hazard classes':34} {'orig hyb':8} {'fixed?':6} {'eager eq?':9} "
        f"{'hyb eq?':7}{' engine' if backend == 'engine' else ''}  remaining / reason"
    )
    for r in results:
        eng = f" {'yes' if r.engine_hybrid == 'equal' else 'no':6}" if backend == "engine" else ""
        eager = "yes" if r.fixed_eager == "equal" else "NO" if r.changed else "-"
        print(
            f"{r.block.name:52} {','.join(r.block.classes)[:34]:34} {r.original:8} "
            f"{'yes' if r.changed else 'no':6} {eager:9} {'yes' if r.success else 'no':7}{eng}  "
            f"{' '.join(r.remaining)[:40]}{'; ' if r.remaining and r.detail else ''}"
            f"{r.detail[:150]}"
        )
    total = len(results)
    ok = sum(r.success for r in results)
    exact = [r for r in results if r.block.exact]
    print()
    print(
        f"{ok} of {total} blocks hybridize with equal outputs after --fix --unsafe-fixes "
        f"({100.0 * ok / max(total, 1):.1f}%)"
    )
    print(f"  blocks with an exact rewrite: {sum(r.success for r in exact)} of {len(exact)}")
    no_exact = [r for r in results if not r.block.exact]
    print(
        f"  blocks without one: {len(no_exact)}, still reported after the fix: "
        f"{sum(bool(r.remaining) for r in no_exact)}, 'fixed' to equal outputs (label or "
        f"rewrite to check): {sum(r.success for r in no_exact)}"
    )
    bad = [r.block.name for r in results if r.original in ("equal", "eager error")]
    if bad:
        print(f"  NOT HAZARDS or broken eagerly (corpus errors): {', '.join(bad)}")
    if backend == "engine":
        print(
            f"  on the bundled engine: {sum(r.engine_hybrid == 'equal' for r in results)} "
            f"of {total} fixed blocks hybridize with equal outputs"
        )
    print("\nper hazard class (blocks containing it):")
    classes = sorted({c for r in results for c in r.block.classes})
    for c in classes:
        rs = [r for r in results if c in r.block.classes]
        miss = [r.block.path.stem for r in rs if not r.success]
        print(
            f"  {c:22} {sum(r.success for r in rs):3} of {len(rs):3}"
            f"{'   missing: ' + ', '.join(miss) if miss else ''}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mxnet-python",
        default=default_mxnet_python(),
        help="python with MXNet 1.9.1 (default: this one if it has mxnet, "
        "else /tmp/mxv/bin/python)",
    )
    parser.add_argument(
        "--hybridlint-python",
        default=sys.executable,
        help="python that runs `-m hybridlint` (default: this one)",
    )
    parser.add_argument(
        "--backend",
        choices=["mxnet", "engine"],
        default="mxnet",
        help="engine: also run the fixed blocks hybridized on the bundled engine",
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per block")
    parser.add_argument("--jobs", "-j", type=int, default=2)
    parser.add_argument("-k", dest="select", default="", help="only blocks whose name has this")
    parser.add_argument(
        "--keep-fixed",
        metavar="DIR",
        type=Path,
        help="also copy the fixed corpus to DIR (to read what the fixes did)",
    )
    args = parser.parse_args(argv)
    blocks = [b for b in load_blocks() if args.select in b.name]
    with tempfile.TemporaryDirectory(prefix="hl-rc-fixed-") as tmp:
        remaining, note = fix_copy(Path(tmp), args.hybridlint_python, 600)
        if args.keep_fixed:
            shutil.copytree(Path(tmp) / FIXED_PACKAGE, args.keep_fixed, dirs_exist_ok=True)
        if note:
            print(f"hybridlint: {note.strip()}")
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            results = list(pool.map(lambda b: run_block(b, Path(tmp), args, remaining), blocks))
    print_report(results, args.backend)
    return 0


if __name__ == "__main__":
    sys.exit(main())
