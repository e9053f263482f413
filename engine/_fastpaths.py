"""The one switch between the engine's two layers: the fast layer and the reference layer.

The engine's value is fidelity, and its speed work (constant folding,
Convolution+relu+Pooling fusion, in-place elementwise ops, buffer reuse, generated plan code,
the gluon lean call paths and Dense/Conv's in-place relu) is exactly where a bug could make
a hybridized result differ from MXNet's while an engine-only eager==compiled check still
agrees. With fast paths off (the reference layer) a hybridized graph runs node by node
through the registered kernels the eager path calls (`engine/_reference.py`) and gluon takes
its ordinary call paths, so comparing the two layers catches a wrong fusion even without
MXNet.

`HYBRIDLINT_ENGINE_REFERENCE=1` in the environment at import starts on the reference layer.
Flipping the switch applies at once: every live compiled plan switches the function its
callers run (`Plan.use_fast`), and gluon's cached lean paths are invalidated.
"""

import contextlib
import os
import weakref
from typing import Iterator

__all__ = ["fast_paths_enabled", "set_fast_paths", "fast_paths"]

_ENV = "HYBRIDLINT_ENGINE_REFERENCE"
# [True] = fast layer; a list so hot paths read one item without a function call
FAST = [os.environ.get(_ENV, "").strip().lower() not in ("1", "true", "yes", "on")]
LIVE_PLANS: "weakref.WeakSet" = weakref.WeakSet()  # plans whose run function follows FAST


def fast_paths_enabled() -> bool:
    """True when the engine runs its fast layer, False on the reference layer."""
    return FAST[0]


def set_fast_paths(enabled: bool) -> bool:
    """Turn the fast layer on or off (off = reference layer); returns the previous state."""
    previous, FAST[0] = FAST[0], bool(enabled)
    if previous != FAST[0]:
        for plan in list(LIVE_PLANS):
            plan.use_fast(FAST[0])
        from .gluon import parameter  # stale lean call paths are rebuilt (or not) on next call

        parameter._EPOCH[0] += 1
    return previous


@contextlib.contextmanager
def fast_paths(enabled: bool) -> Iterator[None]:
    """`with fast_paths(False):` runs the block on the reference layer, then restores."""
    previous = set_fast_paths(enabled)
    try:
        yield
    finally:
        set_fast_paths(previous)
