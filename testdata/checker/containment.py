"""User code that outlives its worker, fills /dev/shm or signals its parent: the containment
tests (tests/test_checker_containment.py). Paths come from $HYBRIDLINT_TEST_DIR; the names of
the /dev/shm files from $HYBRIDLINT_TEST_SHM (a prefix unique to the test)."""
import os
import signal
import subprocess
import sys
import time

from mxnet import gluon

HERE = os.environ.get("HYBRIDLINT_TEST_DIR", "/tmp")
SHM = os.environ.get("HYBRIDLINT_TEST_SHM", "/dev/shm/hl-test-")
HOW = os.environ.get("HYBRIDLINT_TEST_HOW", "")


def _orphan():
    """A double-forked `setsid` daemon that writes its pid, waits for HERE/release (at most
    60 s), then writes HERE/orphan.marker."""
    code = ("import os, sys, time\n"
            "if os.fork(): sys.exit(0)\n"
            "os.setsid()\n"
            "if os.fork(): sys.exit(0)\n"
            f"open(os.path.join({HERE!r}, 'orphan.pid'), 'w').write(str(os.getpid()))\n"
            "end = time.time() + 60\n"
            f"while time.time() < end and not os.path.exists(os.path.join({HERE!r}, 'release')):\n"
            "    time.sleep(0.05)\n"
            f"open(os.path.join({HERE!r}, 'orphan.marker'), 'w').write('alive')\n")
    subprocess.Popen([sys.executable, "-c", code]).wait()
    path = os.path.join(HERE, "orphan.pid")
    while not os.path.exists(path) or not open(path).read():
        time.sleep(0.05)


def _die(how):
    """The worker dies of `how`: segv, kill (itself), child (killed by its own child), cpu."""
    if how == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    elif how == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif how == "child":
        subprocess.Popen([sys.executable, "-c", f"import os; os.kill({os.getpid()}, 9)"]).wait()
    elif how == "cpu":
        while True:
            pass
    time.sleep(30)


class OrphanThenDie(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        _orphan()
        _die(HOW)
        return x


class ShmThenReturn(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        with open(SHM + "returns", "wb") as out:
            out.write(b"\0" * (1 << 20))
        return x * 2


class ShmThenDie(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        with open(SHM + "dies", "wb") as out:
            out.write(b"\0" * (1 << 20))
        _die(HOW)
        return x


class ShmThenHang(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        with open(SHM + "hangs", "wb") as out:
            out.write(b"\0" * (1 << 20))
        while True:
            time.sleep(0.1)


LISTED = [getattr(signal, name) for name in (
    "SIGABRT", "SIGPROF", "SIGVTALRM", "SIGIO", "SIGPWR", "SIGSYS", "SIGRTMIN", "SIGTSTP",
    "SIGTTIN", "SIGTTOU", "SIGXCPU", "SIGTRAP", "SIGURG", "SIGWINCH",
) if hasattr(signal, name)] + [signal.SIGRTMIN + 5, signal.SIGRTMAX]


def _target():
    if HOW == "hybridlint":  # hybridlint itself, found as the test's script wrote it
        return int(open(os.path.join(HERE, "hybridlint.pid")).read())
    return os.getppid()


class SignalsParent(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        target = _target()
        for sig in LISTED:
            os.kill(target, sig)
        time.sleep(0.5)
        return x * 2


class KillsParent(gluon.HybridBlock):
    """SIGKILL to the worker's parent: that job may be lost, never the run."""

    def hybrid_forward(self, F, x):
        os.kill(os.getppid(), signal.SIGKILL)
        time.sleep(3)
        return x * 2


class Plain(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return x * 2
