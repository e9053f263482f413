"""Report types of the equivalence checker.

Everything here is plain data: reports are built inside the worker process and sent back to
hybridlint over a pipe as validated JSON (wire.py), so they hold no NDArrays, Symbols or user
objects.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any, List, Literal, Optional, Sequence, Tuple

import numpy as np

Status = Literal["equal", "mismatch", "hybrid_error", "eager_error", "cannot_run"]
STATUSES = ("equal", "mismatch", "hybrid_error", "eager_error", "cannot_run")
# The dtype an OutputDiff gives an output that is None (a block may return None eagerly).
NONE = "None"

# What a terminal would act on rather than show: escape sequences (CSI `ESC [ ... final`, OSC
# and the other string commands up to BEL or ST, any other `ESC x`), then the C0 controls but
# newline and tab, DEL, the C1 controls (0x9b is CSI too) and the bidirectional overrides and
# isolates (text shown in another order than it is read).
_ESCAPE_SEQUENCE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|[\x20-\x7e]?)"
)
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def clean_text(text: str) -> str:
    """`text` (written by user code, or about it) without control characters, so that it can
    go into a finding, a note or the terminal as it is: escape sequences are removed whole,
    other controls but newline and tab dropped."""
    if text.isprintable():
        return text
    return _CONTROL.sub("", _ESCAPE_SEQUENCE.sub("", text))


# How a report's notes say that fewer calls than execute.CALLS were compared (the original
# raised at a later eager call).
FEWER_CALLS = "compared on the calls before"


@dataclass(frozen=True)
class SourceLine:
    """A line of user code: where a failing graph node (or a run-time event) came from."""

    filename: str
    lineno: int
    text: str = ""

    def __post_init__(self) -> None:  # user code's file and line: no control characters
        object.__setattr__(self, "filename", clean_text(self.filename))
        object.__setattr__(self, "text", clean_text(self.text))

    def __str__(self) -> str:
        where = f"{self.filename}:{self.lineno}"
        return f"{where}: {self.text.strip()}" if self.text.strip() else where


@dataclass(frozen=True)
class OutputDiff:
    """How one output of the checked run compares with the same output of the reference run."""

    index: int
    expected_shape: tuple
    actual_shape: tuple
    expected_dtype: str
    actual_dtype: str
    max_abs_diff: float
    max_rel_diff: float
    equal: bool
    # NaN or inf in one run where the other has something else (a number, the other
    # infinity), said in words: the differences are then inf, which alone says little.
    detail: str = ""

    def describe(self) -> str:
        if NONE in (self.expected_dtype, self.actual_dtype) and not self.equal:
            return f"output {self.index}: {self._what(False)} != {self._what(True)}"
        if self.expected_shape != self.actual_shape:
            return f"output {self.index}: shape {self.actual_shape} != {self.expected_shape}"
        if self.expected_dtype != self.actual_dtype:
            return f"output {self.index}: dtype {self.actual_dtype} != {self.expected_dtype}"
        if self.detail:
            return f"output {self.index}: {self.detail}"
        return (
            f"output {self.index}: max abs diff {self.max_abs_diff:.3g}, "
            f"max rel diff {self.max_rel_diff:.3g}"
        )

    def _what(self, expected: bool) -> str:
        dtype = self.expected_dtype if expected else self.actual_dtype
        shape = self.expected_shape if expected else self.actual_shape
        return "None" if dtype == NONE else f"{dtype} array of shape {shape}"


@dataclass
class EquivalenceReport:
    """The verdict of one check: is the hybridized (or fixed) block the same as the eager one?

    `reason` is always set when the status is not `equal`, so a reporter can print one line.
    """

    status: Status
    target: str = ""
    backend: str = "engine"
    comparison: str = "eager vs hybridized"
    outputs: List[OutputDiff] = field(default_factory=list)
    roundtrip: List[OutputDiff] = field(default_factory=list)
    stage: Optional[str] = None
    error_type: Optional[str] = None
    error_message: Optional[str] = None
    source_line: Optional[SourceLine] = None
    reason: Optional[str] = None
    runtime_findings: list = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    # Lines of the checked (for a fix: the fixed) source that ran: which rewrites an example
    # exercised. Empty when not measured.
    executed: frozenset = field(default_factory=frozenset)
    # (line, col, end_col) of the instructions of that source that ran (byte columns).
    executed_spans: frozenset = field(default_factory=frozenset)

    def __post_init__(self) -> None:
        """Texts of a report come from user code (messages, names, paths): no control
        characters, wherever the report was made (the worker, a forked check, hybridlint)."""
        for name in ("target", "comparison", "stage", "error_type", "error_message", "reason"):
            value = getattr(self, name)
            if isinstance(value, str):
                setattr(self, name, clean_text(value))
        self.notes = [clean_text(n) if isinstance(n, str) else n for n in self.notes]

    @property
    def ok(self) -> bool:
        return self.status == "equal"

    @property
    def max_abs_diff(self) -> float:
        return max((d.max_abs_diff for d in self.outputs + self.roundtrip), default=0.0)

    @property
    def max_rel_diff(self) -> float:
        return max((d.max_rel_diff for d in self.outputs + self.roundtrip), default=0.0)

    def summary(self) -> str:
        """One line for humans: status, target and why."""
        head = f"{self.status}: {self.target}" if self.target else self.status
        if self.ok:
            return f"{head} ({len(self.outputs)} output(s), max abs diff {self.max_abs_diff:.3g})"
        return f"{head}: {self.reason}" if self.reason else head

    def to_dict(self) -> dict:
        """JSON-ready form (reporters, --format json)."""
        data = asdict(self)
        data["executed"] = sorted(self.executed)
        data["executed_spans"] = sorted(self.executed_spans)
        data["runtime_findings"] = [
            asdict(f) if hasattr(f, "__dataclass_fields__") else f for f in self.runtime_findings
        ]
        data["max_abs_diff"] = _finite(self.max_abs_diff)
        data["max_rel_diff"] = _finite(self.max_rel_diff)
        for key in ("outputs", "roundtrip"):
            for d in data[key]:
                d["max_abs_diff"] = _finite(d["max_abs_diff"])
                d["max_rel_diff"] = _finite(d["max_rel_diff"])
        return data


def _finite(x: float) -> Any:
    """JSON has no inf/nan: spell them as strings."""
    return x if math.isfinite(x) else str(x)


def compare_arrays(
    expected: Sequence[Optional[np.ndarray]],
    actual: Sequence[Optional[np.ndarray]],
    rtol: float,
    atol: float,
) -> List[OutputDiff]:
    """Compare two runs output by output (numpy.allclose semantics, NaN equal to NaN).

    Non-finite values compare by position: NaN where the reference has NaN, +inf where it has
    +inf, -inf where it has -inf are equal; NaN or inf against anything else is a difference
    (max diffs inf, `detail` says where). The diffs are never NaN. A missing or extra output is
    a difference too: it shows up as an output with shape (). An output that is None (dtype
    NONE) equals None only.
    """
    diffs = []
    for i in range(max(len(expected), len(actual))):
        if i >= len(expected) or i >= len(actual):
            have = actual[i] if i < len(actual) else None
            want = expected[i] if i < len(expected) else None
            diffs.append(
                OutputDiff(
                    i,
                    _shape(want),
                    _shape(have),
                    _dtype(want),
                    _dtype(have),
                    math.inf,
                    math.inf,
                    False,
                )
            )
            continue
        if expected[i] is None or actual[i] is None:  # None is an output only None equals
            both = expected[i] is None and actual[i] is None
            diffs.append(
                OutputDiff(
                    i,
                    _shape(expected[i]),
                    _shape(actual[i]),
                    _dtype(expected[i], NONE),
                    _dtype(actual[i], NONE),
                    0.0 if both else math.inf,
                    0.0 if both else math.inf,
                    both,
                )
            )
            continue
        want, have = np.asarray(expected[i]), np.asarray(actual[i])
        if want.shape != have.shape:
            diffs.append(
                OutputDiff(
                    i,
                    want.shape,
                    have.shape,
                    str(want.dtype),
                    str(have.dtype),
                    math.inf,
                    math.inf,
                    False,
                )
            )
            continue
        abs_diff, rel_diff, detail = _max_diffs(want, have)
        same = want.dtype == have.dtype and bool(
            np.allclose(
                have.astype(np.float64),
                want.astype(np.float64),
                rtol=rtol,
                atol=atol,
                equal_nan=True,
            )
        )
        diffs.append(
            OutputDiff(
                i,
                want.shape,
                have.shape,
                str(want.dtype),
                str(have.dtype),
                abs_diff,
                rel_diff,
                same,
                detail,
            )
        )
    return diffs


def compare_calls(
    expected: Sequence[Sequence[Optional[np.ndarray]]],
    actual: Sequence[Sequence[Optional[np.ndarray]]],
    rtol: float,
    atol: float,
) -> Tuple[List[OutputDiff], int]:
    """Compare two call sequences call for call: (the diffs of the first call that differs,
    its index) or, when every call agrees, (the diffs of the call with the largest
    difference, -1). A sequence shorter than the other differs at its first missing call."""
    best: List[OutputDiff] = []
    for i in range(max(len(expected), len(actual))):
        want = expected[i] if i < len(expected) else []
        have = actual[i] if i < len(actual) else []
        diffs = compare_arrays(want, have, rtol, atol)
        if not all(d.equal for d in diffs):
            return diffs, i
        if not best or _largest(diffs) > _largest(best):
            best = diffs
    return best, -1


def _largest(diffs: Sequence[OutputDiff]) -> float:
    return max((d.max_abs_diff for d in diffs), default=0.0)


def _max_diffs(want: np.ndarray, have: np.ndarray) -> tuple:
    """(max abs diff, max rel diff, detail): finite numbers or inf, never NaN."""
    if want.size == 0:
        return 0.0, 0.0, ""
    w: np.ndarray = want.astype(np.float64)
    h: np.ndarray = have.astype(np.float64)
    finite = np.isfinite(w) & np.isfinite(h)
    agree = (np.isnan(w) & np.isnan(h)) | (np.isinf(w) & (w == h))
    odd = ~finite & ~agree  # NaN or inf in one run only (or opposite infinities)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(finite, np.abs(w - h), 0.0)
        rel = np.where(finite, diff / np.maximum(np.abs(w), np.finfo(np.float64).tiny), 0.0)
    diff[odd] = math.inf
    rel[odd] = math.inf
    return float(diff.max()), float(rel.max()), _nonfinite_detail(w, h, odd)


def _nonfinite_detail(w: np.ndarray, h: np.ndarray, odd: np.ndarray) -> str:
    count = int(odd.sum())
    if not count:
        return ""
    first = tuple(int(i) for i in np.argwhere(odd)[0])
    where = f"index {list(first)}" if first else "the value"
    more = f" ({count} of {odd.size} positions have NaN/inf in one run only)" if count > 1 else ""
    got, want = float(h[first]), float(w[first])
    return f"{_word(got)} where the reference has {_word(want)} at {where}{more}"


def _word(x: float) -> str:
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "+inf" if x > 0 else "-inf"
    return f"{x:.6g}"


def _shape(a: Any) -> tuple:
    return tuple(np.shape(a)) if a is not None else ()


def _dtype(a: Any, absent: str = "missing") -> str:
    return str(np.asarray(a).dtype) if a is not None else absent


def first_difference(diffs: Sequence[OutputDiff]) -> Optional[str]:
    """Describe the first unequal output, or None when all are equal."""
    for d in diffs:
        if not d.equal:
            return d.describe()
    return None
