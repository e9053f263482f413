"""HL018 is off by default, but reports what a block's configured examples prove.

A configured example says how the block is called on its own: one that passes a Python int
as an input (`{ int = 12 }`), or makes hybrid_forward return None, is a call that fails once
the block is hybridized (MXNet 1.9.1: tests/test_example_python_inputs.py). So `hybridlint`
(also plain `--fix`, no --verify) reports those findings under the default selection, and
only those; `--select HL018` reports everything HL018 finds, these included.
"""

import json
import textwrap

import pytest

from hybridlint.config import Config, RuleSelection
from hybridlint.linter import lint_source
from hybridlint.project import FileProject
from tests.cli_support import invoke

SOURCE = textwrap.dedent(
    """
    from mxnet import gluon


    class LabelSmoothing(gluon.HybridBlock):
        def __init__(self, units=None, **kwargs):
            super().__init__(**kwargs)
            self._units = units

        def hybrid_forward(self, F, inputs, units=None):
            if units is None:
                units = self._units
            return F.one_hot(inputs, depth=units)


    class Attention(gluon.HybridBlock):
        def hybrid_forward(self, F, x, mask=None, cache=None):
            if mask is not None:
                x = x * mask
            return F.relu(x), cache


    class EarlyExit(gluon.HybridBlock):
        def hybrid_forward(self, F, x, cache=None):
            if cache is None:
                return F.relu(x)
            return x, cache
    """
)
UNITS, ONE_HOT, CACHE, EARLY_RETURN = 10, 13, 20, 27
ARRAY, INT, NONE = ("array", ""), ("int", "12"), ("none", "None")


def _lines(*examples, **options):
    project = FileProject(example_inputs=tuple(examples))
    found = lint_source(SOURCE, "net.py", project=project, **options)
    return sorted(f.line for f in found if f.code == "HL018")


def test_without_examples_the_default_selection_reports_nothing():
    assert _lines() == []


def test_an_example_passing_a_python_int_is_reported_at_the_parameter():
    assert _lines(("LabelSmoothing", (ARRAY, INT))) == [UNITS]
    assert _lines(("LabelSmoothing", (ARRAY, ARRAY))) == []
    assert _lines(("LabelSmoothing", (ARRAY,))) == []  # the default: not an input then


def test_the_first_input_is_reported_too():
    """gluon's eager call takes a Python value as the first input too; hybridized it fails
    (tests/test_example_python_inputs.py, "int first")."""
    assert _lines(("LabelSmoothing", (INT, ARRAY))) == [UNITS - 0]  # at `inputs`


def test_a_none_returned_on_every_call_is_reported():
    # `cache` left at its None default, or passed as None: the last return runs on every call
    assert _lines(("Attention", ((ARRAY),))) == [CACHE]
    assert _lines(("Attention", (ARRAY, ARRAY, NONE))) == [CACHE]
    assert _lines(("Attention", (ARRAY, ARRAY, ARRAY))) == []


def test_a_return_an_earlier_one_may_skip_is_not_proven_by_an_example():
    assert _lines(("EarlyExit", (ARRAY,))) == []  # `return F.relu(x)` when cache is None


def test_a_registered_parameter_is_an_array_whatever_its_default():
    source = SOURCE.replace(
        "class Attention(gluon.HybridBlock):",
        "class Attention(gluon.HybridBlock):\n"
        "    def __init__(self, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        '        self.cache = self.params.get("cache", shape=(2,))\n',
    )
    project = FileProject(example_inputs=(("Attention", (ARRAY,)),))
    assert [f for f in lint_source(source, "net.py", project=project) if f.code == "HL018"] == []


def test_a_block_with_its_own_forward_is_not_judged_by_its_examples():
    source = SOURCE.replace(
        "class LabelSmoothing(gluon.HybridBlock):",
        "class LabelSmoothing(gluon.HybridBlock):\n"
        "    def forward(self, x, units):\n"
        "        return super().forward(x, gluon.nd.array([units]))\n",
    )
    project = FileProject(example_inputs=(("LabelSmoothing", (ARRAY, INT)),))
    assert [f for f in lint_source(source, "net.py", project=project) if f.code == "HL018"] == []


def test_a_class_named_twice_or_only_nested_is_not_judged_by_examples():
    twice = SOURCE + textwrap.dedent(
        """

        class Other:
            class LabelSmoothing(gluon.HybridBlock):
                def hybrid_forward(self, F, x, flag):
                    return x
        """
    )
    project = FileProject(example_inputs=(("LabelSmoothing", (ARRAY, INT)),))
    assert [f for f in lint_source(twice, "net.py", project=project) if f.code == "HL018"] == []


def test_select_hl018_reports_everything():
    """In full, HL018 also reports the use of `units` as one_hot's depth."""
    assert _lines(select=["HL018"]) == [ONE_HOT, CACHE, EARLY_RETURN]
    # the proven input at its parameter too (its use stays reported: a suppression there holds)
    assert _lines(("LabelSmoothing", (ARRAY, INT)), select=["HL018"]) == [
        UNITS,
        ONE_HOT,
        CACHE,
        EARLY_RETURN,
    ]


@pytest.mark.parametrize(
    "select, ignore, expected",
    [
        (None, None, {"HL017:examples", "HL018:examples"}),
        (["HL"], None, {"HL017:examples", "HL018:examples"}),
        (["HL001"], None, set()),
        (None, ["HL018"], {"HL017:examples"}),
        (["HL018"], None, set()),  # on in full: no examples-only copy
        (None, ["HL017"], {"HL018:examples"}),
    ],
)
def test_the_selection_runs_the_examples_only_copy_where_the_rule_is_off_by_default(
    select, ignore, expected
):
    selection = RuleSelection.build(Config(root="."), select=select, ignore=ignore)
    assert set(selection.examples_only(["HL001", "HL017", "HL018"])) == expected


def _write(tmp_path, units):
    (tmp_path / "net.py").write_text(SOURCE)
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.hybridlint.examples]\n"net.py::LabelSmoothing" = {{ inputs = [[2, 5], {units}] }}\n'
    )


def _cli_lines(tmp_path, *options):
    result = invoke("--exit-zero", "--format", "json", *options, str(tmp_path / "net.py"))
    assert result.exit_code == 0, result.output
    return sorted(f["line"] for f in json.loads(result.stdout)["findings"] if f["code"] == "HL018")


def test_cli_reports_the_example_and_a_cached_result_follows_it(tmp_path):
    _write(tmp_path, "{ int = 12 }")
    assert _cli_lines(tmp_path) == [UNITS]
    _write(tmp_path, "[2, 5]")  # the cache holds the first result; the key moved
    assert _cli_lines(tmp_path) == []
    _write(tmp_path, "{ bool = true }")
    assert _cli_lines(tmp_path) == [UNITS]
    assert _cli_lines(tmp_path, "--select", "HL001") == []
    assert _cli_lines(tmp_path, "--ignore", "HL018") == []


def test_a_noqa_of_the_rule_is_not_unused_where_the_examples_prove_nothing(tmp_path):
    (tmp_path / "net.py").write_text(
        SOURCE.replace("units = self._units", "units = self._units  # noqa: HL018")
    )
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hybridlint.examples]\n"net.py::LabelSmoothing" = { inputs = [[2, 5]] }\n'
    )
    result = invoke("--format", "json", str(tmp_path / "net.py"))
    assert result.exit_code == 0, result.output


def test_config_reads_the_inputs_of_the_files_examples(tmp_path):
    config = Config(
        root=str(tmp_path),
        examples={
            "net.py::A": [
                {"inputs": [[2, 3], {"int": 4}, 0.5, {"none": True}]},
                {"inputs": [{"list": [[2], {"str": "x"}]}, [[2, 3], False], {"shape": [2]}]},
            ],
            "not a target": {"inputs": [1]},
        },
    )
    assert config.example_inputs_for(str(tmp_path / "net.py")) == (
        ("A", (ARRAY, ("int", "4"), ("float", "0.5"), NONE)),
        # a value inside a list input is marked so: the input itself is no number
        ("A", (("str in a list", "'x'"), ("bool in a list", "False"), ARRAY)),
    )
    assert config.example_inputs_for(str(tmp_path / "other.py")) == ()


def test_the_language_server_reads_the_examples_as_the_cli_does(tmp_path):
    server = pytest.importorskip("hybridlint.server")
    _write(tmp_path, "{ int = 12 }")
    path = str(tmp_path / "net.py")
    analysis = server.analyze(SOURCE, path, server.resolve_settings(path))
    assert [f.line for f in analysis.findings if f.code == "HL018"] == [UNITS]


def test_the_api_runs_the_examples_only_copy_under_a_prefix_as_the_cli_does():
    example = ("LabelSmoothing", (ARRAY, INT))
    assert _lines(example, select=["HL"]) == [UNITS]
    assert _lines(example, select=["HL"], ignore=["HL018"]) == []
    assert _lines(example, select=["HL001"]) == []


def test_a_value_the_checker_refuses_proves_nothing_and_keeps_the_numbering(tmp_path):
    config = Config(
        root=str(tmp_path),
        examples={"net.py::A": ["not a table", {"inputs": [[2], {"int": True}, {"float": 1}]}]},
    )
    assert config.example_inputs_for(str(tmp_path / "net.py")) == (
        ("A", ()),  # #1, malformed: --verify says so
        ("A", (ARRAY, ARRAY, ("float", "1"))),  # `{ int = true }` is no int
    )


def test_an_input_the_examples_pass_as_a_number_is_a_number_to_the_rules():
    """DPED's ColorLoss divides a full sum by `2 * bath_size`, a Python int its caller passes:
    HL007's broadcast op there would fail eagerly (`broadcast_div(t, 4)`); HL018 says what
    fails hybridized. An input some example passes as an array stays an array."""
    source = (
        "from mxnet.gluon import HybridBlock\n\n\nclass L(HybridBlock):\n"
        "    def hybrid_forward(self, F, pred, label, n):\n"
        "        return F.sum((label - pred) ** 2) / (2 * n)\n"
    )

    def codes(*examples):
        project = FileProject(example_inputs=tuple(("L", given) for given in examples))
        return sorted(f.code for f in lint_source(source, "loss.py", project=project))

    assert codes((ARRAY, ARRAY, ("int", "2"))) == ["HL018"]
    assert codes((ARRAY, ARRAY, ("int", "2")), (ARRAY, ARRAY, ARRAY)) == ["HL007", "HL018"]
    assert codes((ARRAY, ARRAY, ("int in a list", "2"))) == ["HL007", "HL018"]
