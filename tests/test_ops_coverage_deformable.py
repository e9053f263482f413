"""contrib.DeformableConvolution / ModulatedDeformableConvolution (engine/ops/deformable.py)
and the gluon.contrib.cnn layers, differentially against real MXNet 1.9.1: the ops eagerly and
as graphs (offsets large enough to push taps across every border), the layers with the same
weights eagerly and hybridized."""

import numpy as np
import pytest

import hybridlint.engine as mx
from ops_diff import check_both, rand

# (N, C, H, W, filters, kernel, stride, pad, dilate, groups, deformable groups, no_bias)
GEOMETRIES = [
    (2, 4, 6, 7, 6, 3, 1, 1, 1, 1, 1, False),
    (1, 4, 7, 6, 4, 3, 2, 0, 1, 2, 2, False),
    (1, 2, 5, 5, 3, 2, 1, 2, 2, 1, 1, True),
    (2, 6, 4, 4, 3, 1, 1, 0, 1, 3, 1, False),
]


def _case(modulated, geometry, rng, spread=3.0):
    n, c, h, w, f, k, s, p, d, g, dg, no_bias = geometry
    oh = (h + 2 * p - (d * (k - 1) + 1)) // s + 1
    ow = (w + 2 * p - (d * (k - 1) + 1)) // s + 1
    arrays = [rand(rng, n, c, h, w), rand(rng, n, 2 * k * k * dg, oh, ow, low=-spread, high=spread)]
    if modulated:
        arrays.append(rand(rng, n, k * k * dg, oh, ow, low=0, high=2))
    arrays.append(rand(rng, f, c // g, k, k))
    if not no_bias:
        arrays.append(rand(rng, f))
    kwargs = dict(
        kernel=(k, k),
        stride=(s, s),
        pad=(p, p),
        dilate=(d, d),
        num_filter=f,
        num_group=g,
        num_deformable_group=dg,
        no_bias=no_bias,
    )
    name = (
        "_contrib_ModulatedDeformableConvolution" if modulated else "_contrib_DeformableConvolution"
    )
    return (name, arrays, kwargs)


@pytest.mark.mxnet
@pytest.mark.parametrize("modulated", [False, True], ids=["DCN", "DCNv2"])
@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: "x".join(map(str, g[:6])))
def test_ops_match_mxnet(modulated, geometry):
    rng = np.random.RandomState(sum(geometry[:6]) + modulated)
    check_both(_case(modulated, geometry, rng))


@pytest.mark.mxnet
@pytest.mark.parametrize("modulated", [False, True], ids=["DCN", "DCNv2"])
def test_integer_offsets_and_zero_offsets_match_mxnet(modulated):
    """Taps landing exactly on pixels and on the last row/column (the kernels' edge cases),
    and zero offsets (a plain convolution)."""
    rng = np.random.RandomState(5)
    name, arrays, kwargs = _case(modulated, GEOMETRIES[0], rng)
    arrays[1] = np.round(arrays[1]).astype(np.float32)
    check_both((name, arrays, kwargs))
    arrays[1] = np.zeros_like(arrays[1])
    check_both((name, arrays, kwargs))
    if not modulated:
        plain = mx.nd.Convolution(
            *[mx.nd.array(a) for a in (arrays[0],) + tuple(arrays[2:])],
            **{k: v for k, v in kwargs.items() if k != "num_deformable_group"},
        )
        got = mx.nd.contrib.DeformableConvolution(*[mx.nd.array(a) for a in arrays], **kwargs)
        np.testing.assert_allclose(got.asnumpy(), plain.asnumpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.mxnet
@pytest.mark.parametrize("modulated", [False, True], ids=["DCN", "DCNv2"])
def test_wrong_offset_shape_errors_like_mxnet(modulated):
    mx_real = pytest.importorskip("mxnet")
    rng = np.random.RandomState(6)
    name, arrays, kwargs = _case(modulated, GEOMETRIES[0], rng)
    arrays[1] = arrays[1][:, :-1]
    op = name[len("_contrib_") :]
    for lib in (mx_real, mx):
        with pytest.raises(lib.base.MXNetError):
            getattr(lib.nd.contrib, op)(*[lib.nd.array(a) for a in arrays], **kwargs).wait_to_read()


LAYERS = [
    ("DeformableConvolution", dict(channels=4, kernel_size=3, padding=1)),
    (
        "DeformableConvolution",
        dict(
            channels=6,
            kernel_size=3,
            strides=2,
            groups=2,
            num_deformable_group=2,
            activation="relu",
        ),
    ),
    ("ModulatedDeformableConvolution", dict(channels=4, kernel_size=3, padding=1)),
    (
        "ModulatedDeformableConvolution",
        dict(channels=4, kernel_size=(3, 3), use_bias=False, offset_use_bias=False),
    ),
]


@pytest.mark.mxnet
@pytest.mark.parametrize("kind,kwargs", LAYERS)
def test_gluon_layers_match_mxnet_with_the_same_weights(kind, kwargs, tmp_path):
    mx_real = pytest.importorskip("mxnet")
    x = rand(np.random.RandomState(7), 2, 4, 7, 7)
    real = getattr(mx_real.gluon.contrib.cnn, kind)(prefix="dcn_", **kwargs)
    real.initialize(mx_real.init.Uniform(0.4))  # non-zero offsets: really deformable
    want = real(mx_real.nd.array(x))
    real.save_parameters(str(tmp_path / "p.params"))
    ours = getattr(mx.gluon.contrib.cnn, kind)(prefix="dcn_", **kwargs)
    ours.load_parameters(str(tmp_path / "p.params"))
    assert list(ours.collect_params()) == list(real.collect_params())
    assert repr(ours) == repr(real)
    for hybridize in (False, True):
        if hybridize:
            ours.hybridize()
        np.testing.assert_allclose(
            ours(mx.nd.array(x)).asnumpy(), want.asnumpy(), rtol=1e-5, atol=1e-5
        )


def test_gluon_layer_defers_its_input_channels():
    layer = mx.gluon.contrib.cnn.DeformableConvolution(5, kernel_size=3, padding=1)
    layer.initialize()
    out = layer(mx.nd.ones((1, 3, 6, 6)))
    assert out.shape == (1, 5, 6, 6)
    assert layer.offset_weight.shape == (18, 3, 3, 3)
    assert layer.deformable_conv_weight.shape == (5, 3, 3, 3)
