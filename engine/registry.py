"""The one operator registry: every op is defined here once and exposed as mx.nd.X and mx.sym.X.

An op is a numpy kernel plus what a graph needs to know without running it: its named inputs
(and aux states), its parameters with MXNet's defaults, how many outputs it has, and shape and
dtype inference (forward, and backward where MXNet fills unknown parameter shapes from data).
The eager functions (`mx.nd.X`), the symbol functions (`mx.sym.X`) and the executor all read the
same `OpDef`, so an op cannot behave differently eagerly and hybridized by accident.
See docs/architecture.md, "How to add an op".
"""

import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .. import mxnet_names as _mxnet_names  # MXNet's own operator signatures
from .base import MissingOperator, MXNetError

__all__ = [
    "OpDef",
    "Param",
    "Attrs",
    "ShapeError",
    "register",
    "get_op",
    "all_ops",
    "p_int",
    "p_float",
    "p_bool",
    "p_str",
    "p_shape",
    "p_dtype",
    "p_opt",
    "p_enum",
    "p_axis",
    "elemwise_shape",
    "same_type",
    "shape_known",
    "merge_shape",
]

Shape = Optional[Tuple[int, ...]]


class ShapeError(ValueError):
    """Inference found inconsistent shapes or types; callers wrap it into an MXNetError naming
    the node and the user's source line."""


# ----------------------------------------------------------------------------- attribute parsers
# Every parser accepts both the Python value a user passes and the string MXNet stores in JSON.


def _is_none(v) -> bool:
    return v is None or (isinstance(v, str) and v.strip() in ("None", ""))


def p_int(v) -> int:
    """An int parameter ("3" or 3)."""
    if isinstance(v, str):
        return int(float(v)) if "." in v or "e" in v else int(v)
    return int(v)


def p_float(v) -> float:
    """A float parameter."""
    return float(v)


def p_bool(v) -> bool:
    """A bool parameter: True/False/1/0 and their strings."""
    if isinstance(v, str):
        s = v.strip().lower()
        if s in ("true", "1"):
            return True
        if s in ("false", "0"):
            return False
        raise ValueError("Invalid Parameter format: expect boolean but value='{}'".format(v))
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v not in (0, 1):
        # MXNet parses str(v): 'x.reshape(2, 3)' on a Symbol binds 3 to `reverse` and fails
        raise ValueError("Invalid Parameter format: expect boolean but value='{}'".format(v))
    return bool(v)


def p_str(v) -> str:
    """A string parameter."""
    return str(v)


_INT_RE = re.compile(r"-?\d+")


def p_shape(v) -> Tuple[int, ...]:
    """A shape or axis tuple: (2, 3), [2, 3], 5, "(2, 3)", "[2,3]", "5", "()"."""
    if isinstance(v, str):
        return tuple(int(x) for x in _INT_RE.findall(v))
    if isinstance(v, (int, np.integer)):
        return (int(v),)
    return tuple(int(x) for x in v)


def p_axis(v):
    """An axis argument that may be an int or a tuple of ints (reductions): int stays int."""
    if isinstance(v, str):
        s = v.strip()
        if s.startswith(("(", "[")):
            return p_shape(s)
        return int(s)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return tuple(int(x) for x in v)


def p_dtype(v) -> np.dtype:
    """A dtype parameter, as np.dtype."""
    return np.dtype(v)


def p_opt(parser: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """Parser for an optional value: None or "None" stays None."""

    def parse(v):
        return None if _is_none(v) else parser(v)

    parse.__name__ = "opt_" + getattr(parser, "__name__", "value")
    return parse


def p_enum(*choices: str) -> Callable[[Any], str]:
    """A parser accepting one of `choices` (MXNet's enum parameters)."""

    def parse(v):
        s = str(v)
        if s not in choices:
            raise ValueError("must be one of {}, got {!r}".format(list(choices), s))
        return s

    parse.__name__ = "enum"
    return parse


class Param:
    """One operator parameter: its parser and MXNet's default (`REQUIRED` if none)."""

    __slots__ = ("parser", "default")
    REQUIRED = object()

    def __init__(self, parser: Callable[[Any], Any], default: Any = REQUIRED):
        self.parser = parser
        self.default = default


class Attrs:
    """Parsed parameters of one op call, read by kernels as attributes (`attrs.num_hidden`)."""

    def __init__(self, values: Dict[str, Any]):
        self.__dict__.update(values)

    def get(self, key, default=None):
        return self.__dict__.get(key, default)

    def __repr__(self) -> str:
        return "Attrs({})".format(self.__dict__)


def attr_to_str(key: str, value) -> str:
    """How MXNet's Python front end stringifies an op parameter for the graph."""
    if key == "dtype" and not isinstance(value, str) and value is not None:
        return np.dtype(value).name
    if isinstance(value, list):
        value = tuple(value)
    return str(value)


# ----------------------------------------------------------------------------- shape helpers


def shape_known(s: Shape) -> bool:
    """A shape is fully known when present and no dim is 0 (MXNet 1.x: 0 = unknown dim)."""
    return s is not None and 0 not in s


def merge_shape(a: Shape, b: Shape) -> Shape:
    """Unify two partial shapes or raise ShapeError; None and 0-dims are unknown."""
    if a is None:
        return b
    if b is None:
        return a
    if len(a) != len(b):
        raise ShapeError("expected {}, got {}".format(fmt_shape(a), fmt_shape(b)))
    out = []
    for x, y in zip(a, b):
        if x and y and x != y:
            raise ShapeError("expected {}, got {}".format(fmt_shape(a), fmt_shape(b)))
        out.append(x or y)
    return tuple(out)


def fmt_shape(s: Shape) -> str:
    """MXNet prints shapes as [2,3]."""
    return "None" if s is None else "[" + ",".join(str(d) for d in s) + "]"


def elemwise_shape(attrs, in_shapes: List[Shape]):
    """All inputs and the output share one shape (elemwise_add, relu, ...)."""
    merged = None
    for i, s in enumerate(in_shapes):
        try:
            merged = merge_shape(merged, s)
        except ShapeError:
            raise ShapeError(
                "Incompatible attr at {}-th input: expected {}, got {}".format(
                    i, fmt_shape(merged), fmt_shape(s)
                )
            ) from None
    return [merged] * len(in_shapes), [merged]


def float_only(t: Optional[np.dtype]) -> None:
    """MXNet's check in the kernels that compute on floating-point data only (softmax and its
    kin, hard_sigmoid, BilinearResize2D): an integer input fails when the op runs, eagerly or
    hybridized; graph type inference lets it through, as MXNet's does."""
    if t is not None and t.kind != "f":
        raise ShapeError("This operation only support floating point types, not {}".format(t.name))


def same_type(attrs, in_types: List[Optional[np.dtype]]):
    """All inputs and outputs share the first known dtype."""
    known = next((t for t in in_types if t is not None), None)
    for i, t in enumerate(in_types):
        if t is not None and known is not None and t != known:
            raise ShapeError(
                "Incompatible dtype at {}-th input: expected {}, got {}".format(
                    i, known.name, t.name
                )
            )
    return [known] * len(in_types), [known]


# ----------------------------------------------------------------------------- the registry


class OpDef:
    """Everything the engine knows about one operator (see `register`)."""

    # Set after registration by the few ops that have them, read with getattr(op, name, None):
    # the outputs MXNet's graph JSON counts (ops/_util.json_outputs), and backward shape
    # inference (inputs' shapes from the outputs', as nn's FullyConnected and rnn's RNN do),
    # and inference only a compiling plan runs (`_while_loop`: executor.infer_graph_shapes).
    json_num_outputs: Callable[[Any], int]
    # an output whose shape depends on the input's values (`_contrib_boolean_mask`): a plan
    # holding it runs node by node, as MXNet runs a graph with dynamic shapes
    dynamic_shape: bool = False
    infer_shape_backward: Callable[..., Any]
    infer_shape_run: Callable[..., Any]

    def __init__(
        self,
        name,
        kernel,
        *,
        inputs,
        aux,
        params,
        num_outputs,
        output_names,
        infer_shape,
        infer_type,
        out_kernel,
        inplace,
        key_var_num_args,
        doc,
        elementwise,
        view=False,
        alias=False,
        random=False,
        inline=None,
    ):
        self.name = name
        self.kernel = kernel
        self._inputs = inputs
        self.aux = tuple(aux)
        self.params = params
        self._num_outputs = num_outputs
        self._output_names = output_names
        self.infer_shape_fn = infer_shape
        self.infer_type_fn = infer_type
        self.out_kernel = out_kernel
        self.inplace = inplace
        self.key_var_num_args = key_var_num_args
        self.variadic = inputs is None
        self.elementwise = elementwise
        self.view = view  # output may share memory with input 0 (reshape ...)
        self.alias = alias  # at inference the output *is* input 0 (identity, Dropout)
        self.random = random  # never constant-folded (random_uniform ...)
        self.inline = inline  # code generator for the executor (see executor.py)
        self.__doc__ = doc
        self._parse_cache: Dict[Any, Attrs] = {}
        self.aliases: List[str] = []

    # -- attributes
    def parse(self, kwargs: Dict[str, Any]) -> Attrs:
        """Parse user/JSON parameters, fill MXNet's defaults; cached for hashable kwargs."""
        try:
            # a call site passes its keywords in the same order every time: try that order
            # first, the sorted one (shared by all orders) second
            key: Optional[Tuple[Any, ...]]
            if not kwargs:
                key = ()
            else:
                hit = self._parse_cache.get(tuple(kwargs.items()))
                if hit is not None:
                    return hit
                key = tuple(sorted(kwargs.items()))
            hit = self._parse_cache.get(key)
            if hit is not None:
                if kwargs and len(self._parse_cache) < 4096:
                    self._parse_cache[tuple(kwargs.items())] = hit
                return hit
        except TypeError:
            key = None
        values = {}
        params = self.params
        for k, v in kwargs.items():
            p = params.get(k)
            if p is None:
                # MXNet ops without a parameter struct (broadcast_*, relu, ...) keep unknown
                # attributes unparsed instead of rejecting them (gluon's losses pass some)
                if k.startswith("__") or k == self.key_var_num_args or not params:
                    continue
                raise MXNetError(
                    "Operator {}: unknown parameter '{}' (known: {})".format(
                        self.name, k, ", ".join(sorted(params)) or "none"
                    )
                )
            try:
                values[k] = p.parser(v)
            except (TypeError, ValueError) as err:
                raise MXNetError(
                    "Operator {}: invalid value {!r} for parameter '{}': {}".format(
                        self.name, v, k, err
                    )
                ) from None
        for k, p in params.items():
            if k not in values:
                if p.default is Param.REQUIRED:
                    raise MXNetError(
                        "Operator {}: required parameter '{}' is missing".format(self.name, k)
                    )
                values[k] = p.default
        attrs = Attrs(values)
        if key is not None and len(self._parse_cache) < 4096:
            self._parse_cache[key] = attrs
        return attrs

    @property
    def declared_inputs(self) -> Tuple[str, ...]:
        """The array arguments MXNet 1.9.1's generated `mx.nd.X` / `mx.sym.X` take first, by
        position, optional ones included (FullyConnected's `bias`, softmax's `length`): a None
        there is an input not given, anything but an array an AssertionError. () for variadic
        operators (their positional arguments are all inputs)."""
        declared = self.__dict__.get("_declared_inputs")
        if declared is None:
            declared = () if self.variadic else _mxnet_names.ARRAY_ARGUMENTS.get(self.name, ())
            self.__dict__["_declared_inputs"] = declared
        return declared

    @property
    def star_inputs(self) -> bool:
        """Whether MXNet 1.9.1's generated function takes its inputs as `*data` (Concat,
        stack, add_n, UpSampling...): every positional argument must then be an array, so a
        list of arrays or a trailing `dim` raises (`nd.concat(x, y, 1)`, `nd.concat([x, y])`)."""
        return self.variadic and len(_mxnet_names.ARRAY_ARGUMENTS.get(self.name, ())) == 1

    def positional_params(self) -> Tuple[str, ...]:
        """The parameters in the order MXNet 1.9.1's generated functions take them after the
        inputs (`mx.nd.random_uniform(0, 1, (2, 3))` is low, high, shape), then any the
        engine has beyond MXNet's list."""
        order = self.__dict__.get("_positional_params")
        if order is None:
            arrays = _mxnet_names.ARRAY_ARGUMENTS.get(self.name, ())
            mxnet_order = [p for p in _mxnet_names.OPERATORS.get(self.name, ()) if p not in arrays]
            order = tuple(mxnet_order) + tuple(p for p in self.params if p not in mxnet_order)
            self.__dict__["_positional_params"] = order
        return order

    def bind_positional(
        self,
        fname: str,
        values: Sequence[Any],
        kwargs: Dict[str, Any],
        params: Optional[Sequence[str]] = None,
        check: Optional[Callable[[str, Any], None]] = None,
    ) -> List[Any]:
        """Positional parameter values fill `params` (default :meth:`positional_params`, MXNet's
        order) one by one, as Python binds MXNet's generated signature (mx.nd.X(data, 3) /
        mx.sym.X(data, 3)): a keyword for a parameter a value reaches is Python's TypeError
        (`x.reshape(-1, 3, reverse=True)`: 3 is `reverse` already), and `check(name, value)`
        may refuse a value. Returns the values past the parameters: the signature's `out` and
        `name` (nd) or `name`, `attr` and `out` (sym)."""
        params = self.positional_params() if params is None else params
        for pname, value in zip(params, values):
            if pname in kwargs:
                raise TypeError("{}() got multiple values for argument '{}'".format(fname, pname))
            if check is not None:
                check(pname, value)
            kwargs[pname] = value
        return list(values[len(params) :])

    # -- structure
    def input_names(self, attrs: Attrs, num_given: int = 0) -> List[str]:
        """Argument names followed by aux-state names, in MXNet's list_inputs order."""
        if self._inputs is None:
            n = num_given
            if self.key_var_num_args and attrs.get(self.key_var_num_args):
                n = attrs.get(self.key_var_num_args)
            return ["arg%d" % i for i in range(n)]
        names = self._inputs(attrs) if callable(self._inputs) else self._inputs
        return list(names) + list(self.aux)

    def num_outputs(self, attrs: Attrs) -> int:
        n = self._num_outputs
        return n(attrs) if callable(n) else n

    def output_names(self, attrs: Attrs) -> List[str]:
        names = self._output_names
        if names is not None:
            return list(names(attrs) if callable(names) else names)
        n = self.num_outputs(attrs)
        return ["output"] if n == 1 else ["output%d" % i for i in range(n)]

    # -- inference
    def infer_shape(self, attrs: Attrs, in_shapes: List[Shape]):
        """(input shapes with unknowns filled where possible, output shapes)."""
        if self.infer_shape_fn is not None:
            ins, outs = self.infer_shape_fn(attrs, list(in_shapes))
            return [None if s is None else tuple(s) for s in ins], [
                None if s is None else tuple(s) for s in outs
            ]
        n = self.num_outputs(attrs)
        if not all(shape_known(s) for s in in_shapes):
            return list(in_shapes), [None] * n
        outs = self._evaluate(attrs, [np.zeros(s, np.float32) for s in in_shapes])
        return list(in_shapes), [o.shape for o in outs]

    def infer_type(self, attrs: Attrs, in_types: List[Optional[np.dtype]]):
        if self.infer_type_fn is not None:
            ins, outs = self.infer_type_fn(attrs, list(in_types))
            return [None if t is None else np.dtype(t) for t in ins], [
                None if t is None else np.dtype(t) for t in outs
            ]
        ins, outs = same_type(attrs, in_types)
        return ins, outs * self.num_outputs(attrs)

    def _evaluate(self, attrs, arrays):
        with np.errstate(all="ignore"):
            res = self.kernel(attrs, *arrays)
        return list(res) if isinstance(res, (tuple, list)) else [res]


_OPS: Dict[str, OpDef] = {}
_CANONICAL: Dict[str, OpDef] = {}
_listeners: List[Callable[[str, OpDef], None]] = []


def register(
    name: str,
    *,
    inputs: Union[Sequence[str], Callable, None] = ("data",),
    aux: Sequence[str] = (),
    params: Optional[Dict[str, Param]] = None,
    num_outputs: Union[int, Callable] = 1,
    output_names=None,
    infer_shape: Optional[Callable] = None,
    infer_type: Optional[Callable] = None,
    out_kernel: Optional[Callable] = None,
    inplace: bool = False,
    key_var_num_args: Optional[str] = None,
    aliases: Sequence[str] = (),
    elementwise: bool = False,
    view: bool = False,
    alias: bool = False,
    random: bool = False,
    inline: Optional[Callable] = None,
    doc: str = "",
):
    """Decorator registering `kernel(attrs, *inputs) -> ndarray | tuple` as operator `name`.

    `inputs=None` makes the op variadic (concat, add_n, stack). `aliases` are extra names for
    the same op (the graph records `name`; auto-naming of nodes uses the name that was called).
    A name starting with `_contrib_` also lands in the `contrib` sub-namespace; other names
    starting with `_` only in `_internal`. `view`: the kernel may return a view of input 0;
    `alias`: at inference the output equals input 0 (the executor skips the op); `random`: the
    op draws random numbers (never constant-folded). `inline(step)` may return source lines the
    executor pastes into the compiled plan instead of calling `out_kernel` (hot ops only; see
    `executor.InlineStep`).
    """

    def deco(kernel):
        op = OpDef(
            name,
            kernel,
            inputs=inputs,
            aux=aux,
            params=dict(params or {}),
            num_outputs=num_outputs,
            output_names=output_names,
            infer_shape=infer_shape,
            infer_type=infer_type,
            out_kernel=out_kernel,
            inplace=inplace,
            key_var_num_args=key_var_num_args,
            doc=doc or (kernel.__doc__ or ""),
            elementwise=elementwise,
            view=view,
            alias=alias,
            random=random,
            inline=inline,
        )
        op.aliases = list(aliases)
        _CANONICAL[name] = op
        for n in (name,) + tuple(aliases):
            _OPS[n] = op
            for fn in _listeners:
                fn(n, op)
        return kernel

    return deco


def get_op(name: str) -> OpDef:
    """The OpDef registered under `name` (or alias); MissingOperator (an MXNetError and an
    engine gap) if unknown."""
    op = _OPS.get(name)
    if op is None:
        raise MissingOperator(
            "Cannot find operator {} (the hybridlint engine does not implement it yet)".format(name)
        )
    return op


def all_ops() -> Dict[str, OpDef]:
    """name or alias -> OpDef."""
    return dict(_OPS)


def on_register(listener: Callable[[str, OpDef], None]) -> None:
    """Call `listener(name, op)` for every op registered so far and every later one; this is how
    mx.nd and mx.sym get their functions even for ops registered after they were imported."""
    _listeners.append(listener)
    for n, op in list(_OPS.items()):
        listener(n, op)
