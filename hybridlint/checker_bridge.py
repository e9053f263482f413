"""The one place the product surface reaches into the equivalence checker.

The checker (``hybridlint.checker``, another developer's part) is optional at run time: it is
imported lazily, only for ``--verify`` and ``hybridlint verify``, and when it cannot be imported
the user gets one clear "verification is not available" error (exit 2) instead of a traceback.
The names used here are the checker's contract in docs/architecture.md.
"""
from __future__ import annotations

import os
from typing import Any, List

from .config import Config


class VerificationUnavailable(Exception):
    """The checker cannot be imported (not installed, or broken)."""


REQUIRED = ("verify_fixes", "check_file", "examples_from_config", "parse_target",
            "parse_input_option", "parse_kwarg_options", "Example")


def load_checker() -> Any:
    """Import ``hybridlint.checker`` and check it offers what the CLI calls."""
    try:
        from . import checker
    except Exception as exc:  # any import-time failure means the same thing to the user
        raise VerificationUnavailable(
            f"verification is not available: hybridlint.checker cannot be imported ({exc})"
        ) from exc
    missing = [name for name in REQUIRED if not hasattr(checker, name)]
    if missing:
        raise VerificationUnavailable(
            "verification is not available: hybridlint.checker lacks " + ", ".join(missing)
        )
    return checker


def examples_for(config: Config, path: str) -> List[Any]:
    """The configured ``examples`` (``[tool.hybridlint.examples]``) for one file.

    The checker parses the table (``examples_from_config``) and keys it by the path as written
    in the configuration, relative to the project root.
    """
    checker = load_checker()
    table = checker.examples_from_config(dict(config.examples))
    rel = config.relpath(path)
    for key, examples in table.items():
        if os.path.normpath(key).replace(os.sep, "/") == rel:
            return list(examples)
    return []
