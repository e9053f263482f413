"""The worker process: runs user code for the checker, one job at a time, until stdin closes.

Started by `CheckerSession` as `python -m hybridlint.checker.worker MEMORY_MB BACKEND LIMITS`.
Before any user code runs it sets its limits (procs.py), becomes the subreaper of whatever user
code starts, watches its lifeline to hybridlint, keeps the protocol on private file descriptors
and points fd 0/1 away from them, so `print` or `input()` cannot corrupt a frame. After each
job it kills every process the job started.

The channel: the job pipe and the answer pipe move to high close-on-exec descriptors (no
program user code starts inherits them, and fd 0/1 are /dev/null and the log). Each answer
starts with its job's nonce and names its job's id; the nonce stays in `serve`'s locals, never
in what user code is given. A process user code forks that returns into this loop exits at
once, without a word on the channel. What user code can still do, deliberately: find the
descriptors (by brute force) and write to them, which without the nonce makes its job
`cannot_run`; read the nonce from this process's memory, which is not by accident (see the
README's trust model).
"""

from __future__ import annotations

import fcntl
import os
import resource
import sys
import warnings
from typing import List, Optional

from . import procs
from .protocol import NONCE_SIZE, READY_NONCE, ProtocolError, read_frame, write_answer
from .report import EquivalenceReport
from .wire import job_from_wire, report_to_wire


def limit_memory(memory_mb: int) -> None:
    """RLIMIT_AS for this process; never raises the limit above what we already have."""
    if memory_mb <= 0:
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    want = memory_mb << 20
    if hard != resource.RLIM_INFINITY:
        want = min(want, hard)
    resource.setrlimit(resource.RLIMIT_AS, (want, hard))


def confine(limits: dict, lifeline: Optional[int], parent: int) -> None:
    """Limits, subreaper and lifeline for a process that runs user code (see procs.py).

    First a keeper (keeper.py) takes this process's place below hybridlint and this process
    goes on as its child: the keeper is the parent user code can signal and the subreaper that
    outlives a dead worker; the lifeline then also watches the keeper."""
    keeper = procs.start_keeper(lifeline, parent)
    if keeper is not None:
        parent = keeper
    procs.become_subreaper()
    procs.set_static_limits(
        int(limits.get("memory_mb", 0)), int(limits.get("fsize_mb", 0)), int(limits.get("nproc", 0))
    )
    procs.watch_lifeline(lifeline, parent)


def _out_of_reach(fd: int) -> int:
    """A close-on-exec duplicate of `fd` far above the descriptors programs use (a loop over
    "the first few fds" or an inherited fd number does not meet it)."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    floor = 512 if soft == resource.RLIM_INFINITY else max(3, min(512, soft - 64))
    try:
        return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, floor)
    except OSError:
        return os.dup(fd)  # non-inheritable as well (PEP 446), only lower


def private_channels():
    """Move stdin/stdout (the job and answer pipes) out of user code's way; fd 0 becomes
    /dev/null and fd 1 the log (stderr), so nothing user code prints or runs reaches them."""
    proto_in = os.fdopen(_out_of_reach(0), "rb", buffering=0)
    proto_out = os.fdopen(_out_of_reach(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull)
    sys.stdout = sys.stderr
    return proto_in, proto_out


def _reset_log() -> None:
    """The worker's stderr is a file the parent reads after a crash: keep only this job's."""
    try:
        sys.stderr.flush()
        os.ftruncate(2, 0)
        os.lseek(2, 0, os.SEEK_SET)
    except OSError:
        pass


def _snapshot():
    return os.getcwd(), list(sys.path), set(sys.modules)


def _restore(state) -> None:
    """Undo what a job's user code changed in the interpreter, so jobs do not leak into each
    other: the working directory, sys.path, and the user's own modules (a sibling module a
    fix rewrote on disk must be imported afresh by the next job). Installed packages and
    hybridlint's own modules, imported lazily during a job, stay loaded."""
    cwd, path, modules = state
    try:
        os.chdir(cwd)
    except OSError:
        pass
    sys.path[:] = path
    keep = _installed_roots()
    for name in set(sys.modules) - modules:
        module = sys.modules.get(name)
        filename = getattr(module, "__file__", None) or ""
        if not filename or not os.path.abspath(filename).startswith(keep):
            sys.modules.pop(name, None)


def _installed_roots() -> tuple:
    """Folders whose modules stay loaded between jobs (found without importing them)."""
    import importlib.util
    import sysconfig

    roots = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    roots |= {sys.prefix, sys.base_prefix}
    for package in ("hybridlint", "hybridlint.engine", "hybridlint.rules"):
        try:
            spec = importlib.util.find_spec(package)
        except (ImportError, ValueError):
            continue
        roots |= set(spec.submodule_search_locations or []) if spec else set()
    return tuple(os.path.abspath(r) + os.sep for r in roots)


def _preload(backend) -> None:
    """Import the backend once, before the first job (failures are reported by the job)."""
    try:
        if backend == "mxnet":
            import mxnet  # noqa: F401
        elif backend == "engine":
            from hybridlint.engine import as_mxnet

            with as_mxnet():
                import mxnet  # noqa: F401
                from mxnet import gluon  # noqa: F401
    except Exception:
        pass


def serve(argv: List[str]) -> int:
    import json

    memory_mb = int(argv[0]) if argv else 0
    backend = argv[1] if len(argv) > 1 else None
    limits = dict(json.loads(argv[2])) if len(argv) > 2 else {}
    limits["memory_mb"] = memory_mb
    parent = os.getppid()
    proto_in, proto_out = private_channels()
    confine(limits, limits.get("lifeline"), parent)
    warnings.simplefilter("ignore")
    from .jobs import run_job  # after the limits: its imports count against them

    _preload(backend)
    procs.job_ends(None)  # start-up is over: the keeper cleans /dev/shm only after a job
    write_answer(proto_out, {"type": "ready"}, READY_NONCE)  # the job's time starts after this
    me = os.getpid()
    while True:
        message = read_frame(proto_in)
        if message is None:
            procs.kill_descendants(os.getpid())
            return 0
        try:
            job_id, nonce = _ticket(message)
        except ProtocolError:  # not hybridlint's job frame: nothing to answer to
            procs.kill_descendants(os.getpid())
            return 70
        _reset_log()
        shm = procs.job_begins()
        procs.arm_cpu_limit(float(limits.get("cpu_seconds") or 0))
        state = _snapshot()
        job: dict = {}
        try:
            job = job_from_wire(message.get("job") if isinstance(message, dict) else None)
            report = run_job(job)
        except BaseException as exc:  # noqa: B902 - last line of defence; keep serving
            _never_in_a_fork(me)
            report = EquivalenceReport(
                "cannot_run",
                target=str(job.get("target", "")),
                backend=str(job.get("backend", "")),
                stage="worker",
                reason=f"checker error: {type(exc).__name__}: {exc}",
            )
        finally:
            _never_in_a_fork(me)
            try:
                _restore(state)
                procs.kill_descendants(os.getpid())  # nothing user code started outlives
                procs.reap_children()  # its job
                procs.job_ends(shm)  # nor what it left in /dev/shm
            except Exception:  # hygiene must never take the worker down
                pass
        send_report(proto_out, report, nonce, job_id)


def _ticket(message) -> tuple:
    """The id and nonce a job frame carries (see session.JobTicket)."""
    if not (isinstance(message, dict) and message.get("type") == "job"):
        raise ProtocolError("not a job")
    job_id, nonce = message.get("id"), message.get("nonce")
    if type(job_id) is not int or not isinstance(nonce, str):
        raise ProtocolError("a job without its id and nonce")
    try:
        raw = bytes.fromhex(nonce)
    except ValueError:
        raise ProtocolError("a job without its id and nonce") from None
    if len(raw) != NONCE_SIZE:
        raise ProtocolError("a job without its id and nonce")
    return job_id, raw


def _never_in_a_fork(me: int) -> None:
    """A copy of the worker user code forked (`os.fork()` then `sys.exit()`, an exception)
    unwinds into this loop: it must not answer the job, nor read the next one."""
    if os.getpid() != me:
        os._exit(0)


def send_report(stream, report: EquivalenceReport, nonce: bytes, job_id: int) -> None:
    """Write the answer to job `job_id`; a detail that does not encode, or a report larger
    than an answer may be (protocol.MAX_ANSWER), is replaced by the essentials."""
    try:
        write_answer(
            stream, {"type": "report", "id": job_id, "report": report_to_wire(report)}, nonce
        )
    except (TypeError, ValueError, ProtocolError) as exc:
        write_answer(
            stream,
            {
                "type": "report",
                "id": job_id,
                "report": report_to_wire(
                    EquivalenceReport(
                        "cannot_run",
                        target=str(report.target),
                        backend=str(report.backend),
                        stage="worker",
                        reason=f"report could not be sent: {str(exc)[:500]}",
                    )
                ),
            },
            nonce,
        )


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
