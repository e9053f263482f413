"""`hybridlint rule HL90x` pages: each says more than its one-line message (blind round 14:
`hybridlint rule HL903 --details` printed the message twice), and HL903's example
configuration is one the checker reads."""

import re

import pytest

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

from hybridlint.checker.inputs import examples_from_config
from hybridlint.ftypes import RUNNER_CODES
from hybridlint.reporters import rule_catalog
from hybridlint.runner_docs import EXPLANATIONS


@pytest.mark.parametrize("code", sorted(RUNNER_CODES))
def test_every_runner_code_has_a_page_of_its_own(code):
    name, message, explanation = rule_catalog()[code]
    assert explanation != message and explanation.startswith("## What it does")


def test_hl903_example_configuration_is_read_by_the_checker():
    toml = re.search(r"```toml\n(.*?)```", EXPLANATIONS["HL903"], re.S).group(1)
    table = tomllib.loads(toml)["tool"]["hybridlint"]["examples"]
    examples = examples_from_config(table)
    assert sum(len(v) for v in examples.values()) == 3
