"""JUnit XML, for CI systems that show test reports (GitLab, Jenkins, Azure...).

One ``testsuite`` per file with findings, one failing ``testcase`` per finding (named
``CODE at line:col``); a clean run is one passing test case, so the report is never empty.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import defaultdict
from typing import Dict, List, TextIO

from . import ReportContext
from ..ftypes import Finding, RunResult


def to_junit(result: RunResult, ctx: ReportContext) -> ET.Element:
    """The XML tree (also used by tests)."""
    by_file: Dict[str, List[Finding]] = defaultdict(list)
    for issue in result.issues:
        by_file[issue.path].append(issue)
    errors = {o.path: o.error for o in result.outcomes if o.error}
    root = ET.Element("testsuites", name="hybridlint")
    total = failures = 0
    for path in sorted(set(by_file) | set(errors)):
        issues = by_file.get(path, [])
        count = len(issues) + (1 if path in errors else 0)
        suite = ET.SubElement(
            root,
            "testsuite",
            name=path,
            tests=str(count),
            failures=str(count),
            errors="0",
            skipped="0",
        )
        for issue in issues:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=path,
                name=f"{issue.code} at {issue.line}:{issue.col}",
                file=path,
                line=str(issue.line),
            )
            failure = ET.SubElement(case, "failure", type=issue.code, message=issue.message)
            failure.text = f"{issue.path}:{issue.line}:{issue.col}: {issue.code} {issue.message}"
        if path in errors:
            case = ET.SubElement(suite, "testcase", classname=path, name="write", file=path)
            ET.SubElement(case, "failure", type="error", message=errors[path])
        total += count
        failures += count
    if total == 0:
        suite = ET.SubElement(
            root, "testsuite", name="hybridlint", tests="1", failures="0", errors="0", skipped="0"
        )
        ET.SubElement(
            suite,
            "testcase",
            classname="hybridlint",
            name=f"no findings in {result.files_checked} files",
        )
        total = 1
    root.set("tests", str(total))
    root.set("failures", str(failures))
    return root


def report(result: RunResult, out: TextIO, ctx: ReportContext) -> None:
    tree = to_junit(result, ctx)
    ET.indent(tree)
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write(ET.tostring(tree, encoding="unicode"))
    out.write("\n")
