"""`slice` with bounds past the axis, eagerly and hybridized, as MXNet 1.9.1 (its MKL-DNN pip
build) runs it: Python-style clipping, except that a float32 slice whose negative begin
reaches before the axis fails (at ranks 1, 2 and 4, with unit steps). HL003 rewrites
`x[-k:]` as such a slice, which is exact only while k fits the axis; --verify must see that
failure where MXNet would."""

import numpy as np
import pytest

# (dtype, begin, end) on the last axis of a (2, 3) array -> its length there, or "error"
CASES = [
    ("float32", -5, None, "error"),
    ("float32", -3, None, 3),
    ("float32", -2, None, 2),
    ("float32", None, 5, 3),
    ("float32", 1, 9, 2),
    ("float64", -5, None, 3),
    ("int32", -5, None, 3),
]


def _run(mx, dtype, begin, end, hybridize):
    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.slice(x, begin=(None, begin), end=(None, end))

    net = Net()
    net.initialize()
    if hybridize:
        net.hybridize()
    x = mx.nd.array(np.arange(6).reshape((2, 3)), dtype=dtype)
    try:
        return net(x).asnumpy().shape[1]
    except mx.base.MXNetError:
        return "error"


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("dtype, begin, end, expected", CASES)
def test_slice_bounds_on_the_engine(dtype, begin, end, expected, hybridize):
    from hybridlint import engine

    assert _run(engine, dtype, begin, end, hybridize) == expected


@pytest.mark.mxnet
@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("dtype, begin, end, expected", CASES)
def test_slice_bounds_under_mxnet(dtype, begin, end, expected, hybridize):
    mx = pytest.importorskip("mxnet")
    assert _run(mx, dtype, begin, end, hybridize) == expected
