"""Import user source text as a module under a backend (the engine or real MXNet).

Runs inside the worker process only. The source text is compiled with the user's path as its
filename and registered in `linecache`, so tracebacks and the engine's per-node source lines
point at the user's code even when the text (a candidate fix) was never written to disk.
"""

from __future__ import annotations

import contextlib
import importlib
import itertools
import linecache
import os
import sys
import types
from typing import Iterator

BACKENDS = ("engine", "mxnet")
_counter = itertools.count()


class BackendUnavailable(RuntimeError):
    """The requested backend cannot be imported (real MXNet missing, engine incomplete)."""


@contextlib.contextmanager
def backend(name: str) -> Iterator[types.ModuleType]:
    """Make `import mxnet` mean `name` for the code run inside; yields that mxnet module."""
    if name == "engine":
        try:
            from hybridlint.engine import as_mxnet
        except ImportError as exc:
            raise BackendUnavailable(
                f"the bundled engine cannot redirect `import mxnet`: {exc}"
            ) from exc
        with as_mxnet():
            yield importlib.import_module("mxnet")
    elif name == "mxnet":
        try:
            import mxnet
        except ImportError as exc:
            raise BackendUnavailable(
                f"backend 'mxnet' needs real MXNet 1.9.1 (pip install 'hybridlint[mxnet]'): {exc}"
            ) from None
        yield mxnet
    else:
        raise BackendUnavailable(f"unknown backend {name!r}; use one of {', '.join(BACKENDS)}")


def load_source(source: str, filename: str) -> types.ModuleType:
    """Execute `source` as a fresh module; its functions report `filename` in tracebacks.

    Exceptions of the user's module (ImportError, SyntaxError, SystemExit, ...) propagate: the
    caller turns them into a `cannot_run` report.
    """
    name = f"_hybridlint_user_{next(_counter)}"
    module = types.ModuleType(name)
    module.__file__ = filename
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)
    code = compile(source, filename, "exec", dont_inherit=True)
    folder = os.path.dirname(os.path.abspath(filename))
    if os.path.isdir(folder) and folder not in sys.path:
        sys.path.append(folder)  # sibling imports of the user's package
    sys.modules[name] = module
    exec(code, module.__dict__)
    return module
