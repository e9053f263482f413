"""mx.name: automatic naming of symbol nodes (`fullyconnected0`, `_plus1`) and name prefixes."""

import threading

__all__ = ["NameManager", "Prefix", "current"]


class NameManager:
    """Hands out `hint + counter` names; `with NameManager():` gives a fresh counter scope."""

    _local = threading.local()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint: str) -> str:
        if name:
            return name
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return "%s%d" % (hint, n)

    def __enter__(self):
        self._old_manager = current()
        NameManager._local.value = self
        return self

    def __exit__(self, *exc):
        NameManager._local.value = self._old_manager


class Prefix(NameManager):
    """Prepends a prefix to every name (gluon's `name_scope`)."""

    def __init__(self, prefix: str):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint: str) -> str:
        return self._prefix + super().get(name, hint)


_DEFAULT = NameManager()


def current() -> NameManager:
    """The NameManager in effect in this thread."""
    return getattr(NameManager._local, "value", None) or _DEFAULT
