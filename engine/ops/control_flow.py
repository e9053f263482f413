"""`_foreach`: the graph node `mx.sym.contrib.foreach` creates (MXNet 1.9.1's subgraph op).

The loop body is traced once into a subgraph Symbol (`engine/_control_flow.py`), which the node
keeps on its parsed attributes (`attrs.subgraph`, written as the node's `subgraphs` in graph
JSON). The node's inputs are, in order, the data arrays, the initial states and the body's
other inputs (parameters, Symbols cut from the enclosing graph); `in_data_locs`,
`in_state_locs` and `remain_locs` say where each group sits among the subgraph's
`list_inputs()`. Its outputs are the per-step outputs stacked on a new axis 0, then the final
states. The kernel runs the subgraph's compiled plan once per step of axis 0, so a body op
failing names the body's own source line. Shape and type inference run the subgraph's
inference on one step, which is also how gluon learns the shapes of a body's parameters
(deferred initialisation), as MXNet's does.
"""

from typing import Any, List, Optional

import numpy as np

from ..registry import Attrs, Param, ShapeError, merge_shape, p_int, p_shape, register


def _groups(attrs: Attrs, items: List[Any]):
    """(data, states, remaining) of the node's inputs, in the node's order."""
    n_data, n_state = len(attrs.in_data_locs), len(attrs.in_state_locs)
    return items[:n_data], items[n_data : n_data + n_state], items[n_data + n_state :]


def _subgraph_inputs(attrs: Attrs, data, states, remain) -> List[Any]:
    """The node's inputs placed in the subgraph's `list_inputs()` order."""
    slots: List[Any] = [None] * (len(data) + len(states) + len(remain))
    for locs, values in (
        (attrs.in_data_locs, data),
        (attrs.in_state_locs, states),
        (attrs.remain_locs, remain),
    ):
        for loc, value in zip(locs, values):
            slots[loc] = value
    return slots


def _plans(attrs: Attrs):
    """The subgraph's plan cache, made once per node (attrs are per node: see control_flow)."""
    cache = attrs.__dict__.get("_plans")
    if cache is None:
        from ..executor import PlanCache

        cache = attrs.__dict__["_plans"] = PlanCache(attrs.subgraph)
    return cache


def _foreach(attrs: Attrs, *arrays):
    """Run the body subgraph on each slice of the data along axis 0, carrying the states;
    the per-step outputs come back stacked, followed by the last step's states."""
    data, states, remain = _groups(attrs, list(arrays))
    steps = data[0].shape[0]
    if any(d.shape[0] != steps for d in data) or steps == 0:
        raise ShapeError(
            "foreach: every data array needs the same, nonzero length on axis 0, got {}".format(
                [d.shape[0] for d in data]
            )
        )
    plans = _plans(attrs)
    n_out = attrs.num_out_data
    outs: List[List[np.ndarray]] = [[] for _ in range(n_out)]
    for t in range(steps):
        res = plans.run(_subgraph_inputs(attrs, [d[t] for d in data], states, remain))
        for k in range(n_out):
            outs[k].append(res[k])
        states = list(res[n_out:])
    return tuple([np.stack(o) for o in outs] + states)


def _infer(attrs: Attrs, values, inferer):
    """Run `inferer(order, known)` on the subgraph with the node's input values by name."""
    sub = attrs.subgraph
    order = sub._order()
    names = sub.list_inputs()
    known = {names[i]: v for i, v in enumerate(values) if v is not None}
    result = inferer(order, known)
    inputs = [n for n in order if n.op is None]
    return [result.get((id(n), 0)) for n in inputs], [
        result.get((id(n), i)) for n, i in sub._outputs
    ]


def _foreach_shape(attrs: Attrs, in_shapes):
    from ..executor import infer_graph_shapes

    data, states, remain = _groups(attrs, list(in_shapes))
    steps = 0
    for s in data:
        if s is not None and len(s) == 0:
            raise ShapeError("foreach: a data input has no axis 0 to iterate over")
        if s is not None and s[0]:
            if steps and s[0] != steps:
                raise ShapeError(
                    "foreach: data inputs differ in length: {} and {}".format(steps, s[0])
                )
            steps = s[0]
    step_data = [None if s is None else tuple(s[1:]) for s in data]
    n_out = attrs.num_out_data
    for _ in range(2):  # the second pass learns states' unknown shapes from the body's outputs
        values = _subgraph_inputs(attrs, step_data, states, remain)
        ins, outs = _infer(attrs, values, infer_graph_shapes)
        new_states = []
        for s, o in zip(states, outs[n_out:]):
            try:
                new_states.append(merge_shape(s, o))
            except ShapeError:
                raise ShapeError(
                    "foreach: a state's shape changes in the loop body: {} becomes {}".format(s, o)
                ) from None
        if new_states == list(states):
            break
        states = new_states
    by_loc = [ins[loc] for loc in attrs.in_data_locs]
    filled_data = [
        d if s is None else merge_shape(d, (steps,) + tuple(s)) for d, s in zip(data, by_loc)
    ]
    filled = (
        filled_data
        + [ins[loc] for loc in attrs.in_state_locs]
        + [ins[loc] for loc in attrs.remain_locs]
    )
    out_data: List[Optional[tuple]] = [None if o is None else (steps,) + o for o in outs[:n_out]]
    return filled, out_data + list(outs[n_out:])


def _foreach_type(attrs: Attrs, in_types):
    from ..executor import infer_graph_types

    data, states, remain = _groups(attrs, list(in_types))
    ins, outs = _infer(attrs, _subgraph_inputs(attrs, data, states, remain), infer_graph_types)
    filled = (
        [ins[loc] for loc in attrs.in_data_locs]
        + [ins[loc] for loc in attrs.in_state_locs]
        + [ins[loc] for loc in attrs.remain_locs]
    )
    return filled, outs


register(
    "_foreach",
    inputs=None,
    key_var_num_args="num_args",
    params={
        "num_outputs": Param(p_int),
        "num_out_data": Param(p_int),
        "in_state_locs": Param(p_shape),
        "in_data_locs": Param(p_shape),
        "remain_locs": Param(p_shape),
    },
    num_outputs=lambda attrs: attrs.num_outputs,
    infer_shape=_foreach_shape,
    infer_type=_foreach_type,
    random=True,  # the body may draw random numbers: never constant-folded
)(_foreach)
