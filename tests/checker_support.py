"""Shared helpers of the checker tests (not a test module itself)."""

import importlib.util
import os
import signal
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHECKER_DATA = os.path.join(ROOT, "testdata", "checker")


def data(name: str) -> str:
    return os.path.join(CHECKER_DATA, name)


def interruptible(new_group: bool = False):
    """A preexec_fn for a child that must see Ctrl-C as a user's terminal sends it: SIGINT back
    to its default, whatever the runner inherited (a shell starts background jobs with SIGINT
    ignored, and an ignored signal stays ignored across exec: Python then installs no
    KeyboardInterrupt handler). `new_group`: also its own process group (os.setpgrp)."""

    def reset() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if new_group:
            os.setpgrp()

    return reset


def alive(pid: int) -> bool:
    """Is process `pid` running (a zombie is not)? Linux /proc."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_gone(pid: int, limit: float = 20.0) -> bool:
    """Wait up to `limit` seconds for `pid` to end; did it?"""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def engine_redirect_available() -> bool:
    try:
        from hybridlint.engine import as_mxnet  # noqa: F401
    except ImportError:
        return False
    return True


def backend_params():
    """Both backends; `mxnet` marked (skipped without real MXNet), `engine` skipped until
    hybridlint.engine.as_mxnet exists."""
    return [
        pytest.param(
            "engine",
            marks=pytest.mark.skipif(
                not engine_redirect_available(), reason="hybridlint.engine.as_mxnet not available"
            ),
        ),
        pytest.param(
            "mxnet",
            marks=[
                pytest.mark.mxnet,
                pytest.mark.skipif(
                    importlib.util.find_spec("mxnet") is None, reason="real MXNet not installed"
                ),
            ],
        ),
    ]
