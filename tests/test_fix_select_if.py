"""HL002's rewrite of an `if` on `t.asscalar()` that only picks a tensor's next value into
`F.where` (rules/_select_if.py): the fixed block, eager and hybridized, equals the original's
eager outputs on the engine and (marked) on MXNet 1.9.1, whichever way the test goes."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fix_support import BACKENDS, backend_module, build, engine_gaps_skipped, fix_settings
from fix_support import fix_source, lint_source

SETTINGS = fix_settings(30)
OPERATORS = [">", ">=", "<", "<=", "==", "!="]


def _source(op: str, reversed_: bool, threshold: float, rank: int, dtype: str) -> str:
    """The clipping block; its test reads `t`, the norm reshaped to `rank` axes and cast to
    `dtype` (a T of another rank or dtype than x's, an int T compared with a fraction)."""
    test = f"{threshold} {op} t.asscalar()" if reversed_ else f"t.asscalar() {op} {threshold}"
    return (
        "class Net(HybridBlock):\n"
        "    def hybrid_forward(self, F, x):\n"
        "        norm = F.norm(x)\n"
        f"        t = F.cast(F.reshape(norm, shape={(1,) * rank}), dtype='{dtype}')\n"
        f"        if {test}:\n"
        f"            x = F.broadcast_div(x * {threshold}, norm)\n"
        "        return x * 2\n"
    )


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple),
    op=st.sampled_from(OPERATORS),
    reversed_=st.booleans(),
    threshold=st.sampled_from([0.5, 1.0, 2.0, 2.5, 4.0]),
    rank=st.integers(1, 3),
    dtype=st.sampled_from(["float32", "float16", "int32"]),
    seed=st.integers(0, 10),
)
def test_the_select_equals_the_if(backend, shape, op, reversed_, threshold, rank, dtype, seed):
    mx = backend_module(backend)
    source = _source(op, reversed_, threshold, rank, dtype)
    findings = [f for f in lint_source(source) if f.code == "HL002"]
    assert [f.fix for f in findings] == ["unsafe"], findings
    fixed = fix_source(source, select=["HL002"], unsafe=True).source
    assert "asscalar" not in fixed and "F.where(" in fixed, fixed
    x = np.random.RandomState(seed).rand(*shape).astype("float32") * 3
    expected = build(source, mx)()(mx.nd.array(x)).asnumpy()
    with engine_gaps_skipped(mx):
        for hybridize in (False, True):
            net = build(fixed, mx)()
            if hybridize:
                net.hybridize()
            got = net(mx.nd.array(x)).asnumpy()
            assert got.shape == expected.shape and got.dtype == expected.dtype
            np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-6, err_msg=fixed)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", [">=", "<", "=="])
def test_an_int_number_is_compared_with_a_fraction_as_numpy_compares_it(backend, op):
    """int32 2 against 2.5: numpy compares in float64 (2 >= 2.5 is false); MXNet's scalar
    comparison on the int32 tensor would truncate 2.5 to 2 (true)."""
    mx = backend_module(backend)
    source = _source(op, False, 2.5, 2, "int32")
    fixed = fix_source(source, select=["HL002"], unsafe=True).source
    x = np.array([2.2, 0.0], dtype="float32")  # norm 2.2, t = 2
    expected = build(source, mx)()(mx.nd.array(x)).asnumpy()
    for hybridize in (False, True):
        net = build(fixed, mx)()
        if hybridize:
            net.hybridize()
        np.testing.assert_allclose(net(mx.nd.array(x)).asnumpy(), expected, err_msg=fixed)
