"""`contrib.while_loop` and `contrib.cond` for mx.nd and mx.sym, as MXNet 1.9.1 defines them.

Eagerly both are Python control flow on the arrays' values (the condition read with
`asscalar`). On Symbols each function is traced once into a subgraph (`cond`/`func`;
`pred`/`then`/`else`) inside its own `AttrScope(__subgraph_name__=...)`, Symbols of the
enclosing graph are cut out, and the union of the subgraphs' inputs feeds one `_while_loop` /
`_cond` node (`engine/ops/control_flow.py`). The shared machinery (flattening, cutting, the
node) is `engine/_control_flow.py`'s, which also has `foreach`.
"""

from typing import Any, Dict, List, Tuple

from . import attribute
from . import ndarray as _nd
from . import symbol as _sym
from ._control_flow import (
    _check,
    _cut_subgraph,
    _flatten,
    _regroup,
    _subgraph_of,
    _uniq_name,
    _unique_subgraph_name,
    control_node,
)
from .ndarray.ndarray import NDArray
from .symbol.symbol import Node, Symbol

__all__ = ["nd_while_loop", "nd_cond", "sym_while_loop", "sym_cond"]


def _as_list(obj):
    return obj if isinstance(obj, (list, tuple)) else [obj]


def _to_scalar(value, kind, name: str):
    """MXNet's `_to_python_scalar`: an array's `asscalar()`, then `kind(...)`."""
    if hasattr(value, "asscalar"):
        value = value.asscalar()
    try:
        return kind(value)
    except Exception:  # noqa: BLE001 - MXNet's bare except, same message
        raise ValueError("Cannot convert %s to python %s" % (name, kind.__name__)) from None


def _step_parts(step_output, new_loop_vars):
    """The body's (outputs, new loop variables) as lists; None is an empty list."""
    step_output = [] if step_output is None else step_output
    new_loop_vars = [] if new_loop_vars is None else new_loop_vars
    if isinstance(step_output, tuple):
        step_output = list(step_output)
    if isinstance(new_loop_vars, tuple):
        new_loop_vars = list(new_loop_vars)
    return step_output, new_loop_vars


def nd_while_loop(cond, func, loop_vars, max_iterations=None):
    """Run `step_output, loop_vars = func(*loop_vars)` while `cond(*loop_vars)` holds, at
    most `max_iterations` times; step outputs are stacked and padded to `max_iterations` rows
    (undefined values in MXNet). Returns (outputs, final loop variables)."""
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _to_scalar(max_iterations, int, "max_iteration")
    if len(loop_vars) == 0:
        raise ValueError("loop_vars should contain at least one element")
    steps = 0
    outputs: List[Any] = []
    out_fmt = None
    single = isinstance(loop_vars, NDArray)
    loop_vars = _as_list(loop_vars)
    while steps < max_iterations and _to_scalar(cond(*loop_vars), bool, "Return value of cond"):
        step_output, new_vars = _step_parts(*func(*loop_vars))
        new_vars = _as_list(new_vars)
        if len(loop_vars) != len(new_vars):
            raise ValueError("The length of loop_vars should be consistent during the loop")
        loop_vars = new_vars
        step_output, out_fmt = _flatten(step_output, "while output", NDArray)
        outputs.append(step_output)
        steps += 1
        if len(step_output) != len(outputs[0]):
            raise ValueError("Number of elements in step_output should be the same in each step")
    stacked = []
    for i_th, items in enumerate(zip(*outputs), 1):
        items = [x.expand_dims(0) for x in items]
        if steps != max_iterations and items:
            pad = _nd.zeros(
                [max_iterations - steps] + list(items[0].shape[1:]), dtype=items[0].dtype
            )
            items = list(items) + [pad]
        try:
            stacked.append(_nd.concat(*items, dim=0))
        except Exception:  # noqa: BLE001 - MXNet names the inconsistent shapes
            raise ValueError(
                "\n".join(
                    ["Shapes of %d-th elements in step_outputs are inconsistent, which are:" % i_th]
                    + ["  Step %d, shape is %s" % (i, str(x.shape)) for i, x in enumerate(items)]
                )
            ) from None
    if out_fmt is not None:
        stacked, _ = _regroup(stacked, out_fmt)
    return stacked, (loop_vars[0] if single else loop_vars)


def nd_cond(pred, then_func, else_func):
    """`then_func()` if the scalar `pred` is true, else `else_func()`."""
    return then_func() if _to_scalar(pred, bool, "pred") else else_func()


def _create_subgraph(graph_vars, graph_func, name: str):
    """Trace `graph_func` on fresh variables for `graph_vars` into a subgraph; outputs that are
    inputs or come from outside pass through identity. (graph, cut map, out_fmt, n_data)."""
    name = _unique_subgraph_name(name)
    with attribute.AttrScope(__subgraph_name__=name):
        if graph_vars is None:  # cond's functions take no arguments
            new_vars: Any = []
        else:
            flat, fmt = _flatten(graph_vars, "while loop_vars", Symbol)
            new_vars, _ = _regroup([_sym.var(_uniq_name(s)) for s in flat], fmt)
        outputs, out_fmt, n_data = graph_func(new_vars)
        inputs = set(_sym.Group(outputs).list_inputs()) if outputs else set()
        kept = [
            _sym.op.identity(o) if o.name in inputs or _subgraph_of(o._outputs[0][0]) != name else o
            for o in outputs
        ]
        graph = _sym.Group(kept)
    graph, cut = _cut_subgraph(graph, name)
    return graph, cut, out_fmt, n_data


def _input_symbol(graph: Symbol, in_name: str, cut: Dict[str, Tuple[Node, int]]) -> Symbol:
    """The enclosing graph's Symbol feeding subgraph input `in_name` (cut, or a variable)."""
    if in_name in cut:
        return Symbol([cut[in_name]])
    node = next(n for n in graph._order() if n.op is None and n.name == in_name)
    return Symbol([(node, 0)])


def sym_while_loop(cond, func, loop_vars, max_iterations=None, name: str = "while_loop"):
    """Trace `cond` and `func` into a `_while_loop` node; returns (outputs stacked into
    `max_iterations` rows, final loop variables nested as `loop_vars`)."""
    flat_vars, init_fmt = _flatten(loop_vars, "while loop_vars", Symbol)
    _check(flat_vars, Symbol, "loop_vars should be a symbol or a nested list of symbols")
    if max_iterations is None:
        raise ValueError("max_iterations should be specified")
    max_iterations = _to_scalar(max_iterations, int, "max_iteration")
    if len(loop_vars) == 0:
        raise ValueError("loop_vars should contain at least one element")

    def cond_wrapper(variables):
        result = cond(*variables)
        if not isinstance(result, Symbol):
            raise ValueError("Return of cond must be a Symbol")
        return [result], None, 0

    def func_wrapper(variables):
        step_output, new_vars = _step_parts(*func(*variables))
        step_output, out_fmt = _flatten(step_output, "while output", Symbol)
        new_vars, _ = _flatten(new_vars, "while loop_vars", Symbol)
        if len(variables) != len(new_vars):
            raise ValueError("The number of loop_vars should be consistent during the loop")
        return list(step_output) + list(new_vars), out_fmt, len(step_output)

    cond_g, cond_cut, _, _ = _create_subgraph(loop_vars, cond_wrapper, name + "_cond")
    func_g, func_cut, out_fmt, num_out_data = _create_subgraph(
        loop_vars, func_wrapper, name + "_func"
    )
    by_name = {_uniq_name(s): s for s in flat_vars}
    var_index = {_uniq_name(s): i for i, s in enumerate(flat_vars)}
    inputs: List[Symbol] = []
    seen: Dict[int, int] = {}  # id(loop variable Symbol) -> its place: only those are shared
    locs = []
    func_var_locs = [-1] * len(flat_vars)
    for graph, cut in ((cond_g, cond_cut), (func_g, func_cut)):
        input_locs: List[int] = []
        for in_name in graph.list_inputs():
            sym = by_name[in_name] if in_name in by_name else _input_symbol(graph, in_name, cut)
            if id(sym) not in seen:
                seen[id(sym)] = len(inputs)
                inputs.append(sym)
            input_locs.append(seen[id(sym)])
            if graph is func_g and in_name in var_index:
                func_var_locs[var_index[in_name]] = len(input_locs) - 1
        locs.append(input_locs)
    for i_th, loc in enumerate(func_var_locs, 1):
        if loc == -1:
            raise ValueError("The %d-th loop_var doesn't involve into the computation" % i_th)
    num_outputs = len(func_g._outputs)
    result = control_node(
        "_while_loop",
        [cond_g, func_g],
        inputs,
        {
            "max_iterations": max_iterations,
            "cond_input_locs": str(locs[0]),
            "func_input_locs": str(locs[1]),
            "func_var_locs": str(func_var_locs),
            "num_out_data": num_out_data,
            "num_outputs": num_outputs,
        },
    )
    outputs, _ = _regroup([result[i] for i in range(num_out_data)], out_fmt)
    final, _ = _regroup([result[i] for i in range(num_out_data, num_outputs)], init_fmt)
    return outputs, final


def sym_cond(pred, then_func, else_func, name: str = "cond"):
    """Trace `pred`, `then_func` and `else_func` into a `_cond` node; returns the branch's
    outputs nested as `then_func` returned them."""

    def branch(fn):
        def wrapper(_variables):
            outputs, out_fmt = _flatten(fn(), "cond outputs", Symbol)
            return list(outputs), out_fmt, len(outputs)

        return wrapper

    cond_g, cond_cut, _, n_pred = _create_subgraph(None, branch(lambda: pred), name + "_pred")
    if n_pred != 1:
        raise ValueError("pred should always be a single output")
    then_g, then_cut, then_fmt, n_then = _create_subgraph(None, branch(then_func), name + "_then")
    else_g, else_cut, _, n_else = _create_subgraph(None, branch(else_func), name + "_else")
    if n_then != n_else:
        raise ValueError("Number of outputs differs between then-branch and else-branch")
    inputs: List[Symbol] = []
    locs = []
    for graph, cut in ((cond_g, cond_cut), (then_g, then_cut), (else_g, else_cut)):
        input_locs = []
        for in_name in graph.list_inputs():
            known = [i for i, s in enumerate(inputs) if s.name == in_name]  # MXNet: by name
            if known:
                input_locs.append(known[0])
                continue
            inputs.append(_input_symbol(graph, in_name, cut))
            input_locs.append(len(inputs) - 1)
        locs.append(input_locs)
    result = control_node(
        "_cond",
        [cond_g, then_g, else_g],
        inputs,
        {
            "cond_input_locs": str(locs[0]),
            "then_input_locs": str(locs[1]),
            "else_input_locs": str(locs[2]),
            "num_outputs": n_then,
        },
    )
    outputs, _ = _regroup([result[i] for i in range(n_then)], then_fmt)
    return outputs


_nd.contrib.while_loop = nd_while_loop
_nd.contrib.cond = nd_cond
_sym.contrib.while_loop = sym_while_loop
_sym.contrib.cond = sym_cond
