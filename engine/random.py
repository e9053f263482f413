"""mx.random: the engine's one random generator (initializers and random ops draw from it)."""

import numpy as np

__all__ = ["seed", "generator", "uniform", "normal", "randn"]

_state = {"rng": np.random.RandomState(0)}


def seed(seed_state: int, ctx="all") -> None:
    """Reseed the engine generator (MXNet's streams differ; only reproducibility is promised)."""
    _state["rng"] = np.random.RandomState(int(seed_state))


def generator() -> np.random.RandomState:
    """The engine generator, for initializers and random ops."""
    return _state["rng"]


def uniform(*args, **kwargs):
    """mx.random.uniform = mx.nd.random.uniform."""
    from .ndarray import random as nd_random

    return nd_random.uniform(*args, **kwargs)


def normal(*args, **kwargs):
    """mx.random.normal = mx.nd.random.normal."""
    from .ndarray import random as nd_random

    return nd_random.normal(*args, **kwargs)


def randn(*args, **kwargs):
    """mx.random.randn = mx.nd.random.randn."""
    from .ndarray import random as nd_random

    return nd_random.randn(*args, **kwargs)
