"""Example inputs: what a block is called with when the checker runs it.

An input is a shape (random data, seeded), an `InputSpec` (shape + dtype, integer range, or a
literal value), an array, a list/tuple of inputs (`InputList`, one list argument such as
`label=[start, end]`) or a plain Python value (`Value`: int, float, bool, str, None). Examples
come from the API, from `[tool.hybridlint.examples]` in pyproject.toml (`examples_from_config`)
and from `hybridlint verify FILE::Class --input 2,64,8,8` (`parse_target`,
`parse_input_option`).
"""

from __future__ import annotations

import ast
import importlib
import sys
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..config import is_block_table, is_class_table, is_none_table, is_numpy_table

FLOAT_DTYPES = ("float16", "float32", "float64")
INT_DTYPES = ("uint8", "int8", "int32", "int64")
BOOL_DTYPES = ("bool",)


class ExampleError(ValueError):
    """An example (config entry, --input option, API argument) is malformed."""


@dataclass(frozen=True)
class InputSpec:
    """One array input: random data of `shape`/`dtype` (integers in [low, high), default
    [0, 4): valid as indices, token ids and class labels), or the literal `value`."""

    shape: Tuple[int, ...] = ()
    dtype: str = "float32"
    value: Optional[Any] = None
    low: Optional[float] = None
    high: Optional[float] = None

    def make(self, rng: np.random.Generator) -> np.ndarray:
        """The array for this input (seeded random data unless a value was given)."""
        if self.value is not None:
            return np.array(self.value, dtype=self.dtype)
        if self.dtype in FLOAT_DTYPES:
            if self.low is None and self.high is None:
                return rng.standard_normal(self.shape).astype(self.dtype)
            low = 0.0 if self.low is None else self.low
            return rng.uniform(low, low + 1 if self.high is None else self.high, self.shape).astype(
                self.dtype
            )
        if self.dtype in BOOL_DTYPES:
            return rng.integers(0, 2, self.shape).astype(bool)
        low = 0 if self.low is None else int(self.low)
        high = (low + 4) if self.high is None else int(self.high)
        return rng.integers(low, high, self.shape).astype(self.dtype)


@dataclass(frozen=True)
class InputList:
    """A Python list (or tuple) of inputs passed as one argument, e.g. `label=[start, end]`
    (Gluon flattens nested lists of arrays when hybridized); items nest."""

    items: Tuple[Any, ...] = ()
    kind: str = "list"

    def make(self, rng: np.random.Generator) -> Any:
        made = [item.make(rng) for item in self.items]
        return tuple(made) if self.kind == "tuple" else made


@dataclass(frozen=True)
class Value:
    """A plain Python value passed as an argument as is: an int, float, bool, str or None."""

    value: Any = None

    def make(self, rng: np.random.Generator) -> Any:
        return self.value


@dataclass(frozen=True)
class Example:
    """One call of one block: which class (or factory function), its inputs, its kwargs."""

    target: str
    inputs: Tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    # made up by the checker for a file without examples (inferred.py), not configured
    inferred: bool = False

    def specs(self) -> List[Any]:
        return [to_spec(x) for x in self.inputs]


SCALAR_KEYS = {"int": int, "float": float, "bool": bool, "str": str}
TABLE_KEYS = (
    "shape",
    "dtype",
    "value",
    "low",
    "high",
    "list",
    "tuple",
    "int",
    "float",
    "bool",
    "str",
    "none",
)


def to_spec(value: Any, where: str = "") -> Any:
    """Normalise one user-given input to an InputSpec, InputList or Value.

    A shape (list/tuple of ints; a bare int n is the shape (n,)), an InputSpec, an array (numpy
    or NDArray), a table as in [tool.hybridlint.examples], a float/bool/None (passed as is), or
    a list/tuple of any of these (one list argument). `where` names the input in errors.
    """
    try:
        return _to_spec(value, where)
    except ExampleError as exc:
        if where and not str(exc).startswith(where):
            raise ExampleError(f"{where}: {exc}") from None
        raise


def _to_spec(value: Any, where: str) -> Any:
    if isinstance(value, InputSpec):
        _check_dtype(value.dtype)
        return value
    if isinstance(value, (InputList, Value)):
        return value
    if isinstance(value, np.ndarray):
        _check_dtype(str(value.dtype))
        return InputSpec(tuple(value.shape), str(value.dtype), value.tolist())
    if hasattr(value, "asnumpy"):  # an NDArray of either backend
        arr = value.asnumpy()
        return InputSpec(tuple(arr.shape), str(arr.dtype), arr.tolist())
    if isinstance(value, Mapping):
        return _table(value, where)
    if value is None or isinstance(value, (bool, float)):
        return Value(value)
    if isinstance(value, int):
        if value < 0:
            raise ExampleError(f"a shape is a list of non-negative integers, got {value!r}")
        return InputSpec((value,))
    if isinstance(value, (tuple, list)):
        if all(isinstance(d, int) and not isinstance(d, bool) for d in value):
            return InputSpec(_shape(value))
        kind = "tuple" if isinstance(value, tuple) else "list"
        return InputList(tuple(to_spec(v, f"{where}[{i}]") for i, v in enumerate(value)), kind)
    raise ExampleError(
        f"cannot use {value!r} as an input: give a shape like (2, 3), "
        "{shape=..., dtype=...}, an array, a list of inputs, a float or None"
    )


def _table(value: Mapping, where: str) -> Any:
    unknown = set(value) - set(TABLE_KEYS)
    if unknown:
        raise ExampleError(
            f"unknown input field(s) {sorted(unknown)}; use shape, dtype, "
            "value, low, high, list, tuple, int, float, bool, str or none"
        )
    kinds = [k for k in ("list", "tuple", "int", "float", "bool", "str", "none") if k in value]
    if kinds:
        if len(value) != 1:
            raise ExampleError(f"`{kinds[0]}` stands alone in an input table, got {sorted(value)}")
        key, item = kinds[0], value[kinds[0]]
        if key in ("list", "tuple"):
            if not isinstance(item, (list, tuple)):
                raise ExampleError(f"`{key}` must be a list of inputs, got {item!r}")
            return InputList(
                tuple(to_spec(v, f"{where}.{key}[{i}]") for i, v in enumerate(item)), key
            )
        if key == "none":
            if item is not True:
                raise ExampleError("write an input None as { none = true }")
            return Value(None)
        kind = SCALAR_KEYS[key]
        ok = isinstance(item, kind) and (kind is bool or not isinstance(item, bool))
        if kind is float and isinstance(item, int) and not isinstance(item, bool):
            item, ok = float(item), True
        if not ok:
            article = "an" if kind is int else "a"
            raise ExampleError(f"`{key}` must be {article} {kind.__name__}, got {item!r}")
        return Value(item)
    dtype = str(value.get("dtype", "float32"))
    _check_dtype(dtype)
    low, high = _bound(value, "low"), _bound(value, "high")
    if "value" in value:
        try:
            arr = np.array(value["value"], dtype=dtype)
        except (TypeError, ValueError) as exc:
            raise ExampleError(f"`value` is not a {dtype} array: {exc}") from None
        return InputSpec(tuple(arr.shape), dtype, arr.tolist())
    if "shape" not in value:
        raise ExampleError(
            "an input table needs `shape` or `value` (or list, tuple, int, float, bool, str, none)"
        )
    if low is not None and high is not None and not low < high:
        raise ExampleError(f"`low` ({low}) must be less than `high` ({high})")
    return InputSpec(_shape(value["shape"]), dtype, low=low, high=high)


def _bound(value: Mapping, key: str) -> Optional[float]:
    if key not in value:
        return None
    bound = value[key]
    if isinstance(bound, bool) or not isinstance(bound, (int, float)):
        raise ExampleError(f"`{key}` must be a number, got {bound!r}")
    return bound


def _shape(value: Any) -> Tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value
    ):
        raise ExampleError(f"a shape is a list of non-negative integers, got {value!r}")
    return tuple(value)


def _check_dtype(dtype: str) -> None:
    if dtype not in FLOAT_DTYPES + INT_DTYPES + BOOL_DTYPES:
        raise ExampleError(
            f"unsupported dtype {dtype!r}; use one of "
            f"{', '.join(FLOAT_DTYPES + INT_DTYPES + BOOL_DTYPES)}"
        )


def make_arrays(specs: Sequence[Any], seed: int) -> List[Any]:
    """The inputs of one example (arrays, lists of them, plain values), the same for every
    run with the same seed."""
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


def parse_input_option(text: str) -> Any:
    """Parse one `--input`: `2,64,8,8` (float32), `2,10:int32`, or any input of the
    `[tool.hybridlint.examples]` format written as a TOML inline value, e.g.
    `[[2, 4], [2, 4]]` (a list of two arrays), `{ shape = [2], dtype = "int32", high = 10 }`,
    `{ float = 0.5 }` or `{ none = true }`."""
    stripped = text.strip()
    if stripped[:1] in "[{":
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # Python < 3.11
            import tomli as tomllib
        try:
            value = tomllib.loads(f"v = {stripped}")["v"]
        except tomllib.TOMLDecodeError as exc:
            raise ExampleError(f"--input {text!r} is not a TOML value: {exc}") from None
        return to_spec(value, f"--input {text!r}")
    dims, _, dtype = stripped.partition(":")
    try:
        shape = tuple(int(d) for d in dims.split(",") if d.strip())
    except ValueError:
        raise ExampleError(
            f"--input expects comma-separated dimensions like 2,64,8,8 "
            f"(optionally :dtype) or a TOML value like [[2, 4], [2, 4]], "
            f"got {text!r}"
        ) from None
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
        if isinstance(value, list):
            if not value:
                raise ExampleError(f"example {key!r}: an empty list of examples")
            for i, entry in enumerate(value):
                out.setdefault(path, []).append(_example_entry(f"{key!r}[{i}]", name, entry))
        else:
            out.setdefault(path, []).append(_example_entry(repr(key), name, value))
    return out


def _example_entry(key: str, name: str, entry: Any) -> Example:
    if not isinstance(entry, Mapping):
        raise ExampleError(f"example {key}: expected a table with `inputs`, got {entry!r}")
    unknown = set(entry) - {"inputs", "kwargs"}
    if unknown:
        raise ExampleError(f"example {key}: unknown field(s) {sorted(unknown)}")
    inputs = entry.get("inputs")
    if not isinstance(inputs, list) or not inputs:
        raise ExampleError(f"example {key}: `inputs` must be a non-empty list of inputs")
    kwargs = entry.get("kwargs", {})
    if not isinstance(kwargs, Mapping):
        raise ExampleError(f"example {key}: `kwargs` must be a table")
    specs = tuple(to_spec(x, f"example {key}: inputs[{i}]") for i, x in enumerate(inputs))
    return Example(name, specs, config_kwargs(kwargs))


@dataclass(frozen=True)
class ChildBlock:
    """A constructor argument that is itself a block (a backbone, a base cell): the class or
    factory `name`, looked up in the example's own module (`Backbone`, or a dotted path from
    a name it imports: `gluon.rnn.LSTMCell`), called with `kwargs` in the worker, where the
    block under check is built (see :func:`build_children`)."""

    name: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    called: bool = True  # False: `{ class = "nn.BatchNorm" }`, the class itself is passed


def config_kwargs(kwargs: Mapping[str, Any]) -> Dict[str, Any]:
    """Constructor kwargs from TOML, which has no null: `{ none = true }` is None (the same
    spelling as an input's), at any depth (`in_size = [{ none = true }, 64]`); `{ block =
    "Backbone", kwargs = {...} }` is a block built for the example (:class:`ChildBlock`), `{
    class = "nn.BatchNorm" }` that class itself (a `norm_layer` the block builds its layers
    with), and `{ numpy = [...], dtype = "float32" }` a numpy array (`bin_centers`)."""

    def value(item: Any) -> Any:
        if is_none_table(item):
            return None
        if is_block_table(item):
            if not isinstance(item["block"], str) or not isinstance(
                item.get("kwargs", {}), Mapping
            ):
                raise ExampleError(
                    f'a child block is {{ block = "Class", kwargs = {{ ... }} }} (got {dict(item)!r})'
                )
            return ChildBlock(item["block"], config_kwargs(item.get("kwargs", {})))
        if is_class_table(item):
            if not isinstance(item["class"], str):
                raise ExampleError(f'a class is {{ class = "nn.BatchNorm" }} (got {dict(item)!r})')
            return ChildBlock(item["class"], called=False)
        if is_numpy_table(item):
            try:
                return np.array(item["numpy"], dtype=item.get("dtype", "float32"))
            except (TypeError, ValueError) as exc:
                raise ExampleError(f"a numpy kwarg: {exc}") from None
        if isinstance(item, Mapping):
            return {k: value(v) for k, v in item.items()}
        if isinstance(item, list):
            return [value(v) for v in item]
        return item

    return {k: value(v) for k, v in kwargs.items()}


def build_children(value: Any, namespace: Mapping[str, Any]) -> Any:
    """`value` with every :class:`ChildBlock` in it built: its name looked up in
    `namespace` (the module that defines the block under check), its own kwargs built first.
    An unknown name is an ExampleError naming it."""
    if isinstance(value, ChildBlock):
        what = "child block" if value.called else "class"
        head, *rest = value.name.split(".")
        if head in namespace:
            target = namespace[head]
        else:  # a dotted path from an importable module (`mxnet.gluon.nn.BatchNorm`)
            try:
                target = importlib.import_module(head)
            except ImportError:
                raise ExampleError(
                    f"{what} {value.name!r}: {head!r} is neither defined nor imported in the "
                    "example's module, nor an importable module"
                ) from None
        for part in rest:
            try:
                target = getattr(target, part)
            except AttributeError:
                raise ExampleError(f"{what} {value.name!r}: no {part!r}") from None
        if not value.called:
            return target
        return target(**build_children(dict(value.kwargs), namespace))
    if isinstance(value, dict):
        return {k: build_children(v, namespace) for k, v in value.items()}
    if isinstance(value, list):
        return [build_children(v, namespace) for v in value]
    if isinstance(value, tuple):
        return tuple(build_children(v, namespace) for v in value)
    return value
