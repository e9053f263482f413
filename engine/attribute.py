"""mx.AttrScope: attributes every Symbol created inside the scope carries.

The engine needs it for one reason MXNet has too: `contrib.foreach` (and `while_loop`, `cond`)
trace their body inside `AttrScope(__subgraph_name__=...)`, and that attribute is how the loop
tells nodes the body created (its subgraph) from Symbols the body only refers to (cut out and
fed in as inputs). The attribute is kept in exported graph JSON, as MXNet writes it.
"""

import threading
from typing import Dict, Optional

__all__ = ["AttrScope", "current"]


class AttrScope:
    """`with AttrScope(group="4"):` gives every Symbol created inside these attributes (an
    inner scope adds to the outer one's). Values must be strings, as in MXNet."""

    _local = threading.local()

    def __init__(self, **kwargs: str):
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError("Attributes need to be string")
        self._attr: Dict[str, str] = dict(kwargs)
        self._old_scope: Optional["AttrScope"] = None

    def get(self, attr: Optional[Dict[str, str]]) -> Dict[str, str]:
        """The scope's attributes updated with `attr` (the caller's own win)."""
        if not self._attr:
            return dict(attr) if attr else {}
        merged = dict(self._attr)
        if attr:
            merged.update(attr)
        return merged

    def __enter__(self) -> "AttrScope":
        self._old_scope = current()
        merged = dict(self._old_scope._attr)
        merged.update(self._attr)
        self._attr = merged
        AttrScope._local.value = self
        return self

    def __exit__(self, *exc) -> None:
        AttrScope._local.value = self._old_scope


_DEFAULT = AttrScope()


def current() -> AttrScope:
    """The AttrScope in effect in this thread."""
    return getattr(AttrScope._local, "value", None) or _DEFAULT
