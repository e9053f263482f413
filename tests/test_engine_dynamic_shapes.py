"""Dynamic shapes: `F.contrib.boolean_mask` keeps the rows its index selects, so its output's
first dim is known only when it runs. MXNet 1.9.1 runs such a hybridized graph op by op; the
engine's plan does the same (the reference run, `executor.Plan.dynamic`) and, like MXNet,
fails when no row is kept (blind round 19: a boolean-mask triplet loss was unverifiable)."""

import numpy as np
import pytest

import hybridlint.engine as mx

X = np.arange(12, dtype=np.float32).reshape(4, 3)
MASKS = ([1, 0, 1, 1], [0, 0, 1, 0], [1, 1, 1, 1])


def _block(m):
    class Masked(m.gluon.HybridBlock):
        def hybrid_forward(self, F, x, mask):
            kept = F.contrib.boolean_mask(x, mask)
            return F.sum(kept * 2, axis=0), kept

    return Masked()


def _runs(m, hybridize):
    block = _block(m)
    if hybridize:
        block.hybridize()
    x = m.nd.array(X)
    return [[o.asnumpy() for o in block(x, m.nd.array(mask))] for mask in MASKS]


@pytest.mark.parametrize("hybridize", [False, True])
def test_boolean_mask_keeps_the_selected_rows(hybridize):
    for mask, (total, kept) in zip(MASKS, _runs(mx, hybridize)):
        rows = X[np.array(mask) != 0]
        np.testing.assert_array_equal(kept, rows)
        np.testing.assert_array_equal(total, (rows * 2).sum(axis=0))


def test_no_row_kept_fails_hybridized_as_in_mxnet():
    block = _block(mx)
    block.hybridize()
    with pytest.raises(mx.base.MXNetError):
        block(mx.nd.array(X), mx.nd.zeros((4,)))


def test_only_axis_0():
    with pytest.raises(mx.base.MXNetError, match="axis == 0"):
        mx.nd.contrib.boolean_mask(mx.nd.array(X), mx.nd.ones((3,)), axis=1)


@pytest.mark.mxnet
@pytest.mark.parametrize("hybridize", [False, True])
def test_boolean_mask_matches_mxnet(hybridize):
    real = pytest.importorskip("mxnet")
    for ours, theirs in zip(_runs(mx, hybridize), _runs(real, hybridize)):
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a, b)
