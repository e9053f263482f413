"""hybridlint on real model code: precision against labelled verdicts, safe-fix sites, speed.

Downloads the pinned public packages of ``packages.py`` (once, into ``--cache``), lints each
with this checkout's hybridlint, and compares every finding with the verdicts kept in
``labels/<package>.tsv``. Prints precision per rule and per package, every finding nobody has
labelled yet, every safe-fix site with its verdict, and the cold/warm lint times.

    python benchmarks/realworld/run.py                 # the report
    python benchmarks/realworld/run.py --unlabelled U.tsv   # also write the unlabelled findings

The label files are facts about pinned third-party lines, one finding a line, tab-separated:

    key                                 verdict  fix  how    reason
    gluoncv/loss.py:299:32:299:42:HL001  true     -    mxnet  label.astype(pred.dtype): ...

* key: ``path:line:col:end_line:end_col:code``, the path relative to the package's extracted
  root (the span tells apart findings of one rule on one line, e.g. ``a * b + c``);
* verdict: ``true`` (the code breaks or computes something else under hybridize, as it is really
  called), ``false`` (it does not), ``context`` (true only for some callers or configurations;
  counted as not true in the precision). Configurations, settled once for every package: a line
  that fails hybridized only under a non-default *ordinary* constructor option (``use_bias=True``,
  ``scale=False``, ``PoissonNLLLoss(compute_full=True)``) is ``true``: the option is the block's
  public API and whoever sets it and hybridizes hits the failure. It is ``context`` when it runs
  only in a mode that opts out of static shapes (gluoncv2's ``fixed_size=False`` / ``in_size=None``
  fallbacks to ``x.shape``, meant for variable-size eager inference). A recurrent cell hybridized
  on its own and stepped or unrolled is its block hybridized, not a use outside it: state a cell
  keeps on ``self`` is judged that way in every package, whether or not the package hybridizes
  the cell alone (settled in the issue-21 closing note). Findings are judged line by line: a line that fails or
  misbehaves once its block is hybridized is true even when another line of the block fails
  first or the package never hybridizes that block (each hazard is judged on its own line); it
  is false when the block cannot be hybridized at all (its ``hybridize`` raises, gluon refuses
  its inputs) or the line works the same in both modes;
* fix: for findings with a safe fix, ``ok`` (the fix keeps what working code computes) or
  ``breaks``; ``-`` otherwise;
* how: ``mxnet`` (reproduced by running the real class eagerly and hybridized with MXNet 1.9.1)
  or ``read`` (judged by reading the code and its callers);
* reason: one line.

Misses (recall) are kept beside them in ``labels/<package>.misses.tsv``: real hazards that get no
finding, one a line, tab-separated:

    key                          how    reason
    gluonfr/loss.py:562:HL006    mxnet  F.equal exists only in mx.nd: AttributeError hybridized ...

* key: ``path:line:code``, the code the hazard should be reported under (``*`` when no rule
  covers its class yet: any finding on that line then reports it);
* how: as above (``mxnet`` when reproduced eagerly and hybridized with MXNet 1.9.1);
* reason: one line.

Recall per package is ``found / (found + misses)``, found being the findings labelled ``true``
and misses those of the list no finding reports now (a finding with the miss's path, line and
code). A miss that a finding reports is listed as found, to be labelled and moved to the
labels (its line stays in the misses file, which is the record of what was missed first).

Not part of the test suite: it downloads, and its verdicts are judgements about other people's code.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from packages import DEFAULT_CACHE, PACKAGES, fetch  # noqa: E402

LABELS = os.path.join(HERE, "labels")
VERDICTS = ("true", "false", "context")
FIX_VERDICTS = ("ok", "breaks", "-")
HOW = ("mxnet", "read")
MISS_KEY = re.compile(r"^(?P<path>[^:]+\.py):(?P<line>[1-9][0-9]*):(?P<code>HL[0-9]{3}|\*)$")


@dataclass(frozen=True)
class Label:
    verdict: str
    fix: str
    how: str
    reason: str


def _read_tsv(path: str, valid: Callable[[List[str]], bool], expected: str, twice: str):
    """{key: the other fields} of a strict tab-separated file (comments and blank lines
    skipped); a malformed or repeated line is an error naming the file and line."""
    rows: Dict[str, List[str]] = {}
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if not valid(fields):
                raise SystemExit(f"{path}:{number}: expected {expected} (tab-separated)")
            if fields[0] in rows:
                raise SystemExit(f"{path}:{number}: {fields[0]} is {twice} twice")
            rows[fields[0]] = fields[1:]
    return rows


def load_labels(package: str) -> Dict[str, Label]:
    """Read ``labels/<package>.tsv``; a malformed line is an error naming the file and line."""
    rows = _read_tsv(
        os.path.join(LABELS, package + ".tsv"),
        lambda f: (
            len(f) == 5
            and f[1] in VERDICTS
            and f[2] in FIX_VERDICTS
            and f[3] in HOW
            and bool(f[4].strip())
        ),
        f"key, verdict {VERDICTS}, fix {FIX_VERDICTS}, how {HOW}, reason",
        "labelled",
    )
    return {key: Label(*fields) for key, fields in rows.items()}


@dataclass(frozen=True)
class Miss:
    how: str
    reason: str


def load_misses(package: str) -> Dict[str, Miss]:
    """Read ``labels/<package>.misses.tsv`` (key path:line:code, how, reason); strict like the labels."""
    rows = _read_tsv(
        os.path.join(LABELS, package + ".misses.tsv"),
        lambda f: len(f) == 3 and bool(MISS_KEY.match(f[0])) and f[1] in HOW and bool(f[2].strip()),
        f"key path:line:code (code HLnnn or *), how {HOW}, reason",
        "listed",
    )
    return {key: Miss(*fields) for key, fields in rows.items()}


def match_misses(misses: Dict[str, Miss], findings: List[dict]) -> Tuple[List[str], List[str]]:
    """Split the misses into (still missed, now reported by a finding with the same path, line
    and code, or any code for a ``*`` miss)."""
    reported = {(f["path"], int(f["line"]), f["code"]) for f in findings}
    lines = {(f["path"], int(f["line"])) for f in findings}
    open_, found = [], []
    for key in misses:
        match = MISS_KEY.match(key)
        assert match, key
        path, line, code = match["path"], int(match["line"]), match["code"]
        hit = (path, line) in lines if code == "*" else (path, line, code) in reported
        (found if hit else open_).append(key)
    return open_, found


def recall(true_findings: int, open_misses: int) -> str:
    """found / (found + misses), found being the true findings; '-' when nothing is known."""
    known = true_findings + open_misses
    if not known:
        return "   -  "
    return f"{100.0 * true_findings / known:5.1f}%"


def lint(root: str, extra: Tuple[str, ...] = ()) -> Tuple[dict, float]:
    """Run the CLI on ``root`` (JSON output); return the report and the wall time."""
    command = [
        sys.executable,
        "-m",
        "hybridlint",
        "check",
        "--format",
        "json",
        "--exit-zero",
        *extra,
        ".",
    ]
    start = time.perf_counter()
    result = subprocess.run(command, cwd=root, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(
            f"hybridlint failed on {root} (exit {result.returncode}):\n{result.stderr}"
        )
    return json.loads(result.stdout), elapsed


def key_of(finding: dict) -> str:
    return (
        f"{finding['path']}:{finding['line']}:{finding['col']}:{finding['end_line']}:"
        f"{finding['end_col']}:{finding['code']}"
    )


def fixed_copy_parses(root: str, before: Optional[dict] = None) -> Tuple[List[str], int, int]:
    """Apply the safe fixes to a copy of ``root``; return (the files that no longer compile,
    the fixes that only the fixes revealed, the findings the fixed copy reports that ``before``,
    the report of the original, did not have per file and rule): what only ``--fix``
    shows and ``check`` should have found (issue 21 item 5)."""
    broken = []
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "src")
        shutil.copytree(root, copy)
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "hybridlint",
                "check",
                "--fix",
                "--exit-zero",
                "--no-cache",
                ".",
            ],
            cwd=copy,
            capture_output=True,
            text=True,
        )
        found = re.search(r"and (\d+) more that those fixes revealed", done.stdout)
        revealed = int(found.group(1)) if found else 0
        for folder, _, files in os.walk(copy):
            for name in files:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    with open(path, "rb") as handle:
                        original = os.path.join(root, os.path.relpath(path, copy))
                        with open(original, "rb") as before_file:
                            if handle.read() == before_file.read():
                                continue
                    try:
                        with open(path, "rb") as handle:
                            compile(handle.read(), path, "exec")
                    except SyntaxError:
                        broken.append(os.path.relpath(path, copy))
        new_findings = 0
        if before is not None:
            after, _ = lint(copy, ("--no-cache",))
            had = collections.Counter((f["path"], f["code"]) for f in before["findings"])
            now = collections.Counter((f["path"], f["code"]) for f in after["findings"])
            new_findings = sum((now - had).values())
    return broken, revealed, new_findings


def precision(counts: collections.Counter) -> str:
    judged = counts["true"] + counts["false"] + counts["context"]
    if not judged:
        return "   -  "
    return f"{100.0 * counts['true'] / judged:5.1f}%"


def _measured_codes(extend_select: str):
    """Is a rule code measured in this run? The default selection leaves out the default-off
    rules (hybridlint.config.DEFAULT_OFF) unless --extend-select names them."""
    from hybridlint.config import DEFAULT_OFF

    named = {c.strip().upper() for c in extend_select.split(",") if c.strip()}
    return lambda code: code not in DEFAULT_OFF or code in named


def _miss_code(key: str) -> str:
    """The rule code of a miss key (path:line:CODE, or * for a class no rule covers)."""
    return key.rsplit(":", 1)[-1]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", default=DEFAULT_CACHE, help="where downloads are kept")
    parser.add_argument("--package", action="append", help="only these packages")
    parser.add_argument("--unlabelled", metavar="TSV", help="write the unlabelled findings here")
    parser.add_argument("--no-speed", action="store_true", help="skip the cold/warm timing")
    parser.add_argument("--no-fix", action="store_true", help="skip applying --fix to a copy")
    parser.add_argument(
        "--extend-select",
        default="",
        help="also run these rules (e.g. HL016, off by default); the default run measures the "
        "default selection and leaves default-off rules' labels and misses aside",
    )
    args = parser.parse_args(argv)
    extra = ("--extend-select", args.extend_select) if args.extend_select else ()
    measured = _measured_codes(args.extend_select)

    roots = fetch(args.cache)
    by_rule: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    by_package: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    unlabelled: List[Tuple[str, dict]] = []
    safe_sites: List[Tuple[str, dict, Optional[Label]]] = []
    stale: List[Tuple[str, str]] = []
    open_misses: Dict[str, List[str]] = {}
    found_misses: List[Tuple[str, str]] = []
    reports: Dict[str, dict] = {}
    timings = []
    for package in PACKAGES:
        if args.package and package.name not in args.package:
            continue
        root = roots[package.name]
        labels = load_labels(package.name)
        if not args.no_speed:
            cache_dir = os.path.join(root, ".hybridlint_cache")
            shutil.rmtree(cache_dir, ignore_errors=True)
            _, cold = lint(root)
            _, warm = lint(root)
            shutil.rmtree(cache_dir, ignore_errors=True)
            timings.append((package.name, cold, warm))
        report, _ = lint(root, ("--no-cache", *extra))
        reports[package.name] = report
        if report["errors"]:
            for error in report["errors"]:
                print(f"error: {package.name}: {error}")
        seen = set()
        for finding in report["findings"]:
            key = key_of(finding)
            seen.add(key)
            label = labels.get(key)
            verdict = label.verdict if label else "unlabelled"
            by_rule[finding["code"]][verdict] += 1
            by_package[package.name][verdict] += 1
            if label is None:
                unlabelled.append((package.name, finding))
            if finding.get("fix") == "safe":
                safe_sites.append((package.name, finding, label))
        for key, label in labels.items():
            if key not in seen and label.verdict == "true" and measured(key.rsplit(":", 1)[1]):
                stale.append((package.name, key))
        misses = {k: v for k, v in load_misses(package.name).items() if measured(_miss_code(k))}
        missed, reported = match_misses(misses, report["findings"])
        open_misses[package.name] = missed
        found_misses.extend((package.name, key) for key in reported)
        by_package.setdefault(package.name, collections.Counter())  # a row even with no finding

    def table(
        title: str,
        rows: Dict[str, collections.Counter],
        misses: Optional[Dict[str, List[str]]] = None,
    ) -> None:
        extra = "  misses     recall" if misses is not None else ""
        print(f"\n{title:<18} findings  true false context unlabelled  precision{extra}")
        total: collections.Counter = collections.Counter()
        total_misses = 0
        for name in sorted(rows):
            counts = rows[name]
            total.update(counts)
            tail = ""
            if misses is not None:
                missed = len(misses.get(name, []))
                total_misses += missed
                tail = f"  {missed:6d}  {recall(counts['true'], missed)}"
            print(
                f"{name:<18} {sum(counts.values()):8d} {counts['true']:5d} {counts['false']:5d}"
                f" {counts['context']:7d} {counts['unlabelled']:10d}  {precision(counts)}{tail}"
            )
        tail = (
            f"  {total_misses:6d}  {recall(total['true'], total_misses)}"
            if misses is not None
            else ""
        )
        print(
            f"{'all':<18} {sum(total.values()):8d} {total['true']:5d} {total['false']:5d}"
            f" {total['context']:7d} {total['unlabelled']:10d}  {precision(total)}{tail}"
        )

    table("rule", by_rule)
    table("package", by_package, open_misses)

    print(f"\nsafe-fix sites: {len(safe_sites)}")
    for package_name, finding, label in safe_sites:
        fix = label.fix if label else "unlabelled"
        print(f"  [{fix}] {package_name}/{key_of(finding)}  {finding['source_line'].strip()}")
    breaking = [site for site in safe_sites if site[2] and site[2].fix == "breaks"]
    print(f"safe fixes labelled as breaking working code: {len(breaking)}")

    print(f"\ntrue findings labelled earlier and no longer reported (recall lost): {len(stale)}")
    for package_name, key in stale:
        print(f"  {package_name}/{key}")

    print(f"\nmisses (labels/*.misses.tsv) now reported by a finding: {len(found_misses)}")
    for package_name, key in found_misses:
        print(f"  {package_name}/{key}")

    print(f"\nunlabelled findings: {len(unlabelled)}")
    for package_name, finding in unlabelled[:50]:
        print(f"  {package_name}/{key_of(finding)}  {finding['message'][:90]}")
    if len(unlabelled) > 50:
        print(f"  ... {len(unlabelled) - 50} more (--unlabelled FILE writes them all)")
    if args.unlabelled:
        with open(args.unlabelled, "w", encoding="utf-8") as handle:
            handle.write("package\tkey\tfix\tmessage\tsource_line\n")
            for package_name, finding in unlabelled:
                handle.write(
                    "\t".join(
                        [
                            package_name,
                            key_of(finding),
                            str(finding.get("fix")),
                            finding["message"],
                            finding["source_line"].strip(),
                        ]
                    )
                    + "\n"
                )

    if not args.no_fix:
        print(
            "\nsafe --fix on a copy: files that no longer compile; what only --fix shows "
            "(fixes its fixes revealed, findings of the fixed copy check did not report)"
        )
        for package in PACKAGES:
            if args.package and package.name not in args.package:
                continue
            broken, revealed, new_findings = fixed_copy_parses(
                roots[package.name], reports.get(package.name)
            )
            print(
                f"  {package.name}: {len(broken)} {' '.join(broken)}  "
                f"revealed fixes {revealed}, new findings {new_findings}"
            )

    if timings:
        print("\nlint time (s, --jobs default)   cold    warm  warm/cold")
        for name, cold, warm in timings:
            print(f"  {name:<28} {cold:6.2f}  {warm:6.2f}  {warm / cold:9.3f}")
        cold_total = sum(t[1] for t in timings)
        warm_total = sum(t[2] for t in timings)
        print(f"  {'all':<28} {cold_total:6.2f}  {warm_total:6.2f}  {warm_total / cold_total:9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
