"""Children built from definitions another module of the project holds (`from .common import
conv1x1_block`): the analysis reads the factory and the block class it builds
(hybridlint/project.py `FileProject.definitions`, hybridlint/linter.py `_foreign_definitions`),
and a file's cached result follows those modules' bytes.

The real case: gluoncv2's BiSeNet gates a feature map with a pooled, 1x1-convolved copy of it,
the convolution made by `conv1x1_block` of `.common` (labels/gluoncv2-0.0.64.misses.tsv).
"""

import pytest

from hybridlint.linter import lint_source
from tests.cli_support import run_check
from hybridlint.project import Project

COMMON = """\
from mxnet.gluon import nn, HybridBlock


class ConvBlock(HybridBlock):
    def __init__(self, in_channels, out_channels, kernel_size, padding=0,
                 activation=(lambda: nn.Activation("relu")), **kwargs):
        super(ConvBlock, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = nn.Conv2D(out_channels, kernel_size, padding=padding,
                                  in_channels=in_channels)
            self.activ = activation()

    def hybrid_forward(self, F, x):
        x = self.conv(x)
        x = self.activ(x)
        return x


def conv1x1_block(in_channels, out_channels, activation=(lambda: nn.Activation("relu"))):
    return ConvBlock(in_channels, out_channels, kernel_size=KERNEL, activation=activation)
"""
NET = """\
from mxnet.gluon import nn, HybridBlock
from {module} import conv1x1_block


class Gate(HybridBlock):
    def __init__(self, channels, **kwargs):
        super(Gate, self).__init__(**kwargs)
        with self.name_scope():
            self.conv = conv1x1_block(channels, channels,
                                      activation=(lambda: nn.Activation("sigmoid")))

    def hybrid_forward(self, F, x):
        w = F.contrib.AdaptiveAvgPooling2D(x, output_size=1)
        w = self.conv(w)
        return x * w
"""
GATE_LINE = 15


def _write(root, kernel: int = 1, module: str = ".common"):
    (root / "pyproject.toml").write_text("[tool.hybridlint]\n")
    package = root / "pkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "common.py").write_text(COMMON.replace("KERNEL", str(kernel)))
    (package / "net.py").write_text(NET.format(module=module))
    return package / "net.py"


def _gate_findings(path) -> list:
    return [
        (f.code, f.line)
        for f in lint_source(path.read_text(), str(path))
        if (f.code, f.line) == ("HL007", GATE_LINE)
    ]


@pytest.mark.parametrize("module", [".common", "pkg.common"])
def test_a_gate_through_an_imported_factory_is_reported(tmp_path, module):
    net = _write(tmp_path, module=module)
    assert _gate_findings(net) == [("HL007", GATE_LINE)]


def test_an_imported_factory_of_a_3x3_convolution_is_no_evidence(tmp_path):
    """A 3x3 convolution without padding does not keep the gate's 1s: nothing is known."""
    net = _write(tmp_path, kernel=3)
    assert _gate_findings(net) == []


def test_without_the_module_on_disk_nothing_is_known(tmp_path):
    net = _write(tmp_path)
    (tmp_path / "pkg" / "common.py").unlink()
    assert _gate_findings(net) == []


def test_a_module_whose_definitions_call_a_name_the_file_binds_is_not_read(tmp_path):
    """The factory calls `ConvBlock`, which the file defines too (a block that keeps the 1s):
    definitions are looked up by name, so the module's would be read as the file's; the
    module is not read at all, and nothing is known (no finding, rather than a wrong one)."""
    net = _write(tmp_path, kernel=3)
    own = (
        "\n\nclass ConvBlock(HybridBlock):\n    def hybrid_forward(self, F, x):\n        return x\n"
    )
    net.write_text(net.read_text() + own)
    assert _gate_findings(net) == []


def test_the_file_project_names_the_definitions_and_their_digests(tmp_path):
    net = _write(tmp_path)
    project = Project()
    with_texts = project.for_source(net.read_text(), str(net))
    assert [d.module for d in with_texts.definitions] == ["pkg.common"]
    assert with_texts.definitions[0].text == COMMON.replace("KERNEL", "1")
    imports = (("", "mxnet.gluon"), (".", "common"))
    digests_only = Project().for_file(str(net), False, texts=False, imports=imports)
    assert digests_only.key == with_texts.key != ""
    (tmp_path / "pkg" / "common.py").write_text(COMMON.replace("KERNEL", "3"))
    changed = Project().for_source(net.read_text(), str(net))
    assert changed.key != with_texts.key


_hybridlint = run_check


@pytest.fixture()
def _own_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("user-cache")))


@pytest.mark.usefixtures("_own_cache")
def test_a_cached_result_follows_the_definitions_module(tmp_path):
    """net.py unchanged, only the module it imports from changes: a cached run must see it,
    both ways (the cache key holds the definitions' digests)."""
    _write(tmp_path)
    reported = f"pkg/net.py:{GATE_LINE}:16: HL007"
    first = _hybridlint(tmp_path, "pkg/net.py")
    assert first.returncode == 1 and reported in first.stdout, first.stdout + first.stderr
    (tmp_path / "pkg" / "common.py").write_text(COMMON.replace("KERNEL", "3"))
    cached = _hybridlint(tmp_path, "pkg/net.py")
    assert cached.returncode == 0 and reported not in cached.stdout, cached.stdout
    (tmp_path / "pkg" / "common.py").write_text(COMMON.replace("KERNEL", "1"))
    back = _hybridlint(tmp_path, "pkg/net.py")
    assert back.returncode == 1 and reported in back.stdout, back.stdout + back.stderr
    piped = _hybridlint(
        tmp_path, "--stdin-filename", "pkg/net.py", "-", stdin=(tmp_path / "pkg/net.py").read_text()
    )
    assert reported in piped.stdout, piped.stdout + piped.stderr
