"""What `hybridlint rule CODE` prints: a rule's five beats (ruff's: what it does, why it
breaks, an example, the fix, its safety), so the page fits a screen or two. Sections a rule's
explanation adds after them (a rewrite catalogue a helper module's docstring supplies, say)
are reference: printed with `--details`, named at the end otherwise. Internals (how the
analysis finds things, which module does what) belong in docs/, not in the explanation."""

from __future__ import annotations

import re
from typing import List, Tuple

BEATS = ("What it does", "Why it breaks under hybridize", "Example", "Fix", "Fix safety")
MAX_LINES = 100  # two screens: tests/test_rule_docs.py holds every rule to it


def split(explanation: str) -> Tuple[str, List[str]]:
    """(the explanation up to and including its `## Fix safety` section, the titles of the
    sections after it). An explanation without that section is all beats."""
    parts = re.split(r"^(?=## )", explanation.strip(), flags=re.M)
    beats: List[str] = []
    rest: List[str] = []
    for part in parts:
        title = part[3:].split("\n", 1)[0].strip() if part.startswith("## ") else ""
        if rest or (title and any(p.startswith("## Fix safety") for p in beats)):
            rest.append(title)
        else:
            beats.append(part)
    return "".join(beats).rstrip() + "\n", rest


def page(code: str, name: str, message: str, explanation: str, details: bool = False) -> str:
    """The text `hybridlint rule CODE` prints (markdown)."""
    body, more = split(explanation)
    if details:
        body = explanation.strip() + "\n"
    elif more:
        body += f"\nMore in `hybridlint rule {code} --details`: " + "; ".join(more) + ".\n"
    return f"# {code} ({name})\n\n{message}\n\n{body}"
