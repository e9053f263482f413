"""JSON output: one object, schema documented in README.md ("Output formats").

Each finding's ``fix_details`` is its fix alone as ruff writes a fix (``applicability``,
``message``, ``edits`` of ``location``/``end_location``/``content``), computed by the runner
(``RunOptions.fix_edits``, hybridlint/fixedits.py); null when it has no fix.
"""

from __future__ import annotations

import json
from typing import Any, Dict, TextIO

from . import ReportContext
from .. import __version__
from ..fixedits import finding_key
from ..ftypes import RunResult

SCHEMA_VERSION = 1


def to_json(result: RunResult, ctx: ReportContext) -> Dict[str, Any]:
    """The JSON document as Python data (also used by tests)."""
    issues = result.issues
    return {
        "schema_version": SCHEMA_VERSION,
        "hybridlint_version": __version__,
        "summary": {
            "files_checked": result.files_checked,
            "findings": len(issues),
            "fixable": sum(1 for i in issues if ctx.fixable(i)),
            "fixed": result.fixed,
            "baselined": ctx.baselined,
            "errors": sum(1 for o in result.outcomes if o.error),
        },
        "findings": [
            {
                **issue.to_dict(),
                "path": issue.path.replace("\\", "/"),
                "fixable": ctx.fixable(issue),
                "fix_details": outcome.fix_edits.get(finding_key(issue)),
            }
            for outcome in result.outcomes
            for issue in outcome.issues
        ],
        "errors": [{"path": o.path, "message": o.error} for o in result.outcomes if o.error],
    }


def report(result: RunResult, out: TextIO, ctx: ReportContext) -> None:
    json.dump(to_json(result, ctx), out, indent=2)
    out.write("\n")
