"""Shape scalars used as values (issue 12): `/ x.shape[-1]`, `/ h.size`, `math.sqrt(q.shape[-1])`.

Not written yet: `plan_shape_scalar` finds no rewrite, so these findings are reported only.
"""
from __future__ import annotations

from typing import Optional, Tuple

import libcst as cst

Edits = Tuple[Tuple[cst.CSTNode, cst.CSTNode], ...]


def plan_shape_scalar(rule, attribute: cst.Attribute) -> Optional[Tuple[Edits, str]]:
    """The edits (and their safety) that keep `attribute`'s value in the graph, or None."""
    return None
