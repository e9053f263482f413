"""`mx.gluon.model_zoo`: MXNet 1.9.1's model zoo constructors the engine can build (vision:
ResNet v1/v2, MobileNet v1/v2) and `model_store`. Architectures only: `pretrained=True` needs
MXNet's download of published weights, which the engine does not do (NotImplementedError)."""

from . import model_store  # noqa: F401
from . import vision  # noqa: F401
