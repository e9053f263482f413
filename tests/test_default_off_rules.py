"""Default-off rules (hybridlint/config.py's DEFAULT_OFF): off unless a `select` or
`extend-select` names their exact code; a prefix or ALL leaves them off."""

import json

import pytest
from click.testing import CliRunner

from hybridlint.cli import cli
from hybridlint.config import DEFAULT_OFF, Config, RuleSelection
from hybridlint.rules import ALL_RULES

CODES = ["HL001", "HL015", "HL016", "HL900"]

MODE_BRANCH = """\
from mxnet import autograd
from mxnet.gluon import nn


class Halve(nn.HybridBlock):
    def hybrid_forward(self, F, x):
        if autograd.is_training():
            x = x * 0.5
        return x
"""


def test_default_off_codes_are_rules_documented_as_such():
    rules = {rule.code: rule for rule in ALL_RULES}
    assert DEFAULT_OFF and DEFAULT_OFF <= set(rules)
    for code in DEFAULT_OFF:
        assert "Off by default" in rules[code].explanation


def _enabled(config=None, **cli_layer):
    return RuleSelection.build(config or Config(root="."), **cli_layer).enabled(CODES)


def test_off_by_default_and_by_prefix_or_all():
    assert _enabled() == {"HL001", "HL015", "HL900"}
    assert _enabled(select=["HL01"]) == {"HL015"}
    assert _enabled(select=["ALL"]) == {"HL001", "HL015", "HL900"}
    assert _enabled(Config(root=".", extend_select=("HL0",))) == {"HL001", "HL015", "HL900"}


def test_on_when_its_code_is_named():
    assert _enabled(select=["HL016"]) == {"HL016"}
    assert _enabled(extend_select=["HL016"]) == {"HL001", "HL015", "HL016", "HL900"}
    configured = Config(root=".", extend_select=("HL016",))
    assert _enabled(configured) == {"HL001", "HL015", "HL016", "HL900"}
    # later layers still adjust it: --ignore by prefix, --select without it
    assert _enabled(configured, ignore=["HL01"]) == {"HL001", "HL900"}
    assert _enabled(configured, select=["HL0"]) == {"HL001", "HL015"}
    assert _enabled(Config(root=".", select=("HL016",))) == {"HL016"}


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project of one file (its own pyproject.toml, so nothing above leaks in) as the cwd."""
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    (tmp_path / "net.py").write_text(MODE_BRANCH)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _codes(*args):
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    result = runner.invoke(cli, ["check", "--no-cache", "--format", "json", *args, "net.py"])
    assert result.exit_code in (0, 1), result.output
    return [finding["code"] for finding in json.loads(result.stdout)["findings"]]


def test_cli_reports_a_default_off_rule_only_when_selected(project):
    assert _codes() == []
    assert _codes("--extend-select", "HL016") == ["HL016"]
    assert _codes("--select", "HL016") == ["HL016"]
    assert _codes("--select", "HL0") == []
    (project / "pyproject.toml").write_text('[tool.hybridlint]\nextend-select = ["HL016"]\n')
    assert _codes() == ["HL016"]


def test_the_api_selects_as_the_command_line_does():
    # lint_source(select=None) is "the default selection", without the default-off rules;
    # a prefix does not turn them on, their code does.
    from hybridlint.linter import lint_source

    source = (
        "from mxnet import autograd, gluon\n\n\nclass Net(gluon.HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n"
        "        if autograd.is_training():\n            x = x * 0.5\n        return x\n"
    )
    assert not [f for f in lint_source(source) if f.code == "HL016"]
    assert not [f for f in lint_source(source, select=["HL0"]) if f.code == "HL016"]
    assert [f.code for f in lint_source(source, select=["HL016"])] == ["HL016"]


SIGN = (
    "import mxnet as mx\nfrom mxnet.gluon import HybridBlock\n\n\n"
    "class Sign(mx.autograd.Function):\n    def forward(self, x):\n"
    "        return x.sign() / x.shape[1]\n\n    def backward(self, dy):\n        return dy\n\n\n"
    "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return Sign()(x)\n\n\n"
    "class Other(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return Sign()(x)\n"
)


def test_hl017_reports_the_blocks_configured_examples_build(project):
    """e2e's Conv2D1bit and iSQRTCOVPool: a plain --fix passed them silently while their
    examples' hybridized call fails in the Function's forward; a block nobody configured stays
    as the default-off rule leaves it."""
    (project / "net.py").write_text(SIGN)
    assert _codes() == []
    (project / "pyproject.toml").write_text(
        '[tool.hybridlint.examples]\n"net.py::Net" = { inputs = [[2, 3]] }\n'
    )
    assert _codes() == ["HL017"]
    assert _codes("--extend-select", "HL017") == ["HL017", "HL017"]
    assert _codes("--ignore", "HL017") == []


def test_hl017_reads_examples_only_of_a_class_they_can_name(project):
    """A module defining `Net` twice: the example names neither for certain (as for HL018,
    `WalkState.example_classes`), so the default-off rule stays off."""
    twice = (
        SIGN
        + "\n\nclass Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return Sign()(x)\n"
    )
    (project / "net.py").write_text(twice)
    (project / "pyproject.toml").write_text(
        '[tool.hybridlint.examples]\n"net.py::Net" = { inputs = [[2, 3]] }\n'
    )
    assert _codes() == []
    assert _codes("--extend-select", "HL017") == ["HL017"] * 3
