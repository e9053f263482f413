"""The worker's answer channel under attack from the user code it runs (issue 24, items 2 and
4): answers are bound to their job (nonce, id, one answer, in order) and capped before they
are read, a forged, garbled, late or oversized frame makes its own job `cannot_run` and never
someone else's, and no control character user code wrote reaches a finding or the terminal.
The attacks are the blocks of testdata/checker/forges_channel.py."""

import os
import re
import shutil
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from hybridlint.checker import CheckerSession, check_file, protocol, report as report_module
from hybridlint.checker import session as checker_session
from hybridlint.checker import wire, worker
from hybridlint.checker.report import EquivalenceReport, SourceLine
from tests.checker_support import ROOT, backend_params, data

ATTACKS = data("forges_channel.py")
CONTROLS = ("\x1b", "\x07", "\x9b", "\x00", "\x08", "\r")


def _cli(args, cwd, timeout=300):
    env = dict(os.environ, PYTHONPATH=ROOT, NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "hybridlint", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=timeout,
        encoding="utf-8",
        errors="surrogateescape",
    )


def _check(session, backend, name, path=ATTACKS, shape=(2, 3)):
    (report,) = check_file(path, {name: [shape]}, backend=backend, session=session)
    return report


# -- item 2: forged results -------------------------------------------------------------------


def test_a_forged_equal_frame_for_a_block_that_fails_hybridization_is_cannot_run(tmp_path):
    # Before: "equal (0 output(s), max abs diff 0)", exit 0.
    result = _cli(["verify", f"{ATTACKS}::ForgeEqual", "--input", "2,3"], tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stdout.startswith("cannot_run: "), result.stdout
    assert "not bound to this job" in result.stdout and "equal" not in result.stdout.split(":")[0]


def test_a_forged_frame_under_fix_verify_is_hl903_never_a_pass(tmp_path):
    shutil.copy(ATTACKS, tmp_path / "forges.py")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hybridlint.examples]\n"forges.py::ForgeEqual" = { inputs = [[2, 3]] }\n'
    )
    result = _cli(["--no-cache", "--fix", "--verify", "--select", "HL9", "forges.py"], tmp_path)
    assert result.returncode != 0, result.stdout + result.stderr
    assert "HL903" in result.stdout or "cannot run" in result.stdout + result.stderr
    assert "not bound to this job" in result.stdout + result.stderr


@pytest.mark.parametrize("backend", backend_params())
def test_forged_frames_do_not_shift_reports_onto_later_blocks(backend):
    # Before: the forged frame answered ForgeEqual, whose real report (hybrid_error) then
    # answered Residual, whose report answered FlattenByShape, and so on.
    with CheckerSession(timeout=120) as session:
        forged = _check(session, backend, "ForgeEqual")
        assert forged.status == "cannot_run", forged.summary()
        good = _check(session, backend, "Residual", data("good.py"), (2, 8))
        assert good.status == "equal", good.summary()
        bad = _check(session, backend, "FlattenByShape", data("shape_attr.py"), (2, 3, 4))
        assert bad.status == "hybrid_error" and "shape_attr.py" in bad.reason, bad.summary()
        again = _check(session, backend, "Residual", data("good.py"), (2, 8))
        assert again.status == "equal", again.summary()


def test_garbage_makes_its_own_block_cannot_run_at_once_and_only_that_block():
    with CheckerSession(timeout=120) as session:
        started = time.monotonic()
        garbage = _check(session, "engine", "Garbage")
        assert garbage.status == "cannot_run" and "invalid answer" in garbage.reason
        assert time.monotonic() - started < 60  # refused at its first bytes, not timed out
        good = _check(session, "engine", "Residual", data("good.py"), (2, 8))
        assert good.status == "equal", good.summary()
        bad = _check(session, "engine", "FlattenByShape", data("shape_attr.py"), (2, 3, 4))
        assert bad.status == "hybrid_error" and "shape_attr.py" in bad.reason, bad.summary()


def test_bytes_written_after_the_answer_replace_the_worker_not_the_next_verdict():
    # Before: the late thread's bytes were read as the next block's answer (cannot_run).
    with CheckerSession(timeout=120) as session:
        late = _check(session, "engine", "LateWriter")
        assert late.status == "equal", late.summary()
        time.sleep(1.5)  # the thread has written by now
        good = _check(session, "engine", "Residual", data("good.py"), (2, 8))
        assert good.status == "equal", good.summary()
        assert session.workers_started == 2


def test_a_process_user_code_forks_never_answers_for_the_job():
    # Before: the forked copy unwound into the worker loop and answered "cannot_run: user
    # code called sys.exit(0)" for a block that behaves (and read the next job itself).
    with CheckerSession(timeout=120) as session:
        forked = _check(session, "engine", "ForkExit")
        assert forked.status == "equal", forked.summary()
        bad = _check(session, "engine", "FlattenByShape", data("shape_attr.py"), (2, 3, 4))
        assert bad.status == "hybrid_error" and "shape_attr.py" in bad.reason, bad.summary()


def test_an_answer_to_another_job_or_a_second_answer_is_refused():
    ticket = checker_session.JobTicket(7)
    report = EquivalenceReport("equal", target="a.py::A")
    for job_id, nonce, why in [
        (6, ticket.nonce, "came for job 7"),  # an earlier job's answer
        (7, os.urandom(16), "not bound to this job"),  # a forged one
    ]:
        read_fd, write_fd = os.pipe()
        with os.fdopen(write_fd, "wb") as out:
            worker.send_report(out, report, nonce, job_id)
        try:
            with pytest.raises(protocol.ProtocolError, match=why):
                checker_session.receive_report(read_fd, time.monotonic() + 5, None, ticket)
        finally:
            os.close(read_fd)


# -- control characters ------------------------------------------------------------------------


def test_control_characters_user_code_wrote_never_reach_the_terminal(tmp_path):
    # Before: ESC ] 0;pwned BEL (sets the terminal title), 0x9b (CSI), NUL and backspace went
    # to stdout raw, in the error message and in the source line.
    result = _cli(["verify", f"{ATTACKS}::Escapes", "--input", "2,3"], tmp_path)
    assert result.returncode == 1 and result.stdout.startswith("hybrid_error"), result.stdout
    assert "cleared" in result.stdout and "forges_channel.py:" in result.stdout
    for char in CONTROLS:
        assert char not in result.stdout + result.stderr, repr(char)


def test_control_characters_never_reach_a_finding(tmp_path):
    shutil.copy(ATTACKS, tmp_path / "forges.py")
    (tmp_path / "pyproject.toml").write_text(
        '[tool.hybridlint.examples]\n"forges.py::Escapes" = { inputs = [[2, 3]] }\n'
    )
    args = ["--no-cache", "--fix", "--verify", "--select", "HL9", "forges.py"]
    for fmt in ("text", "json"):
        result = _cli(args + ["--format", fmt], tmp_path)
        assert "HL903" in result.stdout and "cleared" in result.stdout, result.stdout
        # what the checker said; the text format's excerpt of the file itself (`65 | ...`)
        # is the linter's rendering of the checked-in line, not the checker's
        said = [line for line in result.stdout.splitlines() if not re.match(r"\s*\d* \|", line)]
        for char in CONTROLS:
            assert char not in "\n".join(said) + result.stderr, (fmt, repr(char))


def test_every_text_of_an_answer_loses_its_control_characters():
    dirty = "a\x1b[31mb\x1b]0;t\x07c\x9bd\x00e\rf\u202eg\nh\ti"
    assert report_module.clean_text(dirty) == "abcdefg\nh\ti"
    assert report_module.clean_text("é 日本 ok") == "é 日本 ok"
    report = EquivalenceReport(
        "hybrid_error",
        target=dirty,
        reason=dirty,
        error_message=dirty,
        error_type=dirty,
        stage=dirty,
        notes=[dirty],
        source_line=SourceLine(dirty, 3, dirty),
    )
    data_ = wire.report_to_wire(report)
    data_["runtime_findings"] = [
        dict(code=dirty, name=dirty, message=dirty, line=1, col=1, end_line=1, end_col=2, fix=None)
    ]
    data_["runtime_findings"][0]["path"] = dirty
    data_["reason"] = data_["error_message"] = dirty  # as a forged or old worker sends them
    back = wire.report_from_wire(data_)
    texts = [back.target, back.reason, back.error_message, back.error_type, back.stage]
    texts += back.notes + [back.source_line.filename, back.source_line.text]
    finding = back.runtime_findings[0]
    texts += [finding.code, finding.name, finding.message, finding.path]
    assert all(t == "abcdefg\nh\ti" for t in texts), texts


# -- item 4: the size of a frame ----------------------------------------------------------------


def test_an_answer_longer_than_the_cap_is_refused_before_its_body_is_read():
    nonce = os.urandom(16)
    read_fd, write_fd = os.pipe()
    try:
        # only the prefix is written: reading the body would wait for the deadline
        os.write(write_fd, nonce + protocol.HEADER.pack(protocol.MAX_ANSWER + 1))
        with pytest.raises(protocol.ProtocolError, match="larger than the limit"):
            protocol.read_answer(read_fd, nonce, time.monotonic() + 5)
        os.write(write_fd, os.urandom(16) + protocol.HEADER.pack(60 << 20))
        with pytest.raises(protocol.ProtocolError, match="not bound"):
            protocol.read_answer(read_fd, nonce, time.monotonic() + 5)
        assert protocol.pending(read_fd)  # a refused frame's body is left unread
    finally:
        os.close(read_fd)
        os.close(write_fd)


def test_a_report_too_large_for_an_answer_is_sent_as_cannot_run_saying_so():
    nonce = os.urandom(16)
    huge = EquivalenceReport("equal", target="a.py::A", executed=frozenset(range(1_000_000)))
    read_fd, write_fd = os.pipe()
    received = {}

    def reader():
        ticket = checker_session.JobTicket(3)
        ticket.nonce = nonce
        received["report"] = checker_session.receive_report(
            read_fd, time.monotonic() + 30, None, ticket
        )

    thread = threading.Thread(target=reader)
    thread.start()
    with os.fdopen(write_fd, "wb") as out:
        worker.send_report(out, huge, nonce, 3)
    thread.join(30)
    os.close(read_fd)
    got = received["report"]
    assert got.status == "cannot_run" and "larger than the limit" in got.reason, got.summary()


_MEASURE = textwrap.dedent(
    """
    import resource, sys
    from hybridlint.checker import CheckerSession, check_file
    from tests.checker_support import data

    def peak():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10  # MiB

    with CheckerSession(timeout=120) as session:
        (good,) = check_file(data("good.py"), {"Residual": [(2, 8)]}, session=session)
        before = peak()
        (big,) = check_file(data("forges_channel.py"), {"BigFrame": [(2, 3)]}, session=session)
        print(good.status, big.status, peak() - before)
    """
)


def test_a_60_mb_forged_frame_costs_hybridlint_no_more_than_the_cap():
    # Before: the parent read and parsed the whole frame: about 1.6 GB more at its peak.
    result = subprocess.run(
        [sys.executable, "-c", _MEASURE],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    good, big, grown = result.stdout.split()
    assert (good, big) == ("equal", "cannot_run"), result.stdout
    assert int(grown) < 4, result.stdout  # MiB: the frame is refused at its first bytes


_WORST = textwrap.dedent(
    """
    import os, resource, sys, threading, time
    from hybridlint.checker import protocol

    size = int(sys.argv[1])
    nonce = os.urandom(16)
    head = b"[" + b"[]," * (size // 3 - 2) + b"[]]"  # the costliest JSON per byte
    body = protocol.HEADER.pack(len(head)) + head
    frame = nonce + protocol.HEADER.pack(len(body)) + body
    del head, body
    read_fd, write_fd = os.pipe()
    threading.Thread(target=lambda: os.write(write_fd, frame), daemon=True).start()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        got = type(protocol.read_answer(read_fd, nonce, time.monotonic() + 60)).__name__
    except protocol.ProtocolError:
        got = "refused"
    print(got, (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) >> 10)
    """
)


def _worst(size):
    result = subprocess.run(
        [sys.executable, "-c", _WORST, str(size)],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=ROOT),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr
    got, cost = result.stdout.split()
    return got, int(cost)


def test_even_a_frame_with_the_right_nonce_costs_at_most_a_bounded_multiple_of_the_cap():
    # A deliberate attacker who read the nonce: a frame at the cap is parsed (the JSON parser's
    # objects: ~25 bytes per byte of the worst JSON), one beyond it is refused unread.
    got, cost = _worst(protocol.MAX_ANSWER - 64)
    assert got == "list" and cost < 30 * (protocol.MAX_ANSWER >> 20), (got, cost)
    got, cost = _worst(60 << 20)
    assert got == "refused" and cost < 8, (got, cost)
