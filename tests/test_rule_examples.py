"""Runs every rule's VALID / INVALID examples (the examples live beside each rule's code)."""

import ast

import pytest

from hybridlint.linter import fix_source, lint_source
from hybridlint.rules import ALL_RULES

VALID_CASES = [
    pytest.param(rule, example, id=f"{rule.code}-valid-{i}")
    for rule in ALL_RULES
    for i, example in enumerate(rule.VALID)
]
INVALID_CASES = [
    pytest.param(rule, example, id=f"{rule.code}-invalid-{i}")
    for rule in ALL_RULES
    for i, example in enumerate(rule.INVALID)
]


def test_rules_are_in_code_order_with_unique_codes_and_docs():
    codes = [rule.code for rule in ALL_RULES]
    assert codes == sorted(codes) and len(set(codes)) == len(codes)
    for rule in ALL_RULES:
        assert rule.name and rule.message
        for section in (
            "## What it does",
            "## Why it breaks under hybridize",
            "## Example",
            "## Fix",
            "## Fix safety",
        ):
            assert section in rule.explanation, (rule.code, section)
        assert rule.VALID and rule.INVALID, rule.code


@pytest.mark.parametrize("rule, example", VALID_CASES)
def test_valid_example_has_no_finding(rule, example):
    findings = lint_source(example.code, rules=[rule])
    assert findings == []


@pytest.mark.parametrize("rule, example", INVALID_CASES)
def test_invalid_example_is_reported_and_fixed(rule, example):
    findings = lint_source(example.code, rules=[rule])
    assert findings, "expected a finding"
    first = findings[0]
    assert (first.code, first.line) == (rule.code, example.line)
    assert first.fix == example.safety
    result = fix_source(example.code, rules=[rule], unsafe=True)
    if example.fixed is None:
        assert result.source == example.code
        return
    assert result.source == example.fixed
    ast.parse(result.source)
    again = fix_source(result.source, rules=[rule], unsafe=True)
    assert again.source == result.source, "fixing twice changed the source"
    assert not any(f.fix for f in again.remaining), "a fixable finding is left after fixing"
