"""Generates the eager `mx.nd.<op>` functions from the op registry.

The generated function is the whole eager path: split arrays from parameters, parse parameters
(cached per distinct keyword set), call the kernel, wrap the result. Nothing else runs.
"""
from typing import Callable

import numpy as np

from ..base import MXNetError
from ..registry import OpDef, ShapeError, fmt_shape
from .ndarray import NDArray, wrap

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


def _arity_error(op: OpDef, want, arrays) -> MXNetError:
    return MXNetError("Operator {} expects {} input(s) {}, got {}".format(
        op.name, len(want), list(want), len(arrays)))


def _owned(res):
    """MXNet's eager ops return new arrays (only NDArray.reshape and indexing alias), so an
    in-place update of a view op's result must not reach its input: copy views."""
    if isinstance(res, (tuple, list)):
        return type(res)(r.copy() if r.base is not None else r for r in res)
    return res.copy() if res.base is not None else res


def make_nd_function(op: OpDef, fname: str) -> Callable:
    """`mx.nd.<fname>`: eager call of `op`."""
    kernel = op.kernel
    parse = op.parse
    fixed_inputs = None if (op.variadic or callable(op._inputs)) else \
        tuple(op._inputs) + tuple(op.aux)
    single = not callable(op._num_outputs) and op._num_outputs == 1
    view = op.view      # kernels that may return views of their input (reshape, transpose...)
    cache_get = op._parse_cache.get

    def _slow_args(args, kwargs):
        """Positional parameters, lists of arrays (variadic ops), Symbols (an error)."""
        arrays = []
        extra = []
        for a in args:
            if isinstance(a, NDArray):
                arrays.append(a._data)
            elif isinstance(a, (list, tuple)) and a and isinstance(a[0], NDArray) \
                    and op.variadic:
                arrays.extend(x._data for x in a)
            elif type(a).__name__ == "Symbol":
                # mx.nd.X(symbol): MXNet's generated functions assert their input types
                names = fixed_inputs or ()
                raise AssertionError("Argument {} must have NDArray type, but got {}".format(
                    names[len(arrays)] if len(arrays) < len(names) else "data", a))
            else:
                extra.append(a)
        if extra:
            op.bind_positional(extra, kwargs)
        return arrays

    def nd_function(*args, out=None, name=None, **kwargs):
        arrays = [a._data for a in args if type(a) is NDArray]   # the common case
        if len(arrays) != len(args):
            arrays = _slow_args(args, kwargs)
        named = None
        if kwargs:
            for v in kwargs.values():
                if isinstance(v, NDArray):
                    named = {k: v._data for k, v in kwargs.items() if isinstance(v, NDArray)}
                    for k in named:
                        del kwargs[k]
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
            n = attrs.__dict__.get("_n_inputs")     # parsed attrs are cached: count once
            if n is None:
                n = attrs.__dict__["_n_inputs"] = len(op.input_names(attrs))
            if len(arrays) != n:
                raise _arity_error(op, op.input_names(attrs), arrays)
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
            result = new(nd_class)      # ndarray.wrap, inlined: this is every op's exit
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
