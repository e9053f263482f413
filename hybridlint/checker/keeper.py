"""The keeper: a small sacrificial process between hybridlint and the worker that runs user code.

procs.start_keeper() splits the process hybridlint started in two: the parent execs this file
(`python -S -E -s keeper.py ...`, the standard library only: a few MiB, no numpy) and keeps
the pid hybridlint knows; the child goes on as the worker. The keeper
- is a child subreaper: when the worker dies (a segfault, the CPU limit, a kill by its own
  child) every process user code started, daemonized or not, is re-parented to it; it kills
  them all, removes the files the job left in /dev/shm (procs.clean_job_shm), and exits with
  the worker's own status (the same signal), so hybridlint reports the worker's death as such;
- ignores every signal that can be ignored: `os.kill(os.getppid(), ...)` in user code reaches
  the keeper, not hybridlint (SIGKILL kills it: the worker sees its parent change and ends,
  that job is `cannot_run`, the next job gets a new keeper and worker);
- ends everything below it when hybridlint goes away (end of file on the lifeline pipe, or a
  new parent pid).
The protocol's pipes go straight from the worker to hybridlint; the keeper holds none of them.
"""

from __future__ import annotations

import os
import resource
import select
import signal
import sys
import time

try:
    from . import procs
except ImportError:  # run as a script: procs.py, beside this file, needs only the stdlib
    import procs  # type: ignore[no-redef,import-not-found]


def _ignore_signals() -> None:
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD):
            continue
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (OSError, ValueError, RuntimeError):
            pass


def _close_others(keep) -> None:
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except OSError:
        return
    for fd in fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def _mirror(status) -> None:
    """Exit as the worker did: the same exit code, or death by the same signal."""
    if status is None:
        os._exit(70)
    if os.WIFEXITED(status):
        os._exit(os.WEXITSTATUS(status))
    sig = os.WTERMSIG(status)
    try:
        if sig != signal.SIGKILL:
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        os.kill(os.getpid(), sig)
        time.sleep(1)
    except (OSError, ValueError):
        pass
    os._exit(128 + sig)


def keep(worker: int, lifeline: int, parent: int, state: int, ready: int) -> None:
    """The keeper's life: never returns."""
    status = None
    try:
        procs.become_subreaper()  # already set before the fork (kept across exec); again
        try:
            resource.setrlimit(
                resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1])
            )
        except (ValueError, OSError):
            pass
        wake_r, wake_w = os.pipe()
        _close_others({lifeline, state, ready, wake_r, wake_w})
        for fd in (wake_r, wake_w):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        _ignore_signals()
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        os.write(ready, b"k")  # the worker waits for this before any user code runs
        os.close(ready)
        watch = [wake_r] + ([lifeline] if lifeline >= 0 else [])
        while True:
            readable = select.select(watch, [], [], 0.5)[0]
            if wake_r in readable:
                try:
                    while os.read(wake_r, 512):
                        pass
                except OSError:
                    pass
            if lifeline in readable:
                try:
                    if not os.read(lifeline, 1):
                        break  # hybridlint is gone
                except OSError:
                    break
            if os.getppid() != parent:
                break
            status = _reap(worker)
            if status is not None:
                break
    except BaseException:  # noqa: B902 - whatever happens, the tree below must not live on
        pass
    try:
        procs.kill_descendants(os.getpid())
        procs.reap_children()
        procs.clean_job_shm(state)
    except BaseException:  # noqa: B902
        pass
    _mirror(status)


def _reap(worker: int):
    """Collect exited children (orphans included); the worker's wait status once it exited."""
    found = None
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found
        except InterruptedError:
            continue
        if pid == 0:
            return found
        if pid == worker:
            found = status


if __name__ == "__main__":
    keep(*(int(arg) for arg in sys.argv[1:6]))
