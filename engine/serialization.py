"""MXNet's binary NDArray-list format (`mx.nd.save` / `mx.nd.load`, the `.params` files).

Files must cross-load with real MXNet 1.9.1 both ways, so the layout follows MXNet's C++
serializer byte for byte (all little-endian):

    u64 0x112 (list magic), u64 0 (reserved)
    u64 count, then per array:
        u32 0xF993FAC9 (NDArray V2 magic), i32 storage type (0 = dense)
        u32 ndim, i64 dims[ndim]
        i32 dev_type (1 = cpu), i32 dev_id
        i32 type flag, raw C-order data
    u64 name count, then per name: u64 length, utf-8 bytes

Loading also accepts the V1 magic (0xF993FAC8, i64 dims), the V3 magic (0xF993FACA, numpy
shape semantics) and the legacy layout without a magic (u32 ndim, u32 dims). Sparse arrays
are refused with a clear error: the engine is dense-only.

`dumps_graph_json` is the engine's one writer of MXNet's JSON graph text (`Symbol.tojson`,
`Symbol.save` and so `HybridBlock.export` all go through it). It copies MXNet's C++ JSON writer
(dmlc::JSONWriter, as MXNet 1.9.1 uses it), so the text is byte-identical to MXNet's where the
graphs agree: files hold that text as UTF-8 bytes, no BOM, no final newline.
"""

import os
import struct
from typing import Dict, List, Optional, Union

import numpy as np

from .base import MXNetError

__all__ = ["save", "load", "load_frombuffer", "dumps_arrays", "loads_arrays", "dumps_graph_json"]

_LIST_MAGIC = 0x112
_V1_MAGIC = 0xF993FAC8
_V2_MAGIC = 0xF993FAC9
_V3_MAGIC = 0xF993FACA

# MXNet's mshadow type flags.
_FLAG_TO_DTYPE = {
    0: np.float32,
    1: np.float64,
    2: np.float16,
    3: np.uint8,
    4: np.int32,
    5: np.int8,
    6: np.int64,
    7: np.bool_,
}
_DTYPE_TO_FLAG = {np.dtype(v): k for k, v in _FLAG_TO_DTYPE.items()}


def _to_numpy(value) -> np.ndarray:
    """Dense C-order numpy copy of an NDArray (or anything array-like with asnumpy)."""
    if hasattr(value, "asnumpy"):
        return np.ascontiguousarray(value.asnumpy())
    raise TypeError(
        "save only accepts NDArray or a list/dict of NDArray, got {}".format(type(value).__name__)
    )


def dumps_arrays(arrays: List[np.ndarray], names: List[str]) -> bytes:
    """Serialise numpy arrays (and optional names) into MXNet's list format."""
    out = [struct.pack("<QQ", _LIST_MAGIC, 0), struct.pack("<Q", len(arrays))]
    for arr in arrays:
        dtype = np.dtype(arr.dtype)
        if dtype not in _DTYPE_TO_FLAG:
            raise TypeError("cannot save an array of dtype {}".format(dtype))
        out.append(struct.pack("<Ii", _V2_MAGIC, 0))
        out.append(struct.pack("<I", arr.ndim))
        out.append(struct.pack("<%dq" % arr.ndim, *arr.shape))
        out.append(struct.pack("<iii", 1, 0, _DTYPE_TO_FLAG[dtype]))
        out.append(np.ascontiguousarray(arr).astype(dtype.newbyteorder("<"), copy=False).tobytes())
    out.append(struct.pack("<Q", len(names)))
    for name in names:
        raw = name.encode("utf-8")
        out.append(struct.pack("<Q", len(raw)))
        out.append(raw)
    return b"".join(out)


class _Reader:
    """Bounds-checked cursor over the file bytes: truncation becomes an MXNetError."""

    def __init__(self, buf: bytes, what: str):
        self.buf = buf
        self.pos = 0
        self.what = what

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.buf):
            raise MXNetError(
                "Invalid NDArray file format: {} is truncated or corrupt".format(self.what)
            )
        chunk = self.buf[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)))


def _read_array(rd: _Reader) -> Optional[np.ndarray]:
    (magic,) = rd.unpack("I")
    if magic in (_V2_MAGIC, _V3_MAGIC):
        (stype,) = rd.unpack("i")
        if stype != 0:
            raise MXNetError(
                "{}: sparse NDArrays (storage type {}) are not supported by the "
                "hybridlint engine".format(rd.what, stype)
            )
        (ndim,) = rd.unpack("i")
        if ndim < 0:  # V3 "unknown shape": MXNet loads an empty NDArray
            return None
        shape = rd.unpack("%dq" % ndim)
    elif magic == _V1_MAGIC:
        (ndim,) = rd.unpack("I")
        shape = rd.unpack("%dq" % ndim)
    else:  # legacy: the magic slot is already ndim, dims are u32
        ndim = magic
        if ndim > 32:
            raise MXNetError(
                "Invalid NDArray file format: {} (bad array magic {:#x})".format(rd.what, magic)
            )
        shape = rd.unpack("%dI" % ndim)
    if ndim == 0 and magic != _V3_MAGIC:
        # MXNet 1.x (legacy shape semantics) treats ndim 0 as "no shape" and stops reading.
        return None
    dev_type, _dev_id, flag = rd.unpack("iii")
    del dev_type
    if flag not in _FLAG_TO_DTYPE:
        raise MXNetError("{}: unsupported dtype flag {} in NDArray file".format(rd.what, flag))
    dtype = np.dtype(_FLAG_TO_DTYPE[flag]).newbyteorder("<")
    count = int(np.prod(shape, dtype=np.int64)) if shape else 1
    data = np.frombuffer(rd.take(count * dtype.itemsize), dtype=dtype, count=count)
    return data.reshape(shape).astype(dtype.newbyteorder("="), copy=True)  # owns its memory


def loads_arrays(buf: bytes, what: str = "buffer"):
    """Parse MXNet's list format into (list of numpy arrays or None, list of names)."""
    rd = _Reader(bytes(buf), what)
    if len(rd.buf) < 16:
        raise MXNetError("Invalid NDArray file format: {} is too short".format(what))
    magic, _reserved = rd.unpack("QQ")
    if magic != _LIST_MAGIC:
        raise MXNetError(
            "Invalid NDArray file format: {} is not an MXNet NDArray file".format(what)
        )
    (count,) = rd.unpack("Q")
    arrays = [_read_array(rd) for _ in range(count)]
    (nnames,) = rd.unpack("Q")
    names = []
    for _ in range(nnames):
        (length,) = rd.unpack("Q")
        names.append(rd.take(length).decode("utf-8"))
    if names and len(names) != len(arrays):
        raise MXNetError(
            "Invalid NDArray file format: {} has {} arrays but {} names".format(
                what, len(arrays), len(names)
            )
        )
    return arrays, names


def save(fname: Union[str, os.PathLike], data) -> None:
    """`mx.nd.save`: write an NDArray, a list of NDArrays or a str->NDArray dict."""
    if hasattr(data, "asnumpy"):
        data = [data]
    if isinstance(data, dict):
        for key in data:
            if not isinstance(key, str):
                raise TypeError("save only accept dict str->NDArray or list of NDArray")
        names = list(data.keys())
        arrays = [_to_numpy(v) for v in data.values()]
    elif isinstance(data, (list, tuple)):
        names = []
        arrays = [_to_numpy(v) for v in data]
    else:
        raise ValueError(
            "data needs to either be a NDArray, dict of str, NDArray pairs or a list of NDarrays."
        )
    payload = dumps_arrays(arrays, names)
    with open(os.fspath(fname), "wb") as fh:
        fh.write(payload)


def _wrap(arrays, names):
    from .ndarray import wrap  # late: ndarray delegates save/load here

    # _read_array's arrays are fresh copies: wrapped as they are (0-d ones become shape (1,),
    # as mx.nd.array makes them), not copied once more
    wrapped = [
        None if a is None else wrap(a.reshape(1).copy() if a.ndim == 0 else a) for a in arrays
    ]
    if names:
        return dict(zip(names, wrapped))
    return wrapped


def load(fname: Union[str, os.PathLike]) -> Union[List, Dict[str, object]]:
    """`mx.nd.load`: a list of NDArrays, or a dict when the file stores names."""
    if not isinstance(fname, (str, os.PathLike)):
        raise TypeError("fname required to be a string")
    path = os.fspath(fname)
    try:
        with open(path, "rb") as fh:
            buf = fh.read()
    except OSError as err:
        raise MXNetError("Cannot open NDArray file {}: {}".format(path, err.strerror)) from None
    return _wrap(*loads_arrays(buf, path))


def load_frombuffer(buf: bytes) -> Union[List, Dict[str, object]]:
    """`mx.nd.load_frombuffer`: same as load, from bytes in memory."""
    if not isinstance(buf, (bytes, bytearray, memoryview)):
        raise TypeError("buf required to be a bytes-like object")
    return _wrap(*loads_arrays(bytes(buf)))


# ----------------------------------------------------------------------------- graph JSON

# What dmlc::JSONWriter::WriteString escapes; nothing else is (see _DmlcJSONWriter).
_DMLC_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\r": "\\r", "\n": "\\n", "\t": "\\t"})


class _DmlcJSONWriter:
    """Writes JSON the way MXNet's C++ (dmlc::JSONWriter) does, so graph text is byte-identical
    to MXNet's: `", "` before a newline, objects of one entry and arrays of at most ten plain
    values on one line, keys of attribute maps sorted (std::map: byte order of the UTF-8, which
    is code point order, so Python's `sorted`).

    Strings are not JSON's usual escaping, checked against MXNet 1.9.1: only backslash, double
    quote, CR, LF and tab are escaped (as two characters, backslash + `\\ " r n t`); every
    other character, non-ASCII and the other control characters included, is written as is
    (no backslash-u escapes: dmlc's reader refuses them, "unknown string escape"). Object keys
    are not escaped at all (dmlc writes them raw), so an attribute key holding a quote or
    backslash makes text that neither MXNet nor the engine can read back; we write it as
    MXNet does."""

    def __init__(self):
        self.out: List[str] = []
        self.multi: List[bool] = []
        self.count: List[int] = []

    def _sep(self) -> None:
        if not self.multi or self.multi[-1]:
            self.out.append("\n" + " " * (2 * len(self.multi)))

    def _begin(self, bracket: str, multi_line: bool) -> None:
        self.out.append(bracket)
        self.multi.append(multi_line)
        self.count.append(0)

    def _end(self, bracket: str) -> None:
        n = self.count.pop()
        newline = self.multi.pop()
        if newline and n:
            self._sep()
        self.out.append(bracket)

    def _next(self) -> None:
        if self.count[-1] > 0:
            self.out.append(", ")
        self._sep()
        self.count[-1] += 1

    def string(self, s: str) -> None:
        self.out.append('"%s"' % s.translate(_DMLC_ESCAPES))

    def scalar(self, v) -> None:
        if isinstance(v, str):
            self.string(v)
        else:
            self.out.append(str(v))

    def array(self, items, multi_line: bool, write_item) -> None:
        self._begin("[", multi_line)
        for item in items:
            self._next()
            write_item(item)
        self._end("]")

    def obj(self, pairs, multi_line: bool, write_value) -> None:
        self._begin("{", multi_line)
        for key, value in pairs:
            self._next()
            self.out.append('"%s": ' % key)  # dmlc writes keys unescaped
            write_value(key, value)
        self._end("}")

    # --- the pieces of an nnvm graph
    def plain_list(self, values) -> None:
        self.array(values, len(values) > 10, self.scalar)

    def entries(self, entries) -> None:
        self.array(entries, len(entries) > 10, lambda e: self.array(e, False, self.scalar))

    def str_map(self, mapping) -> None:
        self.obj(sorted(mapping.items()), len(mapping) > 1, lambda k, v: self.string(str(v)))

    def node(self, node) -> None:
        def value(key, v):
            if key == "attrs":
                self.str_map(v)
            elif key in ("inputs", "control_deps"):
                self.entries(v) if key == "inputs" else self.plain_list(v)
            elif key == "subgraphs":
                self.array(v, True, self.graph)
            else:
                self.scalar(v)

        self.obj(
            [
                (k, node[k])
                for k in ("op", "name", "attrs", "inputs", "control_deps", "subgraphs")
                if k in node
            ],
            True,
            value,
        )

    def graph(self, graph) -> None:
        def value(key, v):
            if key == "nodes":
                self.array(v, True, self.node)
            elif key == "heads":
                self.entries(v)
            elif key == "attrs":
                self.obj(
                    sorted(v.items()), len(v) > 1, lambda _k, av: self.array(av, False, self.scalar)
                )
            else:
                self.plain_list(v)

        order = ["nodes", "arg_nodes", "node_row_ptr", "heads", "attrs"]
        self.obj([(k, graph[k]) for k in order if k in graph], True, value)


def dumps_graph_json(graph: dict) -> str:
    """An nnvm graph dict (`nodes`, `arg_nodes`, `node_row_ptr`, `heads`, `attrs`, as
    `json.loads(sym.tojson())` gives) as MXNet 1.9.1's `Symbol.tojson()` text, byte for byte.
    Attribute values are written as `str(value)`: MXNet's graph attributes are strings."""
    writer = _DmlcJSONWriter()
    writer.graph(graph)
    return "".join(writer.out)
