"""Output formats. Each reporter writes a whole :class:`~hybridlint.ftypes.RunResult` to a stream.

Formats: ``text`` (people; rich colours on a TTY only), ``json`` (scripts; schema in
README.md, "Output formats"), ``github`` (workflow-command annotations), ``sarif`` (2.1.0, code scanning) and
``junit`` (CI systems that read test reports). Reporters are imported lazily so that a run
pays only for the format it prints.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, TextIO

from ..ftypes import Finding, RunResult

_MODULES = {
    "text": "text",
    "json": "json_format",
    "github": "github",
    "sarif": "sarif",
    "junit": "junit",
}  # format name -> module of this package
FORMATS = tuple(_MODULES)
# formats whose findings carry their fix's edits (runner.RunOptions.fix_edits: a fix_source
# run per fixable finding, paid only when one of these is printed)
EDIT_FORMATS = ("json", "sarif")

# The rules' documentation on the web: the README's rule table (one row per code, "Rules"),
# in the repository SARIF output names as the tool's home. The full text of one rule is
# `hybridlint rule CODE` (which the language server's hover names too).
RULES_URL = "https://github.com/hybridlint/hybridlint/blob/main/README.md#rules"


def rule_doc_url(code: str) -> str:
    """The documentation link of a rule (the same page for every code: the README's rule
    table, where each code is a row; `hybridlint rule CODE` has the full text). The language
    server's diagnostics link to it, and SARIF's ``helpUri`` of each rule."""
    return RULES_URL


@dataclass(frozen=True)
class ReportContext:
    """What a reporter needs to know about the run besides its result."""

    unsafe_fixes: bool = False  # unsafe fixes count as fixable
    fix_mode: bool = False  # --fix ran: say what was fixed
    statistics: bool = False  # counts per rule instead of every finding (text)
    quiet: bool = False  # findings only: no source context, no summary (text)
    color: bool = False  # rich styling (text, only when writing to a terminal)
    baselined: int = 0  # findings hidden because the baseline tolerates them
    root: str = "."  # paths in SARIF are made relative to this
    show_fixes: bool = False  # --show-fixes: list what --fix fixed, per file and code (text)
    verify: bool = False  # --verify ran: fixable means "the same --fix --verify would try it"

    def fixable(self, issue: Finding) -> bool:
        """Whether the next run with these options would fix ``issue``: a fix ``--verify``
        left out is not (``checker_bridge.UnprovenFinding``), so it gets no ``[*]``."""
        return issue.fixable(self.unsafe_fixes)


Reporter = Callable[[RunResult, TextIO, ReportContext], None]


def get_reporter(name: str) -> Reporter:
    """The ``report`` function of an output format."""
    if name not in _MODULES:
        raise ValueError(f"unknown format {name!r} (choose from {', '.join(FORMATS)})")
    module = importlib.import_module(f"{__name__}.{_MODULES[name]}")
    return module.report


def rule_catalog() -> dict:
    """code -> (name, message, explanation) for every rule, plus the runner's codes."""
    from ..ftypes import RUNNER_CODES
    from ..rules import ALL_RULES

    from .. import suppression

    from ..runner_docs import EXPLANATIONS

    catalog = {
        code: (name, text, EXPLANATIONS.get(code, text))
        for code, (name, text) in RUNNER_CODES.items()
    }
    catalog[suppression.CODE] = (suppression.NAME, suppression.MESSAGE, suppression.EXPLANATION)
    for rule in ALL_RULES:
        catalog[rule.code] = (rule.name, rule.message, rule.explanation)
    return dict(sorted(catalog.items()))
