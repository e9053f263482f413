"""Running checks in a separate process with a time and memory limit.

`CheckerSession` owns one worker subprocess per backend, reused for every job of a run (the
import of MXNet or the engine is paid once) and restarted after a crash or a timeout. Objects
that cannot cross a process boundary (a live block instance, a closure) are checked in a
forked child with the same limits. Either way a hang, crash, `sys.exit` or `os._exit` in user
code becomes a `cannot_run` report.

Answers are bound to their job: every job gets an id and 16 random bytes (its nonce), and the
only answer taken is one frame that starts with that nonce and names that id (protocol.py).
Anything else, a frame user code forged, garbage, a second answer or an answer to an earlier
job, makes that job `cannot_run` and the worker is replaced; bytes found on the answer
channel before a job is sent replace the worker before the job runs.

Defaults: 60 s per job (wall clock), 4096 MiB of address space (RLIMIT_AS).
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import IO, Any, BinaryIO, Callable, Dict, Optional, cast

from . import procs
from .protocol import (
    READY_NONCE,
    ChannelClosed,
    ChannelTimeout,
    ProtocolError,
    pending,
    read_answer,
    write_frame,
)
from .report import EquivalenceReport
from .wire import job_to_wire, report_from_wire

DEFAULT_TIMEOUT = 60.0
DEFAULT_MEMORY_MB = 4096
DEFAULT_CPU_SECONDS = 120.0  # per job; above the wall clock limit (BLAS may use two cores)
DEFAULT_FSIZE_MB = 1024  # largest file user code (or export) may write
DEFAULT_NPROC = 256  # processes beyond those the user already runs (not for root)
_OVERRUN = (
    "user code ran out of memory: the worker and its child processes used more than "
    "{} MiB together (killed)"
)
STARTUP_TIMEOUT = 120.0  # importing MXNet on a loaded machine; not counted in the job's


class MemoryOverrun(Exception):
    """The worker and its child processes together went over the memory limit."""


class Interrupted(Exception):
    """A signal meant for hybridlint (not sent by the worker) arrived during a job."""


class _Watch:
    """Called while waiting for a job: the memory of the whole process tree, and signals."""

    def __init__(self, pid: int, memory_mb: int, shield: procs.SignalShield):
        self.pid, self.limit, self.shield = pid, memory_mb << 20, shield
        self.tree = {pid}  # every process seen in the tree, also after it exited

    def __call__(self) -> None:
        below = procs.descendants(self.pid)
        self.tree.update(below)
        if self.shield.drain(self.tree):
            raise Interrupted()
        if self.limit > 0 and below and procs.tree_rss(self.pid) > self.limit:
            raise MemoryOverrun()

    def settle(self) -> None:
        """The last drain, once the wait is over: a signal the tree sent after the last tick
        (a report can arrive before any tick ran, on a busy machine) must still be ignored,
        not delivered when the shield lifts."""
        self.tree.update(procs.descendants(self.pid))
        self.shield.drain(self.tree)


def _await_report(
    shield: procs.SignalShield,
    fd: int,
    deadline: Optional[float],
    pid: int,
    memory_mb: int,
    on_interrupt: Callable[[], None],
    job: "JobTicket",
) -> EquivalenceReport:
    """Wait for the report of the process tree under `pid`, inside an entered `shield`.

    The caller enters the shield before the job can start (before the job frame is sent,
    before the fork): user code may signal at once, and an unblocked SIGTERM kills us."""
    watch = _Watch(pid, memory_mb, shield)
    try:
        return receive_report(fd, deadline, watch, job)
    except Interrupted:
        on_interrupt()
        raise
    finally:
        watch.settle()


def _pipe(stream: Optional[IO[bytes]]) -> BinaryIO:
    """A worker's stdin or stdout: Popen(stdin=PIPE, stdout=PIPE) made it, never None."""
    return cast(BinaryIO, stream)


class JobTicket:
    """What binds an answer to its job: the job's id (in order, one answer each) and a fresh
    random nonce. Both travel with the job; the worker keeps them out of user code's way."""

    def __init__(self, job_id: int):
        self.id = job_id
        self.nonce = os.urandom(16)

    def to_wire(self) -> dict:
        return {"id": self.id, "nonce": self.nonce.hex()}


class _Worker:
    """One `python -m hybridlint.checker.worker` process, its pipes and its lifeline."""

    def __init__(self, memory_mb: int, backend: str, limits: dict):
        self.log = tempfile.TemporaryFile()
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        lifeline, self._lifeline = os.pipe()  # EOF in the worker when we are gone
        self.memory_mb = memory_mb
        self.jobs_sent = 0
        try:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "hybridlint.checker.worker",
                    str(memory_mb),
                    backend,
                    json.dumps(dict(limits, lifeline=lifeline)),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.log,
                start_new_session=True,
                env=env,
                pass_fds=(lifeline,),
            )
        finally:
            os.close(lifeline)

    def wait_ready(self) -> None:
        """Start-up (imports of the backend) has its own limit; the job's starts after it."""
        try:
            ready = read_answer(
                _pipe(self.proc.stdout).fileno(), READY_NONCE, time.monotonic() + STARTUP_TIMEOUT
            )
        except ChannelTimeout:
            raise ChannelClosed(f"the worker did not start within {STARTUP_TIMEOUT:g} s") from None
        if ready != {"type": "ready"}:
            raise ProtocolError(f"unexpected start-up message {str(ready)[:100]!r}")

    def request(self, job: dict, timeout: Optional[float]) -> EquivalenceReport:
        deadline = None if timeout is None else time.monotonic() + timeout
        self.jobs_sent += 1
        ticket = JobTicket(self.jobs_sent)
        with procs.SignalShield() as shield:
            write_frame(
                _pipe(self.proc.stdin), dict(type="job", job=job_to_wire(job), **ticket.to_wire())
            )
            return _await_report(
                shield,
                _pipe(self.proc.stdout).fileno(),
                deadline,
                self.proc.pid,
                self.memory_mb,
                self.kill,
                ticket,
            )

    def alive(self) -> bool:
        return self.proc.poll() is None

    def clean(self) -> bool:
        """Nothing waits on the answer channel between jobs (after a job's one answer, bytes
        there were written by something else: user code's thread or forked process)."""
        try:
            return not pending(_pipe(self.proc.stdout).fileno())
        except (OSError, ValueError):
            return False

    def kill(self) -> None:
        if self.proc.poll() is None:
            procs.kill_tree(self.proc.pid)  # user code's children too, daemonized or not
        self.proc.wait()
        self._close()

    def close(self) -> None:
        try:
            _pipe(self.proc.stdin).close()
            self.proc.wait(timeout=5)
        except Exception:
            self.kill()
            return
        self._close()

    def _close(self) -> None:
        for stream in (self.proc.stdin, self.proc.stdout, self.log):
            try:
                stream.close()  # type: ignore[union-attr]  # (PIPEs: never None)
            except Exception:
                pass
        try:
            os.close(self._lifeline)
        except OSError:
            pass

    def log_tail(self, size: int = 1500) -> str:
        try:
            self.log.seek(0, os.SEEK_END)
            end = self.log.tell()
            self.log.seek(max(0, end - size))
            return self.log.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""


class CheckerSession:
    """Workers for a run of checks; use as a context manager or call close()."""

    def __init__(
        self,
        timeout: Optional[float] = DEFAULT_TIMEOUT,
        memory_mb: int = DEFAULT_MEMORY_MB,
        *,
        cpu_seconds: Optional[float] = DEFAULT_CPU_SECONDS,
        fsize_mb: int = DEFAULT_FSIZE_MB,
        nproc: int = DEFAULT_NPROC,
    ):
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.limits = dict(cpu_seconds=cpu_seconds or 0, fsize_mb=fsize_mb, nproc=nproc)
        self._workers: Dict[str, _Worker] = {}
        self._lock = threading.Lock()  # one job at a time per worker pipe
        self.jobs_run = 0
        self.workers_started = 0

    def __enter__(self) -> "CheckerSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        with self._lock:
            for worker in self._workers.values():
                worker.close()
            self._workers.clear()

    def run(self, job: dict, timeout: Optional[float] = None) -> EquivalenceReport:
        """Run one job dict (see jobs.py) in the backend's worker; always returns a report."""
        with self._lock:
            return self._run(job, timeout)

    def _run(self, job: dict, timeout: Optional[float]) -> EquivalenceReport:
        timeout = self.timeout if timeout is None else timeout
        backend = job["backend"]
        worker = self._workers.get(backend)
        label = job.get("label") or job.get("target", "")
        self.jobs_run += 1
        started = False
        if worker is not None and not (worker.alive() and worker.clean()):
            worker.kill()  # dead, or its channel holds bytes no job asked for: a fresh one
            del self._workers[backend]
            worker = None
        if worker is None:
            try:
                worker = _Worker(self.memory_mb, backend, self.limits)
            except OSError as exc:  # fork, pipe or log file (this used to be AttributeError)
                return _cannot_run(label, backend, "worker", f"cannot start a worker: {exc}")
            self._workers[backend] = worker
            self.workers_started += 1
            started = True
        try:
            if started:
                worker.wait_ready()
            return worker.request(job, timeout)
        except ChannelTimeout:
            worker.kill()
            del self._workers[backend]
            return _cannot_run(
                label, backend, "timeout", f"user code did not finish within {timeout:g} s (killed)"
            )
        except MemoryOverrun:
            worker.kill()
            del self._workers[backend]
            return _cannot_run(label, backend, "memory", _OVERRUN.format(self.memory_mb))
        except ProtocolError as exc:  # forged or garbage bytes: data, never code
            worker.kill()
            del self._workers[backend]
            return _cannot_run(
                label,
                backend,
                "worker",
                f"the worker sent an invalid answer ({exc}); user code may have "
                "written to the checker's channel",
            )
        except (ChannelClosed, BrokenPipeError, OSError) as exc:
            try:
                code = worker.proc.wait(timeout=5)
                reason = _death_reason(code, worker.log_tail())
            except subprocess.TimeoutExpired:  # alive but not talking: not a death
                reason = str(exc)
            worker.kill()
            del self._workers[backend]
            return _cannot_run(label, backend, "worker", reason or f"worker lost: {exc}")


def receive_report(fd: int, deadline: Optional[float], tick, job: JobTicket) -> EquivalenceReport:
    """The answer to `job` from a worker, validated: one frame bound to the job's nonce that
    names the job's id and holds a report (ProtocolError if it is anything else)."""
    message = read_answer(fd, job.nonce, deadline, tick)
    if not (
        isinstance(message, dict)
        and message.get("type") == "report"
        and set(message) == {"type", "id", "report"}
    ):
        raise ProtocolError(f"expected a report, got {str(message)[:100]!r}")
    if type(message["id"]) is not int or message["id"] != job.id:
        raise ProtocolError(f"the answer to job {str(message['id'])[:20]} came for job {job.id}")
    return report_from_wire(message["report"])


def _cannot_run(target: str, backend: str, stage: str, reason: str) -> EquivalenceReport:
    return EquivalenceReport(
        "cannot_run", target=target, backend=backend, stage=stage, reason=reason
    )


def _death_reason(code: Optional[int], log: str) -> str:
    if code is not None and -code == getattr(signal, "SIGXCPU", None):
        what = "user code exceeded the CPU time limit (killed)"
    elif code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        what = f"the worker crashed ({name})"
    else:
        what = f"user code ended the worker process (exit code {code})"
    last = log.strip().splitlines()[-1] if log.strip() else ""
    return f"{what}: {last}" if last else what


def run_forked(
    fn: Callable[[], EquivalenceReport],
    label: str,
    backend: str,
    timeout: Optional[float] = DEFAULT_TIMEOUT,
    memory_mb: int = DEFAULT_MEMORY_MB,
    limits: Optional[dict] = None,
) -> EquivalenceReport:
    """Run `fn` in a forked child (it sees live objects) and return its report.

    The child gets the worker's confinement (own session, limits, subreaper, a watch on this
    process) and is killed with everything it started when it overruns or times out."""
    limits = dict(limits or {}, memory_mb=memory_mb)
    parent = os.getpid()
    ticket = JobTicket(1)
    read_fd, write_fd = os.pipe()
    with procs.SignalShield() as shield:  # up before the fork: the child may signal at once
        pid = os.fork()
        if pid == 0:  # child: never returns
            shield.lift_in_child()
            _forked_child(fn, label, backend, limits, parent, read_fd, write_fd, ticket)
        os.close(write_fd)
        deadline = None if timeout is None else time.monotonic() + timeout
        try:
            return _await_report(
                shield, read_fd, deadline, pid, memory_mb, lambda: procs.kill_tree(pid), ticket
            )
        except ProtocolError as exc:
            procs.kill_tree(pid)
            return _cannot_run(
                label,
                backend,
                "worker",
                f"the forked check sent an invalid "
                f"answer ({exc}); user code may have written to the checker's "
                "channel",
            )
        except MemoryOverrun:
            procs.kill_tree(pid)
            return _cannot_run(label, backend, "memory", _OVERRUN.format(memory_mb))
        except ChannelTimeout:
            procs.kill_tree(pid)
            return _cannot_run(
                label, backend, "timeout", f"user code did not finish within {timeout:g} s (killed)"
            )
        except ChannelClosed:
            _, status = os.waitpid(pid, 0)
            pid = 0
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            return _cannot_run(label, backend, "worker", _death_reason(code, ""))
        finally:
            os.close(read_fd)
            if pid:
                os.waitpid(pid, 0)


def _forked_child(
    fn: Callable[[], EquivalenceReport],
    label: str,
    backend: str,
    limits: dict,
    parent: int,
    read_fd: int,
    write_fd: int,
    ticket: JobTicket,
) -> None:
    """The forked child of run_forked: confine itself, run `fn`, send the report, exit.

    A process `fn` forks that returns through here exits without a word: only this child
    answers, once."""
    from .worker import confine, send_report

    code = 0
    try:
        os.close(read_fd)
        os.setsid()
        sys.stdout.flush()
        os.dup2(2, 1)  # user prints never mix with the caller's output
        confine(limits, None, parent)
        me = os.getpid()  # after confine: it may go on in a child of this process
        procs.arm_cpu_limit(float(limits.get("cpu_seconds") or 0))
        report = _safe_call(fn, label, backend)
        if os.getpid() != me:
            os._exit(0)
        procs.kill_descendants(os.getpid())
        with os.fdopen(write_fd, "wb") as out:
            send_report(out, report, ticket.nonce, ticket.id)
    except BaseException:  # noqa: B902
        code = 70
    finally:
        os._exit(code)


def _safe_call(fn: Callable[[], EquivalenceReport], label: str, backend: str) -> EquivalenceReport:
    try:
        return fn()
    except BaseException as exc:  # noqa: B902
        return _cannot_run(label, backend, "worker", f"checker error: {type(exc).__name__}: {exc}")


_shared: Optional[CheckerSession] = None


def shared_session() -> CheckerSession:
    """The session the module-level API functions use (closed at interpreter exit)."""
    global _shared
    if _shared is None:
        _shared = CheckerSession()
        atexit.register(_shared.close)
    return _shared
