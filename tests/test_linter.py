"""The linter core's contract: findings, select/ignore, suppression, regions, fixing."""

import ast

import libcst as cst
import pytest

from hybridlint.linter import (
    Finding,
    FixResult,
    SourceSyntaxError,
    fix_source,
    lint_source,
    may_contain_hybrid_code,
)
from hybridlint.rules import ALL_RULES
from hybridlint.rules.base import Invalid, Rule, Valid


def net(body: str, args: str = "x") -> str:
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    return f"class Net(HybridBlock):\n    def hybrid_forward(self, F, {args}):\n{lines}"


def codes(findings):
    return [(f.code, f.line) for f in findings]


# -- findings -------------------------------------------------------------------------------
def test_finding_fields_positions_and_path():
    source = net("y = F.relu(x)\nreturn y[0] + x.shape[0]")
    findings = lint_source(source, "model.py")
    assert [f.code for f in findings] == ["HL003", "HL001"]
    index, shape = findings
    assert isinstance(index, Finding) and index.path == "model.py"
    assert (index.line, index.col, index.end_line, index.end_col) == (4, 16, 4, 20)
    assert index.name == "tensor-indexing" and index.fix == "safe"
    assert (shape.line, shape.col, shape.end_col) == (4, 23, 30)
    assert (
        shape.fix == "unsafe" and "F.shape_array" in shape.message
    )  # a shape scalar in arithmetic (issue 12)


def test_source_without_hybrid_forward_is_not_parsed():
    assert not may_contain_hybrid_code("def f(x):\n    return x[0]\n")
    assert may_contain_hybrid_code(net("return x"))
    # not even a syntax error is looked at: nothing in it can be a finding
    assert lint_source("def broken(:\n") == []


def test_python2_file_raises_a_clear_syntax_error():
    source = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        print x\n"
    with pytest.raises(SourceSyntaxError) as info:
        lint_source(source)
    assert info.value.line == 3 and info.value.msg
    with pytest.raises(SourceSyntaxError):
        fix_source(source)


def test_select_and_ignore_take_codes_and_prefixes():
    source = net("x += 1\nreturn x[0].asnumpy()")
    assert {f.code for f in lint_source(source)} == {"HL002", "HL003", "HL004"}
    assert {f.code for f in lint_source(source, select=["HL003"])} == {"HL003"}
    assert {f.code for f in lint_source(source, select=["HL00"], ignore=["HL002", "HL004"])} == {
        "HL003"
    }
    assert lint_source(source, ignore=["HL"]) == []


# -- suppression ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "comment, suppressed",
    [
        ("# hybridlint: ignore[HL003]", True),
        ("# hybridlint: ignore[HL001, HL003]", True),
        ("# hybridlint: ignore", True),
        ("# noqa: HL003", True),
        ("# noqa:HL003,E501", True),
        ("# noqa", True),
        ("# NOQA", True),
        ("# hybridlint: ignore[HL001]", False),
        ("# noqa: E501", False),
        ("# a comment about noqa-like things", False),
    ],
)
def test_suppression_comments(comment, suppressed):
    source = net(f"return F.relu(x)[0]  {comment}")
    # HL100 (a partly unused suppression) is tests/test_suppression.py's subject
    assert (lint_source(source, ignore=("HL100",)) == []) is suppressed


def test_suppression_on_first_line_of_multiline_statement():
    source = net(
        "y = F.concat(  # hybridlint: ignore[HL003]\n    x,\n    x[0],\n    dim=0)\nreturn y"
    )
    assert lint_source(source) == []
    unsuppressed = source.replace("  # hybridlint: ignore[HL003]", "")
    assert codes(lint_source(unsuppressed)) == [("HL003", 5)]


def test_suppressed_findings_are_not_fixed():
    source = net("return F.relu(x)[0]  # noqa: HL003")
    assert fix_source(source).source == source


# -- regions: only hybrid code is parsed with LibCST, positions are file positions ---------
def test_positions_are_file_lines_and_untouched_code_is_byte_identical():
    prefix = (
        "import mxnet as mx\n\n\ndef  weird( a,b ) :\n    return a[0]   # not hybrid code\n\n"
        "x = [1,2,  3]\nprint( x[0] )\n\n\n"
    )
    suffix = "\n\nclass Other(object):\n    def forward(self, y):\n        return y[0]\n"
    block = net("return F.relu(x)[0]")
    source = prefix + block + suffix
    findings = lint_source(source)
    assert codes(findings) == [("HL003", prefix.count("\n") + 3)]
    fixed = fix_source(source, unsafe=True).source
    assert fixed.startswith(prefix) and fixed.endswith(suffix)
    assert "F.slice_axis(F.relu(x), axis=0, begin=0, end=1)" in fixed


def test_helper_function_in_its_own_region_is_analysed():
    source = (
        "def head(F, data):\n    return data.shape[0]\n\n\nimport os\n\n\n"
        "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return head(F, x)\n"
    )
    assert codes(lint_source(source)) == [("HL001", 2)]


def test_block_defined_inside_a_factory_function_is_linted():
    source = (
        "def make_block(n):\n    class Inner(HybridBlock):\n        def hybrid_forward(self, F, x):\n"
        "            return F.relu(x)[n]\n\n    class Other(HybridBlock):\n"
        "        def hybrid_forward(self, F, x):\n            return x.shape\n    return Inner\n"
    )
    assert codes(lint_source(source)) == [("HL003", 4), ("HL001", 8)]


def test_form_feeds_and_unicode_separators_do_not_shift_lines():
    source = '"""doc\u2028string"""\n\x0c\nimport os\n' + net("return F.relu(x)[0]")
    findings = lint_source(source)
    assert codes(findings) == [("HL003", 6)]
    fixed = fix_source(source, unsafe=True).source
    assert fixed.startswith('"""doc\u2028string"""\n\x0c\nimport os\n') and "F.slice_axis" in fixed


def test_block_defined_inside_a_method_is_linted():
    source = (
        "class Outer(HybridBlock):\n    def __init__(self):\n        class Proj(HybridBlock):\n"
        "            def hybrid_forward(self, F, x, v):\n                return x * v.shape[0]\n"
        "        self.proj = Proj()\n\n    def hybrid_forward(self, F, x):\n        return self.proj(x)\n"
    )
    assert codes(lint_source(source)) == [("HL001", 5)]


def test_crlf_line_endings_are_kept():
    source = net("return F.relu(x)[0]").replace("\n", "\r\n")
    fixed = fix_source(source, unsafe=True).source
    assert "\r\n" in fixed and "\n" not in fixed.replace("\r\n", "")
    assert "F.slice_axis" in fixed


def test_comments_and_formatting_survive_fixes():
    source = net("y = F.relu(x)  # keep me\n# and me\ny += (\n    x  # inner\n)\nreturn y")
    fixed = fix_source(source).source
    assert "# keep me" in fixed and "# and me" in fixed and "# inner" in fixed
    assert "y = y + (\n" in fixed


# -- fixing ---------------------------------------------------------------------------------
def test_fix_result_applied_and_remaining():
    source = net("y = F.relu(x)\ny += 1\nreturn y[0] + x.shape[0]")
    result = fix_source(source)
    assert isinstance(result, FixResult)
    assert sorted(codes(result.applied)) == [("HL003", 5), ("HL004", 4)]  # original positions
    assert codes(result.remaining) == [("HL001", 5)]
    assert fix_source(result.source).source == result.source


def test_unsafe_fixes_only_on_request():
    source = net("x += 1\nreturn x")
    assert fix_source(source).source == source
    assert lint_source(source)[0].fix == "unsafe"
    assert "x = x + 1" in fix_source(source, unsafe=True).source


def test_accept_can_reject_fixes():
    source = net("y = F.relu(x)\nreturn y[0] + y[1]")
    seen = []

    def accept(finding):
        seen.append(finding)
        return finding.col < 20

    result = fix_source(source, accept=accept)
    assert "y[1]" in result.source and "y[0]" not in result.source
    assert codes(result.remaining) == [("HL003", 4)]
    assert fix_source(source, accept=lambda f: False).source == source


def test_overlapping_fixes_resolve_over_passes():
    # HL001 rewrites `x[0].T` as a whole, HL003 rewrites the `x[0]` inside it: both apply.
    source = net("return F.relu(x)[0].T")
    result = fix_source(source, unsafe=True)
    assert result.source == net(
        "return F.transpose(F.squeeze(F.slice_axis(F.relu(x), axis=0, begin=0, end=1), axis=0))"
    )
    assert sorted(f.code for f in result.applied) == ["HL001", "HL003"]
    assert result.remaining == []


def test_nested_indexing_reaches_a_fixed_point():
    source = net("return F.relu(x)[0][1:][-1]")
    result = fix_source(source, unsafe=True)
    assert result.remaining == [] and "x[" not in result.source and "]" not in result.source
    assert fix_source(result.source).source == result.source
    ast.parse(result.source)


class _BrokenFix(Rule):
    """A deliberately broken rule: its 'fix' produces code that does not parse."""

    code = "HL999"
    name = "broken"
    message = "broken"
    explanation = ""
    VALID = [Valid("")]
    INVALID = [Invalid("")]

    def visit_Return(self, node):
        self.report(node, replacement=node.with_changes(value=cst.Name("lambda")))


def test_a_pass_that_does_not_parse_is_dropped():
    source = net("return x")
    result = fix_source(source, rules=[_BrokenFix])
    assert result.source == source and result.applied == []
    assert codes(result.remaining) == [("HL999", 3)]


def test_every_rule_class_is_registered_once():
    assert len({rule.code for rule in ALL_RULES}) == len(ALL_RULES)


def test_bytes_are_refused_with_a_clear_error():
    with pytest.raises(TypeError, match="decode the file first"):
        lint_source(net("return x").encode())
    with pytest.raises(TypeError, match="decode the file first"):
        fix_source(net("return x").encode())


def test_deep_real_world_nesting_is_analysed():
    source = net("x += 1\nreturn " + "F.relu(" * 150 + "x" + ")" * 150)
    assert [f.code for f in lint_source(source)] == ["HL004"]


@pytest.mark.parametrize("terms", [3000, 10000])  # 10000 would crash LibCST's parser itself
def test_nesting_beyond_what_can_be_analysed_is_a_clear_error(terms):
    source = net("x += 1\nreturn " + " + ".join(["x"] * terms))
    for call in (lint_source, fix_source):
        with pytest.raises(SourceSyntaxError, match="too deeply nested"):
            call(source)


@pytest.mark.parametrize("opener,closer", [("F.relu(", ")"), ("[", "]"), ("{", "}")])
def test_brackets_nested_beyond_pythons_limit_are_a_syntax_error_not_a_crash(opener, closer):
    # Python refuses 200 nested brackets; LibCST's parser overflows the C stack at ~1,500
    source = net("return " + opener * 1600 + "x" + closer * 1600)
    for call in (lint_source, fix_source):
        with pytest.raises(SourceSyntaxError, match="too many nested parentheses"):
            call(source)
    assert lint_source(net("return " + opener * 190 + "x" + closer * 190)) == []  # analysed


def test_fixes_in_several_regions_are_spliced_back_in_place():
    middle = "\n\nHELPER = {'a': [1,\n    2]}   # odd formatting kept\n\n\n"
    first = net("y = F.relu(x)\ny += 1\nreturn y[0]")
    second = net("return x.T").replace("class Net", "class Other")
    source = first + middle + second.rstrip("\n")  # no newline at the end of the file
    fixed = fix_source(source).source
    assert middle in fixed and not fixed.endswith("\n")
    assert fixed.count("class ") == 2 and "y = y + 1" in fixed and "F.transpose(x)" in fixed
    assert lint_source(fixed) == []


def test_a_column_a_later_fixing_pass_reports_stays_on_its_original_line():
    """A finding of a later pass maps back through a character diff of each changed line; a
    character no earlier line had (a rewrite's text, or a part a rewrite joined from the next
    line) maps to where the rewrite stands, never past the end of the original line (the
    blind test saw `61:139` on a 100-character line)."""
    from hybridlint.linter import _column_before

    old = "    y = F.add(F.multiply(a, b),\n"
    new = "    y = F.broadcast_add(F.multiply(a, b), F.multiply(c, d))\n"
    moved = new.index("F.multiply(a") + 1
    assert _column_before(new, old, moved) == old.index("F.multiply(a") + 1
    joined = new.index("F.multiply(c") + 1  # from the next line: no column of `old` holds it
    assert 1 <= _column_before(new, old, joined) <= len(old.rstrip("\n")) + 1
    assert _column_before("F.relu(x)\n", "nd.relu(x)\n", 1) == 1
