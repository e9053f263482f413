"""CTCLoss (engine/ops/ctc.py) against real MXNet 1.9.1, eagerly and as a graph: both blank
conventions and their padding, explicit data and label lengths, labels that cannot fit (MXNet
gives 0), empty labels, repeated labels and large activations. float32 only: MXNet 1.9.1's
float64 CTCLoss corrupts its engine state (a dtype check fails at exit); zero data lengths
crash it."""

import numpy as np
import pytest

import hybridlint.engine as mx
from ops_diff import check_both, rand

F = np.float32


def _data(seed, steps=6, batch=3, alphabet=5, spread=2.0):
    return rand(np.random.RandomState(seed), steps, batch, alphabet, low=-spread, high=spread)


CASES = [
    ("CTCLoss", [_data(0), np.array([[2, 1, 0, 0], [3, 2, 2, 0], [1, 2, 1, 3]], F)], {}),
    (
        "CTCLoss",
        [_data(1), np.array([[1, 0, -1, -1], [2, 1, 1, -1], [0, 1, 0, 2]], F)],
        {"blank_label": "last"},
    ),
    (
        "CTCLoss",
        [
            _data(2),
            np.array([[2, 1, 0, 0], [3, 2, 2, 0], [1, 2, 1, 3]], F),
            np.array([6, 4, 5], F),
            np.array([2, 1, 3], F),
        ],
        {"use_data_lengths": True, "use_label_lengths": True},
    ),
    ("CTCLoss", [_data(3), np.array([[1, 0, 2, 0], [0, 0, 0, 0], [4, 4, 4, 0]], F)], {}),
    (
        "CTCLoss",
        [_data(4, steps=4), np.array([[1, 1, 1, 1], [1, 2, 1, 2], [3, 3, 0, 0]], F)],
        {},
    ),  # [1,1,1,1] cannot fit in 4 steps: 0
    (
        "CTCLoss",
        [_data(5, spread=20.0), np.array([[1, 2, 3, 0], [3, 0, 0, 0], [2, 2, 0, 0]], F)],
        {},
    ),
    (
        "CTCLoss",
        [_data(6), np.array([[1, 2], [3, 1], [2, 2]], F), np.array([3, 6, 5], F)],
        {"use_data_lengths": True, "blank_label": "last"},
    ),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[str(i) for i in range(len(CASES))])
def test_ctc_loss_matches_mxnet(case):
    check_both(case)


@pytest.mark.mxnet
@pytest.mark.parametrize("name", ["ctc_loss", "_contrib_CTCLoss"])
def test_aliases_match_mxnet(name):
    check_both((name,) + CASES[0][1:])


@pytest.mark.mxnet
def test_labels_longer_than_the_data_fail_like_mxnet():
    mx_real = pytest.importorskip("mxnet")
    label = np.array([[1, 2, 1, 2, 1, 2, 1]] * 3, F)
    for lib in (mx_real, mx):
        with pytest.raises(lib.base.MXNetError):
            lib.nd.CTCLoss(lib.nd.array(_data(7, steps=3)), lib.nd.array(label)).wait_to_read()


def test_ctc_loss_of_a_single_path_is_its_log_probability():
    """One step, one label: the only alignment is the label itself."""
    x = _data(8, steps=1, batch=2, alphabet=4)
    loss = mx.nd.CTCLoss(mx.nd.array(x), mx.nd.array(np.array([[2], [3]], F))).asnumpy()
    log_p = x[0] - np.log(np.exp(x[0]).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(loss, [-log_p[0, 2], -log_p[1, 3]], rtol=1e-5)
