"""gluon.model_zoo.vision (ResNet v1/v2, MobileNet v1/v2) against real MXNet 1.9.1: the same
structure (parameter names and shapes), and with MXNet's weights the same outputs, eagerly
and hybridized; model_store and the models the engine lacks are engine gaps."""

import numpy as np
import pytest

import hybridlint.engine as mx

MODELS = [
    "resnet18_v1",
    "resnet18_v2",
    "resnet50_v1",
    "resnet50_v2",
    "mobilenet0_25",
    "mobilenet_v2_0_25",
]


@pytest.mark.mxnet
@pytest.mark.parametrize("name", MODELS)
def test_model_matches_mxnet_with_its_weights(name, tmp_path):
    mx_real = pytest.importorskip("mxnet")
    x = np.random.RandomState(0).uniform(-1, 1, (2, 3, 32, 32)).astype(np.float32)
    real = getattr(mx_real.gluon.model_zoo.vision, name)(classes=10, prefix="net_")
    real.initialize(mx_real.init.Xavier(magnitude=2.0))
    real(mx_real.nd.array(x))  # deferred shapes
    for p in real.collect_params().values():  # non-trivial BatchNorm statistics
        if p.name.endswith(("running_mean", "running_var")):
            p.set_data(mx_real.nd.random.uniform(0.5, 1.5, shape=p.shape))
    want = real(mx_real.nd.array(x)).asnumpy()
    real.save_parameters(str(tmp_path / "w.params"))
    ours = getattr(mx.gluon.model_zoo.vision, name)(classes=10, prefix="net_")
    assert {k: v.shape for k, v in ours.collect_params().items()}.keys() == {
        k: v.shape for k, v in real.collect_params().items()
    }.keys()
    ours.load_parameters(str(tmp_path / "w.params"))
    assert {k: v.shape for k, v in ours.collect_params().items()} == {
        k: v.shape for k, v in real.collect_params().items()
    }
    np.testing.assert_allclose(ours(mx.nd.array(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)
    ours.hybridize()
    np.testing.assert_allclose(ours(mx.nd.array(x)).asnumpy(), want, rtol=1e-4, atol=1e-5)


def test_get_model_names_and_gaps():
    net = mx.gluon.model_zoo.vision.get_model("ResNet34_v2", classes=5)
    assert isinstance(net, mx.gluon.model_zoo.vision.ResNetV2)
    net.initialize()
    assert net(mx.nd.ones((1, 3, 16, 16))).shape == (1, 5)
    with pytest.raises(ValueError, match="Model nope is not supported"):
        mx.gluon.model_zoo.vision.get_model("nope")
    with pytest.raises(NotImplementedError, match="vgg16"):
        mx.gluon.model_zoo.vision.get_model("vgg16")
    with pytest.raises(NotImplementedError, match="pretrained"):
        mx.gluon.model_zoo.vision.resnet18_v1(pretrained=True)
    with pytest.raises(NotImplementedError):
        mx.gluon.model_zoo.vision.densenet121


def test_model_zoo_imports_under_as_mxnet():
    with mx.as_mxnet():
        from mxnet.gluon.model_zoo import model_store, vision  # noqa: F401
        import mxnet

        features = mxnet.gluon.model_zoo.vision.mobilenet0_25(classes=3).features
        assert features[0].weight.shape == (8, 0, 3, 3)
