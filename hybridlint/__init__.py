"""hybridlint: find and fix MXNet Gluon code that breaks under hybridize()."""

__version__ = "0.1.0"

_API = (
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
    "CheckerSession",
)
# the data types that cross layers (hybridlint/ftypes.py), without importing the linter
_FTYPES = ("FixSafety", "FileOutcome", "RunResult")


def __getattr__(name):
    # Lazy: `import hybridlint` stays cheap for the CLI; the API loads on first use.
    if name in _FTYPES:
        from . import ftypes

        return getattr(ftypes, name)
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'hybridlint' has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + list(_API) + list(_FTYPES))
