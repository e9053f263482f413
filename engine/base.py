"""Errors and small shared helpers of the engine, with MXNet 1.9.1's exception types.

MXNet raises `MXNetError` (a RuntimeError) for operator failures and `NotImplementedForSymbol`
for NDArray-only operations on a Symbol; code that catches those must catch ours too.
"""

from typing import NoReturn, Optional, Tuple

import numpy as np

__all__ = [
    "MXNetError",
    "NotImplementedForSymbol",
    "EngineGap",
    "MissingOperator",
    "engine_not_implemented",
    "mx_real_t",
    "string_types",
    "numeric_types",
    "integer_types",
    "_Null",
]

mx_real_t = np.float32
string_types = (str,)
numeric_types = (float, int, np.generic)
integer_types = (int, np.integer)


class _NullType:
    """Placeholder for 'argument not given', printed as MXNet prints it in signatures."""

    def __repr__(self) -> str:
        return "_Null"


_Null = _NullType()


class MXNetError(RuntimeError):
    """Default error thrown by engine operators (same base class as MXNet's)."""

    # (file, line, text) of the user's line that made the failing node, for the checker; other
    # exceptions the engine re-raises carry it too (`getattr(err, "source_line", None)`).
    source_line: Optional[Tuple[str, int, str]] = None


class NotImplementedForSymbol(MXNetError):
    """An NDArray-only function or operator was used on a Symbol."""

    def __init__(self, function, alias, *args):
        super().__init__()
        self.function = function.__name__
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self) -> str:
        msg = "Function {}".format(self.function)
        if self.alias:
            msg += ' (namely operator "{}")'.format(self.alias)
        if self.args:
            msg += " with arguments ({})".format(", ".join(self.args))
        msg += " is not implemented for Symbol and only available in NDArray."
        return msg


class EngineGap(NotImplementedError):
    """A part of MXNet's API the engine lacks: the code cannot be verified on the engine, which
    says nothing about the code. The checker recognises gaps by this type (or a gap as the
    `__cause__` of what it caught), never by message text."""


class MissingOperator(MXNetError, EngineGap):
    """An operator the engine's registry lacks (a graph file naming it, say): an MXNetError,
    as MXNet raises for an operator it cannot find, and an engine gap."""


def _type_name(value: object) -> str:
    """`str(type(value))` as MXNet's messages print it: the engine's own classes under the
    module paths they mirror (`<class 'mxnet.ndarray.ndarray.NDArray'>`), not the engine's."""
    text = str(type(value))
    return text.replace("'hybridlint.engine.", "'mxnet.", 1)


def engine_not_implemented(name: str) -> NoReturn:
    """Raise for a part of MXNet's API the engine lacks, so callers can say 'cannot verify'."""
    raise EngineGap("hybridlint engine does not implement mxnet.{} yet".format(name))
