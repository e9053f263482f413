"""Which files a run lints: walking directories, excludes, ``.gitignore`` and symlinks.

Rules (documented in README.md, "Configuration"):

* A directory is walked for ``*.py`` and ``*.pyi``; directories matching an exclude glob
  (``exclude``, default a ruff-like list such as ``.git``, ``.venv``, ``build``) are pruned.
* Directory symlinks are followed, but each real directory is entered once, so a link cycle
  cannot loop. File symlinks are followed; a file reached twice (directly and through a link)
  is linted once, under the first path found.
* ``.gitignore`` is respected through git itself: the files found below a directory argument are
  passed in one batch to ``git check-ignore --stdin`` (run in that directory). Outside a git
  work tree, or without git installed, nothing is filtered. git's semantics apply, so a tracked
  file is linted even if a pattern matches it.
* A file named explicitly on the command line is linted whatever its suffix and even if
  gitignored (as ruff does), but ``exclude``/``extend-exclude`` still apply to it so that
  pre-commit, which names files, honours the project's excludes.
* A path that does not exist is returned as missing; the runner reports it as HL902.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Set, Tuple

from .config import Config

SOURCE_SUFFIXES = (".py", ".pyi")


@dataclass
class Discovered:
    """The files to lint (display paths, in a stable order) and paths that do not exist."""

    files: List[str] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    # The os.stat of each file taken while finding it (none for a broken link).
    stats: Dict[str, os.stat_result] = field(default_factory=dict)


def discover(paths: Iterable[str], config: Config) -> Discovered:
    """Expand command-line paths into files to lint (see the module docstring for the rules)."""
    result = Discovered()
    seen_files: Set[Tuple[int, int]] = set()
    seen_dirs: Set[Tuple[int, int]] = set()

    def add(path: str) -> None:
        try:
            st = os.stat(path)
        except OSError:
            result.files.append(path)  # a broken link: let reading report HL902
            return
        key = (st.st_dev, st.st_ino)
        if key not in seen_files:
            seen_files.add(key)
            result.files.append(path)
            result.stats[path] = st

    for raw in paths:
        path = os.path.normpath(raw)
        if os.path.isdir(path):
            if config.is_excluded(path) and path != ".":
                continue
            for found in _filter_gitignored(path, _walk(path, config, seen_dirs)):
                add(found)
        elif os.path.lexists(path):
            if not config.is_excluded(path):
                add(path)
        else:
            result.missing.append(path)
    return result


def _walk(top: str, config: Config, seen_dirs: Set[Tuple[int, int]]) -> List[str]:
    """Source files below ``top``, sorted, pruning excluded and already-visited directories."""
    found: List[str] = []
    top_rel = os.path.relpath(os.path.abspath(top), config.root).replace(os.sep, "/")
    outside = top_rel == ".." or top_rel.startswith("../")
    for dirpath, dirnames, filenames in os.walk(top, followlinks=True):
        st = os.stat(dirpath)
        if (st.st_dev, st.st_ino) in seen_dirs:
            dirnames[:] = []
            continue
        seen_dirs.add((st.st_dev, st.st_ino))
        if outside:
            parent_rel = None
        else:
            below = os.path.relpath(dirpath, top).replace(os.sep, "/")
            parent_rel = "/".join(p for p in (top_rel, below) if p not in ("", "."))
        dirnames[:] = sorted(d for d in dirnames if not config.is_excluded_entry(parent_rel, d))
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES) and not config.is_excluded_entry(parent_rel, name):
                found.append(os.path.normpath(os.path.join(dirpath, name)))
    return found


def _filter_gitignored(top: str, files: List[str]) -> List[str]:
    """Drop the files git considers ignored; keep everything when git cannot tell."""
    if not files:
        return files
    prefix = "" if os.path.normpath(top) == "." else os.path.normpath(top) + os.sep
    relative = [f[len(prefix):] if f.startswith(prefix) else os.path.relpath(f, top)
                for f in files]
    try:
        proc = subprocess.run(
            ["git", "check-ignore", "--stdin", "-z"],
            cwd=top,
            input="\0".join(relative).encode("utf-8", "surrogateescape") + b"\0",
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            check=False,
        )
    except OSError:  # git is not installed
        return files
    if proc.returncode not in (0, 1):  # 128: not a work tree, or a path git refuses
        return files
    ignored = {
        os.path.normpath(p) for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p
    }
    return [f for f, rel in zip(files, relative) if os.path.normpath(rel) not in ignored]
