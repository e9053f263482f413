"""Package discovery for the folder-to-namespace mapping of this repo.

The repo keeps engine/ and rules/ top-level (the design's layout) but installs them as
hybridlint.engine and hybridlint.rules, so nothing called `engine` or `rules` lands in a
user's site-packages. setuptools' automatic discovery cannot follow such a mapping, so the
subpackages are found here by walking the three source folders; the rest is pyproject.toml.
"""

import os

from setuptools import setup

ROOTS = {"hybridlint": "hybridlint", "hybridlint.engine": "engine", "hybridlint.rules": "rules"}


def _package_dirs():
    dirs = {}
    for name, folder in ROOTS.items():
        for dirpath, dirnames, filenames in os.walk(folder):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith((".", "__")))
            if "__init__.py" in filenames:
                rel = os.path.relpath(dirpath, folder)
                dirs[name if rel == "." else name + "." + rel.replace(os.sep, ".")] = dirpath
    return dirs


PACKAGE_DIRS = _package_dirs()
setup(packages=sorted(PACKAGE_DIRS), package_dir=PACKAGE_DIRS)
