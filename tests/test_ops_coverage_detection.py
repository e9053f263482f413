"""Differential tests (real MXNet 1.9.1, eager and as a graph) of the detection ops added for
the model zoos' coverage: ROIPooling."""

import numpy as np
import pytest

import hybridlint.engine as mx
from ops_diff import check_both, rand


def _rois(rng, n_rois, batch, size, scale=1.0):
    """Regions with corners anywhere in (and a little past) a size x size map, some
    degenerate (x2 < x1) and some on exact halves (C's round differs from numpy's there)."""
    xy = rng.uniform(-1, size + 1, (n_rois, 4)) / scale
    xy[::4, 2:] = xy[::4, :2] - 0.5  # malformed: forced to 1x1
    xy[1::4] = np.round(xy[1::4] * 2) / 2  # halves
    idx = rng.randint(0, batch, (n_rois, 1))
    return np.hstack([idx, xy]).astype(np.float32)


CASES = [
    ((2, 3, 8, 8), 7, (2, 2), 1.0),
    ((2, 3, 8, 10), 9, (3, 4), 0.5),
    ((1, 2, 6, 6), 5, (7, 7), 0.25),
    ((3, 1, 5, 7), 6, (1, 1), 0.7),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("dshape,n_rois,pooled,scale", CASES)
def test_roi_pooling_matches_mxnet(dshape, n_rois, pooled, scale):
    rng = np.random.RandomState(n_rois)
    data = rand(rng, *dshape, low=-3, high=-1) if n_rois == 5 else rand(rng, *dshape)
    rois = _rois(rng, n_rois, dshape[0], dshape[2], scale)
    check_both(("ROIPooling", [data, rois], {"pooled_size": pooled, "spatial_scale": scale}))


@pytest.mark.mxnet
@pytest.mark.parametrize(
    "kwargs,dshape",
    [
        ({"pooled_size": (3,), "spatial_scale": 1.0}, (1, 1, 4, 4)),
        ({"pooled_size": (2, 2), "spatial_scale": 1.5}, (1, 1, 4, 4)),
        ({"pooled_size": (2, 2), "spatial_scale": 1.0}, (1, 4, 4)),
    ],
)
def test_roi_pooling_errors_like_mxnet(kwargs, dshape):
    mx_real = pytest.importorskip("mxnet")
    data = np.zeros(dshape, np.float32)
    rois = np.array([[0, 0, 0, 1, 1]], np.float32)
    for lib in (mx_real, mx):
        with pytest.raises(lib.base.MXNetError):
            lib.nd.ROIPooling(lib.nd.array(data), lib.nd.array(rois), **kwargs).wait_to_read()


def test_roi_pooling_docstring_example():
    """MXNet's documented example (roi_pooling.cc): the values it prints."""
    x = mx.nd.array(np.arange(48, dtype=np.float32).reshape(1, 1, 8, 6))
    y = mx.nd.array([[0, 0, 0, 4, 4]])
    np.testing.assert_array_equal(
        mx.nd.ROIPooling(x, y, pooled_size=(2, 2), spatial_scale=1.0).asnumpy(),
        [[[[14, 16], [26, 28]]]],
    )
    np.testing.assert_array_equal(
        mx.nd.ROIPooling(x, y, pooled_size=(2, 2), spatial_scale=0.7).asnumpy(),
        [[[[7, 9], [19, 21]]]],
    )
    sym = mx.sym.ROIPooling(
        mx.sym.var("data"), mx.sym.var("rois"), pooled_size=(2, 3), spatial_scale=0.5
    )
    assert sym.infer_shape(data=(2, 4, 9, 9), rois=(5, 5))[1] == [(5, 4, 2, 3)]


# ----------------------------------------------------------------------------- matching


def _scores(rng, *shape):
    """Scores rounded to one decimal: many ties, so the visiting order (MXNet's stable sort)
    matters."""
    return np.round(rng.uniform(0, 1, shape), 1).astype(np.float32)


MATCHING = [
    ((4, 5), {"threshold": 0.3}),
    ((2, 4, 5), {"threshold": 0.5, "is_ascend": True}),
    ((2, 6, 3), {"threshold": 0.1, "topk": 2}),
    ((3, 3, 4), {"threshold": -1.0, "topk": 1}),  # MXNet stops after topk + 1 matches
    ((2, 2, 5, 4), {"threshold": 0.95}),  # most pairs fail the threshold
]


@pytest.mark.mxnet
@pytest.mark.parametrize("shape,kwargs", MATCHING)
def test_bipartite_matching_matches_mxnet(shape, kwargs):
    rng = np.random.RandomState(len(shape) + len(kwargs))
    check_both(("_contrib_bipartite_matching", [_scores(rng, *shape)], kwargs))
    check_both(("_contrib_bipartite_matching", [_scores(rng, *shape).astype(np.float64)], kwargs))


def test_bipartite_matching_is_a_matching():
    scores = _scores(np.random.RandomState(3), 5, 7)
    rows, cols = mx.nd.contrib.bipartite_matching(mx.nd.array(scores), threshold=0.2)
    rows, cols = rows.asnumpy().astype(int), cols.asnumpy().astype(int)
    for r, c in enumerate(rows):
        if c >= 0:
            assert cols[c] == r and scores[r, c] > 0.2
    assert (rows >= 0).sum() == (cols >= 0).sum() == 5  # 5 rows, all above 0.2 reachable
