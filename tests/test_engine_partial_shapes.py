"""Partial shape inference (what gluon's deferred initialisation asks) against real MXNet
1.9.1: unknown dims (0) and unknown shapes (()) propagate, and parameters are filled back,
exactly where MXNet does it."""

import pytest

import hybridlint.engine as mx


def _cases(lib):
    x, w = lib.sym.var("x"), lib.sym.var("w")
    return [
        (lib.sym.FullyConnected(x, num_hidden=4, flatten=False), dict(x=(2, 3, 5))),
        (lib.sym.FullyConnected(x, num_hidden=4, flatten=False), dict(x=(0, 3, 5))),
        (lib.sym.FullyConnected(x, num_hidden=4), dict(x=(0, 3, 5))),
        (lib.sym.dot(x, w), dict(x=(2, 3))),
        (lib.sym.dot(x, w), dict(x=(2, 3), w=(3, 4))),
        (lib.sym.batch_dot(x, w), dict(x=(2, 3, 4), w=(2, 4, 5))),
        (lib.sym.batch_dot(x, w, transpose_b=True), dict(x=(2, 3, 4), w=(2, 5, 4))),
        (lib.sym.concat(x, w, dim=1), dict(x=(2, 3))),
        (lib.sym.concat(x, w, dim=1), dict(x=(2, 3), w=(2, 0))),
        (lib.sym.stack(x, w), dict(x=(2, 3))),
        (x + w, dict(x=(2, 3))),
        (lib.sym.broadcast_add(x, w), dict(x=(2, 3))),
        (lib.sym.reshape(x, shape=(-1,)), dict(x=(0, 3))),
        (lib.sym.transpose(x), dict(x=(0, 3))),
        (lib.sym.flatten(x), dict(x=(0, 3, 4))),
        (lib.sym.expand_dims(x, axis=0), dict(x=(0, 3))),
        (lib.sym.slice_axis(x, axis=1, begin=0, end=2), dict(x=(0, 3))),
        (lib.sym.relu(lib.sym.FullyConnected(x, num_hidden=3)) * 2, dict(x=(0, 7))),
    ]


@pytest.mark.mxnet
@pytest.mark.parametrize("i", range(18))
def test_infer_shape_partial_like_mxnet(i):
    m = pytest.importorskip("mxnet")
    with m.name.NameManager():
        sym, known = _cases(m)[i]
        want = sym.infer_shape_partial(**known)
    with mx.name.NameManager():
        sym, known = _cases(mx)[i]
        got = sym.infer_shape_partial(**known)
    assert got == want
