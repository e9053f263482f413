"""hybridlint's public Python API: lint, fix, and prove fixes by running the code.

    from hybridlint.api import lint_source, fix_source, check_block, check_fix, check_file

Linting and fixing never run user code. The check_* functions do, in a separate worker
process with a time and a memory limit (see hybridlint.checker.session).
"""

from hybridlint.checker import (
    CheckerSession,
    EquivalenceReport,
    Example,
    InputList,
    InputSpec,
    OutputDiff,
    SourceLine,
    Value,
    check_block,
    check_expression,
    check_file,
    check_fix,
    verify_fixes,
)
from hybridlint.linter import Finding, FixResult, fix_source, lint_source

__all__ = [
    "lint_source",
    "fix_source",
    "Finding",
    "FixResult",
    "check_block",
    "check_fix",
    "check_file",
    "check_expression",
    "verify_fixes",
    "EquivalenceReport",
    "OutputDiff",
    "SourceLine",
    "Example",
    "InputSpec",
    "InputList",
    "Value",
    "CheckerSession",
]
