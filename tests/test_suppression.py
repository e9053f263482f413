"""Suppression comments are checked (HL100, like ruff's RUF100): a typo'd code or a
suppression that suppresses nothing is reported and fixed away; file-level suppressions."""

import pytest
from click.testing import CliRunner

from hybridlint import fix_source, lint_source
from hybridlint.cli import cli


def net(body: str) -> str:
    indented = "\n".join("        " + line for line in body.splitlines())
    return (
        "from mxnet.gluon import HybridBlock\n\n\nclass Net(HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n" + indented + "\n"
    )


def found(source, **kwargs):
    return [(f.code, f.line, f.message) for f in lint_source(source, **kwargs)]


@pytest.mark.parametrize(
    "comment, message",
    [
        ("# hybridlint: ignore[HL0003]", "names no rule: HL0003"),
        ("# hybridlint: ignore[HL003]", "suppresses nothing here: HL003"),
        ("# hybridlint: ignore[HL0]", "suppresses nothing here: HL0"),
        ("# hybridlint: ignore", "suppresses nothing"),
        ("# noqa: E501, HL004", "suppresses nothing here: HL004"),
        ("# hybridlint: ignore[XYZ]", "names no rule: XYZ"),
    ],
)
def test_a_suppression_that_suppresses_nothing_is_reported(comment, message):
    source = net(f"y = F.relu(x)  {comment}\nreturn y")
    [(code, line, text)] = found(source)
    assert code == "HL100" and line == 6 and message in text


@pytest.mark.parametrize(
    "comment",
    [
        "# noqa",
        "# noqa: E501",
        "# hybridlint: ignore[HL007]",  # HL007 deselected below
        "# type: ignore",
        "# a comment about hybridlint: ignoring",
    ],
)
def test_what_is_not_reported(comment):
    source = net(f"y = F.relu(x)  {comment}\nreturn y")
    assert found(source, select=["HL00", "HL1"], ignore=["HL007"]) == []


def test_a_typo_leaves_the_hazard_reported_and_the_fix_removes_only_the_typo():
    source = net(
        "y = F.relu(x)[0]  # hybridlint: ignore[HL0003]\nz = x.shape  # noqa: E501, HL001\nreturn y, z"
    )
    codes = sorted(c for c, _, _ in found(source))
    assert codes == ["HL003", "HL100"]  # the typo suppressed nothing; HL001 was suppressed
    result = fix_source(source, "m.py")
    assert "# hybridlint" not in result.source
    assert "z = x.shape  # noqa: E501, HL001" in result.source
    assert [f.code for f in result.remaining] == []
    assert sorted(f.code for f in result.applied) == ["HL003", "HL100"]


def test_a_suppression_that_a_fix_made_unused_is_removed_too():
    source = net("y = F.relu(x)\ny += 1  # hybridlint: ignore[HL001]\nreturn y")
    result = fix_source(source, "m.py")
    assert "hybridlint: ignore" not in result.source and "y = y + 1" in result.source


def test_a_directive_inside_a_string_is_not_a_comment():
    source = net('s = "# hybridlint: ignore[HL0003]"\nreturn x.shape')
    assert [c for c, _, _ in found(source)] == ["HL001"]


@pytest.mark.parametrize(
    "directive, remaining",
    [
        ("# hybridlint: ignore-file", []),
        ("# hybridlint: ignore-file[HL001]", ["HL003"]),
        ("# HYBRIDLINT: IGNORE-FILE[hl00]", []),
    ],
)
def test_file_level_suppression(directive, remaining):
    source = directive + "\n" + net("y = F.relu(x)[0]\nreturn y.shape")
    assert [c for c, _, _ in found(source)] == remaining


def test_an_unused_file_level_suppression_is_reported():
    source = "# hybridlint: ignore-file[HL005]\n" + net("return F.relu(x)")
    [(code, line, text)] = found(source)
    assert (code, line) == ("HL100", 1) and "HL005" in text
    assert "ignore-file" not in fix_source(source, "m.py").source


def test_a_file_level_directive_after_code_is_a_line_directive():
    source = net("y = F.relu(x)[0]  # hybridlint: ignore-file[HL003]\nreturn x.shape")
    # it suppresses on its own line (as an ignore with codes would), but is not file-wide
    assert [c for c, _, _ in found(source)] == ["HL001"]


def test_hl100_through_the_command_line(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.hybridlint]\n")
    (tmp_path / "m.py").write_text(net("y = F.relu(x)[0]  # hybridlint: ignore[HL0003]\nreturn y"))
    runner = CliRunner()
    result = runner.invoke(cli, ["--no-cache", "m.py"])
    assert result.exit_code == 1 and "HL100" in result.output and "HL003" in result.output
    assert "HL100" not in runner.invoke(cli, ["--no-cache", "--ignore", "HL100", "m.py"]).output
    assert "unused-suppression" in runner.invoke(cli, ["rule", "HL100"]).output
    fixed = runner.invoke(cli, ["--no-cache", "--fix", "m.py"])
    assert fixed.exit_code == 0, fixed.output
    assert "hybridlint: ignore" not in (tmp_path / "m.py").read_text()
