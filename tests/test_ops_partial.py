"""Backward shape filling as gluon's deferred initialisation uses it: with only `data`'s shape
known, infer_shape_partial must fill the same parameter, aux and output shapes as real MXNet
1.9.1, for every op with learnable inputs or labels (cases reused from the op test modules)."""

import numpy as np
import pytest

import test_ops_conv
import test_ops_contrib
import test_ops_indexing
import test_ops_loss
import test_ops_norm
from mxnet_record import reference
from ops_diff import case_id, lookup

import hybridlint.engine as mx

_FILLING = {
    "Convolution",
    "Deconvolution",
    "BatchNorm",
    "LayerNorm",
    "InstanceNorm",
    "GroupNorm",
    "LeakyReLU",
    "Embedding",
    "_contrib_SyncBatchNorm",
    "_contrib_BatchNormWithReLU",
    "SoftmaxOutput",
    "Softmax",
    "LinearRegressionOutput",
    "LogisticRegressionOutput",
    "MAERegressionOutput",
    "SequenceMask",
    "pick",
}
CASES = [
    c
    for mod in (test_ops_conv, test_ops_norm, test_ops_indexing, test_ops_loss, test_ops_contrib)
    for name in ("CONV_CASES", "DECONV_CASES", "ALL", "CASES")
    for c in getattr(mod, name, [])
    if c[0] in _FILLING and len(c[1]) > 1
]


def _partial(lib, case):
    name, arrays, kw = case[:3]
    names = ["x%d" % i for i in range(len(arrays))]
    with lib.name.NameManager():
        sym = lookup(lib.sym, name)(*[lib.sym.var(n) for n in names], **kw)
    res = sym.infer_shape_partial(**{names[0]: arrays[0].shape})
    return [[tuple(s) if s is not None and len(s) else None for s in part] for part in res]


def test_cases_were_collected():
    assert len(CASES) > 40


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_partial_inference_matches_mxnet(case):
    assert _partial(mx, case) == reference(lambda m: _partial(m, case), case[:3], case[0])


def test_conv_weight_filled_from_data_alone():
    sym = mx.sym.Convolution(mx.sym.var("data"), kernel=(3, 3), num_filter=8, num_group=2)
    args, outs, _ = sym.infer_shape_partial(data=(2, 4, 10, 10))
    assert args == [(2, 4, 10, 10), (8, 2, 3, 3), (8,)]
    assert outs == [(2, 8, 8, 8)]
    np.testing.assert_equal(len(sym.list_arguments()), 3)
