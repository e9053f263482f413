"""The worker process: runs user code for the checker, one job at a time, until stdin closes.

Started by `CheckerSession` as `python -m hybridlint.checker.worker MEMORY_MB BACKEND LIMITS`.
Before any user code runs it sets its limits (procs.py), becomes the subreaper of whatever user
code starts, watches its lifeline to hybridlint, keeps the protocol on private file descriptors
and points fd 0/1 away from them, so `print` or `input()` cannot corrupt a frame (a deliberate
write to the channel is data the parent validates: see protocol.py). After each job it kills
every process the job started.
"""

from __future__ import annotations

import os
import resource
import sys
import warnings
from typing import List, Optional

from . import procs
from .protocol import ProtocolError, read_frame, write_frame
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


def private_channels():
    """Duplicate stdin/stdout for the protocol; user code gets /dev/null and stderr instead."""
    proto_in = os.fdopen(os.dup(0), "rb", buffering=0)
    proto_out = os.fdopen(os.dup(1), "wb")
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
    write_frame(proto_out, {"type": "ready"})  # the job time limit starts after start-up
    while True:
        message = read_frame(proto_in)
        if message is None:
            procs.kill_descendants(os.getpid())
            return 0
        _reset_log()
        shm = procs.job_begins()
        procs.arm_cpu_limit(float(limits.get("cpu_seconds") or 0))
        state = _snapshot()
        job: dict = {}
        try:
            job = job_from_wire(message.get("job") if isinstance(message, dict) else None)
            report = run_job(job)
        except BaseException as exc:  # noqa: B902 - last line of defence; keep serving
            report = EquivalenceReport(
                "cannot_run",
                target=str(job.get("target", "")),
                backend=str(job.get("backend", "")),
                stage="worker",
                reason=f"checker error: {type(exc).__name__}: {exc}",
            )
        finally:
            try:
                _restore(state)
                procs.kill_descendants(os.getpid())  # nothing user code started outlives
                procs.reap_children()  # its job
                procs.job_ends(shm)  # nor what it left in /dev/shm
            except Exception:  # hygiene must never take the worker down
                pass
        send_report(proto_out, report)


def send_report(stream, report: EquivalenceReport) -> None:
    """Write one report frame; a detail that does not encode is replaced by the essentials."""
    try:
        write_frame(stream, {"type": "report", "report": report_to_wire(report)})
    except (TypeError, ValueError, ProtocolError) as exc:
        write_frame(
            stream,
            {
                "type": "report",
                "report": report_to_wire(
                    EquivalenceReport(
                        "cannot_run",
                        target=str(report.target),
                        backend=str(report.backend),
                        stage="worker",
                        reason=f"report could not be sent: {exc}",
                    )
                ),
            },
        )


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
