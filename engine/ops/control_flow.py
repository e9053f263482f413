"""The control-flow nodes `mx.sym.contrib.foreach/while_loop/cond` create (MXNet 1.9.1's
subgraph ops `_foreach`, `_while_loop`, `_cond`).

Each body is traced once into a subgraph Symbol (`engine/_control_flow.py`) that the node keeps
on its parsed attributes (`attrs.subgraphs`, written as the node's `subgraphs` in graph JSON).
`*_locs` attributes say which of the node's inputs feed which subgraph input (in the
subgraph's `list_inputs()` order). Kernels run the subgraphs' compiled plans, so an op failing
inside a body names the body's own source line. Shape and type inference run the subgraphs'
inference, which is also how gluon learns the shapes of a body's parameters (deferred
initialisation), as MXNet's does.

- `_foreach`: inputs are the data arrays, the initial states, then the body's other inputs;
  outputs are the per-step outputs stacked on a new axis 0, then the final states.
- `_while_loop`: `cond` and `func` subgraphs over the union of their inputs; outputs are the
  per-step outputs stacked into `max_iterations` rows (rows past the last step are undefined
  in MXNet; zeros here), then the final loop variables. As in MXNet, graph inference leaves
  its outputs unknown; only a plan being compiled infers them (`infer_shape_run`).
- `_cond`: `pred`, `then`, `else` subgraphs; outputs are the chosen branch's. As in MXNet the
  branches' outputs must agree in dtype, and a branch built from constants alone fails the
  hybridized call (mxnet_facts.INPUTLESS_SUBGRAPHS_FAIL, checked by the CachedOp). MXNet also
  lets the branches differ in shape (it runs cond with dynamic shapes); the engine plans static
  shapes and refuses that: a known gap (tests/test_engine_control_flow.py, xfail).
"""

from typing import Any, List, Optional

import numpy as np

from ...mxnet_facts import COND_PREDICATE_DTYPE
from ..registry import Param, ShapeError, get_op, merge_shape, p_int, p_shape, register


def _plans(attrs: Any, k: int):
    """Subgraph k's plan cache, made once per node (attrs are per node: see _control_flow)."""
    caches = attrs.__dict__.get("_plans")
    if caches is None:
        from ..executor import PlanCache

        caches = attrs.__dict__["_plans"] = [PlanCache(g) for g in attrs.subgraphs]
    return caches[k]


def _infer(sub, values, inferer):
    """(input values, output values) of `inferer(order, known)` on subgraph `sub`, given its
    inputs' values in `list_inputs()` order (None unknown)."""
    order = sub._order()
    names = sub.list_inputs()
    result = inferer(order, {names[i]: v for i, v in enumerate(values) if v is not None})
    inputs = [n for n in order if n.op is None]
    return [result.get((id(n), 0)) for n in inputs], [
        result.get((id(n), i)) for n, i in sub._outputs
    ]


def _merge_into(values: List[Any], locs, found) -> None:
    """Merge what a subgraph learnt about its inputs into the node's inputs at `locs`."""
    for loc, v in zip(locs, found):
        if v is None:
            continue
        if values[loc] is None:
            values[loc] = v
        elif isinstance(v, tuple):
            values[loc] = merge_shape(values[loc], v)


def _result(outputs: List[np.ndarray]):
    """A kernel's return: the one array, or a tuple of several (the plan's convention)."""
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def _truth(value: np.ndarray) -> bool:
    if value.size != 1:
        raise ValueError(
            "the condition of a control-flow op must be a scalar, got shape {}".format(value.shape)
        )
    return bool(value.reshape(-1)[0])


# ----------------------------------------------------------------------------- _foreach


def _foreach_groups(attrs: Any, items: List[Any]):
    """(data, states, remaining) of the node's inputs, in the node's order."""
    n_data, n_state = len(attrs.in_data_locs), len(attrs.in_state_locs)
    return items[:n_data], items[n_data : n_data + n_state], items[n_data + n_state :]


def _foreach_inputs(attrs: Any, data, states, remain) -> List[Any]:
    """The node's inputs placed in the body subgraph's `list_inputs()` order."""
    slots: List[Any] = [None] * (len(data) + len(states) + len(remain))
    for locs, values in (
        (attrs.in_data_locs, data),
        (attrs.in_state_locs, states),
        (attrs.remain_locs, remain),
    ):
        for loc, value in zip(locs, values):
            slots[loc] = value
    return slots


def _foreach(attrs: Any, *arrays):
    """Run the body subgraph on each slice of the data along axis 0, carrying the states;
    the per-step outputs come back stacked, followed by the last step's states."""
    data, states, remain = _foreach_groups(attrs, list(arrays))
    steps = data[0].shape[0]
    if any(d.shape[0] != steps for d in data) or steps == 0:
        raise ShapeError(
            "foreach: every data array needs the same, nonzero length on axis 0, got {}".format(
                [d.shape[0] for d in data]
            )
        )
    plans = _plans(attrs, 0)
    n_out = attrs.num_out_data
    outs: List[List[np.ndarray]] = [[] for _ in range(n_out)]
    for t in range(steps):
        res = plans.run(_foreach_inputs(attrs, [d[t] for d in data], states, remain))
        for k in range(n_out):
            outs[k].append(res[k])
        states = list(res[n_out:])
    return _result([np.stack(o) for o in outs] + states)


def _foreach_shape(attrs: Any, in_shapes):
    from ..executor import infer_graph_shapes

    data, states, remain = _foreach_groups(attrs, list(in_shapes))
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
    sub = attrs.subgraphs[0]
    for _ in range(2):  # the second pass learns states' unknown shapes from the body's outputs
        values = _foreach_inputs(attrs, step_data, states, remain)
        ins, outs = _infer(sub, values, infer_graph_shapes)
        try:
            new_states = [merge_shape(s, o) for s, o in zip(states, outs[n_out:])]
        except ShapeError as err:
            raise ShapeError(
                "foreach: a state's shape changes in the loop body: " + str(err)
            ) from None
        if new_states == list(states):
            break
        states = new_states
    filled_data = [
        d if ins[loc] is None else merge_shape(d, (steps,) + tuple(ins[loc]))
        for d, loc in zip(data, attrs.in_data_locs)
    ]
    filled = (
        filled_data
        + [ins[loc] for loc in attrs.in_state_locs]
        + [ins[loc] for loc in attrs.remain_locs]
    )
    out_data: List[Optional[tuple]] = [None if o is None else (steps,) + o for o in outs[:n_out]]
    return filled, out_data + list(outs[n_out:])


def _foreach_type(attrs: Any, in_types):
    from ..executor import infer_graph_types

    data, states, remain = _foreach_groups(attrs, list(in_types))
    values = _foreach_inputs(attrs, data, states, remain)
    ins, outs = _infer(attrs.subgraphs[0], values, infer_graph_types)
    filled = [
        ins[loc]
        for locs in (attrs.in_data_locs, attrs.in_state_locs, attrs.remain_locs)
        for loc in locs
    ]
    return filled, outs


_LOCS = Param(p_shape)
register(
    "_foreach",
    inputs=None,
    key_var_num_args="num_args",
    params={
        "num_outputs": Param(p_int),
        "num_out_data": Param(p_int),
        "in_state_locs": _LOCS,
        "in_data_locs": _LOCS,
        "remain_locs": _LOCS,
    },
    num_outputs=lambda attrs: attrs.num_outputs,
    infer_shape=_foreach_shape,
    infer_type=_foreach_type,
    random=True,  # the body may draw random numbers: never constant-folded
)(_foreach)


# ----------------------------------------------------------------------------- _while_loop


def _while_loop(attrs: Any, *arrays):
    """Run `func` while `cond` holds, at most `max_iterations` times; per-step outputs are
    stacked into `max_iterations` rows (zeros past the last step), then the loop variables."""
    values = list(arrays)
    cond, func = _plans(attrs, 0), _plans(attrs, 1)
    n_out = attrs.num_out_data
    var_slots = [attrs.func_input_locs[loc] for loc in attrs.func_var_locs]
    outs: List[List[np.ndarray]] = [[] for _ in range(n_out)]
    for _ in range(attrs.max_iterations):
        if not _truth(cond.run([values[loc] for loc in attrs.cond_input_locs])[0]):
            break
        res = func.run([values[loc] for loc in attrs.func_input_locs])
        for k in range(n_out):
            outs[k].append(res[k])
        for slot, value in zip(var_slots, res[n_out:]):
            values[slot] = value
    _, _, shapes, types = func.plan_for([arrays[loc] for loc in attrs.func_input_locs])._graph
    stacked = []
    for rows, (node, i) in zip(outs, attrs.subgraphs[1]._outputs):
        key = (id(node), i)
        full = np.zeros((attrs.max_iterations,) + shapes[key], types[key] or np.float32)
        full[: len(rows)] = rows
        stacked.append(full)
    return _result(stacked + [values[slot].copy() for slot in var_slots])


def _while_shape(attrs: Any, in_shapes):
    from ..executor import infer_graph_shapes

    values = list(in_shapes)
    var_slots = [attrs.func_input_locs[loc] for loc in attrs.func_var_locs]
    n_out = attrs.num_out_data
    for _ in range(2):  # the second pass learns loop variables' shapes from func's outputs
        ins, outs = _infer(
            attrs.subgraphs[1], [values[loc] for loc in attrs.func_input_locs], infer_graph_shapes
        )
        _merge_into(values, attrs.func_input_locs, ins)
        try:
            _merge_into(values, var_slots, outs[n_out:])
        except ShapeError as err:
            raise ShapeError("while_loop: a loop variable changes shape: " + str(err)) from None
    ins, _ = _infer(
        attrs.subgraphs[0], [values[loc] for loc in attrs.cond_input_locs], infer_graph_shapes
    )
    _merge_into(values, attrs.cond_input_locs, ins)
    out_data = [None if o is None else (attrs.max_iterations,) + o for o in outs[:n_out]]
    return values, out_data + [values[slot] for slot in var_slots]


def _while_type(attrs: Any, in_types):
    from ..executor import infer_graph_types

    values = list(in_types)
    locs = attrs.func_input_locs
    ins, func_outs = _infer(attrs.subgraphs[1], [values[loc] for loc in locs], infer_graph_types)
    _merge_into(values, locs, ins)
    locs = attrs.cond_input_locs
    ins, _ = _infer(attrs.subgraphs[0], [values[loc] for loc in locs], infer_graph_types)
    _merge_into(values, locs, ins)
    var_slots = [attrs.func_input_locs[loc] for loc in attrs.func_var_locs]
    return values, func_outs[: attrs.num_out_data] + [values[s] for s in var_slots]


def _while_shape_static(attrs: Any, in_shapes):
    """MXNet 1.9.1's graph inference learns nothing from a while_loop: its outputs stay
    unknown (infer_shape gives None) and a body parameter's shape is not filled, so gluon's
    deferred init fails for it. Only running the loop gives shapes (`infer_shape_run`)."""
    return list(in_shapes), [None] * attrs.num_outputs


register(
    "_while_loop",
    inputs=None,
    key_var_num_args="num_args",
    params={
        "num_outputs": Param(p_int),
        "num_out_data": Param(p_int),
        "max_iterations": Param(p_int),
        "cond_input_locs": _LOCS,
        "func_input_locs": _LOCS,
        "func_var_locs": _LOCS,
    },
    num_outputs=lambda attrs: attrs.num_outputs,
    infer_shape=_while_shape_static,
    infer_type=_while_type,
    random=True,
)(_while_loop)
get_op("_while_loop").infer_shape_run = _while_shape


# ----------------------------------------------------------------------------- _cond


def _cond(attrs: Any, *arrays):
    """The outputs of the `then` subgraph if `pred` holds, else of the `else` subgraph."""
    pred = _plans(attrs, 0).run([arrays[loc] for loc in attrs.cond_input_locs])[0]
    k, locs = (1, attrs.then_input_locs) if _truth(pred) else (2, attrs.else_input_locs)
    return _result(_plans(attrs, k).run([arrays[loc] for loc in locs]))


def _cond_infer(attrs: Any, in_values, inferer, check_predicate=None):
    """Infer through the three subgraphs; `check_predicate` sees what the predicate
    subgraph's output was inferred to be (the dtype pass checks MXNet's float32 rule)."""
    values = list(in_values)
    outs: List[Any] = [None] * attrs.num_outputs
    for k, locs in (
        (0, attrs.cond_input_locs),
        (1, attrs.then_input_locs),
        (2, attrs.else_input_locs),
    ):
        ins, found = _infer(attrs.subgraphs[k], [values[loc] for loc in locs], inferer)
        _merge_into(values, locs, ins)
        if not k and check_predicate is not None:
            check_predicate(found[0] if found else None)
        if k:
            try:
                _merge_into(outs, range(len(outs)), found)
            except ShapeError as err:
                raise ShapeError(
                    "cond: the branches' outputs differ in shape: " + str(err)
                ) from None
            for i, (then, other) in enumerate(zip(outs, found)):
                if isinstance(other, np.dtype) and then is not None and then != other:
                    # MXNet 1.9.1: "Incompatible attr in node ..._identity1 at 0-th output:
                    # expected float32, got int32" when the hybridized block runs
                    raise ShapeError(
                        f"cond: the branches' output {i} differs in dtype (Incompatible attr: "
                        f"expected {np.dtype(then).name}, got {other.name})"
                    )
    return values, outs


def _check_predicate_type(dtype) -> None:
    """MXNet types a hybridized cond's predicate float32 (mxnet_facts.COND_PREDICATE_DTYPE):
    another dtype fails type inference there, so it fails here too."""
    if dtype is not None and np.dtype(dtype) != np.dtype(COND_PREDICATE_DTYPE):
        raise ShapeError(
            f"cond: the predicate is {np.dtype(dtype).name}, MXNet needs it "
            f"{COND_PREDICATE_DTYPE} (Incompatible attr: expected {np.dtype(dtype).name}, "
            f"got {COND_PREDICATE_DTYPE}); cast it with .astype('{COND_PREDICATE_DTYPE}')"
        )


def _cond_shape(attrs: Any, in_shapes):
    from ..executor import infer_graph_shapes

    return _cond_infer(attrs, in_shapes, infer_graph_shapes)


def _cond_type(attrs: Any, in_types):
    from ..executor import infer_graph_types

    return _cond_infer(attrs, in_types, infer_graph_types, _check_predicate_type)


register(
    "_cond",
    inputs=None,
    key_var_num_args="num_args",
    params={
        "num_outputs": Param(p_int),
        "cond_input_locs": _LOCS,
        "then_input_locs": _LOCS,
        "else_input_locs": _LOCS,
    },
    num_outputs=lambda attrs: attrs.num_outputs,
    infer_shape=_cond_shape,
    infer_type=_cond_type,
    random=True,
)(_cond)
