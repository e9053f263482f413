"""Framing between hybridlint and its worker: validated JSON, arrays as raw bytes.

A frame is a 4-byte big-endian length, then a 4-byte length of the JSON header, the header
(UTF-8 JSON) and the raw bytes of the arrays it refers to. An array is written in the header as
`{"$array": [offset, nbytes], "dtype": "float32", "shape": [2, 3]}`.

The worker runs user code, and user code can find the worker's end of the channel (any fd of
its process) and write to it. So nothing read from the worker is ever code: there is no
pickle, the parent only parses JSON and bytes, and `wire.py` checks every field of an answer
against its schema. A frame that is not valid is a `ProtocolError`, which the session turns
into a `cannot_run` report for that block (and a fresh worker), never an internal error.
"""

from __future__ import annotations

import json
import math
import os
import select
import struct
import time
from typing import Any, BinaryIO, List, Optional

import numpy as np

HEADER = struct.Struct(">I")
MAX_FRAME = 256 << 20
DTYPES = frozenset(
    (
        "bool",
        "int8",
        "int16",
        "int32",
        "int64",
        "uint8",
        "uint16",
        "uint32",
        "uint64",
        "float16",
        "float32",
        "float64",
    )
)
_ARRAY = "$array"


class ChannelClosed(EOFError):
    """The other end went away (worker crashed, killed or exited)."""


class ChannelTimeout(TimeoutError):
    """No answer before the deadline."""


class ProtocolError(ValueError):
    """A frame arrived but is not a valid message (garbage, forged or truncated data)."""


def encode(obj: Any) -> bytes:
    """One frame for `obj`: JSON-ready data whose numpy arrays travel as raw bytes."""
    blobs: List[bytes] = []
    offset = [0]

    def arrays(value: Any) -> Any:
        if isinstance(value, np.ndarray):
            data = np.ascontiguousarray(value).tobytes()
            entry = {
                _ARRAY: [offset[0], len(data)],
                "dtype": str(value.dtype),
                "shape": list(value.shape),
            }
            blobs.append(data)
            offset[0] += len(data)
            return entry
        if isinstance(value, dict):
            return {str(k): arrays(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [arrays(v) for v in value]
        return value

    head = json.dumps(arrays(obj), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    body = HEADER.pack(len(head)) + head + b"".join(blobs)
    return HEADER.pack(len(body)) + body


def decode(body: bytes) -> Any:
    """The message of one frame body; raises ProtocolError for anything malformed."""
    if len(body) < HEADER.size:
        raise ProtocolError("frame too short")
    size = HEADER.unpack(body[: HEADER.size])[0]
    if size > len(body) - HEADER.size:
        raise ProtocolError("frame header longer than the frame")
    head, blob = body[HEADER.size : HEADER.size + size], body[HEADER.size + size :]
    try:
        text = head.decode("utf-8")
        return json.loads(
            text,
            object_hook=lambda d: _array(d, blob) if _ARRAY in d else d,
            parse_constant=_constant,
        )
    except ProtocolError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"frame is not valid JSON: {exc}") from None


def _constant(name: str) -> float:
    """JSON has no inf/nan; Python's encoder writes them as Infinity/NaN: accept those."""
    return {"Infinity": math.inf, "-Infinity": -math.inf, "NaN": math.nan}[name]


def _array(entry: dict, blob: bytes) -> np.ndarray:
    where, dtype, shape = entry.get(_ARRAY), entry.get("dtype"), entry.get("shape")
    if set(entry) != {_ARRAY, "dtype", "shape"} or dtype not in DTYPES:
        raise ProtocolError(f"malformed array entry {str(entry)[:200]}")
    if not (isinstance(shape, list) and all(type(d) is int and d >= 0 for d in shape)):
        raise ProtocolError(f"malformed array shape {str(shape)[:200]}")
    if not (
        isinstance(where, list)
        and len(where) == 2
        and all(type(v) is int and v >= 0 for v in where)
    ):
        raise ProtocolError("malformed array location")
    start, nbytes = where
    expected = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
    if nbytes != expected or start + nbytes > len(blob):
        raise ProtocolError("array bytes do not match its shape and dtype")
    return np.frombuffer(blob[start : start + nbytes], dtype=dtype).reshape(shape).copy()


def write_frame(stream: BinaryIO, obj: Any) -> None:
    stream.write(encode(obj))
    stream.flush()


def read_frame(stream: BinaryIO) -> Optional[Any]:
    """Blocking read of one frame from a file object; None at a clean end of stream."""
    head = stream.read(HEADER.size)
    if not head:
        return None
    if len(head) < HEADER.size:
        raise ChannelClosed("truncated frame header")
    size = _size(head)
    data = stream.read(size)
    if len(data) < size:
        raise ChannelClosed("truncated frame")
    return decode(data)


def read_frame_fd(fd: int, deadline: Optional[float], tick=None) -> Any:
    """Read one frame from a raw fd, giving up at `deadline` (time.monotonic()).

    `tick()`, if given, is called about every 0.2 s while waiting (the session's watchdog).
    """
    size = _size(_read_exact(fd, HEADER.size, deadline, tick))
    return decode(_read_exact(fd, size, deadline, tick))


def _size(head: bytes) -> int:
    size = HEADER.unpack(head)[0]
    if size > MAX_FRAME:  # a corrupt header must not make us allocate gigabytes
        raise ProtocolError(f"frame of {size} bytes is larger than the limit")
    return size


def _read_exact(fd: int, size: int, deadline: Optional[float], tick=None) -> bytes:
    chunks, have = [], 0
    while have < size:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        if tick is not None:
            wait = 0.2 if wait is None else min(wait, 0.2)
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            if deadline is not None and time.monotonic() >= deadline:
                raise ChannelTimeout()
            if tick is not None:
                tick()
            continue
        chunk = os.read(fd, min(size - have, 1 << 20))
        if not chunk:
            raise ChannelClosed("end of stream")
        chunks.append(chunk)
        have += len(chunk)
    return b"".join(chunks)
