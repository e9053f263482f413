"""Symbol: a node of a computation graph, with MXNet 1.9.1's semantics.

What hybridize breaks in user code is exactly what a Symbol refuses to do, so each refusal is
deliberate and matches MXNet: no `.shape/.size/.ndim/.dtype/.context/.T` attributes, `sym[i]`
selects output i (on a one-output symbol `x[0]` is `x` again), `len(sym)` counts outputs,
in-place operators and `bool()` raise `NotImplementedForSymbol`, and `+ - * / % **` and
comparisons between two Symbols are elementwise and do not broadcast (their shape mismatch
surfaces at shape inference, naming the op, both shapes and the user's source line).
"""

import json
import linecache
import os
import sys
import warnings
import types  # a module, not a public name: the engine mirrors MXNet's names
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ..base import MXNetError, NotImplementedForSymbol, _type_name
from ..registry import Attrs as _Attrs
from ..registry import OpDef, get_op, shape_known
from ..serialization import dumps_graph_json as _dumps_graph_json

_ENGINE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_source() -> Optional[Tuple[str, int, str]]:
    """(filename, lineno, line text) of the first stack frame outside the engine."""
    f: Optional[types.FrameType] = sys._getframe(2)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(_ENGINE_DIR):
            return (fn, f.f_lineno, linecache.getline(fn, f.f_lineno).strip())
        f = f.f_back
    return None


class Node:
    """One graph node: an op application (or a variable when `op` is None)."""

    __slots__ = ("op", "name", "attrs", "parsed", "inputs", "source", "user_attrs", "_num_outputs")

    def __init__(
        self,
        op: Optional[OpDef],
        name: str,
        attrs: Dict[str, str],
        parsed,
        inputs: List[Tuple["Node", int]],
        source,
        user_attrs=None,
    ):
        self.op = op
        self.name = name
        self.attrs = attrs  # stringified op parameters, as in MXNet's JSON
        self.parsed = parsed  # registry.Attrs (None for variables)
        self.inputs = inputs  # [(node, output index)]
        self.source = source  # (filename, lineno, text) of the user's line
        self.user_attrs = user_attrs or {}  # __shape__, __dtype__, lr_mult ...
        self._num_outputs = 1 if op is None else op.num_outputs(parsed)

    @property
    def is_variable(self) -> bool:
        return self.op is None

    def num_outputs(self) -> int:
        return self._num_outputs

    def where(self) -> str:
        """'file.py:12: line text' for error messages ('' when unknown)."""
        if not self.source:
            return ""
        fn, ln, text = self.source
        return "{}:{}{}".format(fn, ln, (": " + text) if text else "")


def _topo(heads) -> List[Node]:
    """Nodes reachable from `heads` in MXNet's DFS post-order (inputs in order)."""
    order: List[Node] = []
    seen = set()
    for head, _ in heads:
        if id(head) in seen:
            continue
        stack = [(head, 0)]
        seen.add(id(head))
        while stack:
            node, i = stack[-1]
            if i < len(node.inputs):
                stack[-1] = (node, i + 1)
                child = node.inputs[i][0]
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, 0))
            else:
                stack.pop()
                order.append(node)
    return order


def _aux_ids(order) -> set:
    aux = set()
    for node in order:
        if node.op is not None and node.op.aux:
            n_in = len(node.inputs)
            for child, _ in node.inputs[n_in - len(node.op.aux) :]:
                aux.add(id(child))
    return aux


def _partial_shapes(shapes):
    """infer_shape_partial's form: () for an unknown shape."""
    return [() if s is None else s for s in shapes]


def _not_for_symbol(name, alias=None, extra=()):
    """A method of NDArray that Symbol has only to refuse, with MXNet's message."""
    if name.startswith("__i"):

        def method(self, other):
            raise NotImplementedForSymbol(method, alias, other, *extra)
    elif alias == "bool":  # (the variants' arities differ: a wrong-arity call is a TypeError)

        def method(self):  # type: ignore[misc]
            raise NotImplementedForSymbol(method, alias)
    else:

        def method(self):  # type: ignore[misc]
            raise NotImplementedForSymbol(method, None)

    method.__name__ = name
    method.__qualname__ = "Symbol." + name
    return method


class Symbol:
    """A symbolic graph: one or more outputs `(node, index)`."""

    __slots__ = ("_outputs", "__weakref__")
    __array_priority__ = 1000.0

    def __init__(self, outputs):
        self._outputs = tuple(outputs)

    # ----------------------------------------------------------------- identity
    @property
    def name(self) -> Optional[str]:
        if len(self._outputs) != 1:
            heads = {id(n) for n, _ in self._outputs}
            return self._outputs[0][0].name if len(heads) == 1 else None
        return self._outputs[0][0].name

    def __repr__(self) -> str:
        name = self.name
        if name is None:
            return "<Symbol group [{}]>".format(", ".join(self.list_outputs()))
        return "<Symbol {}>".format(name)

    def __hash__(self) -> int:
        return id(self) // 16

    def __copy__(self):
        return load_json(self.tojson())

    def __deepcopy__(self, memo):
        return load_json(self.tojson())

    def __getstate__(self):
        return {"json": self.tojson()}

    def __setstate__(self, state):
        self._outputs = load_json(state["json"])._outputs

    # ----------------------------------------------------------------- outputs
    def __len__(self) -> int:
        return len(self._outputs)

    def __iter__(self):
        return (Symbol([o]) for o in self._outputs)

    def __getitem__(self, index):
        """Select output `index` (an int, an output name or a slice) - never an element."""
        count = len(self._outputs)
        if isinstance(index, slice):
            start = 0 if index.start is None else index.start
            stop = count if index.stop is None else index.stop
            step = 1 if index.step is None else index.step
            from . import Group

            return Group([self[i] for i in range(start, stop, step)])
        if isinstance(index, str):
            idx = None
            for i, name in enumerate(self.list_outputs()):
                if name == index:
                    if idx is not None:
                        raise ValueError('There are multiple outputs with name "%s"' % index)
                    idx = i
            if idx is None:
                raise ValueError('Cannot find output that matches name "%s"' % index)
            index = idx
        if not isinstance(index, int):
            raise TypeError("Symbol only support integer index to fetch i-th output")
        if index >= count:
            raise IndexError
        if index < 0:
            raise MXNetError(
                "Check failed: index < nreturn ({} vs. {}) : Symbol only accept "
                "nonnegative index".format(index % (1 << 32), count)
            )
        return Symbol([self._outputs[index]])

    def get_internals(self) -> "Symbol":
        outs: List[Tuple[Any, int]] = []
        for node in _topo(self._outputs):
            outs.extend((node, i) for i in range(node.num_outputs()))
        return Symbol(outs)

    def get_children(self) -> Optional["Symbol"]:
        ins = [i for node, _ in self._outputs for i in node.inputs]
        return Symbol(ins) if ins else None

    # ----------------------------------------------------------------- composition
    def __call__(self, *args, **kwargs):
        """A copy of this graph with its free variables replaced by the given Symbols."""
        s = self.__copy__()
        s._compose(*args, **kwargs)
        return s

    def _compose(self, *args, **kwargs) -> None:
        """Replace variables (positionally in list_arguments order, or by name) in place."""
        name = kwargs.pop("name", None)
        if args and kwargs:
            raise TypeError(
                "compose only accept input Symbols either as positional or keyword "
                "arguments, not both"
            )
        for v in list(args) + list(kwargs.values()):
            if not isinstance(v, Symbol):
                raise TypeError("Compose expect `Symbol` as arguments")
            if len(v._outputs) != 1:
                raise MXNetError(
                    "compose: a group of {} outputs cannot replace one variable".format(
                        len(v._outputs)
                    )
                )
        if args:
            raise MXNetError(
                "Check failed: args.size() == 0U ({} vs. 0) : General composition "
                "only support kwargs for now".format(len(args))
            )
        order = self._order()
        repl = {}
        for node in order:
            if node.op is None and node.name in kwargs:
                repl[id(node)] = kwargs[node.name]._outputs[0]
        copies = {}
        for node in order:
            if id(node) in repl:
                continue
            if node.op is None:
                copies[id(node)] = node
                continue
            inputs = [repl[id(c)] if id(c) in repl else (copies[id(c)], i) for c, i in node.inputs]
            copies[id(node)] = Node(
                node.op,
                node.name,
                node.attrs,
                node.parsed,
                inputs,
                node.source,
                dict(node.user_attrs),
            )
        outs = []
        for n, i in self._outputs:
            outs.append(repl[id(n)] if id(n) in repl else (copies[id(n)], i))
        if name and len(outs) == 1 and outs[0][0].op is not None:
            outs[0][0].name = name
        self._outputs = tuple(outs)

    # ----------------------------------------------------------------- listing
    def _order(self) -> List[Node]:
        return _topo(self._outputs)

    def list_arguments(self) -> List[str]:
        order = self._order()
        aux = _aux_ids(order)
        return [n.name for n in order if n.op is None and id(n) not in aux]

    def list_auxiliary_states(self) -> List[str]:
        order = self._order()
        aux = _aux_ids(order)
        return [n.name for n in order if n.op is None and id(n) in aux]

    def list_inputs(self) -> List[str]:
        return [n.name for n in self._order() if n.op is None]

    def list_outputs(self) -> List[str]:
        names = []
        for node, i in self._outputs:
            if node.op is None:
                names.append(node.name)
            else:
                names.append(node.name + "_" + node.op.output_names(node.parsed)[i])
        return names

    # ----------------------------------------------------------------- attributes
    def attr(self, key: str) -> Optional[str]:
        node = self._outputs[0][0]
        if key in node.user_attrs:
            return node.user_attrs[key]
        return node.attrs.get(key)

    def list_attr(self, recursive: bool = False) -> Dict[str, str]:
        if recursive:
            raise DeprecationWarning(
                "Symbol.list_attr with recursive=True has been deprecated. "
                "Please use attr_dict instead."
            )
        node = self._outputs[0][0]
        return dict(node.attrs, **node.user_attrs)

    def attr_dict(self) -> Dict[str, Dict[str, str]]:
        return {
            n.name: dict(n.attrs, **n.user_attrs) for n in self._order() if n.attrs or n.user_attrs
        }

    def _set_attr(self, **kwargs) -> None:
        for node, _ in self._outputs:
            node.user_attrs.update({k: str(v) for k, v in kwargs.items()})

    # ----------------------------------------------------------------- inference
    def infer_shape(self, *args, **kwargs):
        """(arg_shapes, out_shapes, aux_shapes); all None when some shape stays unknown."""
        arg, out, aux_s = self._infer_shape(args, kwargs)
        if not all(shape_known(s) for s in arg + aux_s + out):
            unknowns = [
                "%s: %s" % (n, s)
                for n, s in zip(self.list_arguments(), _partial_shapes(arg))
                if not s or 0 in s
            ][:11]
            if len(unknowns) == 11:
                unknowns[10] = "..."
            warnings.warn(
                "Cannot decide shape for the following arguments (0s in shape means "
                "unknown dimensions). Consider providing them as input:\n\t"
                + "\n\t".join(unknowns),
                stacklevel=2,
            )
            return None, None, None
        return arg, out, aux_s

    def infer_shape_partial(self, *args, **kwargs):
        """Like infer_shape, with () for unknown shapes and 0 for unknown dims."""
        arg, out, aux_s = self._infer_shape(args, kwargs)
        return _partial_shapes(arg), _partial_shapes(out), _partial_shapes(aux_s)

    def _infer_shape(self, args, kwargs):
        """(arg, out, aux) shapes as inferred: None unknown, 0-dims unknown."""
        from ..executor import infer_graph_shapes

        known = self._known_by_name(args, kwargs, "infer_shape")
        known = {k: tuple(v) for k, v in known.items() if v is not None and len(v) > 0}
        order = self._order()
        shapes = infer_graph_shapes(order, known)
        aux = _aux_ids(order)
        arg = [shapes.get((id(n), 0)) for n in order if n.op is None and id(n) not in aux]
        aux_s = [shapes.get((id(n), 0)) for n in order if n.op is None and id(n) in aux]
        out = [shapes.get((id(n), i)) for n, i in self._outputs]
        return arg, out, aux_s

    def infer_type(self, *args, **kwargs):
        from ..executor import infer_graph_types

        known = self._known_by_name(args, kwargs, "infer_type")
        known = {k: np.dtype(v) for k, v in known.items() if v is not None}
        order = self._order()
        types = infer_graph_types(order, known)
        aux = _aux_ids(order)

        def get(node, i=0):
            t = types.get((id(node), i))
            return None if t is None else t.type

        arg = [get(n) for n in order if n.op is None and id(n) not in aux]
        aux_t = [get(n) for n in order if n.op is None and id(n) in aux]
        out = [get(n, i) for n, i in self._outputs]
        if any(t is None for t in arg + aux_t + out):
            return None, None, None
        return arg, out, aux_t

    def infer_type_partial(self, *args, **kwargs):
        res = self.infer_type(*args, **kwargs)
        return res

    def _known_by_name(self, args, kwargs, fname) -> Dict[str, object]:
        if args and kwargs:
            raise ValueError(
                "Can only specify known argument shapes either by positional or kwargs way."
            )
        if args:
            names = self.list_arguments()
            if len(args) > len(names):
                raise MXNetError("{}: too many positional arguments".format(fname))
            return {n: a for n, a in zip(names, args) if a is not None}
        known = self.list_inputs()
        for k in kwargs:
            if k not in known:
                kind = "InferShape" if fname == "infer_shape" else "InferType"
                raise MXNetError(
                    "{}Keyword argument name {} not found.\nCandidate arguments:\n{}".format(
                        kind, k, "".join("\t%s\n" % n for n in known)
                    )
                )
        return dict(kwargs)

    # ----------------------------------------------------------------- serialization
    def tojson(self, remove_amp_cast: bool = True) -> str:
        """The graph as MXNet 1.9.1's `tojson()` text, byte for byte (the one writer,
        `serialization.dumps_graph_json`, is dmlc's: non-ASCII written as is, not escaped), so
        it loads in real MXNet with `mx.sym.load_json`. `remove_amp_cast` is accepted for
        MXNet's signature: the engine has no amp_cast ops to remove."""
        return _dumps_graph_json(self._graph_dict())

    def _graph_dict(self, top: bool = True) -> Dict[str, Any]:
        """The nnvm graph as a dict; the subgraphs of a control-flow node (`_foreach`,
        `_while_loop`, `_cond`) are nested in its `subgraphs`, without the top graph's `attrs`,
        as MXNet writes them."""
        order = self._order()
        index = {id(n): i for i, n in enumerate(order)}
        nodes = []
        row_ptr = [0]
        for n in order:
            entry: Dict[str, Any] = {"op": "null" if n.op is None else n.op.name, "name": n.name}
            attrs = dict(n.attrs)
            attrs.update(n.user_attrs)
            if attrs:
                entry["attrs"] = attrs
            entry["inputs"] = [[index[id(c)], i, 0] for c, i in n.inputs]
            subs = n.parsed.get("subgraphs") if n.op is not None else None
            if subs:
                entry["subgraphs"] = [sub._graph_dict(top=False) for sub in subs]
            nodes.append(entry)
            # ops with hidden outputs (BatchNorm's 3, Dropout's mask...) count them here as MXNet
            hidden = getattr(n.op, "json_num_outputs", None)
            row_ptr.append(row_ptr[-1] + (hidden(n.parsed) if hidden else n.num_outputs()))
        graph: Dict[str, Any] = {
            "nodes": nodes,
            "arg_nodes": [i for i, n in enumerate(order) if n.op is None],
            "node_row_ptr": row_ptr,
            "heads": [[index[id(n)], i, 0] for n, i in self._outputs],
        }
        if top:
            graph["attrs"] = {"mxnet_version": ["int", 10901]}
        return graph

    def save(self, fname: str, remove_amp_cast: bool = True) -> None:
        """Write `tojson()` to `fname` as UTF-8 bytes, as MXNet's C++ does (it writes the
        std::string it built, no newline translation, no BOM), whatever the locale's encoding:
        so MXNet reads our files, and `load` (UTF-8) reads MXNet's, non-ASCII names included."""
        if not isinstance(fname, str):
            raise TypeError("fname need to be string")
        text = self.tojson(remove_amp_cast).encode("utf-8")
        try:
            f = open(fname, "wb")
        except OSError as err:  # as dmlc's file system reports it, like `load`
            raise MXNetError(
                'LocalFileSystem: Check failed: allow_null: :Open "%s": %s' % (fname, err.strerror)
            ) from None
        with f:
            f.write(text)

    # ----------------------------------------------------------------- execution
    def eval(self, ctx=None, **kwargs):
        from ..ndarray import CachedOp

        names = self.list_inputs()
        missing = [n for n in names if n not in kwargs]
        if missing:
            raise MXNetError("eval: missing values for inputs {}".format(missing))
        res = CachedOp(self)(*[kwargs[n] for n in names])
        return res if isinstance(res, list) else [res]

    def bind(
        self,
        ctx=None,
        args=None,
        args_grad=None,
        grad_req="write",
        aux_states=None,
        group2ctx=None,
        shared_exec=None,
    ):
        from ..executor import Executor

        return Executor(self, args, aux_states)

    def simple_bind(
        self,
        ctx=None,
        grad_req="write",
        type_dict=None,
        stype_dict=None,
        group2ctx=None,
        shared_arg_names=None,
        shared_exec=None,
        shared_buffer=None,
        **kwargs,
    ):
        from ..executor import Executor
        from ..ndarray.ndarray import wrap

        arg_shapes, _, aux_shapes = self.infer_shape(**kwargs)
        if arg_shapes is None:
            raise MXNetError("simple_bind: cannot infer all shapes from {}".format(kwargs))
        type_dict = type_dict or {}
        args = {
            n: wrap(np.zeros(s, np.dtype(type_dict.get(n, np.float32))))
            for n, s in zip(self.list_arguments(), arg_shapes)
        }
        aux = {
            n: wrap(np.zeros(s, np.float32))
            for n, s in zip(self.list_auxiliary_states(), aux_shapes)
        }
        return Executor(self, args, aux)

    # ----------------------------------------------------------------- arithmetic
    def _bin(self, other, op_name, scalar_name, hint, scalar_hint):
        from . import _make_node_symbol

        if isinstance(other, Symbol):
            return _make_node_symbol(op_name, [self, other], {}, hint=hint)
        if isinstance(other, (int, float, bool, np.generic)):
            return _make_node_symbol(scalar_name, [self], {"scalar": other}, hint=scalar_hint)
        raise TypeError("type %s not supported" % _type_name(other))

    def _rbin(self, other, scalar_name, scalar_hint):
        from . import _make_node_symbol

        if isinstance(other, (int, float, bool, np.generic)):
            return _make_node_symbol(scalar_name, [self], {"scalar": other}, hint=scalar_hint)
        raise TypeError("type %s not supported" % _type_name(other))

    def __add__(self, other):
        return self._bin(other, "elemwise_add", "_plus_scalar", "_plus", "_plusscalar")

    __radd__ = __add__

    def __sub__(self, other):
        return self._bin(other, "elemwise_sub", "_minus_scalar", "_minus", "_minusscalar")

    def __rsub__(self, other):
        return self._rbin(other, "_rminus_scalar", "_rminusscalar")

    def __mul__(self, other):
        return self._bin(other, "elemwise_mul", "_mul_scalar", "_mul", "_mulscalar")

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._bin(other, "elemwise_div", "_div_scalar", "_div", "_divscalar")

    def __rtruediv__(self, other):
        return self._rbin(other, "_rdiv_scalar", "_rdivscalar")

    __div__ = __truediv__
    __rdiv__ = __rtruediv__

    def __mod__(self, other):
        return self._bin(other, "_mod", "_mod_scalar", "_mod", "_modscalar")

    def __rmod__(self, other):
        return self._rbin(other, "_rmod_scalar", "_rmodscalar")

    def __pow__(self, other):
        return self._bin(other, "_power", "_power_scalar", "_power", "_powerscalar")

    def __rpow__(self, other):
        return self._rbin(other, "_rpower_scalar", "_rpower_scalar")

    def __neg__(self):
        return self.__mul__(-1.0)

    def __abs__(self):
        from . import _make_node_symbol

        return _make_node_symbol("abs", [self], {}, hint="abs")

    def __eq__(self, other):
        return self._bin(other, "_equal", "_equal_scalar", "_equal", "_equal_scalar")

    def __ne__(self, other):
        return self._bin(
            other, "_not_equal", "_not_equal_scalar", "_not_equal", "_not_equal_scalar"
        )

    def __gt__(self, other):
        return self._bin(other, "_greater", "_greater_scalar", "_greater", "_greater_scalar")

    def __ge__(self, other):
        return self._bin(
            other,
            "_greater_equal",
            "_greater_equal_scalar",
            "_greater_equal",
            "_greater_equal_scalar",
        )

    def __lt__(self, other):
        return self._bin(other, "_lesser", "_lesser_scalar", "_lesser", "_lesser_scalar")

    def __le__(self, other):
        return self._bin(
            other, "_lesser_equal", "_lesser_equal_scalar", "_lesser_equal", "_lesser_equal_scalar"
        )

    # ----------------------------------------------------------------- NDArray-only
    __iadd__ = _not_for_symbol("__iadd__", "+=", (1,))
    __isub__ = _not_for_symbol("__isub__", "-=")
    __imul__ = _not_for_symbol("__imul__", "*=")
    __idiv__ = _not_for_symbol("__idiv__", "/=")
    __itruediv__ = _not_for_symbol("__itruediv__", "/=")
    __bool__ = _not_for_symbol("__bool__", "bool")
    __nonzero__ = __bool__
    asnumpy = _not_for_symbol("asnumpy")
    asscalar = _not_for_symbol("asscalar")
    copy = _not_for_symbol("copy")
    as_in_context = _not_for_symbol("as_in_context")
    wait_to_read = _not_for_symbol("wait_to_read")
    detach = _not_for_symbol("detach")
    backward = _not_for_symbol("backward")

    # ----------------------------------------------------------------- fluent methods
    def astype(self, dtype, **kwargs):
        from . import _make_node_symbol

        return _make_node_symbol("Cast", [self], {"dtype": dtype}, hint="cast")

    def reshape(self, *args, **kwargs):
        """`mx.sym.reshape(self, *args, **kwargs)`, exactly as MXNet 1.9.1's Symbol.reshape:
        unlike NDArray.reshape it takes no varargs shape. `x.reshape(2, 3, 4)` binds 2 to
        `shape`, 3 to `reverse` and 4 to `target_shape` (MXNet: "Invalid Parameter format for
        reverse expect boolean"); `x.reshape(24, 1)` is `shape=(24,), reverse=True`: a wrong
        shape, and garbage when the size differs (the engine raises there, saying so)."""
        from . import op as sym_op

        return sym_op.reshape(self, *args, **kwargs)

    def __getattr__(self, name):
        from ..ndarray.ndarray import _FLUENT

        if name in _FLUENT:

            def method(*args, **kwargs):
                from . import op as sym_op

                return getattr(sym_op, name)(self, *args, **kwargs)

            return method
        raise AttributeError("'Symbol' object has no attribute '%s'" % name)


def load_json(json_str: str) -> Symbol:
    """Rebuild a Symbol from MXNet's JSON graph format (ours or real MXNet's). Non-strict JSON:
    dmlc writes control characters other than CR/LF/tab raw inside strings, which strict
    `json.loads` refuses. Backslash-u escapes (which MXNet refuses) are accepted, so files the
    engine's Symbol.save wrote before it matched MXNet's escaping still load."""
    if not isinstance(json_str, str):
        raise TypeError("fname required to be string")
    try:
        graph = json.loads(json_str, strict=False)
        graph["nodes"], graph["heads"]  # noqa: B018 - the two keys a graph must have
    except (ValueError, KeyError, TypeError) as err:
        raise MXNetError("load_json: not an MXNet symbol JSON graph ({})".format(err)) from None
    return _load_graph(graph)


def _load_graph(graph) -> Symbol:
    """A Symbol from an nnvm graph dict; a node's `subgraphs` (a loop's body...) become its
    parsed attributes' `subgraphs`, on attributes of its own."""
    entries = graph["nodes"]
    heads = graph["heads"]
    built: List[Node] = []
    for entry in entries:
        op_name = entry.get("op", "null")
        attrs = dict(entry.get("attrs") or entry.get("attr") or entry.get("param") or {})
        inputs = [(built[i[0]], i[1]) for i in entry.get("inputs", [])]
        if op_name == "null":
            built.append(Node(None, entry["name"], {}, None, [], None, attrs))
            continue
        op = get_op(op_name)
        user = {k: v for k, v in attrs.items() if k.startswith("__") or k not in op.params}
        params = {k: v for k, v in attrs.items() if k in op.params}
        parsed = op.parse(params)
        if entry.get("subgraphs"):
            subs = tuple(_load_graph(sub) for sub in entry["subgraphs"])
            parsed = _Attrs(dict(parsed.__dict__, subgraphs=subs))
        built.append(Node(op, entry["name"], params, parsed, inputs, None, user))
    return Symbol([(built[h[0]], h[1]) for h in heads])
