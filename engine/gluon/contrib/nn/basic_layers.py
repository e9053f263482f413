"""Contrib containers (Inception-style branches concatenated), Identity and PixelShuffle2D,
with MXNet 1.9.1's signatures and ops."""

from .... import ndarray as nd
from ...block import HybridBlock
from ...nn import HybridSequential, Sequential

__all__ = ["Concurrent", "HybridConcurrent", "Identity", "PixelShuffle2D"]


class Concurrent(Sequential):
    """Run every child on the same input and concatenate the outputs along `axis`."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        out = [block(x) for block in self._children.values()]
        return nd.concat(*out, dim=self.axis)


class HybridConcurrent(HybridSequential):
    """Hybridizable Concurrent."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        out = [block(x) for block in self._children.values()]
        return F.concat(*out, dim=self.axis)


class Identity(HybridBlock):
    """Pass the input through (a placeholder branch in Concurrent blocks)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        return x


class PixelShuffle2D(HybridBlock):
    """(N, C*f1*f2, H, W) -> (N, C, H*f1, W*f2) with reshape/transpose only."""

    def __init__(self, factor):
        super().__init__()
        try:
            self._factors = (int(factor),) * 2
        except TypeError:
            self._factors = tuple(int(fac) for fac in factor)
            if len(self._factors) != 2:
                # MXNet's assert, raised inside the except as there
                raise AssertionError("wrong length {}".format(len(self._factors)))  # noqa: B904

    def hybrid_forward(self, F, x):
        f1, f2 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2, 0, 0))
        x = F.reshape(x, (0, 0, -4, f1, f2, 0, 0))
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))
        return F.reshape(x, (0, 0, -3, -3))

    def __repr__(self) -> str:
        return "{}({})".format(self.__class__.__name__, self._factors)
