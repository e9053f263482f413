"""Reductions (sum/mean/max/min/prod/nansum/nanprod, norm, argmax/argmin/argmax_channel):
MXNet's output shapes and dtypes without MXNet, and differential tests against real MXNet 1.9.1
over axis (negative, tuples, None), keepdims and exclude, eagerly and as a graph."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from ops_diff import case_id, check_both, check_eager, rand

RNG = np.random.RandomState(3)

# ----------------------------------------------------------------------------- engine-only


@pytest.mark.parametrize(
    "kw, shape",
    [
        ({}, (1,)),
        ({"keepdims": True}, (1, 1, 1)),
        ({"axis": ()}, (1,)),
        ({"axis": 1}, (2, 4)),
        ({"axis": -1, "keepdims": True}, (2, 3, 1)),
        ({"axis": (0, 2), "exclude": True}, (2, 4)),
        ({"axis": (0, 2)}, (3,)),
    ],
)
def test_sum_shapes(kw, shape):
    x = mx.nd.ones((2, 3, 4))
    assert mx.nd.sum(x, **kw).shape == shape
    assert mx.sym.sum(mx.sym.var("x"), **kw).infer_shape(x=(2, 3, 4))[1] == [shape]


def test_int_reductions_keep_int_dtype():
    x = mx.nd.array(np.arange(24).reshape(2, 3, 4), dtype="int32")
    assert mx.nd.sum(x).dtype == np.int32
    assert mx.nd.mean(x, axis=1).asnumpy().tolist() == [[4, 5, 6, 7], [16, 17, 18, 19]]
    assert mx.nd.argmax(x, axis=1).dtype == np.int32
    assert mx.nd.argmax(mx.nd.ones((2, 3)), axis=1).dtype == np.float32


@pytest.mark.parametrize(
    "op, kw, err",
    [
        ("sum", {"axis": 3}, "out of range"),
        ("sum", {"axis": (1, 1)}, "more than once"),
        ("argmax", {"axis": -4}, "out of range"),
        ("norm", {"ord": 3}, "ord"),
        ("norm", {"axis": (0, 1, 2)}, "axis"),
    ],
)
def test_reduce_errors(op, kw, err):
    with pytest.raises(MXNetError, match=err):
        getattr(mx.nd, op)(mx.nd.ones((2, 3, 4)), **kw)
    with pytest.raises(MXNetError, match=err):
        getattr(mx.sym, op)(mx.sym.var("x"), **kw).infer_shape(x=(2, 3, 4))


def test_norm_out_dtype():
    """(Real MXNet 1.9.1 fails on out_dtype='float64' with a float32 input, so this is
    engine-only: the documented result type.)"""
    x = mx.nd.array(rand(RNG, 3, 4))
    out = mx.nd.norm(x, axis=1, out_dtype="float64")
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.asnumpy(), np.linalg.norm(x.asnumpy(), axis=1), rtol=1e-6)


def test_fluent_methods_dispatch_to_reductions():
    x = mx.nd.array(rand(RNG, 2, 3))
    np.testing.assert_allclose(x.sum(axis=1).asnumpy(), x.asnumpy().sum(axis=1), rtol=1e-6)
    np.testing.assert_allclose(x.max().asnumpy(), [x.asnumpy().max()])
    np.testing.assert_allclose(x.norm().asnumpy(), [np.linalg.norm(x.asnumpy())], rtol=1e-6)


# ----------------------------------------------------------------------------- differential


CASES = []
_AXES = [None, 1, -1, (0, 2), (-1, 0), ()]
for _op in ("sum", "mean", "max", "min", "prod", "nansum", "nanprod"):
    for _axis, _kd, _ex in itertools.product(_AXES, (False, True), (False, True)):
        if _axis is None and _ex:
            continue
        kw = dict(keepdims=_kd, exclude=_ex)
        if _axis is not None:
            kw["axis"] = _axis
        CASES.append((_op, [rand(RNG, 3, 4, 5, low=0.5, high=1.5)], kw))
    CASES.append((_op, [(np.arange(24, dtype=np.int32).reshape(2, 3, 4) % 5) + 1], dict(axis=1)))
_nan = rand(RNG, 3, 4)
_nan[0, 1] = _nan[2, 3] = np.nan
CASES += [
    ("nansum", [_nan], dict(axis=0)),
    ("nanprod", [_nan], dict(axis=1)),
    ("nansum", [_nan], {}),
]
for _ord, _axis, _kd in itertools.product((1, 2), (None, 1, -1, (0, 2)), (False, True)):
    kw = dict(ord=_ord, keepdims=_kd)
    if _axis is not None:
        kw["axis"] = _axis
    CASES.append(("norm", [rand(RNG, 3, 4, 5)], kw))
for _op, _axis, _kd in itertools.product(("argmax", "argmin"), (None, 0, -1, 1), (False, True)):
    kw = dict(keepdims=_kd)
    if _axis is not None:
        kw["axis"] = _axis
    CASES.append((_op, [rand(RNG, 3, 4, 5)], kw))
CASES += [
    ("argmax", [(np.arange(12, dtype=np.int32) * 7 % 12).reshape(3, 4)], dict(axis=1)),
    ("argmax_channel", [rand(RNG, 3, 4, 5)], {}),
    ("argmax_channel", [rand(RNG, 3, 4)], {}),
    ("sum_axis", [rand(RNG, 3, 4)], dict(axis=1)),
    ("max_axis", [rand(RNG, 3, 4)], dict(axis=0, keepdims=True)),
    ("min_axis", [rand(RNG, 3, 4)], {}),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_matches_mxnet(case):
    check_both(case)


@pytest.mark.mxnet
@settings(max_examples=30, deadline=None)
@given(
    shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    op=st.sampled_from(["sum", "mean", "max", "min", "prod"]),
    data=st.data(),
)
def test_random_axes_match_mxnet(shape, op, data):
    mx_real = pytest.importorskip("mxnet")
    nd = len(shape)
    axes = data.draw(st.lists(st.integers(-nd, nd - 1), unique_by=lambda a: a % nd, max_size=nd))
    kw = dict(keepdims=data.draw(st.booleans()), exclude=data.draw(st.booleans()))
    if axes:
        kw["axis"] = tuple(axes)
    x = rand(np.random.RandomState(len(shape)), *shape, low=0.5, high=1.5)
    check_eager(mx_real, op, [x], kw)
