"""benchmarks/realworld/verify_without_examples.py reads what `--fix --verify` says of each fix
(its figures are the note's; here: that its reading of the notes is right)."""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "realworld" / "verify_without_examples.py"


def _script(monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))  # the script inserts its folder
    spec = importlib.util.spec_from_file_location("verify_without_examples", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_notes_of_a_run_are_read_per_fix(tmp_path, monkeypatch):
    script = _script(monkeypatch)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "net.py").write_text(
        "from mxnet import gluon\n\n\nclass Net(gluon.HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n"
        "        y = x.reshape(0, -1)\n"
        "        return (y + self.b)[0]\n"
    )
    found = script.notes(str(tmp_path))
    assert ("pkg/net.py", 6, "HL011", "proven") in [f[:4] for f in found]
    # a safe fix the check cannot run is applied as --fix applies it, with the reason
    (held,) = [f for f in found if f[2] == "HL003"]
    assert held[3] == "unverified" and "uses self" in held[4]


def test_a_label_key_names_its_site(monkeypatch):
    script = _script(monkeypatch)
    assert script._site("a/b.py:88:54:88:66:HL003") == "a/b.py:88:HL003"
