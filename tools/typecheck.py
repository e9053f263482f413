"""Run mypy over hybridlint, hybridlint.engine and hybridlint.rules with the repo's folder mapping.

The repo keeps engine/ and rules/ top-level and installs them as hybridlint.engine and
hybridlint.rules (setup.py's ROOTS, a setuptools `package_dir` mapping). mypy cannot follow that
mapping by itself:

- `mypy -p hybridlint` from the repo finds ./hybridlint, which has no engine/ or rules/ folder:
  every `from .rules import ...` / `from .engine import ...` is unresolved and about 140 errors in
  those two packages stay hidden;
- `mypy engine rules` names their modules `engine.*` and `rules.*`, other modules than the
  `hybridlint.engine.*` that hybridlint imports;
- the editable install resolves the mapping with an import hook (a `__editable__` finder), which
  mypy, a static tool, does not run; `mypy_path` and `explicit_package_bases` can only strip a
  folder prefix, not rename `engine` to `hybridlint/engine`.

So this script hands mypy the module name of every file itself: it walks the three folders of
setup.py's ROOTS (read from setup.py, the one place the mapping is written) and passes each file to
mypy's build as a `BuildSource(path, module)`, with the options of [tool.mypy] in pyproject.toml.
Errors name the real files (engine/ops/nn.py, not a copy), so editors and pre-commit point at
them. Nothing is installed or copied; it works without an install of hybridlint.

    python tools/typecheck.py              # every error, then "Found N errors ..."; exit 1 if any
    python tools/typecheck.py --summary    # and the error count per package and per file
    python tools/typecheck.py --no-incremental ...   # other arguments go to mypy

It uses mypy's programmatic build API (mypy.main.process_options, mypy.build.build), which is
stable but not covered by mypy's compatibility promise: mypy is pinned in pyproject.toml's `dev`
extra, and this is the one place to adjust when the pin moves.
"""

from __future__ import annotations

import ast
import os
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


def module_files() -> list[tuple[str, str]]:
    """(path relative to the repo, module name) of every module of the installed package."""
    out = []
    for package, folder in package_roots().items():
        for dirpath, dirnames, filenames in os.walk(folder):
            # the same walk as setup.py: packages are folders with an __init__.py
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
            if "__init__.py" not in filenames:
                continue
            rel = os.path.relpath(dirpath, folder)
            base = package if rel == "." else package + "." + rel.replace(os.sep, ".")
            for name in sorted(filenames):
                stem, ext = os.path.splitext(name)
                if ext not in (".py", ".pyi"):
                    continue
                module = base if stem == "__init__" else base + "." + stem
                out.append((os.path.join(dirpath, name), module))
    return out


def main(argv: list[str]) -> int:
    from mypy import build
    from mypy.errors import CompileError
    from mypy.fscache import FileSystemCache
    from mypy.main import process_options
    from mypy.modulefinder import BuildSource

    summary = "--summary" in argv
    argv = [a for a in argv if a != "--summary"]
    os.chdir(REPO)
    fscache = FileSystemCache()
    _, options = process_options(
        ["--config-file", "pyproject.toml", *argv], require_targets=False, fscache=fscache
    )
    files = module_files()
    sources = [BuildSource(path, module, None) for path, module in files]
    try:
        result = build.build(sources, options, fscache=fscache, stdout=sys.stdout, stderr=sys.stderr)
        messages = result.errors
    except CompileError as e:  # a blocking error (a syntax error, say): mypy stops there
        print("\n".join(e.messages), file=sys.stderr)
        return 2
    for line in messages:
        print(line)
    errors = [m for m in messages if ": error:" in m]
    per_file = Counter(m.split(":", 1)[0] for m in errors)
    if summary:
        folder_package = {folder: package for package, folder in package_roots().items()}
        per_package: Counter[str] = Counter()
        for path, n in per_file.items():
            per_package[folder_package.get(path.split("/", 1)[0], "?")] += n
        for package in package_roots():
            print(f"mypy errors in {package}: {per_package[package]}")
        for path, n in sorted(per_file.items(), key=lambda item: (-item[1], item[0])):
            print(f"{n:5d}  {path}")
    if errors:
        print(
            f"Found {len(errors)} error{'s' if len(errors) != 1 else ''} in {len(per_file)} "
            f"file{'s' if len(per_file) != 1 else ''} (checked {len(files)} source files)"
        )
        return 1
    print(f"Success: no issues found in {len(files)} source files")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
