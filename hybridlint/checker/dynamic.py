"""Dynamic lint: what tracing the hybridized graph reveals, as findings at user source lines.

Static rules leave "unknown" what they cannot prove (is this helper argument a tensor?).
With example inputs the checker traces `hybrid_forward` with Symbols and sees it happen:
- `.shape`/`.size`/... on a Symbol (AttributeError while tracing)         -> HL001
- `x[i]` / `x[a:b]` on a single-output Symbol (selects the output, not rows) -> HL003
- an elementwise op between tensors whose shapes differ (shape inference)  -> HL007
Works on both backends: the checker wraps `Symbol.__getitem__` for the duration of the
trace (no engine hook needed). Source lines of shape errors come from the engine's per-node
record (`exc.source_line` or a `file:line` in the message); real MXNet names only the node.
"""

from __future__ import annotations

import contextlib
import linecache
import re
import sys
import traceback
import types
from typing import Dict, Iterator, List, Optional, Set

from ..mxnet_facts import COND_PREDICATE_DTYPE, EAGER_ATTRIBUTES
from .report import SourceLine

RULE_NAMES = {
    "HL001": "symbol-attribute",
    "HL003": "tensor-indexing",
    "HL008": "tensor-control-flow",
    "HL007": "non-broadcast-arithmetic",
    "HL011": "varargs-reshape",
}
SYMBOL_ATTRS = EAGER_ATTRIBUTES  # hybridlint/mxnet_facts.py
_ATTR_ERROR = re.compile(r"'Symbol' object has no attribute '(\w+)'")
# `sym.reshape(a, b)` binds b to Reshape's next parameter: MXNet 1.9.1 "Invalid Parameter
# format for reverse expect boolean but value='-2', in operator Reshape(...)", the engine
# "Operator Reshape: invalid value -2 for parameter 'reverse'"
_VARARGS_RESHAPE = re.compile(
    r"(?:Parameter format for (?:reverse|target_shape|keep_highest)\b.*operator Reshape)|"
    r"(?:Operator Reshape: invalid value .* parameter '(?:reverse|target_shape|keep_highest)')",
    re.S,
)
# a hybridized cond types its predicate COND_PREDICATE_DTYPE (mxnet_facts): MXNet 1.9.1
# "Error in operator net0__cond0: Error in operator net0_identity0: ... Incompatible attr in node
# net0_identity0 at 0-th output: expected int32, got float32", the engine names the dtype itself
_COND_PREDICATE = re.compile(
    r"Error in operator \S*_cond\d+: .*?(?:the predicate is (\w+)|Incompatible attr\b"
    r".*?expected (\w+), got " + COND_PREDICATE_DTYPE + r")",
    re.S,
)
_ELEMWISE = re.compile(
    r"(_plus|_minus|_mul|_div|_mod|_power|elemwise_|_equal|_not_equal|"
    r"_greater|_lesser|_Plus|_Minus|_Mul|_Div|_Mod|_Power|broadcast_)",
    re.I,
)


class TraceEvents:
    """Events seen while tracing: (code, message, SourceLine)."""

    def __init__(self, user_files: Set[str]):
        self.user_files = user_files
        self.events: list = []
        self.node_lines: Dict[str, SourceLine] = {}  # graph node name -> where it was made

    def add(self, code: str, message: str, where: Optional[SourceLine]) -> None:
        """Record an event once per line and message: two subscripts of one line
        (`s[1:] - s[:-1]`) are two events, each index a fix must rewrite."""
        if where is not None and (code, message, where.lineno, where.filename) not in {
            (c, m, w.lineno, w.filename) for c, m, w in self.events
        }:
            self.events.append((code, message, where))


@contextlib.contextmanager
def watch_symbols(mx: types.ModuleType, events: TraceEvents) -> Iterator[None]:
    """While the hybridized graph is traced: record `Symbol[...]` on single-output Symbols,
    and the user line that created each named node (real MXNet's errors name only the node)."""
    symbol_cls = mx.sym.Symbol
    own_init = symbol_cls.__dict__.get("__init__")
    inherited_init = symbol_cls.__init__
    original_getitem = symbol_cls.__getitem__

    def getitem(self, index):
        caller = sys._getframe(1)
        # only the user's own subscripts: an output picked inside MXNet or the engine (cond
        # and foreach take `[0]` of their single-output subgraphs) is not the user's line
        if (
            caller.f_code.co_filename in events.user_files
            and not isinstance(index, str)
            and _single_output(self)
        ):
            events.add(
                "HL003",
                f"indexing a Symbol with {index!r} selects an output of the "
                "graph node, not rows: use F.slice_axis / F.slice (+ F.squeeze)",
                user_frame(caller, events.user_files),
            )
        return original_getitem(self, index)

    def remember(sym) -> None:
        try:
            name = sym.name
        except Exception:  # never let the watcher change the user's run
            return
        if isinstance(name, str) and name and name not in events.node_lines:
            where = user_frame(sys._getframe(2), events.user_files)
            if where is not None:
                events.node_lines[name] = where

    def init(self, *args, **kwargs):
        inherited_init(self, *args, **kwargs)
        remember(self)

    own_compose = symbol_cls.__dict__.get("_compose")

    def compose(self, *args, **kwargs):  # MXNet names an op node when composing it
        result = own_compose(self, *args, **kwargs)
        remember(self)
        return result

    symbol_cls.__getitem__ = getitem
    symbol_cls.__init__ = init
    if own_compose is not None:
        symbol_cls._compose = compose
    try:
        yield
    finally:
        symbol_cls.__getitem__ = original_getitem
        if own_compose is not None:
            symbol_cls._compose = own_compose
        if own_init is not None:
            symbol_cls.__init__ = own_init
        else:
            del symbol_cls.__init__


def _single_output(sym) -> bool:
    try:
        return len(sym.list_outputs()) == 1
    except Exception:  # never let the watcher change the user's run
        return False


def user_frame(frame: Optional[types.FrameType], user_files: Set[str]) -> Optional[SourceLine]:
    """The innermost frame (starting at `frame`, going outwards) in one of the user's files."""
    while frame is not None:
        name = frame.f_code.co_filename
        if name in user_files:
            return SourceLine(name, frame.f_lineno, linecache.getline(name, frame.f_lineno))
        frame = frame.f_back
    return None


_NODE_NAME = re.compile(r"(?:Error in operator|in node) ([\w.]+)")


def failure_line(
    exc: BaseException, user_files: Set[str], node_lines: Optional[Dict[str, SourceLine]] = None
) -> Optional[SourceLine]:
    """Where in the user's code the failing node (or statement) was created."""
    recorded = getattr(exc, "source_line", None)
    if recorded:
        filename, lineno, *text = tuple(recorded)
        # the file's own line keeps its indentation (the engine may record it stripped)
        line = linecache.getline(filename, int(lineno)) or (text[0] if text else "")
        return SourceLine(filename, int(lineno), line or "")
    innermost = None
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        if frame.f_code.co_filename in user_files:
            innermost = SourceLine(
                frame.f_code.co_filename,
                lineno,
                linecache.getline(frame.f_code.co_filename, lineno),
            )
    if innermost is not None and not _is_shape_error(exc):
        return innermost
    message = str(exc)
    for name in user_files:  # the engine's messages say "created at file:line"
        match = re.search(re.escape(name) + r":(\d+)", message)
        if match:
            lineno = int(match.group(1))
            return SourceLine(name, lineno, linecache.getline(name, lineno))
    for match in _NODE_NAME.finditer(message):
        if node_lines and match.group(1) in node_lines:
            return node_lines[match.group(1)]
    return innermost


def _is_shape_error(exc: BaseException) -> bool:
    text = str(exc)
    return "shape" in text.lower() or "Incompatible attr" in text


def events_from_failure(
    exc: BaseException, where: Optional[SourceLine], events: TraceEvents
) -> None:
    """Turn a hybridize failure into a run-time finding when it is one the rules know."""
    match = _ATTR_ERROR.search(str(exc))
    cond_predicate = _COND_PREDICATE.search(str(exc))
    if isinstance(exc, AttributeError) and match and match.group(1) in SYMBOL_ATTRS:
        events.add(
            "HL001",
            f"`.{match.group(1)}` on a Symbol fails under hybridize: use "
            "F.shape_array, zeros_like, slice_like, broadcast_like or reshape special "
            "codes",
            where,
        )
    elif cond_predicate:
        dtype = cond_predicate.group(1) or cond_predicate.group(2)
        events.add("HL008", cond_predicate_message(dtype), where)
    elif _VARARGS_RESHAPE.search(str(exc)):
        events.add(
            "HL011",
            "`x.reshape(a, b, ...)` binds the dims to Reshape's other parameters on a Symbol: "
            "pass one tuple, x.reshape((a, b, ...))",
            where,
        )
    elif _is_shape_error(exc) and _ELEMWISE.search(str(exc)):
        events.add(
            "HL007",
            "elementwise arithmetic between tensors of different shapes: "
            "hybridized ops do not broadcast, use F.broadcast_*",
            where,
        )


def cond_predicate_message(dtype: str) -> str:
    """The run-time HL008 of a cond predicate of another dtype than MXNet's (observed.py reads
    the dtype back: `PREDICATE_DTYPE`)."""
    return (
        f"a hybridized cond needs a {COND_PREDICATE_DTYPE} predicate, this one is {dtype}: "
        f"cast it with .astype('{COND_PREDICATE_DTYPE}')"
    )


PREDICATE_DTYPE = re.compile(r"a hybridized cond needs a \w+ predicate, this one is ([\w, ]+?):")


def to_findings(events: TraceEvents, original_filename: Optional[str] = None) -> List:
    """Findings for the recorded events, marked as observed at run time.

    Runs in the checker's worker, which never imports the linter (LibCST and the rules cost
    each new worker ~0.7 s of CPU): names come from RULE_NAMES, which covers every code this
    module records (tests/test_checker_dynamic_names.py holds it to the rules' own names)."""
    from hybridlint.ftypes import Finding

    out = []
    for code, message, where in events.events:
        path = original_filename or where.filename.replace(" [fixed]", "")
        out.append(
            Finding(
                code=code,
                name=RULE_NAMES.get(code, ""),
                message=f"observed at run time while tracing the hybridized graph: {message}",
                line=where.lineno,
                col=_indent(where.text) + 1,
                end_line=where.lineno,
                end_col=max(1, len(where.text.rstrip("\n")) + 1),
                fix=None,
                path=path,
            )
        )
    return out


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" \t"))
