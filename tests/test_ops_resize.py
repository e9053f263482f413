"""contrib.BilinearResize2D and contrib.AdaptiveAvgPooling2D: output-size rules and errors
without MXNet; differential tests against real MXNet 1.9.1 (eager and graph)."""

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
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
