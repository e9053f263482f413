"""The benchmark scripts still run (figures are never asserted: tests do not time things).

benchmarks/hybridize.py runs in this process (its `main`, with the script's arguments), with
one change: each variant is timed over one round instead of the >= 1000 forwards a real
measurement needs (`best_times` is wrapped with repeat=1), which was nearly all of the time
these tests took. Every case is still built, checked against the hand-written numpy forward and
timed, and the tables are printed; the MXNet case still drives real MXNet in another
interpreter (the script's own `--serve-mxnet` child process).
"""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "hybridize.py"


def _run(monkeypatch, capsys, *args):
    monkeypatch.setattr(sys, "path", list(sys.path))  # the script inserts the checkout
    spec = importlib.util.spec_from_file_location("hybridize_benchmark", SCRIPT)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    best_times = bench.best_times
    rounds_asked = []

    def one_round(rounds, n, repeat, **kwargs):
        rounds_asked.append(repeat)
        return best_times(rounds, n, 1, **kwargs)

    monkeypatch.setattr(bench, "best_times", one_round)
    bench.main(list(args))
    out = capsys.readouterr().out
    assert rounds_asked and all(r >= 1 for r in rounds_asked), rounds_asked
    return out


def test_hybridize_benchmark_prints_every_case_and_the_memory_table(monkeypatch, capsys):
    out = _run(monkeypatch, capsys, "--no-mxnet", "--repeat", "1")
    for case in ("MLP 512-256-128-2, batch 1", "MLP 512-256-128-2, batch 64", "LeNet"):
        assert out.count(case) == 2, out  # the time table and the memory table
    assert "FAILED" not in out, out
    assert "seed: d = b*a + 1" in out and "real MXNet not installed" in out


@pytest.mark.mxnet
def test_hybridize_benchmark_drives_mxnet_in_another_interpreter(monkeypatch, capsys):
    pytest.importorskip("mxnet")
    out = _run(
        monkeypatch, capsys, "--mxnet-python", sys.executable, "--repeat", "1", "--settle", "0"
    )
    assert "FAILED" not in out, out
    assert "MXNet 1.9.1 in " + sys.executable in out
    lenet = next(line for line in out.splitlines() if line.startswith("LeNet"))
    assert "-" not in lenet.split("|")[0].split()[-1]  # an MXNet hybridized time is there
