"""What crosses the worker channel, as plain JSON data checked against a schema.

Jobs go to the worker (example inputs, constructor kwargs); reports come back. Decoding a
report validates every field (type, allowed values, lengths), because the worker runs user
code that could write to the channel: a bad answer is a `ProtocolError`, never code run in
the parent and never an internal error. Every text of an answer is user code's (or about it:
error messages, reasons, source lines, names) and loses its control characters here
(`report.clean_text`), before it can reach a finding, a note or the terminal.
"""

from __future__ import annotations

import math
from dataclasses import fields
from typing import Any, Dict, List, Optional

import numpy as np

from .inputs import ChildBlock, InputList, InputSpec, Value
from .protocol import ProtocolError
from .report import STATUSES, EquivalenceReport, OutputDiff, SourceLine, clean_text

MAX_TEXT = 100_000
MAX_ITEMS = 100_000


# -- values: constructor kwargs and literal inputs ------------------------------------------


def value_to_wire(value: Any, where: str = "value") -> Any:
    """A Python value (TOML/literal data) as JSON; tuples and dicts are tagged."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.ndarray):
        return {"$ndarray": value}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, list):
        return [value_to_wire(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, tuple):
        return {"$tuple": [value_to_wire(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if isinstance(value, dict):
        return {
            "$dict": [
                [value_to_wire(k, where), value_to_wire(v, f"{where}[{k!r}]")]
                for k, v in value.items()
            ]
        }
    if isinstance(value, ChildBlock) and not value.called:
        return {"$class": value.name}
    if isinstance(value, ChildBlock):
        return {"$block": [value.name, value_to_wire(dict(value.kwargs), f"{where}.kwargs")]}
    raise ValueError(
        f"{where}: a {type(value).__name__} cannot be sent to the checker's "
        "worker; use numbers, strings, booleans, None, lists, tuples, dicts or "
        "arrays, or pass a function that builds the block (checked in a forked "
        "child, where any object works)"
    )


def value_from_wire(data: Any) -> Any:
    if data is None or isinstance(data, (bool, int, float, str)):
        return data
    if isinstance(data, list):
        return [value_from_wire(v) for v in data]
    if isinstance(data, dict) and len(data) == 1:
        ((tag, inner),) = data.items()
        if tag == "$ndarray" and isinstance(inner, np.ndarray):
            return inner
        if tag == "$tuple" and isinstance(inner, list):
            return tuple(value_from_wire(v) for v in inner)
        if tag == "$class" and isinstance(inner, str):
            return ChildBlock(inner, called=False)
        if tag == "$block" and isinstance(inner, list) and len(inner) == 2:
            name, kwargs = inner[0], value_from_wire(inner[1])
            if isinstance(name, str) and isinstance(kwargs, dict):
                return ChildBlock(name, kwargs)
        if (
            tag == "$dict"
            and isinstance(inner, list)
            and all(isinstance(p, list) and len(p) == 2 for p in inner)
        ):
            return {_hashable(value_from_wire(k)): value_from_wire(v) for k, v in inner}
    raise ProtocolError(f"malformed value {str(data)[:200]}")


def _hashable(key: Any) -> Any:
    if isinstance(key, list):
        raise ProtocolError("a list cannot be a key")
    return key


# -- inputs ----------------------------------------------------------------------------------


def input_to_wire(spec: Any) -> dict:
    if isinstance(spec, InputSpec):
        value = None if spec.value is None else np.array(spec.value, dtype=spec.dtype)
        return {
            "array": {
                "shape": list(spec.shape),
                "dtype": spec.dtype,
                "value": value,
                "low": spec.low,
                "high": spec.high,
            }
        }
    if isinstance(spec, InputList):
        return {spec.kind: [input_to_wire(item) for item in spec.items]}
    if isinstance(spec, Value):
        return {"value": value_to_wire(spec.value)}
    raise ValueError(f"not an input spec: {spec!r}")


def input_from_wire(data: Any) -> Any:
    if not (isinstance(data, dict) and len(data) == 1):
        raise ProtocolError(f"malformed input {str(data)[:200]}")
    ((kind, inner),) = data.items()
    if kind == "array" and isinstance(inner, dict):
        shape, value = inner.get("shape"), inner.get("value")
        if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
            raise ProtocolError("malformed input shape")
        if value is not None and not isinstance(value, np.ndarray):
            raise ProtocolError("malformed input value")
        return InputSpec(
            tuple(shape),
            _text(inner.get("dtype"), "dtype"),
            None if value is None else value.tolist(),
            _number(inner.get("low")),
            _number(inner.get("high")),
        )
    if kind in ("list", "tuple") and isinstance(inner, list):
        return InputList(tuple(input_from_wire(item) for item in inner), kind)
    if kind == "value":
        return Value(value_from_wire(inner))
    raise ProtocolError(f"malformed input {str(data)[:200]}")


def _number(value: Any) -> Optional[float]:
    if value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        return value
    raise ProtocolError("malformed number")


# -- jobs ------------------------------------------------------------------------------------


def job_to_wire(job: Dict[str, Any]) -> dict:
    out = dict(job)
    out["inputs"] = [input_to_wire(spec) for spec in job.get("inputs", ())]
    out["kwargs"] = value_to_wire(dict(job.get("kwargs") or {}), "kwargs")
    return out


def job_from_wire(data: Any) -> Dict[str, Any]:
    if not isinstance(data, dict):
        raise ProtocolError("a job is a table")
    job = dict(data)
    job["inputs"] = [input_from_wire(item) for item in _list(data.get("inputs", []), "inputs")]
    job["kwargs"] = value_from_wire(data.get("kwargs", {"$dict": []}))
    if not isinstance(job["kwargs"], dict):
        raise ProtocolError("malformed kwargs")
    return job


# -- reports ---------------------------------------------------------------------------------

_FINDING_FIELDS = ("code", "name", "message", "line", "col", "end_line", "end_col", "fix", "path")


def report_to_wire(report: EquivalenceReport) -> dict:
    data = {f.name: getattr(report, f.name) for f in fields(report)}
    data["outputs"] = [_diff_to_wire(d) for d in report.outputs]
    data["roundtrip"] = [_diff_to_wire(d) for d in report.roundtrip]
    line = report.source_line
    data["source_line"] = None if line is None else [line.filename, line.lineno, line.text]
    data["runtime_findings"] = [
        {k: getattr(f, k) for k in _FINDING_FIELDS} for f in report.runtime_findings
    ]
    data["executed"] = sorted(report.executed)
    data["executed_spans"] = [list(span) for span in sorted(report.executed_spans)]
    return data


def _diff_to_wire(diff: OutputDiff) -> list:
    return [
        diff.index,
        list(diff.expected_shape),
        list(diff.actual_shape),
        diff.expected_dtype,
        diff.actual_dtype,
        diff.max_abs_diff,
        diff.max_rel_diff,
        diff.equal,
        diff.detail,
    ]


def report_from_wire(data: Any) -> EquivalenceReport:
    """An EquivalenceReport from untrusted JSON data; ProtocolError if anything is off."""
    if not isinstance(data, dict):
        raise ProtocolError("a report is a table")
    known = {f.name for f in fields(EquivalenceReport)}
    unknown = set(data) - known
    if unknown:
        raise ProtocolError(f"unknown report field(s) {sorted(unknown)[:5]}")
    status = data.get("status")
    if status not in STATUSES:
        raise ProtocolError(f"unknown status {str(status)[:50]!r}")
    line = data.get("source_line")
    if line is not None:
        if not (isinstance(line, list) and len(line) == 3):
            raise ProtocolError("malformed source_line")
        line = SourceLine(
            _text(line[0], "filename"), _int(line[1], "lineno"), _text(line[2], "text")
        )
    report = EquivalenceReport(
        status,
        target=_text(data.get("target", ""), "target"),
        backend=_text(data.get("backend", "engine"), "backend"),
        comparison=_text(data.get("comparison", ""), "comparison"),
        outputs=[_diff_from_wire(d) for d in _list(data.get("outputs", []), "outputs")],
        roundtrip=[_diff_from_wire(d) for d in _list(data.get("roundtrip", []), "roundtrip")],
        stage=_opt_text(data.get("stage"), "stage"),
        error_type=_opt_text(data.get("error_type"), "error_type"),
        error_message=_opt_text(data.get("error_message"), "error_message"),
        source_line=line,
        reason=_opt_text(data.get("reason"), "reason"),
        runtime_findings=[
            _finding(f) for f in _list(data.get("runtime_findings", []), "runtime_findings")
        ],
        notes=[_text(n, "notes") for n in _list(data.get("notes", []), "notes")],
        executed=frozenset(
            _int(n, "executed") for n in _list(data.get("executed", []), "executed")
        ),
        executed_spans=frozenset(
            _span(s) for s in _list(data.get("executed_spans", []), "executed_spans")
        ),
    )
    if status != "equal" and not report.reason:
        report.reason = status
    return report


def _span(data: Any) -> tuple:
    if not (isinstance(data, list) and len(data) == 3):
        raise ProtocolError("malformed executed span")
    return tuple(_int(v, "executed_spans") for v in data)


def _diff_from_wire(data: Any) -> OutputDiff:
    if not (isinstance(data, list) and len(data) == 9):
        raise ProtocolError("malformed output comparison")
    index, want, have, want_dtype, have_dtype, abs_diff, rel_diff, equal, detail = data
    for shape in (want, have):
        if not isinstance(shape, list) or not all(type(d) is int and d >= 0 for d in shape):
            raise ProtocolError("malformed output shape")
    if not isinstance(equal, bool):
        raise ProtocolError("malformed output verdict")
    return OutputDiff(
        _int(index, "index"),
        tuple(want),
        tuple(have),
        _text(want_dtype, "dtype"),
        _text(have_dtype, "dtype"),
        _float(abs_diff),
        _float(rel_diff),
        equal,
        _text(detail, "detail"),
    )


def _finding(data: Any):
    from hybridlint.ftypes import Finding, FixSafety

    if not isinstance(data, dict) or set(data) != set(_FINDING_FIELDS):
        raise ProtocolError("malformed run-time finding")
    fix = _opt_text(data["fix"], "fix")
    if fix is not None and fix not in {safety.value for safety in FixSafety}:
        raise ProtocolError("malformed run-time finding")
    return Finding(
        _text(data["code"], "code"),
        _text(data["name"], "name"),
        _text(data["message"], "message"),
        _int(data["line"], "line"),
        _int(data["col"], "col"),
        _int(data["end_line"], "end_line"),
        _int(data["end_col"], "end_col"),
        None if fix is None else FixSafety(fix),
        _text(data["path"], "path"),
    )


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or len(value) > MAX_TEXT:
        raise ProtocolError(f"field {name!r}: expected text")
    return clean_text(value)


def _opt_text(value: Any, name: str) -> Optional[str]:
    return None if value is None else _text(value, name)


def _int(value: Any, name: str) -> int:
    if type(value) is not int or not 0 <= value < 1 << 62:
        raise ProtocolError(f"field {name!r}: expected a non-negative integer")
    return value


def _float(value: Any) -> float:
    """A difference: a number >= 0 or inf (non-finite outputs make it inf, never NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProtocolError("malformed difference")
    value = float(value)
    if math.isnan(value) or value < 0:
        raise ProtocolError("malformed difference")
    return value


def _list(value: Any, name: str) -> List[Any]:
    if not isinstance(value, list) or len(value) > MAX_ITEMS:
        raise ProtocolError(f"field {name!r}: expected a list")
    return value
