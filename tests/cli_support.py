"""Running the hybridlint CLI in-process for the CLI tests."""

import os
import subprocess
import sys

from click.testing import CliRunner, Result

from hybridlint.cli import cli


def invoke(*args: str) -> Result:
    """`hybridlint ARGS...` with stdout and stderr kept apart (click < 8.2 mixes them unless
    told not to; click >= 8.2 always separates them and has no such argument)."""
    try:
        return CliRunner(mix_stderr=False).invoke(cli, list(args))
    except TypeError:
        return CliRunner().invoke(cli, list(args))


def read_pty(master: int) -> bytes:
    """Everything a process wrote to the pseudo-terminal whose master end is `master`, until it
    closes its side (Linux then fails the read with EIO, which ends the stream)."""
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    return b"".join(chunks)


def run_check(root, *args: str, stdin=None) -> subprocess.CompletedProcess:
    """`python -m hybridlint check ARGS...` as a process in `root` (its own cache and
    configuration discovery, as a user's shell runs it), without HYBRIDLINT_DEBUG."""
    env = {**os.environ}
    env.pop("HYBRIDLINT_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "hybridlint", "check", *args],
        cwd=root,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
    )
