"""mx.cpu() / mx.context: the engine runs on one numpy 'device', cpu(0)."""

import threading

from .base import MXNetError

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus"]


class _CurrentContext(threading.local):
    """The innermost `with ctx:` context of each thread (None outside any)."""

    value = None


_CURRENT = _CurrentContext()


class Context:
    """A device context as MXNet prints and compares it; only cpu is backed by the engine."""

    _local = _CURRENT
    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {v: k for k, v in devtype2str.items()}
    device_typeid: int
    device_id: int

    def __init__(self, device_type, device_id: int = 0):
        if isinstance(device_type, Context):
            self.device_typeid, self.device_id = device_type.device_typeid, device_type.device_id
        else:
            if device_type not in self.devstr2type:
                raise MXNetError("unknown device type {!r}".format(device_type))
            self.device_typeid = self.devstr2type[device_type]
            self.device_id = int(device_id)
        self._old_ctx = None

    @property
    def device_type(self) -> str:
        return self.devtype2str[self.device_typeid]

    def __hash__(self):
        return hash((self.device_typeid, self.device_id))

    def __eq__(self, other):
        return (
            isinstance(other, Context)
            and self.device_typeid == other.device_typeid
            and self.device_id == other.device_id
        )

    def __str__(self):
        return "%s(%d)" % (self.device_type, self.device_id)

    __repr__ = __str__

    def __enter__(self):
        self._old_ctx = _CURRENT.value
        _CURRENT.value = self
        return self

    def __exit__(self, *exc):
        _CURRENT.value = self._old_ctx

    def empty_cache(self) -> None:
        """Nothing to free: numpy owns the memory."""


_CPU0 = Context("cpu", 0)


def cpu(device_id: int = 0) -> Context:
    """The CPU context (the only one the engine computes on)."""
    return _CPU0 if device_id == 0 else Context("cpu", device_id)


def cpu_pinned(device_id: int = 0) -> Context:
    """A pinned-CPU context (computes like cpu)."""
    return Context("cpu_pinned", device_id)


def gpu(device_id: int = 0) -> Context:
    """A GPU context, built as MXNet builds it: a CPU build (and the engine, which has no GPU)
    fails only where memory is used on it (`cpu_only`), so `ctx=mx.gpu()` as a default
    argument or a module-level name costs nothing until an array is made there."""
    return Context("gpu", device_id)


def cpu_only(ctx) -> None:
    """Raise as MXNet 1.9.1 built without CUDA does when an array is made or copied on a GPU
    context (or an operator runs under `with mx.gpu():`)."""
    if getattr(ctx, "device_typeid", None) == 2:
        raise MXNetError(
            "GPU support is disabled. Compile MXNet with USE_CUDA=1 to enable GPU support "
            "(hybridlint's engine runs on the CPU only: {} is not available; use mx.cpu())".format(
                ctx
            )
        )


def num_gpus() -> int:
    """Always 0: the engine has no GPU."""
    return 0


def current_context() -> Context:
    """The context of the innermost `with ctx:` block, else cpu(0)."""
    return _CURRENT.value or _CPU0
