"""Recorded real-MXNet references, so that differential tests check values without MXNet.

Why: real MXNet 1.9.1 pins numpy<1.24, so on current numpy (and on most newcomers' machines)
every differential test used to skip. A test asks `reference(compute, inputs)` for what real
MXNet returns; `compute(mx_real)` runs MXNet and returns plain data (NDArrays become numpy
arrays). The same call works in three modes:

- live (MXNet importable): run `compute` on real MXNet, exactly as before;
- record (`pytest --record-mxnet`, via tools/record_mxnet.py): live, and store the result
  (arrays as dtype + shape + bytes, shapes, names, JSON text, exception type + message) under
  the test's node id and a per-test call counter, with a hash of `inputs` and MXNet's version;
- replay (MXNet not importable): load the stored result; the test then compares the engine
  against it. A missing key, changed inputs (hash) or another MXNet version fail loudly
  ("regenerate with tools/record_mxnet.py"), never pass silently.

`--check-recordings` (CI's MXNet leg) runs live and also fails when a call has no current
recording, so a new or changed case cannot silently skip on the numpy-2 leg.

Storage: one tests/recordings/<test module>.npz per module: a JSON index and one byte blob.
"""

import hashlib
import inspect
import json
from pathlib import Path
from typing import Any, Callable, Dict, Optional

import numpy as np
import pytest

MXNET_VERSION = "1.9.1"
FORMAT = 1
DIR = Path(__file__).with_name("recordings")
REGENERATE = "regenerate with tools/record_mxnet.py (needs MXNet {})".format(MXNET_VERSION)

try:
    import mxnet as _mxnet  # noqa: F401 - the ground truth when installed

    HAVE_MXNET = True
except ImportError:
    _mxnet = None
    HAVE_MXNET = False

_mode = {"record": False, "check": False}
_test = {"module": None, "name": None, "counter": 0, "recordable": False}
_stores: Dict[str, "Store"] = {}
_recorded: Dict[str, Dict[str, Any]] = {}  # module -> {key: entry}, record mode
_recorded_arrays: Dict[str, list] = {}


class RecordedError(Exception):
    """Real MXNet raised this (type name and message recorded) when the test was recorded."""


def configure(record: bool = False, check: bool = False) -> None:
    """Set the mode from pytest's options (conftest.py)."""
    if (record or check) and not HAVE_MXNET:
        raise pytest.UsageError(
            "--record-mxnet / --check-recordings need real MXNet " + MXNET_VERSION
        )
    if record and _mxnet.__version__ != MXNET_VERSION:
        raise pytest.UsageError(
            "recordings must come from MXNet {}, found {}".format(MXNET_VERSION, _mxnet.__version__)
        )
    _mode.update(record=record, check=check)


def begin(module: str, name: str, recordable: bool = True) -> None:
    """A test starts: calls are keyed '<name>#<n>' in the module's recording. Tests whose
    inputs are generated per run (hypothesis) are not recordable."""
    _test.update(module=module, name=name, counter=0, recordable=recordable)
    if _mode["record"]:
        start_module(module)


# ----------------------------------------------------------------------------- hashing


def _feed(h, obj) -> None:
    if isinstance(obj, np.ndarray) or isinstance(obj, np.generic):
        a = np.ascontiguousarray(obj)
        h.update(b"A" + a.dtype.str.encode() + repr(a.shape).encode() + a.tobytes())
    elif isinstance(obj, dict):
        h.update(b"D%d" % len(obj))
        for k in sorted(obj, key=repr):
            _feed(h, k)
            _feed(h, obj[k])
    elif isinstance(obj, (list, tuple)):
        h.update(b"L%d" % len(obj) if isinstance(obj, list) else b"T%d" % len(obj))
        for v in obj:
            _feed(h, v)
    elif isinstance(obj, np.dtype):
        h.update(b"d" + obj.str.encode())
    elif isinstance(obj, type):
        h.update(b"c" + obj.__module__.encode() + obj.__qualname__.encode())
    elif callable(obj):  # lambdas in a case: their source text (an address is not stable)
        try:
            h.update(b"f" + inspect.getsource(obj).encode())
        except (OSError, TypeError):
            h.update(b"f" + getattr(obj, "__qualname__", repr(obj)).encode())
    elif obj is None or isinstance(obj, (bool, int, float, str, bytes)):
        h.update(b"s" + repr(obj).encode())
    else:
        raise TypeError("cannot hash a {} as recording input".format(type(obj).__name__))


def digest(inputs) -> str:
    """A stable hash of a case's inputs (numpy 1.x and 2.x alike: no reprs of numpy objects)."""
    h = hashlib.sha256()
    _feed(h, inputs)
    return h.hexdigest()[:16]


# ----------------------------------------------------------------------------- encoding


def plain(obj):
    """MXNet's results as plain data: NDArrays (read here, so that asynchronous kernel errors
    surface inside `compute`) become numpy arrays; containers are converted recursively."""
    if hasattr(obj, "asnumpy") and not isinstance(obj, np.ndarray):
        return obj.asnumpy()
    if isinstance(obj, (list, tuple)):
        return type(obj)(plain(v) for v in obj)
    if isinstance(obj, dict):
        return {k: plain(v) for k, v in obj.items()}
    return obj


def _encode(obj, arrays: list):
    if isinstance(obj, (np.ndarray, np.generic)):
        arrays.append(np.ascontiguousarray(obj))
        return {"@a": len(arrays) - 1, "g": isinstance(obj, np.generic)}
    if isinstance(obj, np.dtype):
        return {"@d": obj.str}
    if isinstance(obj, tuple):
        return {"@t": [_encode(v, arrays) for v in obj]}
    if isinstance(obj, list):
        return [_encode(v, arrays) for v in obj]
    if isinstance(obj, dict):
        return {"@m": [[_encode(k, arrays), _encode(v, arrays)] for k, v in obj.items()]}
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError("cannot record a {}".format(type(obj).__name__))


def _decode(obj, arrays: Callable[[int], np.ndarray]):
    if isinstance(obj, list):
        return [_decode(v, arrays) for v in obj]
    if isinstance(obj, dict):
        if "@a" in obj:
            a = arrays(obj["@a"])
            return a[()] if obj["g"] else a
        if "@d" in obj:
            return np.dtype(obj["@d"])
        if "@t" in obj:
            return tuple(_decode(v, arrays) for v in obj["@t"])
        return {_decode(k, arrays): _decode(v, arrays) for k, v in obj["@m"]}
    return obj


# ----------------------------------------------------------------------------- storage


class Store:
    """One module's recording, loaded lazily: the index at collection, arrays on use."""

    def __init__(self, module: str):
        path = DIR / (module + ".npz")
        self.entries: Dict[str, Any] = {}
        self.version = None
        if path.exists():
            with np.load(path, allow_pickle=False) as z:
                index = json.loads(z["index"].tobytes().decode("utf-8"))
                self.blob = z["blob"]
            self.version = index["mxnet"]
            self.entries = index["entries"]
            self.arrays = index["arrays"]
        self.tests = {k.rsplit("#", 1)[0] for k in self.entries}

    def array(self, i: int) -> np.ndarray:
        dtype, shape, off, n = self.arrays[i]
        return np.frombuffer(self.blob[off : off + n].tobytes(), np.dtype(dtype)).reshape(shape)


def store(module: str) -> Store:
    if module not in _stores:
        _stores[module] = Store(module)
    return _stores[module]


def has_test(module: str, name: str) -> bool:
    """Whether the recordings hold calls of this test (conftest.py runs it without MXNet)."""
    return name in store(module).tests


def save() -> list:
    """Write the recordings of the modules that ran in record mode; returns the paths."""
    DIR.mkdir(exist_ok=True)
    written = []
    for module, entries in sorted(_recorded.items()):
        path = DIR / (module + ".npz")
        if not entries:  # its tests no longer call real MXNet
            if path.exists():
                path.unlink()
            continue
        arrays = _recorded_arrays[module]
        table, chunks, off = [], [], 0
        for a in arrays:
            b = a.tobytes()
            table.append([a.dtype.str, list(a.shape), off, len(b)])
            chunks.append(b)
            off += len(b)
        index = {
            "format": FORMAT,
            "mxnet": _mxnet.__version__,
            "numpy": np.__version__,
            "entries": dict(sorted(entries.items())),
            "arrays": table,
        }
        raw = json.dumps(index, sort_keys=True, separators=(",", ":")).encode("utf-8")
        np.savez_compressed(
            path, index=np.frombuffer(raw, np.uint8), blob=np.frombuffer(b"".join(chunks), np.uint8)
        )
        written.append(path)
    return written


def start_module(module: str) -> None:
    """Record mode: a module's recording is rebuilt from scratch when its tests run."""
    _recorded.setdefault(module, {})
    _recorded_arrays.setdefault(module, [])


# ----------------------------------------------------------------------------- the call


def _next_key() -> str:
    if _test["module"] is None:
        raise RuntimeError("reference() called outside a test")
    key = "{}#{}".format(_test["name"], _test["counter"])
    _test["counter"] += 1
    return key


def _stale(key: str, msg: str):
    pytest.fail(
        "recorded MXNet reference {}::{}: {}; {}".format(_test["module"], key, msg, REGENERATE),
        pytrace=False,
    )


def _check(key: str, h: str, what: str) -> Optional[dict]:
    s = store(_test["module"])
    entry = s.entries.get(key)
    if entry is None:
        _stale(key, "not recorded ({})".format(what or "new call"))
    if s.version != MXNET_VERSION:
        _stale(key, "recorded with MXNet {}, not {}".format(s.version, MXNET_VERSION))
    if entry["h"] != h:
        _stale(key, "its inputs changed since it was recorded ({})".format(what or "case"))
    return entry


def reference(compute: Callable[[Any], Any], inputs, what: str = ""):
    """What real MXNet gives for `inputs`: `plain(compute(mxnet))` live, else the recording.

    `inputs` must determine `compute`'s result (everything MXNet sees: op name, arrays,
    parameters, JSON text); its hash is stored and checked. `what` names the call in errors.
    An exception raised by MXNet propagates live and is re-raised as RecordedError (type name
    and message) on replay."""
    key = _next_key()
    h = digest(inputs)
    if not HAVE_MXNET:
        entry = _check(key, h, what)
        s = store(_test["module"])
        value = _decode(entry["v"], s.array)
        if entry.get("raise"):
            raise RecordedError("{}: {}".format(*value))
        return value
    if _mode["check"] and _test["recordable"]:
        _check(key, h, what)
    try:
        value = plain(compute(_mxnet))
        raised = None
    except Exception as err:  # noqa: BLE001 - recorded, then re-raised unchanged
        value, raised = None, err
    if _mode["record"] and _test["recordable"]:
        module = _test["module"]
        arrays = _recorded_arrays[module]
        enc = (
            _encode([type(raised).__name__, str(raised)[:2000]], arrays)
            if raised is not None
            else _encode(value, arrays)
        )
        _recorded[module][key] = {"h": h, "v": enc, "raise": raised is not None}
    if raised is not None:
        raise raised
    return value
