"""`mxnet.util` (MXNet 1.9.1) for the engine: the numpy-semantics switches, GPU queries and
environment helpers model code calls.

The engine runs MXNet's classic (legacy NDArray/Symbol) semantics only: `is_np_array()` and
`is_np_shape()` are always False, so library code written `F.npx.x if is_np_array() else F.x`
takes the classic branch as it does in MXNet by default. Turning numpy semantics on
(`set_np`, `np_shape(True)`, `use_np`-decorated code when called) is an engine gap and raises
NotImplementedError ("cannot verify"), never a silent run under the wrong semantics.
"""

import contextlib
import functools
import inspect
import os
from typing import Callable, Dict, Iterator, Optional

from .base import MXNetError, engine_not_implemented

__all__ = [
    "is_np_array",
    "is_np_shape",
    "set_np_shape",
    "np_shape",
    "np_array",
    "set_np",
    "reset_np",
    "use_np",
    "use_np_shape",
    "use_np_array",
    "get_gpu_count",
    "get_gpu_memory",
    "get_cuda_compute_capability",
    "getenv",
    "setenv",
    "set_module",
]

_ENV: Dict[str, str] = {}  # values set through setenv (MXNet's C setenv: not os.environ)


def is_np_array() -> bool:
    """False: the engine never runs MXNet's numpy-array semantics."""
    return False


def is_np_shape() -> bool:
    """False: the engine keeps MXNet 1.x shapes (0 = unknown dim, no zero-size/scalars)."""
    return False


def _numpy_mode(what: str) -> None:
    engine_not_implemented("util.%s (MXNet's numpy semantics)" % what)


def set_np_shape(active: bool) -> bool:
    """Turning numpy shapes off is a no-op (they are off); on is an engine gap. Returns the
    previous state, as MXNet does."""
    if active:
        _numpy_mode("set_np_shape(True)")
    return False


@contextlib.contextmanager
def np_shape(active: bool = True) -> Iterator[None]:
    """Scope of numpy shape semantics: only `active=False` (the engine's state) is supported."""
    if active:
        _numpy_mode("np_shape(True)")
    yield


@contextlib.contextmanager
def np_array(active: bool = True) -> Iterator[None]:
    """Scope of numpy array semantics: only `active=False` (the engine's state) is supported."""
    if active:
        _numpy_mode("np_array(True)")
    yield


def set_np(shape: bool = True, array: bool = True) -> None:
    """MXNet's numpy mode: an engine gap unless both are False."""
    if shape or array:
        _numpy_mode("set_np")


def reset_np() -> None:
    """Back to classic semantics: the engine's only state."""


def _numpy_decorator(name: str) -> Callable:
    def decorate(func):
        """Code decorated to run under numpy semantics raises NotImplementedError when run
        (not when decorated, so the rest of its module stays usable)."""
        if inspect.isclass(func):
            original = func.__init__

            @functools.wraps(original)
            def __init__(self, *args, **kwargs):
                _numpy_mode(name)

            func.__init__ = __init__
            return func
        if callable(func):

            @functools.wraps(func)
            def wrapped(*args, **kwargs):
                _numpy_mode(name)

            return wrapped
        raise TypeError(
            "%s can only decorate classes and callable objects, while received a "
            "%s" % (name, str(type(func)))
        )

    decorate.__name__ = name
    return decorate


use_np = _numpy_decorator("use_np")
use_np_shape = _numpy_decorator("use_np_shape")
use_np_array = _numpy_decorator("use_np_array")


def get_gpu_count() -> int:
    """0: the engine runs on the CPU only (as MXNet built without CUDA)."""
    return 0


def get_gpu_memory(gpu_dev_id: int):
    """As MXNet built without CUDA: an MXNetError."""
    raise MXNetError("This call is only supported for MXNet built with CUDA support.")


def get_cuda_compute_capability(ctx):
    """As MXNet: only a gpu context is accepted (and the engine has none)."""
    if getattr(ctx, "device_type", None) != "gpu":
        raise ValueError(
            "Expecting a gpu context to get cuda compute capability, while received ctx {}".format(
                str(ctx)
            )
        )
    raise MXNetError("This call is only supported for MXNet built with CUDA support.")


def getenv(name: str) -> Optional[str]:
    """The process environment variable `name` (None if unset), including setenv's values."""
    if name in _ENV:
        return _ENV[name]
    return os.environ.get(name)


def setenv(name: str, value: Optional[str]) -> None:
    """Set (or, with None, unset) a variable in the process environment, as MXNet's C call:
    `getenv` sees it, Python's os.environ is not updated."""
    if value is None:
        _ENV.pop(name, None)
        os.unsetenv(name)
    else:
        _ENV[name] = str(value)
        os.putenv(name, str(value))


def set_module(module: str) -> Callable:
    """Decorator setting `__module__` (MXNet uses it for its numpy API's docs)."""

    def decorator(func):
        if module is not None:
            func.__module__ = module
        return func

    return decorator
