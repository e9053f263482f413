"""What `hybridlint --fix --verify` does on real code with no examples configured.

Most users run `--verify` without writing examples: every fix is then checked on its own
expression, on generated shapes (hybridlint/checker/expression.py). This runs it on a copy of
each pinned realworld package (packages.py) and counts, from the notes `--verify` prints,
the fixes it proved and applied, the safe ones it applied unverified (the check could not run
them, said why: applied as `--fix` applies them), the ones it did not apply (unsafe ones the
check could not run; none without --unsafe-fixes) and the ones it rejected (it judged them
wrong), with the reasons grouped.

The labels (labels/*.tsv) say, for the safe-fix sites, whether the fix keeps what working
code computes (`ok`) or `breaks` it: a proven or unverified-applied fix at a `breaks` site, or
a rejected fix at an `ok` site, is listed; all must stay 0.

    python benchmarks/realworld/verify_without_examples.py [--package NAME ...]
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from packages import DEFAULT_CACHE, PACKAGES, fetch  # noqa: E402
from run import load_labels  # noqa: E402

NOTE = re.compile(
    r"^\s+(?P<path>\S+?\.py):(?P<line>\d+):(?P<col>\d+): (?P<code>HL\d{3}) fix "
    r"(?P<what>proven at expression level only|proven|applied unverified|not applied|rejected)"
    r"(?P<rest>.*)$"
)
VERDICT = {
    "proven at expression level only": "proven",
    "proven": "proven",
    "applied unverified": "unverified",
    "not applied": "not applied",
    "rejected": "rejected",
}


def notes(root: str) -> List[Tuple[str, int, str, str, str]]:
    """(path, line, code, verdict, reason) of every fix note `--fix --verify` printed."""
    run = subprocess.run(
        [sys.executable, "-m", "hybridlint", "--fix", "--verify", "--no-cache", "--exit-zero", "."],
        cwd=root,
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        raise SystemExit(f"hybridlint failed in {root}:\n{run.stderr[-2000:]}")
    out = []
    for text in run.stderr.splitlines():
        match = NOTE.match(text)
        if match:
            reason = match["rest"].split(": ", 1)[-1] if ": " in match["rest"] else ""
            out.append(
                (match["path"], int(match["line"]), match["code"], VERDICT[match["what"]], reason)
            )
    return out


def _site(key: str) -> str:
    """`path:line:code` of a label key `path:line:col:end_line:end_col:code`."""
    parts = key.split(":")
    return f"{parts[0]}:{parts[1]}:{parts[-1]}"


def _reason_kind(reason: str) -> str:
    """A reason without its expression and numbers, for grouping."""
    reason = re.sub(r"'[^']*'", "E", reason.replace("cannot verify without example inputs: ", ""))
    return re.sub(r"\d+", "N", reason)[:80]


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", default=DEFAULT_CACHE, help="where downloads are kept")
    parser.add_argument("--package", action="append", help="only these packages (repeatable)")
    args = parser.parse_args(argv)
    roots = fetch(args.cache)
    chosen = [p.name for p in PACKAGES if not args.package or p.name in args.package]
    totals: collections.Counter = collections.Counter()
    reasons: Dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    wrong: List[str] = []
    print(f"{'package':<40} {'proven':>7} {'unverified':>11} {'not applied':>12} {'rejected':>9}")
    for name in chosen:
        labels = load_labels(name)
        fixes = {_site(key): label.fix for key, label in labels.items()}
        with tempfile.TemporaryDirectory() as scratch:
            copy = os.path.join(scratch, name)
            shutil.copytree(roots[name], copy)
            found = notes(copy)
        counts = collections.Counter(verdict for *_, verdict, _ in found)
        totals.update(counts)
        for path, line, code, verdict, reason in found:
            if verdict != "proven":
                reasons[verdict][_reason_kind(reason)] += 1
            fix = fixes.get(f"{os.path.normpath(path)}:{line}:{code}")
            if (verdict, fix) in (
                ("proven", "breaks"),
                ("unverified", "breaks"),
                ("rejected", "ok"),
            ):
                wrong.append(f"{name}/{path}:{line} {code}: {verdict}, labelled {fix}")
        print(
            f"{name:<40} {counts['proven']:>7} {counts['unverified']:>11} "
            f"{counts['not applied']:>12} {counts['rejected']:>9}"
        )
    print(
        f"{'total':<40} {totals['proven']:>7} {totals['unverified']:>11} "
        f"{totals['not applied']:>12} {totals['rejected']:>9}"
    )
    for verdict in ("unverified", "not applied", "rejected"):
        if reasons[verdict]:
            print(f"\n{verdict}, by reason:")
            for reason, count in reasons[verdict].most_common():
                print(f"  {count:>4}  {reason}")
    print(
        "\nproven or applied unverified at a site labelled breaks, or rejected at one labelled "
        f"ok: {len(wrong)}"
    )
    for line in wrong:
        print(f"  {line}")
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
