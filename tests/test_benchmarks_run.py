"""The benchmark scripts still run (figures are never asserted: tests do not time things)."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "hybridize.py"), *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_hybridize_benchmark_prints_every_case_and_the_memory_table():
    out = _run("--no-mxnet", "--repeat", "1")
    for case in ("MLP 512-256-128-2, batch 1", "MLP 512-256-128-2, batch 64", "LeNet"):
        assert out.count(case) == 2, out  # the time table and the memory table
    assert "seed: d = b*a + 1" in out and "real MXNet not installed" in out


@pytest.mark.mxnet
def test_hybridize_benchmark_drives_mxnet_in_another_interpreter():
    pytest.importorskip("mxnet")
    out = _run("--mxnet-python", sys.executable, "--repeat", "1", "--settle", "0")
    assert "MXNet 1.9.1 in " + sys.executable in out
    lenet = next(line for line in out.splitlines() if line.startswith("LeNet"))
    assert "-" not in lenet.split("|")[0].split()[-1]  # an MXNet hybridized time is there
