"""End to end: does a real failing block work after `hybridlint --fix --verify`? (issue 20)

For every case of benchmarks/e2e/cases/ (a HybridBlock copied byte for byte from a pinned
public package, with examples that match its real callers; format in cases.py):

1. the block is written as a one-file project (``block.py`` + a pyproject.toml holding its
   examples) once per mode, and the mode's command runs on it:
   ``fix`` = ``hybridlint --fix``, ``unsafe`` = ``--fix --unsafe-fixes``, ``verify`` =
   ``--fix --verify`` (bundled engine, this interpreter, no MXNet needed), ``verify-mxnet`` =
   ``--fix --verify --backend mxnet`` (the MXNet venv's interpreter), ``verify-bare`` =
   ``--fix --verify`` with NO examples configured (what a user who writes none gets: each
   fix is then proven on its own expression, on generated shapes, or not applied), and
   ``fix-bare`` = ``--fix`` on that same project (its floor: the rules read configured
   examples too, so plain ``fix`` knows more than ``verify-bare`` does);
2. the judge (judge.py, under real MXNet 1.9.1) runs the ORIGINAL eagerly as the reference,
   then every rewritten block eagerly and hybridized with the reference parameters, on the
   examples and on inputs the tool never saw (``unseen``);
3. each block ends, per mode, as one of
   - ``fixed``: eager and hybridized equal the original's eager outputs on every input, so
     does the hybridized block written by ``export`` and read back by ``SymbolBlock.imports``,
     and the rewrite's training step (outputs and gradients under ``autograd.record()``)
     equals the original's (``training_difference`` says which steps count);
   - ``reported``: still failing, and the tool exited 1 with a finding in the file (the
     blocking line and reason are printed) at a line where MXNet's hybridized run fails on an
     example (any line when MXNet raises nowhere in the file: a wrong value has no line);
   - ``misplaced``: like ``reported``, but the blocking finding names another line than the one
     where MXNet fails, so the user is sent to the wrong place;
   - ``silent``: still failing, and the tool exited 0;
   - ``cannot-run``: still failing, and the tool exited 2 saying it could not run the block;
   - ``over-claimed``: still failing on an example although the tool said a fix was proven
     "== fixed hybridized" by an example of this block;
   - ``broken``: the rewrite changed what the block computes eagerly (or made it fail),
     what a training step computes, or what its exported model computes;
   a block that already worked is ``ok`` (still equal) or ``broken``.

    python benchmarks/e2e/run.py [--mxnet-python /tmp/mxv/bin/python] [-k lipswish] [-j 2]
    python benchmarks/e2e/run.py --validate     # only: does each original fail/work as labelled
                                                # (and is each reference fix judged fixed)?

Packages are downloaded (pinned by sha256) by benchmarks/realworld/packages.py; no third-party
code is committed. Prints a row per block, the tally per mode and the "--fix --verify worse
than --fix --unsafe-fixes" count; ``--json FILE`` saves every verdict.
"""

from __future__ import annotations

import argparse
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
from typing import Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "realworld"))

from cases import (  # noqa: E402
    BLOCK_FILE,
    Case,
    CaseError,
    apply_reference,
    extra_packages,
    block_lines,
    load_cases,
    materialize,
)
from packages import Package, fetch  # noqa: E402

# Packages only the end-to-end harness reads (their findings are not labelled for the
# real-world precision harness), pinned like those of benchmarks/realworld/packages.py.
E2E_PACKAGES: List[Package] = [
    Package(
        "gluonfr-1.0.2",
        "gluonfr==1.0.2",
        "gluonfr-1.0.2.tar.gz",
        "6223c6949964b9025da9d4203b0c71dd3e1c3e7000e244704c201384c7731120",
    ),
    Package(
        "gluonar-0.1.0",
        "gluonar==0.1.0",
        "gluonar-0.1.0.tar.gz",
        "0e38622857699094e231ecc9a680d1e20175d98ec63cfb3e63b02158a812a194",
    ),
    # The fresh set (benchmarks/e2e/fresh/): packages no case of cases/ or holdout/ uses.
    Package(
        "autogluon-0.0.15",
        "autogluon==0.0.15",
        "autogluon-0.0.15-py3-none-any.whl",
        "d08bcf5fb5844e85e656267b2d2eec625fca0492fe509da44960a6321e1f957e",
    ),
    Package(
        "cnocr-1.2.2",
        "cnocr==1.2.2",
        "cnocr-1.2.2-py3-none-any.whl",
        "ddc4b35d0039a514855b7da4bb7a149623c7369d2afccf03173b03e28c313fe7",
    ),
    # rl-coach's sdist declares python_requires=">=3.5.*", which setuptools >= 60 rejects while
    # pip prepares its metadata, so its download pins the build environment's setuptools
    Package(
        "rl-coach-1.0.1",
        "rl-coach==1.0.1",
        "rl-coach-1.0.1.tar.gz",
        "0c4f3a334ff55d534d2fc7f83d5e791f64b780391039e367f6cd9b4381838744",
        build_constraints="setuptools<60",
    ),
    Package(
        "gluoncv-0.2.0",
        "gluoncv==0.2.0",
        "gluoncv-0.2.0-py2.py3-none-any.whl",
        "72eb8c0ae95bd537496569686b622524981e19c5e9e755bdc4c853c5dcf86198",
    ),
    # The second fresh set (benchmarks/e2e/fresh2/): releases no other case set uses; from the
    # gluoncv releases only classes whose code differs from every gluoncv release used elsewhere
    Package(
        "gluoncv-0.1.0",
        "gluoncv==0.1.0",
        "gluoncv-0.1.0-py2.py3-none-any.whl",
        "bdb9a72fab133872364d7947749d2a3222dc298992047b669fefe37e1a11ec7c",
    ),
    Package(
        "gluoncv-0.3.0",
        "gluoncv==0.3.0",
        "gluoncv-0.3.0-py2.py3-none-any.whl",
        "c21e55fd306f43cc75008a8e6e02470c6434b51ad48d0e3c96a6a34c7e70aa0e",
    ),
    Package(
        "gluoncv-0.4.0",
        "gluoncv==0.4.0",
        "gluoncv-0.4.0-py2.py3-none-any.whl",
        "62b9bc4b6606a6844f5999b9afd5de134c724544638a12f0db68be404fd5677d",
    ),
    Package(
        "mxnet-donkeycar-1.0",
        "mxnet-donkeycar==1.0",
        "mxnet_donkeycar-1.0-py3-none-any.whl",
        "20f078c6034a4be3ac84ba32680c0d234741d186d62a893652b1841aa4ba5a83",
    ),
    # XKT 0.0.2 and longling 1.3.0 (fresh2/) are pinned in benchmarks/realworld/packages.py
    # The third fresh set (benchmarks/e2e/fresh3/): accel-brain-base's research losses and layers
    # The fourth fresh set (benchmarks/e2e/fresh4/): CangJie's Chinese text classifiers and
    # MXNet 1.5.1's gluon losses (only classes whose code 1.9.1 rewrote)
    Package(
        "mxnet-1.5.1",
        "mxnet==1.5.1",
        "mxnet-1.5.1-py2.py3-none-manylinux1_x86_64.whl",
        "8ec9f265766fbbdff2e451d2a78af4c80d31777039dc9f6c37ec71a8f5ba8cd3",
    ),
    # The fifth fresh set (benchmarks/e2e/fresh5/): MXNet 0.11.0's gluon (the first release
    # with gluon: losses and cells 1.x rewrote) and GluonNLP 0.2.0's classes later releases
    # rewrote
    Package(
        "mxnet-0.11.0",
        "mxnet==0.11.0",
        "mxnet-0.11.0-py2.py3-none-manylinux1_x86_64.whl",
        "e6b585ccfea8d005b2571f1778cd2a2da4b7451bdf252ab4d16fa1c947062d80",
    ),
    Package(
        "gluonnlp-0.2.0",
        "gluonnlp==0.2.0",
        "gluonnlp-0.2.0.tar.gz",
        "8dad1135bfcf0ee45b7c37d638d18656b65f5da838da17d007b386ab23ab3997",
    ),
    # The seventh fresh set (benchmarks/e2e/fresh7/): einops 0.3.2's gluon layers (the last
    # releases with a symbolic MXNet backend)
    Package(
        "einops-0.3.2",
        "einops==0.3.2",
        "einops-0.3.2-py3-none-any.whl",
        "285f3c75620897acb8b5580170c88121f010c77ce130bc7b9f220179009dafe0",
    ),
    # The ninth fresh set (benchmarks/e2e/fresh9/): ResNeSt's gluon blocks (split attention,
    # DropBlock, the bottleneck and the network)
    Package(
        "resnest-0.0.5",
        "resnest==0.0.5",
        "resnest-0.0.5-py3-none-any.whl",
        "e9daa6931f49bfd8487f91572c597b218e09755aac6cc7e6a18a665085b73009",
    ),
    # The twelfth fresh set (benchmarks/e2e/fresh12/): gluonbook 0.6.9's Residual (early 0.6
    # releases are the only gluonbook/d2lzh/d2l ones whose Residual is a HybridBlock)
    Package(
        "gluonbook-0.6.9",
        "gluonbook==0.6.9",
        "gluonbook-0.6.9.tar.gz",
        "92fe01e3014bd75900b5f69f2949b0c85379f118e2ae1f29ca87cf0988aacd3d",
    ),
    # The twelfth fresh set, second round: pygan 1.1.2's and pysummarization 1.1.9's gluon
    # models, subclasses of accel-brain-base 1.1.0's (benchmarks/realworld/packages.py)
    Package(
        "pygan-1.1.2",
        "pygan==1.1.2",
        "pygan-1.1.2.tar.gz",
        "4b367cbd61d42dcfcd2532b39fce83e750f62246ff2c837f0f685ea2fdfd54ac",
    ),
    Package(
        "pysummarization-1.1.9",
        "pysummarization==1.1.9",
        "pysummarization-1.1.9.tar.gz",
        "f4aca73ad5a96adcac877e6c1c39b83182460978415c87e1c41588af6e7e45af",
    ),
    # accel-brain-base's first 1.0 release: its LSTMNetworks still divides with the elementwise
    # `/` that 1.0.8/1.1.0 replaced by broadcast_div
    Package(
        "accel-brain-base-1.0.0",
        "accel-brain-base==1.0.0",
        "accel-brain-base-1.0.0.tar.gz",
        "4d573963dab2327b547fb6aaca3c754187394a1c2458843ce103593b9383d9a6",
    ),
]

MODES = ("fix", "unsafe", "verify", "verify-mxnet", "verify-bare", "fix-bare")
RANK = {
    "random": 2,
    "fixed": 3,
    "ok": 3,
    "reported": 2,
    "cannot-run": 2,
    "misplaced": 1,
    "silent": 1,
    "over-claimed": 1,
    "broken": 0,
}
TOOL_TIMEOUT = 900
JUDGE_TIMEOUT = 600
_FINDING = re.compile(r"^block\.py:(\d+):(\d+): (HL\d+) (.*)$")
_JUDGE_LINE = re.compile(r"\(at line (\d+)\)")
_CLAIM = re.compile(r"fix proven by example (.+?): original eager == .*== fixed hybridized")


@dataclass
class ToolRun:
    returncode: int
    findings: List[tuple] = field(default_factory=list)  # (line, code, message)
    claims: bool = False  # a fix "proven ... == fixed hybridized"
    # the blocks those claims name (`Net` of `Net#2`, `Net#inferred`); empty: the judged one
    claimed: Tuple[str, ...] = ()
    changed: bool = False
    error: str = ""


@dataclass
class Outcome:
    verdict: str
    detail: str = ""


def default_mxnet_python() -> Optional[str]:
    try:
        import mxnet  # noqa: F401

        return sys.executable
    except ImportError:
        candidate = "/tmp/mxv/bin/python"
        return candidate if os.path.exists(candidate) else None


def tool_command(mode: str, mxnet_python: str) -> List[str]:
    python = mxnet_python if mode == "verify-mxnet" else sys.executable
    base = [python, "-m", "hybridlint", "--no-cache", "--fix"]
    extra = {
        "fix": [],
        "unsafe": ["--unsafe-fixes"],
        "verify": ["--verify"],
        "verify-mxnet": ["--verify", "--backend", "mxnet"],
        "verify-bare": ["--verify"],
        "fix-bare": [],
    }[mode]
    return base + extra + [BLOCK_FILE]


def checkout_overlay(src: Path, into: Path) -> Path:
    """A folder to put first on PYTHONPATH so that `hybridlint`, `hybridlint.rules` and
    `hybridlint.engine` all come from checkout `src`. The checkout keeps rules/ and engine/ at
    its top (setup.py maps them into the package), so `src` itself on the path would give only
    its hybridlint/ and leave the subpackages to the installed (editable) ones: a before/after
    comparison of rules would then compare nothing. Symlinks, nothing copied."""
    package = into / "hybridlint"
    shutil.rmtree(into, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in (src / "hybridlint").iterdir():
        if entry.name != "__pycache__":
            (package / entry.name).symlink_to(entry.resolve())
    for sub in ("rules", "engine"):
        (package / sub).symlink_to((src / sub).resolve())
    return into


def run_tool(mode: str, directory: Path, mxnet_python: str, src: Optional[str]) -> ToolRun:
    before = (directory / BLOCK_FILE).read_bytes()
    env = dict(os.environ, NO_COLOR="1", COLUMNS="200")
    if src:  # another checkout's hybridlint (before/after figures): first on the path
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [src, env.get("PYTHONPATH")]))
    try:
        done = subprocess.run(
            tool_command(mode, mxnet_python),
            cwd=directory,
            capture_output=True,
            text=True,
            timeout=TOOL_TIMEOUT,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return ToolRun(-1, error=f"timed out after {TOOL_TIMEOUT} s")
    run = ToolRun(done.returncode, changed=(directory / BLOCK_FILE).read_bytes() != before)
    for line in done.stdout.splitlines():
        match = _FINDING.match(line)
        if match:
            run.findings.append((int(match[1]), match[3], match[4]))
    claims = [m for m in map(_CLAIM.search, done.stderr.splitlines()) if m]
    run.claims = bool(claims)
    run.claimed = tuple(sorted({label.split("#")[0] for m in claims for label in m[1].split(", ")}))
    (directory / "tool.stdout").write_text(done.stdout)
    (directory / "tool.stderr").write_text(done.stderr)
    if done.returncode not in (0, 1):
        lines = (done.stdout + "\n" + done.stderr).strip().splitlines() or ["?"]
        said = [ln for ln in lines if "cannot run" in ln or "error:" in ln] or lines[-1:]
        run.error = said[0].strip()[:200]
    return run


def _judged(verdict: str) -> bool:
    """A training verdict that says something about the rewrite: not "equal", not a step
    whose random draws differ, not one the original itself cannot take."""
    return verdict != "equal" and not verdict.startswith(("random:", "reference:"))


def _first_held(case: Case, verdicts: Sequence[str], baseline: Sequence[str] = ()) -> str:
    """The first of `verdicts` held against the rewrite (`_judged`, and for a working block
    only where its original's own `baseline` verdict is "equal"), with its input named
    when it is an unseen one; "" if none."""
    for index, verdict in enumerate(verdicts):
        if not _judged(verdict):
            continue
        if case.kind == "works" and index < len(baseline) and baseline[index] != "equal":
            continue
        return verdict + ("" if index < len(case.examples) else " (unseen input)")
    return ""


def training_difference(case: Case, verdicts: dict, original_train: Sequence[str]) -> str:
    """The first training step that shows the rewrite changed what training computes, ""
    if none. The rewrite's own effect is its EAGER step against the original's (the same
    MXNet mode on both sides); its hybridized step counts too for a working block, where the
    original's hybridized step is the baseline (an input on which that baseline differs is
    MXNet's difference, not the rewrite's). A failing block has no such baseline, so a
    difference only hybridized is MXNet's own (`hybrid_training_note`)."""
    eager = _first_held(case, verdicts.get("train", []))
    if eager:
        return f"training step (eager) {eager}"
    if case.kind != "works":
        return ""
    hybrid = _first_held(case, verdicts.get("train_hybrid", []), original_train)
    return f"training step (hybridized) {hybrid}" if hybrid else ""


def export_difference(case: Case, verdicts: dict, original_exported: Sequence[str]) -> str:
    """The first input on which the block written by `export` and read back by
    `SymbolBlock.imports` does not give the original's outputs, "" if none; for a working
    block only where the original's own export does."""
    exported = _first_held(case, verdicts.get("exported", []), original_exported)
    return f"exported {exported}" if exported else ""


def hybrid_training_note(verdicts: dict) -> str:
    """A hybridized training step that differs from the original's eager one while the
    rewrite's eager step equals it: MXNet computes that step differently hybridized (PReLU's
    alpha gradient, BatchNorm's last digits), shown but not held against the rewrite."""
    return next((v for v in verdicts.get("train_hybrid", []) if _judged(v)), "")


def classify(
    case: Case,
    run: ToolRun,
    verdicts: dict,
    fixed_source: str,
    original_train: Sequence[str] = (),
    original_exported: Sequence[str] = (),
    unchanged: bool = False,
) -> Outcome:
    eager, hybrid = verdicts["eager"], verdicts["hybrid"]
    n_examples = len(case.examples)
    if any(v.startswith("reference:") for v in eager):
        return Outcome("invalid", next(v for v in eager if v.startswith("reference:")))
    if unchanged and case.kind == "works":
        # the tool left the file as it was: a working block it did not touch is the original
        # (judging it again only measures MXNet's noise: a stale gradient buffer of an index
        # input once showed BERTClassifier's untouched copy "broken")
        return Outcome("ok", "unchanged")
    bad_eager = [v for v in eager if v != "equal"]
    if bad_eager:
        return Outcome("broken", f"eager {bad_eager[0]}")
    # "random:": the rewrite's hybridized outputs change from run to run (MXNet's own
    # uninitialized memory, judge.py): that input judges nothing, said in the detail
    failing = [i for i, v in enumerate(hybrid) if v != "equal" and not v.startswith("random:")]
    randoms = [v for v in hybrid if v.startswith("random:")]
    if not failing and randoms and len(randoms) == len(hybrid):
        return Outcome("random", randoms[0])
    if not failing:
        # equal in inference, but a fix must not change what a training step computes
        trained = training_difference(case, verdicts, original_train)
        if trained:
            return Outcome("broken", trained)
        exported = export_difference(case, verdicts, original_exported)
        if exported:
            return Outcome("broken", exported)
        note = f"{len(randoms)} input(s) not judged: {randoms[0]}" if randoms else ""
        return Outcome("ok" if case.kind == "works" else "fixed", note)
    where = "" if failing[0] < n_examples else " (unseen input)"
    first = f"hybridized {hybrid[failing[0]]}{where}"
    if case.kind == "works":
        return Outcome("broken", first)
    # a claim about another block of the file (an example --verify inferred for a child, say
    # LipSwish in SNDense) says nothing of this one
    claims_this = run.claims and (not run.claimed or case.block in run.claimed)
    if claims_this and any(i < n_examples for i in failing):
        return Outcome("over-claimed", first)
    if run.returncode == 1 and run.findings:
        span = block_lines(fixed_source, case.block) or (0, 10**9)
        blocking = (
            [f for f in run.findings if f[1] == "HL903"]
            or [f for f in run.findings if span[0] <= f[0] <= span[1]]
            or run.findings
        )
        # the judge's line ends each verdict; several examples may each stop at their own
        # line: one finding at one of them is enough, wherever it is (a helper outside the
        # block, a finding the order above would not put first)
        failed_at = {int(m[-1]) for m in (_JUDGE_LINE.findall(hybrid[i]) for i in failing) if m}
        verdict = "reported"
        if failed_at:
            at_line = [f for f in blocking + run.findings if f[0] in failed_at]
            blocking, verdict = (at_line, verdict) if at_line else (blocking, "misplaced")
        line, code, message = blocking[0]
        return Outcome(verdict, f"{code} at line {line}: {message[:140]}; judge: {first}")
    if run.returncode not in (0, 1):
        # exit 2: the tool says it could not run or check the block; not a silent pass
        return Outcome("cannot-run", f"exit {run.returncode}: {run.error}; judge: {first}")
    return Outcome("silent", f"exit {run.returncode}; judge: {first}")


def _events(stdout: str) -> List[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def train_verdicts(command: List[str], n_inputs: int, labels: List[str]) -> dict:
    """The training steps of one case (judge.py --training), run again past any step in
    which MXNet kills the process (a segfault in a backward pass): that step is an "error",
    or, when it is the original's own step, every step of that input is "reference: ..."."""
    verdicts: Dict[str, str] = {}
    crashed: List[str] = []
    for _ in range(4 * n_inputs * (len(labels) + 1) + 1):
        skip = crashed + [k for k in verdicts if not k.endswith(":reference")]
        extra = ["--skip", ",".join(skip)] if skip else []
        started = None
        try:
            done = subprocess.run(
                command + ["--training"] + extra,
                capture_output=True,
                text=True,
                timeout=JUDGE_TIMEOUT,
            )
            stdout, why = (
                done.stdout,
                f"exit {done.returncode}: " + (done.stderr.strip().splitlines() or ["?"])[-1][:160],
            )
            ended = done.returncode == 0
        except subprocess.TimeoutExpired as exc:
            # TimeoutExpired keeps the output as bytes, whatever `text` says
            out = exc.stdout or b""
            stdout = out.decode(errors="replace") if isinstance(out, bytes) else out
            why, ended = f"timed out after {JUDGE_TIMEOUT} s", False
        for event in _events(stdout):
            if "start" in event:
                started = event["start"]
            elif "done" in event:
                verdicts[event["done"]], started = event["verdict"], None
        if ended or started is None:
            break
        crashed.append(started)
        if not started.endswith(":reference"):
            verdicts[started] = f"error: the judge died in this step ({why})"
    result: dict = {"original_train": [], "variants": {}}
    for index in range(n_inputs):
        result["original_train"].append(verdicts.get(f"{index}:original:hybrid", "error: not run"))
        for label in labels:
            row = result["variants"].setdefault(label, {"train": [], "train_hybrid": []})
            row["train"].append(verdicts.get(f"{index}:{label}:eager", "error: not run"))
            row["train_hybrid"].append(verdicts.get(f"{index}:{label}:hybrid", "error: not run"))
    return result


def judge(cases: List[Case], dirs: Dict[str, Dict[str, Path]], modes, mxnet_python, jobs):
    """{case name: judge result} from one judge process per case (user code: a timeout each)
    for the inference verdicts, then its training steps (`train_verdicts`)."""

    def one(case: Case) -> dict:
        labels = [label for label in dirs[case.name] if label != "original"]
        job = {
            "cases": [
                {
                    "name": case.name,
                    "block": case.block,
                    "calls": case.calls,
                    "original": str(dirs[case.name]["original"] / BLOCK_FILE),
                    "variants": {
                        label: str(dirs[case.name][label] / BLOCK_FILE) for label in labels
                    },
                    "examples": case.examples,
                    "unseen": case.unseen,
                }
            ]
        }
        with tempfile.TemporaryDirectory() as workdir:
            job_file = os.path.join(workdir, "job.json")
            with open(job_file, "w") as handle:
                json.dump(job, handle)
            command = [mxnet_python, str(HERE / "judge.py"), job_file, workdir]
            try:
                done = subprocess.run(
                    command, capture_output=True, text=True, timeout=JUDGE_TIMEOUT
                )
            except subprocess.TimeoutExpired:
                return {"name": case.name, "crash": f"judge timed out after {JUDGE_TIMEOUT} s"}
            lines = _events(done.stdout)
            if not lines:
                return {"name": case.name, "crash": (done.stderr.strip().splitlines() or ["?"])[-1]}
            result = lines[-1]
            if "crash" in result:
                return result
            trained = train_verdicts(command, len(case.examples) + len(case.unseen), labels)
        result["original_train"] = trained["original_train"]
        for label in labels:
            result["variants"][label].update(trained["variants"][label])
        return result

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        return {r["name"]: r for r in pool.map(one, cases)}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mxnet-python", default=default_mxnet_python())
    parser.add_argument("-k", dest="pattern", help="only cases whose name contains this")
    parser.add_argument(
        "--cases",
        default=str(HERE / "cases"),
        help="the folder of case files (benchmarks/e2e/holdout: blocks measured once, never tuned on)",
    )
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--modes", default=",".join(MODES), help=f"from {','.join(MODES)}")
    parser.add_argument(
        "--validate",
        action="store_true",
        help="only judge the originals (and the cases' hand-written reference fixes)",
    )
    parser.add_argument("--work", help="keep the rewritten projects here (default: temporary)")
    parser.add_argument("--json", help="write every verdict to this file")
    parser.add_argument(
        "--hybridlint-src",
        help="run the hybridlint of this checkout (e.g. a git worktree of an older commit)",
    )
    args = parser.parse_args(argv)
    if not args.mxnet_python:
        parser.error("real MXNet 1.9.1 is the judge: pass --mxnet-python (a venv with mxnet)")
    modes = [] if args.validate else [m for m in args.modes.split(",") if m]
    unknown = sorted(set(modes) - set(MODES))
    if unknown:
        parser.error(f"unknown mode(s) {unknown}")
    cases = [c for c in load_cases(Path(args.cases)) if not args.pattern or args.pattern in c.name]
    roots = fetch(packages=E2E_PACKAGES)
    work = Path(args.work or tempfile.mkdtemp(prefix="hybridlint-e2e-"))
    if args.hybridlint_src:
        args.hybridlint_src = str(checkout_overlay(Path(args.hybridlint_src), work / "checkout"))
    dirs: Dict[str, Dict[str, Path]] = {}
    for case in cases:
        for package in [case.package, *extra_packages(case)]:
            if package not in roots:
                parser.error(f"{case.name}: unknown package {package}")
        dirs[case.name] = {}
        for label in ["original"] + modes:
            target = work / label / case.slug
            shutil.rmtree(target, ignore_errors=True)
            materialize(case, roots[case.package], target, roots)
            if label in ("verify-bare", "fix-bare"):  # the same project, its examples left out
                (target / "pyproject.toml").write_text("[tool.hybridlint]\n")
            dirs[case.name][label] = target
        if case.reference:  # judged with --validate too: curators check their hand fixes
            # the hand-written exact fix: judged like a mode, no tool runs on it
            target = work / "reference" / case.slug
            shutil.rmtree(target, ignore_errors=True)
            block = materialize(case, roots[case.package], target, roots)
            try:
                block.write_text(apply_reference(case, block.read_text()))
            except CaseError as exc:
                parser.error(str(exc))
            dirs[case.name]["reference"] = target

    runs: Dict[tuple, ToolRun] = {}
    tasks = [(c, m) for c in cases for m in modes]
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for (case, mode), run in zip(
            tasks,
            pool.map(
                lambda t: run_tool(
                    t[1], dirs[t[0].name][t[1]], args.mxnet_python, args.hybridlint_src
                ),
                tasks,
            ),
        ):
            runs[case.name, mode] = run
    results = judge(cases, dirs, modes, args.mxnet_python, args.jobs)
    return report(cases, modes, runs, results, dirs, args.json)


def report(cases, modes, runs, results, dirs, json_path) -> int:
    table: Dict[str, Dict[str, Outcome]] = {}
    mislabelled = []
    for case in cases:
        result = results[case.name]
        if "crash" in result:
            table[case.name] = {m: Outcome("invalid", result["crash"]) for m in modes}
            print(f"{case.name}: judge crashed: {result['crash']}")
            continue
        original = result["original_hybrid"]
        really = "works" if all(v == "equal" for v in original) else "fails"
        if any(v.startswith("reference:") for v in original):
            really = "invalid"
        if really != case.kind:
            mislabelled.append(f"{case.name}: labelled {case.kind}, original {original}")
        row = {}
        for mode in modes:
            fixed = (dirs[case.name][mode] / BLOCK_FILE).read_text()
            row[mode] = classify(
                case,
                runs[case.name, mode],
                result["variants"][mode],
                fixed,
                result.get("original_train", []),
                result.get("original_exported", []),
                unchanged=fixed == (dirs[case.name]["original"] / BLOCK_FILE).read_text(),
            )
        table[case.name] = row
        if "reference" in result["variants"]:
            ref = result["variants"]["reference"]
            bad = [
                v
                for v in ref["eager"] + ref["hybrid"]
                if v != "equal" and not v.startswith("random:")
            ]
            row["reference"] = Outcome("fixed" if not bad else "invalid", bad[0] if bad else "")
        cells = "  ".join(f"{m}={row[m].verdict}" for m in row)
        print(f"{case.kind:5}  {case.name:55}  {cells or 'original hybridized: ' + original[0]}")
        for mode in row:
            note = hybrid_training_note(result["variants"][mode]) if mode in modes else ""
            if row[mode].verdict not in ("fixed", "ok") or row[mode].detail:
                print(f"         {mode}: {row[mode].detail}")
            elif note:
                print(f"         {mode}: hybridized training step {note} (eager step equal)")
    print()
    for line in mislabelled:
        print("MISLABELLED", line)
    fails = [c for c in cases if c.kind == "fails"]
    works = [c for c in cases if c.kind == "works"]
    print(
        f"{len(fails)} failing blocks, {len(works)} working blocks, from "
        f"{len({c.package for c in cases})} packages"
    )
    for mode in modes:
        tally: Dict[str, int] = {}
        for case in fails:
            verdict = table[case.name][mode].verdict
            tally[verdict] = tally.get(verdict, 0) + 1
        broken_works = sum(table[c.name][mode].verdict == "broken" for c in works)
        fixed = tally.get("fixed", 0)
        share = f"{100.0 * fixed / len(fails):.1f}%" if fails else "-"
        print(
            f"{mode:13} fixed&equal {fixed}/{len(fails)} ({share})  reported "
            f"{tally.get('reported', 0)}  misplaced {tally.get('misplaced', 0)}  broken "
            f"{tally.get('broken', 0)}  silent "
            f"{tally.get('silent', 0)}  cannot-run {tally.get('cannot-run', 0)}  over-claimed "
            f"{tally.get('over-claimed', 0)}  random {tally.get('random', 0)}  invalid "
            f"{tally.get('invalid', 0)} | working blocks broken {broken_works}/{len(works)}"
        )
    for mode in modes:
        training_and_export_summary(mode, cases, table, results)
    exact_rewrite_summary(fails, modes, table)
    # each verify mode against what it promises never to fall below: with examples the
    # unsafe fixes' outcome; without them plain --fix's on the same example-less project
    # (`fix-bare`; `fix`, which reads the examples, only when fix-bare was not run)
    bare_floor = "fix-bare" if "fix-bare" in modes else "fix"
    for mode, floor in (
        ("verify-bare", bare_floor),
        ("verify", "unsafe"),
        ("verify-mxnet", "unsafe"),
    ):
        if mode in modes and floor in modes:
            worse = [
                c.name
                for c in cases
                if RANK.get(table[c.name][mode].verdict, 0)
                < RANK.get(table[c.name][floor].verdict, 0)
            ]
            print(
                f"{mode} worse than {floor}: {len(worse)}"
                + (f" ({', '.join(worse)})" if worse else "")
            )
    if json_path:
        with open(json_path, "w") as handle:
            json.dump(
                {
                    name: {m: {"verdict": o.verdict, "detail": o.detail} for m, o in row.items()}
                    for name, row in table.items()
                },
                handle,
                indent=1,
            )
    return 0


def training_and_export_summary(mode: str, cases: List[Case], table, results) -> None:
    """For the blocks a mode leaves fixed or ok: how their training steps and exports were
    judged, and which train differently hybridized than eagerly (MXNet's, not held)."""
    judged = [
        results[c.name]["variants"][mode]
        for c in cases
        if "crash" not in results[c.name] and table[c.name][mode].verdict in ("fixed", "ok")
    ]
    steps = [v for row in judged for key in ("train", "train_hybrid") for v in row.get(key, [])]
    exports = [v for row in judged for v in row.get("exported", [])]
    mxnets = [
        c.name
        for c in cases
        if table[c.name][mode].verdict in ("fixed", "ok")
        and "crash" not in results[c.name]
        and hybrid_training_note(results[c.name]["variants"][mode])
    ]
    print(
        f"{mode:13} training steps of fixed or ok blocks (eager and hybridized): {len(steps)}; "
        f"{sum(v == 'equal' for v in steps)} equal, "
        f"{sum(v.startswith('random:') for v in steps)} random (not judged), "
        f"{sum(v.startswith('reference:') for v in steps)} the original cannot take "
        f"(not judged), {sum(_judged(v) for v in steps)} differ"
    )
    print(
        f"{mode:13} exported and read back (fixed or ok blocks, every input): "
        f"{len(exports)}; {sum(v == 'equal' for v in exports)} equal"
    )
    print(
        f"{mode:13} training: {len(mxnets)} fixed or ok blocks train differently "
        f"hybridized than eagerly, the rewrite's eager step equal to the original's"
        + (f" ({', '.join(mxnets)})" if mxnets else "")
    )


def exact_rewrite_summary(fails: List[Case], modes: List[str], table) -> None:
    """Issue 20's first measure: of the failing blocks whose hazards all have an exact rewrite
    (proven: its reference fix or some mode's rewrite is judged fixed), how many each mode fixes;
    and the blocks labelled ``no_exact_rewrite`` that some mode fixed anyway (a wrong label)."""
    exact = [c for c in fails if any(o.verdict == "fixed" for o in table[c.name].values())]
    labelled_none = [c for c in fails if c.no_exact_rewrite]
    unknown = [c for c in fails if c not in exact and not c.no_exact_rewrite]
    bad_refs = [
        c.name for c in fails if table[c.name].get("reference", Outcome("")).verdict == "invalid"
    ]
    print(
        f"exact rewrite proven for {len(exact)}/{len(fails)} failing blocks; labelled without one "
        f"{len(labelled_none)}; undecided {len(unknown)}"
        + (f" ({', '.join(c.name for c in unknown)})" if unknown else "")
    )
    for name in bad_refs:
        print(f"REFERENCE NOT FIXED {name}: {table[name]['reference'].detail}")
    for case in labelled_none:
        if case in exact:
            print(f"LABEL WRONG {case.name}: labelled no_exact_rewrite, but a rewrite fixed it")
    for mode in modes:
        fixed = sum(table[c.name][mode].verdict == "fixed" for c in exact)
        share = f"{100.0 * fixed / len(exact):.1f}%" if exact else "-"
        print(f"{mode:13} fixed {fixed}/{len(exact)} of the blocks with an exact rewrite ({share})")


if __name__ == "__main__":
    sys.exit(main())
