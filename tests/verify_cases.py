"""Shared by the testdata/verify tests: the cases, their examples, running --fix --verify."""

import os
import re
import shutil

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

from tests.checker_support import ROOT

VERIFY_DATA = os.path.join(ROOT, "testdata", "verify")
NOTE = re.compile(r"^  (\S+?):(\d+):\d+: (HL\d{3}) fix (.*)$")


def load(name):
    with open(os.path.join(VERIFY_DATA, name), "rb") as handle:
        return tomllib.load(handle)


EXAMPLES = load("examples.toml")["examples"]
EXPECTED = load("expected.toml")
CASES = sorted(EXPECTED)


def examples_of(case):
    """The [tool.hybridlint.examples] entries of one case file."""
    return {k: v for k, v in EXAMPLES.items() if k.split("::")[0] == f"{case}.py"}


def project(tmp_path, case):
    """A project folder with the case file and a pyproject.toml holding its examples."""
    shutil.copy(os.path.join(VERIFY_DATA, f"{case}.py"), tmp_path / f"{case}.py")
    lines = ["[tool.hybridlint.examples]"]
    for key, value in examples_of(case).items():
        lines.append(f'"{key}" = {toml_value(value)}')
    (tmp_path / "pyproject.toml").write_text("\n".join(lines) + "\n")
    return tmp_path / f"{case}.py"


def toml_value(value):
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def verdict(detail):
    for prefix, name in (
        ("proven by example", "proven"),
        ("proven eagerly", "proven-eager"),
        ("proven at expression level", "expression-level"),
        ("not applied", "not-applied"),
        ("rejected", "rejected"),
    ):
        if detail.startswith(prefix):
            return name
    return detail


def proofs(stderr):
    """{"CODE:LINE verdict", ...} from the per-fix lines --verify prints."""
    found = set()
    for line in stderr.splitlines():
        match = NOTE.match(line)
        if match:
            found.add(f"{match.group(3)}:{match.group(2)} {verdict(match.group(4))}")
    return found
