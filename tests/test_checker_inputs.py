"""Example inputs and output comparison: pure functions, no worker process."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridlint.checker import (
    Example,
    ExampleError,
    InputSpec,
    examples_from_config,
    parse_input_option,
    parse_target,
)
from hybridlint.checker.inputs import make_arrays, to_spec
from hybridlint.checker.report import EquivalenceReport, compare_arrays


def test_parse_target_splits_file_and_class():
    assert parse_target("models/resnet.py::BasicBlock") == ("models/resnet.py", "BasicBlock")
    assert parse_target("models/resnet.py") == ("models/resnet.py", None)
    with pytest.raises(ExampleError):
        parse_target("models/resnet.py::not a name")


def test_parse_input_option_shapes_and_dtypes():
    assert parse_input_option("2,64,8,8") == InputSpec((2, 64, 8, 8), "float32")
    assert parse_input_option("2,10:int32") == InputSpec((2, 10), "int32")
    for bad in ("2,x", "2,-1", "2,3:complex64"):
        with pytest.raises(ExampleError):
            parse_input_option(bad)


def test_examples_from_config_reads_the_documented_table():
    table = {
        "models/resnet.py::BasicBlock": {"kwargs": {"channels": 64}, "inputs": [[2, 64, 8, 8]]},
        "models/att.py::Attention": [
            {"inputs": [[2, 5, 8], {"shape": [2, 5], "dtype": "int32"}]},
            {"inputs": [{"value": [[1.0, 2.0]]}]},
        ],
    }
    found = examples_from_config(table)
    assert found["models/resnet.py"] == [
        Example("BasicBlock", (InputSpec((2, 64, 8, 8)),), {"channels": 64})
    ]
    first, second = found["models/att.py"]
    assert first.specs()[1] == InputSpec((2, 5), "int32")
    assert second.specs()[0].shape == (1, 2)


@pytest.mark.parametrize(
    "table, message",
    [
        ({"models/a.py": {"inputs": [[2]]}}, "path.py::Class"),
        ({"a.py::A": {"inputs": []}}, "non-empty"),
        ({"a.py::A": {"inputs": [[2, -3]]}}, "non-negative"),
        ({"a.py::A": {"inputs": [[2]], "kwarg": {}}}, "unknown field"),
        ({"a.py::A": {"inputs": [{"shape": [2], "dtype": "str"}]}}, "unsupported dtype"),
    ],
)
def test_malformed_examples_are_clear_errors(table, message):
    with pytest.raises(ExampleError, match=message):
        examples_from_config(table)


def test_inputs_are_seeded_and_typed():
    specs = [InputSpec((2, 3)), InputSpec((4,), "int32"), to_spec(np.arange(3.0))]
    first, again, other = make_arrays(specs, 0), make_arrays(specs, 0), make_arrays(specs, 1)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0], other[0])
    assert first[1].dtype == np.int32 and first[0].dtype == np.float32
    assert first[2].tolist() == [0.0, 1.0, 2.0]


def test_compare_reports_shape_dtype_and_value_differences():
    a = np.ones((2, 3), np.float32)
    assert compare_arrays([a], [a.copy()], 1e-5, 1e-6)[0].equal
    shape = compare_arrays([a], [a[0]], 1e-5, 1e-6)[0]
    assert not shape.equal and shape.actual_shape == (3,) and math.isinf(shape.max_abs_diff)
    assert not compare_arrays([a], [a.astype(np.float64)], 1e-5, 1e-6)[0].equal
    value = compare_arrays([a], [a + 0.5], 1e-5, 1e-6)[0]
    assert not value.equal and value.max_abs_diff == pytest.approx(0.5)
    missing = compare_arrays([a, a], [a], 1e-5, 1e-6)
    assert [d.equal for d in missing] == [True, False]
    nan = np.array([np.nan, 1.0])
    assert compare_arrays([nan], [nan.copy()], 1e-5, 1e-6)[0].equal


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, width=32), min_size=1, max_size=20), st.floats(1e-3, 10.0))
def test_compare_agrees_with_allclose(values, shift):
    want = np.array(values, np.float32)
    have = want + np.float32(shift)
    diff = compare_arrays([want], [have], 1e-5, 1e-6)[0]
    assert diff.equal == bool(np.allclose(have, want, rtol=1e-5, atol=1e-6))
    assert diff.max_abs_diff == pytest.approx(float(np.max(np.abs(have - want))))


def test_report_summary_and_json_form():
    report = EquivalenceReport(
        "mismatch",
        target="a.py::A",
        reason="output 0 differs",
        outputs=compare_arrays([np.zeros(2)], [np.zeros(3)], 1e-5, 1e-6),
    )
    assert report.summary() == "mismatch: a.py::A: output 0 differs"
    data = report.to_dict()
    assert data["max_abs_diff"] == "inf" and data["status"] == "mismatch"


def test_parse_kwarg_options_literals_and_strings():
    from hybridlint.checker import parse_kwarg_options

    assert parse_kwarg_options(["channels=64", "act=relu", "sizes=[1, 2]", "flag=True"]) == {
        "channels": 64,
        "act": "relu",
        "sizes": [1, 2],
        "flag": True,
    }
    with pytest.raises(ExampleError):
        parse_kwarg_options(["=3"])


def test_examples_come_from_the_pyproject_that_configures_the_file(tmp_path):
    """A nested pyproject.toml without [tool.hybridlint] (packaging metadata of a
    sub-package) is skipped, as the linter's own config discovery skips it."""
    from hybridlint.checker import examples_from_pyproject
    from hybridlint.config import ConfigError

    (tmp_path / "pyproject.toml").write_text(
        '[tool.hybridlint.examples."pkg/model.py::Net"]\ninputs = [[2, 3]]\n'
    )
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "pyproject.toml").write_text('[project]\nname = "pkg"\n')
    model = tmp_path / "pkg" / "model.py"
    model.write_text("x = 1\n")
    (example,) = examples_from_pyproject(str(model))
    assert example.target == "Net" and example.inputs[0].shape == (2, 3)
    assert examples_from_pyproject(str(tmp_path / "pkg" / "other.py")) == []
    (tmp_path / "pkg" / "pyproject.toml").write_text("[tool.hybridlint\n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        examples_from_pyproject(str(model))


def test_inputs_express_what_real_callers_pass():
    from hybridlint.checker import InputList, Value

    table = {
        "loss.py::SpanLoss": [
            {
                "inputs": [
                    [2, 6, 2],
                    [
                        {"shape": [2], "dtype": "int32", "high": 6},
                        {"shape": [2], "dtype": "int32", "high": 6},
                    ],
                ]
            },
            {
                "inputs": [
                    [2, 6, 2],
                    {"tuple": [[2], {"none": True}]},
                    {"int": 3},
                    {"float": 0.5},
                    {"bool": True},
                    {"str": "mean"},
                ]
            },
        ]
    }
    first, second = examples_from_config(table)["loss.py"]
    label = first.specs()[1]
    assert label == InputList((InputSpec((2,), "int32", high=6),) * 2, "list")
    assert second.specs()[1] == InputList((InputSpec((2,)), Value(None)), "tuple")
    assert [s.value for s in second.specs()[2:]] == [3, 0.5, True, "mean"]
    pred, made_label = make_arrays(first.specs(), 0)
    assert isinstance(made_label, list) and all(a.dtype == np.int32 for a in made_label)
    assert all(0 <= v < 6 for a in made_label for v in a.tolist())
    made = make_arrays(second.specs(), 0)
    assert isinstance(made[1], tuple) and made[1][1] is None and made[2:] == [3, 0.5, True, "mean"]


def test_api_inputs_lists_numbers_and_none():
    from hybridlint.checker import InputList, Value

    assert to_spec([(2, 3), (2, 3)]) == InputList((InputSpec((2, 3)), InputSpec((2, 3))))
    assert to_spec(((2,), None)) == InputList((InputSpec((2,)), Value(None)), "tuple")
    assert to_spec(None) == Value(None) and to_spec(0.5) == Value(0.5)
    assert to_spec((2, 3)) == InputSpec((2, 3)) and to_spec(4) == InputSpec((4,))
    nested = to_spec([np.zeros((2,), np.int64), [(1,), 0.5]])
    assert nested.items[0].dtype == "int64" and nested.items[1].items[1] == Value(0.5)


@pytest.mark.parametrize(
    "table, message",
    [
        (
            {
                "a.py::A": [
                    {"inputs": [[2]]},
                    {"inputs": [[2], {"list": [{"shape": [2], "dtype": "str"}]}]},
                ]
            },
            r"example 'a.py::A'\[1\]: inputs\[1\]\.list\[0\]: unsupported dtype 'str'",
        ),
        ({"a.py::A": {"inputs": [{"int": 2.5}]}}, r"'a.py::A': inputs\[0\]: `int` must be an int"),
        ({"a.py::A": {"inputs": [{"none": False}]}}, r"inputs\[0\]: write an input None"),
        ({"a.py::A": {"inputs": [{"list": [2], "int": 3}]}}, r"inputs\[0\]: `list` stands alone"),
        ({"a.py::A": {"inputs": [{"shape": [2], "low": 3, "high": 1}]}}, r"inputs\[0\]: `low`"),
        ({"a.py::A": {"inputs": [{"shape": [2], "high": "x"}]}}, r"`high` must be a number"),
        ({"a.py::A": {"inputs": [[[2], [-1]]]}}, r"inputs\[0\]\[1\]: a shape"),
        ({"a.py::A": []}, "empty list of examples"),
    ],
)
def test_malformed_inputs_name_the_key_and_the_input(table, message):
    with pytest.raises(ExampleError, match=message):
        examples_from_config(table)


def test_input_option_takes_the_config_format_as_toml():
    from hybridlint.checker import InputList, Value

    assert parse_input_option("[[2, 4], [2, 4]]") == InputList((InputSpec((2, 4)),) * 2)
    assert parse_input_option("{ none = true }") == Value(None)
    assert parse_input_option('{ shape = [3], dtype = "int32", high = 9 }') == InputSpec(
        (3,), "int32", high=9
    )
    assert parse_input_option("2,3:int32") == InputSpec((2, 3), "int32")
    with pytest.raises(ExampleError, match="not a TOML value"):
        parse_input_option("[2, ")
    with pytest.raises(ExampleError, match=r"--input '\{ int = 1.5 \}': `int` must be"):
        parse_input_option("{ int = 1.5 }")


def test_none_in_constructor_kwargs_is_spelled_as_for_inputs():
    # TOML has no null: `{ none = true }` passes None, at any depth; other tables stay tables.
    (example,) = examples_from_config(
        {
            "m.py::Net": {
                "kwargs": {"in_size": {"none": True}, "sizes": [{"none": True}, 4], "t": {"a": 1}},
                "inputs": [[2, 3]],
            }
        }
    )["m.py"]
    assert example.kwargs == {"in_size": None, "sizes": [None, 4], "t": {"a": 1}}
