"""fix_source maps every applied finding back to its line in the original source exactly,
through passes that change the number of lines, without comparing whole files (a difflib
comparison per pass made --fix quadratic: 50/100/200/400 classes took 4/8/20/54 s)."""

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from hybridlint.linter import _block_mapper, aligned_lines, fix_source

CLASS = """

class Net{i}(HybridBlock):
    def hybrid_forward(self, F, x, y):
        a = nd.relu(x)
        b = F.relu(x)[
            0]
        c = F.relu(y)[0][1]
        a += 1
        return a, b, c
"""
# what the original line of each fixed code must hold
CONSTRUCT = {"HL006": "nd.", "HL003": "[", "HL004": "+=", "HL005": "nd.array"}
CONST = """

class Const{i}(HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def hybrid_forward(self, F, x):
        w = nd.array([[1.5, 2.5], [3.5, 4.5]])
        return F.dot(x, w)
"""


def test_block_mapper_maps_unchanged_and_replaced_lines():
    # old lines 3-4 became new lines 3-6; old 10 became new 12-12
    grow = aligned_lines(["a\n", "b\n"], ["a\n", "x\n", "y\n", "b\n"])
    same = aligned_lines(["c\n"], ["d\n"])
    mapping = _block_mapper([(3, 4, 3, 6, grow), (10, 10, 12, 12, same)])
    assert [mapping(n) for n in (1, 2)] == [1, 2]
    assert [mapping(n) for n in (3, 4, 5, 6)] == [3, 4, 4, 4]
    assert [mapping(n) for n in (7, 8, 11)] == [5, 6, 9]
    assert mapping(12) == 10 and mapping(13) == 11


def test_a_removed_line_inside_a_rewritten_run_does_not_shift_the_lines_after_it():
    # reconet-gluon's LuminanceLoss: an unsafe HL001 fix removes `_,channels,h,w = x.shape` and
    # the same pass rewrites the lines after it; position alone mapped each one line early
    old = [
        "        _,channels,h,w = x.shape\n",
        "        warperr = y - warp(ylast, flow)\n",
        "        err = mask * mx.nd.square(warperr - lum)\n",
        "        loss = mx.nd.sum(err, axis=0, exclude=True) / float(h*w)\n",
    ]
    new = [
        "        warperr = y - warp(ylast, flow, F=F)\n",
        "        err = mask * F.square(warperr - lum)\n",
        "        loss = F.broadcast_div(F.sum(err, axis=0, exclude=True), F.prod(hw))\n",
    ]
    assert aligned_lines(old, new) == [1, 2, 3]
    assert aligned_lines(old[1:], ["        something else entirely()\n"] + new) == [0, 0, 1, 2]


_LINES = st.lists(st.sampled_from(["a = 1\n", "b = f(a)\n", "return b\n", "c = g(b, a)\n", "x\n"]))


@settings(max_examples=200, deadline=None)
@given(_LINES, _LINES)
def test_aligned_lines_is_an_order_keeping_map_into_the_old_lines(old, new):
    mapped = aligned_lines(old, new)
    assert len(mapped) == len(new)
    assert all(0 <= i < max(len(old), 1) for i in mapped)
    assert mapped == sorted(mapped)  # a later new line never comes from an earlier old line
    unchanged = difflib.SequenceMatcher(None, old, new, autojunk=False).get_matching_blocks()
    for i, j, size in unchanged:  # lines the diff keeps map to themselves
        assert mapped[j : j + size] == list(range(i, i + size))


def test_a_later_pass_finding_keeps_its_line_when_an_earlier_pass_removed_one():
    source = (
        "from mxnet import nd\n"
        "from mxnet.gluon import HybridBlock\n"
        "\n"
        "\n"
        "class Loss(HybridBlock):\n"
        "    def hybrid_forward(self, F, x, y, mask):\n"
        "        _, c, h, w = x.shape\n"
        "        err = mask * nd.square(y - x.mean(axis=1, keepdims=True))\n"
        "        return nd.sum(err, axis=0, exclude=True) / float(h * w)\n"
    )
    result = fix_source(source, "m.py", unsafe=True)
    lines = source.splitlines()
    assert any(f.code == "HL007" for f in result.applied), result.applied
    for finding in result.applied:
        assert finding.line >= 7, finding
        text = lines[finding.line - 1]
        if finding.code == "HL007":
            assert finding.line == 8 and text[finding.col - 1 :].startswith("y - x.mean"), finding
        if finding.code == "HL006":
            assert text[finding.col - 1 :].startswith("nd."), finding


def test_applied_findings_point_at_their_original_lines(monkeypatch):
    real = difflib.SequenceMatcher

    def no_whole_file_diff(junk, a, b, **kwargs):
        if not isinstance(a, str):  # a character diff of one line (columns) is fine
            assert len(a) < 20 and len(b) < 20, "fix_source compared whole files"
        return real(junk, a, b, **kwargs)

    monkeypatch.setattr(difflib, "SequenceMatcher", no_whole_file_diff)
    source = "from mxnet import nd\nfrom mxnet.gluon import HybridBlock\n" + "".join(
        (CONST if i % 3 == 1 else CLASS).format(i=i) for i in range(9)
    )
    result = fix_source(source, "m.py", unsafe=True)
    lines = source.splitlines()
    assert result.source.count("\n") < source.count("\n")  # passes joined lines
    per_class = {}
    for finding in result.applied:
        assert CONSTRUCT[finding.code] in lines[finding.line - 1] or finding.line in JOINED(
            lines
        ), finding
        owner = next(
            text.split("(")[0]
            for text in reversed(lines[: finding.line])
            if text.startswith("class ")
        )
        per_class[owner] = per_class.get(owner, 0) + 1
    # every class keeps its own findings: no drift from the lines earlier passes removed
    # (y[0][1] is fixed in two passes, x[...] over two lines is joined by the first)
    assert per_class == {
        f"class {'Const' if i % 3 == 1 else 'Net'}{i}": 1 if i % 3 == 1 else 5 for i in range(9)
    }


def JOINED(lines):
    """Inside a statement a pass rewrote, lines map by position (as a line diff does): a
    finding of the second pass may land on the continuation line the first pass joined."""
    return {n + 1 for n, text in enumerate(lines) if text.strip() == "0]"}


def test_a_fix_applied_by_a_later_pass_points_at_its_original_columns():
    # the inner `-` is applied by the second pass, inside the outer rewrite, where its column
    # has moved: it is reported (and accepted) at its place in the original line
    source = (
        "class Net(HybridBlock):\n"
        "    def hybrid_forward(self, F, x, m, s):\n"
        "        m = F.mean(x, axis=2)\n"
        "        s = F.mean(x, axis=2)\n"
        "        return (x - m.expand_dims(axis=2)) / s.expand_dims(axis=2)\n"
    )
    line = source.splitlines()[4]
    result = fix_source(source, "m.py", unsafe=True)
    spans = sorted(
        (f.col, line[f.col - 1 : f.end_col - 1]) for f in result.applied if f.code == "HL007"
    )
    assert [text for _, text in spans] == [
        "(x - m.expand_dims(axis=2)) / s.expand_dims(axis=2)",
        "x - m.expand_dims(axis=2)",
    ]
    inner = spans[1][0]
    alone = fix_source(source, "m.py", unsafe=True, accept=lambda f: f.col == inner)
    assert "F.broadcast_sub(x, m.expand_dims(axis=2))" in alone.source
    assert "broadcast_div" not in alone.source
