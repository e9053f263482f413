"""Issue 15 items 2 and 3: one findings model (hybridlint/ftypes.py) and a --verify path that
fixes each file once."""

import ast
import json
import pickle
from pathlib import Path

import pytest

from hybridlint import ftypes
from hybridlint.ftypes import FileOutcome, Finding, FixSafety, RunResult
from tests.checker_support import engine_redirect_available
from tests.cli_support import invoke

ROOT = Path(__file__).resolve().parents[1]


def finding(fix="safe", **changes):
    fields = dict(
        code="HL003",
        name="tensor-indexing",
        message="m",
        line=3,
        col=5,
        end_line=3,
        end_col=9,
        fix=fix,
        path="net.py",
        source_line="        y = x[0]",
    )
    fields.update(changes)
    return Finding(**fields)


# -- fix safety ------------------------------------------------------------------------------
def test_fix_safety_is_its_text_everywhere_text_is_expected():
    for member, text in ((FixSafety.SAFE, "safe"), (FixSafety.UNSAFE, "unsafe")):
        assert member == text and text == member and isinstance(member, str)
        assert hash(member) == hash(text) and {text: 1}[member] == 1 and member in {text}
        assert str(member) == f"{member}" == "%s" % member == text
        assert json.dumps(member) == json.dumps(text) == f'"{text}"'
        assert json.dumps({"fix": member}, indent=2) == json.dumps({"fix": text}, indent=2)
        assert pickle.loads(pickle.dumps(member)) is member


def test_the_rules_safety_names_are_the_enum_members():
    from hybridlint.rules.base import SAFE, UNSAFE

    assert SAFE is FixSafety.SAFE and UNSAFE is FixSafety.UNSAFE


# -- the finding -----------------------------------------------------------------------------
def test_a_finding_holds_one_safety_type_whoever_built_it():
    from_text, from_member = finding("safe"), finding(FixSafety.SAFE)
    assert from_text.fix is FixSafety.SAFE and from_text == from_member
    assert hash(from_text) == hash(from_member)
    assert finding(None).fix is None
    with pytest.raises(ValueError):
        finding("maybe")


def test_fixable_follows_the_safety_and_the_unsafe_flag():
    assert finding("safe").fixable() and finding("safe").fixable(True)
    assert not finding("unsafe").fixable() and finding("unsafe").fixable(True)
    assert not finding(None).fixable(True)


def test_to_dict_keeps_the_former_issue_order_and_plain_text():
    data = finding("unsafe").to_dict()
    assert list(data) == "path code name message line col end_line end_col fix source_line".split()
    assert type(data["fix"]) is str and data["fix"] == "unsafe"
    assert Finding(**data) == finding("unsafe")


def test_with_source_line_sets_path_and_the_line_text():
    bare = Finding("HL003", "tensor-indexing", "m", 2, 1, 2, 4, None)
    assert bare.path == "<string>" and bare.source_line == ""
    placed = bare.with_source_line("a.py", ["first", "second"])
    assert (placed.path, placed.source_line) == ("a.py", "second")
    assert bare.with_source_line("a.py", ["only"]).source_line == ""


def test_findings_cross_processes_and_the_checker_wire_unchanged():
    original = finding("unsafe")
    assert pickle.loads(pickle.dumps(original)) == original
    from hybridlint.checker.wire import _finding

    wired = _finding(
        {
            "code": "HL003",
            "name": "n",
            "message": "m",
            "line": 1,
            "col": 1,
            "end_line": 1,
            "end_col": 2,
            "fix": "safe",
            "path": "a.py",
        }
    )
    assert isinstance(wired, Finding) and wired.fix is FixSafety.SAFE


# -- one type, old names kept ----------------------------------------------------------------
def test_every_layer_names_the_same_finding_type():
    import hybridlint
    from hybridlint import api, linter, runner

    assert linter.Finding is api.Finding is hybridlint.Finding is runner.Finding is Finding
    assert hybridlint.FixSafety is FixSafety
    assert runner.FileOutcome is FileOutcome and runner.RunResult is RunResult
    assert runner.RUNNER_CODES is ftypes.RUNNER_CODES


def test_issue_is_kept_as_a_path_first_constructor_of_a_finding():
    from hybridlint.runner import Issue

    issue = Issue("net.py", "HL003", "tensor-indexing", "m", 3, 5, 3, 9, "safe", "        y = x[0]")
    assert isinstance(issue, Finding) and issue == finding("safe")
    assert (
        Issue(path="a.py", **{k: v for k, v in finding().to_dict().items() if k != "path"}).path
        == "a.py"
    )


def _imports(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            yield "." * node.level + (node.module or "")


def test_reporters_and_the_baseline_do_not_import_the_runner():
    modules = sorted((ROOT / "hybridlint" / "reporters").glob("*.py"))
    modules.append(ROOT / "hybridlint" / "baseline.py")
    for path in modules:
        for name in _imports(path):
            assert not name.endswith("runner"), f"{path.name} imports {name}"


def test_ftypes_imports_nothing_from_hybridlint():
    assert all(
        not name.startswith(".") and not name.startswith("hybridlint")
        for name in _imports(ROOT / "hybridlint" / "ftypes.py")
    )


# -- serialised forms do not change ----------------------------------------------------------
def test_json_and_sarif_write_the_safety_as_text():
    from hybridlint.reporters import ReportContext
    from hybridlint.reporters.json_format import to_json
    from hybridlint.reporters.sarif import to_sarif

    result = RunResult([FileOutcome("net.py", [finding(FixSafety.UNSAFE)])], 1)
    ctx = ReportContext(unsafe_fixes=True)
    (entry,) = json.loads(json.dumps(to_json(result, ctx)))["findings"]
    assert entry["fix"] == "unsafe" and entry["fixable"] is True
    assert list(entry)[:2] == ["path", "code"]
    sarif = json.loads(json.dumps(to_sarif(result, ctx)))
    assert sarif["runs"][0]["results"][0]["properties"] == {"fixable": True, "fix": "unsafe"}


def test_the_cache_keeps_plain_text_and_refuses_an_unknown_safety():
    from hybridlint.cache import valid_result
    from hybridlint.runner import _issue_fields

    stored = json.loads(json.dumps([_issue_fields(finding("safe"))]))
    assert valid_result(stored) and stored[0]["fix"] == "safe"
    assert not valid_result([dict(stored[0], fix="maybe")])
    assert valid_result([dict(stored[0], fix=None)])


# -- --verify: one way, each file fixed once -------------------------------------------------
NET = """from mxnet import gluon, nd


class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        y = nd.relu(x)
        return y * 2
"""


@pytest.fixture
def verify_project(tmp_path, monkeypatch):
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text(NET)
    (tmp_path / "pyproject.toml").write_text(
        "[tool.hybridlint.examples]\n"
        '"a.py::Net" = { inputs = [[2, 3]] }\n'
        '"b.py::Net" = { inputs = [[2, 3]] }\n'
    )
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.skipif(not engine_redirect_available(), reason="hybridlint.engine.as_mxnet missing")
def test_verify_fixes_each_file_once_and_parses_the_examples_once(verify_project, monkeypatch):
    import hybridlint.checker as checker
    import hybridlint.linter as linter

    calls, parses = [], []
    real_fix, real_parse = linter.fix_source, checker.examples_from_config

    def fix_source(source, path="<string>", **options):
        calls.append(
            (
                source,
                path,
                tuple(options.get("select") or ()),
                tuple(options.get("ignore") or ()),
                options.get("unsafe", False),
                options.get("accept") is None,
                options.get("line_length"),
            )
        )
        return real_fix(source, path, **options)

    monkeypatch.setattr(linter, "fix_source", fix_source)
    monkeypatch.setattr(
        checker, "examples_from_config", lambda table: parses.append(1) or real_parse(table)
    )
    result = invoke("--no-cache", "--jobs", "1", "--fix", "--verify", "a.py", "b.py")
    assert result.exit_code == 0, result.output
    for name in ("a.py", "b.py"):
        assert "y = F.relu(x)" in (verify_project / name).read_text()
    assert len(parses) == 1
    # the worker's fix (every fix of the original) is the checker's first: never made twice
    whole = [c for c in calls if c[5]]
    assert whole and len(whole) == len(set(whole)), whole
    for name in ("a.py", "b.py"):
        assert sum(1 for c in whole if c[1].endswith(name) and c[0] == NET) == 1


@pytest.mark.skipif(not engine_redirect_available(), reason="hybridlint.engine.as_mxnet missing")
def test_a_malformed_examples_table_is_a_configuration_error_before_any_file(verify_project):
    (verify_project / "pyproject.toml").write_text(
        '[tool.hybridlint.examples]\n"a.py::Net" = { inputs = "not a list" }\n'
    )
    result = invoke("--no-cache", "--fix", "--verify", "a.py")
    assert result.exit_code == 2
    assert "examples" in result.stderr and "internal error" not in result.stderr
    assert (verify_project / "a.py").read_text() == NET
