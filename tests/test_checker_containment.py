"""--verify's process containment (issue 24, items 3 and 4): what user code starts dies with
the run even when the worker itself dies first, files a job leaves in /dev/shm are removed, and
signals user code sends its parent (or hybridlint) cost at most that job, never the run."""

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
    data,
    engine_redirect_available,
    interruptible,
    wait_gone,
)

pytestmark = pytest.mark.skipif(
    not engine_redirect_available() or not os.path.isdir("/proc") or not os.path.isdir("/dev/shm"),
    reason="needs the engine, Linux /proc and /dev/shm",
)


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.setenv("HYBRIDLINT_TEST_DIR", str(tmp_path))
    shm = f"/dev/shm/hl-test-{os.getpid()}-{tmp_path.name}-"
    monkeypatch.setenv("HYBRIDLINT_TEST_SHM", shm)
    yield tmp_path
    for name in os.listdir("/dev/shm"):  # never leave ours behind, whatever the outcome
        if ("/dev/shm/" + name).startswith(shm):
            os.unlink("/dev/shm/" + name)


def shm_files(prefix: str):
    return sorted(n for n in os.listdir("/dev/shm") if ("/dev/shm/" + n).startswith(prefix))


def one(name, session):
    (report,) = check_file(data("containment.py"), {name: [(2, 3)]}, session=session)
    return report


DEATHS = ["segv", "kill", "child", "cpu"]


@pytest.mark.parametrize("how", DEATHS)
def test_an_orphan_dies_with_its_dead_worker(here, monkeypatch, how):
    """The worker dies (a segfault, SIGKILL, a kill by its own child, the CPU limit) after user
    code daemonized a process: that process must not live on under init."""
    monkeypatch.setenv("HYBRIDLINT_TEST_HOW", how)
    with CheckerSession(timeout=60, cpu_seconds=1) as session:
        report = one("OrphanThenDie", session)
        assert report.status == "cannot_run", report.summary()
        orphan = int((here / "orphan.pid").read_text())
        survived = not wait_gone(orphan, 2.0)
        (here / "release").write_text("")  # a live orphan now writes its marker
        assert one("Plain", session).ok  # a fresh worker takes over
    time.sleep(1.0)
    assert not survived and not (here / "orphan.marker").exists(), f"the orphan ({how}) lived on"


def test_a_jobs_shm_files_are_removed_after_the_job(here):
    prefix = os.environ["HYBRIDLINT_TEST_SHM"]
    # not the job's: stays (held open: another hybridlint run's clean-up, in a parallel test,
    # would take a closed one that appeared during its job: see the README's Limits)
    with open(prefix + "before", "wb"), CheckerSession(timeout=60) as session:
        report = one("ShmThenReturn", session)
        assert report.ok, report.summary()
        assert shm_files(prefix) == [os.path.basename(prefix) + "before"]
        assert session.workers_started == 1


@pytest.mark.parametrize(
    "block, how", [("ShmThenDie", "segv"), ("ShmThenDie", "kill"), ("ShmThenHang", "")]
)
def test_shm_files_are_removed_when_the_worker_dies_or_times_out(here, monkeypatch, block, how):
    monkeypatch.setenv("HYBRIDLINT_TEST_HOW", how)
    prefix = os.environ["HYBRIDLINT_TEST_SHM"]
    with CheckerSession(timeout=8) as session:
        report = one(block, session)
        assert report.status == "cannot_run", report.summary()
        deadline = time.monotonic() + 5
        while shm_files(prefix) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert shm_files(prefix) == []


SCRIPT = textwrap.dedent("""
    import os, sys
    from hybridlint.checker import CheckerSession, check_file
    open(os.path.join(os.environ["HYBRIDLINT_TEST_DIR"], "hybridlint.pid"), "w").write(
        str(os.getpid()))
    with CheckerSession(timeout=60) as session:
        for name in sys.argv[2:]:
            (report,) = check_file(sys.argv[1], {name: [(2, 3)]}, session=session)
            print("STATUS", name, report.status, flush=True)
""")


def run_script(*blocks):
    return subprocess.run(
        [sys.executable, "-c", SCRIPT, data("containment.py"), *blocks],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        start_new_session=True,  # its process group is its own
    )


@pytest.mark.parametrize("target", ["parent", "hybridlint"])
def test_signals_to_the_parent_cost_at_most_that_job(here, monkeypatch, target):
    """SIGABRT, SIGPROF, SIGVTALRM, SIGIO, SIGPWR, SIGSYS, real-time signals, SIGTSTP... sent to
    the worker's parent (os.getppid()) or to hybridlint itself: the run goes on to the end."""
    monkeypatch.setenv("HYBRIDLINT_TEST_HOW", target)
    done = run_script("SignalsParent", "Plain")
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    lines = done.stdout.splitlines()
    assert lines[0] in ("STATUS SignalsParent equal", "STATUS SignalsParent cannot_run"), lines
    assert lines[1:] == ["STATUS Plain equal"], lines


def test_sigkill_to_the_parent_costs_only_that_job(here):
    done = run_script("KillsParent", "Plain")
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert done.stdout.splitlines() == ["STATUS KillsParent cannot_run", "STATUS Plain equal"]


def test_the_terminals_ctrl_z_still_stops_hybridlint(here, monkeypatch):
    """SIGTSTP from elsewhere (the terminal's Ctrl-Z: the kernel sends it) still stops
    hybridlint while it waits for a job, and it goes on after SIGCONT."""
    monkeypatch.setenv("HYBRIDLINT_TEST_HOW", "")
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT, data("containment.py"), "ShmThenHang"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # not a new session: an orphaned group discards SIGTSTP
        preexec_fn=interruptible(new_group=True),
    )
    try:
        shm = os.environ["HYBRIDLINT_TEST_SHM"]
        end = time.monotonic() + 60
        while not shm_files(shm) and time.monotonic() < end:
            time.sleep(0.05)
        proc.send_signal(signal.SIGTSTP)
        end = time.monotonic() + 10
        state = ""
        while time.monotonic() < end:
            with open(f"/proc/{proc.pid}/stat") as handle:
                state = handle.read().rsplit(")", 1)[1].split()[0]
            if state == "T":
                break
            time.sleep(0.05)
        assert state == "T"
        proc.send_signal(signal.SIGCONT)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode != 0 and b"KeyboardInterrupt" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
