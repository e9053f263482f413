"""The real-world harness's own logic, without downloading anything.

benchmarks/realworld/ measures hybridlint on pinned public model code (it downloads, so the
test suite never runs it whole); what it computes from the packages is tested here on small
inputs: label files are validated strictly, findings get unique keys, and the name counter
resolves names through the engine the way the checker will.
"""

import importlib.util
import sys
from pathlib import Path

import pytest

HARNESS = Path(__file__).resolve().parents[1] / "benchmarks" / "realworld"
sys.path.insert(0, str(HARNESS))  # the scripts import their sibling `packages`


def _load(name):
    spec = importlib.util.spec_from_file_location(f"realworld_{name}", HARNESS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


run = _load("run")
names = _load("names")
PACKAGES = _load("packages").PACKAGES


def test_every_package_is_pinned_by_version_and_hash():
    for package in PACKAGES:
        assert "==" in package.requirement
        assert len(package.sha256) == 64 and int(package.sha256, 16) >= 0
        assert package.name.replace("-", "==", 1) == package.requirement


def test_label_lines_are_validated_and_keys_unique(tmp_path, monkeypatch):
    monkeypatch.setattr(run, "LABELS", str(tmp_path))
    good = "a/b.py:3:5:3:9:HL003\tfalse\tbreaks\tmxnet\ta list of feature maps\n"
    (tmp_path / "pkg-1.tsv").write_text("# comment\n\n" + good)
    labels = run.load_labels("pkg-1")
    assert labels["a/b.py:3:5:3:9:HL003"].fix == "breaks"
    (tmp_path / "pkg-2.tsv").write_text(good + good)
    with pytest.raises(SystemExit, match="labelled twice"):
        run.load_labels("pkg-2")
    (tmp_path / "pkg-3.tsv").write_text(good.replace("false", "maybe"))
    with pytest.raises(SystemExit, match="pkg-3.tsv:1"):
        run.load_labels("pkg-3")
    (tmp_path / "pkg-4.tsv").write_text(good.replace("\ta list of feature maps", "\t "))
    with pytest.raises(SystemExit):
        run.load_labels("pkg-4")
    assert run.load_labels("absent") == {}


def test_findings_on_one_line_get_different_keys():
    common = {"path": "gn.py", "line": 79, "col": 17, "end_line": 79, "code": "HL007"}
    inner = run.key_of({**common, "end_col": 44})
    outer = run.key_of({**common, "end_col": 69})
    assert inner != outer and inner == "gn.py:79:17:79:44:HL007"


SOURCE = """
import mxnet as mx
from mxnet.gluon import nn, HybridBlock

class Head(HybridBlock):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2D(8, 3)
        self.rnn = mx.gluon.rnn.LSTM(4)

    def hybrid_forward(self, G, x):
        y = G.contrib.box_nms(G.relu(x))
        return G.broadcast_add(y, mx.nd.zeros((1,)))

class NotHybrid:
    def forward(self, F, x):
        return F.ignored(x)
"""


def test_uses_are_qualified_in_both_namespaces_and_only_in_hybrid_classes():
    uses = list(names.uses_in_file(SOURCE))
    assert ("mxnet.gluon.nn.Conv2D",) in uses
    assert ("mxnet.gluon.rnn.LSTM",) in uses
    assert ("mxnet.ndarray.contrib.box_nms", "mxnet.symbol.contrib.box_nms") in uses
    assert ("mxnet.nd.zeros",) in uses
    assert not any("ignored" in use[0] for use in uses)
    assert not any(use[0].endswith("contrib") for use in uses)  # outermost chains only


def test_names_resolve_through_the_engine():
    import hybridlint.engine as engine

    with engine.as_mxnet():
        assert names.resolve("mxnet.nd.zeros") == "resolved"
        assert names.resolve("mxnet.symbol.broadcast_add") == "resolved"
        assert names.resolve("mxnet.gluon.nn.Pool2D") == "not_mxnet"  # MXNet lacks it too
        assert names.resolve("mxnet.gluon.model_zoo.vision.resnet18_v1") in ("missing", "resolved")
