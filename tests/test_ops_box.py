"""contrib.box_nms and contrib.box_iou: a hand-checked NMS example and errors without MXNet;
differential tests against real MXNet 1.9.1 (eager and graph) on fixed and random boxes."""

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from ops_diff import case_id, check_both

RNG = np.random.RandomState(13)

# rows: class id, score, x1, y1, x2, y2
D = np.array(
    [
        [0, 0.5, 0.1, 0.1, 0.2, 0.2],
        [1, 0.4, 0.1, 0.1, 0.2, 0.2],
        [0, 0.3, 0.1, 0.1, 0.14, 0.14],
        [2, 0.6, 0.5, 0.5, 0.7, 0.8],
        [0, -0.1, 0, 0, 1, 1],
    ],
    np.float32,
)
BASE = dict(coord_start=2, score_index=1)


def test_nms_by_hand():
    out = mx.nd.contrib.box_nms(mx.nd.array(D), overlap_thresh=0.1, id_index=0, **BASE).asnumpy()
    # sorted by score; the class-1 box survives (other class), the small class-0 box overlaps
    # the 0.5 box by IoU 0.16 > 0.1 and goes; the negative score is invalid
    np.testing.assert_allclose(out[:3], D[[3, 0, 1]])
    assert (out[3:] == -1).all()
    forced = mx.nd.contrib.box_nms(
        mx.nd.array(D), overlap_thresh=0.1, id_index=0, force_suppress=True, **BASE
    ).asnumpy()
    np.testing.assert_allclose(forced[:2], D[[3, 0]])
    assert (forced[2:] == -1).all()


def test_box_nms_symbol_and_errors():
    sym = mx.sym.contrib.box_nms(mx.sym.var("x"))
    assert sym.list_outputs() == ["box_nms0_output0"]
    assert sym.infer_shape(x=(2, 5, 6))[1] == [(2, 5, 6)]
    with pytest.raises(MXNetError, match="do not fit"):
        mx.nd.contrib.box_nms(mx.nd.zeros((5, 4)))
    with pytest.raises(MXNetError, match="last axis of 4"):
        mx.nd.contrib.box_iou(mx.nd.zeros((2, 3)), mx.nd.zeros((2, 4)))


def _random_boxes(b, n):
    xy = RNG.rand(b, n, 2)
    wh = RNG.rand(b, n, 2) * 0.4
    return np.concatenate(
        [RNG.randint(0, 3, (b, n, 1)), RNG.rand(b, n, 1), xy, xy + wh], -1
    ).astype(np.float32)


_R = _random_boxes(3, 30)
CASES = [
    ("_contrib_box_nms", [D], dict(overlap_thresh=0.1, id_index=0, force_suppress=True, **BASE)),
    ("_contrib_box_nms", [D], dict(overlap_thresh=0.1, id_index=0, **BASE)),
    (
        "_contrib_box_nms",
        [D],
        dict(overlap_thresh=0.1, id_index=0, valid_thresh=0.35, background_id=2, **BASE),
    ),
    ("_contrib_box_nms", [D], dict(overlap_thresh=0.1, topk=2, **BASE)),
    ("_contrib_box_nms", [D], dict(in_format="center", **BASE)),
    ("_contrib_box_nms", [D], dict(in_format="center", out_format="center", **BASE)),
    ("_contrib_box_nms", [D], dict(out_format="center", **BASE)),
    ("_contrib_box_nms", [np.stack([D, D * 0.9])], BASE),
    ("_contrib_box_nms", [_R], dict(overlap_thresh=0.3, id_index=0, **BASE)),
    ("_contrib_box_nms", [_R], dict(overlap_thresh=0.3, valid_thresh=0.2, topk=10, **BASE)),
    ("_contrib_box_nms", [_R[..., 1:]], dict(overlap_thresh=0.4, coord_start=1, score_index=0)),
    ("_contrib_box_non_maximum_suppression", [_R[0]], dict(overlap_thresh=0.5, **BASE)),
]
_A = RNG.rand(4, 4).astype(np.float32)
_A[:, 2:] += _A[:, :2]
_B = RNG.rand(2, 3, 4).astype(np.float32)
_B[..., 2:] += _B[..., :2]
CASES += [("_contrib_box_iou", [_A, _B], dict(format=f)) for f in ("corner", "center")]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)


def _corner_boxes(*shape):
    b = RNG.rand(*shape, 4).astype(np.float32)
    b[..., 2:] = b[..., :2] + 0.1 + b[..., 2:] * 0.5
    return b


_ANCH = _corner_boxes(1, 6)
_CENTER = np.concatenate([_ANCH[..., :2], _ANCH[..., 2:] - _ANCH[..., :2]], -1)
_SAMPLES = np.array([[1, -1, 0, 1, 1, 0], [0, 1, 1, -1, 1, 1]], np.float32)
_MATCHES = np.array([[0, 1, 2, 1, 0, 2], [2, 0, 1, 1, 2, 0]], np.float32)
CASES2 = [
    (
        "_contrib_box_decode",
        [RNG.randn(2, 6, 4).astype(np.float32) * 0.5, _ANCH],
        dict(format="corner"),
    ),
    ("_contrib_box_decode", [RNG.randn(2, 6, 4).astype(np.float32) * 0.5, _CENTER], {}),
    (
        "_contrib_box_decode",
        [RNG.randn(2, 6, 4).astype(np.float32) * 3, _ANCH],
        dict(format="corner", std0=0.1, std1=0.1, std2=0.2, std3=0.2, clip=1.5),
    ),
    (
        "_contrib_box_encode",
        [
            _SAMPLES,
            _MATCHES,
            _corner_boxes(2, 6),
            _corner_boxes(2, 3),
            np.array([0, 0, 0, 0], np.float32),
            np.array([0.1, 0.1, 0.2, 0.2], np.float32),
        ],
        {},
    ),
    (
        "_contrib_MultiBoxPrior",
        [RNG.rand(1, 3, 2, 3).astype(np.float32)],
        dict(sizes=(0.5, 0.25), ratios=(1, 2)),
    ),
    (
        "_contrib_MultiBoxPrior",
        [RNG.rand(2, 3, 4, 4).astype(np.float32)],
        dict(sizes=(0.9, 0.5, 0.2), ratios=(1, 2, 0.5), clip=True),
    ),
    (
        "_contrib_MultiBoxPrior",
        [RNG.rand(1, 3, 3, 5).astype(np.float32)],
        dict(sizes=(0.3,), steps=(0.2, 0.1), offsets=(0.3, 0.6)),
    ),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES2, ids=[case_id(c) for c in CASES2])
def test_encode_decode_prior_match_mxnet(case):
    check_both(case)


def test_multibox_prior_shape():
    sym = mx.sym.contrib.MultiBoxPrior(mx.sym.var("x"), sizes=(0.5, 0.25), ratios=(1, 2, 3))
    assert sym.infer_shape(x=(2, 8, 5, 7))[1] == [(1, 5 * 7 * 4, 4)]


_FMAP = RNG.randn(2, 3, 9, 11).astype(np.float32)
_ROIS = np.array(
    [
        [0, 1, 1, 6, 5],
        [1, 0.5, 2.2, 9.7, 7.1],
        [0, -3, -2, 4, 3],
        [1, 8, 7, 30, 25],
        [0, 2, 2, 2.4, 2.3],
        [1, 10, 6, 10.5, 8.9],
    ],
    np.float32,
)
_xy = RNG.uniform(-2, 12, size=(40, 2))
_RAND_ROIS = np.concatenate(
    [RNG.randint(0, 2, (40, 1)), _xy, _xy + RNG.uniform(0, 8, (40, 2))], 1
).astype(np.float32)
CASES3 = [
    ("_contrib_ROIAlign", [_FMAP, rois], kw)
    for rois in (_ROIS, _RAND_ROIS)
    for kw in (
        dict(pooled_size=(2, 2), spatial_scale=1.0),
        dict(pooled_size=(3, 2), spatial_scale=0.5),
        dict(pooled_size=(2, 3), spatial_scale=1.0, sample_ratio=2),
        dict(pooled_size=(2, 2), spatial_scale=0.8, aligned=True),
        dict(pooled_size=(4, 4), spatial_scale=0.7, sample_ratio=3, aligned=True),
        dict(pooled_size=(3, 3), spatial_scale=0.625),
    )
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES3, ids=[case_id(c) for c in CASES3])
def test_roi_align_matches_mxnet(case):
    check_both(case)


def test_roi_align_shapes_and_errors():
    s = mx.sym.contrib.ROIAlign(
        mx.sym.var("x"), mx.sym.var("r"), pooled_size=(2, 3), spatial_scale=0.5
    )
    assert s.infer_shape(x=(2, 3, 8, 8), r=(4, 5)) == ([(2, 3, 8, 8), (4, 5)], [(4, 3, 2, 3)], [])
    with pytest.raises(MXNetError, match="wrong dimensions"):
        mx.nd.contrib.ROIAlign(
            mx.nd.array(_FMAP), mx.nd.array(_ROIS), pooled_size=(4,), spatial_scale=0.5
        )
    with pytest.raises(MXNetError, match="bound"):
        mx.nd.contrib.ROIAlign(
            mx.nd.array(_FMAP), mx.nd.array(_ROIS), pooled_size=(2, 2), spatial_scale=1.5
        )
