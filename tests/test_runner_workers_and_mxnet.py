"""Workers are forked, unless MXNet is loaded in the running process: forking it while its
engine threads run aborted a CI run ('Fatal Python error: Aborted' in os.fork), and spawned
workers failed on CI too (`SemLock._rebuild` FileNotFoundError), so the files are then
linted in this process, which must give the same findings."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from hybridlint import runner

SOURCE = """from mxnet.gluon import HybridBlock


class Net{n}(HybridBlock):
    def hybrid_forward(self, F, x):
        return x.reshape((x.shape[0], -1)){pad}
"""


def test_workers_are_forked_without_mxnet_and_not_used_with_it(monkeypatch):
    monkeypatch.delitem(sys.modules, "mxnet", raising=False)
    assert runner._can_fork_workers()
    pool = runner._new_pool(2)
    assert pool is not None
    pool.shutdown()
    monkeypatch.setitem(sys.modules, "mxnet", type(sys)("mxnet"))
    assert not runner._can_fork_workers()
    assert runner._new_pool(2) is None


def test_an_in_process_run_finds_what_forked_workers_do(tmp_path):
    # enough text for a pool (runner.SERIAL_MAX_BYTES), in a process where "mxnet" is loaded
    pad = "\n" + "# padding\n" * (runner.SERIAL_MAX_BYTES // 20)
    for n in range(4):
        (tmp_path / f"net{n}.py").write_text(SOURCE.format(n=n, pad=pad), encoding="utf-8")
    script = textwrap.dedent(
        f"""
        import sys
        if sys.argv[1] == "mxnet":
            sys.modules["mxnet"] = type(sys)("mxnet")  # what the runner looks for
        from hybridlint import runner
        from hybridlint.config import load_config
        paths = [{str(tmp_path)!r}]
        options = runner.RunOptions(config=load_config(paths), jobs=2, use_cache=False)
        result = runner.run(paths, options)
        print(sorted((i.path.rsplit("/", 1)[-1], i.line, i.code) for i in result.issues))
        """
    )
    found = [
        subprocess.run(
            [sys.executable, "-c", script, mode], capture_output=True, text=True, check=True
        ).stdout
        for mode in ("plain", "mxnet")
    ]
    assert found[0] == found[1]
    assert found[0].count("HL001") == 4
