"""Content-hash cache of lint results, so an unchanged repo re-lints in a blink.

One file per (hybridlint version, hybridlint sources, rule selection) under
``.hybridlint_cache/`` at the project root. Inside, results are keyed by a hash of everything a
file's result depends on: the file's bytes, the per-file settings (per-file-ignores) and what
its lint reads from the rest of the project (:attr:`hybridlint.project.FileProject.key`: the
importers of its helpers, by module and bytes); never by path or mtime, so a renamed or
touched file still hits and an edited one, or one whose importers changed, always misses. The
project model's facts of each file (:class:`hybridlint.project.FileFacts`) are cached by the
digest of its bytes, so that a warm run builds the model without reading files. Every source file of the
``hybridlint`` and ``hybridlint.rules`` packages is hashed (found by walking them, so a new
module cannot be forgotten), so an editable install invalidates the cache the moment a rule
changes. The cache also remembers the list of rule codes, which spares a warm run from
importing LibCST. A corrupt or unreadable cache is treated as empty; failing to save it is
never an error.

Reading and hashing every file is most of a warm run, so, as git's index does, the cache also
remembers each path's stat signature (mtime, ctime, size, inode) with the digest it had:
an unchanged signature stands for unchanged bytes. ctime cannot be set back by tools that
preserve mtime, and a signature taken within RACY_SECONDS of saving is not kept (a file
rewritten in the same clock tick as its stat would otherwise look unchanged).

Trust model: the cache directory lives in the work tree, so whoever controls the tree (a pull
request) controls it, and a forged entry must not make a CI gate pass. So:

* every cache file is authenticated with an HMAC under a per-user secret kept outside the
  work tree (``$XDG_CACHE_HOME/hybridlint/secret``, else ``~/.cache/hybridlint/secret``,
  created with mode 0600), and its name is derived from that secret: a forged or copied file
  is never even opened, and one that is fails the HMAC and counts as empty;
* every entry is also checked for structure before use (a bad one is a miss, never a crash);
* a ``.hybridlint_cache`` that is a symlink, not a directory, or tracked by git is refused
  (not read, not written) with a warning, so a committed link cannot make a run write
  outside the checkout;
* without a usable secret (unwritable home) the cache is off.

Old cache files (another version, another rule selection) are pruned on save: a file of this
directory whose name authenticates under the secret (so only files this user's hybridlint
wrote) and that is not the current one is removed when unused for ``PRUNE_AGE_SECONDS`` or
beyond the ``KEEP_OTHER_FILES`` most recently used.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import re
import hmac
import importlib.util
import json
import os
import secrets
import stat
import tempfile
import time
from typing import Any, Dict, List, Optional, Tuple

from . import __version__
from .files import atomic_write_bytes, remove_stale_temp_files
from .ftypes import FixSafety
from .project import FileFacts, digest_of

CACHE_DIR = ".hybridlint_cache"
FORMAT = 3
MAX_AGE_SECONDS = 14 * 24 * 3600  # entries unused this long are dropped on save
PRUNE_AGE_SECONDS = 7 * 24 * 3600  # other cache files unused this long are removed on save
KEEP_OTHER_FILES = 8  # ... and beyond this many of them (the most recently used are kept)
REFRESH_SECONDS = 24 * 3600  # a cache file older than this is rewritten (its mtime = last use)
_NAME = re.compile(r"lint-([0-9a-f]{20})-([0-9a-f]{12})\.json\Z")
RACY_SECONDS = 2
SECRET_BYTES = 32
_MAGIC = b"hybridlint-cache"
# What a cached finding looks like: field -> accepted types (anything else is a miss).
_ISSUE_FIELDS = {
    "code": (str,),
    "name": (str,),
    "message": (str,),
    "line": (int,),
    "col": (int,),
    "end_line": (int,),
    "end_col": (int,),
    "fix": (str, type(None)),
    "source_line": (str,),
}
_FIX_VALUES = (None,) + tuple(safety.value for safety in FixSafety)
_SKIPPED_SOURCE_DIRS = ("__pycache__", "tests", "engine")


def result_key(digest: str, file_settings: str = "", dependencies: str = "") -> str:
    """The cache key of one file's result: the digest of its bytes (``project.digest_of``),
    the settings that apply to it alone and the key of what it reads from the rest of the
    project (``FileProject.key``, "" when nothing)."""
    # sha256: hardware-accelerated on current CPUs, about twice as fast as blake2b here.
    key = hashlib.sha256(f"{digest}\0{file_settings}\0{dependencies}".encode("utf-8"))
    return key.hexdigest()[:32]


def content_key(raw: bytes, file_settings: str = "") -> str:
    """The cache key of a file whose lint reads nothing else: its bytes and its settings."""
    return result_key(digest_of(raw), file_settings)


def stat_signature(path: str) -> Optional[List[int]]:
    """What changes whenever a file's bytes change, without reading them (None if unknown)."""
    try:
        return signature_of(os.stat(path))
    except OSError:
        return None


def signature_of(st: os.stat_result) -> List[int]:
    """The stat signature of a stat result already at hand (see :func:`stat_signature`)."""
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]


def result_sources() -> List[str]:
    """Every source file whose code can change a cached result, found by walking the packages.

    All ``.py`` files of ``hybridlint/`` (subpackages included, the engine excluded: linting
    never runs it) and of the rules package, wherever setup.py maps it from. Walking instead of
    listing names means a new module is covered the day it is added; hashing a CLI or reporter
    module too only costs a needless cache miss after it changes.
    """
    package = os.path.dirname(os.path.abspath(__file__))
    folders = [package]
    spec = importlib.util.find_spec("hybridlint.rules")
    folders += [f for f in (spec.submodule_search_locations or [])] if spec else []
    paths: List[str] = []
    for folder in folders:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIPPED_SOURCE_DIRS)
            paths.extend(os.path.join(dirpath, n) for n in sorted(filenames) if n.endswith(".py"))
    return sorted(set(paths))


def rules_digest() -> str:
    """A hash of hybridlint's version and of every source that decides a file's findings.

    Found without importing ``hybridlint.rules`` (and LibCST): see :func:`result_sources`.
    """
    digest = hashlib.blake2b(__version__.encode(), digest_size=12)
    for path in result_sources():
        digest.update(os.path.basename(path).encode() + b"\0")
        try:
            with open(path, "rb") as handle:
                digest.update(handle.read())
        except OSError:
            digest.update(b"<missing>")
    return digest.hexdigest()


def secret_path() -> str:
    """Where the per-user cache secret lives: in the user's cache directory, never a checkout."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hybridlint", "secret")


def machine_secret() -> Optional[bytes]:
    """The per-user secret that authenticates cache files, created on first use; None if the
    user's cache directory is not usable (the cache is then off)."""
    path = secret_path()
    for _ in range(2):
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with open(fd, "rb") as handle:
                data = handle.read(SECRET_BYTES + 1)
            return data if len(data) == SECRET_BYTES else None
        except FileNotFoundError:
            pass
        except OSError:
            return None
        try:  # created complete or not at all: write a temp file, then link it into place
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path), prefix=".secret-")
            try:
                with os.fdopen(fd, "wb") as handle:  # mkstemp files are 0600
                    handle.write(secrets.token_bytes(SECRET_BYTES))
                    handle.flush()
                    os.fsync(handle.fileno())
                try:
                    os.link(tmp, path)
                except FileExistsError:  # a concurrent run created it first: use theirs
                    pass
            finally:
                os.unlink(tmp)
        except OSError:
            return None
    return None


def refusal(directory: str, *, ask_git: bool = True) -> Optional[str]:
    """Why the cache directory must not be used (a symlink, not a directory, tracked by git),
    or None. A directory that does not exist yet is fine: it is created on save."""
    try:
        st = os.lstat(directory)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot inspect it ({exc.strerror or exc})"
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISDIR(st.st_mode):
        return "it is not a directory"
    from .discovery import git_tracked

    if ask_git and git_tracked(os.path.dirname(directory), os.path.basename(directory)):
        return "it is tracked by git"
    return None


def seal(body: bytes, secret: bytes) -> bytes:
    """A cache file's bytes: a header line with the HMAC-SHA256 of ``body``, then ``body``."""
    mac = hmac.new(secret, body, hashlib.sha256).hexdigest().encode()
    return _MAGIC + b" " + mac + b"\n" + body


def unseal(blob: bytes, secret: bytes) -> Optional[bytes]:
    """The body of a cache file sealed with ``secret``, or None (forged, foreign, damaged)."""
    head, _, body = blob.partition(b"\n")
    magic, _, mac = head.partition(b" ")
    expected = hmac.new(secret, body, hashlib.sha256).hexdigest().encode()
    if magic != _MAGIC or not hmac.compare_digest(mac, expected):
        return None
    return body


def valid_result(result: Any) -> bool:
    """Whether a cached result has exactly the shape the runner writes (a list of findings)."""
    if not isinstance(result, list):
        return False
    for item in result:
        if not isinstance(item, dict) or item.keys() != _ISSUE_FIELDS.keys():
            return False
        for name, kinds in _ISSUE_FIELDS.items():
            value = item[name]
            if not isinstance(value, kinds) or isinstance(value, bool):
                return False
        if item["fix"] not in _FIX_VALUES:  # a Finding refuses any other safety
            return False
    return True


class LintCache:
    """Lint results by content key, loaded once and saved once per run.

    ``warning`` says why an existing cache directory was refused (see :func:`refusal`).
    """

    def __init__(self, root: str, settings_key: str, *, enabled: bool = True):
        self.directory = os.path.join(root, CACHE_DIR)
        self.warning: Optional[str] = None
        self._secret = b""
        if enabled:
            problem = refusal(self.directory)
            if problem is not None:
                self.warning = f"{self.directory}: not used as a cache: {problem}"
            secret = machine_secret() if problem is None else None
            enabled = secret is not None
            self._secret = secret or b""
        self.enabled = enabled
        self._rules = rules_digest() if enabled else ""
        name = hashlib.blake2b(
            f"{FORMAT}\0{self._rules}\0{settings_key}".encode(),
            key=self._secret[:64],
            digest_size=10,
        ).hexdigest()
        self.path = os.path.join(self.directory, f"lint-{name}-{self._tag(name)}.json")
        self._entries: Dict[str, Dict[str, Any]] = {}
        self._facts: Dict[str, List[Any]] = {}  # digest -> [defines, imports, last used, bases]
        self._stats: Dict[str, List[Any]] = {}  # path -> [*signature, digest]
        self._codes: Optional[List[str]] = None
        self._dirty = False
        if enabled:
            self._load()

    def _tag(self, name: str) -> str:
        """The part of a cache file's name that proves this user's hybridlint chose it."""
        return hashlib.blake2b(
            b"cache-file-name\0" + name.encode(), key=self._secret[:64], digest_size=6
        ).hexdigest()

    def _load(self) -> None:
        try:  # O_NOFOLLOW: a cache file that is a link is not ours
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            with open(fd, "rb") as handle:
                if time.time() - os.fstat(fd).st_mtime > REFRESH_SECONDS:
                    self._dirty = True  # rewritten on save: its mtime says it is in use
                body = unseal(handle.read(), self._secret)
        except OSError:
            return
        if body is None:
            return  # forged, copied from another machine, or damaged
        try:
            data = json.loads(body)
        except ValueError:
            return
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return
        entries = data.get("entries")
        if isinstance(entries, dict):  # each entry is checked when used (get)
            self._entries = entries
        codes = data.get("codes")
        if isinstance(codes, list) and all(isinstance(c, str) for c in codes):
            self._codes = codes
        facts = data.get("facts")
        if isinstance(facts, dict):  # each record is checked when used (facts)
            self._facts = facts
        stats = data.get("stats")
        if isinstance(stats, dict):  # a malformed record is dropped, never trusted or crashed on
            self._stats = {
                path: record for path, record in stats.items() if _valid_stat_record(record)
            }

    def digest_for_signature(self, path: str, signature: Optional[List[int]]) -> Optional[str]:
        """The digest of the bytes `path` had with this stat signature, or None."""
        if not self.enabled or signature is None:
            return None
        record = self._stats.get(path)
        if record is not None and record[:4] == signature:
            return record[4]
        return None

    def remember_signature(self, path: str, signature: Optional[List[int]], digest: str) -> None:
        """Record the digest of the bytes `path` had with this stat signature."""
        if self.enabled and signature is not None:
            record = signature + [digest]
            if self._stats.get(path) != record:
                self._stats[path] = record
                self._dirty = True

    def facts(self, digest: str) -> Optional[FileFacts]:
        """The project facts of the bytes with this digest, or None (also for a malformed
        record, which is dropped)."""
        if not self.enabled:
            return None
        record = self._facts.get(digest)
        if record is None:
            return None
        found = _facts_from_record(record)
        if found is None:
            del self._facts[digest]
            self._dirty = True
            return None
        record[2] = int(time.time())
        return found

    def put_facts(self, digest: str, facts: FileFacts) -> None:
        """Remember the project facts of the bytes with this digest."""
        if self.enabled:
            self._facts[digest] = [
                facts.defines,
                [list(i) for i in facts.imports],
                int(time.time()),
                [list(i) for i in facts.bases],
            ]
            self._dirty = True

    @property
    def codes(self) -> Optional[List[str]]:
        """The rule codes known when the cache was written (same rule sources), if cached."""
        return self._codes

    @codes.setter
    def codes(self, value: List[str]) -> None:
        if value != self._codes:
            self._codes = list(value)
            self._dirty = True

    def get(self, key: str) -> Optional[List[Dict[str, Any]]]:
        """The cached result for a content key, or None (also for an entry of the wrong shape,
        which is dropped)."""
        if not self.enabled:
            return None
        entry = self._entries.get(key)
        if entry is None:
            return None
        if not (isinstance(entry, dict) and valid_result(entry.get("r"))):
            del self._entries[key]
            self._dirty = True
            return None
        entry["t"] = int(time.time())
        return entry["r"]

    def put(self, key: str, result: List[Dict[str, Any]]) -> None:
        """Remember a JSON-serialisable result for a content key."""
        if self.enabled:
            self._entries[key] = {"r": result, "t": int(time.time())}
            self._dirty = True

    def save(self) -> None:
        """Write the cache atomically if anything changed; errors are swallowed on purpose."""
        if not self.enabled or not self._dirty:
            return
        cutoff = time.time() - MAX_AGE_SECONDS
        entries = {
            k: v
            for k, v in self._entries.items()
            if isinstance(v, dict) and type(v.get("t")) is int and v["t"] >= cutoff
        }
        facts = {
            k: v
            for k, v in self._facts.items()
            if _facts_from_record(v) is not None and v[2] >= cutoff
        }
        racy = (time.time() - RACY_SECONDS) * 1e9
        stats = {
            path: record
            for path, record in self._stats.items()
            if record[4] in facts and max(record[0], record[1]) < racy
        }
        payload = {
            "format": FORMAT,
            "version": __version__,
            "codes": self._codes,
            "entries": entries,
            "facts": facts,
            "stats": stats,
        }
        body = json.dumps(payload, separators=(",", ":")).encode()
        try:
            self._make_directory()
            if refusal(self.directory, ask_git=False) is not None:  # a link since we looked
                return
            remove_stale_temp_files(self.directory)
            atomic_write_bytes(self.path, seal(body, self._secret))
            self._prune()
        except OSError:
            pass

    def _prune(self) -> None:
        """Remove this directory's other cache files that this user's hybridlint wrote (their
        names authenticate) when unused for PRUNE_AGE_SECONDS or beyond the KEEP_OTHER_FILES
        most recently used. Only regular files, never through a link."""
        flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(self.directory, flags)
        try:
            ours = []
            current = os.path.basename(self.path)
            for name in os.listdir(fd):
                match = _NAME.match(name)
                if name == current or match is None:
                    continue
                if not hmac.compare_digest(match.group(2), self._tag(match.group(1))):
                    continue  # not a name this user's hybridlint chose
                try:
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                except OSError:
                    continue
                if stat.S_ISREG(st.st_mode):
                    ours.append((st.st_mtime, name))
            ours.sort(reverse=True)
            cutoff = time.time() - PRUNE_AGE_SECONDS
            for index, (mtime, name) in enumerate(ours):
                if index >= KEEP_OTHER_FILES or mtime < cutoff:
                    with contextlib.suppress(OSError):
                        os.unlink(name, dir_fd=fd)
        finally:
            os.close(fd)

    def _make_directory(self) -> None:
        """Create the directory (not through a link) with a ``.gitignore`` that ignores it."""
        try:
            os.mkdir(self.directory)
        except FileExistsError:
            pass
        ignore_file = os.path.join(self.directory, ".gitignore")
        try:
            fd = os.open(
                ignore_file,
                os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0),
                0o644,
            )
        except OSError as exc:
            if exc.errno != errno.EEXIST:
                raise
            return
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write("# Created by hybridlint automatically.\n*\n")


def _valid_stat_record(record: object) -> bool:
    """[four ints, a string]: a stat record as :meth:`LintCache.remember_signature` writes
    it (read for every file of a warm run: no generator per record)."""
    if not isinstance(record, list) or len(record) != 5:
        return False
    a, b, c, d, e = record
    return (
        type(a) is int
        and type(b) is int
        and type(c) is int
        and type(d) is int
        and (isinstance(e, str))
    )


def _facts_from_record(record: object) -> Optional[FileFacts]:
    """The FileFacts of a record as :meth:`LintCache.put_facts` writes it
    (``[defines, [[dots, module], ...], last used, [[dots, module], ...]]``: the imports,
    then the bases' imports), or None when it is not one."""
    if not isinstance(record, list) or len(record) != 4:
        return None
    defines, imports, used, bases = record
    if type(defines) is not bool or type(used) is not int:
        return None
    lists = [_module_pairs(imports), _module_pairs(bases)]
    if lists[0] is None or lists[1] is None:
        return None
    return FileFacts(defines, lists[0], lists[1])


def _module_pairs(items: object) -> Optional[Tuple[Tuple[str, str], ...]]:
    """A record's `[[dots, module], ...]` as pairs, None when it is not one."""
    if not isinstance(items, list):
        return None
    pairs = []
    for item in items:
        if not (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and isinstance(item[1], str)
        ):
            return None
        pairs.append((item[0], item[1]))
    return tuple(pairs)
