"""SoftmaxOutput/Softmax, the regression outputs, MakeLoss, make_loss and
softmax_cross_entropy: label shape inference without MXNet; forward values, argument and
output names against real MXNet 1.9.1 (eager and graph)."""

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from ops_diff import case_id, check_both, rand

RNG = np.random.RandomState(19)


@pytest.mark.parametrize(
    "kw, data, label",
    [
        ({}, (2, 3, 4), (2, 3)),
        ({"multi_output": True}, (2, 3, 4), (2, 4)),
        ({"preserve_shape": True}, (2, 3, 4), (2, 3)),
        ({}, (2, 5), (2,)),
    ],
)
def test_softmax_output_label_shape(kw, data, label):
    sym = mx.sym.SoftmaxOutput(mx.sym.var("x"), **kw)
    assert sym.list_arguments() == ["x", "softmaxoutput0_label"] or sym.list_arguments()[
        1
    ].endswith("_label")
    assert sym.infer_shape(x=data)[0] == [data, label]


def test_loss_heads_names_and_errors():
    with mx.name.NameManager():  # a fresh counter: other tests in this worker made losses too
        assert mx.sym.make_loss(mx.sym.var("x")).list_outputs() == ["make_loss0_loss"]
        assert mx.sym.MakeLoss(mx.sym.var("x")).list_outputs() == ["makeloss0_output"]
    with pytest.raises(MXNetError, match="2-D"):
        mx.nd.softmax_cross_entropy(mx.nd.ones((2, 3, 4)), mx.nd.ones((2,)))
    with pytest.raises(MXNetError, match="out of range"):
        mx.nd.softmax_cross_entropy(mx.nd.ones((2, 3)), mx.nd.array([0, 3]))


CASES = [
    ("SoftmaxOutput", [rand(RNG, 2, 3, 4), rand(RNG, 2, 3)], {}),
    ("SoftmaxOutput", [rand(RNG, 2, 3, 4), rand(RNG, 2, 4)], dict(multi_output=True)),
    ("SoftmaxOutput", [rand(RNG, 2, 3, 4), rand(RNG, 2, 3)], dict(preserve_shape=True)),
    (
        "SoftmaxOutput",
        [rand(RNG, 4, 5), np.array([0, 1, 4, 2], np.float32)],
        dict(grad_scale=2.0, use_ignore=True, ignore_label=1, normalization="valid"),
    ),
    ("Softmax", [rand(RNG, 4, 5), np.array([0, 1, 4, 2], np.float32)], {}),
    ("LinearRegressionOutput", [rand(RNG, 3, 2), rand(RNG, 3, 2)], {}),
    ("LogisticRegressionOutput", [rand(RNG, 3, 2), rand(RNG, 3, 2)], dict(grad_scale=0.5)),
    ("MAERegressionOutput", [rand(RNG, 3, 2), rand(RNG, 3, 2)], {}),
    ("MakeLoss", [rand(RNG, 3, 2)], dict(grad_scale=3.0, normalization="batch")),
    ("make_loss", [rand(RNG, 3, 2)], {}),
    ("softmax_cross_entropy", [rand(RNG, 4, 5), np.array([0, 1, 4, 2], np.float32)], {}),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)
