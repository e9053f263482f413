"""Which files a run lints: walking directories, excludes, ``.gitignore`` and symlinks.

Rules (documented in README.md, "Configuration"):

* A directory is walked for ``*.py``, ``*.pyi`` and ``*.ipynb``; directories matching an exclude glob
  (``exclude``, default a ruff-like list such as ``.git``, ``.venv``, ``build``) are pruned.
* Directory symlinks are followed, but each real directory is entered once, so a link cycle
  cannot loop. File symlinks are followed; a file reached twice (directly and through a link)
  is linted once, under the first path found.
* ``.gitignore`` is respected through git itself: the files found below a directory argument are
  passed in one batch to ``git check-ignore --stdin`` (run in that directory). Outside a git
  work tree, or without git installed, nothing is filtered. git's semantics apply, so a tracked
  file is linted even if a pattern matches it. The repository being linted is untrusted: git
  runs with the configuration keys that execute commands switched off (``core.fsmonitor``
  in ``.git/config`` would otherwise run on every ``hybridlint .``), see :func:`run_git`.
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
from .files import TEMP_PREFIX

SOURCE_SUFFIXES = (".py", ".pyi", ".ipynb")  # notebooks: code cells (hybridlint/notebook.py)


@dataclass
class Discovered:
    """The files to lint (display paths, in a stable order) and paths that do not exist."""

    files: List[str] = field(default_factory=list)
    missing: List[str] = field(default_factory=list)
    # The os.stat of each file taken while finding it (none for a broken link).
    stats: Dict[str, os.stat_result] = field(default_factory=dict)
    # Each walked directory's names that may be a killed --fix's temporary files (see
    # files.TEMP_PREFIX): the runner sweeps them without listing the directory again.
    temp_names: Dict[str, List[str]] = field(default_factory=dict)


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
            walked = _walk(path, config, seen_dirs, result.temp_names)
            for found in _filter_gitignored(path, walked):
                add(found)
        elif os.path.lexists(path):
            if not config.is_excluded(path):
                add(path)
        else:
            result.missing.append(path)
    return result


def _walk(
    top: str, config: Config, seen_dirs: Set[Tuple[int, int]], temp_names: Dict[str, List[str]]
) -> List[str]:
    """Source files below ``top``, sorted, pruning excluded and already-visited directories;
    fills ``temp_names`` (see :class:`Discovered`) for each directory it lists."""
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
        temp_names[os.path.normpath(dirpath)] = [n for n in filenames if n.startswith(TEMP_PREFIX)]
        for name in sorted(filenames):
            if name.endswith(SOURCE_SUFFIXES) and not config.is_excluded_entry(parent_rel, name):
                found.append(os.path.normpath(os.path.join(dirpath, name)))
    return found


# Repository configuration that makes read-only git commands execute programs: overridden on
# the command line, which wins over .git/config. core.fsmonitor runs a hook whenever the index
# is read (check-ignore and ls-files read it); the others are belt and braces.
_SAFE_GIT = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "core.pager=cat",
)


def run_git(args: List[str], cwd: str, stdin: bytes = b"") -> "subprocess.CompletedProcess":
    """Run a read-only git command on an untrusted repository (OSError without git).

    Configuration that runs programs is switched off, optional locks are not taken (a lint must
    not write ``.git/index``), and no prompt can wait for a terminal.
    """
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", GIT_TERMINAL_PROMPT="0")
    return subprocess.run(
        ["git", *_SAFE_GIT, *args],
        cwd=cwd,
        input=stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env=env,
        check=False,
    )


def git_tracked(directory: str, name: str) -> bool:
    """Whether git tracks ``name`` (a file, or anything below a directory) in ``directory``."""
    try:
        proc = run_git(["ls-files", "-z", "--", name], directory)
    except OSError:
        return False
    return proc.returncode == 0 and bool(proc.stdout)


def _filter_gitignored(top: str, files: List[str]) -> List[str]:
    """Drop the files git considers ignored; keep everything when git cannot tell."""
    if not files:
        return files
    prefix = "" if os.path.normpath(top) == "." else os.path.normpath(top) + os.sep
    relative = [
        f[len(prefix) :] if f.startswith(prefix) else os.path.relpath(f, top) for f in files
    ]
    try:
        proc = run_git(
            ["check-ignore", "--stdin", "-z"],
            top,
            "\0".join(relative).encode("utf-8", "surrogateescape") + b"\0",
        )
    except OSError:  # git is not installed
        return files
    if proc.returncode not in (0, 1):  # 128: not a work tree, or a path git refuses
        return files
    ignored = {
        os.path.normpath(p) for p in proc.stdout.decode("utf-8", "surrogateescape").split("\0") if p
    }
    return [f for f, rel in zip(files, relative) if os.path.normpath(rel) not in ignored]
