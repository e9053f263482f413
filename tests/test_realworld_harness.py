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
        # name = <project>-<version>; a project name may hold hyphens (autogluon-contrib-nlp)
        assert "==".join(package.name.rsplit("-", 1)) == package.requirement


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


def test_miss_lines_are_validated(tmp_path, monkeypatch):
    monkeypatch.setattr(run, "LABELS", str(tmp_path))
    good = "a/b.py:12:HL007\tmxnet\t(B,1) - (B,) fails hybridized\n"
    (tmp_path / "pkg-1.misses.tsv").write_text(
        "# key\thow\treason\n" + good + "a/c.py:3:*\tread\tno rule yet\n"
    )
    misses = run.load_misses("pkg-1")
    assert misses["a/b.py:12:HL007"].how == "mxnet" and "a/c.py:3:*" in misses
    (tmp_path / "pkg-2.misses.tsv").write_text(good + good)
    with pytest.raises(SystemExit, match="listed twice"):
        run.load_misses("pkg-2")
    for bad in (
        "a/b.py:12:13:HL007\tmxnet\tspan keys are for findings\n",
        "a/b.py:0:HL007\tmxnet\tline 0\n",
        "a/b.py:12:E501\tmxnet\tnot a hybridlint code\n",
        "a/b.py:12:HL007\tguess\tunknown how\n",
        "a/b.py:12:HL007\tmxnet\t \n",
    ):
        (tmp_path / "pkg-3.misses.tsv").write_text(bad)
        with pytest.raises(SystemExit, match="pkg-3.misses.tsv:1"):
            run.load_misses("pkg-3")
    assert run.load_misses("absent") == {}


def test_recall_counts_true_findings_against_misses_still_open():
    misses = {
        "m.py:10:HL007": run.Miss("mxnet", "r"),
        "m.py:20:HL005": run.Miss("mxnet", "r"),
        "m.py:30:*": run.Miss("mxnet", "r"),
        "m.py:40:HL013": run.Miss("read", "r"),
    }
    findings = [
        {"path": "m.py", "line": 10, "code": "HL007"},  # the miss is reported now
        {"path": "m.py", "line": 20, "code": "HL006"},  # same line, another class: still missed
        {"path": "m.py", "line": 30, "code": "HL008"},  # `*`: any finding on the line reports it
        {"path": "other.py", "line": 40, "code": "HL013"},  # another file
    ]
    still, found = run.match_misses(misses, findings)
    assert found == ["m.py:10:HL007", "m.py:30:*"]
    assert still == ["m.py:20:HL005", "m.py:40:HL013"]
    assert run.recall(6, len(still)).strip() == "75.0%"  # 6 true findings, 2 misses: 6 / 8
    assert run.recall(3, 0).strip() == "100.0%"
    assert run.recall(0, 4).strip() == "0.0%"
    assert run.recall(0, 0).strip() == "-"


def test_the_repository_label_and_miss_files_parse():
    for package in PACKAGES:
        run.load_labels(package.name)
        run.load_misses(package.name)
