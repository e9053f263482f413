"""Activation layers, with MXNet 1.9.1's ops, attribute values and aliases (`relu0_`)."""

from ... import initializer
from ...ndarray import NDArray as _NDArray
from ...ops.elemwise import _act_relu
from ..block import HybridBlock, _EagerCall
from ..parameter import _EPOCH

__all__ = ["Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "Swish", "GELU"]


class Activation(HybridBlock):
    """`Activation(act_type)`; its prefix comes from the activation name (`relu0_`)."""

    def __init__(self, activation, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self) -> str:
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name="fwd")

    def __repr__(self) -> str:
        return "{name}({_act_type})".format(name=self.__class__.__name__, **self.__dict__)


def _activate_fresh(act: "Activation", x):
    """`act(x)` where `x` is a fresh eager result no one else holds (the FullyConnected or
    Convolution output inside Dense/Conv hybrid_forward, never shown to the user): a plain
    relu Activation that would run eagerly anyway (no hooks, not hybridized, its lean eager
    path installed after a first ordinary call: `_EagerCall`) applies relu to x's buffer in
    place, as the compiled plan does, instead of a child block call and a new array. Same
    values (the same kernel); a Dense(relu) at batch 64 saves ~4 us and a fresh 64 KB buffer.
    Anything else (Symbols, other activations, hooks, subclasses) is the ordinary call."""
    if type(act) is Activation and act._act_type == "relu" and type(x) is _NDArray:
        fast = act._fast
        data = x._data
        # (no _EagerCall is installed on the reference layer: engine/_fastpaths.py)
        if (
            type(fast) is _EagerCall
            and fast.epoch == _EPOCH[0]
            and data.dtype.kind == "f"
            and data.flags.writeable
            and data.base is None
        ):
            _act_relu(data, out=data)
            return x
    return act(x)


class LeakyReLU(HybridBlock):
    """Leaky ReLU with a fixed slope."""

    def __init__(self, alpha, **kwargs):
        if not alpha >= 0:
            raise AssertionError("Slope coefficient for LeakyReLU must be no less than 0.")
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="leaky", slope=self._alpha, name="fwd")

    def __repr__(self) -> str:
        return "{name}({alpha})".format(name=self.__class__.__name__, alpha=self._alpha)


class PReLU(HybridBlock):
    """Parametric ReLU: the slope `alpha` is a parameter (default Constant(0.25))."""

    def __init__(self, alpha_initializer=initializer.Constant(0.25), in_channels=1, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get("alpha", shape=(in_channels,), init=alpha_initializer)

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, gamma=alpha, act_type="prelu", name="fwd")


class ELU(HybridBlock):
    """Exponential linear unit."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="elu", slope=self._alpha)


class SELU(HybridBlock):
    """Scaled exponential linear unit."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="selu", name="fwd")


class GELU(HybridBlock):
    """Gaussian error linear unit."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type="gelu", name="fwd")


class Swish(HybridBlock):
    """x * sigmoid(beta * x)."""

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name="fwd")
