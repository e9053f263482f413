"""Reading and writing Python source files without losing a byte the user cares about.

The linter works on ``str``; this module owns the round trip between that ``str`` and the file
on disk. It decodes the bytes itself (honouring a UTF-8 BOM and a PEP 263 coding declaration,
via :func:`tokenize.detect_encoding`) instead of using text-mode ``open``, so that CRLF and lone
CR line endings reach the linter untouched and are written back exactly as they were. Writes are
atomic (a temporary file in the same directory, then :func:`os.replace`), keep the file's mode,
go through symlinks to their target, happen only when the text changed, and are refused when the
new text does not parse.
"""
from __future__ import annotations

import ast
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from typing import Optional, Tuple


_TWO_LINES = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)?[^\r\n]*(?:\r\n|\r|\n)?")


class SourceReadError(Exception):
    """The file could not be read at all (missing, a directory, permission denied...): HL902."""


class SourceDecodeError(Exception):
    """The bytes are not valid text in the file's declared encoding: HL901."""

    def __init__(self, message: str, line: int = 1, col: int = 1):
        super().__init__(message)
        self.line = line
        self.col = col


class SourceWriteError(Exception):
    """A rewritten source was not written, with the reason (does not parse, not encodable...)."""


@dataclass(frozen=True)
class SourceFile:
    """A decoded source file and what is needed to write it back byte-compatibly."""

    path: str
    text: str
    encoding: str  # codec name as tokenize reports it, e.g. "utf-8", "utf-8-sig", "iso-8859-1"
    raw: bytes  # the bytes as read, for hashing and "has it changed" checks


def read_bytes(path: str) -> bytes:
    """Read a file's bytes, turning every OS-level failure into :class:`SourceReadError`."""
    try:
        # O_NONBLOCK: opening a FIFO (`mkfifo x.py`) must not wait for a writer forever
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise SourceReadError("not a regular file")
            return handle.read()
    except OSError as exc:
        raise SourceReadError(exc.strerror or str(exc)) from exc


def decode_source(raw: bytes, path: str = "<bytes>") -> SourceFile:
    """Decode source bytes the way Python's own tokenizer would, keeping line endings.

    ``tokenize.detect_encoding`` reports ``utf-8-sig`` for a BOM, so encoding back with the same
    codec restores the BOM. A declaration naming an unknown codec, a BOM that contradicts the
    declaration, or bytes invalid in the codec all raise :class:`SourceDecodeError`.
    """
    # Python finds the declaration in the first two lines whatever their line endings are;
    # tokenize.detect_encoding splits on LF only, so give it the two lines already split.
    head = iter(_TWO_LINES.match(raw).group(0).splitlines(keepends=True))
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(head, b""))
    except SyntaxError as exc:  # unknown codec, BOM/declaration mismatch, or not UTF-8
        message = str(exc.msg if hasattr(exc, "msg") else exc)
        if message.startswith("invalid or missing encoding declaration"):
            encoding = "utf-8"  # no usable declaration: say where the UTF-8 decoding fails
        else:
            raise SourceDecodeError(message) from exc
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise SourceDecodeError(*_decode_problem(raw, encoding, exc)) from exc
    return SourceFile(path=path, text=text, encoding=encoding, raw=raw)


def _decode_problem(raw: bytes, encoding: str, exc: Exception):
    """Message, line and column (1-based, in bytes) of the first byte that does not decode."""
    if not isinstance(exc, UnicodeDecodeError):
        return f"cannot decode as {encoding}: {exc}", 1, 1
    before = raw[: exc.start]
    line = before.count(b"\n") + 1
    col = exc.start - (before.rfind(b"\n") + 1) + 1
    return f"not valid {encoding} (byte 0x{raw[exc.start]:02x})", line, col


def lone_cr_to_lf(text: str) -> Tuple[str, bool]:
    """The text with old-Mac (lone CR) line endings as LF, and whether it was converted.

    Only files whose every line ends in a lone CR are converted: the mapping is one character
    for one, so positions are unchanged, and converting back (:func:`lf_to_cr`) is exact.
    """
    if "\r" in text and "\n" not in text:
        return text.replace("\r", "\n"), True
    return text, False


def lf_to_cr(text: str) -> str:
    """Undo :func:`lone_cr_to_lf` on the (possibly rewritten) text."""
    return text.replace("\n", "\r")


def read_source(path: str) -> SourceFile:
    """Read and decode a source file (see :func:`decode_source`)."""
    return decode_source(read_bytes(path), path)


def encode_source(text: str, encoding: str) -> bytes:
    """Encode text back with the file's codec (``utf-8-sig`` re-adds the BOM)."""
    try:
        return text.encode(encoding)
    except UnicodeEncodeError as exc:
        raise SourceWriteError(
            f"the fixed source has characters that {encoding} cannot encode: {exc.reason}"
        ) from exc


def parse_error(text: str) -> Optional[str]:
    """Why ``text`` is not valid Python, or None when it parses.

    ``ast`` is the cheap, authoritative check here: what we refuse to write is text Python itself
    would refuse to import.
    """
    try:
        ast.parse(text)
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except ValueError as exc:  # e.g. null bytes
        return str(exc)
    return None


def write_source(original: SourceFile, new_text: str) -> bool:
    """Write ``new_text`` over ``original.path`` atomically; return whether the file changed.

    Nothing is written when the encoded bytes equal what was read. The text must parse and be
    encodable in the file's codec, otherwise :class:`SourceWriteError` is raised and the file is
    left untouched. Symlinks are written through (the link stays a link); the file mode is kept.
    """
    data = encode_source(new_text, original.encoding)
    if data == original.raw:
        return False
    problem = parse_error(new_text)
    if problem is not None:
        raise SourceWriteError(f"refusing to write a result that does not parse ({problem})")
    target = os.path.realpath(original.path)
    if not os.access(target, os.W_OK):  # os.replace would swap out a file we may not write
        raise SourceWriteError("permission denied: the file is not writable")
    atomic_write_bytes(target, data)
    return True


def atomic_write_bytes(target: str, data: bytes) -> None:
    """Replace ``target`` with ``data`` so readers see the old or the new file, never half.

    The temporary file lives in the target's directory (``os.replace`` is only atomic within a
    file system) and gets the target's permission bits before it replaces it.
    """
    directory = os.path.dirname(target) or "."
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:  # a new file gets what open() would give it
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp_path = tempfile.mkstemp(dir=directory, prefix=".hybridlint-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp_path, mode)
        os.replace(tmp_path, target)
    except BaseException:
        try:
            os.unlink(tmp_path)
        except OSError:
            pass
        raise
