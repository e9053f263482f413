"""HL018: an input used as a Python value works hybridized only at its default. The example
harness calls blocks with arrays only, so it cannot show this; here a caller passes the value:
gluon refuses a Python bool/int input hybridized, and an array in its place fails at the Python
use. Also: a None output fails hybridized. Checked on the engine and on MXNet 1.9.1."""

import pytest

from hybridlint.linter import lint_source
from hybridlint.rules.hl018_non_array_input_output import NonArrayInputOutput

from ground_truth_support import BACKENDS, backend

_SOURCE = """\
class Flag(nn.HybridBlock):
    def hybrid_forward(self, F, x, is_train=True):
        return x * 2 if not is_train else x


class Steps(nn.HybridBlock):
    def hybrid_forward(self, F, x, steps: int = 1):
        for _ in range(steps):
            x = F.relu(x) + 1
        return x


class NoneOut(nn.HybridBlock):
    def hybrid_forward(self, F, x, cache=None):
        return x + 1, cache


class Depth(nn.HybridBlock):
    def hybrid_forward(self, F, x, units=None):
        if units is None:
            units = 5
        return F.one_hot(x, depth=units)


class Parent(nn.HybridBlock):
    def __init__(self):
        super().__init__()
        self.depth = Depth()

    def hybrid_forward(self, F, x):
        return self.depth(x, 4)
"""


def _blocks(mx):
    namespace: dict = {"nn": mx.gluon.nn}  # the engine's or MXNet's
    exec(compile(_SOURCE, "<hl018>", "exec"), namespace)
    return namespace


def _fails(block, *args) -> bool:
    try:
        block(*args)
    except Exception:  # noqa: BLE001 - any failure is the hazard shown
        return True
    return False


def test_each_block_is_reported():
    lines = sorted(f.line for f in lint_source(_SOURCE, rules=[NonArrayInputOutput]))
    assert lines == [3, 8, 15, 22]


@pytest.mark.parametrize("name", BACKENDS)
def test_a_passed_python_value_or_array_fails_hybridized_and_none_output_fails(name):
    mx = backend(name)
    blocks = _blocks(mx)
    x = mx.nd.ones((2, 3))
    for cls, value, array in (
        ("Flag", False, mx.nd.zeros((1,))),
        ("Steps", 2, mx.nd.array([2])),
    ):
        eager = blocks[cls]()
        assert not _fails(eager, x, value), f"{cls} runs eagerly with a Python value"
        for passed in (value, array):
            hybrid = blocks[cls]()
            hybrid.hybridize()
            assert _fails(hybrid, x, passed), f"{cls} hybridized took {passed!r}"
        hybrid = blocks[cls]()
        hybrid.hybridize()
        assert not _fails(hybrid, x), f"{cls} hybridized fails at its default"
    eager = blocks["NoneOut"]()
    assert not _fails(eager, x)
    hybrid = blocks["NoneOut"]()
    hybrid.hybridize()
    assert _fails(hybrid, x)


@pytest.mark.parametrize("name", BACKENDS)
def test_an_input_passed_as_an_operator_attribute_works_only_at_its_default(name):
    mx = backend(name)
    blocks = _blocks(mx)
    x = mx.nd.array([[1, 2], [0, 3]])
    assert blocks["Depth"]()(x, 4).shape == (2, 2, 4)  # eagerly a Python int is fine
    assert _fails(blocks["Depth"](), x, mx.nd.array([4]))  # an array is no attribute, eagerly
    for passed in (4, mx.nd.array([4])):
        hybrid = blocks["Depth"]()
        hybrid.hybridize()
        assert _fails(hybrid, x, passed), f"hybridized took {passed!r}"
    hybrid = blocks["Depth"]()
    hybrid.hybridize()
    assert hybrid(x).shape == (2, 2, 5)
    # why HL018 is off by default: a hybridized parent passing an int in its trace works
    parent = blocks["Parent"]()
    parent.hybridize()
    assert parent(x).shape == (2, 2, 4)
