"""Which keyword of an `F.<op>(...)` call is an operator attribute (a Python value), from the
argument types MXNet 1.9.1 declares (hybridlint/mxnet_names.py, generated).

MXNet passes an attribute to the operator as a string: an int, float, bool, string or tuple
works, an array does not (`F.one_hot(x, depth=nd.array([4]))` raises `Invalid Parameter format
for depth expect int`, hybridized with the Symbol's name in place of a number), eagerly and
hybridized alike.
"""

from __future__ import annotations

from typing import FrozenSet, Optional

from ..mxnet_names import ARRAY_ARGUMENTS, OPERATORS, SIGNATURES

# `F.<sub>.<op>` is the registry's `_<sub>_<op>`; `random` and `sparse` functions are Python
# wrappers whose keywords are not the registry's, so they are left out.
_PREFIXES = {"contrib": "_contrib_", "linalg": "_linalg_", "image": "_image_"}


def _registry_name(dotted: str) -> Optional[str]:
    """`F.one_hot` -> `one_hot`, `F.contrib.box_nms` -> `_contrib_box_nms`, else None (a
    Python-defined function, an unknown name)."""
    parts = dotted.split(".")[1:]
    if len(parts) == 1:
        op = parts[0]
        return op if op in OPERATORS and op not in SIGNATURES else None
    if len(parts) == 2 and parts[0] in _PREFIXES:
        op = _PREFIXES[parts[0]] + parts[1]
        return op if op in OPERATORS else None
    return None


def attribute_keywords(dotted: str) -> FrozenSet[str]:
    """The keywords of the operator `dotted` names (`F.one_hot`) that are attributes."""
    op = _registry_name(dotted)
    if op is None:
        return frozenset()
    return frozenset(OPERATORS[op]) - frozenset(ARRAY_ARGUMENTS.get(op, OPERATORS[op]))
