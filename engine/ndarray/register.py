"""Generates the eager `mx.nd.<op>` functions from the op registry.

The generated function is the whole eager path: split arrays from parameters, parse parameters
(cached per distinct keyword set), call the kernel, wrap the result. Nothing else runs, except
MXNet's dtype check when the input arrays do not all share one dtype (see `type_mismatch`).
"""

import re
from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from ... import mxnet_names as _mxnet_names
from ..base import MXNetError
from ..context import _CURRENT, cpu_only as _cpu_only
from ..registry import Attrs, OpDef, ShapeError, fmt_shape
from .ndarray import _ASSIGN_FAILED, NDArray, wrap

_np_ndarray = np.ndarray


def _wrap_result(res, nout):
    if nout == 1 and type(res) is _np_ndarray:
        return wrap(res)
    if isinstance(res, (tuple, list)):
        return [wrap(r if type(r) is _np_ndarray else np.asarray(r)) for r in res]
    return wrap(np.asarray(res))


def _error(op: OpDef, arrays, err) -> MXNetError:
    shapes = ", ".join(fmt_shape(a.shape) for a in arrays)
    return MXNetError("Error in operator {}: {} (input shapes: {})".format(op.name, err, shapes))


_VERDICTS: Dict[Tuple[OpDef, Attrs, tuple], Optional[str]] = {}
# registry.same_type's wording (the symbolic path's), reworded into MXNet's eager one
_INCOMPATIBLE_DTYPE = re.compile(r"^Incompatible dtype at ")


def type_mismatch(op: OpDef, attrs: Attrs, dtypes: Tuple[np.dtype, ...]) -> Optional[str]:
    """Why MXNet's imperative call rejects inputs of these `dtypes`, or None if it accepts them.

    MXNet runs the op's dtype inference before every eager call and fails on a conflict; the
    engine's kernels would silently let numpy promote instead (float32 + float64 -> float64).
    Only called when the inputs' dtypes differ (the hot all-same case never gets here), so
    inference runs once per (op, attrs, dtypes): the verdict is cached.
    """
    key = (op, attrs, dtypes)  # parsed attrs are cached objects: hashed by identity
    try:
        return _VERDICTS[key]
    except KeyError:
        pass
    given = [np.dtype(t) for t in dtypes]
    try:
        ins, _ = op.infer_type(attrs, list(given))
        verdict = None
        for i, (want, got) in enumerate(zip(ins, given)):
            if want is not None and want != got:
                verdict = "{}{}-th input: expected {}, got {}".format(
                    _ASSIGN_FAILED, i, want.name, got.name
                )
                break
    except ShapeError as err:
        verdict = _INCOMPATIBLE_DTYPE.sub(_ASSIGN_FAILED, str(err), count=1)
    if len(_VERDICTS) < 4096:
        _VERDICTS[key] = verdict
    return verdict


def check_types(op: OpDef, attrs: Attrs, arrays: Sequence[np.ndarray]) -> None:
    """Raise MXNet's eager dtype error when the input arrays' dtypes conflict for `op`."""
    verdict = type_mismatch(op, attrs, tuple(a.dtype for a in arrays))
    if verdict is not None:
        raise MXNetError("Error in operator {}: {}".format(op.name, verdict))


def _arity_error(op: OpDef, want, arrays) -> MXNetError:
    return MXNetError(
        "Operator {} expects {} input(s) {}, got {}".format(
            op.name, len(want), list(want), len(arrays)
        )
    )


def _owned(res):
    """MXNet's eager ops return new arrays (only NDArray.reshape and indexing alias), so an
    in-place update of a view op's result must not reach its input: copy views."""
    if isinstance(res, (tuple, list)):
        return type(res)(r.copy() if r.base is not None else r for r in res)
    return res.copy() if res.base is not None else res


def _out_and_name(fname: str, rest: list, out, name, count: int):
    """`out` and `name` from the positional arguments after an operator's parameters, as
    MXNet 1.9.1's generated `def op(data=None, ..., out=None, name=None, **kwargs)` binds them:
    `nd.sqrt(x, y)` writes into y; a non-array `out` is the TypeError MXNet raises on it."""
    if len(rest) > 2:  # Python's message on MXNet's generated signature
        raise TypeError(
            "{}() takes from 0 to {} positional arguments but {} were given".format(
                fname, count - len(rest) + 2, count
            )
        )
    given = {"out": out, "name": name}
    for key, value in zip(("out", "name"), rest):
        if given[key] is not None:
            raise TypeError("{}() got multiple values for argument '{}'".format(fname, key))
        given[key] = value
    out = given["out"]
    if out is not None and not isinstance(out, (NDArray, list, tuple)):
        raise TypeError("object of type '{}' has no len()".format(type(out).__name__))
    return out, given["name"]


def make_nd_function(op: OpDef, fname: str) -> Callable:
    """`mx.nd.<fname>`: eager call of `op`."""
    kernel = op.kernel
    parse = op.parse
    fixed_inputs = (
        None if (op.variadic or callable(op._inputs)) else tuple(op._inputs) + tuple(op.aux)
    )
    single = not callable(op._num_outputs) and op._num_outputs == 1
    view = op.view  # kernels that may return views of their input (reshape, transpose...)
    cache_get = op._parse_cache.get

    declared = op.declared_inputs
    star = op.star_inputs
    # more positional arrays than MXNet's array arguments: the rest go to parameters or `out`,
    # optional inputs included (FullyConnected's bias, softmax's length: their count is the
    # signature's, whatever the attributes make of them); Custom's is `Custom(*data, **kwargs)`
    fixed_count = bool(declared) and not op.variadic and op.name != "Custom"
    most_arrays = len(declared) if fixed_count else float("inf")
    mxnet_params = [
        p for p in _mxnet_names.OPERATORS.get(op.name, ()) if p not in declared
    ] or op.positional_params()

    def _slow_args(args, kwargs):
        """Positional parameters, lists of arrays (variadic ops), Symbols (an error)."""
        arrays = []
        extra = []
        for index, a in enumerate(args):
            if star and not isinstance(a, NDArray):  # `def Concat(*data, **kwargs)`
                raise AssertionError(
                    "Positional arguments must have NDArray type, but got %s" % (a,)
                )
            if index < len(declared):
                # MXNet's generated functions take every array argument first, by position
                # (optional ones included), skip a None (an input not given: FullyConnected's
                # bias) and assert the others' type: `nd.broadcast_mul(x, 2.0)` and
                # `nd.softmax(x, -1)` (-1 is `length`) raise, they are no attributes
                if isinstance(a, NDArray):
                    arrays.append(a._data)
                elif a is not None:
                    raise AssertionError(
                        "Argument {} must have NDArray type, but got {}".format(declared[index], a)
                    )
                continue
            if isinstance(a, NDArray) and fixed_count:
                extra.append(a)  # past MXNet's array arguments: a parameter's place, or out
            elif isinstance(a, NDArray):
                arrays.append(a._data)
            elif isinstance(a, (list, tuple)) and a and isinstance(a[0], NDArray) and op.variadic:
                arrays.extend(x._data for x in a)
            elif type(a).__name__ == "Symbol":
                # mx.nd.X(symbol): MXNet's generated functions assert their input types
                names = fixed_inputs or ()
                raise AssertionError(
                    "Argument {} must have NDArray type, but got {}".format(
                        names[len(arrays)] if len(arrays) < len(names) else "data", a
                    )
                )
            else:
                extra.append(a)
        # MXNet's parameters by position, every one: a keyword for one is a clash
        rest = op.bind_positional(fname, extra, kwargs, mxnet_params, _no_array) if extra else []
        return arrays, rest

    def _no_array(param: str, value) -> None:
        if isinstance(value, NDArray):  # MXNet parses str(array) and fails
            raise MXNetError(
                "Invalid Input: an NDArray for parameter {} of {}".format(param, op.name)
            )

    def nd_function(*args, out=None, name=None, **kwargs):
        if _CURRENT.value is not None:  # `with mx.gpu():` (MXNet: "not implemented for GPU")
            _cpu_only(_CURRENT.value)
        arrays = [a._data for a in args if type(a) is NDArray]  # the common case
        if len(arrays) != len(args) or len(args) > most_arrays:
            arrays, rest = _slow_args(args, kwargs)
            if rest:  # MXNet's signature: inputs, parameters, then out and name
                out, name = _out_and_name(fname, rest, out, name, len(args))
        named = None
        if kwargs:
            for v in kwargs.values():
                if v is None or isinstance(v, NDArray):
                    clash = [k for k in declared[: len(args)] if k in kwargs]
                    if clash:  # nd.FullyConnected(x, None, weight=w): Python's TypeError
                        raise TypeError(
                            "{}() got multiple values for argument '{}'".format(fname, clash[0])
                        )
                    named = {k: v._data for k, v in kwargs.items() if isinstance(v, NDArray)}
                    for k in named:
                        del kwargs[k]
                    for k in [k for k, v in kwargs.items() if v is None and k in declared]:
                        del kwargs[k]  # `bias=None`: an input not given, as in MXNet
                    break
            # the parse cache's first-level key (a call site's keywords in its own order),
            # looked up here to spare the method call; parse() handles misses and
            # unhashable values
            try:
                attrs = cache_get(tuple(kwargs.items()))
            except TypeError:
                attrs = None
            if attrs is None:
                attrs = parse(kwargs)
        else:
            attrs = parse(kwargs)
        if named:
            names = fixed_inputs or op.input_names(attrs, len(arrays))
            slots = dict(zip(names, arrays))
            slots.update(named)
            missing = [n for n in names if n not in slots]
            if missing:
                raise MXNetError("Operator {}: missing input(s) {}".format(op.name, missing))
            arrays = [slots[n] for n in names]
        elif fixed_inputs is not None:
            if len(arrays) != len(fixed_inputs):
                raise _arity_error(op, fixed_inputs, arrays)
        elif not op.variadic:
            n = attrs.__dict__.get("_n_inputs")  # parsed attrs are cached: count once
            if n is None:
                n = attrs.__dict__["_n_inputs"] = len(op.input_names(attrs))
            if len(arrays) != n:
                raise _arity_error(op, op.input_names(attrs), arrays)
        if len(arrays) > 1:
            # MXNet's imperative dtype inference: mixed dtypes must pass the op's infer_type
            t = arrays[0].dtype
            for a in arrays:
                if a.dtype is not t:
                    check_types(op, attrs, arrays)
                    break
        try:
            res = kernel(attrs, *arrays)
        except (ShapeError, ValueError, IndexError) as err:
            raise _error(op, arrays, err) from None
        if view:
            res = _owned(res)
        if single and type(res) is _np_ndarray:
            if out is not None:
                out._data[...] = res
                return out
            result = new(nd_class)  # ndarray.wrap, inlined: this is every op's exit
            result._data = res
            return result
        result = _wrap_result(res, op.num_outputs(attrs))
        if out is not None:
            if isinstance(result, list):
                for o, r in zip(out, result):
                    o._data[...] = r._data
            else:
                out._data[...] = result._data
            return out
        return result

    nd_class = NDArray
    new = object.__new__
    nd_function.__name__ = fname
    nd_function.__qualname__ = fname
    nd_function.__doc__ = op.__doc__
    return nd_function
