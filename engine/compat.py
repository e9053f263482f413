"""`as_mxnet()`: run unmodified MXNet user code on the bundled engine.

Inside the context, `import mxnet` and any `mxnet.X.Y` resolve to proxies of the engine's
modules (`mxnet.nd`/`mxnet.ndarray` -> `hybridlint.engine.ndarray`, `mxnet.sym` -> `symbol`,
`mxnet.init` -> `initializer`, ...). A proxy forwards attribute access to its engine module and
turns a missing attribute into `NotImplementedError("hybridlint engine does not implement
mxnet.X yet")`, and importing a submodule the engine lacks raises the same, so the checker can
report "cannot verify" instead of a wrong verdict. On exit every `mxnet*` entry of
`sys.modules` is put back as it was (a real MXNet, if one was imported, comes back); modules
imported inside keep their proxies and keep running on the engine.
"""
import contextlib
import importlib
import importlib.abc
import importlib.util
import sys
import threading
import types
from typing import Dict, Iterator

from .base import engine_not_implemented

__all__ = ["as_mxnet", "proxy_of", "ENGINE_PACKAGE"]

ENGINE_PACKAGE = __name__.rsplit(".", 1)[0]        # "hybridlint.engine"

# mxnet names that are aliases of differently named engine modules.
_ALIASES = {"nd": "ndarray", "sym": "symbol", "init": "initializer"}

_LOCK = threading.RLock()
_PROXIES: Dict[int, "_MXNetProxy"] = {}          # id(engine module) -> its proxy


def _is_mxnet(name: str) -> bool:
    return name == "mxnet" or name.startswith("mxnet.")


def _engine_name(mx_name: str) -> str:
    """`mxnet.gluon.nn` -> `hybridlint.engine.gluon.nn`, resolving nd/sym/init aliases."""
    parts = mx_name.split(".")[1:]
    parts = [_ALIASES.get(p, p) if i == 0 else p for i, p in enumerate(parts)]
    return ".".join([ENGINE_PACKAGE] + parts)


class _MXNetProxy(types.ModuleType):
    """An `mxnet.*` module standing for an engine module (attributes are looked up there)."""

    def __init__(self, mx_name: str, target: types.ModuleType):
        super().__init__(mx_name, getattr(target, "__doc__", None))
        object.__setattr__(self, "_hl_target", target)
        if hasattr(target, "__path__"):
            self.__path__ = []
        self.__file__ = getattr(target, "__file__", None)

    def __getattr__(self, name: str):
        target = object.__getattribute__(self, "_hl_target")
        if name.startswith("__") and name.endswith("__"):
            return getattr(target, name)
        try:
            value = getattr(target, name)
        except AttributeError:
            if name in getattr(target, "_ABSENT_IN_MXNET", ()):
                raise AttributeError("module '%s' has no attribute '%s'" % (
                    self.__name__, name)) from None   # absent in MXNet too: a user error
            engine_not_implemented(self.__name__[len("mxnet."):] + "." + name
                                   if self.__name__ != "mxnet" else name)
        if isinstance(value, types.ModuleType) and value.__name__.startswith(ENGINE_PACKAGE):
            value = _proxy_for("%s.%s" % (self.__name__, name), value)
        if callable(value) or isinstance(value, types.ModuleType):
            self.__dict__[name] = value   # ops and classes do not change: later lookups are direct
        return value

    def __dir__(self):
        return dir(object.__getattribute__(self, "_hl_target"))

    def __repr__(self) -> str:
        return "<module '%s' (hybridlint engine)>" % self.__name__


def _proxy_for(mx_name: str, target: types.ModuleType) -> _MXNetProxy:
    """The one proxy of an engine module, named canonically (`mxnet.ndarray`, not `mxnet.nd`)."""
    with _LOCK:
        proxy = _PROXIES.get(id(target))
        if proxy is None:
            if target.__name__.startswith(ENGINE_PACKAGE):
                mx_name = "mxnet" + target.__name__[len(ENGINE_PACKAGE):]
            proxy = _MXNetProxy(mx_name, target)
            _PROXIES[id(target)] = proxy
        return proxy


def proxy_of(module: types.ModuleType) -> types.ModuleType:
    """The `mxnet.*` proxy of an engine module (the same object `import mxnet...` yields).

    Gluon passes these as `F` to hybrid_forward, so `F.__name__` is `mxnet.ndarray` /
    `mxnet.symbol` as in MXNet, `F is mx.sym` holds for code run under as_mxnet(), and an op
    the engine lacks raises NotImplementedError rather than AttributeError.
    """
    return _proxy_for("mxnet" + module.__name__[len(ENGINE_PACKAGE):], module)


class _ProxyLoader(importlib.abc.Loader):
    def __init__(self, proxy: _MXNetProxy):
        self._proxy = proxy

    def create_module(self, spec):
        return self._proxy

    def exec_module(self, module) -> None:
        """Nothing to run: the engine module is already imported."""


class _MXNetFinder(importlib.abc.MetaPathFinder):
    """Answers every `mxnet*` import with an engine proxy, or says the engine lacks it."""

    def find_spec(self, fullname, path=None, target=None):
        if not _is_mxnet(fullname):
            return None
        engine_name = _engine_name(fullname)
        try:
            engine_module = importlib.import_module(engine_name)
        except ModuleNotFoundError as err:
            if err.name is not None and not engine_name.startswith(err.name) and \
                    not err.name.startswith(engine_name):
                raise
            engine_not_implemented(fullname[len("mxnet."):] if fullname != "mxnet" else "")
        proxy = _proxy_for(fullname, engine_module)
        is_pkg = hasattr(engine_module, "__path__")
        return importlib.util.spec_from_loader(fullname, _ProxyLoader(proxy), is_package=is_pkg)


@contextlib.contextmanager
def as_mxnet() -> Iterator[types.ModuleType]:
    """Make `import mxnet` (and its submodules) resolve to the engine inside the block.

    Yields the `mxnet` proxy. Nested use is fine; every exit restores `sys.modules`.
    """
    finder = _MXNetFinder()
    with _LOCK:
        saved = {k: v for k, v in sys.modules.items() if _is_mxnet(k)}
        for k in saved:
            del sys.modules[k]
        sys.meta_path.insert(0, finder)
    try:
        yield importlib.import_module("mxnet")
    finally:
        with _LOCK:
            try:
                sys.meta_path.remove(finder)
            except ValueError:
                pass
            for k in [k for k in sys.modules if _is_mxnet(k)]:
                del sys.modules[k]
            sys.modules.update(saved)
