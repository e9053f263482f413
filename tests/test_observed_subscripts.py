"""Which subscripts a trace-observed HL003 (indexing a single-output Symbol) rewrites."""

from types import SimpleNamespace

from hybridlint.checker.observed import observed_fixes

SOURCE = """\
def hybrid_forward(self, F, x, seq):
    n = len(seq[0])
    return x[0] + n
"""


def _seen(line: int, index: str) -> SimpleNamespace:
    finding = SimpleNamespace(
        path="m.py",
        line=line,
        code="HL003",
        message=f"indexing a Symbol with {index} selects an output of the Symbol, not a slice",
    )
    return SimpleNamespace(status="mismatch", error_message="", runtime_findings=[finding])


def test_an_observed_subscript_becomes_a_fix():
    findings, plan = observed_fixes(SOURCE, "m.py", [_seen(3, "0")])
    assert [(f.code, f.line, f.col) for f in findings] == [("HL003", 3, 12)]
    assert plan == {(3, "HL003"): ["0"]}


def test_a_subscript_measured_by_len_is_left_as_it_is():
    # `len(seq[0])` has no number under hybridize whatever the index's form (HL009)
    findings, _ = observed_fixes(SOURCE, "m.py", [_seen(2, "0")])
    assert findings == []
