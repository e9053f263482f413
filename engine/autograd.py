"""mx.autograd: recording/training flags only (hybridlint runs inference; no gradients).

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
