"""Moved to hybridlint/mxnet_facts.py (issue 22 item 2: one module of MXNet facts); this name
stays only until the rule modules still importing it from here are switched over."""

from ..mxnet_facts import (  # noqa: F401
    ADVICE,
    BINARY,
    NDARRAY_ONLY,
    OPS,
    SUBNAMESPACE_OPS,
    fixed_namespace_op,
    ndarray_only,
)
