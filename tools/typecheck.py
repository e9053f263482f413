"""Run mypy over hybridlint, hybridlint.engine and hybridlint.rules with the repo's folder mapping.

The repo keeps engine/ and rules/ top-level and installs them as hybridlint.engine and
hybridlint.rules (setup.py's ROOTS, a setuptools `package_dir` mapping). mypy cannot follow that
mapping by itself:

- `mypy -p hybridlint` from the repo finds ./hybridlint, which has no engine/ or rules/ folder:
  every `from .rules import ...` / `from .engine import ...` is unresolved, and the two packages
  are not checked at all (181 errors hid there when this script was written);
- `mypy engine rules` names their modules `engine.*` and `rules.*`, other modules than the
  `hybridlint.engine.*` that hybridlint imports;
- the editable install resolves the mapping with an import hook (a `__editable__` finder), which
  mypy, a static tool, does not run; `mypy_path` and `explicit_package_bases` can only strip a
  folder prefix, not rename `engine` to `hybridlint/engine`;
- handing mypy each file with its module name (its build API's `BuildSource(path, module)`) is
  not enough either: `from . import name` (engine/__init__.py) asks whether the submodule exists
  on the search path, not among the sources, and mypy then reports spurious "module has no
  attribute" errors and misses real ones.

So this script builds the installed layout for mypy out of symlinks, build/mypy-tree/hybridlint/
(hybridlint/'s entries, plus engine -> ../../../engine and rules -> ../../../rules), from setup.py's
ROOTS (read from setup.py, the one place the mapping is written), puts it first on mypy's search
path (MYPYPATH) and runs `mypy -p hybridlint` with [tool.mypy] of pyproject.toml. mypy reads the
real files through the links; the paths in its messages are turned back into the repo's
(engine/ops/nn.py, not build/mypy-tree/hybridlint/engine/ops/nn.py), so editors and pre-commit
point at them. Nothing is installed or copied; it works without an install of hybridlint. The
tree is rebuilt on every run (new and removed modules are followed), and the script keeps its
own mypy cache (build/mypy-cache). Symlinks: POSIX (and Windows with developer mode).

    python tools/typecheck.py              # every error, then "Found N errors ..."; exit 1 if any
    python tools/typecheck.py --summary    # and the error count per package and per file
    python tools/typecheck.py --no-incremental ...   # other arguments go to mypy

A bare `mypy` run checks nothing useful ([tool.mypy] names no files): run this instead.
"""

from __future__ import annotations

import ast
import os
import shutil
import sys
from collections import Counter

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def package_roots() -> dict[str, str]:
    """setup.py's ROOTS (package name -> folder), read without running setup.py."""
    with open(os.path.join(REPO, "setup.py"), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "ROOTS" for t in node.targets
        ):
            return dict(ast.literal_eval(node.value))
    raise SystemExit("tools/typecheck.py: no ROOTS mapping found in setup.py")


TREE = os.path.join("build", "mypy-tree")  # relative to the repo; build/ is git-ignored


def _link(source: str, link: str) -> None:
    """Make `link` a symlink to `source` (relative), leaving it alone when it already is one:
    two runs at once (pre-commit and an editor, say) must not pull the tree from under each
    other, so the tree is updated in place, never deleted and rebuilt."""
    try:
        if os.readlink(link) == source:
            return
        os.unlink(link)
    except FileNotFoundError:
        pass
    except OSError:  # not a symlink: a folder left by an older layout
        shutil.rmtree(link, ignore_errors=True)
    try:
        os.symlink(source, link)
    except FileExistsError:  # another run made it meanwhile
        pass


def link_tree() -> str:
    """build/mypy-tree/hybridlint/: the installed package's layout, made of symlinks.

    Each package of setup.py's ROOTS becomes a folder of the tree whose entries are symlinks
    to the entries of its source folder; a subpackage that is a whole source folder (engine/,
    rules/) is one symlink. Brought up to date on every run, so new and deleted modules are
    followed."""
    roots = package_roots()
    for package, folder in roots.items():
        target = os.path.join(TREE, *package.split("."))
        parent = os.path.dirname(target)
        os.makedirs(parent, exist_ok=True)
        if any(p.startswith(package + ".") for p in roots):  # a package with mapped children
            if os.path.islink(target):
                os.unlink(target)
            os.makedirs(target, exist_ok=True)
            children = {p.rsplit(".", 1)[1] for p in roots if p.startswith(package + ".")}
            entries = {
                e for e in os.listdir(folder) if not e.startswith((".", "__pycache__"))
            } - children
            for stale in set(os.listdir(target)) - entries - children:
                path = os.path.join(target, stale)
                if os.path.islink(path):
                    os.unlink(path)
                else:
                    shutil.rmtree(path, ignore_errors=True)
            for entry in sorted(entries):
                _link(
                    os.path.relpath(os.path.join(folder, entry), target),
                    os.path.join(target, entry),
                )
        else:
            _link(os.path.relpath(folder, parent), target)
    return TREE


def source_path(line: str, roots: dict) -> str:
    """A mypy message with the tree's paths (build/mypy-tree/hybridlint/engine/x.py) turned
    back into the repo's (engine/x.py)."""
    for package in sorted(roots, key=len, reverse=True):
        prefix = os.path.join(TREE, *package.split(".")) + os.sep
        if prefix in line:
            return line.replace(prefix, roots[package] + os.sep)
    return line


def main(argv: list[str]) -> int:
    from mypy import api

    summary = "--summary" in argv
    argv = [a for a in argv if a != "--summary"]
    os.chdir(REPO)
    roots = package_roots()
    tree = link_tree()
    # The tree comes first on mypy's search path: the current directory is on it too, and its
    # ./hybridlint has no engine/ or rules/.
    env_path = os.environ.get("MYPYPATH")
    os.environ["MYPYPATH"] = tree + (os.pathsep + env_path if env_path else "")
    packages = [a for package in roots if "." not in package for a in ("-p", package)]
    # Its own cache: one written by a bare `mypy` run (other paths, same modules) can crash it.
    cache = ["--cache-dir", os.path.join("build", "mypy-cache")]
    stdout, stderr, status = api.run(["--config-file", "pyproject.toml", *cache, *argv, *packages])
    sys.stderr.write(stderr)
    lines = [source_path(line, roots) for line in stdout.splitlines()]
    print("\n".join(lines))
    if summary:
        errors = [line for line in lines if ": error:" in line]
        per_file = Counter(line.split(":", 1)[0] for line in errors)
        folder_package = {folder: package for package, folder in roots.items()}
        per_package: Counter[str] = Counter()
        for path, n in per_file.items():
            per_package[folder_package.get(path.split(os.sep, 1)[0], "?")] += n
        for package in roots:
            print(f"mypy errors in {package}: {per_package[package]}")
        for path, n in sorted(per_file.items(), key=lambda item: (-item[1], item[0])):
            print(f"{n:5d}  {path}")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
