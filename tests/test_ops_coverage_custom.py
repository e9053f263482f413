"""`mx.operator` custom operators and the `Custom` op (engine/operator.py, engine/ops/custom.py)
against real MXNet 1.9.1: the same Python operator registered in both, run eagerly, as a graph
(names, shapes, dtypes, JSON, values both ways) and inside a hybridized block."""

import numpy as np
import pytest

import hybridlint.engine as mx
from ops_diff import check_both

_DEFINED = set()


def define(lib):
    """Register the test operators in `lib` (real MXNet or the engine), once."""
    if id(lib) in _DEFINED:
        return
    _DEFINED.add(id(lib))

    class Digitize(lib.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            idx = np.digitize(in_data[0].asnumpy(), in_data[1].asnumpy())
            self.assign(out_data[0], req[0], lib.nd.array(idx, dtype="int32"))

    @lib.operator.register("hl_digitize")
    class DigitizeProp(lib.operator.CustomOpProp):
        def __init__(self):
            super().__init__(need_top_grad=False)

        def list_arguments(self):
            return ["data", "bins"]

        def infer_type(self, in_type):
            return in_type, [np.int32], []

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return Digitize()

    class Smooth(lib.operator.CustomOp):
        def __init__(self, epsilon, axis):
            super().__init__()
            self.epsilon, self.axis = epsilon, axis

        def forward(self, is_train, req, in_data, out_data, aux):
            x = in_data[0]
            k = x.shape[self.axis]
            smoothed = x * (1 - self.epsilon) + self.epsilon / k
            self.assign(out_data[0], req[0], smoothed)
            self.assign(out_data[1], req[1], lib.nd.sum(smoothed, axis=self.axis))
            flag = lib.nd.ones((1,), dtype=x.dtype) * (1.0 if is_train else 0.0)
            self.assign(out_data[2], req[2], flag)

    @lib.operator.register("hl_smooth")
    class SmoothProp(lib.operator.CustomOpProp):
        def __init__(self, epsilon="0.1", axis="-1"):
            super().__init__(need_top_grad=True)
            self.epsilon, self.axis = float(epsilon), int(axis)  # MXNet passes strings

        def list_outputs(self):
            return ["smoothed", "total", "training"]

        def infer_shape(self, in_shape):
            data = list(in_shape[0])
            total = data[: self.axis % len(data)] + data[self.axis % len(data) + 1 :]
            return in_shape, [data, total, [1]], []

        def create_operator(self, ctx, in_shapes, in_dtypes):
            return Smooth(self.epsilon, self.axis)


def _x(*shape, seed=0):
    return np.random.RandomState(seed).uniform(0, 1, shape).astype(np.float32)


CASES = [
    ("Custom", [_x(3, 4), np.array([0.25, 0.5, 0.75], np.float32)], {"op_type": "hl_digitize"}),
    ("Custom", [_x(2, 5)], {"op_type": "hl_smooth"}),
    ("Custom", [_x(2, 3, 4, seed=1)], {"op_type": "hl_smooth", "epsilon": 0.3, "axis": 1}),
    ("Custom", [_x(6, 2, seed=2).astype(np.float64)], {"op_type": "hl_smooth", "axis": 0}),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=lambda c: "%s-%s" % (c[2]["op_type"], len(c[2])))
def test_custom_op_matches_mxnet(case):
    mx_real = pytest.importorskip("mxnet")
    define(mx_real)
    define(mx)
    check_both(case)


class _Net(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        smoothed, total, _ = F.Custom(x, op_type="hl_smooth", epsilon=0.2)
        return F.broadcast_div(smoothed, F.expand_dims(total, axis=-1))


@pytest.mark.mxnet
def test_custom_op_inside_a_hybridized_block_matches_mxnet():
    mx_real = pytest.importorskip("mxnet")
    define(mx_real)
    define(mx)

    class RealNet(mx_real.gluon.HybridBlock):
        hybrid_forward = _Net.hybrid_forward

    x = _x(3, 4)
    real = RealNet()
    real.hybridize()
    want = real(mx_real.nd.array(x)).asnumpy()
    net = _Net()
    got_eager = net(mx.nd.array(x)).asnumpy()
    net.hybridize()
    got = net(mx.nd.array(x)).asnumpy()
    np.testing.assert_allclose(got_eager, want, rtol=1e-6)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.mxnet
def test_a_zero_dim_output_shape_fails_like_mxnet():
    """infer_shape answering () (a 1-D input reduced away) is an unknown shape in MXNet 1.x."""
    mx_real = pytest.importorskip("mxnet")
    for lib in (mx_real, mx):
        define(lib)
        with pytest.raises(lib.base.MXNetError):
            lib.nd.Custom(lib.nd.array(_x(6)), op_type="hl_smooth", axis=0)[1].wait_to_read()


@pytest.mark.mxnet
def test_is_train_and_unknown_op_type_like_mxnet():
    mx_real = pytest.importorskip("mxnet")
    for lib in (mx_real, mx):
        define(lib)
        x = lib.nd.array(_x(2, 3))
        assert lib.nd.Custom(x, op_type="hl_smooth")[2].asscalar() == 0.0
        with lib.autograd.record():
            assert lib.nd.Custom(x, op_type="hl_smooth")[2].asscalar() == 1.0
        with pytest.raises(lib.base.MXNetError):
            lib.nd.Custom(x, op_type="hl_no_such_op").wait_to_read()


def test_custom_op_under_as_mxnet_and_its_errors():
    with mx.as_mxnet():
        import mxnet

        class Boom(mxnet.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                raise ZeroDivisionError("user bug")

        @mxnet.operator.register("hl_boom")
        class BoomProp(mxnet.operator.CustomOpProp):
            def create_operator(self, ctx, in_shapes, in_dtypes):
                return Boom()

        assert "hl_boom" in mxnet.operator.get_all_registered_operators()
        with pytest.raises(mxnet.base.MXNetError, match="user bug"):
            mxnet.nd.Custom(mxnet.nd.ones((2,)), op_type="hl_boom")
