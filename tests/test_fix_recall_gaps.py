"""Fixes for issue 12's recall gaps (the rewrite corpus's recall-gap blocks), checked by running them.

The method of tests/test_fix_equivalence_hl005_010.py: for random shapes and values
(hypothesis), a block is linted and fixed with the real linter; the original runs eagerly (the
reference), the fixed block runs eagerly and hybridized, and values, shapes and dtypes must be
equal. Each property runs on the bundled engine and, marked `mxnet`, on real MXNet 1.9.1.

- HL007 with a parameter whose declared shape has constructor arguments (`shape=(units,)`)
  against a computed tensor (`F.dot(x, weight) + bias`);
- HL007 with a constant built in `__init__` from an array reshaped to `(1, -1, 2)` (YOLO
  anchors) against a (B, N, 2) tensor (`F.exp(raw) * anchors`).
"""

import re

import libcst as cst
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fix_support
from fix_support import BACKENDS, backend_module, engine_gaps_skipped, fix_settings
from fix_support import fix_source, lint_source  # memoized: each backend reuses the result

SETTINGS = fix_settings(15)
OPERATORS = {"+": "broadcast_add", "-": "broadcast_sub", "*": "broadcast_mul", "/": "broadcast_div"}


def fixed_by(source: str, code: str) -> str:
    findings = [f for f in lint_source(source) if f.code == code]
    assert findings and findings[0].fix == "safe", (source, findings)
    fixed = fix_source(source, select=[code]).source
    assert fixed != source
    assert not [f for f in lint_source(fixed) if f.code == code], fixed
    return fixed


def run(source: str, mx, inputs, params, hybridize: bool) -> np.ndarray:
    net_class = fix_support.build(source, mx)
    arrays = [mx.nd.array(a, dtype=a.dtype) for a in inputs]
    with engine_gaps_skipped(mx):
        params = {k: mx.nd.array(v) for k, v in params.items()}
        out = fix_support.run(net_class, arrays, hybridize, initialize=True, params=params)
        return out.asnumpy()


def check(source: str, mx, inputs, params, code: str = "HL007") -> str:
    """The fixed block, eagerly and hybridized, equals the original eagerly; the original fails
    hybridized (the hazard is real)."""
    fixed = fixed_by(source, code)
    expected = run(source, mx, inputs, params, hybridize=False)
    with pytest.raises(Exception):  # noqa: B017 - any shape error of the elementwise operator
        run(source, mx, inputs, params, hybridize=True)
    for hybridize in (False, True):
        got = run(fixed, mx, inputs, params, hybridize)
        assert got.shape == expected.shape and got.dtype == expected.dtype, (fixed, hybridize)
        np.testing.assert_array_equal(got, expected, err_msg=f"{fixed}\nhybridize={hybridize}")
    return fixed


def positive(shape, seed):
    return np.random.RandomState(seed).uniform(0.5, 2.0, size=shape).astype("float32")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    batch=st.integers(2, 4),
    units=st.integers(2, 5),
    in_units=st.integers(1, 4),
    op=st.sampled_from(sorted(OPERATORS)),
    seed=st.integers(0, 100),
)
def test_hl007_bias_of_a_declared_shape_becomes_broadcast_op(
    backend, batch, units, in_units, op, seed
):
    mx = backend_module(backend)
    source = (
        "class Net(HybridBlock):\n"
        f"    def __init__(self, units={units}, in_units={in_units}):\n"
        "        super(Net, self).__init__()\n"
        "        self.weight = self.params.get('weight', shape=(in_units, units))\n"
        "        self.bias = self.params.get('bias', shape=(units,))\n\n"
        "    def hybrid_forward(self, F, x, weight, bias):\n"
        f"        return F.tanh(F.dot(x, weight) {op} bias)\n"
    )
    params = {"weight": positive((in_units, units), seed), "bias": positive((units,), seed + 1)}
    fixed = check(source, mx, [positive((batch, in_units), seed + 2)], params)
    assert f"F.{OPERATORS[op]}(F.dot(x, weight), bias)" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    batch=st.integers(2, 4),
    anchors=st.integers(1, 4),
    op=st.sampled_from(sorted(OPERATORS)),
    reflected=st.booleans(),
    seed=st.integers(0, 100),
)
def test_hl007_constant_reshaped_in_init_becomes_broadcast_op(
    backend, batch, anchors, op, reflected, seed
):
    mx = backend_module(backend)
    sizes = [float(v) for v in np.random.RandomState(seed).randint(1, 40, size=2 * anchors)]
    left, right = ("anchors", "F.exp(raw)") if reflected else ("F.exp(raw)", "anchors")
    source = (
        "import numpy as np\n\n\n"
        "class Net(HybridBlock):\n"
        f"    def __init__(self, anchors={tuple(sizes)!r}):\n"
        "        super(Net, self).__init__()\n"
        "        anchors = np.array(anchors, dtype='float32').reshape(1, -1, 2)\n"
        "        with self.name_scope():\n"
        "            self.anchors = self.params.get_constant('anchors', anchors)\n\n"
        "    def hybrid_forward(self, F, raw, anchors):\n"
        f"        return {left} {op} {right}\n"
    )
    raw = np.random.RandomState(seed + 1).normal(size=(batch, anchors, 2)).astype("float32")
    fixed = check(source, mx, [raw], {})
    assert f"F.{OPERATORS[op]}({left}, {right})" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    batch=st.integers(1, 4),
    units=st.integers(1, 5),
    in_units=st.integers(1, 4),
    axis=st.sampled_from([0, 1, -1]),
    keywords=st.booleans(),
    seed=st.integers(0, 100),
)
def test_hl001_parameter_shape_becomes_the_parameters_own(
    backend, batch, units, in_units, axis, keywords, seed
):
    mx = backend_module(backend)
    weight = "kwargs['weight']" if keywords else "weight"
    source = (
        "class Net(HybridBlock):\n"
        f"    def __init__(self, units={units}, in_units={in_units}):\n"
        "        super(Net, self).__init__()\n"
        "        self.weight = self.params.get('weight', shape=(units, in_units))\n\n"
        f"    def hybrid_forward(self, F, x, {'**kwargs' if keywords else 'weight'}):\n"
        f"        n = {weight}.shape[{axis}]\n"
        f"        y = F.FullyConnected(x, {weight}, no_bias=True, num_hidden=n, flatten=False)\n"
        f"        return y.reshape((0, -1, {weight}.shape[0]))\n"
    )
    params = {"weight": positive((units, in_units), seed)}
    inputs = [positive((batch, 3, in_units), seed + 1)]
    if axis != 0 and units != in_units:  # num_hidden must be units: the original fails eagerly
        with pytest.raises(Exception):  # noqa: B017 - MXNet's shape check
            run(source, mx, inputs, params, hybridize=False)
        return
    fixed = check(source, mx, inputs, params, code="HL001")
    assert not re.search(r"(?<!self\.)" + re.escape(weight) + r"\.shape", fixed), fixed
    assert "self.weight.shape[" in fixed


@pytest.mark.parametrize(
    "init, shape",
    [
        ("anchors = np.array(anchors).reshape(1, -1, 2)", (1, None, 2)),
        ("anchors = np.array(anchors, dtype='float32').reshape((1, 3, 2))", (1, 3, 2)),
        ("anchors = np.array([[10, 13], [16, 30]])", (2, 2)),
        ("anchors = [[1.0, 2.0, 3.0]]", (1, 3)),
        # the memory order moves values, not the shape
        ("anchors = np.array(anchors).reshape(1, -1, 2, order='F')", (1, None, 2)),
        # what is not certain is unknown: two -1s, a 0, a name bound in a branch
        ("anchors = np.array(anchors).reshape(-1, -1, 2)", None),
        ("anchors = np.array(anchors).reshape(1, 0, 2)", None),
        ("anchors = np.array(anchors)\nif flip:\n    anchors = anchors.reshape(1, -1, 2)", None),
        ("anchors = np.array(anchors)", None),
    ],
)
def test_constant_shape_reads_only_certain_shapes(init, shape):
    """The shape a get_constant's value has, as the class facts read it from `__init__`."""
    from hybridlint.rules.analysis import analyze

    body = "".join(f"        {line}\n" for line in init.splitlines())
    source = (
        "class Net(HybridBlock):\n    def __init__(self, anchors, flip=False):\n"
        "        super().__init__()\n" + body + "        with self.name_scope():\n"
        "            self.anchors = self.params.get_constant('anchors', anchors)\n"
        "    def hybrid_forward(self, F, x, anchors):\n        return x\n"
    )
    klass = cst.parse_module(source).body[0]
    assert analyze([klass], []).classes["Net"].parameters["anchors"] == shape
