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
import shutil
import signal
import stat
import sys
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
    """Stop `pid`, kill its descendants, then kill it (and its process group).

    A keeper (keeper.py) is let go on once what is below it is dead, for up to a second: it
    removes the job's files in /dev/shm and exits by itself."""
    for sig in (signal.SIGSTOP,):
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
    kill_descendants(pid)
    if _is_keeper(pid):
        try:
            os.kill(pid, signal.SIGCONT)
        except (ProcessLookupError, PermissionError):
            pass
        end = time.monotonic() + 1.0
        while time.monotonic() < end and (_stat(pid) or ["Z"])[0] != "Z":
            time.sleep(0.01)
    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except (ProcessLookupError, PermissionError):
            pass


def _is_keeper(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return KEEPER.encode() in handle.read().split(b"\0")
    except OSError:
        return False


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


KEEPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keeper.py")
_job_state: Optional[int] = None  # in the worker: where the keeper reads the job's shm listing


def start_keeper(lifeline: Optional[int], parent: int) -> Optional[int]:
    """Put a keeper (keeper.py) between hybridlint and this process: this pid, the one
    hybridlint started and waits for, becomes the keeper; the call returns in a forked child,
    the worker, once the keeper is ready (subreaper, signals ignored), with the keeper's pid.
    None (and no fork) where there is no /proc or fork."""
    global _job_state
    if not hasattr(os, "fork") or not os.path.isdir("/proc") or not hasattr(os, "memfd_create"):
        return None
    become_subreaper()  # kept across exec: orphans come to the keeper from the first instant
    try:
        state = os.memfd_create("hybridlint-job", 0)
        _write_state(state, shm_listing())  # start-up (and a forked check) is a job too
        ready_r, ready_w = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        for fd in (state, ready_r, ready_w):
            os.close(fd)
        return None
    if pid == 0:  # the worker
        os.close(ready_w)
        os.set_inheritable(state, False)  # not for the programs user code runs
        try:
            os.setsid()  # a killpg of the keeper's group must not reach the worker
        except OSError:
            pass
        _job_state = state
        try:
            import select

            if select.select([ready_r], [], [], 60)[0]:
                os.read(ready_r, 1)
        except OSError:
            pass
        os.close(ready_r)
        return os.getppid()
    os.close(ready_r)  # the keeper
    args = [pid, -1 if lifeline is None else lifeline, parent, state, ready_w]
    try:
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        for inherit in (args[1], state, ready_w):
            if inherit >= 0:
                os.set_inheritable(inherit, True)
        os.execv(
            sys.executable, [sys.executable, "-S", "-E", "-s", KEEPER] + [str(a) for a in args]
        )
    except BaseException:  # noqa: B902 - no new interpreter: keep in this one
        pass
    from .keeper import keep

    keep(*args)  # never returns
    os._exit(70)


SHM = "/dev/shm"


def shm_listing() -> Set[str]:
    try:
        return set(os.listdir(SHM))
    except OSError:
        return set()


def _write_state(fd: int, listing: Optional[Set[str]]) -> None:
    """A job's /dev/shm listing from before it started ("J" and the names), or "I": idle."""
    data = (
        b"I"
        if listing is None
        else b"J\0" + "\0".join(sorted(listing)).encode("utf-8", "surrogateescape")
    )
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)


def job_begins() -> Set[str]:
    """In the worker, before a job: the /dev/shm listing, also left for the keeper."""
    listing = shm_listing()
    if _job_state is not None:
        try:
            _write_state(_job_state, listing)
        except OSError:
            pass
    return listing


def job_ends(before: Optional[Set[str]]) -> None:
    """In the worker, after a job (its processes killed): remove what it left in /dev/shm."""
    if before is not None:
        clean_shm(before)
    if _job_state is not None:
        try:
            _write_state(_job_state, None)
        except OSError:
            pass


def clean_job_shm(state: int) -> None:
    """In the keeper, once the worker is dead: clean up after the job it was running."""
    try:
        data = os.pread(state, 64 << 20, 0)
    except OSError:
        return
    if data.startswith(b"J\0"):
        clean_shm(set(data[2:].decode("utf-8", "surrogateescape").split("\0")))


def _open_elsewhere() -> Set[str]:
    """Paths under /dev/shm that a live process has open or mapped."""
    used: Set[str] = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            for fd in os.listdir(f"/proc/{name}/fd"):
                try:
                    used.add(os.readlink(f"/proc/{name}/fd/{fd}"))
                except OSError:
                    pass
            with open(f"/proc/{name}/maps", "rb") as handle:
                for line in handle:
                    at = line.find(b" /dev/shm/")
                    if at >= 0:
                        path = line[at + 1 :].rstrip(b"\n").decode("utf-8", "surrogateescape")
                        used.add(path)
        except OSError:
            pass
    return used


def clean_shm(before: Set[str]) -> List[str]:
    """Remove what appeared in /dev/shm since `before`, owned by us and open by no live
    process (the job's processes are dead by now; another program's file in use stays)."""
    new = shm_listing() - before
    if not new:
        return []
    uid, removed, used = os.getuid(), [], None
    for name in sorted(new):
        path = os.path.join(SHM, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if info.st_uid != uid:
            continue
        if used is None:
            used = _open_elsewhere()
        if path in used or any(u.startswith(path + "/") for u in used):
            continue
        try:
            if stat.S_ISDIR(info.st_mode):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
            removed.append(name)
        except OSError:
            pass
    return removed


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
# Signals that end or stop a process by default, beyond SHIELDED (issue 24): the worker's
# tree sending them is ignored; from anyone else a stop (the terminal's Ctrl-Z) or a signal
# with a handler is delivered at once, one that would end hybridlint ends the wait as above.
# Synchronous faults (SIGSEGV, SIGBUS, SIGFPE, SIGILL) are not blocked: the kernel would
# deliver a real fault anyway, and blocking them changes nothing for a kill().
STOPS = tuple(getattr(signal, n) for n in ("SIGTSTP", "SIGTTIN", "SIGTTOU") if hasattr(signal, n))
EXTRA = (
    tuple(
        getattr(signal, n)
        for n in (
            "SIGABRT",
            "SIGPROF",
            "SIGVTALRM",
            "SIGIO",
            "SIGPWR",
            "SIGSYS",
            "SIGXCPU",
            "SIGXFSZ",
            "SIGTRAP",
            "SIGSTKFLT",
            "SIGEMT",
            "SIGLOST",
        )
        if hasattr(signal, n)
    )
    + STOPS
    + (
        tuple(range(signal.SIGRTMIN, signal.SIGRTMAX + 1))
        if hasattr(signal, "SIGRTMIN") and hasattr(signal, "SIGRTMAX")
        else ()
    )
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
    old = signal.pthread_sigmask(signal.SIG_BLOCK, SHIELDED + EXTRA)
    try:
        import numpy  # noqa: F401
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _deliver_now(signo: int) -> None:
    """Let one blocked signal through to this process now (a stop stops us right here)."""
    try:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signo])
        try:
            signal.raise_signal(signo)
        finally:
            signal.pthread_sigmask(signal.SIG_BLOCK, [signo])
    except (OSError, ValueError):
        pass


class SignalShield:
    """While hybridlint waits for a job: signals sent by the worker's processes are ignored;
    any other blocked signal (a user's Ctrl-C, a kill) is delivered after the wait.

    Works in the main thread only (signal masks are per thread); elsewhere it does nothing.
    """

    SIGNALS = SHIELDED + EXTRA

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
            elif info.si_signo in SHIELDED or (
                info.si_signo not in STOPS and signal.getsignal(info.si_signo) == signal.SIG_DFL
            ):
                self.pending.append(info.si_signo)  # meant to end hybridlint: stop waiting
            else:
                _deliver_now(info.si_signo)  # Ctrl-Z, a profiler's tick: as if not blocked

    def __exit__(self, *exc) -> None:
        if not self.active:
            return
        signal.pthread_sigmask(signal.SIG_SETMASK, self._old)
        for signo in self.pending:  # deliver what was meant for hybridlint
            # to this thread, handled before raise_signal returns: os.kill(getpid()) may go to
            # another thread that has it unblocked, and the main thread, already unwinding an
            # Interrupted to exit, then never checks for it (CI under load: a Ctrl-C ended the
            # run with a traceback of Interrupted instead of KeyboardInterrupt); inside an outer
            # shield the signal stays pending on this thread until that shield lifts
            signal.raise_signal(signo)
