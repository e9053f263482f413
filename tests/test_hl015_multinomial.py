"""HL015's `F.random.multinomial` without `get_prob=`: mx.nd's default is one array, mx.sym's a
Symbol of two outputs (MXNet 1.9.1). The fix passes mx.nd's default; it is unsafe where the
code reads the result by index or unpacking, since hybridized that may mean the second output."""

import pytest

from hybridlint.linter import fix_source, lint_source
from hybridlint.rules._examples import net as _net


@pytest.mark.parametrize(
    "body, safety",
    [
        ("return F.random.multinomial(F.softmax(x)) + 1", "safe"),
        ("idx = F.random.multinomial(F.softmax(x))\nreturn idx.expand_dims(axis=-1)", "safe"),
        ("s = F.random.multinomial(F.softmax(x))\nreturn s[0]", "unsafe"),
        ("return F.random.multinomial(F.softmax(x))[1]", "unsafe"),
        ("s, p = F.random.multinomial(F.softmax(x))\nreturn s", "unsafe"),
        ("s = F.random.multinomial(F.softmax(x))\na, b = s\nreturn a", "unsafe"),
        ("return F.stack(*[t for t in F.random.multinomial(F.softmax(x))])", "unsafe"),
        ("s = F.random.multinomial(F.softmax(x))\nfor t in s:\n    x = x + t\nreturn x", "unsafe"),
    ],
)
def test_the_fix_is_unsafe_where_the_result_is_read_by_index(body, safety):
    [finding] = [f for f in lint_source(_net(body)) if f.code == "HL015"]
    assert "get_prob" in finding.message
    assert finding.fix == safety


@pytest.mark.parametrize(
    "call",
    [
        "F.random.multinomial(F.softmax(x), get_prob=False)",
        "F.random.multinomial(F.softmax(x), (2,), True)",
        "F.random.multinomial(*args)",
    ],
)
def test_a_call_that_says_get_prob_is_not_reported(call):
    assert not [f for f in lint_source(_net(f"args = [x]\nreturn {call}")) if f.code == "HL015"]


def test_the_fix_passes_mx_nds_default():
    fixed = fix_source(_net("return F.random.multinomial(F.softmax(x), (3,)) + 1")).source
    assert "F.random.multinomial(F.softmax(x), (3,), get_prob=False) + 1" in fixed
