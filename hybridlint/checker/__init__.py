"""The equivalence checker: prove a block (or a fix) by running it eagerly and hybridized.

User code runs in a worker process with time and memory limits (see session.py); see
docs/architecture.md, "The equivalence checker", for the contract with the CLI.
"""

from .procs import import_numpy_shielded

import_numpy_shielded()  # before anything imports numpy: see procs.SignalShield

from .checks import (
    check_block,
    check_expression,
    check_file,
    check_fix,
    check_source,
    examples_from_pyproject,
)
from .inputs import (
    Example,
    ExampleError,
    InputList,
    InputSpec,
    Value,
    examples_from_config,
    parse_input_option,
    parse_kwarg_options,
    parse_target,
)
from .report import STATUSES, EquivalenceReport, OutputDiff, SourceLine, Status
from .session import DEFAULT_MEMORY_MB, DEFAULT_TIMEOUT, CheckerSession

__all__ = [
    "check_block",
    "check_fix",
    "check_file",
    "check_source",
    "check_expression",
    "examples_from_pyproject",
    "Example",
    "ExampleError",
    "InputSpec",
    "InputList",
    "Value",
    "examples_from_config",
    "parse_input_option",
    "parse_kwarg_options",
    "parse_target",
    "EquivalenceReport",
    "OutputDiff",
    "SourceLine",
    "Status",
    "STATUSES",
    "CheckerSession",
    "DEFAULT_TIMEOUT",
    "DEFAULT_MEMORY_MB",
    "verify_fixes",
    "VerifyOutcome",
    "RejectedFix",
]


def __getattr__(name):
    # verify_fixes needs the linter core; import it only when asked for.
    if name in ("verify_fixes", "VerifyOutcome", "RejectedFix"):
        from . import verify

        return getattr(verify, name)
    raise AttributeError(name)
