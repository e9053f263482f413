"""Framing between hybridlint and its worker: validated JSON, arrays as raw bytes.

A frame is a 4-byte big-endian length, then a 4-byte length of the JSON header, the header
(UTF-8 JSON) and the raw bytes of the arrays it refers to. An array is written in the header as
`{"$array": [offset, nbytes], "dtype": "float32", "shape": [2, 3]}`.

Answers (worker to hybridlint) are frames bound to one job: each starts with the 16 random
bytes of that job's nonce, which hybridlint sends with the job and checks before it reads a
length, and is at most MAX_ANSWER bytes long, checked before it is read. The worker runs user
code, and user code can find the worker's end of the channel (any fd of its process, by brute
force) and write to it; without the nonce (which lives only in the worker loop's memory) what
it writes is not an answer. So nothing read from the worker is ever code: there is no pickle,
the parent only parses JSON and bytes, and `wire.py` checks every field of an answer against
its schema. A frame that is not valid is a `ProtocolError`, which the session turns into a
`cannot_run` report for that block (and a fresh worker), never an internal error.
"""

from __future__ import annotations

import hmac
import json
import math
import os
import select
import struct
import time
from typing import Any, BinaryIO, List, Optional

import numpy as np

HEADER = struct.Struct(">I")
MAX_FRAME = 256 << 20  # a job (hybridlint to the worker: trusted, may carry input arrays)
# An answer: a report is a verdict, its notes and reasons (texts cut at wire.MAX_TEXT), and
# the lines and instruction spans of the checked file that ran (about 16 bytes per executed
# instruction: 4 MiB covers a fully executed file of well over 20,000 lines). Reports carry no
# arrays. A forged answer costs hybridlint at most this buffer plus what the JSON parser
# builds from it (at worst ~25 bytes per byte, ~100 MB); a report the worker cannot fit is
# sent as `cannot_run` saying so. Before, a 60 MB forged frame cost 1.6 GB.
MAX_ANSWER = 4 << 20
NONCE_SIZE = 16
READY_NONCE = bytes(NONCE_SIZE)  # the start-up frame, written before any user code ran
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


def encode_answer(obj: Any, nonce: bytes, limit: int = MAX_ANSWER) -> bytes:
    """An answer frame: the job's nonce, then the frame of `obj`; ProtocolError if it would be
    longer than `limit` (hybridlint refuses such a frame unread)."""
    frame = encode(obj)
    if len(frame) - HEADER.size > limit:
        raise ProtocolError(f"an answer of {len(frame)} bytes is larger than the limit ({limit})")
    return bytes(nonce) + frame


def write_answer(stream: BinaryIO, obj: Any, nonce: bytes) -> None:
    stream.write(encode_answer(obj, nonce))
    stream.flush()


def decode(body: Any) -> Any:
    """The message of one frame body; raises ProtocolError for anything malformed."""
    if len(body) < HEADER.size:
        raise ProtocolError("frame too short")
    size = HEADER.unpack(body[: HEADER.size])[0]
    if size > len(body) - HEADER.size:
        raise ProtocolError("frame header longer than the frame")
    view = memoryview(body)
    head, blob = view[HEADER.size : HEADER.size + size], view[HEADER.size + size :]
    try:
        text = str(head, "utf-8")
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


def _array(entry: dict, blob: memoryview) -> np.ndarray:
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
    head = _read_stream(stream, HEADER.size)
    if not head:
        return None
    if len(head) < HEADER.size:
        raise ChannelClosed("truncated frame header")
    size = _size(head)
    data = _read_stream(stream, size)
    if len(data) < size:
        raise ChannelClosed("truncated frame")
    return decode(data)


def _read_stream(stream: BinaryIO, size: int) -> bytes:
    """Up to `size` bytes, fewer only at the end of the stream: an unbuffered pipe (the
    worker's job channel) returns at most what one read(2) gives, 64 KiB on Linux, so a job
    larger than that (a 36 KB model file and its fixed copy) arrives in pieces."""
    chunks = []
    got = 0
    while got < size:
        chunk = stream.read(size - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_frame_fd(fd: int, deadline: Optional[float], tick=None) -> Any:
    """Read one frame from a raw fd, giving up at `deadline` (time.monotonic()).

    `tick()`, if given, is called about every 0.2 s while waiting (the session's watchdog).
    """
    size = _size(_read_exact(fd, HEADER.size, deadline, tick))
    return decode(_read_exact(fd, size, deadline, tick))


def read_answer(
    fd: int,
    nonce: bytes,
    deadline: Optional[float],
    tick=None,
    limit: int = MAX_ANSWER,
) -> Any:
    """Read one answer frame bound to `nonce`, validating while it streams: the nonce before
    anything else, the declared length against `limit` before the body is read, the body
    into one buffer of that length. A frame that is not for this job costs its first bytes."""
    got = _read_exact(fd, NONCE_SIZE, deadline, tick)
    if not hmac.compare_digest(bytes(got), bytes(nonce)):
        raise ProtocolError("an answer not bound to this job (wrong nonce): not the worker's")
    size = _size(_read_exact(fd, HEADER.size, deadline, tick), limit)
    return decode(_read_exact(fd, size, deadline, tick))


def pending(fd: int) -> bool:
    """Whether bytes (or an end of file) wait on `fd` now: between jobs the answer channel
    must be empty, or something other than the worker's answer to the last job wrote to it."""
    ready, _, _ = select.select([fd], [], [], 0)
    return bool(ready)


def _size(head: Any, limit: int = MAX_FRAME) -> int:
    size = HEADER.unpack(head)[0]
    if size > limit:  # a corrupt or forged header must not make us allocate gigabytes
        raise ProtocolError(f"frame of {size} bytes is larger than the limit ({limit})")
    return size


def _read_exact(fd: int, size: int, deadline: Optional[float], tick=None) -> bytearray:
    """Exactly `size` bytes from `fd`, read into one buffer of that size."""
    buffer = bytearray(size)
    view, have = memoryview(buffer), 0
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
        count = os.readv(fd, [view[have : have + (1 << 20)]])
        if not count:
            raise ChannelClosed("end of stream")
        have += count
    return buffer
