"""Reading and writing Python source files without losing a byte the user cares about.

The linter works on ``str``; this module owns the round trip between that ``str`` and the file
on disk. It decodes the bytes itself (honouring a UTF-8 BOM and a PEP 263 coding declaration,
via :func:`tokenize.detect_encoding`) instead of using text-mode ``open``, so that CRLF and lone
CR line endings reach the linter untouched and are written back exactly as they were.

A write never loses anything:

* it happens only when the text changed, and is refused when the new text does not parse;
* it is refused when the file changed on disk since it was read (bytes, size, mtime or inode
  differ just before the replace): an edit made while ``--fix`` ran is kept, not overwritten;
* it is atomic (a temporary file in the same directory, then :func:`os.replace`) and keeps the
  file's mode, owner, group and extended attributes (ACLs, SELinux labels), going through
  symlinks to their target;
* a file with several hard links, or whose owner or attributes the temporary file cannot take
  (not root), is written in place instead so that every name sees the fix and nothing about
  the inode changes; a backup copy of the old bytes is written and synced first and removed
  after, so a kill in between leaves the old content next to the file
  (``.hybridlint-PID-*.NAME.orig``), reported by the next run;
* temporary files carry the writer's process id, and the next run removes those whose writer
  is gone (a kill between write and rename).
"""

from __future__ import annotations

import ast
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple


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
    # (st_dev, st_ino, st_size, st_mtime_ns) taken just before reading, when known
    identity: Optional[Tuple[int, int, int, int]] = None


def identity_of(st: os.stat_result) -> Tuple[int, int, int, int]:
    """What must stay the same for a file to count as unchanged since it was read."""
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def read_bytes(path: str) -> bytes:
    """Read a file's bytes, turning every OS-level failure into :class:`SourceReadError`."""
    return read_bytes_and_identity(path)[0]


def read_bytes_and_identity(path: str) -> Tuple[bytes, Tuple[int, int, int, int]]:
    """A file's bytes and its :func:`identity_of`, taken before reading (so an edit racing
    the read shows up as a changed identity later, never as unchanged)."""
    try:
        # O_NONBLOCK: opening a FIFO (`mkfifo x.py`) must not wait for a writer forever
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as handle:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise SourceReadError("not a regular file")
            return handle.read(), identity_of(st)
    except OSError as exc:
        raise SourceReadError(exc.strerror or str(exc)) from exc


def decode_source(
    raw: bytes, path: str = "<bytes>", identity: Optional[Tuple[int, int, int, int]] = None
) -> SourceFile:
    """Decode source bytes the way Python's own tokenizer would, keeping line endings.

    ``tokenize.detect_encoding`` reports ``utf-8-sig`` for a BOM, so encoding back with the same
    codec restores the BOM. A declaration naming an unknown codec, a BOM that contradicts the
    declaration, or bytes invalid in the codec all raise :class:`SourceDecodeError`.
    """
    # Python finds the declaration in the first two lines whatever their line endings are;
    # tokenize.detect_encoding splits on LF only, so give it the two lines already split.
    two_lines = _TWO_LINES.match(raw)
    assert two_lines is not None  # every pattern of it may be empty: it matches any bytes
    head = iter(two_lines.group(0).splitlines(keepends=True))
    try:
        encoding, _ = tokenize.detect_encoding(lambda: next(head, b""))
    except SyntaxError as exc:  # unknown codec, BOM/declaration mismatch, or not UTF-8
        message = str(exc.msg if hasattr(exc, "msg") else exc)
        if message.startswith("invalid or missing encoding declaration"):
            encoding = "utf-8"  # no usable declaration: say where the UTF-8 decoding fails
        else:
            raise SourceDecodeError(message) from exc
    if not _ascii_compatible(encoding):  # as CPython: "encoding problem: utf-16"
        raise SourceDecodeError(
            f"encoding problem: {encoding} (Python source must use an ASCII-compatible encoding)"
        )
    try:
        text = raw.decode(encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise SourceDecodeError(*_decode_problem(raw, encoding, exc)) from exc
    return SourceFile(path=path, text=text, encoding=encoding, raw=raw, identity=identity)


def _ascii_compatible(encoding: str) -> bool:
    """Whether a codec encodes ASCII as ASCII, which Python requires of a source encoding."""
    try:
        return "x = 1\n#'\"".encode(encoding).lstrip(b"\xef\xbb\xbf") == b"x = 1\n#'\""
    except (LookupError, UnicodeError):
        return True  # an unknown codec is reported by the decoding itself


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
    raw, identity = read_bytes_and_identity(path)
    return decode_source(raw, path, identity)


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


def write_source(
    original: SourceFile,
    new_text: str,
    problem_of: Callable[[str], Optional[str]] = parse_error,
) -> bool:
    """Write ``new_text`` over ``original.path``; return whether the file changed.

    Nothing is written when the encoded bytes equal what was read. The text must parse
    (``problem_of`` says why it does not: Python's parser by default, a notebook's JSON check
    for a notebook) and be encodable in the file's codec, and the file must still hold the
    bytes ``original`` was read from, otherwise :class:`SourceWriteError` is raised and the
    file is left untouched. See the module docstring for what is kept (mode, owner, xattrs,
    hard links, symlinks).
    """
    data = encode_source(new_text, original.encoding)
    if data == original.raw:
        return False
    problem = problem_of(new_text)
    if problem is not None:
        raise SourceWriteError(f"refusing to write a result that does not parse ({problem})")
    target = os.path.realpath(original.path)
    if not os.access(target, os.W_OK):  # os.replace would swap out a file we may not write
        raise SourceWriteError("permission denied: the file is not writable")

    def unchanged() -> None:
        _check_unchanged(target, original)

    atomic_write_bytes(target, data, check=unchanged)
    return True


def _check_unchanged(target: str, original: SourceFile) -> None:
    """Raise :class:`SourceWriteError` if ``target`` no longer holds what was read."""
    try:
        st = os.stat(target)
        current = read_bytes(target)
    except (OSError, SourceReadError) as exc:
        raise SourceWriteError(f"the file cannot be read back before writing: {exc}") from exc
    changed = current != original.raw
    if original.identity is not None and not changed:
        changed = identity_of(st) != original.identity
    if changed:
        raise SourceWriteError(
            "the file changed on disk while it was being fixed; not written (run again)"
        )


TEMP_PREFIX = ".hybridlint-"  # every temporary file's name starts so


def temp_prefix() -> str:
    """The name prefix of this process's temporary files (the pid tells a leftover's writer)."""
    return f"{TEMP_PREFIX}{os.getpid()}-"


_TEMP_NAME = re.compile(r"^\.hybridlint-(\d+)-.*\.(tmp|orig)$")


def leftover_files(directory: str, names: Optional[List[str]] = None) -> List[Tuple[str, bool]]:
    """hybridlint's temporary files in ``directory`` whose writing process is gone, as
    ``(path, is_backup)``; an ``.orig`` backup means an in-place write was interrupted.
    ``names``: the directory's entries if the caller listed it already (else it is listed)."""
    if names is None:
        try:
            names = os.listdir(directory)
        except OSError:
            return []
    found = []
    for name in names:
        match = _TEMP_NAME.match(name)
        if match and not _process_alive(int(match.group(1))):
            found.append((os.path.join(directory, name), match.group(2) == "orig"))
    return found


def remove_stale_temp_files(directory: str, names: Optional[List[str]] = None) -> List[str]:
    """Delete the ``.tmp`` files a killed hybridlint left in ``directory``; return the
    ``.orig`` backups found (never deleted: they may be the only copy of a file's old bytes).
    ``names`` as for :func:`leftover_files`."""
    backups = []
    for path, is_backup in leftover_files(directory, names):
        if is_backup:
            backups.append(path)
            continue
        try:
            os.unlink(path)
        except OSError:
            pass
    return backups


def _process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    except (OverflowError, ValueError):  # not a process id at all
        return False
    return True


def atomic_write_bytes(
    target: str, data: bytes, check: Optional[Callable[[], None]] = None
) -> None:
    """Replace ``target`` with ``data`` so readers see the old or the new file, never half.

    The temporary file lives in the target's directory (``os.replace`` is only atomic within a
    file system) and gets the target's permission bits, owner, group and extended attributes
    before it replaces it; ``check`` runs just before the replace and may raise to cancel it.
    When the target has several hard links, or the temporary file cannot take its owner or
    attributes, the target is written in place instead (:func:`_write_in_place`).
    """
    directory = os.path.dirname(target) or "."
    try:
        st: Optional[os.stat_result] = os.stat(target)
    except FileNotFoundError:
        st = None
    if st is not None and st.st_nlink > 1:
        _write_in_place(target, data, check)
        return
    fd, tmp_path = tempfile.mkstemp(dir=directory, prefix=temp_prefix(), suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if st is not None and not _take_identity(handle.fileno(), tmp_path, target, st):
                handle.close()
                os.unlink(tmp_path)
                _write_in_place(target, data, check)
                return
            os.fsync(handle.fileno())
        if st is None:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp_path, 0o666 & ~umask)  # a new file gets what open() would give it
        if check is not None:
            check()
        os.replace(tmp_path, target)
    except BaseException:
        try:
            os.unlink(tmp_path)
        except OSError:
            pass
        raise


def _take_identity(fd: int, tmp_path: str, target: str, st: os.stat_result) -> bool:
    """Give the temporary file the target's mode, owner, group and extended attributes;
    False when that is not possible (the caller then writes in place)."""
    os.fchmod(fd, stat.S_IMODE(st.st_mode))
    own = os.fstat(fd)
    if (own.st_uid, own.st_gid) != (st.st_uid, st.st_gid):
        try:
            os.fchown(fd, st.st_uid, st.st_gid)
        except OSError:
            return False
        os.fchmod(fd, stat.S_IMODE(st.st_mode))  # chown clears setuid/setgid bits
    if hasattr(os, "listxattr"):
        try:
            names = os.listxattr(target)
        except OSError:
            names = []
        for name in names:
            try:
                os.setxattr(fd, name, os.getxattr(target, name))
            except OSError:
                return False
    return True


def _write_in_place(target: str, data: bytes, check: Optional[Callable[[], None]]) -> None:
    """Overwrite ``target``'s own inode (hard links, owner, attributes all stay), after
    syncing a backup of its old bytes next to it; the backup is removed once the new bytes
    are on disk. A failed write puts the old bytes back; if even that fails, the backup stays
    and the error names it."""
    directory = os.path.dirname(target) or "."
    with open(target, "rb") as handle:
        old = handle.read()
    fd, backup = tempfile.mkstemp(
        dir=directory, prefix=temp_prefix(), suffix="." + os.path.basename(target) + ".orig"
    )
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(old)
            handle.flush()
            os.fsync(handle.fileno())
        if check is not None:
            check()
    except BaseException:
        os.unlink(backup)
        raise
    try:
        _overwrite(target, data)
    except BaseException as exc:
        try:
            _overwrite(target, old)
        except BaseException as restore_error:
            raise OSError(
                f"writing in place failed ({exc}); the old content is in {backup}"
            ) from restore_error
        os.unlink(backup)
        raise
    os.unlink(backup)


def _overwrite(target: str, data: bytes) -> None:
    out = os.open(target, os.O_WRONLY)
    try:
        view = memoryview(data)
        written = 0
        while written < len(data):
            written += os.pwrite(out, view[written:], written)
        os.ftruncate(out, len(data))
        os.fsync(out)
    finally:
        os.close(out)
