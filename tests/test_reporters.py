"""Reporters: text, json, github, sarif, junit, on hand-built run results."""

import io
import json
import xml.etree.ElementTree as ET

import pytest

from hybridlint.reporters import FORMATS, ReportContext, get_reporter
from hybridlint.reporters.github import report as github_report
from hybridlint.reporters.json_format import to_json
from hybridlint.reporters.text import summary
from hybridlint.runner import FileOutcome, Issue, RunResult


def issue(
    path="pkg/net.py",
    code="HL003",
    line=3,
    col=13,
    end_col=17,
    fix="safe",
    source="        y = x[0] + 1",
    message="indexing a tensor selects an output",
):
    return Issue(path, code, "tensor-indexing", message, line, col, line, end_col, fix, source)


def result(*issues, files=2, error=None):
    outcomes = {}
    for item in issues:
        outcomes.setdefault(item.path, FileOutcome(item.path)).issues.append(item)
    if error:
        outcomes.setdefault(error[0], FileOutcome(error[0])).error = error[1]
    return RunResult(outcomes=list(outcomes.values()), files_checked=files)


def render(fmt, run, **ctx):
    out = io.StringIO()
    get_reporter(fmt)(run, out, ReportContext(**ctx))
    return out.getvalue()


def test_text_finding_line_source_and_caret():
    text = render("text", result(issue()))
    lines = text.splitlines()
    assert lines[0] == "pkg/net.py:3:13: HL003 [*] indexing a tensor selects an output"
    assert lines[1] == "3 |         y = x[0] + 1"
    assert lines[2] == "  |             ^^^^"
    assert lines[-1] == ("Found 1 finding in 1 file. [*] 1 fixable with `hybridlint --fix`.")
    assert "\x1b[" not in text  # no colour codes when not on a terminal


def test_text_caret_keeps_tabs_and_marks_only_available_fixes():
    tabbed = issue(source="\ty = x[0]", col=6, end_col=10, fix="unsafe")
    lines = render("text", result(tabbed)).splitlines()
    assert lines[0] == "pkg/net.py:3:6: HL003 indexing a tensor selects an output"
    assert lines[2] == "  | \t    ^^^^"
    assert (
        lines[-1] == "Found 1 finding in 1 file. 1 fixable with `hybridlint --fix --unsafe-fixes`."
    )
    both = render("text", result(issue(), tabbed)).splitlines()
    assert both[-1] == (
        "Found 2 findings in 1 file. "
        "[*] 1 fixable with `hybridlint --fix` (1 more with `--unsafe-fixes`)."
    )
    unsafe = render("text", result(tabbed), unsafe_fixes=True).splitlines()
    assert "[*]" in unsafe[0]


def test_text_source_excerpt_sends_no_control_characters():
    # an escape sequence in a string literal of the checked file reaches no terminal; each
    # control character is one U+FFFD, so the caret still lines up
    escaped = issue(source='    s = "\x1b[2J"; y = x[0]', col=22, end_col=26)
    lines = render("text", result(escaped)).splitlines()
    assert lines[1] == '3 |     s = "\ufffd[2J"; y = x[0]'
    assert lines[2] == "  |                      ^^^^"
    assert "\x1b" not in "\n".join(lines)


def test_text_quiet_and_clean_runs():
    assert render("text", result(issue()), quiet=True) == (
        "pkg/net.py:3:13: HL003 [*] indexing a tensor selects an output\n"
    )
    assert render("text", result(files=5)) == "All checks passed (5 files checked).\n"
    assert render("text", result(files=5), quiet=True) == ""


def test_text_statistics():
    run = result(issue(), issue(line=9), issue(code="HL008", fix=None))
    lines = render("text", run, statistics=True).splitlines()
    assert lines[0] == "2  HL003  [*] 2 fixable  tensor-indexing"
    assert lines[1] == "1  HL008                 tensor-indexing"


def test_text_colour_only_when_asked():
    assert "\x1b[" in render("text", result(issue()), color=True)


def test_summary_mentions_fixes_and_baseline():
    run = result(issue())
    run.outcomes[0].fixed = 2
    assert summary(run, ReportContext(fix_mode=True, baselined=3)) == (
        "Fixed 2 findings. Found 1 finding in 1 file. [*] 1 fixable with `hybridlint --fix`. "
        "3 findings tolerated by the baseline."
    )


def test_json_schema():
    run = result(issue(), issue(path="b.py", fix=None), error=("c.py", "fixes not written"))
    document = json.loads(render("json", run))
    assert document["schema_version"] == 1
    assert document["summary"] == {
        "files_checked": 2,
        "findings": 2,
        "fixable": 1,
        "fixed": 0,
        "baselined": 0,
        "errors": 1,
    }
    first = document["findings"][0]
    assert set(first) == {
        "path",
        "code",
        "name",
        "message",
        "line",
        "col",
        "end_line",
        "end_col",
        "fix",
        "source_line",
        "fixable",
        "fix_details",  # the fix's edits: null here (the runner computes them, not the reporter)
    }
    assert first["fixable"] is True and document["findings"][1]["fixable"] is False
    assert document["errors"] == [{"path": "c.py", "message": "fixes not written"}]
    assert to_json(run, ReportContext())["findings"][0]["line"] == 3


def test_github_annotations_are_escaped():
    tricky = issue(path="a,b:c.py", message="50% of\nlines")
    out = io.StringIO()
    github_report(result(tricky), out, ReportContext())
    assert out.getvalue() == (
        "::error file=a%2Cb%3Ac.py,line=3,col=13,endLine=3,endColumn=17,"
        "title=HL003 tensor-indexing::HL003 50%25 of%0Alines\n"
    )


def test_junit_is_well_formed():
    root = ET.fromstring(render("junit", result(issue(), issue(line=7))))
    assert root.tag == "testsuites" and root.get("tests") == "2" and root.get("failures") == "2"
    cases = root.findall("./testsuite/testcase")
    assert [c.get("name") for c in cases] == ["HL003 at 3:13", "HL003 at 7:13"]
    assert cases[0].find("failure").get("type") == "HL003"
    clean = ET.fromstring(render("junit", result(files=4)))
    assert clean.get("failures") == "0" and len(clean.findall("./testsuite/testcase")) == 1


def test_unknown_format_is_an_error():
    with pytest.raises(ValueError, match="unknown format"):
        get_reporter("xml")
    assert FORMATS == ("text", "json", "github", "sarif", "junit")


# --- SARIF: structure checked against the required properties of the 2.1.0 schema -----------

ALLOWED = {
    "sarifLog": {"$schema", "version", "runs", "inlineExternalProperties", "properties"},
    "run": {
        "tool",
        "invocations",
        "conversion",
        "language",
        "versionControlProvenance",
        "originalUriBaseIds",
        "artifacts",
        "logicalLocations",
        "graphs",
        "results",
        "automationDetails",
        "runAggregates",
        "baselineGuid",
        "redactionTokens",
        "defaultEncoding",
        "defaultSourceLanguage",
        "newlineSequences",
        "columnKind",
        "externalPropertyFileReferences",
        "threadFlowLocations",
        "taxonomies",
        "addresses",
        "translations",
        "policies",
        "webRequests",
        "webResponses",
        "specialLocations",
        "properties",
    },
    "reportingDescriptor": {
        "id",
        "deprecatedIds",
        "guid",
        "deprecatedGuids",
        "name",
        "deprecatedNames",
        "shortDescription",
        "fullDescription",
        "messageStrings",
        "defaultConfiguration",
        "helpUri",
        "help",
        "relationships",
        "properties",
    },
    "result": {
        "ruleId",
        "ruleIndex",
        "rule",
        "kind",
        "level",
        "message",
        "analysisTarget",
        "locations",
        "guid",
        "correlationGuid",
        "occurrenceCount",
        "partialFingerprints",
        "fingerprints",
        "stacks",
        "codeFlows",
        "graphs",
        "graphTraversals",
        "relatedLocations",
        "suppressions",
        "baselineState",
        "rank",
        "attachments",
        "hostedViewerUri",
        "workItemUris",
        "provenance",
        "fixes",
        "taxa",
        "webRequest",
        "webResponse",
        "properties",
    },
    "physicalLocation": {"address", "artifactLocation", "region", "contextRegion", "properties"},
    "region": {
        "startLine",
        "startColumn",
        "endLine",
        "endColumn",
        "charOffset",
        "charLength",
        "byteOffset",
        "byteLength",
        "snippet",
        "message",
        "sourceLanguage",
        "properties",
    },
    "artifactLocation": {"uri", "uriBaseId", "index", "description", "properties"},
    "invocation": {
        "commandLine",
        "arguments",
        "responseFiles",
        "startTimeUtc",
        "endTimeUtc",
        "exitCode",
        "ruleConfigurationOverrides",
        "notificationConfigurationOverrides",
        "toolExecutionNotifications",
        "toolConfigurationNotifications",
        "exitCodeDescription",
        "exitSignalName",
        "exitSignalNumber",
        "processStartFailureMessage",
        "executionSuccessful",
        "machine",
        "account",
        "processId",
        "executableLocation",
        "workingDirectory",
        "environmentVariables",
        "stdin",
        "stdout",
        "stderr",
        "stdoutStderr",
        "properties",
    },
    "notification": {
        "locations",
        "message",
        "level",
        "threadId",
        "timeUtc",
        "exception",
        "descriptor",
        "associatedRule",
        "properties",
    },
}


def check_keys(obj, kind, required=()):
    assert isinstance(obj, dict), kind
    assert set(obj) <= ALLOWED[kind], (kind, set(obj) - ALLOWED[kind])
    for key in required:
        assert key in obj, (kind, key)


def check_message(obj):
    assert isinstance(obj, dict) and ("text" in obj or "id" in obj)


def validate_sarif(log):
    """The schema's `required`, enums, minimums and closed property sets for what we emit."""
    check_keys(log, "sarifLog", ["version", "runs"])
    assert log["version"] == "2.1.0"
    assert isinstance(log["runs"], list) and log["runs"]
    for run in log["runs"]:
        check_keys(run, "run", ["tool"])
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        ids = []
        for rule in driver.get("rules", []):
            check_keys(rule, "reportingDescriptor", ["id"])
            for key in ("shortDescription", "fullDescription", "help"):
                if key in rule:
                    assert isinstance(rule[key]["text"], str)
            assert rule["defaultConfiguration"]["level"] in {"none", "note", "warning", "error"}
            ids.append(rule["id"])
        assert len(ids) == len(set(ids))
        assert run.get("columnKind", "unicodeCodePoints") in {"utf16CodeUnits", "unicodeCodePoints"}
        for base in run.get("originalUriBaseIds", {}).values():
            check_keys(base, "artifactLocation")
        for invocation in run.get("invocations", []):
            check_keys(invocation, "invocation", ["executionSuccessful"])
            assert isinstance(invocation["executionSuccessful"], bool)
            for note in invocation.get("toolExecutionNotifications", []):
                check_keys(note, "notification", ["message"])
                check_message(note["message"])
                assert note.get("level", "warning") in {"none", "note", "warning", "error"}
        for res in run["results"]:
            check_keys(res, "result", ["message"])
            check_message(res["message"])
            assert res["level"] in {"none", "note", "warning", "error"}
            if "ruleIndex" in res:
                assert ids[res["ruleIndex"]] == res["ruleId"]
            for location in res["locations"]:
                physical = location["physicalLocation"]
                check_keys(physical, "physicalLocation")
                assert "artifactLocation" in physical or "address" in physical
                check_keys(physical["artifactLocation"], "artifactLocation")
                region = physical["region"]
                check_keys(region, "region")
                for key in ("startLine", "startColumn", "endLine", "endColumn"):
                    if key in region:
                        assert isinstance(region[key], int) and region[key] >= 1
                if "endLine" in region:
                    assert region["endLine"] >= region["startLine"]


def test_sarif_validates(tmp_path):
    pytest.importorskip("hybridlint.rules").ALL_RULES  # the rule catalogue comes from the rules
    run = result(
        issue(path=str(tmp_path / "pkg" / "net.py")),
        issue(path=str(tmp_path / "pkg" / "net.py"), code="HL900", fix=None),
        error=(str(tmp_path / "odd.py"), "fixes not written: does not parse"),
    )
    log = json.loads(render("sarif", run, root=str(tmp_path)))
    validate_sarif(log)
    notes = log["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["message"]["text"] for n in notes] == ["fixes not written: does not parse"]
    results = log["runs"][0]["results"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "pkg/net.py"
    )
    assert results[0]["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 3,
        "startColumn": 13,
        "endLine": 3,
        "endColumn": 17,
    }
    assert {r["ruleId"] for r in results} == {"HL003", "HL900"}
    clean = json.loads(render("sarif", result(), root=str(tmp_path)))
    validate_sarif(clean)
    assert clean["runs"][0]["results"] == []


def test_sarif_validator_rejects_broken_logs():
    with pytest.raises(AssertionError):
        validate_sarif({"version": "2.1.0"})
    with pytest.raises(AssertionError):
        validate_sarif(
            {
                "version": "2.1.0",
                "runs": [{"tool": {"driver": {"name": "x"}}, "results": [{"level": "error"}]}],
            }
        )
