"""mx.sym / mx.symbol: graph construction, one function per registered op.

Functions appear here as ops are registered (`registry.on_register`): `foo` -> `mx.sym.foo`,
`_foo` -> `mx.sym._internal._foo`, `_contrib_foo` -> `mx.sym.contrib.foo`. There is no
`mx.sym.array`, exactly as in MXNet (under as_mxnet() it is MXNet's AttributeError: see
hybridlint/mxnet_names.py).
"""

import math
import numbers
import sys
import types
from typing import Any

import numpy as np

from .. import attribute as _attribute
from .. import name as _name_mod
from .. import registry as _registry
from ..base import MXNetError, _type_name
from .symbol import Node, Symbol, load_json, user_source

_this = sys.modules[__name__]

# namespaces filled as ops register (Any: their attributes are made at run time)
contrib: Any = types.ModuleType(__name__ + ".contrib", "mx.sym.contrib: contrib operators")
_internal: Any = types.ModuleType(__name__ + "._internal", "mx.sym._internal: internal operators")
op: Any = types.ModuleType(__name__ + ".op", "mx.sym.op: all operators")
random: Any = types.ModuleType(__name__ + ".random", "mx.sym.random: sampling")
linalg: Any = types.ModuleType(__name__ + ".linalg", "mx.sym.linalg: linear algebra operators")
for _m in (contrib, _internal, op, random, linalg):
    sys.modules[_m.__name__] = _m


def var(
    name: str,
    attr=None,
    shape=None,
    lr_mult=None,
    wd_mult=None,
    dtype=None,
    init=None,
    stype=None,
    **kwargs,
) -> Symbol:
    """A placeholder variable; `shape`/`dtype` become hints for inference."""
    if not isinstance(name, str):
        raise TypeError("Expect a string for variable `name`")
    user = _attribute.current().get(attr)  # AttrScope's attributes, `attr` wins
    if shape is not None:
        user["__shape__"] = str(tuple(shape))
    if lr_mult is not None:
        user["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        user["__wd_mult__"] = str(wd_mult)
    if dtype is not None:
        user["__dtype__"] = str(_dtype_code(dtype))
    if init is not None:
        user["__init__"] = init if isinstance(init, str) else init.dumps()
    if stype is not None:
        # MXNet stores the storage type id: default 0, row_sparse 1, csr 2
        user["__storage_type__"] = str({"default": 0, "row_sparse": 1, "csr": 2}.get(stype, stype))
    for k, v in kwargs.items():
        if k.startswith("__") and k.endswith("__"):
            user[k] = str(v)
        else:
            raise ValueError(
                "Attribute name=%s is not supported. Additional attributes must "
                "start and end with double underscores, e.g, __yourattr__" % k
            )
    return Symbol([(Node(None, name, {}, None, [], user_source(), user), 0)])


Variable = var

# MXNet's dtype codes, used in the __dtype__ attribute of variables
_DTYPE_CODES = {
    np.dtype(np.float32): 0,
    np.dtype(np.float64): 1,
    np.dtype(np.float16): 2,
    np.dtype(np.uint8): 3,
    np.dtype(np.int32): 4,
    np.dtype(np.int8): 5,
    np.dtype(np.int64): 6,
    np.dtype(np.bool_): 7,
}
DTYPE_FROM_CODE = {v: k for k, v in _DTYPE_CODES.items()}


def _dtype_code(dtype) -> int:
    return _DTYPE_CODES[np.dtype(dtype)]


def Group(symbols) -> Symbol:
    """One Symbol whose outputs are the outputs of `symbols`, in order."""
    if not symbols or any(not isinstance(s, Symbol) for s in symbols):
        raise TypeError("Expected a list of symbols as input")
    return Symbol([o for s in symbols for o in s._outputs])


def load(fname: str) -> Symbol:
    """Load a graph saved with `Symbol.save` (ours or MXNet's); a bad name fails as in MXNet
    (TypeError for a non-str such as a Path, MXNetError from dmlc's file system)."""
    if not isinstance(fname, str):
        raise TypeError("fname need to be string")
    try:
        with open(fname, encoding="utf-8", newline="") as f:  # UTF-8 as MXNet writes it
            text = f.read()
    except FileNotFoundError as err:
        raise MXNetError(
            'LocalFileSystem: Check failed: allow_null: :Open "%s": %s' % (fname, err.strerror)
        ) from None
    return load_json(text)


def _make_node_symbol(
    op_name, inputs, params, hint=None, name=None, user_attrs=None, input_names=None
):
    """Create the node for `op_name` applied to Symbols `inputs` (missing named inputs, like
    FullyConnected's weight, become variables `<name>_<input>` carrying the op's attributes,
    as MXNet's do)."""
    opdef = _registry.get_op(op_name)
    user_attrs = _attribute.current().get(user_attrs)  # AttrScope's attributes, `attr` wins
    parse_params = dict(params)
    if opdef.key_var_num_args and opdef.variadic and opdef.key_var_num_args not in parse_params:
        parse_params[opdef.key_var_num_args] = len(inputs)
    parsed = opdef.parse(parse_params)
    attrs = {k: _registry.attr_to_str(k, v) for k, v in parse_params.items()}
    node_name = _name_mod.current().get(name, hint or op_name.lower())
    source = user_source()
    wanted = opdef.input_names(parsed, len(inputs))

    def missing(n):  # MXNet gives the variable all the node's attributes, `attr=` ones too
        return Symbol(
            [
                (
                    Node(
                        None,
                        "%s_%s" % (node_name, n),
                        {},
                        None,
                        [],
                        source,
                        {**attrs, **(user_attrs or {})},
                    ),
                    0,
                )
            ]
        )

    if input_names is not None:
        inputs = [input_names[n] if n in input_names else missing(n) for n in wanted]
    elif len(inputs) < len(wanted):
        inputs = list(inputs) + [missing(n) for n in wanted[len(inputs) :]]
    elif len(inputs) > len(wanted):
        raise MXNetError(
            "Operator {} takes {} input(s) {}, got {}".format(
                opdef.name, len(wanted), wanted, len(inputs)
            )
        )
    entries = []
    for s in inputs:
        if len(s._outputs) != 1:
            raise MXNetError(
                "Operator {}: an input is a group of {} outputs; select one with sym[i]".format(
                    opdef.name, len(s._outputs)
                )
            )
        entries.append(s._outputs[0])
    node = Node(opdef, node_name, attrs, parsed, entries, source, dict(user_attrs or {}))
    return Symbol([(node, i) for i in range(node.num_outputs())])


def _make_sym_function(opdef, fname):
    hint = fname.lower()

    declared = opdef.declared_inputs
    star = opdef.star_inputs

    def sym_function(*args, name=None, attr=None, out=None, **kwargs):
        _check_symbol_arguments(opdef, args, kwargs)
        inputs = []
        extra = []
        by_name = None  # inputs after a skipped one keep their slot: sym.X(x, None, b) binds b
        for index, a in enumerate(args):
            if star and not isinstance(a, Symbol):  # `def Concat(*data, **kwargs)`
                raise AssertionError(
                    "Positional arguments must be Symbol instances, but got %s" % (a,)
                )
            if a is None:  # an optional input not given (Dense's bias)
                if index < len(declared) and by_name is None:
                    by_name = {}
                continue
            if index < len(declared) and not isinstance(a, Symbol):
                # MXNet's generated functions take every array argument first, by position:
                # `sym.softmax(x, -1)` gives -1 as `length`
                raise AssertionError(
                    "Argument %s must be Symbol instances, but got %s" % (declared[index], a)
                )
            if by_name is not None and index < len(declared):
                # MXNet passes its array arguments to the node by name, so a None before
                # `bias` leaves `weight` to a new variable (FullyConnected(x, None, b))
                by_name[declared[index]] = a
            elif isinstance(a, Symbol):
                inputs.append(a)
            elif isinstance(a, (list, tuple)) and a and isinstance(a[0], Symbol) and opdef.variadic:
                inputs.extend(a)
            else:
                extra.append(a)
        if extra:
            rest = opdef.bind_positional(fname, extra, kwargs)
            if rest:  # MXNet's signature: inputs, params, name, attr, out
                most = len(_all_input_names(opdef, kwargs)) + len(opdef.params) + 3
                if len(rest) > 3 or len(args) > most:
                    raise TypeError(
                        "{}() takes from 0 to {} positional arguments but {} were given".format(
                            fname, most, len(args)
                        )
                    )
                name, attr, out = (list(rest) + [name, attr, out][len(rest) :])[:3]
        clash = [k for k in declared[: len(args)] if k in kwargs]
        if clash:  # sym.FullyConnected(x, None, weight=w): a Python TypeError in MXNet
            raise TypeError("{}() got multiple values for argument '{}'".format(fname, clash[0]))
        named = {k: v for k, v in kwargs.items() if isinstance(v, Symbol)}
        for k in named:
            del kwargs[k]
        if by_name:
            named = {**dict(zip(declared, inputs)), **by_name, **named}
            inputs = []
        for k in [k for k, v in kwargs.items() if v is None and k in declared]:
            del kwargs[k]  # `bias=None`: an input not given, as in MXNet
        if named:
            parsed = opdef.parse(kwargs)
            wanted = opdef.input_names(parsed, len(inputs))
            slots = dict(zip(wanted, inputs))
            slots.update(named)
            unknown = [k for k in slots if k not in wanted]
            if unknown:
                raise MXNetError(
                    "Operator {}: unknown input(s) {} (inputs are {})".format(
                        opdef.name, unknown, wanted
                    )
                )
            return _make_node_symbol(
                opdef.name, [], kwargs, hint=hint, name=name, user_attrs=attr, input_names=slots
            )
        return _make_node_symbol(opdef.name, inputs, kwargs, hint=hint, name=name, user_attrs=attr)

    sym_function.__name__ = fname
    sym_function.__qualname__ = fname
    sym_function.__doc__ = opdef.__doc__
    return sym_function


def _check_symbol_arguments(opdef, args, kwargs) -> None:
    """MXNet's generated symbol functions assert that every input is a Symbol: an NDArray (say
    `self.weight.data()` inside hybrid_forward) given as an input fails with MXNet's
    AssertionError, "Argument weight must be Symbol instances, but got <the array>", or for
    variadic ops "Positional arguments must be Symbol instances, but got ..."."""
    from ..ndarray.ndarray import NDArray

    given = [i for i, a in enumerate(args) if isinstance(a, NDArray)]
    keyed = [k for k, v in kwargs.items() if isinstance(v, NDArray) and k not in opdef.params]
    if not given and not keyed:
        return
    if opdef.variadic and given:
        raise AssertionError(
            "Positional arguments must be Symbol instances, but got %s" % str(args[given[0]])
        )
    if keyed:
        raise AssertionError(
            "Argument %s must be Symbol instances, but got %s" % (keyed[0], str(kwargs[keyed[0]]))
        )
    names = _all_input_names(opdef, kwargs)
    index = given[0]
    if index < len(names):
        raise AssertionError(
            "Argument %s must be Symbol instances, but got %s" % (names[index], str(args[index]))
        )


def _all_input_names(opdef, kwargs):
    """The op's input names as MXNet's signature lists them (optional inputs included)."""
    try:
        parsed = opdef.parse({k: v for k, v in kwargs.items() if k in opdef.params})
    except Exception:  # noqa: BLE001 - a required parameter is missing: MXNet names inputs anyway
        return []
    return opdef.input_names(parsed)


def _install(fname, opdef):
    fn = _make_sym_function(opdef, fname)
    setattr(op, fname, fn)
    if fname.startswith("_contrib_"):
        short = fname[len("_contrib_") :]  # MXNet auto-names contrib nodes "arange_like0"
        setattr(contrib, short, _make_sym_function(opdef, short))
        setattr(_internal, fname, fn)
    elif fname.startswith("_linalg_"):  # mx.sym.linalg.gemm2, nodes named gemm20
        short = fname[len("_linalg_") :]
        setattr(linalg, short, _make_sym_function(opdef, short))
        setattr(_internal, fname, fn)
    elif fname.startswith("_"):
        setattr(_internal, fname, fn)
    elif fname not in ("maximum", "minimum", "power", "hypot"):
        setattr(_this, fname, fn)


def _sym_helper(
    name, op_name, scalar_name, rscalar_name, hint, shint, rshint=None, numbers_fn=None
):
    def helper(left, right):
        if numbers_fn is not None and all(isinstance(v, numbers.Number) for v in (left, right)):
            return numbers_fn(left, right)  # two numbers: MXNet answers in Python
        if isinstance(left, Symbol) and isinstance(right, Symbol):
            return _make_node_symbol(op_name, [left, right], {}, hint=hint)
        # MXNet 1.9.1's _ufunc_helper: a number on the other side, else TypeError (an NDArray
        # beside a Symbol, `mx.sym.maximum(x, nd_array)`)
        if isinstance(left, Symbol) and isinstance(right, numbers.Number):
            return _make_node_symbol(scalar_name, [left], {"scalar": right}, hint=shint)
        if isinstance(right, Symbol) and isinstance(left, numbers.Number):
            return _make_node_symbol(rscalar_name, [right], {"scalar": left}, hint=rshint or shint)
        raise TypeError("types (%s, %s) not supported" % (_type_name(left), _type_name(right)))

    helper.__name__ = name
    helper.__doc__ = "Elementwise {} of Symbols (no broadcasting) or with a scalar.".format(name)
    return helper


maximum = _sym_helper(
    "maximum",
    "_maximum",
    "_maximum_scalar",
    "_maximum_scalar",
    "_maximum",
    "_maximumscalar",
    numbers_fn=lambda a, b: a if a > b else b,
)
minimum = _sym_helper(
    "minimum",
    "_minimum",
    "_minimum_scalar",
    "_minimum_scalar",
    "_minimum",
    "_minimumscalar",
    numbers_fn=lambda a, b: a if a < b else b,
)
power = _sym_helper(
    "power",
    "_power",
    "_power_scalar",
    "_rpower_scalar",
    "_power",
    "_powerscalar",
    "_rpowerscalar",
    numbers_fn=lambda a, b: a**b,
)
pow = power  # noqa: A001 (MXNet 1.9.1's mx.sym.pow, power's alias)
hypot = _sym_helper(
    "hypot",
    "_hypot",
    "_hypot_scalar",
    "_hypot_scalar",
    "_hypot",
    "_hypotscalar",
    numbers_fn=math.hypot,
)


def zeros(shape, dtype=None, **kwargs) -> Symbol:
    """A constant node of zeros (float32 unless `dtype`)."""
    return _internal._zeros(shape=shape, dtype="float32" if dtype is None else dtype, **kwargs)


def ones(shape, dtype=None, **kwargs) -> Symbol:
    """A constant node of ones (float32 unless `dtype`)."""
    return _internal._ones(shape=shape, dtype="float32" if dtype is None else dtype, **kwargs)


def full(shape, val, dtype=None, **kwargs) -> Symbol:
    """A constant node filled with `val`."""
    return _internal._full(
        shape=shape, value=float(val), dtype="float32" if dtype is None else dtype, **kwargs
    )


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """A node of evenly spaced values (float32 unless `dtype`)."""
    return _internal._arange(
        start=start,
        stop=stop,
        step=step,
        repeat=repeat,
        infer_range=infer_range,
        name=name,
        dtype="float32" if dtype is None else dtype,
    )


def eye(N, M=0, k=0, dtype=None, **kwargs) -> Symbol:
    """A constant node: N x M matrix with ones on diagonal k (float32 unless `dtype`)."""
    return _internal._eye(N=N, M=M, k=k, dtype="float32" if dtype is None else dtype, **kwargs)


def linspace(start, stop, num, endpoint=True, name=None, dtype=None) -> Symbol:
    """A constant node of `num` evenly spaced values over [start, stop]."""
    return _internal._linspace(
        start=start,
        stop=stop,
        num=num,
        endpoint=endpoint,
        name=name,
        dtype="float32" if dtype is None else dtype,
    )


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False) -> Symbol:
    """numpy-style split: an int gives equal sections, a tuple gives split points."""
    from ..ndarray import _split_v2_args

    indices, sections = _split_v2_args(indices_or_sections)
    return _internal._split_v2(
        ary, indices=indices, axis=axis, squeeze_axis=squeeze_axis, sections=sections
    )


op.split_v2 = split_v2  # the Symbol.split_v2 fluent method dispatches through mx.sym.op


def _random_uniform(low=0, high=1, shape=(), dtype=None, **kwargs) -> Symbol:
    return _internal._random_uniform(
        low=low, high=high, shape=shape, dtype=dtype or "float32", **kwargs
    )


def _random_normal(loc=0, scale=1, shape=(), dtype=None, **kwargs) -> Symbol:
    return _internal._random_normal(
        loc=loc, scale=scale, shape=shape, dtype=dtype or "float32", **kwargs
    )


random.uniform = _random_uniform
random.normal = _random_normal
_registry.on_register(_install)
