"""Compiling a Symbol into a flat plan of numpy calls, cached per input signature.

Compilation happens once per (shapes, dtypes) of the inputs:
1. topological order of the nodes the outputs need (dead nodes never enter the plan);
2. shape and dtype inference (errors name the op node, the shapes and the user's source line);
3. constant folding: nodes that depend on no input (zeros, ones, arange and everything computed
   only from them) are evaluated once (scalar chains are not collapsed: `x * a / b` is not
   `x * (a / b)` in float32, and MXNet's graph runs each op);
4. aliases (identity, BlockGrad, inference Dropout) disappear;
5. buffer planning by liveness: an elementwise op whose input dies at that op runs in place on
   the input's buffer (so FullyConnected + bias + relu share one buffer), other results take a
   free buffer of the pool; storage that reaches a graph output is allocated fresh per call
   (the caller owns its results), the rest is preallocated once;
6. code generation: the plan becomes one straight-line Python function calling the kernels.

With the engine's fast paths off (`engine/_fastpaths.py`), steps 3-6 are skipped and the
plan's `run` is the node-by-node reference run (`engine/_reference.py`) instead.

`PlanCache.run(arrays)` is the whole hybridized call: a dict lookup on the input signature,
then the generated function.
"""

import keyword
import linecache
import re
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from . import _fastpaths
from ._reference import ReferenceRun as _ReferenceRun
from ._reference import node_attrs as _node_attrs
from .base import MXNetError
from .registry import Attrs, ShapeError, merge_shape, shape_known  # noqa: F401 (Attrs: API)
from .registry import fmt_shape as _fmt_shape
from .symbol.symbol import Node, Symbol

__all__ = [
    "PlanCache",
    "Plan",
    "Executor",
    "infer_graph_shapes",
    "infer_graph_types",
    "eager_peak_bytes",
]


# ----------------------------------------------------------------------------- inference


def _node_error(node: Node, err: Exception, in_shapes, kind="shape") -> MXNetError:
    where = node.where()
    msg = "Error in operator {}: {}\n  input {}s: {}".format(
        node.name,
        err,
        kind,
        ", ".join(_fmt_shape(s) if kind == "shape" else str(s) for s in in_shapes),
    )
    if where:
        msg += "\n  created at {}".format(where)
    error = MXNetError(msg)
    error.source_line = node.source  # (file, line, text) for the checker, None if unknown
    return error


def _plan_error(plan: "Plan", err: Exception) -> Exception:
    """A kernel's error while a compiled plan runs, as an MXNetError naming the op node, its
    input shapes and the user's source line (the failing line of the generated function
    says which step it was); `err` itself when no step is found."""
    if getattr(err, "source_line", None):  # a nested plan's error, already precise
        return err
    tb, lineno = err.__traceback__, None
    while tb is not None and lineno is None:  # the first plan frame is this plan's run
        if tb.tb_frame.f_code.co_filename == getattr(plan, "filename", None):
            lineno = tb.tb_lineno
        tb = tb.tb_next
    step = plan.step_at(lineno) if lineno is not None else None
    if step is None:
        return err
    return _node_error(step.node, err, [plan.shapes[v] for v in step.ins])


def _plan_names(labels: List[str]) -> List[str]:
    """Python identifiers for a plan's values, after the graph nodes they hold: the node's
    name with non-identifier characters as `_`, prefixed `n` when it would start with a
    digit or `_` (the plan's own names start with `_`), suffixed `_` for keywords and
    builtins the plan uses, and `_2`, `_3`... to stay unique."""
    names, taken = [], set()
    for label in labels:
        base = re.sub(r"\W", "_", label) or "value"
        if base[0].isdigit() or base[0] == "_":
            base = "n" + base
        if keyword.iskeyword(base) or base in _PLAN_GLOBALS:
            base += "_"
        name, i = base, 1
        while name in taken:
            i += 1
            name = "%s_%d" % (base, i)
        taken.add(name)
        names.append(name)
    return names


_PLAN_GLOBALS = {"np", "run", "NotImplementedError", "MXNetError", "ValueError", "IndexError"}


def _register_source(plan: "Plan", filename: str, source: str) -> None:
    """Make the generated source readable by tracebacks, pdb and inspect (`linecache`), for
    as long as the plan lives."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    weakref.finalize(plan, linecache.cache.pop, filename, None)


def _var_shape_hint(node: Node):
    hint = node.user_attrs.get("__shape__")
    if not hint:
        return None
    dims = tuple(int(x) for x in hint.strip("()[] ").replace(" ", "").split(",") if x != "")
    return dims or None


_INFERENCE = threading.local()  # .running: a plan is being compiled (see infer_graph_shapes)


def _fed_by_dynamic(order: List[Node]) -> set:
    """ids of the op nodes whose shapes depend on input values: a dynamic-shape op
    (`OpDef.dynamic_shape`) and every node it feeds, directly or not."""
    fed: set = set()
    for node in order:  # topological: a node's inputs come first
        if node.op is not None and (
            getattr(node.op, "dynamic_shape", False) or any(id(c) in fed for c, _ in node.inputs)
        ):
            fed.add(id(node))
    return fed


def infer_graph_shapes(order: List[Node], known: Dict[str, tuple], running=None):
    """(id(node), output index) -> shape (None unknown, 0-dims unknown) for every node.

    `running=True` (a plan being compiled, and the subgraphs inferred meanwhile) lets an op
    with an `infer_shape_run` use it: `_while_loop`'s outputs are unknown to MXNet's graph
    inference (infer_shape, gluon's deferred init) and known only when it runs."""
    if running is None:
        running = getattr(_INFERENCE, "running", False)
    before = getattr(_INFERENCE, "running", False)
    _INFERENCE.running = running
    try:
        return _infer_graph_shapes(order, known, running)
    finally:
        _INFERENCE.running = before


def _infer_graph_shapes(order: List[Node], known: Dict[str, tuple], running: bool):
    shapes: Dict[Tuple[int, int], Optional[tuple]] = {}
    for node in order:
        if node.op is None:
            s = known.get(node.name)
            hint = _var_shape_hint(node)
            try:
                s = merge_shape(s, hint) if hint else s
            except ShapeError:
                pass
            shapes[(id(node), 0)] = s
    for _ in range(max(3, len(order))):  # until nothing changes (backward fills)
        changed = False
        for node in order:
            if node.op is None:
                continue
            in_shapes = [shapes.get((id(c), i)) for c, i in node.inputs]
            try:
                run_fn = getattr(node.op, "infer_shape_run", None) if running else None
                if run_fn is not None:
                    ins, outs = run_fn(node.parsed, in_shapes)
                else:
                    ins, outs = node.op.infer_shape(node.parsed, in_shapes)
                # MXNet's inference also runs from outputs to inputs (Reshape, the fused
                # RNN layers' param concat: engine/ops/rnn.py)
                backward = getattr(node.op, "infer_shape_backward", None)
                if backward is not None:
                    ins = backward(
                        node.parsed, ins, [shapes.get((id(node), i)) for i in range(len(outs))]
                    )
            except (ValueError, IndexError) as err:  # ShapeError, or numpy's own
                raise _node_error(node, err, in_shapes) from None
            for (c, i), old, new in zip(node.inputs, in_shapes, ins):
                if new is not None and new != old:
                    try:
                        merged = merge_shape(old, new)
                    except ShapeError as err:
                        raise _node_error(node, err, in_shapes) from None
                    if merged != old:
                        shapes[(id(c), i)] = merged
                        changed = True
            for i, s in enumerate(outs):
                key = (id(node), i)
                if s is not None and shapes.get(key) != s:
                    try:
                        shapes[key] = merge_shape(shapes.get(key), s)
                    except ShapeError as err:
                        raise _node_error(node, err, in_shapes) from None
                    changed = True
                elif key not in shapes:
                    shapes[key] = None
        if not changed:
            break
    return shapes


def infer_graph_types(order: List[Node], known: Dict[str, np.dtype]):
    """(id(node), output index) -> np.dtype (None unknown)."""
    from .symbol import DTYPE_FROM_CODE

    types: Dict[Tuple[int, int], Optional[np.dtype]] = {}
    for node in order:
        if node.op is None:
            t = known.get(node.name)
            code = node.user_attrs.get("__dtype__")
            if t is None and code is not None:
                t = DTYPE_FROM_CODE.get(int(code))
            types[(id(node), 0)] = t
    for _ in range(max(3, len(order))):
        changed = False
        for node in order:
            if node.op is None:
                continue
            in_types = [types.get((id(c), i)) for c, i in node.inputs]
            try:
                ins, outs = node.op.infer_type(node.parsed, in_types)
            except ShapeError as err:
                raise _node_error(node, err, in_types, "type") from None
            for k, ((c, i), old, new) in enumerate(zip(node.inputs, in_types, ins)):
                if old is None and new is not None:
                    types[(id(c), i)] = new
                    changed = True
                elif old is not None and new is not None and old != new:
                    # MXNet's graph inference fails on a conflicting assignment, as the
                    # eager call's check does (`where` of float32 and float64 branches)
                    raise _node_error(
                        node,
                        ShapeError(
                            "Incompatible attr at {}-th input: expected {}, got {}".format(
                                k, np.dtype(new).name, np.dtype(old).name
                            )
                        ),
                        in_types,
                        "type",
                    )
            for i, t in enumerate(outs):
                key = (id(node), i)
                if t is not None and types.get(key) is None:
                    types[key] = t
                    changed = True
                elif key not in types:
                    types[key] = None
        if not changed:
            break
    return types


# ----------------------------------------------------------------------------- planning


class _Step:
    """One op application in the plan, on value slots."""

    __slots__ = ("node", "op", "attrs", "ins", "outs", "inplace_of")

    def __init__(self, node, op, attrs, ins, outs):
        self.node = node
        self.op = op
        self.attrs = attrs
        self.ins = ins  # value ids
        self.outs = outs  # value ids
        self.inplace_of = None


class Plan:
    """A compiled graph for one input signature."""

    def __init__(self, sym: Symbol, in_shapes, in_dtypes):
        self.sym = sym
        order = sym._order()
        inputs = [n for n in order if n.op is None]
        if len(inputs) != len(in_shapes):
            raise MXNetError(
                "expected {} inputs ({}), got {}".format(
                    len(inputs), [n.name for n in inputs], len(in_shapes)
                )
            )
        known = {n.name: s for n, s in zip(inputs, in_shapes)}
        shapes = infer_graph_shapes(order, known, running=True)
        types = infer_graph_types(order, {n.name: t for n, t in zip(inputs, in_dtypes)})
        # A 0 dim is "unknown" here, also where an op computed an empty axis. Deliberately
        # stricter than MXNet 1.9.1, whose hybridized `F.slice` of an empty range returns a
        # (2, 0) array but whose next op mostly fails on it ("Check failed: delay_alloc" from
        # concat, sum or FullyConnected, eagerly too): a plan that ran on where MXNet fails
        # would let --verify prove a fix real MXNet rejects; refusing it only leaves it
        # unverified (checked 2026-11-30).
        # the nodes a dynamic-shape op feeds have their shapes only when they run
        self.dynamic = _fed_by_dynamic(order)
        for node in order:
            if node.op is not None and id(node) not in self.dynamic:
                for i in range(node.num_outputs()):
                    if not shape_known(shapes.get((id(node), i))):
                        raise MXNetError(
                            "Error in operator {}: cannot infer the shape of output "
                            "{} from input shapes {}{}".format(
                                node.name,
                                i,
                                ", ".join(
                                    _fmt_shape(shapes.get((id(c), j))) for c, j in node.inputs
                                ),
                                "\n  created at " + node.where() if node.where() else "",
                            )
                        )
        self._graph = (order, inputs, shapes, types)
        self.run: Callable[..., Any]
        self._fast_run: Optional[Callable[..., Any]] = None
        self._reference_run: Optional[_ReferenceRun] = None
        if _fastpaths.FAST[0] and not self.dynamic:
            self._compile_fast()  # compile-time errors (folding) surface here
        self.use_fast(_fastpaths.FAST[0])
        _fastpaths.LIVE_PLANS.add(self)

    def use_fast(self, fast: bool) -> None:
        """Make `run` the generated plan (fast layer) or the node-by-node reference run
        (`engine/_reference.py`); callers holding this plan (CachedOp, gluon's bound calls)
        follow the switch (`engine/_fastpaths.py`). A plan made on the reference layer
        compiles its fast code on its first fast call, not when the switch flips."""
        if fast and not self.dynamic:  # a graph with dynamic shapes runs node by node
            self.run = self._fast_run or self._first_fast_run
            return
        if self._reference_run is None:
            order, inputs, shapes, _ = self._graph
            self._reference_run = _ReferenceRun(self.sym, order, inputs, shapes, _node_error)
        self.run = self._reference_run

    def _compile_fast(self) -> None:
        self._compile(*self._graph)
        self._fast_run = self.run

    def _first_fast_run(self, *arrays):
        self._compile_fast()
        return self.run(*arrays)

    # -------------------------------------------------------------- compile
    def _compile(self, order, inputs, shapes, types):
        value_of: Dict[Tuple[int, int], int] = {}
        self.shapes: List[tuple] = []
        self.dtypes: List[np.dtype] = []
        self.const: Dict[int, np.ndarray] = {}

        self.labels: List[str] = []  # value id -> the graph node (and output) it holds
        node_of = {id(n): n for n in order}

        def new_value(key):
            vid = len(self.shapes)
            node = node_of[key[0]]
            n_out = node.num_outputs() if node.op is not None else 1
            self.labels.append(node.name if n_out == 1 else "%s_output%d" % (node.name, key[1]))
            self.shapes.append(shapes[key])
            t = types.get(key)
            self.dtypes.append(np.dtype(np.float32) if t is None else t)
            value_of[key] = vid
            return vid

        self.input_values = [new_value((id(n), 0)) for n in inputs]
        steps: List[_Step] = []
        for node in order:
            if node.op is None:
                continue
            ins = [value_of[(id(c), i)] for c, i in node.inputs]
            op, attrs = node.op, _node_attrs(node, shapes)
            if op.alias and ins:
                for i in range(node.num_outputs()):
                    value_of[(id(node), i)] = ins[0]
                continue
            # No scalar-chain folding (x*a/b -> x*(a/b)): in float32 it is not bit-exact
            # (`2.0 * x / 19 - 1.0` differed by 6e-8 from the eager ops), and MXNet 1.9.1's
            # hybridized block runs each op, equal to its eager one; a drift there made
            # --verify reject an exact fix (blind round 20's SFnet FAM).
            outs = [new_value((id(node), i)) for i in range(node.num_outputs())]
            step = _Step(node, op, attrs, ins, outs)
            if not op.random and all(v in self.const for v in ins):
                try:
                    res = self._eval(step, [self.const[v] for v in ins])
                except (ValueError, IndexError) as err:
                    raise _node_error(node, err, [self.shapes[v] for v in ins]) from None
                for v, r in zip(outs, res):
                    self.const[v] = r
                continue
            steps.append(step)
        self.output_values = [value_of[(id(n), i)] for n, i in self.sym._outputs]
        steps = self._eliminate_dead(steps)
        from .fusion import fold_conv_relu_pool

        steps = fold_conv_relu_pool(steps, self)
        self.steps = steps
        self._plan_memory()
        self._generate()

    @staticmethod
    def _eval(step, arrays):
        res = step.op.kernel(step.attrs, *arrays)
        return list(res) if isinstance(res, (tuple, list)) else [np.asarray(res)]

    def _eliminate_dead(self, steps):
        needed = set(self.output_values)
        kept = []
        for st in reversed(steps):
            if any(v in needed for v in st.outs):
                kept.append(st)
                needed.update(st.ins)
        kept.reverse()
        return kept

    # -------------------------------------------------------------- memory
    def _plan_memory(self):
        """Assign each value a storage: input, constant, planned buffer, or fresh per call."""
        n = len(self.shapes)
        last_use = [-1] * n
        for t, st in enumerate(self.steps):
            for v in st.ins:
                last_use[v] = t
        for v in self.output_values:
            last_use[v] = len(self.steps)
        # A kernel that allocates its own result may return a view of an input (an op not
        # marked `view`): its inputs' memory then lives as long as its outputs do.
        for st in reversed(self.steps):
            if st.op.view or (st.op.out_kernel is not None and len(st.outs) == 1):
                continue
            end = max(last_use[o] for o in st.outs)
            for v in st.ins:
                last_use[v] = max(last_use[v], end)
        root = list(range(n))  # storage root of each value
        external = set(self.input_values) | set(self.const)

        def storage_last_use(r):
            return max(last_use[v] for v in range(n) if root[v] == r)

        # storage written by our own out= kernels: only that may be overwritten in place
        # (a kernel returning a new array may hand back a view of its input, or a read-only
        # broadcast view)
        owned = set()
        for st in self.steps:
            if st.op.out_kernel is not None and len(st.outs) == 1 and not st.op.view:
                owned.add(st.outs[0])
        for t, st in enumerate(self.steps):
            if st.op.view:
                for v in st.outs:
                    root[v] = root[st.ins[0]]
                continue
            if st.op.inplace and st.op.out_kernel is not None and len(st.outs) == 1 and st.ins:
                src = st.ins[0]
                r = root[src]
                if (
                    r not in external
                    and r == src
                    and r in owned
                    and self.shapes[src] == self.shapes[st.outs[0]]
                    and self.dtypes[src] == self.dtypes[st.outs[0]]
                    and storage_last_use(r) == t
                    and all(root[v] != r for v in st.ins[1:])
                ):
                    root[st.outs[0]] = r
                    st.inplace_of = src
        # storages that reach an output are fresh per call; the rest come from the pool
        out_roots = {root[v] for v in self.output_values}
        self.root = root
        self.fresh = {r for r in set(root) if r in out_roots and r not in external}
        storage_users: Dict[int, List[int]] = {}
        for v in range(n):
            storage_users.setdefault(root[v], []).append(v)
        first_def = {}
        for t, st in enumerate(self.steps):
            for v in st.outs:
                first_def.setdefault(root[v], t)
        storage_end = {r: max(last_use[v] for v in vs) for r, vs in storage_users.items()}
        pool: List[Tuple[np.dtype, int, np.ndarray]] = []  # all buffers
        free: List[int] = []
        self.buffer_of: Dict[int, np.ndarray] = {}
        events = sorted((t, r) for r, t in first_def.items())
        ending: Dict[int, List[int]] = {}
        for r, e in storage_end.items():
            ending.setdefault(e, []).append(r)
        step_roots: Dict[int, List[int]] = {}
        for t, r in events:
            step_roots.setdefault(t, []).append(r)
        pool_index: Dict[int, int] = {}  # planned storage root -> its pool buffer
        for t, st in enumerate(self.steps):
            for r in step_roots.get(t, []):
                if r in external or r in self.fresh or r != st.outs[0] and r not in st.outs:
                    continue
                if st.op.out_kernel is None or len(st.outs) != 1:
                    continue  # the kernel allocates: nothing to plan
                dt, shape = self.dtypes[r], self.shapes[r]
                size = int(np.prod(shape)) if shape else 1
                pick = None
                for i in free:
                    pdt, psize, _ = pool[i]
                    if pdt == dt and psize >= size and (pick is None or psize < pool[pick][1]):
                        pick = i
                if pick is None:
                    pool.append((dt, size, np.empty(size, dt)))
                    pick = len(pool) - 1
                else:
                    free.remove(pick)
                self.buffer_of[r] = pool[pick][2][:size].reshape(shape)
                pool_index[r] = pick
            for r in ending.get(t, []):
                idx = pool_index.get(r)
                if idx is not None and r not in self.fresh:
                    free.append(idx)
        self.pool = pool
        self.planned_bytes = sum(b.nbytes for _, _, b in pool)
        self.peak_bytes = self._simulate_peak(storage_end, out_roots)

    def _simulate_peak(self, storage_end, out_roots) -> int:
        """Peak bytes of intermediates and outputs during one call: the preallocated pool plus
        kernel-allocated arrays while alive."""
        live: Dict[int, int] = {}
        peak = cur = 0
        for t, st in enumerate(self.steps):
            for v in st.outs:
                r = self.root[v]
                if r == v and r not in self.buffer_of and r not in live:
                    live[r] = int(np.prod(self.shapes[v])) * self.dtypes[v].itemsize
                    cur += live[r]
            peak = max(peak, cur)
            for r in list(live):
                if storage_end[r] <= t and r not in out_roots:
                    cur -= live.pop(r)
        return self.planned_bytes + peak

    # -------------------------------------------------------------- code generation
    def _generate(self):
        """Write the plan as one Python function, registered with `linecache` under
        `self.filename` so tracebacks and debuggers show its lines. Values are named after
        their graph nodes (`_plan_names`); the plan's own names (kernels `_k<t>`, attributes
        `_a<t>`, buffers `_b<v>`, shapes/dtypes `_s<v>`/`_d<v>`, constants `_g_...`) start
        with an underscore, which value names never do."""
        # the engine's module name: numpy's floating-point warnings raised here are silenced
        # as in the engine's other modules (engine/__init__.py)
        ns = {"np": np, "_empty": np.empty, "__name__": __name__}
        vn = self.names = _plan_names(self.labels)
        lines = []
        lines.append("def run(%s):" % ", ".join(vn[v] for v in self.input_values))
        for v, arr in self.const.items():
            ns[vn[v]] = arr
        for r, buf in self.buffer_of.items():
            ns["_b%d" % r] = buf
        starts = []  # index in `lines` of each step's first line
        for t, st in enumerate(self.steps):
            starts.append(len(lines))
            ns["_k%d" % t] = (
                st.op.out_kernel
                if st.outs[0] in self.buffer_of
                or (st.outs[0] in self.fresh and st.op.out_kernel is not None and len(st.outs) == 1)
                or st.inplace_of is not None
                else st.op.kernel
            )
            ns["_a%d" % t] = st.attrs
            ins = ", ".join(vn[v] for v in st.ins)
            out = st.outs[0]
            o, k = vn[out], "_k{t}(_a{t}".format(t=t)
            lines_inline = None
            if st.op.inline is not None and len(st.outs) == 1 and not st.op.view:
                if st.inplace_of is not None:
                    target = vn[st.inplace_of]
                elif out in self.buffer_of:
                    target = "_b%d" % out
                elif out in self.fresh and st.op.out_kernel is not None:
                    target = o
                else:
                    target = None
                if target is not None:
                    lines_inline = st.op.inline(InlineStep(t, st, self, ns, target))
            if lines_inline is not None:
                if target == o and st.inplace_of is None:
                    ns["_s%d" % out] = self.shapes[out]
                    ns["_d%d" % out] = self.dtypes[out]
                    lines.append("    {o} = _empty(_s{v}, _d{v})".format(o=o, v=out))
                lines.extend("    " + ln for ln in lines_inline)
                if target != o:
                    lines.append("    {o} = {tg}".format(o=o, tg=target))
            elif st.inplace_of is not None:
                src = vn[st.inplace_of]
                lines.append("    {k}, {src}, {ins})".format(k=k, src=src, ins=ins))
                lines.append("    {o} = {src}".format(o=o, src=src))
            elif out in self.buffer_of:
                lines.append("    {o} = _b{v}".format(o=o, v=out))
                lines.append("    {k}, {o}, {ins})".format(k=k, o=o, ins=ins))
            elif (
                out in self.fresh
                and st.op.out_kernel is not None
                and len(st.outs) == 1
                and not st.op.view
            ):
                ns["_s%d" % out] = self.shapes[out]
                ns["_d%d" % out] = self.dtypes[out]
                lines.append("    {o} = _empty(_s{v}, _d{v})".format(o=o, v=out))
                lines.append("    {k}, {o}, {ins})".format(k=k, o=o, ins=ins))
            else:
                ns["_k%d" % t] = st.op.kernel
                outs = ", ".join(vn[v] for v in st.outs) + ("," if len(st.outs) > 1 else "")
                lines.append("    {outs} = {k}, {ins})".format(outs=outs, k=k, ins=ins))
        rets = []
        owned = {
            st.outs[0]
            for st in self.steps
            if st.op.out_kernel is not None and len(st.outs) == 1 and not st.op.view
        }
        for v in self.output_values:
            r = self.root[v]
            if (
                r in self.input_values
                or r in self.const
                or r in self.buffer_of
                or (r != v and r not in self.fresh)
            ):
                rets.append("%s.copy()" % vn[v])
            elif r not in owned:
                # a kernel's own result may still be a view of an input (SwapAxis ...)
                rets.append("({0} if {0}.base is None else {0}.copy())".format(vn[v]))
            else:
                rets.append(vn[v])
        lines.append("    return [%s]" % ", ".join(rets))
        # one try around the body (free until something raises): a kernel's error names its
        # node and the user's source line (_plan_error), chained to the kernel's own error
        # (whose traceback shows the plan's lines); engine gaps pass unchanged
        lines = (
            [lines[0], "    try:"]
            + ["    " + ln for ln in lines[1:]]
            + [
                "    except NotImplementedError:",
                "        raise",
                "    except (ValueError, IndexError, MXNetError) as _e:",
                "        raise _plan_error(_plan, _e) from _e",
            ]
        )
        self._step_lines = [i + 2 for i in starts]  # 1-based, after the `try:` line
        ns.update(
            NotImplementedError=NotImplementedError,
            MXNetError=MXNetError,
            _plan_error=_plan_error,
            _plan=self,
        )
        self.source = "\n".join(lines) + "\n"
        self.filename = "<hybridlint-plan 0x%x>" % id(self)
        _register_source(self, self.filename, self.source)
        exec(compile(self.source, self.filename, "exec"), ns)
        self.run = ns["run"]

    def step_at(self, lineno: int) -> Optional["_Step"]:
        """The step whose generated code holds line `lineno` of `self.source`."""
        import bisect

        t = bisect.bisect_right(self._step_lines, lineno) - 1
        return self.steps[t] if 0 <= t < len(self.steps) else None


class InlineStep:
    """What an op's `inline` code generator sees: value names and static facts of one step.

    `ins`/`out` are Python expressions (variable names) of the input arrays and of the output
    buffer; `const(value)` puts a value into the plan's namespace and returns its name.
    The generator returns source lines that fill `out`, or None to fall back to `out_kernel`.
    """

    def __init__(self, t, step, plan, ns, out_name):
        self.attrs = step.attrs
        self.ins = [plan.names[v] for v in step.ins]
        self.out = out_name
        self.in_shapes = [plan.shapes[v] for v in step.ins]
        self.in_dtypes = [plan.dtypes[v] for v in step.ins]
        self.out_shape = plan.shapes[step.outs[0]]
        self.out_dtype = plan.dtypes[step.outs[0]]
        self._ns = ns
        self._prefix = "c%d_" % t
        self._n = 0

    def const(self, value) -> str:
        for k, v in self._ns.items():
            if v is value and k.startswith("_g_"):
                return k
        name = "_g_%s%d" % (self._prefix, self._n)
        self._n += 1
        self._ns[name] = value
        return name


# ----------------------------------------------------------------------------- cache


class PlanCache:
    """Compiled plans of one Symbol keyed by input shapes and dtypes."""

    def __init__(self, sym: Symbol, static_shape: bool = False):
        self.sym = sym
        self.static_shape = static_shape
        self.plans: Dict[tuple, Plan] = {}
        self.n_inputs = len(sym.list_inputs())

    def plan_for(self, arrays) -> "Plan":
        key = (*[a.shape for a in arrays], *[a.dtype for a in arrays])
        return self.plans.get(key) or self.compile(arrays, key)

    def run(self, arrays):
        """Outputs (numpy arrays) of the graph on `arrays`, compiling on a new signature."""
        key = (*[a.shape for a in arrays], *[a.dtype for a in arrays])
        plan = self.plans.get(key)
        if plan is None:
            plan = self.compile(arrays, key)
        return plan.run(*arrays)

    def compile(self, arrays, key) -> "Plan":
        if len(arrays) != self.n_inputs:
            raise MXNetError(
                "CachedOp expects {} inputs ({}), got {}".format(
                    self.n_inputs, self.sym.list_inputs(), len(arrays)
                )
            )
        plan = Plan(self.sym, [a.shape for a in arrays], [a.dtype for a in arrays])
        if self.static_shape:
            self.plans.clear()
        self.plans[key] = plan
        return plan


def eager_peak_bytes(sym: Symbol, arrays) -> int:
    """Peak intermediate bytes of running `sym` eagerly: every op allocates its result, which
    lives until its last consumer (an optimistic model of eager execution)."""
    order = sym._order()
    inputs = [n for n in order if n.op is None]
    shapes = infer_graph_shapes(
        order, {n.name: a.shape for n, a in zip(inputs, arrays)}, running=True
    )
    types = infer_graph_types(order, {n.name: a.dtype for n, a in zip(inputs, arrays)})
    last = {}
    for t, node in enumerate(order):
        for c, i in node.inputs:
            last[(id(c), i)] = t
    for n, i in sym._outputs:
        last[(id(n), i)] = len(order)
    live = {}
    cur = peak = 0
    for t, node in enumerate(order):
        if node.op is None or node.op.alias:
            continue
        for i in range(node.num_outputs()):
            key = (id(node), i)
            if node.op.view:
                continue
            b = int(np.prod(shapes[key])) * np.dtype(types[key] or np.float32).itemsize
            live[key] = b
            cur += b
        peak = max(peak, cur)
        for key in [k for k in live if last.get(k, -1) <= t]:
            cur -= live.pop(key)
    return peak


class Executor:
    """What `Symbol.bind` returns: `forward()` computes `outputs` from the bound arrays."""

    def __init__(self, sym: Symbol, args, aux_states=None):
        self._sym = sym
        names = sym.list_arguments()
        if isinstance(args, (list, tuple)):
            args = dict(zip(names, args))
        self.arg_dict = dict(args or {})
        aux_names = sym.list_auxiliary_states()
        if isinstance(aux_states, (list, tuple)):
            aux_states = dict(zip(aux_names, aux_states))
        self.aux_dict = dict(aux_states or {})
        missing = [
            n for n in sym.list_inputs() if n not in self.arg_dict and n not in self.aux_dict
        ]
        if missing:
            raise MXNetError("bind: missing arrays for {}".format(missing))
        self.arg_arrays = [self.arg_dict[n] for n in names]
        self.aux_arrays = [self.aux_dict[n] for n in aux_names]
        self.outputs: List[Any] = []
        self._cache = PlanCache(sym)

    @property
    def output_dict(self):
        return dict(zip(self._sym.list_outputs(), self.outputs))

    def forward(self, is_train: bool = False, **kwargs):
        from .ndarray.ndarray import wrap

        for k, v in kwargs.items():
            self.arg_dict[k]._data[...] = v._data if hasattr(v, "_data") else v
        arrays = [
            (self.arg_dict[n] if n in self.arg_dict else self.aux_dict[n])._data
            for n in self._sym.list_inputs()
        ]
        self.outputs = [wrap(o) for o in self._cache.run(arrays)]
        return self.outputs
