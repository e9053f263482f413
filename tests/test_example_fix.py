"""`Invalid(fix=...)`: an INVALID example's expected fixed source stated as the change it makes.

The derived `fixed` must be exactly the source with each `old` replaced, a missing or ambiguous
`old` must stop the example from being built (naming where it is written), and a wrong `new`
must fail the rule-example harness like a wrong `fixed=` does.
"""

import pytest

import test_rule_examples as harness
from hybridlint.rules import ALL_RULES, Invalid, Valid
from hybridlint.rules.base import invalid_table, returns, valid_table
from hybridlint.rules._examples import apply_fix, net, net_xy

INPLACE = next(rule for rule in ALL_RULES if rule.code == "HL004")
CODE = net_xy("z = F.relu(x)\nz += y\nreturn z")


def test_a_pair_replaces_its_old_text_and_keeps_everything_else():
    example = Invalid(CODE, line=4, fix=("z += y", "z = z + y"))
    assert example.fixed == net_xy("z = F.relu(x)\nz = z + y\nreturn z")
    assert example.fix == (("z += y", "z = z + y"),)


def test_pairs_apply_in_order_each_to_the_source_as_it_stands():
    # the second `old` exists only after the first replacement
    fixed = apply_fix(CODE, [("z += y", "w = z + y"), ("return z", "return w")])
    assert fixed == net_xy("z = F.relu(x)\nw = z + y\nreturn w")


def test_lines_after_the_first_continue_at_the_indentation_of_old():
    code = net("if x.shape[0]:\n    y = x\nelse:\n    y = -x\nreturn y")
    fixed = apply_fix(code, [("y = -x", "z = -x\ny = z"), ("if x.shape[0]:\n    y = x\n", "")])
    assert fixed == net("else:\n    z = -x\n    y = z\nreturn y")


@pytest.mark.parametrize(
    "old, count",
    [("z -= y", 0), ("F.relu", 1), ("z = ", 1), ("return z", 1), ("z", 3), (" y\n", 1)],
)
def test_old_must_occur_exactly_once(old, count):
    if count == 1:
        assert apply_fix(CODE, (old, old)) == CODE
        return
    with pytest.raises(ValueError, match=f"occurs {count} times") as raised:
        Invalid(CODE, line=4, fix=(old, "w"))
    # the message says where the example is written: this file and the line of Invalid(...)
    assert "tests/test_example_fix.py:" in str(raised.value)


def test_a_deleted_line_takes_its_line_break_and_an_empty_line_stays_empty():
    code = net("y = F.relu(x)\nz = y * 2\nreturn z")
    assert apply_fix(code, ("z = y * 2\n", "")) == net("y = F.relu(x)\nreturn z")
    head = "import mxnet as mx\n\n\n"
    added = apply_fix(net("return x", head=head), ("return x", "y = x\n\nreturn y"))
    assert added == head + net("y = x\nreturn y").replace("        return", "\n        return")


def test_a_multi_line_old_counts_only_at_its_own_indentation():
    code = net("if x:\n    a = 1\n    b = 2\na = 1\nb = 2\nreturn a + b")
    with pytest.raises(ValueError, match="occurs 2 times"):
        apply_fix(code, ("a = 1", "a = 3"))
    once = apply_fix(code, ("a = 1\nb = 2\nreturn", "return"))
    assert once == net("if x:\n    a = 1\n    b = 2\nreturn a + b")


def test_fixed_and_fix_together_or_an_empty_old_are_refused():
    with pytest.raises(ValueError, match="both fixed= and fix="):
        Invalid(CODE, fixed=CODE, fix=("z += y", "z = z + y"))
    with pytest.raises(ValueError, match="empty `old`"):
        Invalid(CODE, fix=("", "z"))


def test_a_wrong_new_fails_the_rule_example_harness():
    right = Invalid(CODE, line=4, fix=("z += y", "z = z + y"), safety="safe")
    harness.test_invalid_example_is_reported_and_fixed(INPLACE, right)
    wrong = Invalid(CODE, line=4, fix=("z += y", "z = y + z"), safety="safe")
    with pytest.raises(AssertionError):
        harness.test_invalid_example_is_reported_and_fixed(INPLACE, wrong)


def test_a_table_row_is_the_keyword_example_it_stands_for():
    table = invalid_table(
        net_xy,
        ("z = F.relu(x)\nz += y\nreturn z", 4, ("z += y", "z = z + y"), "safe"),
        ("x += y\nreturn x", 3),
        Invalid("class Net(HybridBlock):\n    pass\n", line=2),
    )
    assert table == [
        Invalid(CODE, line=4, fix=("z += y", "z = z + y"), safety="safe"),
        Invalid(net_xy("x += y\nreturn x"), line=3),
        Invalid("class Net(HybridBlock):\n    pass\n", line=2),
    ]
    assert table[1].fixed is None and table[1].safety is None


def test_a_table_row_whose_old_is_missing_is_named_by_its_body():
    with pytest.raises(ValueError, match=r"occurs 0 times(.|\n)*row 2 of the table: 'return y'"):
        invalid_table(net, ("return x", 3), ("return y", 3, ("z", "F.relu(z)"), "safe"))


def test_a_returns_row_states_the_returned_expression_once():
    row = returns("x.T", "F.transpose(x)", "safe")
    assert invalid_table(net, row) == [
        Invalid(net("return x.T"), line=3, fix=("x.T", "F.transpose(x)"), safety="safe")
    ]


def test_a_valid_table_row_is_the_valid_example_of_its_body():
    other = Valid("class Net(HybridBlock):\n    pass\n")
    assert valid_table(net, "return x", other) == [Valid(net("return x")), other]
