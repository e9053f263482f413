"""Parameters are identified across the fresh instances the checker compares by their place in
the block tree, not by Gluon's names: a child built outside `name_scope()` takes a global
prefix (conv0_, then conv1_ in the next instance), which after the root prefix is cut off
collided with a prefixed child's name (gluoncv2's LEDNet APN: "Failed loading Parameter
'apn3_convblock4_conv0_weight' from saved params: shape incompatible")."""

import textwrap

import pytest

from hybridlint.checker import Example, check_fix, check_source
from hybridlint.checker.execute import relative_params
from tests.checker_support import backend_params

NET = textwrap.dedent(
    """\
    from mxnet import gluon
    from mxnet.gluon import nn


    class Net(gluon.HybridBlock):
        def __init__(self, width=4, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.a = nn.Conv2D(width, 1)
                self.b = nn.Conv2D(1, 1)
            # outside the scope: a global prefix, counted across instances
            self.c = nn.Conv2D(1, 3, padding=1)

        def hybrid_forward(self, F, x):
            return self.c(self.b(self.a(x)))
    """
)
EXAMPLES = [
    Example("Net", ((2, 3, 6, 6),), {"width": 4}),
    Example("Net", ((2, 3, 6, 8),), {"width": 5}),
]


@pytest.mark.parametrize("backend", backend_params())
def test_two_examples_of_a_block_with_an_unscoped_child_run(backend):
    reports = check_source(NET, "net.py", EXAMPLES, backend=backend)
    assert [r.status for r in reports] == ["equal", "equal"], [r.summary() for r in reports]


@pytest.mark.parametrize("backend", backend_params())
def test_a_fix_of_such_a_block_gets_the_original_parameters(backend):
    fixed = NET.replace("return self.c(", "return 1.0 * self.c(")
    report = check_fix(NET, fixed, "Net", [(2, 3, 6, 6)], path="net.py", backend=backend)
    assert report.status == "equal", report.summary()
    assert not report.notes, report.notes  # every parameter found its own value, none by order


def test_keys_are_the_same_in_two_instances_and_unique():
    mx = pytest.importorskip("hybridlint.engine")
    nn = mx.gluon.nn

    class Net(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            with self.name_scope():
                self.a = nn.Dense(2)
                self.b = nn.Dense(3)
            self.c = nn.Dense(4)

    first, second = Net(), Net()
    assert {p.name for p in first.collect_params().values()} != {
        p.name for p in second.collect_params().values()
    }
    keys = list(relative_params(first))
    assert keys == list(relative_params(second))
    assert keys == ["a.weight", "a.bias", "b.weight", "b.bias", "c.weight", "c.bias"]


@pytest.mark.parametrize("backend", backend_params())
def test_a_fix_renaming_an_attribute_pairs_parameters_by_order(backend):
    fixed = NET.replace("self.b = ", "self.middle = ").replace("self.b(", "self.middle(")
    report = check_fix(NET, fixed, "Net", [(2, 3, 6, 6)], path="net.py", backend=backend)
    assert report.status == "equal", report.summary()
    assert sorted(report.notes) == [
        "parameter middle.bias took the value of b.bias (matched by order)",
        "parameter middle.weight took the value of b.weight (matched by order)",
    ]
