"""Keeping user code's processes bounded: limits, process trees, and who may signal whom.

`--verify` runs the user's code as a test suite would; within that trust model the worker and
everything it starts stay bounded:
- resource limits set in the worker and inherited by its children: address space (RLIMIT_AS),
  CPU seconds per job (RLIMIT_CPU, re-armed before each job), size of files written
  (RLIMIT_FSIZE), number of processes (RLIMIT_NPROC; the kernel counts all processes of the
  user and does not enforce it for root);
- the worker is a child subreaper (Linux PR_SET_CHILD_SUBREAPER): a grandchild that
  daemonizes (double fork, setsid) is re-parented to the worker instead of init, so the tree
  below the worker always holds every process user code started; it is killed as a whole
  (after each job by the worker, on a timeout or memory overrun by hybridlint), and the
  memory limit is checked against the resident size of the whole tree;
- a lifeline pipe: when hybridlint dies (even by SIGKILL) the worker sees end-of-file, kills
  its tree and exits, so no worker outlives hybridlint.
Process listings come from /proc (Linux); elsewhere only the worker's process group is used.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import threading
import time
from typing import Dict, Iterable, List, Optional, Set

PR_SET_CHILD_SUBREAPER = 36
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _stat(pid: int) -> Optional[List[str]]:
    """Fields of /proc/PID/stat after the command name (state is [0], ppid [1])."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            data = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    return data[data.rfind(")") + 2 :].split()


def _children_map() -> Dict[int, List[int]]:
    children: Dict[int, List[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return children
    for name in names:
        if name.isdigit():
            fields = _stat(int(name))
            if fields and len(fields) > 1:
                children.setdefault(int(fields[1]), []).append(int(name))
    return children


def descendants(pid: int) -> List[int]:
    """Every live process below `pid` (children first, then theirs)."""
    children, out, queue = _children_map(), [], [pid]
    while queue:
        for child in children.get(queue.pop(0), []):
            if child not in out:
                out.append(child)
                queue.append(child)
    return out


def tree_rss(pid: int) -> int:
    """Resident bytes of `pid` and all its descendants (zombies count 0)."""
    total = 0
    for member in [pid] + descendants(pid):
        fields = _stat(member)
        if fields and len(fields) > 21:
            total += int(fields[21]) * _PAGE
    return total


def kill_descendants(pid: int, rounds: int = 20) -> Set[int]:
    """SIGKILL everything below `pid`, again until nothing is left (a process may fork while
    we look); stops each one first so it cannot start more. Returns the pids killed."""
    killed: Set[int] = set()
    for _ in range(rounds):
        found = [p for p in descendants(pid) if (_stat(p) or ["Z"])[0] != "Z"]
        if not found:
            break
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            for member in found:
                try:
                    os.kill(member, sig)
                except (ProcessLookupError, PermissionError):
                    pass
        killed.update(found)
        time.sleep(0.01)
    return killed


def kill_tree(pid: int) -> None:
    """Stop `pid`, kill its descendants, then kill it (and its process group)."""
    for sig in (signal.SIGSTOP,):
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
    kill_descendants(pid)
    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except (ProcessLookupError, PermissionError):
            pass


def reap_children() -> None:
    """Collect exited children (orphans re-parented to a subreaper become its children)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def become_subreaper() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _set(limit: int, value: int) -> None:
    soft, hard = resource.getrlimit(limit)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    try:
        resource.setrlimit(limit, (value, hard))
    except (ValueError, OSError):
        pass


def set_static_limits(memory_mb: int, fsize_mb: int, nproc: int) -> None:
    """Limits that hold for the worker's whole life (0 = no limit of that kind)."""
    if memory_mb > 0:
        _set(resource.RLIMIT_AS, memory_mb << 20)
    if fsize_mb > 0:
        _set(resource.RLIMIT_FSIZE, fsize_mb << 20)
    if nproc > 0:
        _set(resource.RLIMIT_NPROC, user_process_count() + nproc)
    _set(resource.RLIMIT_CORE, 0)  # a killed worker must not leave core files


def arm_cpu_limit(cpu_seconds: float) -> None:
    """Allow `cpu_seconds` more of CPU time from now (RLIMIT_CPU counts the whole life)."""
    if cpu_seconds and cpu_seconds > 0:
        usage = resource.getrusage(resource.RUSAGE_SELF)
        _set(resource.RLIMIT_CPU, int(usage.ru_utime + usage.ru_stime + cpu_seconds) + 1)


def user_process_count() -> int:
    uid, count = os.getuid(), 0
    try:
        names = os.listdir("/proc")
    except OSError:
        return 0
    for name in names:
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    count += 1
            except OSError:
                pass
    return count


def watch_lifeline(fd: Optional[int], parent: int) -> None:
    """In the worker: a daemon thread that kills the worker's tree and exits the worker when
    hybridlint goes away (end of file on the lifeline pipe, or a new parent pid)."""

    def watch():
        while True:
            try:
                if fd is not None:
                    import select

                    ready, _, _ = select.select([fd], [], [], 1.0)
                    if ready and not os.read(fd, 1):
                        break
                else:
                    time.sleep(0.5)
            except (OSError, ValueError):  # user code closed the fd: poll the parent
                time.sleep(0.5)
            if os.getppid() != parent:
                break
        kill_descendants(os.getpid())
        os._exit(70)

    threading.Thread(target=watch, name="hybridlint-lifeline", daemon=True).start()


SHIELDED = tuple(
    s
    for s in (
        getattr(signal, n, None)
        for n in (
            "SIGINT",
            "SIGTERM",
            "SIGHUP",
            "SIGQUIT",
            "SIGUSR1",
            "SIGUSR2",
            "SIGALRM",
            "SIGPIPE",
        )
    )
    if s is not None
)


def import_numpy_shielded() -> None:
    """Import numpy with the shielded signals blocked, so that the threads its BLAS starts
    inherit that mask: a process-directed signal then reaches only the main thread, where
    SignalShield can see who sent it. (If numpy was imported earlier, its threads may take
    such a signal first, and the shield cannot help: "where possible".)"""
    import sys

    if (
        "numpy" in sys.modules
        or threading.current_thread() is not threading.main_thread()
        or not hasattr(signal, "pthread_sigmask")
    ):
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, SHIELDED)
    try:
        import numpy  # noqa: F401
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


class SignalShield:
    """While hybridlint waits for a job: signals sent by the worker's processes are ignored;
    any other blocked signal (a user's Ctrl-C, a kill) is delivered after the wait.

    Works in the main thread only (signal masks are per thread); elsewhere it does nothing.
    """

    SIGNALS = SHIELDED

    def __init__(self):
        self.active = (
            threading.current_thread() is threading.main_thread()
            and hasattr(signal, "pthread_sigmask")
            and hasattr(signal, "sigtimedwait")
        )
        self.pending: List[int] = []
        self.ignored: List[int] = []
        self._old = None

    def __enter__(self) -> "SignalShield":
        if self.active:
            self._old = signal.pthread_sigmask(signal.SIG_BLOCK, self.SIGNALS)
        return self

    def lift_in_child(self) -> None:
        """In a child forked inside the shield: its own signals are not shielded."""
        if self.active:
            signal.pthread_sigmask(signal.SIG_SETMASK, self._old)

    def drain(self, tree: Iterable[int]) -> bool:
        """Handle pending signals; True when a foreign one arrived (stop waiting)."""
        if not self.active:
            return False
        members = set(tree)
        while True:
            info = signal.sigtimedwait(self.SIGNALS, 0)
            if info is None:
                return bool(self.pending)
            if info.si_pid in members:
                self.ignored.append(info.si_signo)
            else:
                self.pending.append(info.si_signo)

    def __exit__(self, *exc) -> None:
        if not self.active:
            return
        signal.pthread_sigmask(signal.SIG_SETMASK, self._old)
        for signo in self.pending:  # deliver what was meant for hybridlint
            os.kill(os.getpid(), signo)
