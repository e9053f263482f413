"""`mx.nd.contrib.foreach` and `mx.sym.contrib.foreach`, as MXNet 1.9.1 defines them.

Eagerly foreach is a Python loop over axis 0 whose per-step outputs are stacked. On Symbols the
body is called once, on fresh variables, inside `AttrScope(__subgraph_name__=...)`: the nodes it
creates form the loop's subgraph, and every Symbol of the enclosing graph it refers to is cut
out (replaced by a variable named after that output, `relu0_output`) and fed to the `_foreach`
node as an input, as are the body's own variables (a gluon cell's parameters). The node runs
the subgraph per step (`engine/ops/control_flow.py`). Return values keep MXNet's shapes of
nesting: the outputs as the body returned them (one Symbol or a list), the states as the
initial states were given (eagerly: as the last body call returned them). The flattening,
cutting and node-making helpers here serve `while_loop` and `cond` too (`engine/_branching.py`).
"""

import copy
from collections import defaultdict
from typing import Any, Dict, List, Tuple

from . import attribute
from . import ndarray as _nd
from . import symbol as _sym
from .ndarray.ndarray import NDArray
from .registry import Attrs
from .symbol.symbol import Node, Symbol

__all__ = ["nd_foreach", "sym_foreach", "control_node"]

_SUBGRAPH_NAMES: Dict[str, int] = defaultdict(int)  # process-wide, as MXNet's AttrScope keeps


def _flatten(args, inout_str: str, kind):
    """(flat list, format) of a nested list of arrays/Symbols; MXNet's `_flatten` (a
    multi-output Symbol counts its outputs in the format)."""
    if isinstance(args, kind):
        if kind is Symbol and len(args) > 1:
            return [args], len(args)
        return [args], 0
    name = "NDArray" if kind is NDArray else "Symbol"
    assert isinstance(args, (list, tuple)), (
        "%s must be (nested) list of %s, but got %s of type %s"
        % (
            inout_str,
            name,
            str(args),
            str(type(args)),
        )
    )
    flat: List[Any] = []
    fmts = []
    for item in args:
        arg, fmt = _flatten(item, inout_str, kind)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    """Undo `_flatten`: (nested value, the items left over)."""
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        return args[:fmt], args[fmt:]
    ret = []
    for f in fmt:
        res, args = _regroup(args, f)
        ret.append(res)
    return ret, args


def _check(inputs, kind, msg: str) -> None:
    ok = all(isinstance(i, kind) for i in inputs) if isinstance(inputs, list) else False
    assert ok or isinstance(inputs, kind), msg


def nd_foreach(body, data, init_states):
    """Run `out, states = body(data[i], states)` for every i along axis 0 of `data` (an
    NDArray, or a list of NDArrays sliced together); the outputs of all steps are stacked on
    a new axis 0. Returns (outputs, states of the last step)."""
    flat, _ = _flatten(data, "foreach input", NDArray)
    _check(flat, NDArray, "data should be an NDArray or a nested list of NDArrays")
    flat, _ = _flatten(init_states, "foreach states", NDArray)
    _check(flat, NDArray, "init_states should be an NDArray or a nested list of NDArrays")
    single = isinstance(data, NDArray)
    steps = data.shape[0] if single else data[0].shape[0]
    states = init_states
    outputs = []
    for i in range(steps):
        step = data[i] if single else [d[i] for d in data]
        outs, states = body(step, states)
        outs, out_fmt = _flatten(outs, "foreach output", NDArray)
        outputs.append(outs)
    stacked = [_nd.stack(*column) for column in zip(*outputs)]
    grouped, _ = _regroup(stacked, out_fmt)  # as MXNet: unbound when there is no step
    return grouped, states


def _unique_subgraph_name(name: str) -> str:
    outer = attribute.current().get(None).get("__subgraph_name__", "")
    if outer:
        name = outer + "$" + name
    _SUBGRAPH_NAMES[name] += 1
    return name + str(_SUBGRAPH_NAMES[name] - 1)


def _uniq_name(sym: Symbol) -> str:
    """The name of the body's variable standing for `sym`: `<node name>-<output index>`."""
    node, index = sym._outputs[0]
    return "%s-%d" % (node.name, index)


def _subgraph_of(node: Node) -> str:
    return node.user_attrs.get("__subgraph_name__", "")


def _construct_subgraph(sym_out, sym_states, name: str) -> Symbol:
    """The body's outputs as one group; an output that is an input variable, a Symbol from
    outside the body, or (for a state) also an output passes through `identity`, so the
    subgraph's outputs are distinct nodes of its own (MXNet's rule)."""
    group = _sym.Group(list(sym_out) + list(sym_states)) if sym_out or sym_states else None
    inputs = set(group.list_inputs()) if group is not None else set()
    out_names = {o.name for o in sym_out}
    flat = []
    for o in sym_out:
        outside = o.name in inputs or _subgraph_of(o._outputs[0][0]) != name
        flat.append(_sym.op.identity(o) if outside else o)
    for s in sym_states:
        outside = s.name in inputs or s.name in out_names or _subgraph_of(s._outputs[0][0]) != name
        flat.append(_sym.op.identity(s) if outside else s)
    return _sym.Group(flat)


def _cut_subgraph(g: Symbol, name: str) -> Tuple[Symbol, Dict[str, Tuple[Node, int]]]:
    """A copy of `g` where each op output from outside the body becomes a variable named after
    that output; returns it and {variable name: the outside (node, index) it stands for}."""
    cut: Dict[str, Tuple[Node, int]] = {}
    cut_vars: Dict[Tuple[int, int], Node] = {}
    copies: Dict[int, Node] = {}

    def entry(node: Node, index: int) -> Tuple[Node, int]:
        if node.op is not None and _subgraph_of(node) != name:
            key = (id(node), index)
            if key not in cut_vars:
                var_name = "%s_%s" % (node.name, node.op.output_names(node.parsed)[index])
                cut_vars[key] = Node(None, var_name, {}, None, [], node.source, {})
                cut[var_name] = (node, index)
            return cut_vars[key], 0
        return copies.get(id(node), node), index

    for node in g._order():
        if node.op is None or _subgraph_of(node) != name:
            continue
        copies[id(node)] = Node(
            node.op,
            node.name,
            node.attrs,
            node.parsed,
            [entry(c, i) for c, i in node.inputs],
            node.source,
            dict(node.user_attrs),
        )
    return Symbol([entry(n, i) for n, i in g._outputs]), cut


def control_node(op_name: str, subgraphs: List[Symbol], inputs: List[Symbol], params) -> Symbol:
    """The `op_name` node over `inputs`, keeping `subgraphs` on parsed attributes of its own
    (never the registry's shared ones: its plan caches live there)."""
    params = dict(params, num_args=len(inputs) + len(subgraphs))  # MXNet counts subgraphs
    ret = _sym._make_node_symbol(op_name, inputs, params, hint=op_name)
    node = ret._outputs[0][0]
    node.parsed = Attrs(dict(node.parsed.__dict__, subgraphs=tuple(subgraphs)))
    return ret


def sym_foreach(body, data, init_states, name: str = "foreach"):
    """Trace `out, states = body(data_step, states)` once into a subgraph and return the
    `_foreach` node's outputs: (outputs stacked over axis 0, final states), nested as the body
    returned its outputs and as `init_states` was given."""
    flat_data, data_fmt = _flatten(data, "foreach input", Symbol)
    _check(flat_data, Symbol, "data should be a symbol or a nested list of symbols")
    flat_states, init_fmt = _flatten(init_states, "foreach states", Symbol)
    _check(flat_states, Symbol, "init_states should be a symbol or a nested list of symbols")
    name = _unique_subgraph_name(name)
    with attribute.AttrScope(__subgraph_name__=name):
        in_eles, _ = _regroup([_sym.var(_uniq_name(s)) for s in flat_data], data_fmt)
        states, _ = _regroup(
            [_sym.var(_uniq_name(s)) for s in flat_states], copy.deepcopy(init_fmt)
        )
        sym_out, sym_states = body(in_eles, states)
        sym_out, out_fmt = _flatten(sym_out, "foreach output", Symbol)
        sym_states, state_fmt = _flatten(sym_states, "foreach loop_vars", Symbol)
        assert init_fmt == state_fmt, "The input and output loop_vars have different format"
        _check(sym_out, Symbol, "the output should be an NDArray or a nested list of NDArrays")
        _check(
            sym_states,
            Symbol,
            "the output states should be an NDArray or a nested list of NDArrays",
        )
        g = _construct_subgraph(sym_out, sym_states, name)
    g, cut = _cut_subgraph(g, name)
    sub_inputs = g.list_inputs()
    assert len(set(sub_inputs)) == len(sub_inputs), (
        "The inputs of the subgraph don't have unique names: " + str(sub_inputs)
    )
    data_names = [_uniq_name(s) for s in flat_data]
    state_names = [_uniq_name(s) for s in flat_states]
    if any(n not in sub_inputs for n in data_names):
        raise AssertionError("the data arrays have to be used in the loop body")
    if any(n not in sub_inputs for n in state_names):
        raise AssertionError("the state arrays have to be used in the loop body")
    ordered = list(flat_data) + list(flat_states)
    var_nodes = {n.name: n for n in g._order() if n.op is None}
    remain_locs = []
    for loc, in_name in enumerate(sub_inputs):
        if in_name in cut:
            ordered.append(Symbol([cut[in_name]]))
        elif in_name not in data_names and in_name not in state_names:
            ordered.append(Symbol([(var_nodes[in_name], 0)]))  # the body's own variable
        else:
            continue
        remain_locs.append(loc)
    num_outputs = len(sym_out) + len(sym_states)
    ret = control_node(
        "_foreach",
        [g],
        ordered,
        {
            "num_outputs": num_outputs,
            "num_out_data": len(sym_out),
            "in_state_locs": str([sub_inputs.index(n) for n in state_names]),
            "in_data_locs": str([sub_inputs.index(n) for n in data_names]),
            "remain_locs": str(remain_locs),
        },
    )
    outs, _ = _regroup([ret[i] for i in range(len(sym_out))], out_fmt)
    final, _ = _regroup([ret[i] for i in range(len(sym_out), num_outputs)], state_fmt)
    return outs, final


_nd.contrib.foreach = nd_foreach
_sym.contrib.foreach = sym_foreach
