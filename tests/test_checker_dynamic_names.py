"""The checker's run-time findings carry the rules' own names without importing the linter.

The worker turns hybridize failures into findings (hybridlint/checker/dynamic.py). It must not
import LibCST and the rules for that (each new worker would pay ~0.7 s of CPU), so the names
come from ``dynamic.RULE_NAMES``: these tests keep that table true to the rules."""

import re
import subprocess
import sys
import textwrap
from pathlib import Path

from hybridlint.checker import dynamic
from hybridlint.rules import ALL_RULES


def test_rule_names_are_the_rules_own():
    names = {rule.code: rule.name for rule in ALL_RULES}
    assert dynamic.RULE_NAMES == {code: names[code] for code in dynamic.RULE_NAMES}


def test_every_code_the_worker_records_has_a_name():
    source = Path(dynamic.__file__).read_text()
    recorded = set(re.findall(r'events\.add\(\s*"(HL\d{3})"', source))
    assert recorded and recorded <= set(dynamic.RULE_NAMES)


def test_findings_are_made_without_the_linter():
    script = textwrap.dedent("""
        import sys
        from hybridlint.checker.dynamic import TraceEvents, to_findings
        from hybridlint.checker.report import SourceLine
        events = TraceEvents({"net.py"})
        events.add("HL003", "x[0] on a Symbol", SourceLine("net.py", 3, "    return x[0]\\n"))
        (finding,) = to_findings(events)
        print(finding.code, finding.name, finding.col, finding.end_col)
        print(sorted(m for m in ("libcst", "hybridlint.linter", "hybridlint.rules")
                     if m in sys.modules))
    """)
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["HL003 tensor-indexing 5 16", "[]"]
