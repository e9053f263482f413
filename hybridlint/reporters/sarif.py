"""SARIF 2.1.0 output, for GitHub code scanning and other SARIF viewers.

Paths are URIs relative to the project root (``uriBaseId`` ``%SRCROOT%``) so that the log is
portable between checkouts. Every rule is described in ``tool.driver.rules`` and each result
points at its rule by ``ruleId`` and ``ruleIndex``; each rule has a ``helpUri`` (the link the
language server's diagnostics give). A finding with a fix carries it in ``fixes`` (SARIF's
``artifactChanges``/``replacements``), the same edits as ``--format json``'s ``fix_details``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, TextIO
from urllib.parse import quote

from . import ReportContext, rule_catalog, rule_doc_url
from .. import __version__
from ..fixedits import finding_key
from ..ftypes import RunResult

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/hybridlint/hybridlint"


def _quote(path: str) -> str:
    """Percent-encode a path's bytes: file names that are not valid UTF-8 (kept by Python as
    surrogate escapes) would make `quote` of the str raise UnicodeEncodeError."""
    return quote(os.fsencode(path))


def _uri(path: str, root: str) -> str:
    rel = os.path.relpath(os.path.abspath(path), os.path.abspath(root))
    return _quote(rel.replace(os.sep, "/"))


def _fix(details: Dict[str, Any], uri: str) -> Dict[str, Any]:
    """A finding's fix (``fixedits.fix_details``) as a SARIF ``fix``: one artifact change of
    its file, a replacement per edit (regions in the log's ``unicodeCodePoints`` columns,
    ``endColumn`` exclusive; an insertion is an empty region)."""

    def replacement(edit: Dict[str, Any]) -> Dict[str, Any]:
        start, end = edit["location"], edit["end_location"]
        region = {
            "startLine": start["row"],
            "startColumn": start["column"],
            "endLine": end["row"],
            "endColumn": end["column"],
        }
        return {"deletedRegion": region, "insertedContent": {"text": edit["content"]}}

    return {
        "description": {"text": details["message"]},
        "artifactChanges": [
            {
                "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                "replacements": [replacement(edit) for edit in details["edits"]],
            }
        ],
    }


def to_sarif(result: RunResult, ctx: ReportContext) -> Dict[str, Any]:
    """The SARIF log as Python data (also used by tests)."""
    catalog = rule_catalog()
    index = {code: i for i, code in enumerate(catalog)}
    rules = [
        {
            "id": code,
            "name": name,
            "shortDescription": {"text": message},
            "fullDescription": {"text": explanation.strip() or message},
            "help": {"text": explanation.strip() or message, "markdown": explanation or message},
            "defaultConfiguration": {"level": "error"},
            "helpUri": rule_doc_url(code),
        }
        for code, (name, message, explanation) in catalog.items()
    ]
    results = []
    for outcome, issue in ((o, i) for o in result.outcomes for i in o.issues):
        region = {"startLine": issue.line, "startColumn": issue.col}
        if issue.end_line >= issue.line and issue.end_col >= 1:
            region.update({"endLine": issue.end_line, "endColumn": max(issue.end_col, 1)})
        if issue.end_line == issue.line and issue.end_col < issue.col:
            region["endColumn"] = issue.col
        entry: Dict[str, Any] = {
            "ruleId": issue.code,
            "level": "error",
            "message": {"text": issue.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {
                            "uri": _uri(issue.path, ctx.root),
                            "uriBaseId": "%SRCROOT%",
                        },
                        "region": region,
                    }
                }
            ],
            "properties": {"fixable": ctx.fixable(issue), "fix": issue.fix},
        }
        if issue.code in index:
            entry["ruleIndex"] = index[issue.code]
        fix = outcome.fix_edits.get(finding_key(issue))
        if fix is not None:
            entry["fixes"] = [_fix(fix, _uri(issue.path, ctx.root))]
        results.append(entry)
    notifications = [
        {
            "level": "error",
            "message": {"text": outcome.error},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {
                            "uri": _uri(outcome.path, ctx.root),
                            "uriBaseId": "%SRCROOT%",
                        }
                    }
                }
            ],
        }
        for outcome in result.outcomes
        if outcome.error
    ]
    invocation = {
        "executionSuccessful": not any(o.internal for o in result.outcomes),
        "toolExecutionNotifications": notifications,
    }
    root_uri = "file://" + _quote(os.path.abspath(ctx.root).replace(os.sep, "/").rstrip("/") + "/")
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "hybridlint",
                        "version": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": rules,
                    }
                },
                "invocations": [invocation],
                "originalUriBaseIds": {"%SRCROOT%": {"uri": root_uri}},
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }


def report(result: RunResult, out: TextIO, ctx: ReportContext) -> None:
    json.dump(to_sarif(result, ctx), out, indent=2)
    out.write("\n")
