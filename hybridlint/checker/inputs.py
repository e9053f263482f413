"""Example inputs: what a block is called with when the checker runs it.

An input is given as a shape (random data, seeded), an `InputSpec` (shape + dtype, or a
literal value) or an array. Examples come from the API, from `[tool.hybridlint.examples]` in
pyproject.toml (`examples_from_config`) and from `hybridlint verify FILE::Class --input 2,64,8,8`
(`parse_target`, `parse_input_option`).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

FLOAT_DTYPES = ("float16", "float32", "float64")
INT_DTYPES = ("uint8", "int8", "int32", "int64")
BOOL_DTYPES = ("bool",)


class ExampleError(ValueError):
    """An example (config entry, --input option, API argument) is malformed."""


@dataclass(frozen=True)
class InputSpec:
    """One positional input: random data of `shape`/`dtype`, or the literal `value`."""

    shape: Tuple[int, ...] = ()
    dtype: str = "float32"
    value: Optional[Any] = None

    def make(self, rng: np.random.Generator) -> np.ndarray:
        """The array for this input (seeded random data unless a value was given)."""
        if self.value is not None:
            return np.array(self.value, dtype=self.dtype)
        if self.dtype in FLOAT_DTYPES:
            return rng.standard_normal(self.shape).astype(self.dtype)
        if self.dtype in BOOL_DTYPES:
            return rng.integers(0, 2, self.shape).astype(bool)
        # Small non-negative integers: valid as indices, token ids and class labels.
        return rng.integers(0, 4, self.shape).astype(self.dtype)


@dataclass(frozen=True)
class Example:
    """One call of one block: which class (or factory function), its inputs, its kwargs."""

    target: str
    inputs: Tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def specs(self) -> List[InputSpec]:
        return [to_spec(x) for x in self.inputs]


def to_spec(value: Any) -> InputSpec:
    """Normalise one user-given input (shape, spec, array, dtype-tagged dict) to an InputSpec."""
    if isinstance(value, InputSpec):
        _check_dtype(value.dtype)
        return value
    if isinstance(value, np.ndarray):
        return InputSpec(tuple(value.shape), str(value.dtype), value.tolist())
    if hasattr(value, "asnumpy"):                      # an NDArray of either backend
        arr = value.asnumpy()
        return InputSpec(tuple(arr.shape), str(arr.dtype), arr.tolist())
    if isinstance(value, Mapping):
        unknown = set(value) - {"shape", "dtype", "value"}
        if unknown:
            raise ExampleError(f"unknown input field(s) {sorted(unknown)}; "
                               "use shape, dtype or value")
        dtype = str(value.get("dtype", "float32"))
        _check_dtype(dtype)
        if "value" in value:
            arr = np.array(value["value"], dtype=dtype)
            return InputSpec(tuple(arr.shape), dtype, arr.tolist())
        if "shape" not in value:
            raise ExampleError("an input table needs `shape` or `value`")
        return InputSpec(_shape(value["shape"]), dtype)
    if isinstance(value, int) and not isinstance(value, bool):
        return InputSpec((value,))
    if isinstance(value, (tuple, list)):
        return InputSpec(_shape(value))
    raise ExampleError(f"cannot use {value!r} as an input: give a shape like (2, 3), "
                       "{shape=..., dtype=...} or an array")


def _shape(value: Any) -> Tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value):
        raise ExampleError(f"a shape is a list of non-negative integers, got {value!r}")
    return tuple(value)


def _check_dtype(dtype: str) -> None:
    if dtype not in FLOAT_DTYPES + INT_DTYPES + BOOL_DTYPES:
        raise ExampleError(f"unsupported dtype {dtype!r}; use one of "
                           f"{', '.join(FLOAT_DTYPES + INT_DTYPES + BOOL_DTYPES)}")


def make_arrays(specs: Sequence[InputSpec], seed: int) -> List[np.ndarray]:
    """The input arrays of one example, the same for every run with the same seed."""
    rng = np.random.default_rng(seed)
    return [spec.make(rng) for spec in specs]


def parse_target(text: str) -> Tuple[str, Optional[str]]:
    """Split `path.py::Class` into ("path.py", "Class"); a bare path gives (path, None)."""
    path, sep, name = text.rpartition("::")
    if not sep:
        return text, None
    if not path or not name.isidentifier():
        raise ExampleError(f"expected FILE::Class, got {text!r}")
    return path, name


def parse_input_option(text: str) -> InputSpec:
    """Parse `--input 2,64,8,8` (float32) or `--input 2,10:int32` into an InputSpec."""
    dims, _, dtype = text.strip().partition(":")
    try:
        shape = tuple(int(d) for d in dims.split(",") if d.strip())
    except ValueError:
        raise ExampleError(f"--input expects comma-separated dimensions like 2,64,8,8 "
                           f"(optionally :dtype), got {text!r}") from None
    if any(d < 0 for d in shape):
        raise ExampleError(f"negative dimension in --input {text!r}")
    spec = InputSpec(shape, dtype.strip() or "float32")
    _check_dtype(spec.dtype)
    return spec


def parse_kwarg_options(options: Sequence[str]) -> Dict[str, Any]:
    """`--kwarg channels=64 --kwarg act="relu"` -> {"channels": 64, "act": "relu"}.

    Values are Python literals; anything else is taken as a string (act=relu).
    """
    out: Dict[str, Any] = {}
    for text in options:
        name, sep, value = text.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise ExampleError(f"--kwarg expects NAME=VALUE, got {text!r}")
        try:
            out[name] = ast.literal_eval(value.strip())
        except (ValueError, SyntaxError):
            out[name] = value.strip()
    return out


def examples_from_config(table: Mapping[str, Any]) -> Dict[str, List[Example]]:
    """Turn `[tool.hybridlint.examples]` into {file path as written: [Example, ...]}.

    Each key is "path.py::Target"; each value is a table {kwargs = {...}, inputs = [...]} or a
    list of such tables (several examples for the same block).
    """
    if not isinstance(table, Mapping):
        raise ExampleError("[tool.hybridlint.examples] must be a table")
    out: Dict[str, List[Example]] = {}
    for key, value in table.items():
        path, name = parse_target(str(key))
        if name is None:
            raise ExampleError(f"example key {key!r} must be 'path.py::Class'")
        entries = value if isinstance(value, list) else [value]
        for entry in entries:
            out.setdefault(path, []).append(_example_entry(key, name, entry))
    return out


def _example_entry(key: str, name: str, entry: Any) -> Example:
    if not isinstance(entry, Mapping):
        raise ExampleError(f"example {key!r}: expected a table with `inputs`, got {entry!r}")
    unknown = set(entry) - {"inputs", "kwargs"}
    if unknown:
        raise ExampleError(f"example {key!r}: unknown field(s) {sorted(unknown)}")
    inputs = entry.get("inputs")
    if not isinstance(inputs, list) or not inputs:
        raise ExampleError(f"example {key!r}: `inputs` must be a non-empty list of shapes")
    kwargs = entry.get("kwargs", {})
    if not isinstance(kwargs, Mapping):
        raise ExampleError(f"example {key!r}: `kwargs` must be a table")
    try:
        specs = tuple(to_spec(x) for x in inputs)
    except ExampleError as exc:
        raise ExampleError(f"example {key!r}: {exc}") from None
    return Example(name, specs, dict(kwargs))
