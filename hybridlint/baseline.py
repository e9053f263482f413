"""Baselines: adopt the gate on a big repo without fixing its history first.

``--write-baseline FILE`` records today's findings; ``--baseline FILE`` then tolerates exactly
those and fails on any new one. A finding's fingerprint is its code, its path (relative to the
baseline file's directory, so the baseline works from any working directory), its source line
with whitespace normalised, and its occurrence index among findings sharing those three. Line
numbers are not part of it: adding code above a tolerated finding does not resurrect it, while a
second identical hazard in the same file is new.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, List, Set, Tuple

from .files import atomic_write_bytes
from .ftypes import Finding

FORMAT = 1


class BaselineError(Exception):
    """The baseline file is missing or malformed (exit 2)."""


def _normalise(line: str) -> str:
    return " ".join(line.split())


def fingerprints(issues: Iterable[Finding], base_dir: str) -> List[Tuple[str, Finding]]:
    """(fingerprint, issue) for each issue, in the order given (which must be stable)."""
    seen: Counter = Counter()
    result = []
    for issue in sorted(issues, key=lambda i: (i.path, i.line, i.col, i.code)):
        rel = os.path.relpath(os.path.abspath(issue.path), base_dir).replace(os.sep, "/")
        identity = (issue.code, rel, _normalise(issue.source_line))
        occurrence = seen[identity]
        seen[identity] += 1
        text = "\0".join(identity + (str(occurrence),))
        result.append((hashlib.sha256(text.encode("utf-8")).hexdigest()[:20], issue))
    return result


def write_baseline(path: str, issues: Iterable[Finding]) -> int:
    """Record ``issues`` in ``path``; returns how many."""
    base_dir = os.path.dirname(os.path.abspath(path))
    entries = [
        {
            "fingerprint": fp,
            "code": i.code,
            "path": os.path.relpath(os.path.abspath(i.path), base_dir).replace(os.sep, "/"),
            "line": i.line,
            "text": i.source_line.strip(),
        }
        for fp, i in fingerprints(issues, base_dir)
    ]
    document = {"format": FORMAT, "tool": "hybridlint", "findings": entries}
    data = (json.dumps(document, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    try:
        atomic_write_bytes(os.path.abspath(path), data)
    except OSError as exc:
        raise BaselineError(f"{path}: cannot write baseline: {exc.strerror or exc}") from exc
    return len(entries)


def load_baseline(path: str) -> Set[str]:
    """The fingerprints recorded in a baseline file."""
    try:
        with open(path, "rb") as handle:
            document = json.loads(handle.read().decode("utf-8"))
    except OSError as exc:
        raise BaselineError(f"{path}: cannot read baseline: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise BaselineError(f"{path}: not a hybridlint baseline (invalid JSON: {exc})") from exc
    if (
        not isinstance(document, dict)
        or document.get("format") != FORMAT
        or not isinstance(document.get("findings"), list)
    ):
        raise BaselineError(f"{path}: not a hybridlint baseline (format {FORMAT} expected)")
    try:
        return {entry["fingerprint"] for entry in document["findings"]}
    except (TypeError, KeyError) as exc:
        raise BaselineError(f"{path}: malformed baseline entry") from exc


@dataclass
class BaselineFilter:
    """Splits findings into new ones and ones the baseline tolerates."""

    path: str
    known: Set[str]

    @classmethod
    def load(cls, path: str) -> "BaselineFilter":
        return cls(path, load_baseline(path))

    def new_issues(self, issues: Iterable[Finding]) -> Tuple[List[Finding], int]:
        """The issues not in the baseline, and how many were tolerated."""
        issues = list(issues)
        base_dir = os.path.dirname(os.path.abspath(self.path))
        tolerated = {id(i) for fp, i in fingerprints(issues, base_dir) if fp in self.known}
        kept = [i for i in issues if id(i) not in tolerated]
        return kept, len(tolerated)
