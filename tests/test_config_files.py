"""`hybridlint.toml` and `.hybridlint.toml`: configuration without a pyproject.toml, as ruff has.

In each directory, searched upward from the linted paths, the first of `.hybridlint.toml`,
`hybridlint.toml` and a `pyproject.toml` with a `[tool.hybridlint]` table is the
configuration. The first two hold the table's keys at top level (`select = [...]`,
`[examples]`): a user who writes one must never get a run that silently ignores it."""

import textwrap

import pytest
from click.testing import CliRunner

from hybridlint.checker import examples_from_pyproject
from hybridlint.cli import cli
from hybridlint.config import ConfigError, find_config_file, load_config


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["hybridlint.toml", ".hybridlint.toml"])
def test_a_hybridlint_toml_holds_the_table_at_top_level(tmp_path, name):
    write(tmp_path / name, 'ignore = ["HL001"]\n[per-file-ignores]\n"tests/*" = ["HL003"]\n')
    model = write(tmp_path / "m.py", "x = 1\n")
    config = load_config([str(model)])
    assert config.path == str(tmp_path / name) and config.root == str(tmp_path)
    assert config.ignore == ("HL001",)
    assert config.ignores_for(str(tmp_path / "tests" / "t.py")) == ("HL003",)


def test_in_one_directory_the_dedicated_files_win_in_ruff_s_order(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.hybridlint]\nignore = ['HL002']\n")
    write(tmp_path / "hybridlint.toml", "ignore = ['HL003']\n")
    model = write(tmp_path / "m.py", "x = 1\n")
    assert find_config_file([str(model)]) == str(tmp_path / "hybridlint.toml")
    write(tmp_path / ".hybridlint.toml", "ignore = ['HL004']\n")
    assert find_config_file([str(model)]) == str(tmp_path / ".hybridlint.toml")


def test_a_nearer_pyproject_table_wins_over_a_farther_hybridlint_toml(tmp_path):
    write(tmp_path / "hybridlint.toml", "ignore = ['HL003']\n")
    write(tmp_path / "pkg" / "pyproject.toml", "[tool.hybridlint]\nignore = ['HL002']\n")
    model = write(tmp_path / "pkg" / "m.py", "x = 1\n")
    assert load_config([str(model)]).ignore == ("HL002",)


def test_an_error_names_the_file_and_the_key_without_a_tool_prefix(tmp_path):
    write(tmp_path / "hybridlint.toml", "selekt = ['HL001']\n")
    with pytest.raises(ConfigError, match=r"hybridlint\.toml: unknown key 'selekt'"):
        load_config([str(tmp_path)])


def test_explicit_config_may_be_a_hybridlint_toml(tmp_path):
    config_file = write(tmp_path / "conf" / "hybridlint.toml", "ignore = ['HL005']\n")
    write(tmp_path / "m.py", "x = 1\n")
    config = load_config([str(tmp_path)], config_file=str(config_file))
    assert config.ignore == ("HL005",)


def test_examples_come_from_a_hybridlint_toml(tmp_path):
    write(tmp_path / "hybridlint.toml", '[examples]\n"net.py::Net" = { inputs = [[2, 3]] }\n')
    net = write(tmp_path / "net.py", "x = 1\n")
    (example,) = examples_from_pyproject(str(net))
    assert example.target == "Net"


SOURCE = """\
from mxnet import gluon


class Step(gluon.HybridBlock):
    def hybrid_forward(self, F, x, alive):
        return F.contrib.cond(F.sum(alive) == 0, lambda: x * 0, lambda: x + 1)
"""


def test_fix_verify_reads_the_examples_of_a_hybridlint_toml(tmp_path, monkeypatch):
    # the block fails hybridized (an int32 cond predicate): with the examples found, --verify
    # runs it and fixes it; with them ignored it would say "All checks passed"
    write(tmp_path / "net.py", SOURCE)
    write(
        tmp_path / "hybridlint.toml",
        '[examples]\n"net.py::Step" = { inputs = [[2, 3], { shape = [2], dtype = "int32" }] }\n',
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", "net.py"])
    assert "astype('float32')" in (tmp_path / "net.py").read_text(), result.output
    assert "proven by example Step" in result.output


def test_the_language_server_rereads_every_kind_of_config_file():
    pytest.importorskip("pygls")
    from hybridlint.server import _is_config_file

    for name in ("pyproject.toml", "hybridlint.toml", ".hybridlint.toml"):
        assert _is_config_file(f"file:///work/project/{name}")
    assert not _is_config_file("file:///work/project/my_hybridlint.toml")


def test_a_hybridlint_toml_borrows_the_formatter_line_length_beside_it(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.ruff]\nline-length = 100\n")
    write(tmp_path / "hybridlint.toml", "ignore = ['HL009']\n")
    assert load_config([str(tmp_path)]).line_length == 100
    write(tmp_path / "hybridlint.toml", "line-length = 120\n")
    assert load_config([str(tmp_path)]).line_length == 120


def test_examples_of_a_file_that_does_not_exist_are_a_warning(tmp_path, monkeypatch):
    # a typo or a moved file would leave the block unverified without a word
    write(tmp_path / "net.py", SOURCE)
    write(tmp_path / "hybridlint.toml", '[examples]\n"nett.py::Step" = { inputs = [[2, 3]] }\n')
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", "."])
    assert "examples for 'nett.py': no such file" in result.output
    assert "not verified" in result.output


def test_verify_without_any_examples_says_which_blocks_run(tmp_path, monkeypatch):
    write(tmp_path / "net.py", SOURCE)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["--fix", "--verify", "--no-cache", "."])
    assert "only blocks the code shows how to build" in result.output
    assert "run, on inputs inferred from the code" in result.output
    plain = CliRunner().invoke(cli, ["--no-cache", "."])
    assert "examples" not in plain.output


def test_a_pyproject_style_table_in_a_hybridlint_toml_says_where_the_keys_go(tmp_path):
    write(tmp_path / "hybridlint.toml", "[tool.hybridlint]\nselect = ['HL001']\n")
    with pytest.raises(ConfigError, match=r"top-level keys .* without \[tool\.hybridlint\]"):
        load_config([str(tmp_path)])
