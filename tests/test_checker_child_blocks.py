"""Examples whose constructor takes a block (a backbone, a base cell) or a numpy array:
`kwargs = { backbone = { block = "Backbone", kwargs = {...} } }`, `{ numpy = [...] }`.

Real blocks take them (gluoncv2's BiSeNet(backbone=...), gluonnlp's CacheCell(lm_model),
gluonts's CustomBinning(bin_centers=np.array)); without a way to write them the block cannot
be given an example at all, so `--verify` can only check its fixes on their expressions."""

import textwrap

import numpy as np
import pytest

from hybridlint.checker import ExampleError, examples_from_config
from hybridlint.checker.inputs import ChildBlock, build_children, config_kwargs
from hybridlint.checker.wire import value_from_wire, value_to_wire
from tests.checker_support import backend_params


def test_a_child_block_and_a_numpy_array_are_read_from_the_table():
    kwargs = config_kwargs(
        {
            "backbone": {"block": "Backbone", "kwargs": {"channels": 4}},
            "cells": [{"block": "gluon.rnn.LSTMCell", "kwargs": {"hidden_size": 3}}],
            "centers": {"numpy": [0.5, 1.5], "dtype": "float64"},
            "table": {"block_size": 2},  # a plain dict keeps being a dict
        }
    )
    assert kwargs["backbone"] == ChildBlock("Backbone", {"channels": 4})
    assert kwargs["cells"] == [ChildBlock("gluon.rnn.LSTMCell", {"hidden_size": 3})]
    assert kwargs["centers"].dtype == np.float64 and kwargs["centers"].tolist() == [0.5, 1.5]
    assert kwargs["table"] == {"block_size": 2}


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"block": 3}, "a child block is"),
        ({"block": "B", "kwargs": [1]}, "a child block is"),
        ({"numpy": [[1], [2, 3]]}, "a numpy kwarg"),
    ],
)
def test_a_malformed_child_is_a_clear_error(entry, message):
    with pytest.raises(ExampleError, match=message):
        examples_from_config({"m.py::Net": {"kwargs": {"x": entry}, "inputs": [[2]]}})


def test_children_are_built_from_the_module_first_and_unknown_names_say_so():
    made = []

    class Backbone:
        def __init__(self, channels, inner=None):
            made.append((channels, inner))

    Gluon = type("Gluon", (), {"Backbone": Backbone})

    spec = ChildBlock(
        "Backbone", {"channels": 2, "inner": ChildBlock("g.Backbone", {"channels": 1})}
    )
    built = build_children({"b": spec, "n": 3}, {"Backbone": Backbone, "g": Gluon})
    assert isinstance(built["b"], Backbone) and built["n"] == 3
    assert made[0] == (1, None) and made[1][0] == 2  # the inner block first
    with pytest.raises(ExampleError, match="child block 'Missing': 'Missing' is neither defined"):
        build_children(ChildBlock("Missing"), {})
    with pytest.raises(ExampleError, match="class 'Missing.X': 'Missing' is neither defined"):
        build_children(ChildBlock("Missing.X", called=False), {})
    # a dotted path from an importable module, as a user writes it (blind round 14)
    assert build_children(ChildBlock("collections.OrderedDict", called=False), {}) is (
        __import__("collections").OrderedDict
    )
    with pytest.raises(ExampleError, match="no 'Nope'"):
        build_children(ChildBlock("g.Nope"), {"g": Gluon})


def test_a_child_block_crosses_the_wire():
    spec = {"backbone": ChildBlock("Backbone", {"channels": 4, "sizes": (1, 2)})}
    assert value_from_wire(value_to_wire(spec)) == spec


SOURCE = textwrap.dedent("""\
    from mxnet import gluon
    from mxnet.gluon import nn


    class Backbone(gluon.HybridBlock):
        def __init__(self, channels, **kwargs):
            super().__init__(**kwargs)
            self.conv = nn.Conv2D(channels, 3, padding=1)

        def hybrid_forward(self, F, x):
            return F.relu(self.conv(x))


    class Head(gluon.HybridBlock):
        def __init__(self, backbone, classes=2, **kwargs):
            super().__init__(**kwargs)
            self.backbone = backbone
            self.fc = nn.Dense(classes)

        def hybrid_forward(self, F, x):
            return self.fc(self.backbone(x)) + x.sum(axis=(1, 2, 3)).reshape(-1, 1)
""")


def _verified(source: str, block: str, kwargs: dict, inputs: list, backend: str):
    """`verify_fixes` of net.py's `block` built with `kwargs` (a config table), which must
    come out verified."""
    from hybridlint.checker import CheckerSession, verify_fixes

    key = f"net.py::{block}"
    examples = examples_from_config({key: {"kwargs": kwargs, "inputs": inputs}})["net.py"]
    with CheckerSession(timeout=60) as session:
        outcome = verify_fixes(source, "net.py", examples, backend=backend, session=session)
    assert outcome.status == "verified", outcome.reports
    return outcome


@pytest.mark.parametrize("backend", backend_params())
def test_a_block_built_around_a_child_is_proven_by_its_example(backend, tmp_path):
    kwargs = {"backbone": {"block": "Backbone", "kwargs": {"channels": 4}}}
    outcome = _verified(SOURCE, "Head", kwargs, [[2, 3, 8, 8]], backend)
    assert "x.sum(axis=(1, 2, 3)).reshape((-1, 1))" in outcome.source
    assert [r.status for r in outcome.reports] == ["equal"]
    assert "F.broadcast_add(" in outcome.source  # (2, classes) + (2, 1): HL007 too
    assert len(outcome.proofs) == 2
    assert all("proven by example Head" in proof.detail for proof in outcome.proofs)


def test_a_class_table_passes_the_class_itself_and_crosses_the_wire():
    """`norm_layer = { class = "nn.BatchNorm" }` (deeplabv3+'s PoolRecover builds its layers
    with the class it is given): the class, not an instance of it."""
    kwargs = config_kwargs({"norm_layer": {"class": "nn.BatchNorm"}})
    assert kwargs["norm_layer"] == ChildBlock("nn.BatchNorm", called=False)
    assert value_from_wire(value_to_wire(kwargs)) == kwargs

    class BatchNorm:
        pass

    nn = type("nn", (), {"BatchNorm": BatchNorm})
    assert build_children(kwargs, {"nn": nn})["norm_layer"] is BatchNorm
    with pytest.raises(ExampleError, match="a class is"):
        examples_from_config({"m.py::Net": {"kwargs": {"x": {"class": 3}}, "inputs": [[2]]}})


@pytest.mark.parametrize("backend", backend_params())
def test_a_block_given_a_layer_class_is_proven_by_its_example(backend):
    source = textwrap.dedent("""\
        from mxnet import gluon
        from mxnet.gluon import nn


        class PoolRecover(gluon.HybridBlock):
            def __init__(self, norm_layer):
                super().__init__()
                self.gap = nn.HybridSequential()
                self.gap.add(nn.GlobalAvgPool2D(), nn.Conv2D(4, 1), norm_layer())

            def hybrid_forward(self, F, x):
                _, _, h, w = x.shape
                return F.contrib.BilinearResize2D(self.gap(x), height=h, width=w)
    """)
    kwargs = {"norm_layer": {"class": "nn.BatchNorm"}}
    outcome = _verified(source, "PoolRecover", kwargs, [[2, 3, 5, 7]], backend)
    assert "like=x, mode='like'" in outcome.source
    assert [r.status for r in outcome.reports] == ["equal"]
