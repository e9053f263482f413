"""GridGenerator, BilinearSampler and SpatialTransformer: shapes and errors without MXNet; values
against real MXNet 1.9.1 (eager and graph), including grid points on and beyond the border."""

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from ops_diff import case_id, check_both

RNG = np.random.RandomState(31)
THETA = np.array([[1, 0, 0, 0, 1, 0], [0.8, -0.3, 0.1, 0.2, 1.1, -0.2]], np.float32)


def test_identity_affine_grid_resamples_the_image():
    data = RNG.randn(1, 2, 4, 5).astype(np.float32)
    out = mx.nd.SpatialTransformer(
        mx.nd.array(data),
        mx.nd.array(THETA[:1]),
        target_shape=(4, 5),
        transform_type="affine",
        sampler_type="bilinear",
    ).asnumpy()
    np.testing.assert_allclose(out, data, rtol=1e-5, atol=1e-6)


def test_sampler_shapes_and_errors():
    s = mx.sym.BilinearSampler(mx.sym.var("d"), mx.sym.var("g"))
    assert s.infer_shape(d=(2, 3, 5, 6), g=(2, 2, 3, 4))[1] == [(2, 3, 3, 4)]
    with pytest.raises(MXNetError, match="batch, 6"):
        mx.nd.GridGenerator(mx.nd.ones((2, 4)), transform_type="affine", target_shape=(3, 3))
    with pytest.raises(MXNetError, match="grid"):
        mx.nd.BilinearSampler(mx.nd.ones((1, 1, 3, 3)), mx.nd.ones((1, 3, 2, 2)))


_GRID = RNG.uniform(-1.3, 1.3, size=(2, 2, 3, 4)).astype(np.float32)
_GRID[0, :, 0, :] = [[-1, 1, 1, -1], [-1, -1, 1, 1]]
CASES = [
    ("GridGenerator", [THETA], dict(transform_type="affine", target_shape=(3, 4))),
    ("GridGenerator", [THETA], dict(transform_type="affine", target_shape=(5, 2))),
    ("GridGenerator", [RNG.randn(2, 2, 3, 4).astype(np.float32)], dict(transform_type="warp")),
    ("BilinearSampler", [RNG.randn(2, 3, 5, 6).astype(np.float32), _GRID], {}),
    (
        "BilinearSampler",
        [
            RNG.randn(2, 1, 4, 4).astype(np.float32),
            RNG.uniform(-1, 1, size=(2, 2, 6, 7)).astype(np.float32),
        ],
        {},
    ),
    (
        "SpatialTransformer",
        [RNG.randn(2, 3, 5, 6).astype(np.float32), THETA],
        dict(target_shape=(4, 3), transform_type="affine", sampler_type="bilinear"),
    ),
    (
        "SpatialTransformer",
        [RNG.randn(2, 3, 5, 6).astype(np.float32), THETA * 1.5],
        dict(target_shape=(5, 6), transform_type="affine", sampler_type="bilinear"),
    ),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)
