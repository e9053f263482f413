"""Honest `--verify` output (issue 20 item 6): the summary offers only the fixes the same
command would apply, the proven result is wrapped as `--fix` wraps, the stderr notes are
readable on a terminal, and `--backend mxnet` without MXNet is one error for the run."""

import importlib.util
import json
import os
import pty
import re
import subprocess
import sys
import textwrap
from dataclasses import replace
from types import SimpleNamespace

import pytest
from cli_support import invoke, read_pty

from hybridlint import checker_bridge
from hybridlint.cli import verification_note
from hybridlint.ftypes import FileOutcome, Finding, RunResult
from hybridlint.reporters import ReportContext
from hybridlint.reporters.text import summary
from hybridlint.wrap import wrap_fixed_lines_mapped

HAVE_MXNET = importlib.util.find_spec("mxnet") is not None

# Two safe HL003 fixes on a line whose block still fails hybridized (HL008, `if` on a tensor):
# the failure is at a line the fixes touched, so the checker cannot prove them.
UNPROVABLE = textwrap.dedent("""\
    from mxnet import gluon


    class Pick(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            y = x[0] if x.sum() > 0 else x[1]
            return y
""")
UNPROVABLE_EXAMPLES = '"net.py::Pick" = { inputs = [[2, 3]] }\n'

# Two HL007 fixes that lengthen line 10 past a line length of 60.
SCALE = textwrap.dedent("""\
    from mxnet import gluon


    class Scale(gluon.HybridBlock):
        def __init__(self, channels, **kwargs):
            super().__init__(**kwargs)
            self.gamma = self.params.get("gamma", shape=(1, channels), init="ones")

        def hybrid_forward(self, F, x, gamma):
            return F.relu(x * gamma), F.sigmoid(x * gamma)
""")
SCALE_EXAMPLES = '"net.py::Scale" = { kwargs = { channels = 3 }, inputs = [[2, 3]] }\n'


def project(tmp_path, source, examples, settings=""):
    (tmp_path / "net.py").write_text(source)
    (tmp_path / "pyproject.toml").write_text(
        f"[tool.hybridlint]\n{settings}\n[tool.hybridlint.examples]\n{examples}"
    )
    return tmp_path


def cli_process(args, cwd, stderr=subprocess.PIPE, env=None):
    full_env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "HYBRIDLINT_DEBUG")}
    full_env.update(env or {})
    return subprocess.Popen(
        [sys.executable, "-m", "hybridlint", *args],
        cwd=cwd,
        env=full_env,
        stdout=subprocess.PIPE,
        stderr=stderr,
    )


# (a) the summary ---------------------------------------------------------------------------


def test_fixes_verify_left_out_are_not_offered_as_fixable(tmp_path, monkeypatch):
    monkeypatch.chdir(project(tmp_path, UNPROVABLE, UNPROVABLE_EXAMPLES))
    result = invoke("--fix", "--verify", "--no-cache", "net.py")
    assert result.exit_code == 1, result.output
    assert (tmp_path / "net.py").read_text() == UNPROVABLE  # nothing proven, nothing written
    lines = result.stdout.splitlines()
    hl003 = [line for line in lines if " HL003 " in line]
    assert len(hl003) == 2 and all("(fix not applied: " in line for line in hl003)
    assert not [line for line in lines if "[*]" in line]
    # how many fix sets the checker tried is its business; the summary offers none of them
    assert re.fullmatch(
        r"Found 4 findings in 1 file\. (1 fix|[2-9] fixes) not applied: "
        r"the equivalence checker could not prove (it|them)\.",
        lines[-1],
    ), lines[-1]

    document = json.loads(invoke("--fix", "--verify", "--format", "json", "net.py").stdout)
    assert document["summary"]["fixable"] == 0
    found = [f for f in document["findings"] if f["code"] == "HL003"]
    assert [(f["fix"], f["fixable"]) for f in found] == [("safe", False), ("safe", False)]


# HL002 and HL005 offer one bincount rewrite; fractional labels make it change the outputs
CENTER_LOSS = textwrap.dedent("""\
    import numpy as np
    from mxnet import gluon


    class CenterLoss(gluon.HybridBlock):
        def hybrid_forward(self, F, feature, label):
            hist = F.array(np.bincount(label.asnumpy().astype(int)))
            count = F.take(hist, label)
            return F.sum(F.square(feature), 1) / count
""")
CENTER_LOSS_EXAMPLES = (
    '"net.py::CenterLoss" = { inputs = [[6, 3], { value = [0.0, 1.2, 1.0, 3.0, 0.0, 0.4] }] }\n'
)


def test_a_refused_fix_is_refused_under_every_code_offering_it(tmp_path, monkeypatch):
    monkeypatch.chdir(project(tmp_path, CENTER_LOSS, CENTER_LOSS_EXAMPLES))
    result = invoke("--fix", "--verify", "--unsafe-fixes", "--no-cache", "net.py")
    assert result.exit_code == 1, result.output
    assert (tmp_path / "net.py").read_text() == CENTER_LOSS
    lines = result.stdout.splitlines()
    offered = [line for line in lines if " HL002 " in line or " HL005 " in line]
    assert len(offered) == 2 and all("(fix not applied: " in line for line in offered), offered
    assert "fixable" not in lines[-1], lines[-1]


def test_diff_verify_summary_counts_what_it_left_out(tmp_path, monkeypatch):
    monkeypatch.chdir(project(tmp_path, UNPROVABLE, UNPROVABLE_EXAMPLES))
    result = invoke("--diff", "--verify", "net.py")
    assert result.stdout == ""
    assert re.fullmatch(
        r"No fixes to apply\. (1 fix|[2-9] fixes) left out: "
        r"the equivalence checker could not prove (it|them)\.",
        result.stderr.splitlines()[-1],
    ), result.stderr


def _finding(fix="safe", cls=Finding):
    return cls("HL003", "tensor-indexing", "indexing", 6, 13, 6, 17, fix, "net.py")


def test_summary_counts_what_the_same_command_would_fix():
    unproven = checker_bridge._unproven(_finding(), "the example's outputs differ")
    assert isinstance(unproven, checker_bridge.UnprovenFinding)
    assert unproven.fix == "safe" and not unproven.fixable(True)
    assert unproven.message == "indexing (fix not applied: the example's outputs differ)"
    revealed = _finding()  # still fixable after --fix --verify: the next run would try it
    run = RunResult([FileOutcome("net.py", [unproven, revealed], fixed=1, rejected=1)], 1)
    assert summary(run, ReportContext(fix_mode=True, verify=True)) == (
        "Fixed 1 finding. Found 2 findings in 1 file. "
        "[*] 1 fixable with `hybridlint --fix --verify`. "
        "1 fix not applied: the equivalence checker could not prove it."
    )
    unsafe = checker_bridge._unproven(_finding("unsafe"), "no example ran it")
    run = RunResult([FileOutcome("net.py", [unsafe], rejected=1)], 1)
    assert summary(run, ReportContext(fix_mode=True, verify=True)) == (
        "Found 1 finding in 1 file. 1 fix not applied: the equivalence checker could not prove it."
    )


# (b) wrapping ------------------------------------------------------------------------------


def test_verified_fixes_are_wrapped_as_plain_fix_wraps_them(tmp_path, monkeypatch):
    monkeypatch.chdir(project(tmp_path, SCALE, SCALE_EXAMPLES, "line-length = 60"))
    result = invoke("--fix", "--verify", "net.py")
    assert result.exit_code == 0, result.output
    verified = (tmp_path / "net.py").read_text()
    assert result.stderr.count("fix proven by example Scale") == 2  # one note a fix
    assert "F.broadcast_mul(x, gamma)" in verified
    assert max(len(line) for line in verified.splitlines()[8:]) <= 60
    (tmp_path / "net.py").write_text(SCALE)
    # x only meets arithmetic (it may be a number eagerly): its HL007 fix is unsafe
    assert invoke("--fix", "--unsafe-fixes", "net.py").exit_code == 0
    assert verified == (tmp_path / "net.py").read_text()  # byte for byte what --fix writes


def test_findings_move_with_the_lines_wrapping_breaks(monkeypatch):
    original = "def f(F, x, y):\n    return x[0], y[1] + x, len(x)\n"
    proven = (
        "def f(F, x, y):\n"
        "    return F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1)), y[1] + x, len(x)\n"
    )
    line = proven.splitlines()[1]
    at, end = line.index("y[1]") + 1, line.index("len(x)") + 1
    rejected = Finding("HL003", "tensor-indexing", "indexing", 2, at, 2, at + 4, "safe", "m.py")
    no_fix = Finding("HL009", "len", "len of a Symbol", 2, end, 2, end + 6, None, "m.py")
    outcome = SimpleNamespace(
        source=proven,
        applied=[Finding("HL003", "tensor-indexing", "indexing", 2, 12, 2, 16, "safe", "m.py")],
        rejected=[SimpleNamespace(finding=rejected, reason="not run")],
        remaining=[rejected, no_fix],
        runtime_findings=[],
        proofs=[],
        labels=[],
        reports=[],
        status="verified",
        reason=None,
    )
    fake = SimpleNamespace(verify_fixes=lambda *args, **kwargs: outcome)
    monkeypatch.setattr(checker_bridge, "load_checker", lambda: fake)
    unwrapped = checker_bridge.verify_file(original, "m.py", ("HL003",), [], unsafe=False)
    assert unwrapped.source == proven
    verified = checker_bridge.verify_file(
        original, "m.py", ("HL003",), [], unsafe=False, line_length=60
    )
    assert verified.source == (
        "def f(F, x, y):\n"
        "    return (\n"
        "        F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1)),\n"
        "        y[1] + x,\n"
        "        len(x),\n"
        "    )\n"
    )
    lines = verified.source.splitlines()
    texts = [lines[f.line - 1][f.col - 1 : f.end_col - 1] for f in verified.findings]
    assert texts == ["y[1]", "len(x)"]
    assert [f.line for f in verified.findings] == [4, 5]
    assert isinstance(verified.findings[0], checker_bridge.UnprovenFinding)


def test_position_map_past_a_broken_line():
    before = "a = 1\nz = x + y\nb = 2\n"
    after = "a = 1\nz = F.broadcast_add(xxxxxxxxxxxxxxxx, yyyyyyyyyyyyyyyyyy)\nb = 2\n"
    wrapped, where = wrap_fixed_lines_mapped(before, after, 30)
    assert wrapped.count("\n") > after.count("\n")
    assert where.position(1, 1) == (1, 1)
    last = wrapped.splitlines().index("b = 2") + 1
    assert where.position(3, 5) == (last, 5)
    line, col = where.position(2, after.splitlines()[1].index("yyy") + 1)
    assert wrapped.splitlines()[line - 1][col - 1 :].startswith("yyy")


def test_verification_note_wraps_only_with_a_width():
    note = "net.py:6:13: HL003 fix rejected: " + "a fairly long reason " * 8
    assert verification_note(note, None) == "  " + note
    wrapped = verification_note(note, 50).split("\n")
    assert wrapped[0].startswith("  net.py:6:13: HL003 fix rejected:")
    assert all(len(line) <= 50 for line in wrapped)
    assert all(line.startswith("      ") for line in wrapped[1:])
    assert " ".join(part.strip() for part in wrapped) == note.strip()


def test_verify_notes_are_wrapped_on_a_terminal_and_one_line_piped(tmp_path):
    project(tmp_path, UNPROVABLE, UNPROVABLE_EXAMPLES)
    master, slave = pty.openpty()
    proc = cli_process(["--diff", "--verify", "net.py"], tmp_path, slave, {"COLUMNS": "72"})
    os.close(slave)
    output = read_pty(master)
    proc.communicate(timeout=120)
    os.close(master)
    on_terminal = output.decode().replace("\r\n", "\n").splitlines()
    notes = on_terminal[1:-1]  # between the header and the summary
    assert on_terminal[0] == "verify net.py:"
    assert notes and all(len(line) <= 72 for line in notes)
    assert any(line.startswith("      ") for line in notes)  # continuation lines
    piped = subprocess.run(
        [sys.executable, "-m", "hybridlint", "--diff", "--verify", "net.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    piped_notes = [line for line in piped.stderr.splitlines() if line.startswith("  net.py:6:")]
    assert len(piped_notes) == 2 and all(len(line) > 72 for line in piped_notes)


# (c) --backend mxnet without MXNet ---------------------------------------------------------


@pytest.mark.skipif(HAVE_MXNET, reason="real MXNet is installed here")
def test_backend_mxnet_without_mxnet_is_one_error_for_the_run(tmp_path):
    examples = ""
    for index in range(3):
        (tmp_path / f"net{index}.py").write_text(UNPROVABLE)
        examples += UNPROVABLE_EXAMPLES.replace("net.py", f"net{index}.py")
    project(tmp_path, UNPROVABLE, examples)
    proc = cli_process(["--fix", "--verify", "--backend", "mxnet", "."], tmp_path)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert out == b""
    assert err.decode().splitlines() == [
        "hybridlint: error: --backend mxnet: cannot import mxnet (No module named 'mxnet'); "
        "install MXNet 1.9.1 (pip install 'mxnet==1.9.1') or use the bundled engine "
        "(--backend engine, the default)"
    ]
    assert all(path.read_text() == UNPROVABLE for path in tmp_path.glob("net*.py"))


def test_places_named_in_messages_and_notes_move_with_wrapping(monkeypatch):
    # the checker saw the unwrapped text: "line 3" there is "line 7" once line 2 is broken
    original, fake = _wrapped_outcome("m.py")
    monkeypatch.setattr(checker_bridge, "load_checker", lambda: fake)
    verified = checker_bridge.verify_file(
        original, "m.py", ("HL003",), [], unsafe=False, line_length=40
    )
    lines = verified.source.splitlines()
    moved = lines.index("    return z.asnumpy()") + 1
    assert moved > 3
    still = [f for f in verified.findings if f.message.startswith("f still fails: (at")]
    assert [f.line for f in still] == [moved]
    assert still[0].message == f"f still fails: (at m.py:{moved}: return z.asnumpy())"
    where = wrap_fixed_lines_mapped(original, fake.verify_fixes().source, 40)[1]
    # a place the final run reported moves; bare line numbers are not read as places
    note = "m.py::f: still fails: (at m.py:3: return z.asnumpy()), at line 3"
    assert checker_bridge._moved_lines(note, "m.py", where) == (
        f"m.py::f: still fails: (at m.py:{moved}: return z.asnumpy()), at line 3"
    )


def _wrapped_outcome(path):
    """A proven fix whose line --verify breaks (line 3 of the unwrapped text moves down),
    with its proof note and a remaining finding whose message names line 3."""
    original = "def f(F, x, y):\n    z = x[0] + y\n    return z.asnumpy()\n"
    proven = (
        "def f(F, x, y):\n"
        "    z = F.broadcast_add(F.squeeze(F.slice_axis(x, axis=0, begin=0, end=1)), y)\n"
        "    return z.asnumpy()\n"
    )
    fixed = Finding("HL003", "tensor-indexing", "indexing", 2, 9, 2, 13, "safe", path)
    still = Finding(
        "HL903", "still-fails", f"f still fails: (at {path}:3: return z.asnumpy())", 3, 5, 3, 23,
        None, path,
    )  # fmt: skip
    outcome = SimpleNamespace(
        source=proven,
        applied=[fixed],
        rejected=[],
        remaining=[still],
        runtime_findings=[],
        proofs=[SimpleNamespace(finding=replace(fixed, line=3, col=5), detail="proven")],
        labels=["f"],
        reports=[
            SimpleNamespace(
                ok=False,
                status="hybrid_error",
                reason=f"hybridize failed (at {path}:3: return z.asnumpy())",
                source_line=None,
            )
        ],
        status="verified",
        reason=None,
    )
    return original, SimpleNamespace(verify_fixes=lambda *args, **kwargs: outcome)


def test_a_windows_path_note_moves_with_wrapping(monkeypatch):
    # the note's own place (`C:\w\m.py:3:5`) is found by the file's path, not by the text
    # before the note's first colon (the drive letter)
    path = "C:\\w\\m.py"
    original, fake = _wrapped_outcome(path)
    monkeypatch.setattr(checker_bridge, "load_checker", lambda: fake)
    verified = checker_bridge.verify_file(
        original, path, ("HL003",), [], unsafe=False, line_length=40
    )
    moved = verified.source.splitlines().index("    return z.asnumpy()") + 1
    assert moved > 3
    # the proof note names the fix's place in the original file: it stays
    assert verified.notes[0] == f"{path}:3:5: HL003 fix proven"
    assert verified.notes[1] == (
        f"{path}::f: still fails: hybridize failed (at {path}:{moved}: return z.asnumpy())"
    )
    assert f"(at {path}:{moved}: return z.asnumpy())" in verified.findings[-1].message


@pytest.mark.parametrize("other", ["am.py", "gluon/m.py", "gluon\\m.py", "m.py.bak"])
def test_another_files_place_does_not_move(other):
    # `am.py:3` or MXNet's `gluon/m.py:3` is not line 3 of m.py
    original, fake = _wrapped_outcome("m.py")
    where = wrap_fixed_lines_mapped(original, fake.verify_fixes().source, 40)[1]
    text = f"m.py:3:5: raised in {other}:3:1 (at m.py:3)"
    moved = where.position(3, 1)[0]
    assert checker_bridge._moved_lines(text, "m.py", where) == (
        f"m.py:{moved}:5: raised in {other}:3:1 (at m.py:{moved})"
    )


def test_a_proof_notes_elsewhere_line_moves_and_its_own_place_stays(monkeypatch):
    # "still fails hybridized elsewhere, at line 3" names the final text's line 3, which
    # wrapping moves; the note's own place (the fix in the original file) does not move
    original, fake = _wrapped_outcome("m.py")
    outcome = fake.verify_fixes()
    outcome.proofs[
        0
    ].detail = "proven eagerly by example f; the block still fails hybridized elsewhere, at line 3"
    monkeypatch.setattr(checker_bridge, "load_checker", lambda: fake)
    verified = checker_bridge.verify_file(
        original, "m.py", ("HL003",), [], unsafe=False, line_length=40
    )
    moved = verified.source.splitlines().index("    return z.asnumpy()") + 1
    assert verified.notes[0] == (
        "m.py:3:5: HL003 fix proven eagerly by example f; the block still fails hybridized "
        f"elsewhere, at line {moved}"
    )


def test_verify_notes_are_at_the_lines_of_the_written_file():
    """A blind test's ReshapeChannel: the removed `from mxnet import nd` moved every line up
    one, and the notes said `net.py:15:7: HL011 fix rejected` over the findings printed at
    `net.py:14:7` (the written file's line) for the same code."""
    from hybridlint.runner import _notes_at_written_lines

    before = "from mxnet import nd\nimport os\n\n\ndef f(x):\n    a = x[0]\n    return nd.relu(a)\n"
    after = "import os\n\n\ndef f(x):\n    a = F.squeeze(\n        x)\n    return nd.relu(a)\n"
    notes = [
        "net.py:6:9: HL003 fix rejected: ...",  # a line the fixes rewrote: its rewrite's first
        "net.py:7:12: HL006 fix rejected ...",  # a line kept, moved by the removed import
        "net.py::Net: still fails: ... (at net.py:6: a = x[0])",  # a block's note: as it is
        "other.py:7:1: HL006 ...",  # another file's position
        # the lines a note's text names are moved too (blind round 9: `net.py:110:25: HL003
        # ... at line 107`), not a line of the fixed text (`still fails ... elsewhere`)
        "net.py:2:1: HL006 fix proven at expression level only (no example ran the rewritten "
        "code at line(s) 2, 6): together with HL003 at 6:9: ...; the block still fails "
        "hybridized elsewhere, at line 6",
        "net.py:6:9: HL003 fix not applied: no example ran the rewritten code at line 6 (...)",
    ]
    assert _notes_at_written_lines(notes, "net.py", before, after) == [
        "net.py:5:9: HL003 fix rejected: ...",
        "net.py:7:12: HL006 fix rejected ...",
        "net.py::Net: still fails: ... (at net.py:6: a = x[0])",
        "other.py:7:1: HL006 ...",
        "net.py:1:1: HL006 fix proven at expression level only (no example ran the rewritten "
        "code at line(s) 1, 5): together with HL003 at 5:9: ...; the block still fails "
        "hybridized elsewhere, at line 6",
        "net.py:5:9: HL003 fix not applied: no example ran the rewritten code at line 5 (...)",
    ]
    assert _notes_at_written_lines(notes, "net.py", before, before) == notes


def test_a_note_on_a_shortened_line_points_where_the_line_changed():
    """Blind round 13 (SPOS's ChannelSelector): lint put HL001 at 24:65 (`x.context`), and the
    note of its fix, which dropped `.as_in_context(x.context)`, said 24:9 (the line's indent,
    the old column being past the written line's end): now the column where it changed."""
    from hybridlint.runner import _notes_at_written_lines

    before = "def f(x, m):\n    x = F.broadcast_mul(x, m.as_in_context(x.context))\n"
    after = "def f(x, m):\n    x = F.broadcast_mul(x, m)\n"
    note = "net.py:2:43: HL001 fix proven by example Net#1"
    [moved] = _notes_at_written_lines([note], "net.py", before, after)
    assert moved == "net.py:2:29: HL001 fix proven by example Net#1"
    assert after.splitlines()[1][28:] == ")"  # the written line's changed spot


def test_a_note_never_says_applied_of_a_fix_the_written_text_lacks():
    """Blind round 9 (reconet's LuminanceLoss): a later pass's fix, misplaced by a line an
    earlier pass removed, was noted "applied unverified" while the written file kept the
    hazard; whatever the cause, a claim of "applied" is checked against the written fixes."""
    from hybridlint.checker.verify import FixProof, _claims_as_written

    written = SimpleNamespace(code="HL006", line=77)
    missing = SimpleNamespace(code="HL007", line=76)
    refused = SimpleNamespace(code="HL001", line=74)
    proofs = [
        FixProof(written, "expression-level", "proven at expression level only (...)"),
        FixProof(missing, "unchecked", "applied unverified, as --fix applies a safe fix (...)"),
        FixProof(refused, "not-run", "not applied: no example ran the rewritten code"),
    ]
    kept = _claims_as_written(proofs, [written], key=lambda f: (f.code, f.line))
    assert [p.verdict for p in kept] == ["expression-level", "not-run", "not-run"]
    assert kept[1].detail.startswith("not applied: the fixes written with it did not reach it")
    assert not kept[1].applied and kept[0].applied
    assert kept[0] is proofs[0] and kept[2] is proofs[2]


# Two asserts on shapes open the body (blind round 11, Gluon-Box's IOULoss): --verify deletes
# them (unsafe HL001 fixes, proven on the example), and the rewritten pick is wrapped.
ASSERTS = textwrap.dedent("""\
    from mxnet import gluon


    class Area(gluon.HybridBlock):
        def hybrid_forward(self, F, boxes, other):
            assert boxes.shape[-1] == 4
            assert boxes.shape == other.shape

            return (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1]) + other.sum()
""")
ASSERTS_EXAMPLES = '"net.py::Area" = { inputs = [[5, 4], [5, 4]] }\n'


def test_a_deleted_assert_is_named_in_its_note_and_leaves_no_blank_line(tmp_path, monkeypatch):
    """The notes of deleted asserts were identical lines at a blank line of the written file;
    each now says which line of the original it deleted, the body no longer starts with the
    blank line that set the asserts apart, and no note points past the end of its line."""
    monkeypatch.chdir(project(tmp_path, ASSERTS, ASSERTS_EXAMPLES, "line-length = 60"))
    result = invoke("--fix", "--verify", "--no-cache", "net.py")
    written = (tmp_path / "net.py").read_text().splitlines()
    assert "assert" not in "\n".join(written)
    body = written.index("    def hybrid_forward(self, F, boxes, other):") + 1
    assert written[body].strip(), written  # no blank first line
    notes = [line.strip() for line in result.stderr.splitlines() if " HL001 fix " in line]
    assert len(notes) == 2, result.stderr
    assert notes[0].endswith("it deletes line 6 of the original: assert boxes.shape[-1] == 4"), (
        notes
    )
    assert notes[1].endswith(
        "it deletes line 7 of the original: assert boxes.shape == other.shape"
    ), notes
    for note in re.findall(r"net\.py:(\d+):(\d+): ", result.stderr):
        line, column = int(note[0]), int(note[1])
        assert column <= len(written[line - 1]) + 1, (note, written[line - 1])
    # the pick's notes are in the `return` the rewrite wrapped, not past the body's end: the
    # broadcast at its start, each index at its own rewrite in the wrapped argument line
    returns = written.index("        return F.broadcast_add(") + 1
    assert re.findall(r"net\.py:(\d+):\d+: HL007 fix", result.stderr) == [str(returns)]
    picks = re.findall(r"net\.py:(\d+):(\d+): HL003 fix", result.stderr)
    assert len(picks) == 4, result.stderr
    # each index at the start of a rewrite holding it (the first: the broadcast's, which
    # opens with it), in order; no two of the wrapped argument line's at one place
    places = [(int(line), int(column)) for line, column in picks]
    assert places == sorted(set(places)), picks
    for line, column in places:
        assert line in (returns, returns + 1), (result.stderr, returns)
        assert written[line - 1][column - 1 :].startswith("F."), picks


def test_notes_of_fixes_nested_in_a_wrapped_rewrite_point_at_their_own_rewrites():
    """Blind round 18 (a LEAF Shakespeare model): HL006 rewrote `nd.concat(encoded[0],
    encoded[-1])`, the two HL003 fixes inside it were applied by a later pass, and the line
    was wrapped; both HL003 notes said 17:20, the `nd.concat`. Each now names the written
    line and column where its own rewrite starts."""
    from hybridlint.runner import _notes_at_written_lines

    before = "def f(F, encoded):\n    e = nd.concat(encoded[0], encoded[-1])\n    return e\n"
    after = (
        "def f(F, encoded):\n    e = F.concat(\n"
        "        F.squeeze(F.slice_axis(encoded, axis=0, begin=0, end=1), axis=0),\n"
        "        F.squeeze(F.slice_axis(encoded, axis=0, begin=-1, end=None), axis=0),\n"
        "    )\n    return e\n"
    )
    notes = [
        "net.py:2:9: HL006 fix proven by example Net",
        "net.py:2:19: HL003 fix proven by example Net",
        "net.py:2:31: HL003 fix proven by example Net",
        "net.py:3:5: HL009 fix rejected: ...",  # a line kept, moved by the wrap
    ]
    assert _notes_at_written_lines(notes, "net.py", before, after) == [
        "net.py:2:9: HL006 fix proven by example Net",
        "net.py:3:9: HL003 fix proven by example Net",
        "net.py:4:9: HL003 fix proven by example Net",
        "net.py:6:5: HL009 fix rejected: ...",
    ]
