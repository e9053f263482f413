"""Fixes in machine-readable output, and fix counts that agree (issue 23 item 2).

* ``--format json``: each finding with a fix carries it as ruff writes one (``fix_details``:
  applicability, message, edits), and applying those edits gives exactly what
  ``--fix --select CODE`` gives for that finding alone;
* SARIF: ``fixes[]`` with the same edits, and a ``helpUri`` per rule;
* ``--statistics``: ``[*] N fixable`` per rule, adding up to the summary's count;
* ``check``, ``--diff`` and ``--fix`` count the same fixable findings;
* the pre-commit hooks of the README's config list each finding left once.
"""

import json
import os
import re
import shutil

import pytest
import yaml

from cli_support import invoke

from hybridlint.config import DEFAULT_OFF, load_config
from hybridlint.fixedits import apply_edits, fix_key, line_starts, text_edits
from hybridlint.ftypes import Finding
from hybridlint.linter import fix_source, lint_source
from hybridlint.runner import all_rule_codes

ROOT = os.path.join(os.path.dirname(__file__), os.pardir)
HAZARDS = os.path.join(ROOT, "testdata", "hazards")
TESTDATA = os.path.join(ROOT, "testdata")
CODES = [c for c in all_rule_codes() if not c.startswith("HL9") and c not in DEFAULT_OFF]


_JSON: dict = {}


def hazards_json(*flags: str) -> dict:
    """`hybridlint --no-cache --format json [flags] hazards` from a `hazards` fixture's directory,
    run once per worker and flags: several tests read the same document (each JSON run fixes
    every finding alone, seconds of CPU)."""
    if flags not in _JSON:
        _JSON[flags] = json.loads(
            invoke("--no-cache", "--format", "json", *flags, "hazards").stdout
        )
    return _JSON[flags]


@pytest.fixture
def hazards(tmp_path, monkeypatch):
    shutil.copytree(HAZARDS, tmp_path / "hazards")
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _offset(text, location):
    return line_starts(text)[location["row"] - 1] + location["column"] - 1


def apply_fix(text, details):
    """A finding's JSON fix applied as an editor or a bot would: edit by edit, from the end."""
    for edit in sorted(details["edits"], key=lambda e: _offset(text, e["location"]), reverse=True):
        start, end = _offset(text, edit["location"]), _offset(text, edit["end_location"])
        text = text[:start] + edit["content"] + text[end:]
    return text


def _as_finding(entry):
    fields = {k: entry[k] for k in ("code", "name", "message", "line", "col", "end_line")}
    return Finding(**fields, end_col=entry["end_col"], fix=entry["fix"])


@pytest.mark.parametrize("unsafe", [[], ["--unsafe-fixes"]])
def test_every_fix_in_json_is_what_fix_select_gives_for_that_finding_alone(hazards, unsafe):
    doc = hazards_json(*unsafe)
    with_fix = [f for f in doc["findings"] if f["fix"] is not None]
    assert len(with_fix) == 26  # every finding with a fix of the four files (22 safe, 4 unsafe)
    line_length = load_config(["hazards"]).line_length
    by_file = {}
    for entry in with_fix:
        by_file.setdefault(entry["path"], []).append(entry)
    for path, entries in by_file.items():
        text = (hazards / path).read_text()
        everything = [_as_finding(f) for f in doc["findings"] if f["path"] == path]
        assert len(everything) == len(lint_source(text, path, select=CODES))
        for entry in entries:
            details = entry["fix_details"]
            assert details["applicability"] == entry["fix"]
            assert details["message"].startswith(f"Fix {entry['code']} ({entry['name']})")
            assert details["edits"], entry
            for edit in details["edits"]:
                assert set(edit) == {"location", "end_location", "content"}
                assert set(edit["location"]) == {"row", "column"}
            fixed = apply_fix(text, details)
            # --fix --select CODE (--unsafe-fixes for an unsafe fix), that finding alone
            finding = _as_finding(entry)
            key = fix_key(everything, finding)
            alone = fix_source(
                text,
                path,
                select=[entry["code"]],
                unsafe=entry["fix"] == "unsafe",
                accept=lambda f, key=key, found=everything: fix_key(found, f) == key,
                line_length=line_length,
            ).source
            assert fixed == alone, (path, entry["line"], entry["col"], entry["code"])
            assert fixed != text
        # where the finding is its rule's only fix in the file, the CLI itself says so
        for entry in entries:
            same = [e for e in entries if e["code"] == entry["code"]]
            if len(same) != 1:
                continue
            copy = hazards / "alone" / os.path.basename(path)
            copy.parent.mkdir(exist_ok=True)
            copy.write_text(text)
            flags = ["--unsafe-fixes"] if entry["fix"] == "unsafe" else []
            invoke("--no-cache", "--fix", "--select", entry["code"], *flags, str(copy))
            assert apply_fix(text, entry["fix_details"]) == copy.read_text(), entry


def test_findings_without_a_fix_have_null_details_and_other_fields_stay(hazards):
    doc = hazards_json()
    assert doc["schema_version"] == 1
    for entry in doc["findings"]:
        assert list(entry)[:11] == [
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
        ]
        assert (entry["fix_details"] is None) == (entry["fix"] is None)


def test_a_cached_run_still_carries_the_fixes(hazards):
    first = json.loads(invoke("--format", "json", "hazards").stdout)
    second = json.loads(invoke("--format", "json", "hazards").stdout)
    assert first["findings"] == second["findings"]
    assert sum(1 for f in second["findings"] if f["fix_details"]) == 26


def test_text_output_computes_no_fix(hazards, monkeypatch):
    """A fix per finding costs a fix_source run each: only the formats that print it pay."""
    import hybridlint.fixedits as fixedits

    calls = []
    real = fixedits.single_fix
    monkeypatch.setattr(fixedits, "single_fix", lambda *a, **k: calls.append(a) or real(*a, **k))
    invoke("--no-cache", "hazards")
    invoke("--no-cache", "--format", "github", "hazards")
    assert calls == []
    invoke("--no-cache", "--format", "json", "hazards")
    assert len(calls) >= 21


def test_stdin_json_carries_the_fix(hazards, monkeypatch):
    from click.testing import CliRunner

    from hybridlint.cli import cli

    text = (hazards / "hazards" / "attention.py").read_text()
    runner = CliRunner()
    result = runner.invoke(
        cli, ["--format", "json", "--stdin-filename", "hazards/attention.py"], input=text
    )
    doc = json.loads(result.stdout)
    fixed = [f for f in doc["findings"] if f["fix_details"]]
    assert fixed and all(apply_fix(text, f["fix_details"]) != text for f in fixed)


def test_sarif_carries_fixes_and_help_uris(hazards):
    from hybridlint.server import rule_doc_url

    sarif = json.loads(invoke("--no-cache", "--format", "sarif", "hazards").stdout)
    doc = hazards_json()
    run = sarif["runs"][0]
    assert run["columnKind"] == "unicodeCodePoints"
    for rule in run["tool"]["driver"]["rules"]:
        assert rule["helpUri"] == rule_doc_url(rule["id"])
    assert len(run["results"]) == len(doc["findings"])
    for result, entry in zip(run["results"], doc["findings"]):
        assert result["ruleId"] == entry["code"]
        if entry["fix_details"] is None:
            assert "fixes" not in result
            continue
        (fix,) = result["fixes"]
        assert fix["description"]["text"] == entry["fix_details"]["message"]
        (change,) = fix["artifactChanges"]
        location = result["locations"][0]["physicalLocation"]["artifactLocation"]
        assert change["artifactLocation"] == location
        text = (hazards / entry["path"]).read_text()
        edits = [
            {
                "location": {"row": r["deletedRegion"]["startLine"],
                             "column": r["deletedRegion"]["startColumn"]},
                "end_location": {"row": r["deletedRegion"]["endLine"],
                                 "column": r["deletedRegion"]["endColumn"]},
                "content": r["insertedContent"]["text"],
            }
            for r in change["replacements"]
        ]  # fmt: skip
        assert apply_fix(text, {"edits": edits}) == apply_fix(text, entry["fix_details"])


def _fixable_in_summary(text):
    return int(re.search(r"\[\*\] (\d+) fixable with", text).group(1))


@pytest.mark.parametrize("unsafe", [[], ["--unsafe-fixes"]])
def test_statistics_count_fixable_findings_per_rule(hazards, unsafe):
    stats = invoke("--no-cache", "--statistics", *unsafe, "hazards").stdout
    doc = hazards_json(*unsafe)
    rows = re.findall(r"^\s*(\d+)  (HL\d{3})  (?:\[\*\] +(\d+) fixable)?\s+(\S+)$", stats, re.M)
    assert len(rows) == len({f["code"] for f in doc["findings"]}), stats
    for count, code, fixable, name in rows:
        mine = [f for f in doc["findings"] if f["code"] == code]
        assert int(count) == len(mine) and name == mine[0]["name"]
        assert int(fixable or 0) == sum(f["fixable"] for f in mine), (code, stats)
    marked = sum(int(fixable or 0) for _, _, fixable, _ in rows)
    assert marked == _fixable_in_summary(stats) == doc["summary"]["fixable"]
    # a rule with some findings fixable and some not shows how many
    assert re.search(r"^3  HL004  \[\*\] (2|3) fixable  inplace-arithmetic$", stats, re.M), stats


# testdata (every bundled file) with --unsafe-fixes only, the superset of fixes: its safe run
# took a minute of a CI worker and checks nothing the hazard files' safe run does not
@pytest.mark.parametrize(
    "data, unsafe",
    [("hazards", []), ("hazards", ["--unsafe-fixes"]), ("testdata", ["--unsafe-fixes"])],
)
def test_check_diff_and_fix_count_the_same_fixable_findings(tmp_path, monkeypatch, unsafe, data):
    source = HAZARDS if data == "hazards" else TESTDATA
    shutil.copytree(source, tmp_path / "work", ignore=shutil.ignore_patterns("*.ipynb"))
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    monkeypatch.chdir(tmp_path)
    check = invoke("--no-cache", *unsafe, "work").stdout
    fixable = _fixable_in_summary(check)
    diff = invoke("--no-cache", "--diff", *unsafe, "work").stderr
    would = re.search(r"Would fix (\d+) findings? in \d+ files?(?:, and (\d+) more)?", diff)
    fix = invoke("--no-cache", "--fix", *unsafe, "work").stdout
    fixed = re.search(r"Fixed (\d+) findings?(?:, and (\d+) more)?", fix)
    assert int(would.group(1)) == fixable == int(fixed.group(1)), (check[-200:], diff, fix[-200:])
    assert (would.group(2) or "0") == (fixed.group(2) or "0")


def test_text_edits_reproduce_the_new_text():
    old = "import a\nimport b\n\nx = 1\ny = 2\r\nz = 3\r"
    for new in [
        "import a\n\nx = 1\ny = 2\r\nz = 3\r",
        "import a\nimport b\n\nx = 10\ny = 2\r\nz = 3\r",
        "import b\n\nx = 1\ny = F.two()\r\nz = 3\r\n",
        "",
        old,
    ]:
        edits = text_edits(old, new)
        assert apply_edits(old, edits) == new
        assert all(a[1] <= b[0] for a, b in zip(edits, edits[1:]))
    assert text_edits(old, old) == []
    assert len(text_edits(old, "import a\n\nx = 1\ny = 3\r\nz = 3\r")) == 2


def test_pre_commit_hooks_list_each_remaining_finding_once(tmp_path, monkeypatch):
    """The README's config runs hybridlint-fix, then hybridlint: a finding the fix hook cannot
    fix was listed by both (the fix hook's `check --fix` reported what was left)."""
    with open(os.path.join(ROOT, ".pre-commit-hooks.yaml")) as stream:
        hooks = {hook["id"]: hook for hook in yaml.safe_load(stream)}
    (tmp_path / "net.py").write_text(
        "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
        "        y = F.relu(x)\n        y[0] = 1\n        return y[:, 0]\n"
    )
    monkeypatch.chdir(tmp_path)
    outputs = []
    for hook_id in ("hybridlint-fix", "hybridlint"):  # the README's order
        entry = hooks[hook_id]["entry"].split()
        assert entry[0] == "hybridlint"
        result = invoke(*entry[1:], "net.py")  # pre-commit appends the file names
        assert result.exit_code == 1, result.stdout
        outputs.append(result.stdout)
    assert "y[:, 0]" not in (tmp_path / "net.py").read_text()  # the fix hook fixed
    assert sum(out.count("net.py:4:9: HL003") for out in outputs) == 1, outputs
    assert "net.py:4:9: HL003" in outputs[1]  # the lint hook lists it
    assert "HL003" in outputs[0] and "Found 1 finding" in outputs[0]  # the fix hook counts it
