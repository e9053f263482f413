"""hybridlint.config: discovery of [tool.hybridlint], validation, globs, rule selection."""

import os
import textwrap

import pytest

from hybridlint.config import (
    DEFAULT_EXCLUDE,
    Config,
    ConfigError,
    RuleSelection,
    find_config_file,
    load_config,
    parse_table,
    split_codes,
)

CODES = ["HL001", "HL002", "HL003", "HL010", "HL900", "HL901", "HL902"]


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_nearest_pyproject_with_table_wins(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.hybridlint]\nignore = ['HL001']\n")
    write(tmp_path / "pkg" / "pyproject.toml", "[tool.other]\nx = 1\n")  # no table: skipped
    write(tmp_path / "pkg" / "sub" / "pyproject.toml", "[tool.hybridlint]\nignore = ['HL002']\n")
    model = write(tmp_path / "pkg" / "sub" / "m.py", "x = 1\n")
    assert find_config_file([str(model)]) == str(tmp_path / "pkg" / "sub" / "pyproject.toml")
    assert load_config([str(tmp_path / "pkg")]).ignore == ("HL001",)
    sub = load_config([str(model)])
    assert sub.ignore == ("HL002",) and sub.root == str(tmp_path / "pkg" / "sub")


def test_no_config_gives_defaults_and_a_root(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / "a" / "m.py", "x = 1\n")
    config = load_config([str(tmp_path / "a")])
    assert config.path is None
    assert config.root == str(tmp_path)
    assert config.exclude == DEFAULT_EXCLUDE


def test_full_table_is_parsed(tmp_path):
    write(
        tmp_path / "pyproject.toml",
        """
        [tool.hybridlint]
        select = ["hl0"]
        ignore = ["HL009"]
        extend-select = ["HL900"]
        exclude = ["legacy"]
        extend-exclude = ["gen/*.py"]
        [tool.hybridlint.per-file-ignores]
        "tests/*" = ["HL003", "HL004"]
        [tool.hybridlint.examples]
        "models/net.py::Net" = { inputs = [[2, 3]] }
        "models/net.py::Other" = [{ inputs = [[1]] }, { inputs = [[2]] }]
    """,
    )
    config = load_config([str(tmp_path)])
    assert config.select == ("HL0",)  # codes are upper-cased
    assert config.extend_select == ("HL900",)
    assert config.all_excludes == ("legacy", "gen/*.py")
    assert config.per_file_ignores == (("tests/*", ("HL003", "HL004")),)
    assert config.examples == {
        "models/net.py::Net": {"inputs": [[2, 3]]},
        "models/net.py::Other": [{"inputs": [[1]]}, {"inputs": [[2]]}],
    }


@pytest.mark.parametrize(
    "body, message",
    [
        ("selec = ['HL001']", "unknown key 'selec'"),
        ("select = 'HL001'", "select must be a list of strings"),
        ("ignore = [3]", "ignore must be a list of strings"),
        ("select = ['E501']", "'E501' is not a rule code"),
        ("per-file-ignores = ['x']", "per-file-ignores must be a table"),
        ("examples = 3", "examples must be a table"),
        ("[tool.hybridlint.per-file-ignores]\n'a.py' = ['nope']", "'nope' is not a rule code"),
    ],
)
def test_invalid_config_is_one_clear_error(tmp_path, body, message):
    write(tmp_path / "pyproject.toml", "[tool.hybridlint]\n" + body + "\n")
    with pytest.raises(ConfigError, match=message) as info:
        load_config([str(tmp_path)])
    assert str(tmp_path / "pyproject.toml") in str(info.value)


def test_broken_toml_is_a_config_error(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.hybridlint\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_config([str(tmp_path)])


def test_explicit_config_file_must_exist_and_have_the_table(tmp_path):
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_config(["."], str(tmp_path / "missing.toml"))
    other = write(tmp_path / "other.toml", "[tool.black]\n")
    with pytest.raises(ConfigError, match="no \\[tool.hybridlint\\] table"):
        load_config(["."], str(other))


def test_exclude_globs(tmp_path):
    config = Config(
        root=str(tmp_path), exclude=("build", "*_pb2.py"), extend_exclude=("src/legacy",)
    )
    assert config.is_excluded(str(tmp_path / "build"))
    assert config.is_excluded(str(tmp_path / "pkg" / "build" / "x.py"))
    assert config.is_excluded(str(tmp_path / "api_pb2.py"))
    assert config.is_excluded(str(tmp_path / "src" / "legacy" / "deep" / "x.py"))
    assert not config.is_excluded(str(tmp_path / "src" / "legacy2.py"))
    assert not config.is_excluded(str(tmp_path / "builder.py"))


def test_per_file_ignores_match_relative_paths(tmp_path):
    config = Config(
        root=str(tmp_path), per_file_ignores=(("tests/*", ("HL003",)), ("conftest.py", ("HL001",)))
    )
    assert config.ignores_for(str(tmp_path / "tests" / "t.py")) == ("HL003",)
    assert config.ignores_for(str(tmp_path / "a" / "conftest.py")) == ("HL001",)
    assert config.ignores_for(str(tmp_path / "src" / "m.py")) == ()


def test_selection_layers():
    config = Config(root=".", select=("HL0",), ignore=("HL002",))
    assert RuleSelection.build(config).enabled(CODES) == {"HL001", "HL003", "HL010"}
    # the command line's --select replaces the configured selection, ignore included
    assert RuleSelection.build(config, select=["HL002"]).enabled(CODES) == {"HL002"}
    # --extend-select / --ignore adjust it
    both = RuleSelection.build(config, extend_select=["HL9"], ignore=["HL01"])
    assert both.enabled(CODES) == {"HL001", "HL003", "HL900", "HL901", "HL902"}
    assert RuleSelection.build(Config(root=".")).enabled(CODES, ["HL00"]) == {
        "HL010",
        "HL900",
        "HL901",
        "HL902",
    }
    assert RuleSelection.build(Config(root="."), select=["ALL"]).enabled(CODES) == set(CODES)


def test_unknown_code_is_reported_against_the_known_list():
    RuleSelection.build(Config(root="."), select=["HL0"]).check_known(CODES)
    with pytest.raises(ConfigError, match="unknown rule code 'HL05'"):
        RuleSelection.build(Config(root="."), ignore=["HL05"]).check_known(CODES)


def test_split_codes():
    assert split_codes(None, "--select") is None
    assert split_codes("hl001, HL0,,", "--select") == ["HL001", "HL0"]
    with pytest.raises(ConfigError, match="--select: 'F401'"):
        split_codes("F401", "--select")


def test_parse_table_rejects_non_table():
    with pytest.raises(ConfigError, match="must be a table"):
        parse_table(["x"], root=os.getcwd())
