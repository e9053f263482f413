"""mx.autograd: recording/training flags, and `Function` forward (hybridlint runs inference;
no gradients).

`is_training()` matters for ops like Dropout and BatchNorm, so the scopes are real.
"""

import threading

__all__ = [
    "record",
    "pause",
    "train_mode",
    "predict_mode",
    "is_recording",
    "is_training",
    "set_recording",
    "set_training",
    "Function",
    "backward",
    "grad",
]

_local = threading.local()


def is_recording() -> bool:
    """Whether inside `autograd.record()`."""
    return getattr(_local, "recording", False)


def is_training() -> bool:
    """Whether in training mode (Dropout and BatchNorm read this)."""
    return getattr(_local, "training", False)


def set_recording(is_recording: bool) -> bool:  # noqa: F811 - MXNet's signature
    """Set the recording flag; returns the previous value."""
    prev = getattr(_local, "recording", False)
    _local.recording = bool(is_recording)
    return prev


def set_training(train_mode: bool) -> bool:  # noqa: F811
    """Set the training flag; returns the previous value."""
    prev = is_training()
    _local.training = bool(train_mode)
    return prev


class _Scope:
    """A `with` scope setting the recording and training flags, restoring them on exit."""

    def __init__(self, recording, training):
        self._enter = (recording, training)
        self._prev = (None, None)

    def __enter__(self):
        rec, train = self._enter
        self._prev = (is_recording(), is_training())
        if rec is not None:
            _local.recording = rec
        if train is not None:
            _local.training = train
        return self

    def __exit__(self, *exc):
        _local.recording, _local.training = self._prev


def record(train_mode: bool = True) -> _Scope:  # noqa: F811
    """Scope that records (and trains by default); no gradients are kept."""
    return _Scope(True, train_mode)


def pause(train_mode: bool = False) -> _Scope:  # noqa: F811
    """Scope that stops recording (predict mode by default)."""
    return _Scope(False, train_mode)


def train_mode() -> _Scope:
    """Scope in training mode."""
    return _Scope(None, True)


def predict_mode() -> _Scope:
    """Scope in inference mode."""
    return _Scope(None, False)


def backward(heads, head_grads=None, retain_graph=False, train_mode=True):  # noqa: ARG001
    """The engine computes no gradients (see `NDArray.backward`)."""
    from .base import engine_not_implemented

    engine_not_implemented("autograd.backward (gradients)")


def grad(heads, variables, head_grads=None, retain_graph=None, create_graph=False, train_mode=True):  # noqa: ARG001
    """The engine computes no gradients (see `NDArray.backward`)."""
    from .base import engine_not_implemented

    engine_not_implemented("autograd.grad (gradients)")


class Function:
    """A custom differentiable function: `forward` on NDArrays, `backward` its gradient.

    As MXNet 1.9.1's `mx.autograd.Function`: an instance runs once ("Each Function instance
    can only be called once"), its `forward` runs with recording off (the flag is put back
    after it returns; an exception leaves it off, as in MXNet), and what `forward` returns is
    what the call returns. Inside `autograd.record()` MXNet also records a custom node whose
    gradient is `backward`; the engine keeps no gradients, so nothing is recorded and
    `backward` is never called, but the inputs and outputs must be arrays there as MXNet's
    recording needs their handles. Called on Symbols (inside a hybridized block), `forward`
    gets the Symbols: whatever it does with them fails or not as in MXNet.
    """

    def __init__(self):
        self._used = False
        self.saved_tensors = ()

    def save_for_backward(self, *args):
        self.saved_tensors = args

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, *output_grads):
        raise NotImplementedError

    def __call__(self, *inputs):
        assert not self._used, (
            "Each Function instance can only be called once. Please create another instance."
        )
        self._used = True
        prev_recording = set_recording(False)
        outputs = self.forward(*inputs)
        set_recording(prev_recording)
        if not prev_recording:
            return outputs
        from .ndarray import NDArray

        recorded = (outputs,) if isinstance(outputs, NDArray) else outputs
        # MXNet hands both lists to MXCustomFunctionRecord as array handles
        [item.handle for item in inputs]  # noqa: B018
        [item.handle for item in recorded]  # noqa: B018
        return outputs
