"""An import that the fixes made unused is removed (``nd`` once ``nd.relu`` became
``F.relu``); nothing else about imports changes."""

import pytest

from hybridlint import fix_source
from hybridlint.imports import drop_unused_imports

BLOCK = (
    "\n\nclass Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
    "        return nd.relu(x) + x.shape[0]\n"
)


@pytest.mark.parametrize(
    "imports, expected",
    [
        ("from mxnet import nd\n", ""),
        ("from mxnet import nd, gluon\n", "from mxnet import gluon\n"),
        ("from mxnet import gluon, nd as ndarray\n", None),  # ndarray is not the name used
        ("import mxnet.ndarray as nd\n", ""),
        ("from mxnet import nd  # the eager namespace\n", None),  # a comment: left alone
        ("import os; from mxnet import nd\n", None),  # shares a line: left alone
        ("import mxnet as mx\nfrom mxnet import nd\n", "import mxnet as mx\n"),  # mx stays
    ],
)
def test_the_import_a_fix_made_unused_goes(imports, expected):
    source = imports + "from mxnet.gluon import HybridBlock\n" + BLOCK
    result = fix_source(source, "m.py")
    assert "F.relu(x)" in result.source
    if expected is None:
        assert result.source.startswith(imports)
    else:
        assert result.source.startswith(expected + "from mxnet.gluon import HybridBlock\n")
    # remaining findings point at their lines in the fixed source
    lines = result.source.split("\n")
    for finding in result.remaining:
        assert "x.shape" in lines[finding.line - 1]


@pytest.mark.parametrize(
    "imports, expected",
    [
        # `mx.nd.relu` was its only use; `from mxnet.gluon import ...` still imports mxnet
        ("import mxnet as mx\n", ""),
        ("import mxnet\n", ""),
    ],
)
def test_mxnet_itself_goes_when_the_fixes_made_it_unused(imports, expected):
    block = BLOCK.replace(
        "nd.relu(x)", "mxnet.nd.relu(x)" if imports == "import mxnet\n" else "mx.nd.relu(x)"
    )
    source = imports + "from mxnet.gluon import HybridBlock\n" + block
    result = fix_source(source, "m.py")
    assert "F.relu(x)" in result.source
    assert result.source.startswith(expected + "from mxnet.gluon import HybridBlock\n")


def test_mxnet_stays_without_another_mxnet_import_or_while_used():
    lone = "import mxnet as mx\nfrom gluon_shim import HybridBlock\n" + BLOCK.replace(
        "nd.relu", "mx.nd.relu"
    )
    fixed = fix_source(lone, "m.py").source
    assert "F.relu(x)" in fixed and fixed.startswith("import mxnet as mx\n")
    used = (
        "import mxnet as mx\nfrom mxnet.gluon import HybridBlock\nCTX = mx.cpu()\n"
        + BLOCK.replace("nd.relu", "mx.nd.relu")
    )
    fixed = fix_source(used, "m.py").source
    assert "F.relu(x)" in fixed and fixed.startswith("import mxnet as mx\n")


def test_still_used_exported_or_unused_before_is_kept():
    source = (
        "from mxnet import nd\nimport numpy as np\nfrom mxnet.gluon import HybridBlock\n"
        "\nZEROS = nd.zeros\n" + BLOCK
    )
    assert fix_source(source, "m.py").source.startswith("from mxnet import nd\nimport numpy")
    exported = (
        "from mxnet import nd\n__all__ = ['nd']\nfrom mxnet.gluon import HybridBlock\n" + BLOCK
    )
    assert fix_source(exported, "m.py").source.startswith("from mxnet import nd\n")


def test_nothing_changes_without_fixes():
    source = "from mxnet import nd\n"
    assert drop_unused_imports(source, source) == (source, [])
