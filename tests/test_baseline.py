"""hybridlint.baseline: fingerprints that survive line moves, and the file format."""

import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hybridlint.baseline import BaselineError, BaselineFilter, fingerprints, write_baseline
from hybridlint.runner import Issue


def issue(line, text, code="HL003", path="pkg/net.py"):
    return Issue(path, code, "tensor-indexing", "m", line, 5, line, 9, "safe", text)


@settings(max_examples=50, deadline=None)
@given(shift=st.integers(min_value=0, max_value=500), indent=st.sampled_from(["", "    ", "\t"]))
def test_fingerprints_ignore_line_numbers_and_indentation(shift, indent):
    before = [issue(10, "    y = x[0]"), issue(12, "    z = x[0]"), issue(20, "    y = x[0]")]
    after = [issue(i.line + shift, indent + i.source_line.strip()) for i in before]
    assert [fp for fp, _ in fingerprints(before, "/")] == [fp for fp, _ in fingerprints(after, "/")]


def test_identical_lines_are_told_apart_by_occurrence():
    fps = [fp for fp, _ in fingerprints([issue(3, "y = x[0]"), issue(9, "y = x[0]")], "/")]
    assert len(set(fps)) == 2


def test_code_and_path_are_part_of_the_identity():
    base = fingerprints([issue(3, "y = x[0]")], "/")[0][0]
    assert fingerprints([issue(3, "y = x[0]", code="HL001")], "/")[0][0] != base
    assert fingerprints([issue(3, "y = x[0]", path="other.py")], "/")[0][0] != base


def test_round_trip_and_paths_relative_to_the_baseline(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    found = [issue(3, "y = x[0]"), issue(7, "z = x[1]")]
    target = tmp_path / "ci" / "baseline.json"
    target.parent.mkdir()
    assert write_baseline(str(target), found) == 2
    document = json.loads(target.read_text())
    assert document["format"] == 1
    assert {e["path"] for e in document["findings"]} == {"../pkg/net.py"}
    # same findings seen from another working directory: still recognised
    os.chdir(tmp_path / "ci")
    moved = [issue(3, "y = x[0]", path="../pkg/net.py"), issue(8, "w = x[2]", path="../pkg/net.py")]
    kept, tolerated = BaselineFilter.load("baseline.json").new_issues(moved)
    assert tolerated == 1 and [i.source_line for i in kept] == ["w = x[2]"]


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        "[]",
        '{"format": 2, "findings": []}',
        '{"format": 1, "findings": [{"code": "HL003"}]}',
    ],
)
def test_malformed_baselines_are_errors(tmp_path, content):
    path = tmp_path / "b.json"
    path.write_text(content)
    with pytest.raises(BaselineError, match="b.json"):
        BaselineFilter.load(str(path))


def test_missing_baseline_is_an_error(tmp_path):
    with pytest.raises(BaselineError, match="cannot read baseline"):
        BaselineFilter.load(str(tmp_path / "nope.json"))
