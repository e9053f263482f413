"""The HL011, HL012 and HL014 rewrites on random shapes, on the engine and on MXNet 1.9.1:
the block hybridlint fixed, run eagerly and hybridized, equals the original block run eagerly.

Each case is a block template; hypothesis draws the shapes (and the reshape codes that fit
them), the rule under test rewrites the source, and the outputs are compared exactly.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fix_support
from fix_support import BACKENDS, fix_settings
from fix_support import backend_module as backend
from fix_support import fix_source
from hybridlint.rules import ALL_RULES

RULES = {rule.code: rule for rule in ALL_RULES}
SETTINGS = fix_settings(12)


def build(source, lib):
    return fix_support.build(source, lib, names=())


def outputs(klass, lib, arrays, hybridize, kwargs=None):
    net = klass(**(kwargs or {}))
    lib.random.seed(0)
    net.initialize()
    if hybridize:
        net.hybridize()
    out = net(*[lib.nd.array(a) for a in arrays])
    return [o.asnumpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def check(code, source, lib, arrays, kwargs=None):
    fixed = fix_source(source, rules=[RULES[code]], unsafe=True).source
    assert fixed != source, "the rule did not rewrite the case"
    want = outputs(build(source, lib), lib, arrays, False, kwargs)
    for hybridize in (False, True):
        got = outputs(build(fixed, lib), lib, arrays, hybridize, kwargs)
        assert [g.shape for g in got] == [w.shape for w in want]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


@st.composite
def shapes_and_codes(draw):
    """A source shape and a reshape target for it written with MXNet's codes (0, -1, -2, -3,
    literal sizes), two or more of them, as `x.reshape(a, b, ...)` code would pass."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    codes, i, inferred = [], 0, False
    while i < len(shape):
        choice = draw(st.sampled_from(["copy", "merge", "literal", "infer", "rest"]))
        if choice == "merge" and i + 1 < len(shape):
            codes.append(-3)
            i += 2
        elif choice == "literal":
            codes.append(shape[i])
            i += 1
        elif choice == "infer" and not inferred:
            codes.append(-1)
            inferred = True
            i += 1
        elif choice == "rest":
            codes.append(-2)
            i = len(shape)
        else:
            codes.append(0)
            i += 1
    if len(codes) < 2:
        codes.append(1)  # a trailing literal 1 (after everything is consumed)
    return shape, tuple(codes)


@pytest.mark.parametrize("name", BACKENDS)
@SETTINGS
@given(case=shapes_and_codes())
def test_hl011_varargs_to_tuple(name, case):
    lib = backend(name)
    shape, codes = case
    source = (
        "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
        f"        return F.relu(x).reshape({', '.join(map(str, codes))})\n"
    )
    arrays = [np.random.RandomState(0).uniform(-1, 1, shape)]
    try:
        outputs(build(source, lib), lib, arrays, False)
    except Exception:  # noqa: BLE001 - codes the eager NDArray refuses: nothing to compare
        return
    check("HL011", source, lib, arrays)


@pytest.mark.parametrize("name", BACKENDS)
@SETTINGS
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3), via_kwargs=st.booleans())
def test_hl012_parameter_data_to_argument(name, shape, via_kwargs):
    lib = backend(name)
    shape = tuple(shape)
    signature = "F, x, **kwargs" if via_kwargs else "F, x, weight"
    source = (
        "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
        "        with self.name_scope():\n"
        f"            self.weight = self.params.get('weight', shape={shape!r})\n\n"
        f"    def hybrid_forward(self, {signature}):\n"
        "        return F.broadcast_mul(x, self.weight.data()) + F.broadcast_add(x, self.weight.data())\n"
    )
    arrays = [np.random.RandomState(1).uniform(-1, 1, shape)]
    check("HL012", source, lib, arrays)


@pytest.mark.parametrize("name", BACKENDS)
@SETTINGS
@given(rows=st.integers(2, 4), rest=st.lists(st.integers(1, 4), min_size=1, max_size=3))
def test_hl014_unpacking_to_split(name, rows, rest):
    lib = backend(name)
    names = ", ".join("r%d" % i for i in range(rows))
    total = " + ".join("r%d * %d" % (i, i + 1) for i in range(rows))
    shape = (rows,) + tuple(rest)
    source = (
        "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n"
        f"        y = F.relu(x).reshape({shape!r})\n"
        f"        {names} = y\n        return {total}\n"
    )
    arrays = [np.random.RandomState(2).uniform(-1, 1, shape)]
    check("HL014", source, lib, arrays)
