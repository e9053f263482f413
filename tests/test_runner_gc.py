"""A run collects garbage less often while it lints (speed), and leaves the interpreter's
collector as it found it."""

from __future__ import annotations

import gc

from hybridlint import runner
from hybridlint.config import load_config

SOURCE = """from mxnet.gluon import HybridBlock


class Net(HybridBlock):
    def hybrid_forward(self, F, x):
        return x.shape
"""


def test_a_run_lints_with_fewer_collections_and_restores_the_thresholds(tmp_path, monkeypatch):
    path = tmp_path / "net.py"
    path.write_text(SOURCE, encoding="utf-8")
    seen = []
    real_work = runner._work

    def work(*args):
        seen.append(gc.get_threshold())
        return real_work(*args)

    monkeypatch.setattr(runner, "_work", work)
    before = (700, 10, 10)
    previous = gc.get_threshold()
    gc.set_threshold(*before)
    try:
        options = runner.RunOptions(config=load_config([str(path)]), jobs=1, use_cache=False)
        result = runner.run([str(path)], options)
        after = gc.get_threshold()
    finally:
        gc.set_threshold(*previous)
    assert [issue.code for issue in result.issues] == ["HL001"]
    assert seen == [runner._GC_THRESHOLDS] and runner._GC_THRESHOLDS[0] > before[0]
    assert after == before
