"""Operator definitions by family; importing this package registers them all.

Every module in this folder is imported (sorted by name), and registers its ops with
`registry.register` at import time; a new family is just a new file here.
See docs/architecture.md, "How to add an op".
"""

import importlib
import pkgutil

for _info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    if not _info.name.startswith("_"):
        importlib.import_module(__name__ + "." + _info.name)
