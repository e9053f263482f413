"""--verify as a bounded process: what user code starts dies with its job, limits hold for the
whole process tree, user code cannot kill hybridlint, and no worker outlives hybridlint."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from hybridlint.checker import CheckerSession, check_file
from tests.checker_support import (
    ROOT,
    alive,
    data,
    engine_redirect_available,
    interruptible,
    wait_gone,
)

pytestmark = pytest.mark.skipif(
    not engine_redirect_available() or not os.path.isdir("/proc"),
    reason="needs the engine and Linux /proc",
)


def read_pid(path, limit: float = 60.0) -> int:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if path.exists() and path.read_text().strip():
            return int(path.read_text())
        time.sleep(0.05)
    raise AssertionError(f"{path} never written")


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.setenv("HYBRIDLINT_TEST_DIR", str(tmp_path))
    return tmp_path


def one(name, session):
    (report,) = check_file(data("spawns.py"), {name: [(2, 3)]}, session=session)
    return report


def test_a_daemonized_child_dies_with_its_job(here):
    with CheckerSession(timeout=60) as session:
        report = one("Daemon", session)
        assert report.ok, report.summary()
        assert wait_gone(read_pid(here / "daemon.pid"))
        assert session.workers_started == 1  # the worker itself lives on


def test_a_daemonized_child_dies_when_its_job_times_out(here):
    with CheckerSession(timeout=10) as session:
        report = one("DaemonThenHang", session)
    assert report.status == "cannot_run" and "did not finish" in report.reason
    assert wait_gone(read_pid(here / "hang_daemon.pid"))


def test_the_memory_limit_covers_the_workers_children(here):
    with CheckerSession(timeout=120, memory_mb=768) as session:
        report = one("HungryChildren", session)
        assert report.status == "cannot_run" and "child processes" in report.reason
        assert one("Daemon", session).ok  # a fresh worker takes over


def test_cpu_time_limit(here):
    with CheckerSession(timeout=120, cpu_seconds=2) as session:
        report = one("CpuBurn", session)
    assert report.status == "cannot_run" and "CPU time limit" in report.reason


def test_file_size_limit(here):
    with CheckerSession(timeout=60, fsize_mb=1) as session:
        report = one("BigFile", session)
    assert report.status == "cannot_run" and "file-size limit" in report.reason


SCRIPT = textwrap.dedent("""
    import sys, time
    from hybridlint.checker import CheckerSession, check_file, session as checker_session
    if "slow-parent" in sys.argv:    # hybridlint descheduled just after sending the job
        send = checker_session.write_frame
        def write_then_stall(*args):
            send(*args)
            time.sleep(1.0)
        checker_session.write_frame = write_then_stall
    with CheckerSession(timeout=60) as session:
        (report,) = check_file(sys.argv[1], {sys.argv[2]: [(2, 3)]}, session=session)
        print("STATUS", report.status, flush=True)
""")


@pytest.mark.parametrize(
    "block, parent",
    [
        ("SignalsParent", "normal"),
        ("SignalsParentAndReturns", "normal"),
        ("SignalsParentAndReturns", "slow-parent"),
    ],
)
def test_user_code_cannot_kill_hybridlint(here, block, parent):
    """Signals from the worker are ignored whenever they come: before hybridlint is back
    from sending the job (slow-parent), or just before the report (AndReturns)."""
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, data("spawns.py"), block, parent],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        start_new_session=True,
    )  # its process group is its own
    assert done.returncode == 0, done.stderr[-2000:]
    assert "STATUS equal" in done.stdout


def test_no_worker_outlives_hybridlint(here):
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, data("spawns.py"), "DaemonThenHang"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        worker, daemon = read_pid(here / "worker.pid"), read_pid(here / "hang_daemon.pid")
        assert alive(worker) and alive(daemon)
        proc.send_signal(signal.SIGKILL)  # hybridlint dies, no cleanup
        proc.wait()
        assert wait_gone(worker) and wait_gone(daemon)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_a_signal_from_elsewhere_still_reaches_hybridlint(here):
    """The shield ignores only the worker's signals: a user's Ctrl-C ends the run (and the
    worker with everything it started)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, data("spawns.py"), "DaemonThenHang"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        preexec_fn=interruptible(),
    )
    try:
        worker, daemon = read_pid(here / "worker.pid"), read_pid(here / "hang_daemon.pid")
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
        assert proc.returncode != 0 and b"KeyboardInterrupt" in err
        assert wait_gone(worker) and wait_gone(daemon)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
