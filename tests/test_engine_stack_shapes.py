"""`stack` of inputs whose shapes differ (blind round 12: MaskFlowNet-DAM's CorrBlock stacks a
(9, 9) and a (1, 81) arange grid). MXNet 1.9.1's StackOpShape takes the first input's shape and
ignores the others' (its `shape_assign` result is unused), so each input is read in that shape:
(9, 9, 2), eagerly and as a graph. The engine refused it ("all inputs need the same shape"),
so `--verify` said a working block still failed. An input of another size is read past its end
by MXNet (undefined): the engine refuses that one with a clear error."""

import numpy as np
import pytest

import hybridlint.engine as engine

CASES = [
    ((9, 9), (1, 81), -1),
    ((2, 3), (3, 2), 0),
    ((2, 3), (3, 2), 1),
    ((4,), (4,), 0),
    ((2, 1, 3), (1, 6, 1), 2),
]


def _inputs(first, second):
    a = np.arange(np.prod(first), dtype="float32").reshape(first)
    b = (np.arange(np.prod(second), dtype="float32") * 10).reshape(second)
    return a, b


def _expected(a, b, axis):
    return np.stack([a, b.reshape(a.shape)], axis=axis)


@pytest.mark.parametrize("first, second, axis", CASES)
def test_stack_reads_every_input_in_the_first_ones_shape(first, second, axis):
    a, b = _inputs(first, second)
    got = engine.nd.stack(engine.nd.array(a), engine.nd.array(b), axis=axis)
    np.testing.assert_array_equal(got.asnumpy(), _expected(a, b, axis))
    graph = engine.sym.stack(engine.sym.var("a"), engine.sym.var("b"), axis=axis)
    _, out_shapes, _ = graph.infer_shape(a=first, b=second)
    assert out_shapes == [_expected(a, b, axis).shape]


def test_an_input_of_another_size_is_refused_clearly():
    with pytest.raises(engine.base.MXNetError, match="reads it in that shape, past its end"):
        engine.nd.stack(engine.nd.ones((2, 3)), engine.nd.ones((1, 5)))


@pytest.mark.mxnet
@pytest.mark.parametrize("first, second, axis", CASES)
def test_real_mxnet_agrees(first, second, axis):
    mx = pytest.importorskip("mxnet")
    a, b = _inputs(first, second)
    got = mx.nd.stack(mx.nd.array(a), mx.nd.array(b), axis=axis).asnumpy()
    np.testing.assert_array_equal(got, _expected(a, b, axis))
    graph = mx.sym.stack(mx.sym.var("a"), mx.sym.var("b"), axis=axis)
    assert graph.infer_shape(a=first, b=second)[1] == [got.shape]
