"""A hybrid_forward inherited from a class of another module of the project: the subclass's
overrides of the methods it calls run in the graph (hybridlint/linter.py
`inherited_hybrid_classes`, rules/analysis.py `analyze(inherited=...)`).

The real case: accel-brain-base's RepellingCAE, ConvolutionalLadderNetworks and NN3DHybrid
override only `forward_propagation`, which the hybrid_forward of their base, imported from
another module, calls (labels/accel-brain-base-1.1.0.misses.tsv).
"""

import pytest

from hybridlint.linter import lint_source, may_contain_hybrid_code
from hybridlint.project import FileFacts, Project, facts_of
from tests.cli_support import run_check

BASE = """\
from mxnet import gluon


class Net(gluon.HybridBlock):
    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = gluon.nn.Dense(units)

    def hybrid_forward(self, F, x):
        return self.forward_propagation(F, x)

    def forward_propagation(self, F, x):
        return self.dense(x)
"""
SUB = """\
from {module} import Net


class Sub(Net):
    def forward_propagation(self, F, x):
        y = self.dense(x)
        return y / x.shape[0]


class Unrelated(object):
    def forward_propagation(self, F, x):
        return x.shape
"""
SHAPE_LINE = 7


def _write(root, module: str = ".base", base: str = BASE):
    (root / "pyproject.toml").write_text("[tool.hybridlint]\n")
    package = root / "pkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(base)
    (package / "sub.py").write_text(SUB.format(module=module))
    return package / "sub.py"


def _findings(path) -> list:
    return [(f.code, f.line) for f in lint_source(path.read_text(), str(path))]


@pytest.mark.parametrize("module", [".base", "pkg.base"])
def test_an_override_of_what_an_imported_hybrid_forward_calls_is_linted(tmp_path, module):
    sub = _write(tmp_path, module)
    assert may_contain_hybrid_code(sub.read_text(), str(sub))
    assert _findings(sub) == [("HL001", SHAPE_LINE)]  # not the unrelated class's `x.shape`


def test_the_base_modules_own_findings_stay_in_its_own_file(tmp_path):
    """The inherited hybrid_forward is analysed with the subclass, never reported in it (its
    hazard belongs to the base's file)."""
    hazard = "return self.forward_propagation(F, x.reshape(x.shape[0], -1))"
    sub = _write(tmp_path, base=BASE.replace("return self.forward_propagation(F, x)", hazard))
    assert _findings(sub) == [("HL001", SHAPE_LINE)]
    base = tmp_path / "pkg" / "base.py"
    assert ("HL001", 11) in _findings(base)


def test_a_base_without_a_hybrid_forward_makes_nothing_hybrid(tmp_path):
    sub = _write(tmp_path, base=BASE.replace("def hybrid_forward", "def forward"))
    assert not may_contain_hybrid_code(sub.read_text(), str(sub))
    assert _findings(sub) == []


def test_without_the_base_module_nothing_is_known(tmp_path):
    sub = _write(tmp_path)
    (tmp_path / "pkg" / "base.py").unlink()
    assert _findings(sub) == []


def test_the_facts_name_the_bases_imports_of_a_file_without_a_hybrid_forward(tmp_path):
    sub = _write(tmp_path)
    assert facts_of(sub.read_bytes()) == FileFacts(False, (), ((".", "base"),))
    # a file holding a hybrid_forward names all its imports already
    assert facts_of(BASE.encode()).bases == ()
    project = Project().for_source(sub.read_text(), str(sub))
    assert [d.module for d in project.definitions] == ["pkg.base"] and project.key


def test_a_class_of_the_file_holding_a_hybrid_forward_inherits_too(tmp_path):
    """A file with hybrid code of its own: its subclass of an imported hybrid class is
    analysed with that class's hybrid_forward as well."""
    sub = _write(tmp_path)
    own = (
        "\n\nclass Other(Net):\n    def hybrid_forward(self, F, x):\n        return self.dense(x)\n"
    )
    sub.write_text(sub.read_text() + own)
    assert _findings(sub) == [("HL001", SHAPE_LINE)]


_hybridlint = run_check


@pytest.fixture()
def _own_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


@pytest.mark.usefixtures("_own_cache")
def test_a_cached_result_follows_the_base_module(tmp_path):
    """sub.py unchanged, only its base's module changes: a cached run must see it, both ways
    (the cache key holds the definitions' digests; the file's facts name the base's module)."""
    _write(tmp_path)
    reported = f"pkg/sub.py:{SHAPE_LINE}:20: HL001"
    first = _hybridlint(tmp_path, "pkg/sub.py")
    assert first.returncode == 1 and reported in first.stdout, first.stdout + first.stderr
    (tmp_path / "pkg" / "base.py").write_text(BASE.replace("def hybrid_forward", "def forward"))
    cached = _hybridlint(tmp_path, "pkg/sub.py")
    assert cached.returncode == 0 and reported not in cached.stdout, cached.stdout
    (tmp_path / "pkg" / "base.py").write_text(BASE)
    back = _hybridlint(tmp_path, "pkg")
    assert back.returncode == 1 and reported in back.stdout, back.stdout + back.stderr


UNREGISTERED = """\
from mxnet import gluon


class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = gluon.Parameter("w", shape=(4,))

    def hybrid_forward(self, F, x, w):
        return self.forward_propagation(F, x) * w

    def forward_propagation(self, F, x):
        return x
"""


def test_a_class_fact_of_the_base_module_is_left_to_the_base_file(tmp_path):
    # HL012's unregistered Parameter is a fact of the inherited __init__: its node is in the
    # base module's tree, reported when base.py is linted, never a crash of sub.py's lint
    sub = _write(tmp_path, base=UNREGISTERED)
    assert _findings(sub) == [("HL001", SHAPE_LINE)]
    assert ("HL012", 7) in _findings(tmp_path / "pkg" / "base.py")


def test_a_base_in_another_region_of_the_same_file_reports_in_its_own_region():
    source = (
        UNREGISTERED
        + "\n\nX = 1\n\n\nclass Sub(Net):\n    def forward_propagation(self, F, x):\n        return x * 2\n"
    )
    assert [(f.code, f.line) for f in lint_source(source, "net.py")] == [("HL012", 7)]


def test_an_import_with_a_comment_on_its_first_line_names_the_base(tmp_path):
    sub = _write(tmp_path)
    sub.write_text(
        SUB.format(module=".base").replace("import Net", "import (  # bases\n    Net,\n)")
    )
    assert _findings(sub) == [("HL001", SHAPE_LINE + 2)]


def test_a_local_class_named_like_the_imported_base_shadows_it(tmp_path):
    sub = _write(tmp_path)
    local = "\n\nclass Net(object):\n    def forward_propagation(self, F, x):\n        return x\n"
    text = SUB.format(module=".base").replace("\n\nclass Sub(Net)", local + "\n\nclass Sub(Net)")
    sub.write_text(text)
    assert _findings(sub) == []
