"""contrib.BilinearResize2D and contrib.AdaptiveAvgPooling2D: output-size rules and errors
without MXNet; differential tests against real MXNet 1.9.1 (eager and graph)."""

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from mxnet_record import reference
from ops_diff import case_id, check_both, rand

RNG = np.random.RandomState(23)


@pytest.mark.parametrize(
    "kw, data, out",
    [
        ({"height": 5, "width": 7}, (1, 2, 3, 4), (1, 2, 5, 7)),
        ({"scale_height": 2.0, "scale_width": 1.5}, (1, 2, 3, 4), (1, 2, 6, 6)),
        (
            {"mode": "odd_scale", "scale_height": 2.0, "scale_width": 2.0},
            (1, 2, 3, 4),
            (1, 2, 5, 8),
        ),
        ({"mode": "to_even_down"}, (1, 2, 3, 4), (1, 2, 2, 4)),
        ({"mode": "to_odd_up"}, (1, 2, 3, 4), (1, 2, 3, 5)),
    ],
)
def test_resize_sizes(kw, data, out):
    sym = mx.sym.contrib.BilinearResize2D(mx.sym.var("x"), **kw)
    assert sym.infer_shape(x=data)[1] == [out]


def test_adaptive_sizes_and_errors():
    sym = mx.sym.contrib.AdaptiveAvgPooling2D(mx.sym.var("x"), output_size=3)
    assert sym.infer_shape(x=(2, 3, 7, 8))[1] == [(2, 3, 3, 3)]
    x = mx.nd.array(rand(RNG, 2, 3, 4, 6))
    np.testing.assert_allclose(
        mx.nd.contrib.AdaptiveAvgPooling2D(x).asnumpy()[..., 0, 0],
        x.asnumpy().mean(axis=(2, 3)),
        rtol=1e-6,
    )
    with pytest.raises(MXNetError, match="4-D"):
        mx.nd.contrib.AdaptiveAvgPooling2D(mx.nd.ones((2, 3, 4)))
    with pytest.raises(MXNetError, match="4-D"):
        mx.nd.contrib.BilinearResize2D(mx.nd.ones((2, 3, 4)), height=2, width=2)


CASES = []
for _align in (True, False):
    for _kw in (
        {"height": 5, "width": 7},
        {"height": 2, "width": 3},
        {"height": 1, "width": 4},
        {"scale_height": 2.0, "scale_width": 1.5},
        {"mode": "odd_scale", "scale_height": 2.0, "scale_width": 2.0},
        {"mode": "to_even_up"},
        {"mode": "to_odd_down"},
    ):
        CASES.append(
            ("_contrib_BilinearResize2D", [rand(RNG, 2, 3, 3, 4)], dict(_kw, align_corners=_align))
        )
    CASES.append(
        (
            "_contrib_BilinearResize2D",
            [rand(RNG, 1, 2, 4, 5), rand(RNG, 1, 1, 7, 9)],
            dict(mode="like", align_corners=_align),
        )
    )
for _size in ((), (1,), (3,), (2, 3), (4, 6), (3, 5)):
    CASES.append(
        ("_contrib_AdaptiveAvgPooling2D", [rand(RNG, 2, 3, 7, 10)], dict(output_size=_size))
    )


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)


# Scale-mode sizes are float32 products in MXNet (`int(h * scale)` with a float32 scale): a
# downscale by 1 / k then truncates below h // k for some (h, k), and float64 gets others
# wrong the other way (41 * (1 / 41): MXNet 0 rows; 49 * (1 / 49): MXNet 1). HL001 rewrites
# `s // k` sizes to `scale_height=1.0 / k`, so the engine must size them as MXNet does.
_SCALES = [1.0 / k for k in (2, 3, 7, 10, 41, 47, 49, 97)] + [0.3, 1.7, 2.5]
_SIZES = (1, 2, 3, 7, 41, 49, 82, 97, 98, 147, 194, 300)


def _scale_sizes(m, mode):
    out = {}
    for scale in _SCALES:
        out[repr(scale)] = [
            list(
                m.nd.contrib.BilinearResize2D(
                    m.nd.zeros((1, 1, size, size + 1)),
                    scale_height=scale,
                    scale_width=scale,
                    mode=mode,
                ).shape[2:]
            )
            for size in _SIZES
        ]
    return out


@pytest.mark.mxnet
@pytest.mark.parametrize("mode", ["size", "odd_scale"])
def test_scale_sizes_are_float32_products_as_in_mxnet(mode):
    want = reference(lambda m: _scale_sizes(m, mode), (mode, _SCALES, _SIZES), mode)
    assert _scale_sizes(mx, mode) == want


def test_downscale_by_reciprocal_truncates_as_mxnet_does():
    """Values read off MXNet 1.9.1 (`infer_shape`), so this holds without MXNet too."""
    x = mx.nd.ones((1, 1, 41, 49))
    y = mx.nd.contrib.BilinearResize2D(x, scale_height=1.0 / 41, scale_width=1.0 / 49)
    assert y.shape == (1, 1, 0, 1)
