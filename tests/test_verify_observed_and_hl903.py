"""Which subscripts a trace-observed HL003 rewrites, and how failing examples group into HL903."""

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


def test_examples_failing_alike_up_to_numbers_make_one_hl903():
    from hybridlint.checker_bridge import _still_fails

    def failed(node: str, size: int, line: int = 3) -> SimpleNamespace:
        return SimpleNamespace(
            source_line=SimpleNamespace(filename="m.py", lineno=line),
            reason=f"hybridize failed: Error in operator {node}_split0 ({size} vs 1)",
            status="hybrid_error",
        )

    found = _still_fails(
        "m.py",
        [("Net#1", failed("net2", 4)), ("Net#2", failed("net5", 6)), ("Net#3", failed("n", 1, 2))],
        SOURCE,
    )
    assert [(f.line, f.message.split(" after")[0]) for f in found] == [
        (3, "Net#1, Net#2 still fail with their examples"),
        (2, "Net#3 still fails with its example"),
    ]
    assert found[0].message.endswith("net2_split0 (4 vs 1) (as Net#1 reports it)")


def test_an_original_that_fails_eagerly_is_not_said_to_still_fail():
    """Blind round 12 (MaskFlowNet-DAM's CorrBlock): the engine refused a `stack` real MXNet
    runs, so the original failed eagerly on its example; HL903 said the block "still fails
    ... after --verify" though no fix was involved. It now says the example cannot run."""
    from hybridlint.checker_bridge import _still_fails

    report = SimpleNamespace(
        source_line=SimpleNamespace(filename="m.py", lineno=3),
        reason="eager failed: MXNetError: Error in operator stack: ...",
        status="eager_error",
    )
    (found,) = _still_fails("m.py", [("Net", report)], SOURCE)
    assert found.code == "HL903" and found.line == 3
    assert found.message.startswith("Net cannot run its example: the original block fails eagerly")
    assert "still fails" not in found.message and "--backend mxnet" in found.message
