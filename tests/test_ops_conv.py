"""Convolution, Deconvolution and Pooling: shape inference (including backward filling of
weight/bias for gluon's deferred init) and errors without MXNet; differential tests against
real MXNet 1.9.1 over stride/pad/dilation/groups, 1-D/2-D/3-D, pooling types and conventions,
eagerly and through the compiled graph."""

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hybridlint.engine as mx
from hybridlint.engine.base import MXNetError
from ops_diff import case_id, check_both, check_eager, engine_shapes, rand

RNG = np.random.RandomState(7)

# ----------------------------------------------------------------------------- engine-only


def test_conv_fills_weight_and_bias_from_data():
    sym, (args, outs, aux) = engine_shapes(
        "Convolution",
        {"data": (2, 6, 9, 8)},
        kernel=(3, 3),
        num_filter=4,
        num_group=2,
        stride=(2, 1),
        pad=(1, 0),
        dilate=(1, 2),
    )
    assert sym.list_arguments() == ["data", "convolution0_weight", "convolution0_bias"]
    assert args == [(2, 6, 9, 8), (4, 3, 3, 3), (4,)]
    assert outs == [(2, 4, 5, 4)]
    assert aux == []


def test_conv_1d_no_bias_shapes():
    sym, (args, outs, _) = engine_shapes(
        "Convolution",
        {"data": (2, 3, 10)},
        kernel=(3,),
        num_filter=5,
        no_bias=True,
        stride=(2,),
        pad=(1,),
    )
    assert sym.list_arguments() == ["data", "convolution0_weight"]
    assert args == [(2, 3, 10), (5, 3, 3)]
    assert outs == [(2, 5, 5)]


def test_deconv_fills_weight_and_output_size():
    sym, (args, outs, _) = engine_shapes(
        "Deconvolution",
        {"data": (2, 4, 5, 6)},
        kernel=(3, 3),
        num_filter=6,
        num_group=2,
        stride=(2, 3),
        pad=(1, 1),
        adj=(1, 2),
        no_bias=False,
    )
    assert args == [(2, 4, 5, 6), (4, 3, 3, 3), (6,)]
    assert outs == [(2, 6, 10, 18)]
    _, (_, outs, _) = engine_shapes(
        "Deconvolution",
        {"data": (2, 4, 5, 6)},
        kernel=(3, 3),
        num_filter=3,
        stride=(2, 2),
        target_shape=(10, 12),
    )
    assert outs == [(2, 3, 10, 12)]


@pytest.mark.parametrize(
    "kw, data, err",
    [
        ({"kernel": (3, 3), "num_filter": 4}, (2, 3, 4), "4-D input"),
        ({"kernel": (3, 3), "num_filter": 4}, (2, 3, 2, 2), "kernel size exceed"),
        ({"kernel": (3, 3), "num_filter": 4, "num_group": 2}, (2, 3, 5, 5), "divisible"),
        ({"kernel": (3, 3), "num_filter": 3, "num_group": 2}, (2, 4, 5, 5), "divisible"),
        ({"kernel": (3, 3), "num_filter": 4, "stride": (1,)}, (2, 3, 5, 5), "stride"),
    ],
)
def test_conv_bad_shapes_raise(kw, data, err):
    with pytest.raises(MXNetError, match=err):
        mx.nd.Convolution(mx.nd.zeros(data), mx.nd.zeros((4, 3, 3, 3)), mx.nd.zeros((4,)), **kw)
    with mx.name.NameManager():
        sym = mx.sym.Convolution(mx.sym.var("data"), **kw)
    with pytest.raises(MXNetError, match=err):
        sym.infer_shape(data=data)


def test_conv_wrong_weight_shape_names_both_shapes():
    with pytest.raises(MXNetError, match=r"\[4,3,3,3\].*\[4,3,5,5\]|\[4,3,5,5\].*\[4,3,3,3\]"):
        mx.nd.Convolution(
            mx.nd.zeros((1, 3, 8, 8)),
            mx.nd.zeros((4, 3, 3, 3)),
            mx.nd.zeros((4,)),
            kernel=(5, 5),
            num_filter=4,
        )


@pytest.mark.parametrize(
    "kw, data, out",
    [
        ({"kernel": (2, 2), "stride": (2, 2)}, (1, 3, 7, 9), (1, 3, 3, 4)),
        (
            {"kernel": (2, 2), "stride": (2, 2), "pooling_convention": "full"},
            (1, 3, 7, 9),
            (1, 3, 4, 5),
        ),
        ({"kernel": (3,), "stride": (2,), "pad": (1,)}, (2, 3, 10), (2, 3, 5)),
        ({"global_pool": True, "pool_type": "avg"}, (2, 3, 7, 5), (2, 3, 1, 1)),
        ({"global_pool": True, "kernel": (2, 2)}, (2, 3, 4, 5, 6), (2, 3, 1, 1, 1)),
        ({"kernel": (2, 2), "layout": "NHWC"}, (2, 7, 9, 3), (2, 6, 8, 3)),
    ],
)
def test_pooling_output_sizes(kw, data, out):
    _, (args, outs, _) = engine_shapes("Pooling", {"data": data}, **kw)
    assert outs == [out]
    assert mx.nd.Pooling(mx.nd.zeros(data), **kw).shape == out


@pytest.mark.parametrize(
    "kw, data, err",
    [
        ({"kernel": (5, 5)}, (1, 3, 4, 4), "exceeds input"),
        ({"kernel": (2, 2)}, (1, 3, 4), "2-D kernel"),
        ({"kernel": (2,)}, (1, 3), "3D"),
        ({"kernel": (2,), "pooling_convention": "same"}, (1, 3, 8), "same"),
        ({"kernel": (2, 2), "pool_type": "lp"}, (1, 3, 4, 4), "p_value"),
        ({"kernel": (2, 2), "stride": (0, 1)}, (1, 3, 4, 4), "positive"),
    ],
)
def test_pooling_bad_shapes_raise(kw, data, err):
    with pytest.raises(MXNetError, match=err):
        mx.nd.Pooling(mx.nd.zeros(data), **kw)
    with mx.name.NameManager():
        sym = mx.sym.Pooling(mx.sym.var("data"), **kw)
    with pytest.raises(MXNetError, match=err):
        sym.infer_shape(data=data)


def test_fp16_convolution_fails_as_on_mxnet_cpu():
    x = mx.nd.zeros((1, 2, 5, 5), dtype="float16")
    with pytest.raises(MXNetError, match="FP16 gemm"):
        mx.nd.Convolution(
            x, mx.nd.zeros((3, 2, 3, 3), dtype="float16"), kernel=(3, 3), num_filter=3, no_bias=True
        )
    with pytest.raises(MXNetError, match="FP16 gemm"):
        mx.nd.Deconvolution(
            x, mx.nd.zeros((2, 3, 3, 3), dtype="float16"), kernel=(3, 3), num_filter=3
        )


@pytest.mark.mxnet
@pytest.mark.parametrize(
    "op, kw, shapes",
    [
        (
            "Convolution",
            dict(kernel=(3, 3), num_filter=4, stride=(2, 2), pad=(1, 1)),
            [(2, 3, 6, 6), (4, 3, 3, 3), (4,)],
        ),
        ("Convolution", dict(kernel=(3, 3), num_filter=4), [(2, 3, 6, 6), (4, 3, 3, 3), (4,)]),
        ("Deconvolution", dict(kernel=(3, 3), num_filter=2), [(2, 3, 6, 6), (3, 2, 3, 3)]),
        ("Pooling", dict(kernel=(3, 3), pool_type="avg", pad=(1, 1)), [(2, 3, 6, 6)]),
        ("Pooling", dict(kernel=(2, 2), stride=(2, 2)), [(2, 3, 6, 6)]),
    ],
)
def test_float64_matches_mxnet(op, kw, shapes):
    check_both((op, [rand(RNG, *s).astype(np.float64) for s in shapes], kw))


def test_conv_matches_direct_loop():
    """The im2col kernel against a plain loop definition (no MXNet needed)."""
    x = rand(RNG, 2, 4, 7, 6)
    w = rand(RNG, 6, 2, 3, 2)
    b = rand(RNG, 6)
    got = mx.nd.Convolution(
        mx.nd.array(x),
        mx.nd.array(w),
        mx.nd.array(b),
        kernel=(3, 2),
        num_filter=6,
        num_group=2,
        stride=(2, 1),
        pad=(1, 1),
        dilate=(1, 2),
    ).asnumpy()
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    want = np.zeros(got.shape, np.float64)
    for n, f, i, j in itertools.product(
        range(2), range(6), range(got.shape[2]), range(got.shape[3])
    ):
        g = f // 3
        patch = xp[n, 2 * g : 2 * g + 2, 2 * i : 2 * i + 3, j : j + 3 : 2]
        want[n, f, i, j] = (patch * w[f]).sum() + b[f]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_hybridized_conv_uses_preallocated_output():
    """Convolution and Pooling run through the executor's out= kernels and agree with eager."""
    with mx.name.NameManager():  # fresh auto-names (convolution0_...) whatever ran before
        x = mx.sym.var("x")
        y = mx.sym.Pooling(
            mx.sym.Activation(mx.sym.Convolution(x, kernel=(3, 3), num_filter=4), act_type="relu"),
            kernel=(2, 2),
            stride=(2, 2),
        )
        y = mx.sym.Convolution(y, kernel=(2, 2), num_filter=3, no_bias=True) * 2
    op = mx.nd.CachedOp(y)
    arrays = {
        n: mx.nd.array(rand(RNG, *s))
        for n, s in zip(y.list_inputs(), [(2, 3, 10, 10), (4, 3, 3, 3), (4,), (3, 4, 2, 2)])
    }
    got = op(*[arrays[n] for n in y.list_inputs()]).asnumpy()
    h = mx.nd.Convolution(
        arrays["x"],
        arrays["convolution0_weight"],
        arrays["convolution0_bias"],
        kernel=(3, 3),
        num_filter=4,
    )
    h = mx.nd.Pooling(mx.nd.relu(h), kernel=(2, 2), stride=(2, 2))
    want = (
        mx.nd.Convolution(
            h, arrays["convolution1_weight"], kernel=(2, 2), num_filter=3, no_bias=True
        )
        * 2
    )
    np.testing.assert_allclose(got, want.asnumpy(), rtol=1e-6)
    again = op(*[arrays[n] for n in y.list_inputs()]).asnumpy()
    np.testing.assert_array_equal(again, got)


# ----------------------------------------------------------------------------- differential


def _conv_case(data, nf, kernel, **kw):
    c = data[1]
    g = kw.get("num_group", 1)
    arrays = [rand(RNG, *data), rand(RNG, nf, c // g, *kernel)]
    if not kw.get("no_bias", False):
        arrays.append(rand(RNG, nf))
    return ("Convolution", arrays, dict(kernel=kernel, num_filter=nf, **kw))


CONV_CASES = [
    _conv_case((2, 3, 9, 8), 4, (3, 3)),
    _conv_case((2, 3, 9, 8), 4, (3, 3), stride=(2, 2), pad=(1, 1)),
    _conv_case((2, 4, 9, 8), 6, (3, 2), stride=(2, 1), pad=(1, 2), dilate=(1, 2), num_group=2),
    _conv_case((1, 4, 7, 7), 4, (3, 3), num_group=4, no_bias=True),
    _conv_case((2, 3, 11, 10), 5, (1, 1)),
    _conv_case((2, 2, 8, 8), 3, (2, 2), dilate=(3, 3), pad=(2, 0)),
    _conv_case((2, 3, 10), 4, (3,)),
    _conv_case((2, 3, 10), 4, (3,), stride=(2,), pad=(1,), no_bias=True),
    _conv_case((2, 4, 12), 6, (2,), dilate=(3,), num_group=2),
    _conv_case((1, 2, 5, 6, 7), 3, (2, 3, 2), stride=(1, 2, 1), pad=(1, 0, 1)),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", CONV_CASES, ids=[case_id(c) for c in CONV_CASES])
def test_convolution_matches_mxnet(case):
    check_both(case)


def _deconv_case(data, nf, kernel, **kw):
    g = kw.get("num_group", 1)
    arrays = [rand(RNG, *data), rand(RNG, data[1], nf // g, *kernel)]
    if kw.get("no_bias", True) is False:
        arrays.append(rand(RNG, nf))
    return ("Deconvolution", arrays, dict(kernel=kernel, num_filter=nf, **kw))


DECONV_CASES = [
    _deconv_case((2, 4, 5, 6), 3, (3, 3)),
    _deconv_case(
        (2, 4, 5, 6),
        6,
        (3, 3),
        num_group=2,
        stride=(2, 3),
        pad=(1, 1),
        adj=(1, 2),
        dilate=(1, 2),
        no_bias=False,
    ),
    _deconv_case((2, 3, 4, 4), 2, (4, 4), stride=(2, 2), pad=(1, 1)),
    _deconv_case((2, 4, 7), 3, (3,), stride=(2,), pad=(1,), adj=(1,)),
    _deconv_case((2, 4, 5, 6), 3, (3, 3), stride=(2, 2), target_shape=(11, 13)),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("case", DECONV_CASES, ids=[case_id(c) for c in DECONV_CASES])
def test_deconvolution_matches_mxnet(case):
    check_both(case)


@pytest.mark.mxnet
def test_deconvolution_target_shape_with_padding():
    """Real MXNet's oneDNN kernel refuses target shapes that need pad/adj; its reference
    kernel (MXNET_MKLDNN_ENABLED=0) agrees with us. We compare when oneDNN accepts, else
    check the output shape against the documented rule only."""
    mx_real = pytest.importorskip("mxnet")
    case = _deconv_case((2, 4, 5, 6), 3, (3, 3), stride=(2, 2), target_shape=(10, 12))
    try:
        check_eager(mx_real, *case)
    except mx_real.base.MXNetError as err:
        if "descriptor" not in str(err):
            raise
        out = mx.nd.Deconvolution(*[mx.nd.array(a) for a in case[1]], **case[2])
        assert out.shape == (2, 3, 10, 12)


def _pool_cases():
    cases = []
    geoms = [
        ((2, 3, 9, 10), (3, 3), (2, 2), (1, 1)),
        ((2, 3, 7), (2,), (2,), (0,)),
        ((2, 3, 8, 9), (3, 2), (2, 3), (1, 0)),
        ((1, 2, 5, 6, 7), (2, 2, 3), (2, 1, 2), (1, 0, 1)),
        ((2, 2, 6, 6), (2, 2), (2, 2), (0, 0)),
    ]
    for (shape, k, s, p), pt, conv in itertools.product(
        geoms, ("max", "avg", "sum"), ("valid", "full")
    ):
        kw = dict(kernel=k, stride=s, pad=p, pool_type=pt, pooling_convention=conv)
        cases.append(("Pooling", [rand(RNG, *shape)], kw))
        if pt == "avg":
            cases.append(("Pooling", [rand(RNG, *shape)], dict(kw, count_include_pad=False)))
    for pt in ("max", "avg", "sum"):
        cases.append(("Pooling", [rand(RNG, 2, 3, 5, 6)], dict(global_pool=True, pool_type=pt)))
        cases.append(
            ("Pooling", [rand(RNG, 2, 3, 7)], dict(global_pool=True, kernel=(2,), pool_type=pt))
        )
    for pv in (1, 2, 3):
        cases.append(
            (
                "Pooling",
                [rand(RNG, 2, 3, 6, 6, low=0.1)],
                dict(kernel=(2, 2), stride=(2, 2), pool_type="lp", p_value=pv),
            )
        )
    cases.append(
        ("Pooling", [rand(RNG, 2, 6, 6, 3)], dict(kernel=(2, 2), stride=(2, 2), layout="NHWC"))
    )
    return cases


POOL_CASES = _pool_cases()


@pytest.mark.mxnet
@pytest.mark.parametrize("case", POOL_CASES, ids=[case_id(c) for c in POOL_CASES])
def test_pooling_matches_mxnet(case):
    check_both(case)


@pytest.mark.mxnet
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(1, 2),
    c=st.integers(1, 4),
    h=st.integers(3, 9),
    w=st.integers(3, 9),
    k=st.integers(1, 3),
    s=st.integers(1, 3),
    p=st.integers(0, 1),
    d=st.integers(1, 2),
    nf=st.integers(1, 4),
)
def test_convolution_random_geometry(n, c, h, w, k, s, p, d, nf):
    mx_real = pytest.importorskip("mxnet")
    if (k - 1) * d + 1 > min(h, w) + 2 * p:
        return
    rng = np.random.RandomState(n * 1000 + c * 100 + h * 10 + w)
    arrays = [rand(rng, n, c, h, w), rand(rng, nf, c, k, k), rand(rng, nf)]
    check_eager(
        mx_real,
        "Convolution",
        arrays,
        dict(kernel=(k, k), stride=(s, s), pad=(p, p), dilate=(d, d), num_filter=nf),
    )


@pytest.mark.mxnet
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    h=st.integers(2, 9),
    w=st.integers(2, 9),
    k=st.integers(1, 3),
    s=st.integers(1, 3),
    p=st.integers(0, 1),
    pt=st.sampled_from(["max", "avg", "sum"]),
    conv=st.sampled_from(["valid", "full"]),
    cip=st.booleans(),
)
def test_pooling_random_geometry(h, w, k, s, p, pt, conv, cip):
    mx_real = pytest.importorskip("mxnet")
    if k > min(h, w) + 2 * p or p >= k:
        return
    rng = np.random.RandomState(h * 10 + w)
    check_eager(
        mx_real,
        "Pooling",
        [rand(rng, 2, 3, h, w)],
        dict(
            kernel=(k, k),
            stride=(s, s),
            pad=(p, p),
            pool_type=pt,
            pooling_convention=conv,
            count_include_pad=cip,
        ),
    )
