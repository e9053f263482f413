"""Contrib ops used by GluonNLP/GluonCV hybrid code: the interleaved_matmul_* attention ops,
SyncBatchNorm, quadratic and index_copy. Shape inference and errors without MXNet; values,
names and graph JSON against real MXNet 1.9.1 (eager and graph)."""

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from ops_diff import case_id, check_both, rand

RNG = np.random.RandomState(29)


def test_attention_shapes_and_errors():
    x = mx.sym.var("x")
    assert mx.sym.contrib.interleaved_matmul_selfatt_qk(x, heads=2).infer_shape(x=(5, 3, 24))[
        1
    ] == [(6, 5, 5)]
    s = mx.sym.contrib.interleaved_matmul_encdec_qk(x, mx.sym.var("kv"), heads=2)
    assert s.infer_shape(x=(5, 3, 8), kv=(7, 3, 16))[1] == [(6, 5, 7)]
    with pytest.raises(MXNetError, match="heads"):
        mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.ones((5, 3, 10)), heads=2)


def test_selfatt_qk_by_hand():
    """One head of width 1: scores are q_i * k_j (head_dim 1, no scaling)."""
    qkv = np.array([[[1.0, 2.0, 3.0]], [[4.0, 5.0, 6.0]]], np.float32)  # (seq 2, batch 1, 3)
    got = mx.nd.contrib.interleaved_matmul_selfatt_qk(mx.nd.array(qkv), heads=1).asnumpy()
    np.testing.assert_allclose(got, [[[2, 5], [8, 20]]])


def test_sync_batchnorm_is_batchnorm_on_one_device():
    args = [
        mx.nd.array(a)
        for a in (
            rand(RNG, 4, 3, 2),
            rand(RNG, 3),
            rand(RNG, 3),
            rand(RNG, 3),
            rand(RNG, 3, low=0.5, high=1.5),
        )
    ]
    np.testing.assert_allclose(
        mx.nd.contrib.SyncBatchNorm(*args, key="k", fix_gamma=False).asnumpy(),
        mx.nd.BatchNorm(*args, fix_gamma=False).asnumpy(),
        rtol=1e-6,
    )
    sym = mx.sym.contrib.SyncBatchNorm(mx.sym.var("x"), key="k")
    assert sym.list_auxiliary_states() == [
        "syncbatchnorm0_moving_mean",
        "syncbatchnorm0_moving_var",
    ]


_QKV = rand(RNG, 5, 3, 24)
_KV = rand(RNG, 7, 3, 16)
CASES = [
    ("_contrib_interleaved_matmul_selfatt_qk", [_QKV], dict(heads=2)),
    ("_contrib_interleaved_matmul_selfatt_qk", [_QKV], dict(heads=4)),
    ("_contrib_interleaved_matmul_selfatt_valatt", [_QKV, rand(RNG, 6, 5, 5)], dict(heads=2)),
    ("_contrib_interleaved_matmul_encdec_qk", [rand(RNG, 5, 3, 8), _KV], dict(heads=2)),
    ("_contrib_interleaved_matmul_encdec_valatt", [_KV, rand(RNG, 6, 5, 7)], dict(heads=2)),
    (
        "_contrib_SyncBatchNorm",
        [
            rand(RNG, 4, 3, 5),
            rand(RNG, 3),
            rand(RNG, 3),
            rand(RNG, 3),
            rand(RNG, 3, low=0.5, high=1.5),
        ],
        dict(key="k", fix_gamma=False),
    ),
    (
        "_contrib_SyncBatchNorm",
        [
            rand(RNG, 4, 3, 5),
            rand(RNG, 3),
            rand(RNG, 3),
            rand(RNG, 3),
            rand(RNG, 3, low=0.5, high=1.5),
        ],
        dict(key="k", output_mean_var=True, eps=1e-5),
        1,
    ),  # MXNet leaves mean/var unwritten
    ("_contrib_quadratic", [rand(RNG, 3, 4)], dict(a=1.5, b=-2.0, c=0.5)),
    ("_contrib_quadratic", [rand(RNG, 3, 4)], {}),
    (
        "_contrib_index_copy",
        [rand(RNG, 5, 3), np.array([0, 4, 2], np.float32), rand(RNG, 3, 3)],
        {},
    ),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)
