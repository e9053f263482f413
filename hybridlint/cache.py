"""Content-hash cache of lint results, so an unchanged repo re-lints in a blink.

One JSON file per (hybridlint version, linter/rule sources, rule selection) under
``.hybridlint_cache/`` at the project root. Inside, results are keyed by a hash of the file's
bytes plus the per-file settings (per-file-ignores), never by path or mtime, so a renamed or
touched file still hits and an edited one always misses. The rule sources are hashed (not just
the version) so that an editable install invalidates the cache the moment a rule changes.
The cache also remembers the list of rule codes, which spares a warm run from importing LibCST.
A corrupt or unreadable cache is treated as empty; failing to save it is never an error.

Reading and hashing every file is most of a warm run, so, as git's index does, the cache also
remembers each path's stat signature (mtime, ctime, size, inode) with the content key it had:
an unchanged signature stands for unchanged bytes. ctime cannot be set back by tools that
preserve mtime, and a signature taken within RACY_SECONDS of saving is not kept (a file
rewritten in the same clock tick as its stat would otherwise look unchanged).
"""
from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import time
from typing import Any, Dict, List, Optional

from . import __version__
from .files import atomic_write_bytes

CACHE_DIR = ".hybridlint_cache"
FORMAT = 1
MAX_AGE_SECONDS = 14 * 24 * 3600  # entries unused this long are dropped on save
RACY_SECONDS = 2
# Modules of hybridlint/ whose code decides what a cached result contains.
RESULT_SOURCES = ("linter.py", "toplevel.py", "runner.py", "files.py", "config.py", "cache.py", "__init__.py")


def content_key(raw: bytes, file_settings: str = "") -> str:
    """The cache key of one file: its bytes and the settings that apply to it alone."""
    # sha256: hardware-accelerated on current CPUs, about twice as fast as blake2b here.
    digest = hashlib.sha256(raw)
    digest.update(b"\0" + file_settings.encode("utf-8"))
    return digest.hexdigest()[:32]


def stat_signature(path: str) -> Optional[List[int]]:
    """What changes whenever a file's bytes change, without reading them (None if unknown)."""
    try:
        return signature_of(os.stat(path))
    except OSError:
        return None


def signature_of(st: os.stat_result) -> List[int]:
    """The stat signature of a stat result already at hand (see :func:`stat_signature`)."""
    return [st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino]


def rules_digest() -> str:
    """A hash of hybridlint's version and of the sources that decide a file's findings.

    Those are the linter core, the runner and file decoding (``hybridlint/``) and the rules
    package; the CLI, reporters and checker do not change what is cached. Found with
    ``find_spec`` so that ``hybridlint.rules`` (and LibCST) are not imported.
    """
    digest = hashlib.blake2b(__version__.encode(), digest_size=12)
    package = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.join(package, name) for name in RESULT_SOURCES]
    spec = importlib.util.find_spec("hybridlint.rules")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if d not in ("__pycache__", "tests"))
            paths.extend(os.path.join(dirpath, n) for n in sorted(filenames) if n.endswith(".py"))
    for path in paths:
        digest.update(os.path.basename(path).encode())
        try:
            with open(path, "rb") as handle:
                digest.update(handle.read())
        except OSError:
            digest.update(b"<missing>")
    return digest.hexdigest()


class LintCache:
    """Lint results by content key, loaded once and saved once per run."""

    def __init__(self, root: str, settings_key: str, *, enabled: bool = True):
        self.enabled = enabled
        self.directory = os.path.join(root, CACHE_DIR)
        self._rules = rules_digest() if enabled else ""
        name = hashlib.blake2b(
            f"{FORMAT}\0{self._rules}\0{settings_key}".encode(), digest_size=10
        ).hexdigest()
        self.path = os.path.join(self.directory, f"lint-{name}.json")
        self._entries: Dict[str, Dict[str, Any]] = {}
        self._stats: Dict[str, List[Any]] = {}  # path -> [*signature, settings, content key]
        self._codes: Optional[List[str]] = None
        self._dirty = False
        if enabled:
            self._load()

    def _load(self) -> None:
        try:
            with open(self.path, "rb") as handle:
                data = json.loads(handle.read())
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            return
        entries = data.get("entries")
        if isinstance(entries, dict):
            self._entries = entries
        codes = data.get("codes")
        if isinstance(codes, list):
            self._codes = codes
        stats = data.get("stats")
        if isinstance(stats, dict):  # a malformed record is dropped, never trusted or crashed on
            self._stats = {path: record for path, record in stats.items()
                           if isinstance(record, list) and len(record) == 6
                           and all(isinstance(n, int) for n in record[:4])
                           and all(isinstance(t, str) for t in record[4:])}

    def key_for_signature(self, path: str, signature: Optional[List[int]], settings: str) -> Optional[str]:
        """The content key recorded for `path` when it had this stat signature, or None."""
        if not self.enabled or signature is None:
            return None
        record = self._stats.get(path)
        if record is not None and record[:4] == signature and record[4] == settings:
            return record[5]
        return None

    def remember_signature(self, path: str, signature: Optional[List[int]], settings: str,
                           key: str) -> None:
        """Record which content key `path` had with this stat signature."""
        if self.enabled and signature is not None:
            record = signature + [settings, key]
            if self._stats.get(path) != record:
                self._stats[path] = record
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

    def get(self, key: str) -> Optional[Dict[str, Any]]:
        """The cached result for a content key, or None."""
        if not self.enabled:
            return None
        entry = self._entries.get(key)
        if entry is None:
            return None
        entry["t"] = int(time.time())
        return entry["r"]

    def put(self, key: str, result: Dict[str, Any]) -> None:
        """Remember a JSON-serialisable result for a content key."""
        if self.enabled:
            self._entries[key] = {"r": result, "t": int(time.time())}
            self._dirty = True

    def save(self) -> None:
        """Write the cache atomically if anything changed; errors are swallowed on purpose."""
        if not self.enabled or not self._dirty:
            return
        cutoff = time.time() - MAX_AGE_SECONDS
        entries = {k: v for k, v in self._entries.items() if v.get("t", 0) >= cutoff}
        racy = (time.time() - RACY_SECONDS) * 1e9
        stats = {path: record for path, record in self._stats.items()
                 if record[5] in entries and max(record[0], record[1]) < racy}
        payload = {"format": FORMAT, "version": __version__, "codes": self._codes,
                   "entries": entries, "stats": stats}
        try:
            os.makedirs(self.directory, exist_ok=True)
            ignore_file = os.path.join(self.directory, ".gitignore")
            if not os.path.exists(ignore_file):
                with open(ignore_file, "w", encoding="utf-8") as handle:
                    handle.write("# Created by hybridlint automatically.\n*\n")
            atomic_write_bytes(self.path, json.dumps(payload, separators=(",", ":")).encode())
        except OSError:
            pass
