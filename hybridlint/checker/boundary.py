"""What may cross a hybridized block's boundary: which input or output of the user's block a
hybridize failure of gluon's own argument handling is about.

MXNet 1.9.1 (and the engine) refuse a Python value among a hybridized block's inputs with
"ValueError: When hybridized, the input of HybridBlock input must be (nested) list of Symbol or
NDArray, but got 12 of type <class 'int'>", raised inside gluon before `hybrid_forward` runs: no
line of the user's is in the traceback, and the message does not say which input it was. The
checker knows the inputs it passed, so it names the parameter (`units`) and points at the
`def hybrid_forward` line, where the user changes the block (HL018's hazard: the caller passes
an int, a bool, a dict). Outputs are refused after `hybrid_forward` returned (None among them:
"Expected a list of symbols as input"; a dict: "the output of HybridBlock must be ..."): the
checker already points at the return line; here it says what the rule is.
"""

from __future__ import annotations

import inspect
import linecache
import re
from typing import Any, List, Optional, Set, Tuple

import numpy as np

_INPUT = "When hybridized, the input of HybridBlock"
_OUTPUT = ("When hybridized, the output of HybridBlock", "Expected a list of symbols as input")


def explain(exc: BaseException, block: Any, inputs: List[Any], user_files: Set[str]) -> None:
    """Mark `exc`, when gluon refused one of the block's inputs or outputs, with a hint (what
    and why, read by `hint`) and, for an input, the line of its parameter
    (`exc.source_line`)."""
    text = str(exc)
    if isinstance(exc, ValueError) and _INPUT in text:
        refused = _refused_input(inputs)
        if refused is None:
            return
        index, value = refused
        name, where = _parameter(block, index, user_files)
        what = f"input `{name}`" if name else f"input {index + 1}"
        _mark(
            exc,
            f"{what} is {_describe(value)}: a hybridized block takes only arrays (and None) "
            "as inputs; take it in __init__, or keep the block eager (HL018)",
            where,
        )
    elif isinstance(exc, (TypeError, ValueError)) and any(o in text for o in _OUTPUT):
        _mark(
            exc,
            "hybrid_forward returns something other than arrays (None, a number, a dict): a "
            "hybridized block returns only arrays; return the arrays alone (HL018)",
        )


_HINT = "hybridlint_hint"


def hint(exc: BaseException) -> Optional[str]:
    """The hint `explain` put on `exc`, if any (jobs._stage adds it to the reason)."""
    return getattr(exc, _HINT, None)


def _mark(exc: BaseException, text: str, where: Optional[Tuple[str, int]] = None) -> None:
    """What the checker's stage report reads off the exception (jobs._stage): the hint it
    adds to the reason, and the line `failure_line` takes before any traceback's."""
    vars(exc)[_HINT] = text
    if where is not None:
        vars(exc)["source_line"] = where


def _is_array(value: Any) -> bool:
    """A numpy array (the checker's inputs, made NDArrays at the call) or an NDArray/Symbol."""
    return isinstance(value, np.ndarray) or any(
        base.__name__ in ("NDArray", "Symbol") for base in type(value).__mro__
    )


def _refused_input(inputs: List[Any]) -> Optional[Tuple[int, Any]]:
    """(index, value) of the first input gluon refuses hybridized: anything but an array,
    None or a (nested) list or tuple of those."""

    def allowed(value: Any) -> bool:
        if value is None or _is_array(value):
            return True
        if isinstance(value, (list, tuple)):
            return all(allowed(v) for v in value)
        return False

    for index, value in enumerate(inputs):
        if not allowed(value):
            return index, value
    return None


def _describe(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        inner = next((v for v in value if _refused_input([v]) is not None), None)
        return f"a {type(value).__name__} holding {_describe(inner)}"
    shown = repr(value)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    kind = type(value).__name__
    return f"{shown}, {'an' if kind[:1] in 'aeiou' else 'a'} {kind}"


def _parameter(block: Any, index: int, user_files: Set[str]):
    """(name, (file, line)) of hybrid_forward's input `index` (after self and F): the line
    of the `def` header that names it; (None, None) when the function is not the user's."""
    function = getattr(type(block), "hybrid_forward", None)
    code = getattr(function, "__code__", None)
    if function is None or code is None or code.co_filename not in user_files:
        return None, None
    try:
        params = list(inspect.signature(function).parameters.values())[2:]  # self, F
    except (TypeError, ValueError):
        return None, None
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    star = [p.name for p in params if p.kind is p.VAR_POSITIONAL]
    name = positional[index].name if index < len(positional) else (star[0] if star else None)
    line, in_header = code.co_firstlineno, False
    for number in range(code.co_firstlineno, code.co_firstlineno + 40):  # decorators, def
        text = linecache.getline(code.co_filename, number)
        if not in_header and re.match(r"\s*(async\s+)?def\b", text):
            line, in_header = number, True  # the def line, unless the name is further down
        if in_header and name and re.search(rf"\b{re.escape(name)}\b", text):
            line = number
            break
        if not text or (in_header and text.rstrip().endswith(":")):
            break
    return name, (code.co_filename, line)
