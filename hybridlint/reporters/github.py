"""GitHub Actions workflow commands: one ``::error`` annotation per finding.

GitHub shows these on the pull request's diff. Values are escaped as the runner expects:
``%``, CR and LF everywhere, and ``:`` and ``,`` in properties as well.
"""

from __future__ import annotations

from typing import TextIO

from . import ReportContext
from ..ftypes import RunResult


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def report(result: RunResult, out: TextIO, ctx: ReportContext) -> None:
    for issue in result.issues:
        path = issue.path.replace("\\", "/")
        props = (
            f"file={_prop(path)},line={issue.line},col={issue.col},"
            f"endLine={issue.end_line},endColumn={issue.end_col},"
            f"title={_prop(f'{issue.code} {issue.name}')}"
        )
        out.write(f"::error {props}::{_data(f'{issue.code} {issue.message}')}\n")
    for outcome in result.outcomes:
        if outcome.error:
            out.write(f"::error file={_prop(outcome.path)}::{_data(outcome.error)}\n")
