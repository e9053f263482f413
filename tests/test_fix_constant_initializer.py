"""HL012's `init.Constant(<list>)` fix, checked on real MXNet 1.9.1.

Under hybridize `Parameter.var()` serializes a parameter's own initializer, and
`Constant.dumps()` calls `.asnumpy()` on a value that is neither a number nor a numpy array
(gluonar's SincConv1D: `init=init.Constant(f1_init.tolist())`). The fix wraps the value in
`np.array(...)`; it is called safe because the eager initialization must not change: for
random values and both float dtypes, the fixed block's parameter holds bit for bit what the
original's holds, and the fixed block hybridizes with the eager output.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fix_support import fix_source, lint_source

pytestmark = pytest.mark.mxnet


def source(values: list, dtype: str) -> str:
    return (
        "import numpy as np\nfrom mxnet import init\nfrom mxnet.gluon import HybridBlock\n\n\n"
        "class Net(HybridBlock):\n    def __init__(self, values, **kwargs):\n"
        "        super().__init__(**kwargs)\n"
        "        with self.name_scope():\n"
        "            self.w = self.params.get('w', shape=(len(values), 1),\n"
        f"                                     init=init.Constant(values.tolist()), dtype={dtype!r})\n\n"
        "    def hybrid_forward(self, F, x, w):\n        return F.broadcast_mul(x, w)\n"
    )


def block(text: str, values: np.ndarray, hybridize: bool):
    namespace: dict = {}
    exec(compile(text, "<fixture>", "exec"), namespace)
    net = namespace["Net"](values)
    net.initialize()
    if hybridize:
        net.hybridize()
    return net


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    values=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=5),
    dtype=st.sampled_from(["float32", "float64"]),
)
def test_constant_of_a_list_is_fixed_and_initializes_the_same(values, dtype):
    mx = pytest.importorskip("mxnet")
    array = np.array(values).reshape(-1, 1)
    original = source(values, dtype)
    assert [f.fix for f in lint_source(original) if f.code == "HL012"] == ["safe"]
    fixed = fix_source(original, select=["HL012"]).source
    assert "init.Constant(np.array(values.tolist()))" in fixed, fixed
    x = mx.nd.array(np.ones((len(values), 2)), dtype=dtype)
    eager = block(original, array, False)
    expected = eager(x).asnumpy()
    for hybridize in (False, True):
        net = block(fixed, array, hybridize)
        got = net(x)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(net.w.data().asnumpy(), eager.w.data().asnumpy())
        np.testing.assert_array_equal(got.asnumpy(), expected)
    with pytest.raises(AttributeError, match="asnumpy"):  # the original, hybridized
        block(original, array, True)(x)
