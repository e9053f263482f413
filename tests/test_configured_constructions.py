"""The configured examples are the file's configuration for the analysis, also without --verify.

HL001 leaves a dynamic-size fallback (`self.in_size if self.fixed_size else x.shape[2:]`)
alone when the block's own configuration never takes it (tests/test_configuration_branches.py).
A project whose `[tool.hybridlint.examples]` build the block with `fixed_size = false` says
that its callers do take it: `hybridlint --fix` (no --verify) then reports and fixes it, and
the examples are part of the file's cache key, so editing them changes the cached result.
"""

import json
import textwrap

import pytest

from hybridlint.config import Config
from hybridlint.linter import fix_source, lint_source
from hybridlint.project import OPAQUE, FileProject
from tests.cli_support import invoke

SOURCE = textwrap.dedent(
    """
    from mxnet.gluon import nn, HybridBlock


    class Unit(HybridBlock):
        def __init__(self, channels, in_size=None, **kwargs):
            super(Unit, self).__init__(**kwargs)
            self.conv = nn.Conv2D(channels, 1)
            self.in_size = in_size

        def hybrid_forward(self, F, x):
            size = x.shape[2:] if self.in_size is None else self.in_size
            y = F.relu(self.conv(x))
            return F.contrib.BilinearResize2D(y, height=size[0], width=size[1])


    class Net(HybridBlock):
        def __init__(self, channels=(4,), fixed_size=True, in_size=(32, 32), **kwargs):
            super(Net, self).__init__(**kwargs)
            self.fixed_size = fixed_size
            self.in_size = in_size
            self.unit = Unit(channels[0], in_size=in_size if fixed_size else None)

        def hybrid_forward(self, F, x):
            in_size = self.in_size if self.fixed_size else x.shape[2:]
            x = self.unit(x)
            return F.contrib.BilinearResize2D(x, height=in_size[0], width=in_size[1])
    """
)
UNIT_LINE, NET_LINE = 12, 25


def _built(*examples):
    return FileProject(constructions=tuple(("Net", tuple(sorted(e.items()))) for e in examples))


def _lines(project=None):
    return sorted(
        f.line for f in lint_source(SOURCE, "net.py", project=project) if f.code == "HL001"
    )


def test_the_module_configuration_alone_takes_no_fallback():
    assert _lines() == []
    assert _lines(_built({"fixed_size": True})) == []


def test_an_example_built_with_fixed_size_false_takes_both_fallbacks():
    # Net's own test, and Unit's through Net's construction `in_size if fixed_size else None`
    assert _lines(_built({"fixed_size": False})) == [UNIT_LINE, NET_LINE]


def test_examples_that_disagree_leave_the_fallback_a_hazard():
    assert _lines(_built({"fixed_size": True}, {"fixed_size": False})) == [UNIT_LINE, NET_LINE]


def test_an_omitted_argument_is_the_parameters_default():
    assert _lines(_built({"in_size": (16, 16)})) == []


def test_an_example_never_hides_the_branch_the_default_takes():
    # Net's default takes both fallbacks; the module builds Net nowhere, so the default stands
    # for the callers outside, and an example only adds its own configuration
    source = SOURCE.replace("fixed_size=True, in_size=(32, 32)", "fixed_size=False, in_size=None")
    found = lint_source(source, "net.py", project=_built({"fixed_size": True, "in_size": (8, 8)}))
    assert sorted(f.line for f in found if f.code == "HL001") == [UNIT_LINE, NET_LINE]


def test_a_numpy_argument_leaves_the_test_undecided():
    assert _lines(_built({"fixed_size": OPAQUE})) == [UNIT_LINE, NET_LINE]


def test_a_child_block_an_example_builds_is_configured_too(tmp_path):
    config = Config(
        root=str(tmp_path),
        examples={
            "net.py::Outer": {
                "kwargs": {"body": {"block": "Net", "kwargs": {"fixed_size": False}}},
                "inputs": [[1, 3, 8, 8]],
            }
        },
    )
    project = FileProject(constructions=config.constructions_for(str(tmp_path / "net.py")))
    assert _lines(project) == [UNIT_LINE, NET_LINE]


def test_the_fix_is_written_for_the_configured_fallback():
    fixed = fix_source(SOURCE, "net.py", project=_built({"fixed_size": False})).source
    assert "x.shape" not in fixed
    assert _lines() == []  # nothing leaks into a lint without the configuration


def test_config_reads_the_constructions_of_the_files_examples(tmp_path):
    config = Config(
        root=str(tmp_path),
        examples={
            "models/net.py::Net": [
                {"kwargs": {"fixed_size": False, "in_size": [{"none": True}, 8]}, "inputs": []},
                {"kwargs": {"backbone": {"block": "Body", "kwargs": {}}}, "inputs": []},
            ],
            "models/net.py::Head": {"inputs": [[2, 3]]},
            "not a target": {"kwargs": {"x": 1}},
        },
    )
    assert config.constructions_for(str(tmp_path / "models" / "net.py")) == (
        ("Net", (("fixed_size", False), ("in_size", (None, 8)))),
        ("Net", (("backbone", ("<block>", "Body")),)),
        ("Body", ()),  # a child block an example builds is a construction of its class too
        ("Head", ()),
    )
    assert config.constructions_for(str(tmp_path / "other.py")) == ()


def test_constructions_are_part_of_the_cache_key():
    assert FileProject().key == ""
    keys = {_built({"fixed_size": flag}).key for flag in (True, False)}
    assert len(keys) == 2 and "" not in keys


def _project(tmp_path, fixed_size):
    flag = "true" if fixed_size else "false"
    (tmp_path / "pyproject.toml").write_text(
        "[tool.hybridlint.examples]\n"
        f'"net.py::Net" = {{ kwargs = {{ fixed_size = {flag} }}, inputs = [[1, 3, 8, 8]] }}\n'
    )


def _reported_lines(tmp_path):
    result = invoke("--exit-zero", "--format", "json", str(tmp_path / "net.py"))
    assert result.exit_code == 0, result.output
    return sorted(f["line"] for f in json.loads(result.stdout)["findings"] if f["code"] == "HL001")


def test_cli_reads_the_examples_and_a_cached_result_follows_them(tmp_path):
    (tmp_path / "net.py").write_text(SOURCE)
    _project(tmp_path, fixed_size=False)
    assert _reported_lines(tmp_path) == [UNIT_LINE, NET_LINE]
    _project(tmp_path, fixed_size=True)  # the cache holds the first result; the key moved
    assert _reported_lines(tmp_path) == []
    _project(tmp_path, fixed_size=False)
    assert _reported_lines(tmp_path) == [UNIT_LINE, NET_LINE]


def test_cli_fix_writes_the_configured_fallbacks_fix(tmp_path):
    (tmp_path / "net.py").write_text(SOURCE)
    _project(tmp_path, fixed_size=False)
    result = invoke("--fix", str(tmp_path / "net.py"))
    assert "x.shape" not in (tmp_path / "net.py").read_text(), result.output


def test_the_language_server_reads_the_examples_as_the_cli_does(tmp_path):
    server = pytest.importorskip("hybridlint.server")
    path = tmp_path / "net.py"
    path.write_text(SOURCE)
    _project(tmp_path, fixed_size=False)
    analysis = server.analyze(SOURCE, str(path), server.resolve_settings(str(path)))
    assert sorted(f.line for f in analysis.findings if f.code == "HL001") == [UNIT_LINE, NET_LINE]
    assert "x.shape" not in analysis.fix_all_text()
