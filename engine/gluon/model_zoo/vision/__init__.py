"""`mx.gluon.model_zoo.vision`: ResNet v1/v2 and MobileNet v1/v2 as MXNet 1.9.1 builds them
(same blocks, parameter names and numbers). MXNet's other vision models (AlexNet, VGG,
DenseNet, SqueezeNet, Inception v3) raise NotImplementedError ("cannot verify")."""

from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from . import mobilenet, resnet  # noqa: F401
from ....base import engine_not_implemented

_MISSING = (
    "vgg11",
    "vgg13",
    "vgg16",
    "vgg19",
    "vgg11_bn",
    "vgg13_bn",
    "vgg16_bn",
    "vgg19_bn",
    "alexnet",
    "densenet121",
    "densenet161",
    "densenet169",
    "densenet201",
    "squeezenet1.0",
    "squeezenet1.1",
    "inceptionv3",
)


def _models():
    names = {
        "resnet%d_v%d" % (n, v): "resnet%d_v%d" % (n, v)
        for v in (1, 2)
        for n in (18, 34, 50, 101, 152)
    }
    names.update(
        {
            "mobilenet1.0": "mobilenet1_0",
            "mobilenet0.75": "mobilenet0_75",
            "mobilenet0.5": "mobilenet0_5",
            "mobilenet0.25": "mobilenet0_25",
            "mobilenetv2_1.0": "mobilenet_v2_1_0",
            "mobilenetv2_0.75": "mobilenet_v2_0_75",
            "mobilenetv2_0.5": "mobilenet_v2_0_5",
            "mobilenetv2_0.25": "mobilenet_v2_0_25",
        }
    )
    return names


def get_model(name: str, **kwargs):
    """A model by MXNet's zoo name (`resnet50_v1`, `mobilenet1.0`, ...)."""
    models = _models()
    name = name.lower()
    if name in _MISSING:
        engine_not_implemented("gluon.model_zoo.vision.get_model(%r)" % name)
    if name not in models:
        raise ValueError(
            "Model %s is not supported. Available options are\n\t%s"
            % (name, "\n\t".join(sorted(set(models) | set(_MISSING))))
        )
    return globals()[models[name]](**kwargs)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    engine_not_implemented("gluon.model_zoo.vision." + name)
