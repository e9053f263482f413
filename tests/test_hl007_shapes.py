"""HL007 through reductions, elementwise ops and other shape changes (issue 21 items 3 and 4).

Shapes are followed relative to a root of unknown rank (`rules/_shape_forms.py`): the same form
on both sides proves equal shapes (no finding: `F.norm(a - p, axis=1) * labels` is not evidence
either), a rank or a 1 against a dim proves they differ (`(B, 1) - (B,)`), and keepdims
reductions on different axes are a pairwise broadcast: the operator whose operands differ is
reported (`XX + YY` in `XX + YY - 2 * XY`), not the one around it.

A fix is safe only when both operands are arrays on every path: an input with a default, or
named after an attribute `__init__` sets to a Parameter on one path and a number on another, may
be a Python number there, and `F.broadcast_*` rejects numbers (unsafe, with the reason).

Checked by linting and, marked `mxnet`, by running with real MXNet 1.9.1 (and on the engine):
the original fails hybridized and the fix equals the original eagerly and hybridized; silent
cases run hybridized equal to eager.
"""

import numpy as np
import pytest

import fix_support
from checker_support import backend_params
from fix_support import backend_module, engine_gaps_skipped
from fix_support import fix_source, lint_source

HEAD = "class Net(HybridBlock):\n    def hybrid_forward(self, F, x, y):\n"


def net(body: str) -> str:
    return HEAD + "".join("        " + line + "\n" for line in body.splitlines())


def hl007(source: str):
    return [f for f in lint_source(source) if f.code == "HL007"]


def spans(source: str):
    return [(f.line, f.col, f.end_line, f.end_col) for f in hl007(source)]


# (body, x shape, y shape): each fails hybridized, each is reported
REPORTED = {
    "keepdims_minus_reduction": (
        "return x.sum(axis=1, keepdims=True) - x.sum(axis=1)",
        (4, 3),
        (4, 3),
    ),
    "reduction_minus_keepdims": ("return F.mean(x, axis=1) - F.mean(x, 1, True)", (4, 3), (4, 3)),
    "maximum_of_keepdims": (
        "m = F.maximum(x.sum(axis=1, keepdims=True), y.sum(axis=1, keepdims=True))\nreturn m - x",
        (4, 3),
        (4, 3),
    ),
    "where_of_x": ("return F.where(x > 0, x, y) - x.sum(axis=1, keepdims=True)", (4, 3), (4, 3)),
    "expand_dims_of_reduction": (
        "return F.expand_dims(F.max(x, axis=1), axis=1) - F.max(x, axis=1)",
        (4, 3),
        (4, 3),
    ),
    "leading_axis": ("return x - x.mean(axis=0)", (4, 3), (4, 3)),
    "norm_keepdims": ("return x / F.norm(x, ord=2, axis=1, keepdims=True)", (4, 3), (4, 3)),
    "square_of_keepdims": (
        "return F.square(x) * F.square(x.max(axis=-1, keepdims=True))",
        (4, 3),
        (4, 3),
    ),
    # keepdims over another axis of a reshape to known dims: (B, 1, 2, 1) against (1, 6, 2, 1)
    "keepdims_of_a_known_reshape_on_another_axis": (
        "a = F.sum(F.reshape(x, shape=(-1, 6, 2, 1)), axis=1, keepdims=True)\n"
        "return F.zeros((1, 6, 2, 1)) + a",
        (4, 12),
        (4, 3),
    ),
}

# (body, x shape, y shape): each works hybridized, none is reported
SILENT = {
    "reduction_times_per_sample": (
        "d = F.norm(F.square(x), axis=1)\nreturn y * F.square(d)",
        (4, 3),
        (4,),
    ),
    "same_reduction_two_spellings": ("return F.sum(x, axis=1) * x.sum(axis=1)", (4, 3), (4, 3)),
    "exclude_is_the_other_axes": (
        "return x.sum(axis=1, exclude=True) * x.sum(axis=(0, 2))",
        (2, 3, 4),
        (2, 3, 4),
    ),
    "keepdims_method_and_function": (
        "return F.relu(x.mean(axis=1, keepdims=True)) * F.mean(x, axis=1, keepdims=True)",
        (4, 3),
        (4, 3),
    ),
    "keepdims_of_two_inputs": (
        "count = F.sum(y, axis=1, keepdims=True)\nreturn F.sum(x * y, axis=1, keepdims=True) / (count + 1.0)",
        (4, 3),
        (4, 3),
    ),
    "transposes": ("return x.transpose() * F.transpose(x)", (4, 3), (4, 3)),
    "pick_and_mask": (
        "p = F.log(F.pick(F.softmax(x), y, axis=-1))\nreturn p * (y != 0)",
        (4, 3),
        (4,),
    ),
    # a capsule routing's logits (blind round 4): keepdims over the axis a reshape leaves
    # unknown gives the literal's shape, (1, 6, 2, 1) on both sides, also as a loop carries it
    "keepdims_of_a_known_reshape": (
        "b = F.zeros((1, 6, 2, 1))\nfor i in range(2):\n"
        "    u = F.broadcast_mul(F.reshape(x, shape=(-1, 6, 2, 1)), F.softmax(b, axis=1))\n"
        "    b = b + F.sum(u, axis=0, keepdims=True)\nreturn b",
        (4, 12),
        (4, 3),
    ),
    "keepdims_method_of_a_known_reshape": (
        "a = x.reshape((-1, 6, 2)).mean(axis=(0, -1), keepdims=True)\nreturn F.ones((1, 6, 1)) * a",
        (4, 12),
        (4, 3),
    ),
}


@pytest.mark.parametrize("name", sorted(REPORTED))
def test_a_shape_change_of_one_array_is_reported(name):
    body, _, _ = REPORTED[name]
    findings = hl007(net(body))
    assert len(findings) == 1 and findings[0].fix == "safe", findings


@pytest.mark.parametrize("name", sorted(SILENT))
def test_the_same_shape_made_two_ways_is_silent(name):
    body, _, _ = SILENT[name]
    assert hl007(net(body)) == []


def test_the_pairwise_operator_is_reported_not_the_one_around_it():
    # gluonfr's MPSLoss.euclidean_distance: XX (m, 1) + YY (1, n) broadcasts; minus 2 * XY (m, n)
    source = net(
        "XX = F.sum(F.square(x), 1, keepdims=True)\nYY = F.sum(F.square(y), 0, keepdims=True)\n"
        "XY = F.dot(x, y)\nreturn XX + YY - 2 * XY"
    )
    assert spans(source) == [(6, 16, 6, 23)]  # 1-based columns: `XX + YY`
    assert "1s on different axes" in hl007(source)[0].message
    fixed = fix_source(source, select=["HL007"]).source
    assert "return F.broadcast_add(XX, YY) - 2 * XY" in fixed


def test_a_maximum_of_two_column_vectors_minus_a_row_is_reported():
    # gluonfr's MPSLoss: F.maximum of two expand_dims(max(...), 1) (B, 1) minus F.diag (B,)
    source = net(
        "dist = F.dot(x, y)\nneg = dist - F.diag(F.diag(dist))\n"
        "a = F.expand_dims(F.max(neg, axis=1), axis=1)\nb = F.expand_dims(F.max(neg, axis=0), axis=1)\n"
        "return F.relu(1.0 + F.maximum(a, b) - F.diag(dist))"
    )
    assert [line for line, _, _, _ in spans(source)] == [7]


def _run(source, mx, arrays, hybridize, **attrs):
    net_class = fix_support.build(source, mx)
    with engine_gaps_skipped(mx):
        block = net_class(**attrs)
        block.initialize()
        if hybridize:
            block.hybridize()
        return block(*[mx.nd.array(a) for a in arrays]).asnumpy()


def _inputs(x_shape, y_shape, seed=0):
    state = np.random.RandomState(seed)
    return [state.uniform(0.5, 2.0, size=s).astype("float32") for s in (x_shape, y_shape)]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("name", sorted(REPORTED))
def test_reported_fails_hybridized_and_the_fix_keeps_eager(backend, name):
    mx = backend_module(backend)
    body, x_shape, y_shape = REPORTED[name]
    source = net(body)
    arrays = _inputs(x_shape, y_shape)
    expected = _run(source, mx, arrays, False)
    with pytest.raises(Exception):  # noqa: B017 - the elementwise operator's shape error
        _run(source, mx, arrays, True)
    fixed = fix_source(source, select=["HL007"]).source
    assert fixed != source and hl007(fixed) == []
    for hybridize in (False, True):
        np.testing.assert_allclose(_run(fixed, mx, arrays, hybridize), expected, rtol=1e-6)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("name", sorted(SILENT))
def test_silent_works_hybridized(backend, name):
    mx = backend_module(backend)
    body, x_shape, y_shape = SILENT[name]
    source = net(body)
    arrays = _inputs(x_shape, y_shape)
    np.testing.assert_allclose(
        _run(source, mx, arrays, True), _run(source, mx, arrays, False), rtol=1e-6
    )


@pytest.mark.parametrize("backend", backend_params())
def test_pairwise_fix_of_the_inner_operator_is_enough(backend):
    mx = backend_module(backend)
    source = net(
        "XX = F.sum(F.square(x), 1, keepdims=True)\nYY = F.sum(F.square(y), 0, keepdims=True)\n"
        "return XX + YY - 2 * F.dot(x, y)"
    )
    arrays = _inputs((4, 3), (3, 5))
    expected = _run(source, mx, arrays, False)
    with pytest.raises(Exception):  # noqa: B017
        _run(source, mx, arrays, True)
    fixed = fix_source(source, select=["HL007"]).source
    for hybridize in (False, True):
        np.testing.assert_allclose(_run(fixed, mx, arrays, hybridize), expected, rtol=1e-5)


# -- item 4: an operand that may be a Python number ---------------------------------------
MIXED = (
    "class Net(HybridBlock):\n"
    "    def __init__(self, learn_beta=False, margin=0.5):\n"
    "        super().__init__()\n"
    "        self.beta = self.params.get('beta', shape=(1,)) if learn_beta else margin\n\n"
    "    def hybrid_forward(self, F, x, beta):\n"
    "        return x.sum(axis=1, keepdims=True) - beta\n"
)
DEFAULT = (
    "def _shifted(F, d, beta=0.5):\n"
    "    return F.sum(d, axis=1, keepdims=True) - beta\n\n\n"
    "class Net(HybridBlock):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.beta = self.params.get('beta', shape=(1,))\n\n"
    "    def hybrid_forward(self, F, x, beta):\n"
    "        return _shifted(F, x, beta)\n"
)


@pytest.mark.parametrize(
    "source, why",
    [
        (MIXED, "`self.beta` is a Parameter on one path and a Python number on another"),
        (DEFAULT, "`beta` has the default 0.5 and may be a Python number"),
    ],
)
def test_an_operand_that_may_be_a_number_makes_the_fix_unsafe(source, why):
    findings = hl007(source)
    assert len(findings) == 1 and findings[0].fix == "unsafe", findings
    assert why in findings[0].message and "takes only arrays" in findings[0].message
    assert fix_source(source, select=["HL007"]).source == source  # --fix leaves it
    assert "F.broadcast_sub" in fix_source(source, select=["HL007"], unsafe=True).source


def test_both_operands_arrays_on_every_path_keep_the_fix_safe():
    source = MIXED.replace(" if learn_beta else margin", "")
    findings = hl007(source)
    assert len(findings) == 1 and findings[0].fix == "safe", findings


@pytest.mark.parametrize("backend", backend_params())
def test_the_unsafe_fix_breaks_the_number_path(backend):
    """Why it is unsafe: with a float `beta` (the constant margin, passed by the caller) the
    original works eagerly and the fixed block raises; with the parameter it is the hazard."""
    mx = backend_module(backend)
    x = np.random.RandomState(1).uniform(size=(4, 3)).astype("float32")
    fixed = fix_source(MIXED, select=["HL007"], unsafe=True).source
    original, changed = fix_support.build(MIXED, mx), fix_support.build(fixed, mx)
    with engine_gaps_skipped(mx):
        expected = original()(mx.nd.array(x), 0.5).asnumpy()
        np.testing.assert_allclose(expected, x.sum(axis=1, keepdims=True) - 0.5, rtol=1e-5)
        with pytest.raises(Exception):  # noqa: B017 - broadcast_sub rejects the number
            changed()(mx.nd.array(x), 0.5)
        learned = original(learn_beta=True)
        learned.initialize()
        learned.hybridize()
        with pytest.raises(Exception):  # noqa: B017 - (4, 1) - (1,) on Symbols
            learned(mx.nd.array(x))
        fixed_block = changed(learn_beta=True)
        fixed_block.initialize()
        fixed_block.hybridize()
        assert fixed_block(mx.nd.array(x)).shape == (4, 1)


def test_a_product_over_the_batch_is_no_evidence_against_a_parameter():
    """A blind test's ClusterNorm: `F.dot(prob, x, transpose_a=True)` sums over the batch, so
    the per-cluster means have the running means' (parameter's) shape; HL007 reported
    `0.9 * means + 0.1 * weighted` as "one operand has the fixed shape (a parameter)". Through
    the broadcast_div that normalises it, too. A product that keeps the batch still is."""
    head = (
        "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
        "        self.means = self.params.get('means', shape=(3, 4))\n\n"
        "    def hybrid_forward(self, F, x, y, means):\n"
    )
    for made in (
        "F.dot(y, x, transpose_a=True)",
        "F.broadcast_div(F.dot(y, x, transpose_a=True), F.sum(y, axis=0).reshape((-1, 1)))",
    ):
        source = head + f"        s = {made}\n        return 0.9 * means + 0.1 * s\n"
        assert [f.code for f in lint_source(source)] == [], made
    kept = head + "        s = F.dot(y, x)\n        return 0.9 * means + 0.1 * s\n"
    assert [f.code for f in lint_source(kept)] == ["HL007"]
