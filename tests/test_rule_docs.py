"""`hybridlint rule CODE` fits a screen or two and tells a user the five beats (ruff's: what it
does, why it breaks, an example, the fix, its safety), in that order, without naming the
project's internal modules (those belong in docs/)."""

import re

import pytest
from click.testing import CliRunner

from hybridlint.cli import cli
from hybridlint.reporters import rule_catalog
from hybridlint.rules import ALL_RULES
from hybridlint.ruledoc import BEATS, MAX_LINES, page, split

INTERNAL = re.compile(r"(?<![\w/])(rules|hybridlint|tests|engine|benchmarks)/|\b\w+\.py\b")


@pytest.mark.parametrize("rule", [pytest.param(r, id=r.code) for r in ALL_RULES])
def test_rule_page_has_the_five_beats_in_order_within_two_screens(rule):
    text = page(rule.code, rule.name, rule.message, rule.explanation)
    titles = re.findall(r"^## (.+)$", text, flags=re.M)
    assert titles == list(BEATS), rule.code
    for title in BEATS:
        body = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.M | re.S)
        assert body and body.group(1).strip(), (rule.code, title)
    assert "```python" in text, "the example is code"
    assert len(text.splitlines()) <= MAX_LINES, f"{rule.code}: {len(text.splitlines())} lines"
    assert not INTERNAL.findall(text), f"{rule.code} names internals: {INTERNAL.findall(text)}"


def test_sections_after_the_beats_are_named_and_printed_with_details():
    explanation = "## What it does\na\n## Fix safety\nb\n## Catalogue\nc\n## More\nd\n"
    beats, rest = split(explanation)
    assert beats == "## What it does\na\n## Fix safety\nb\n" and rest == ["Catalogue", "More"]
    short = page("HL0XX", "n", "m", explanation)
    assert "\nc\n" not in short and "`hybridlint rule HL0XX --details`: Catalogue; More." in short
    assert page("HL0XX", "n", "m", explanation, details=True).endswith("## More\nd\n")


def test_rule_command_prints_the_page_and_details_on_request():
    runner = CliRunner()
    code = next(c for c, (_, _, e) in rule_catalog().items() if split(e)[1])
    short = runner.invoke(cli, ["rule", code.lower()])
    full = runner.invoke(cli, ["rule", code, "--details"])
    assert short.exit_code == 0 and full.exit_code == 0
    assert short.output == page(code, *rule_catalog()[code])
    assert len(full.output) > len(short.output) and "\nMore in `hybridlint" not in full.output
