"""rules/module_context.py: how rules resolve the file's imports and its classes' hybrid kind."""

import ast

import pytest

from hybridlint.rules.module_context import HYBRID_GLUON, NON_HYBRID_GLUON, module_context


def context(source: str):
    return module_context(ast.parse(source))


@pytest.mark.parametrize(
    "source, dotted, qualified",
    [
        ("import mxnet as mx", "mx.nd.relu", "mxnet.ndarray.relu"),
        ("import mxnet as mx", "mx.sym.relu", "mxnet.symbol.relu"),
        (
            "import mxnet as mx",
            "mx.ndarray.contrib.arange_like",
            "mxnet.ndarray.contrib.arange_like",
        ),
        ("from mxnet import nd", "nd.relu", "mxnet.ndarray.relu"),
        ("from mxnet import nd as N", "N.relu", "mxnet.ndarray.relu"),
        ("import mxnet.ndarray as F2", "F2.relu", "mxnet.ndarray.relu"),
        ("from mxnet import symbol as S", "S.tanh", "mxnet.symbol.tanh"),
        ("import mxnet", "mxnet.nd.relu", "mxnet.ndarray.relu"),
        ("from mxnet.gluon import nn", "nn.Sequential", "mxnet.gluon.nn.Sequential"),
        (
            "try:\n    import mxnet as mx\nexcept ImportError:\n    mx = None",
            "mx.nd.relu",
            "mxnet.ndarray.relu",
        ),
        ("", "nd.relu", "mxnet.ndarray.relu"),  # unbound: conventional names
        ("from mylib import nd", "nd.relu", "mylib.nd.relu"),  # bound to something else: not mxnet
        ("nd = load_backend()", "nd.relu", None),
        ("import numpy as np", "np.array", "numpy.array"),
        ("", "F.relu", None),
    ],
)
def test_qualify(source, dotted, qualified):
    assert context(source).qualify(dotted) == qualified


def test_hybrid_kind_of_gluon_and_module_classes():
    ctx = context(
        "from mxnet import gluon\nfrom mxnet.gluon import nn, HybridBlock\n"
        "class A(gluon.HybridBlock): pass\nclass B(A): pass\nclass C(gluon.Block): pass\n"
        "class D(C): pass\nclass E(Unknown): pass\nclass F(C, HybridBlock): pass\n"
        "class G(G): pass\n"
    )
    assert ctx.hybrid_kind("nn.Dense") is True and ctx.hybrid_kind("nn.HybridSequential") is True
    assert ctx.hybrid_kind("nn.Sequential") is False and ctx.hybrid_kind("gluon.Block") is False
    assert [ctx.hybrid_kind(name) for name in "ABCDEFG"] == [
        True,
        True,
        False,
        False,
        None,
        True,
        None,
    ]
    assert ctx.hybrid_kind("nn.Unheard") is None and ctx.hybrid_kind(None) is None


@pytest.mark.mxnet
def test_gluon_class_tables_match_real_mxnet():
    mx = pytest.importorskip("mxnet")
    from mxnet.gluon import Block, HybridBlock, nn, rnn
    from mxnet.gluon.contrib import nn as contrib_nn

    for module in (nn, rnn, contrib_nn):
        for name in dir(module):
            value = getattr(module, name)
            if isinstance(value, type) and issubclass(value, Block):
                hybrid = issubclass(value, HybridBlock)
                assert (name in HYBRID_GLUON) == hybrid and (name in NON_HYBRID_GLUON) == (
                    not hybrid
                ), name
    assert mx.__version__ == "1.9.1"
