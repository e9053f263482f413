"""User code that starts processes, burns CPU, writes big files or signals hybridlint: the
limits tests (tests/test_checker_limits.py). Paths come from $HYBRIDLINT_TEST_DIR."""
import os
import signal
import subprocess
import sys
import time

from mxnet import gluon

HERE = os.environ.get("HYBRIDLINT_TEST_DIR", "/tmp")


def _daemon(name):
    """A double-forked `setsid` sleeper (a daemon); its pid goes to HERE/name."""
    code = ("import os, sys, time\n"
            "if os.fork(): sys.exit(0)\n"
            "os.setsid()\n"
            "if os.fork(): sys.exit(0)\n"
            f"open(os.path.join({HERE!r}, {name!r}), 'w').write(str(os.getpid()))\n"
            "time.sleep(1000)\n")
    subprocess.Popen([sys.executable, "-c", code]).wait()
    path = os.path.join(HERE, name)
    while not os.path.exists(path) or not open(path).read():
        time.sleep(0.05)


class Daemon(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if not os.path.exists(os.path.join(HERE, "daemon.pid")):
            _daemon("daemon.pid")
        return x * 2


class DaemonThenHang(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        _daemon("hang_daemon.pid")
        open(os.path.join(HERE, "worker.pid"), "w").write(str(os.getpid()))
        while True:
            time.sleep(0.1)


class HungryChildren(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        for _ in range(3):     # each child alone stays under the limit; together they do not
            subprocess.Popen([sys.executable, "-c", "b = bytearray(300 << 20)\n"
                              "import time; time.sleep(1000)"], start_new_session=True)
        while True:
            time.sleep(0.1)


class CpuBurn(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        while True:
            pass


class BigFile(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        with open(os.path.join(HERE, "big.bin"), "wb") as out:
            out.write(b"\0" * (3 << 20))
        return x


class SignalsParent(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
            os.kill(os.getppid(), sig)
            try:
                os.killpg(os.getpgid(os.getppid()), sig)
            except OSError:
                pass
        time.sleep(0.5)
        return x * 2


class SignalsParentAndReturns(gluon.HybridBlock):
    """The report can reach hybridlint before any watchdog tick drained the signals."""

    def hybrid_forward(self, F, x):
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1):
            os.kill(os.getppid(), sig)
        return x * 2
