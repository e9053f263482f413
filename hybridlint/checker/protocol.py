"""Framing between hybridlint and its worker: 4-byte big-endian length, then a pickle.

Pickle is safe here because both ends are hybridlint's own code; user code's output never
reaches the channel (the worker moves its stdout away before running anything).
"""
from __future__ import annotations

import os
import pickle
import select
import struct
import time
from typing import Any, BinaryIO, Optional

HEADER = struct.Struct(">I")
MAX_FRAME = 256 << 20


class ChannelClosed(EOFError):
    """The other end went away (worker crashed, killed or exited)."""


class ChannelTimeout(TimeoutError):
    """No answer before the deadline."""


def write_frame(stream: BinaryIO, obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def read_frame(stream: BinaryIO) -> Optional[Any]:
    """Blocking read of one frame from a file object; None at a clean end of stream."""
    head = stream.read(HEADER.size)
    if not head:
        return None
    if len(head) < HEADER.size:
        raise ChannelClosed("truncated frame header")
    size = HEADER.unpack(head)[0]
    if size > MAX_FRAME:       # a corrupt header must not make us allocate gigabytes
        raise ChannelClosed(f"frame of {size} bytes is larger than the limit")
    data = stream.read(size)
    if len(data) < size:
        raise ChannelClosed("truncated frame")
    return pickle.loads(data)


def read_frame_fd(fd: int, deadline: Optional[float]) -> Any:
    """Read one frame from a raw fd, giving up at `deadline` (time.monotonic())."""
    size = HEADER.unpack(_read_exact(fd, HEADER.size, deadline))[0]
    if size > MAX_FRAME:
        raise ChannelClosed(f"frame of {size} bytes is larger than the limit")
    return pickle.loads(_read_exact(fd, size, deadline))


def _read_exact(fd: int, size: int, deadline: Optional[float]) -> bytes:
    chunks, have = [], 0
    while have < size:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            raise ChannelTimeout()
        chunk = os.read(fd, min(size - have, 1 << 20))
        if not chunk:
            raise ChannelClosed("end of stream")
        chunks.append(chunk)
        have += len(chunk)
    return b"".join(chunks)
