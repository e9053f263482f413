"""Shape-driven creation, arange and resize: HL001 rewrites (issue 12).

A Symbol has no shape, but MXNet has operators that read another array's shape inside the
graph (`*_like`, `broadcast_like`, `contrib.arange_like`, `shape_array`, the `like` mode of
`contrib.BilinearResize2D`). Each pattern below, its rewrite and its safety (every form was
checked on MXNet 1.9.1, eager and hybridized, and on the bundled engine; property tests in
tests/test_fix_creation.py and tests/test_fix_equivalence.py). A "dim of x" below is
`x.shape[k]` (a literal k, negative allowed), or a name bound once to one, at the top level
of the function, before the use (`n = x.shape[1]`, `b, c, h, w = x.shape`,
`_, _, h, w = x.shape`, `h, w = x.shape[2:]`, `h, w = x.shape[2], x.shape[3]`), with x not
assigned again after it.

- **`F.zeros(x.shape)`** (ones likewise) → `F.zeros_like(x).astype('float32')`: the creation
  op's default dtype is float32 while `zeros_like` keeps x's, hence the cast; with
  `dtype=x.dtype` just `F.zeros_like(x)`, with `dtype=D`, `.astype(D)`; `ctx=x.context` goes
  away. `F.full(x.shape, v)` → `F.ones_like(x).astype('float32') * v`. Safe.
- **A shape tuple with dims of tensors**, `F.zeros((x.shape[0], n))`, `F.ones((1, b, h))`
  after `b = x.shape[1]` (zeros, ones, full with a static value) → the same creation with 1
  in place of each dim, broadcast to those axes of x:
  `F.broadcast_like(F.zeros((1, n)), x, lhs_axes=(0,), rhs_axes=(0,))` (one `broadcast_like`
  per source tensor). The static elements, `dtype=` and the value are kept as written, so the
  values, shape and dtype are those of the original for every input. A zero dim is the one
  difference, as `broadcast_like` over axes fails where x's dim is 0: `F.zeros`/`F.ones` of
  a zero dim fail too in legacy MXNet 1.9.1, so those rewrites are safe; `F.full((0, 3), v)`
  is an empty array, so the `full` rewrite is unsafe (exact on every non-empty x). A
  `ctx=x.context` of a source tensor goes away (the result lives on x's context); any other
  `ctx=` makes the rewrite unsafe (it may differ from x's context, where broadcast_like
  fails).
- **`F.full(shape, x.shape[k])`**, the fill value a dim: the value is read in the graph,
  `F.slice_axis(F.shape_array(x), axis=0, begin=k, end=k + 1).astype(D)` (D the call's dtype,
  float32 by default), reshaped to the result's rank and multiplied into
  `F.ones(shape with 1s)` broadcast as above:
  `F.full((x.shape[0],), x.shape[1])` →
  `F.broadcast_mul(F.broadcast_like(F.ones((1,)), x, lhs_axes=(0,), rhs_axes=(0,)),
  F.slice_axis(F.shape_array(x), axis=0, begin=1, end=2).astype('float32'))`. Exact: a dim
  is an integer below 2**31, converted to D once in both forms. Safe when the shape is
  static (`F.full((3,), x.shape[1])`), unsafe with dims in the shape (the zero dim above).
- **`F.arange(x.shape[k])`** (also `F.arange(0, x.shape[k])`, `stop=`, a name bound to the
  dim, `dtype=D`; `nd.arange` of the module's import of mx.nd; `F.array(np.arange(...))` or
  `nd.array(np.arange(...))`, float32 unless the outer `dtype=` says otherwise, since MXNet
  1.x's `nd.array` casts a numpy source) → `F.contrib.arange_like(x, axis=k).astype('float32')`
  (`.astype(D)`): arange_like counts 0, 1, ... along axis k in x's dtype, hence the cast.
  Safe. A start other than 0 or a step has no exact like-form (arange_like's start/step change
  the length differently): reported only.
- **`F.contrib.BilinearResize2D(t, height=x.shape[2], width=x.shape[3])`** (or names from
  `h, w = x.shape[2:]`; `align_corners=` kept) →
  `F.contrib.BilinearResize2D(t, like=x, mode='like')`. The `like` mode reads `x.shape[2]`
  and `x.shape[3]` whatever x's rank (MXNet 1.9.1), which is what the original passes, so it
  is exact: safe. With `x.shape[-2]`/`x.shape[-1]` it is exact only on a rank-4 x: safe when
  the analysis knows the rank, else unsafe. A square size from one axis (`height=x.shape[2],
  width=x.shape[2]`) becomes the same like-resize, unsafe: exact only where x is square, the
  one input where a caller combining it with x's size works. Other arguments
  (`scale_height`, `mode=`): reported.
- **`F.contrib.BilinearResize2D(x, height=x.shape[2] * k, width=x.shape[3] * k)`** (k a
  positive integer literal, either side of `*`; axes -2/-1 too, names bound to the dims) →
  `F.contrib.BilinearResize2D(x, scale_height=k, scale_width=k)`: MXNet 1.9.1 sizes a scaled
  resize `int(dim * scale)`, the same size, and the values are the same (checked eager and
  hybridized). Only of the data's own dims; safe (the op takes a 4-D x only). Height from
  axis 3 and width from axis 2: reported only (the scales give that for a square x alone).
- **A name bound to dims and used only in such calls** (`length = x.shape[1]` then
  `F.arange(length)`; `height, width = x.shape[2:]` used only in a resize; also as reshape
  targets of x, through HL001's reshape codes) → every use is rewritten as above and the
  assignment goes away. The names are bound once, at the top level of the function, x is not
  assigned after them before their last load (the plain assignment that reads them last may
  rebind it: `x = F.contrib.BilinearResize2D(x, height=h * 2, width=w * 2)`), and every load
  of them is one of the rewritten uses; otherwise the assignment is reported only. Dims bound
  on two lines (`h = x.shape[2]`, `w = x.shape[3]`) read by one call are rewritten together,
  both lines going; a size bound already scaled (`h = x.shape[2] * 2`) feeds the scaled resize
  below and nothing else. Safe when each use's rewrite is (removing the unpacking drops
  its rank check: code that failed there may now run, working code is unchanged). Loads
  that are tensor arithmetic (`F.sum(d) * (1. / n)`) become the broadcast op of the dim as a
  float32 tensor (rules/hl001/scalars.py), and then the whole fix is unsafe, as that form is.
- **`F.stack(*[t] * x.shape[j], axis=k)`** (`*(n * [t])`, n a dim of x; ARC-II's text
  matching repeats each sentence's features along the other's length) →
  `F.broadcast_like(F.expand_dims(t, axis=k), x, lhs_axes=(k,), rhs_axes=(j,))`: n copies
  stacked on a new axis are t broadcast along it, the same values, shape and dtype (negative
  k and j included, checked on MXNet 1.9.1). Safe: a zero dim, where the two differ, fails
  in the original (stack of no arrays). `F.concat` of copies tiles an existing axis, which
  no like-form does by a dim: reported only.
- **`F.eye(x.shape[k])`, `F.random.*(shape=(x.shape[0], n))`**: no like-form gives the
  same values (an eye is not a broadcast; broadcasting one random row repeats it). Reported
  only.
- **Dims in arithmetic** (`F.ones(b * g)`, `F.zeros((x.shape[0] * 2, n))`) have no
  broadcast form: no axis of x has that size. Reported only.
- **Creations passed as `F.BatchNorm`'s `moving_mean`/`moving_var`** (group norm through
  BatchNorm on a (1, B*G, -1) view, gluoncv2 style): no rewrite of the creation helps. The
  auxiliary states must be Variables of the graph, and a creation op is not one
  (MXNet 1.9.1: `Mutation target can only be Variable`, already for a static `F.zeros(4)`),
  and no Parameter can have a batch-dependent shape. Reported only. (Outside
  `autograd.record()` such a BatchNorm normalizes with those moving statistics, 0 and 1,
  not with the batch's: a hand-written replacement must keep that.)
"""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from ...mxnet_facts import EAGER_ATTRIBUTES
from .._build import call, integer, strip_parens, tuple_of
from .._examples import net
from .axes import Plan, tile_rewrite
from .scalars import fold_dim_uses, plan_dim_uses
from ..analysis import TENSOR, call_argument, literal_int
from ..values import dotted_name, literal_factors, shape_index
from .._dim_bindings import DimBinding as _Binding
from .._dim_bindings import FunctionScan as _FunctionScan
from ..base import SAFE, UNSAFE, Edit, Invalid, Valid

_LIKE = {"zeros": "zeros_like", "ones": "ones_like", "full": "ones_like"}
_PLANNED = {"zeros", "ones", "full", "arange", "array", "contrib.BilinearResize2D", "stack"}
# eager-namespace calls HL001 rewrites to F's like-forms where the function has an F
_EAGER_OPS = {"mxnet.ndarray.arange": "arange", "mxnet.ndarray.array": "array"}
_TENSOR_ATTRS = EAGER_ATTRIBUTES  # hybridlint/mxnet_facts.py
_EQUAL = cst.AssignEqual(
    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
)

Edits = Tuple[Edit, ...]
# a dim of a tensor: (the tensor's name, the axis, the nodes the rewrite removes)
Dim = Tuple[str, int, Tuple[cst.CSTNode, ...]]


def plan_creation(rule, node: cst.Call, namespace: Optional[str]) -> List[Plan]:
    """Plans for calls whose shape comes from a tensor: (the attribute node, the edits that
    remove it, their safety). Empty when no exact rewrite is known. Called by HL001 for every
    call; `namespace` is the function's F (None in a helper without one: only F-free fixes)."""
    op = _namespace_op(node.func, namespace)
    if op in _LIKE and namespace is not None:  # (an op is only found through a namespace)
        plans = _plan_like(rule, node, op, namespace)
        if plans:
            return plans
    op = op or _eager_op(rule, node.func)
    tile = isinstance(node.func, cst.Attribute) and node.func.attr.value == "tile"
    if namespace is None or not (op in _PLANNED or tile) or not _mentions_shape(node):
        return []
    resolver = _Resolver(rule)
    rewritten = _rewrite_call(rule, node, namespace, resolver)
    if rewritten is None:
        return []
    replacement, safety, consumed = rewritten
    return [(n, ((node, replacement),), safety) for n in consumed if isinstance(n, cst.Attribute)]


def unpacking_creation_fix(rule, attribute: cst.Attribute) -> Optional[Tuple[Edits, str]]:
    """`n = x.shape[1]` / `b, c, h, w = x.shape` / `h, w = x.shape[2:]` whose names are used
    only in creation, arange, resize, tile calls (and reshapes of x HL001's codes can write):
    the edits rewriting every use and removing the assignment, and their safety, or None."""
    namespace = rule.namespace
    facts = rule.facts
    statement = rule.statement
    if namespace is None or facts is None or not isinstance(statement, cst.SimpleStatementLine):
        return None
    scan = facts.dim_bindings()
    binding = scan.bindings.get(statement)
    if (
        binding is None
        or not any(a is attribute for a in binding.attributes)
        or not scan.valid(binding)
    ):
        return None
    names = binding.names
    resolver = _Resolver(rule, scan, only=binding)
    edits: List[Edit] = [(statement, cst.RemovalSentinel.REMOVE)]
    safety = SAFE
    used: Set[int] = set()
    rewritten_calls: List[cst.Call] = []
    for candidate in scan.calls:
        if not any(id(n) in scan.load_ids(names) for n in _names_in(candidate)):
            continue
        if any(_contains(done, candidate) for done in rewritten_calls):
            continue
        result = _rewrite_call(rule, candidate, namespace, resolver)
        if result is None:
            reshaped = _reshape_of_data(rule, candidate, binding, scan)
            if reshaped is None:
                continue
            edits.append(reshaped[0])
            used.update(id(n) for n in reshaped[1])
            rewritten_calls.append(candidate)
            continue
        replacement, call_safety, consumed = result
        if any(_contains(candidate, done) for done in rewritten_calls):
            return None  # nested rewrites: not combined
        edits.append((candidate, replacement))
        used.update(id(n) for n in consumed)
        rewritten_calls.append(candidate)
        if call_safety == UNSAFE:
            safety = UNSAFE
    if len(edits) == 1:
        return None
    for sibling in _consumed_siblings(scan, binding, used):
        edits.append((sibling.statement, cst.RemovalSentinel.REMOVE))
    if not scan.load_ids(names) <= used:
        # the other loads may be tensor arithmetic (`* (1. / n)`): the broadcast op, unsafe
        others = [node for name in names for node, _ in scan.loads.get(name, [])]
        others = [node for node in others if id(node) not in used]
        return _with_dim_arithmetic(rule, binding, edits, others)
    return tuple(edits), safety


def _consumed_siblings(scan: _FunctionScan, binding: _Binding, used: Set[int]) -> List[_Binding]:
    """The other bindings of the same tensor whose every load the rewritten calls consumed
    (`w = x.shape[3]` beside `h = x.shape[2]`): their statements go with the fix."""
    siblings = {id(b): b for n, b in [*scan.by_name.items(), *scan.by_scaled.items()]}
    return [
        b
        for b in siblings.values()
        if b is not binding
        and b.data == binding.data
        and scan.load_ids(b.names) & used
        and scan.load_ids(b.names) <= used
    ]


def _with_dim_arithmetic(
    rule, binding: _Binding, edits: List[Edit], uses: List[cst.Name]
) -> Optional[Tuple[Edits, str]]:
    """`edits` (the binding's removal and its rewritten creations) with the names' other
    loads, tensor arithmetic (`F.sum(d) * (1. / n)` after `n = x.shape[0]`, L-GM loss),
    rewritten by `scalars.plan_dim_uses` as the broadcast op of `(1,)` tensors of x's shape;
    None when a load is anything else or an edit would land inside another. Unsafe, as every
    float form of a dim (rules/hl001/scalars.py)."""
    dims = {name: (binding.data, axis) for name, axis in binding.axes.items()}
    scalar = plan_dim_uses(rule, uses, dims)
    combined = fold_dim_uses(edits[1:], scalar) if scalar is not None else None
    return ((edits[0], *combined), UNSAFE) if combined is not None else None


# ---- resolving dims ----------------------------------------------------------------------
class _Resolver:
    """Element expressions -> dims of tensors (`x.shape[k]`, names bound to dims)."""

    def __init__(
        self, rule, scan: Optional[_FunctionScan] = None, only: Optional[_Binding] = None
    ) -> None:
        self.rule, self._scan, self.only = rule, scan, only

    @property
    def scan(self) -> Optional[_FunctionScan]:
        if self._scan is None and self.rule.facts is not None:
            self._scan = self.rule.facts.dim_bindings()
        return self._scan

    def dim(self, expr: cst.BaseExpression) -> Optional[Dim]:
        expr = strip_parens(expr)
        direct = shape_index(expr)
        if direct is not None:
            data = direct[0].value
            if isinstance(data, cst.Name) and self.rule.is_tensor(data):
                return data.value, direct[1], (direct[0],)
            return None
        if isinstance(expr, cst.Name) and self.scan is not None:
            binding = self.scan.by_name.get(expr.value)
            if binding is not None and self._allowed(binding):
                return binding.data, binding.axes[expr.value], (expr,)
        return None

    def scaled(self, expr: cst.BaseExpression) -> Optional[Tuple[Dim, int]]:
        """(the dim, k) for a name bound to `x.shape[j] * k` (`h = x.shape[2] * 2`)."""
        expr = strip_parens(expr)
        if isinstance(expr, cst.Name) and self.scan is not None:
            binding = self.scan.by_scaled.get(expr.value)
            if binding is not None and self._allowed(binding):
                axis, factor = binding.scaled[expr.value]
                return (binding.data, axis, (expr,)), factor
        return None

    def _allowed(self, binding: _Binding) -> bool:
        """A valid binding (the scan's maps hold no other) of a tensor's shape (not a numpy
        array's); with `only`, that binding's or another of the same tensor (`h = x.shape[2]`
        and `w = x.shape[3]` on two lines, both read by one resize: the fix of either
        rewrites the call, `unpacking_creation_fix`)."""
        if self.only is not None and binding is not self.only and binding.data != self.only.data:
            return False
        return self.rule.is_tensor(cst.Name(binding.data))

    def rank(self, data: str) -> Optional[int]:
        """x's rank when the analysis or an unpacking of its shape proves it."""
        shape = self.rule.value(cst.Name(data)).shape
        if shape is not None:
            return len(shape)
        if self.scan is not None:
            for binding in self.scan.bindings.values():
                if binding.data == data and binding.rank is not None and self.scan.valid(binding):
                    return binding.rank
        return None


class _Finder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: List[cst.Name] = []
        self.attrs: List[cst.Attribute] = []
        self.nodes: Set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.nodes.add(id(node))
        if isinstance(node, cst.Name):
            self.names.append(node)
        if isinstance(node, cst.Attribute) and node.attr.value in _TENSOR_ATTRS:
            self.attrs.append(node)
        return True


def _names_in(node: cst.CSTNode) -> List[cst.Name]:
    finder = _Finder()
    node.visit(finder)
    return finder.names


def _contains(outer: cst.CSTNode, inner: cst.CSTNode) -> bool:
    finder = _Finder()
    outer.visit(finder)
    return id(inner) in finder.nodes


def _mentions_shape(node: cst.CSTNode) -> bool:
    finder = _Finder()
    node.visit(finder)
    return bool(finder.attrs)


def _static(rule, resolver: _Resolver, expr: cst.BaseExpression) -> bool:
    """An element kept as written: no tensor attribute, no dim name, no tensor."""
    finder = _Finder()
    expr.visit(finder)
    if finder.attrs and any(rule.value(a.value).kind == TENSOR for a in finder.attrs):
        return False
    if any(isinstance(n, cst.Name) and resolver.dim(n) is not None for n in finder.names):
        return False
    return rule.value(expr).kind != TENSOR


# ---- rewriting one call ------------------------------------------------------------------
def _namespace_op(func: cst.BaseExpression, namespace: Optional[str]) -> Optional[str]:
    """`F.zeros` -> "zeros", `F.contrib.BilinearResize2D` -> "contrib.BilinearResize2D"."""
    if namespace is None or not isinstance(func, cst.Attribute):
        return None
    if isinstance(func.value, cst.Name) and func.value.value == namespace:
        return func.attr.value
    inner = func.value
    if (
        isinstance(inner, cst.Attribute)
        and isinstance(inner.value, cst.Name)
        and inner.value.value == namespace
    ):
        return f"{inner.attr.value}.{func.attr.value}"
    return None


def _eager_op(rule, func: cst.BaseExpression) -> Optional[str]:
    """`nd.arange` / `mx.nd.array` (an import of mx.nd, not a local name) -> "arange" /
    "array": in a function with F their count of a dim has the same like-form as F's."""
    dotted = dotted_name(func)
    if dotted is None or dotted.split(".")[0] in rule.state.env:
        return None
    return _EAGER_OPS.get(rule.state.module.qualify(dotted) or "")


def _rewrite_call(
    rule, node: cst.Call, ns: str, resolver: _Resolver
) -> Optional[Tuple[cst.BaseExpression, str, Tuple[cst.CSTNode, ...]]]:
    """(replacement, safety, the nodes it removes) for one creation / arange / resize / tile
    call whose sizes are dims of tensors, else None."""
    op = _namespace_op(node.func, ns) or _eager_op(rule, node.func)
    if op == "stack":
        return _rewrite_stack(rule, node, ns, resolver)
    if any(a.star for a in node.args):
        return None
    if op in ("zeros", "ones", "full"):
        return _rewrite_creation(rule, node, op, ns, resolver)
    if op == "arange":
        return _rewrite_arange(node, ns, resolver)
    if op == "array":
        return _rewrite_array_of_arange(rule, node, ns, resolver)
    if op == "contrib.BilinearResize2D":
        return _rewrite_resize(node, resolver)
    if isinstance(node.func, cst.Attribute) and node.func.attr.value == "tile":
        return tile_rewrite(rule, node, ns, resolver.dim)
    return None


def _keywords(node: cst.Call, positional: int, allowed: Set[str]) -> Optional[Dict[str, cst.Arg]]:
    """Keyword arguments by name when the call has at most `positional` positional ones and
    only `allowed` keywords, else None."""
    count = 0
    found: Dict[str, cst.Arg] = {}
    for arg in node.args:
        if arg.keyword is None:
            count += 1
        elif arg.keyword.value in allowed:
            found[arg.keyword.value] = arg
        else:
            return None
    return found if count <= positional else None


def _rewrite_creation(rule, node: cst.Call, op: str, ns: str, resolver: _Resolver):
    keywords = _keywords(node, 2 if op == "full" else 1, {"shape", "val", "dtype", "ctx"})
    shape = call_argument(node, 0, "shape")
    value = call_argument(node, 1, "val") if op == "full" else None
    if (
        keywords is None
        or shape is None
        or (op == "full" and value is None)
        or (op != "full" and "val" in keywords)
    ):
        return None
    container = shape.value
    if isinstance(container, (cst.Tuple, cst.List)):
        elements = [e.value for e in container.elements]
        if any(isinstance(e, cst.StarredElement) for e in container.elements):
            return None
    else:
        if resolver.dim(container) is None:
            return None  # a name may hold a whole tuple: its rank is unknown
        elements = [container]
    groups: Dict[str, Tuple[List[int], List[int]]] = {}
    consumed: List[cst.CSTNode] = []
    ones: Set[int] = set()
    for position, element in enumerate(elements):
        dim = resolver.dim(element)
        if dim is not None:
            lhs, rhs = groups.setdefault(dim[0], ([], []))
            lhs.append(position)
            rhs.append(dim[1])
            consumed.extend(dim[2])
            ones.add(position)
        elif not _static(rule, resolver, element):
            return None
    value_dim = resolver.dim(value.value) if value is not None else None
    if value is not None and value_dim is None and not _static(rule, resolver, value.value):
        return None
    if not groups and value_dim is None:
        return None
    # F.full of a zero dim is an empty array (zeros/ones of one fail), where broadcast_like keeps 1
    safety = UNSAFE if op == "full" and groups else SAFE
    dtype = keywords.get("dtype")
    if dtype is not None and not _static(rule, resolver, dtype.value):
        return None
    ctx = keywords.get("ctx")
    keep_ctx = True
    if ctx is not None:
        source = ctx.value
        if (
            isinstance(source, cst.Attribute)
            and source.attr.value in ("context", "ctx")
            and isinstance(source.value, cst.Name)
            and source.value.value in groups
            and rule.is_tensor(source.value)
        ):
            keep_ctx = False
            consumed.append(source)
        elif _static(rule, resolver, source):
            safety = UNSAFE  # another context than x's: broadcast_like fails there
        else:
            return None
    if isinstance(container, (cst.Tuple, cst.List)):
        new_shape: cst.BaseExpression = container.with_changes(
            elements=[
                e.with_changes(value=cst.Integer("1")) if i in ones else e
                for i, e in enumerate(container.elements)
            ]
        )
    else:
        new_shape = cst.Integer("1")
    args = []
    for arg in node.args:
        if arg is shape:
            args.append(arg.with_changes(value=new_shape))
        elif arg is ctx and not keep_ctx:
            continue
        elif arg is value and value_dim is not None:
            continue
        else:
            args.append(arg)
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    func = node.func
    if value_dim is not None:
        func = func.with_changes(attr=cst.Name("ones"))
    result: cst.BaseExpression = node.with_changes(func=func, args=args)
    for data, (lhs, rhs) in groups.items():
        result = call(
            f"{ns}.broadcast_like",
            [result, cst.Name(data)],
            [
                ("lhs_axes", tuple_of([integer(a) for a in lhs])),
                ("rhs_axes", tuple_of([integer(a) for a in rhs])),
            ],
        )
    if value_dim is not None:
        consumed.extend(value_dim[2])
        scalar = _dim_tensor(
            ns,
            value_dim[0],
            value_dim[1],
            dtype.value if dtype is not None else cst.SimpleString("'float32'"),
        )
        if len(elements) > 1:
            scalar = cst.Call(
                func=cst.Attribute(value=scalar, attr=cst.Name("reshape")),
                args=[cst.Arg(tuple_of([cst.Integer("1")] * len(elements)))],
            )
        result = call(f"{ns}.broadcast_mul", [result, scalar])
    return result, safety, tuple(consumed)


def _dim_tensor(ns: str, data: str, axis: int, dtype: cst.BaseExpression) -> cst.BaseExpression:
    """`F.slice_axis(F.shape_array(x), axis=0, begin=k, end=k + 1).astype(D)`: x.shape[k] as a
    (1,) tensor of dtype D."""
    end = integer(axis + 1) if axis != -1 else cst.Name("None")
    sliced = call(
        f"{ns}.slice_axis",
        [call(f"{ns}.shape_array", [cst.Name(data)])],
        [("axis", integer(0)), ("begin", integer(axis)), ("end", end)],
    )
    return cst.Call(
        func=cst.Attribute(value=sliced, attr=cst.Name("astype")), args=[cst.Arg(dtype)]
    )


def _rewrite_arange(
    node: cst.Call, ns: str, resolver: _Resolver, cast: Optional[cst.BaseExpression] = None
):
    """`F.arange(n)`, `F.arange(0, n)`, `F.arange(start=0, stop=n)`, optional `dtype=`, for a
    dim n (also numpy's; `cast`, when given, is the result's dtype instead of the call's)."""
    keywords = _keywords(node, 2, {"start", "stop", "dtype"})
    if keywords is None:
        return None
    start = call_argument(node, 0, "start")
    stop = call_argument(node, 1, "stop")
    if (
        stop is None
        and start is not None
        and start.keyword is None
        and len([a for a in node.args if a.keyword is None]) == 1
    ):
        stop, start = start, None  # arange(n): the only positional argument is the stop
    if stop is None or (start is not None and literal_int(start.value) != 0):
        return None
    dim = resolver.dim(stop.value)
    if dim is None:
        return None
    dtype = keywords.get("dtype")
    target = cast or (dtype.value if dtype is not None else cst.SimpleString("'float32'"))
    result = call(f"{ns}.contrib.arange_like", [cst.Name(dim[0])], [("axis", integer(dim[1]))])
    result = cst.Call(
        func=cst.Attribute(value=result, attr=cst.Name("astype")), args=[cst.Arg(target)]
    )
    return result, SAFE, dim[2]


def _rewrite_array_of_arange(rule, node: cst.Call, ns: str, resolver: _Resolver):
    """`F.array(np.arange(n))`, `nd.array(np.arange(0, n), dtype=D)` for a dim n: a numpy count
    made an array, float32 unless `dtype=` says otherwise (MXNet 1.x's `nd.array` casts a
    numpy source to float32, whatever its dtype) -> the arange_like form, cast to that."""
    keywords = _keywords(node, 1, {"source_array", "dtype"})
    source = call_argument(node, 0, "source_array")
    if keywords is None or source is None or not isinstance(source.value, cst.Call):
        return None
    inner = source.value
    if rule.state.module.qualify(dotted_name(inner.func)) != "numpy.arange":
        return None
    dtype = keywords.get("dtype")
    cast = dtype.value if dtype is not None else cst.SimpleString("'float32'")
    return _rewrite_arange(inner, ns, resolver, cast=cast)


def _rewrite_stack(rule, node: cst.Call, ns: str, resolver: _Resolver):
    """`F.stack(*[t] * x.shape[j], axis=k)` (or `*(n * [t])`, n a dim of x) ->
    `F.broadcast_like(F.expand_dims(t, axis=k), x, lhs_axes=(k,), rhs_axes=(j,))`."""
    if not node.args or node.args[0].star != "*" or any(a.star for a in node.args[1:]):
        return None
    repeated = strip_parens(node.args[0].value)
    if not isinstance(repeated, cst.BinaryOperation) or not isinstance(
        repeated.operator, cst.Multiply
    ):
        return None
    items, count = repeated.left, repeated.right
    if not isinstance(strip_parens(items), cst.List):
        items, count = count, items
    items = strip_parens(items)
    if (
        not isinstance(items, cst.List)
        or len(items.elements) != 1
        or isinstance(items.elements[0], cst.StarredElement)
    ):
        return None
    tensor = items.elements[0].value
    keywords = _keywords(node.with_changes(args=node.args[1:]), 0, {"axis"})
    if keywords is None or not rule.is_tensor(tensor):
        return None
    axis = literal_int(keywords["axis"].value) if "axis" in keywords else 0
    dim = resolver.dim(count)
    if axis is None or dim is None:
        return None
    expanded = call(f"{ns}.expand_dims", [tensor], [("axis", integer(axis))])
    replacement = call(
        f"{ns}.broadcast_like",
        [expanded, cst.Name(dim[0])],
        [("lhs_axes", tuple_of([integer(axis)])), ("rhs_axes", tuple_of([integer(dim[1])]))],
    )
    return replacement, SAFE, dim[2]


def _rewrite_resize(node: cst.Call, resolver: _Resolver):
    """`F.contrib.BilinearResize2D(t, height=x.shape[2], width=x.shape[3])` ->
    `F.contrib.BilinearResize2D(t, like=x, mode='like')`."""
    keywords = _keywords(node, 1, {"data", "height", "width", "align_corners", "mode"})
    if keywords is None or "height" not in keywords or "width" not in keywords:
        return None
    data = call_argument(node, 0, "data")
    mode = keywords.get("mode")
    if data is None or (
        mode is not None
        and not (isinstance(mode.value, cst.SimpleString) and mode.value.evaluated_value == "size")
    ):
        return None
    height, width = resolver.dim(keywords["height"].value), resolver.dim(keywords["width"].value)
    if height is None or width is None:
        return _rewrite_scaled_resize(node, keywords, data, resolver)
    if height[0] != width[0]:
        return None
    axes = (height[1], width[1])
    if axes == (2, 3):
        safety = SAFE
    elif axes == (-2, -1):
        safety = SAFE if resolver.rank(height[0]) == 4 else UNSAFE
    elif axes in ((2, 2), (3, 3)):
        # `width=x.shape[2]` (MTCloud's deeplabv3 ASPP): a square resize, which the like mode
        # gives only for a square x, where every caller that concatenates it with x's size runs
        safety = UNSAFE
    else:
        return None
    args = [data]
    args.append(cst.Arg(cst.Name(height[0]), keyword=cst.Name("like"), equal=_EQUAL))
    if "align_corners" in keywords:
        args.append(keywords["align_corners"])
    args.append(cst.Arg(cst.SimpleString("'like'"), keyword=cst.Name("mode"), equal=_EQUAL))
    args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]
    return node.with_changes(args=args), safety, height[2] + width[2]


def _rewrite_scaled_resize(
    node: cst.Call, keywords: Dict[str, cst.Arg], data: cst.Arg, resolver: _Resolver
):
    """`F.contrib.BilinearResize2D(x, height=x.shape[2] * 2, width=x.shape[3] * 2)` ->
    `F.contrib.BilinearResize2D(x, scale_height=2, scale_width=2)`: MXNet 1.9.1 sizes a scaled
    resize `int(dim * scale)`, the same size for an integer scale, and the same values (checked
    eager and hybridized). Safe, also from axes -2 and -1: the op takes only a 4-D x. Height
    from axis 3 and width from axis 2 (a view synthesis net's UpBlock) is reported only: the
    scales give that only for a square x, which examples may well all be."""
    height = _scaled_dim(keywords["height"].value, resolver)
    width = _scaled_dim(keywords["width"].value, resolver)
    if height is None or width is None or height[0][0] != width[0][0]:
        return None
    name = strip_parens(data.value)
    if not isinstance(name, cst.Name) or name.value != height[0][0]:
        return None  # a scale is of the data's own size
    if (height[0][1], width[0][1]) not in ((2, 3), (-2, -1)):
        return None  # swapped (an UpBlock's height=x.shape[3] * 2): scales give it only if square
    args = [data]
    args.append(cst.Arg(integer(height[1]), keyword=cst.Name("scale_height"), equal=_EQUAL))
    args.append(cst.Arg(integer(width[1]), keyword=cst.Name("scale_width"), equal=_EQUAL))
    if "align_corners" in keywords:
        args.append(keywords["align_corners"])
    args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args]
    return node.with_changes(args=args), SAFE, height[0][2] + width[0][2]


def _scaled_dim(expr: cst.BaseExpression, resolver: _Resolver) -> Optional[Tuple[Dim, int]]:
    """(the dim, k) for `dim * k` or `k * dim`, k a positive integer literal, or a name bound
    to one (`h = x.shape[2] * 2`)."""
    named = resolver.scaled(expr)
    if named is not None:
        return named
    for scaled, factor in literal_factors(strip_parens(expr)):
        dim = resolver.dim(scaled)
        if dim is not None:
            return dim, factor
    return None


def _reshape_of_data(rule, node: cst.Call, binding: _Binding, scan: _FunctionScan):
    """A reshape of the binding's own tensor whose target reads the names: HL001's reshape
    codes (rules/hl001/reshape/fix.codes_for), as (edit, the name loads it consumes), else None."""
    from .reshape.fix import codes_for  # the reshape-code synthesis (owned by the reshape rule)

    func = node.func
    if not (
        isinstance(func, cst.Attribute)
        and func.attr.value == "reshape"
        and isinstance(func.value, cst.Name)
        and func.value.value == binding.data
        and len(node.args) == 1
        and node.args[0].keyword is None
        and isinstance(node.args[0].value, (cst.Tuple, cst.List))
    ):
        return None
    container = node.args[0].value
    elements = [e.value for e in container.elements]
    if binding.rank is None:
        return None
    codes = codes_for(rule, cst.Name(binding.data), elements, binding.axes, binding.rank)
    if codes is None or len(codes) != len(elements):
        return None
    names = [n for n in _names_in(container) if n.value in binding.axes]
    new = container.with_changes(
        elements=[e.with_changes(value=c) for e, c in zip(container.elements, codes)]
    )
    return (container, new), names


# ---- the whole-shape forms ---------------------------------------------------------------
def _tensor_attr(rule, expr: cst.BaseExpression, attrs) -> Optional[cst.BaseExpression]:
    """`x.shape` -> x when x is a tensor and the attribute is one of attrs."""
    if isinstance(expr, cst.Attribute) and expr.attr.value in attrs and rule.is_tensor(expr.value):
        return expr.value
    return None


def _same_name(a: Optional[cst.BaseExpression], b: cst.BaseExpression) -> bool:
    return isinstance(a, cst.Name) and isinstance(b, cst.Name) and a.value == b.value


def _parenthesize(expr: cst.BaseExpression) -> cst.BaseExpression:
    if (
        isinstance(
            expr,
            (
                cst.BinaryOperation,
                cst.BooleanOperation,
                cst.Comparison,
                cst.IfExp,
                cst.Lambda,
                cst.UnaryOperation,
            ),
        )
        and not expr.lpar
    ):
        return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expr


def _plan_like(rule, node: cst.Call, op: str, ns: str) -> List[Plan]:
    shape = call_argument(node, 0, "shape")
    data = (
        _tensor_attr(rule, shape.value, ("shape",)) if shape is not None else None
    )  # x of x.shape
    if shape is None or data is None:
        return []
    value = call_argument(node, 1, "val") if op == "full" else None
    dtype = call_argument(node, 2 if op == "full" else 1, "dtype")
    ctx = call_argument(node, None, "ctx")
    known = {shape, value, dtype, ctx} - {None}
    if len(node.args) != len(known) or (op == "full" and value is None):
        return []
    if ctx is not None and not _same_name(_tensor_attr(rule, ctx.value, ("context", "ctx")), data):
        return []
    result: cst.BaseExpression = call(f"{ns}.{_LIKE[op]}", [data])
    if dtype is None or not _same_name(_tensor_attr(rule, dtype.value, ("dtype",)), data):
        target = dtype.value if dtype is not None else cst.SimpleString("'float32'")
        result = cst.Call(
            func=cst.Attribute(value=result, attr=cst.Name("astype")), args=[cst.Arg(target)]
        )
    if value is not None:
        result = cst.BinaryOperation(
            left=result,
            operator=cst.Multiply(
                whitespace_before=cst.SimpleWhitespace(" "),
                whitespace_after=cst.SimpleWhitespace(" "),
            ),
            right=_parenthesize(value.value),
        )
    edits = ((node, result),)
    return [
        (arg.value, edits, SAFE)
        for arg in (shape, dtype, ctx)
        if arg is not None and isinstance(arg.value, cst.Attribute)
    ]


# -- examples (HL001's VALID/INVALID include them; the outputs are what the rewrite writes) ----
VALID = [
    Valid(net("return F.contrib.BilinearResize2D(x, like=x, mode='like')")),
    Valid(net("return F.contrib.arange_like(x, axis=3).astype('float32')")),
    Valid(net("return F.broadcast_like(F.zeros((1, 4)), x, lhs_axes=(0,), rhs_axes=(0,))")),
]
_NUMPY_ND = "import numpy as np\nfrom mxnet import nd\n\n"
INVALID = [
    # a count made by the eager namespace or from numpy: nd.array casts it to float32
    Invalid(
        net("return nd.arange(x.shape[3])", head=_NUMPY_ND),
        line=6,
        fix=[
            ("from mxnet import nd\n", ""),
            ("nd.arange(x.shape[3])", "F.contrib.arange_like(x, axis=3).astype('float32')"),
        ],
        safety=SAFE,
    ),
    Invalid(
        net("return F.array(np.arange(x.shape[-1]))", head=_NUMPY_ND),
        line=6,
        fix=(
            "F.array(np.arange(x.shape[-1]))",
            "F.contrib.arange_like(x, axis=-1).astype('float32')",
        ),
        safety=SAFE,
    ),
    Invalid(
        net(
            "w = x.shape[2]\nreturn nd.array(np.arange(0, w, dtype='int64'), dtype='int32')",
            head=_NUMPY_ND,
        ),
        line=6,
        fix=[
            ("from mxnet import nd\n", ""),
            (
                "w = x.shape[2]\nreturn nd.array(np.arange(0, w, dtype='int64'), dtype='int32')",
                "return F.contrib.arange_like(x, axis=2).astype('int32')",
            ),
        ],
        safety=SAFE,
    ),
    Invalid(
        net("return F.zeros((x.shape[0], 4))"),
        line=3,
        fix=(
            "F.zeros((x.shape[0], 4))",
            "F.broadcast_like(F.zeros((1, 4)), x, lhs_axes=(0,), rhs_axes=(0,))",
        ),
        safety=SAFE,
    ),
    Invalid(
        net("y = F.relu(x)\nreturn F.ones((2, y.shape[-1]), dtype='int32')"),
        line=4,
        fix=(
            "F.ones((2, y.shape[-1]), dtype='int32')",
            "F.broadcast_like(F.ones((2, 1), dtype='int32'), y, lhs_axes=(1,), rhs_axes=(-1,))",
        ),
        safety=SAFE,
    ),
    Invalid(
        net("y = F.relu(x)\nreturn F.stack(*[y] * x.shape[1], axis=2)"),
        line=4,
        fix=(
            "F.stack(*[y] * x.shape[1], axis=2)",
            "F.broadcast_like(F.expand_dims(y, axis=2), x, lhs_axes=(2,), rhs_axes=(1,))",
        ),
        safety=SAFE,
    ),
    Invalid(
        net("n = x.shape[-1]\nreturn F.stack(*(n * [x]), axis=-1)"),
        line=3,
        fix=(
            "n = x.shape[-1]\nreturn F.stack(*(n * [x]), axis=-1)",
            "return F.broadcast_like(F.expand_dims(x, axis=-1), x, lhs_axes=(-1,), rhs_axes=(-1,))",
        ),
        safety=SAFE,
    ),
    # dims bound on two lines and read by one resize; sizes bound already scaled
    Invalid(
        net(
            "h = x.shape[2]\nw = x.shape[3]\nreturn F.contrib.BilinearResize2D(x, height=h * 2, width=w * 2)"
        ),
        line=3,
        fix=(
            "h = x.shape[2]\nw = x.shape[3]\nreturn F.contrib.BilinearResize2D(x, height=h * 2, width=w * 2)",
            "return F.contrib.BilinearResize2D(x, scale_height=2, scale_width=2)",
        ),
        safety=SAFE,
    ),
    Invalid(
        net(
            "h = x.shape[2] * 2\nw = 2 * x.shape[3]\nx = F.contrib.BilinearResize2D(x, height=h, width=w)\nreturn x"
        ),
        line=3,
        fix=(
            "h = x.shape[2] * 2\nw = 2 * x.shape[3]\nx = F.contrib.BilinearResize2D(x, height=h, width=w)",
            "x = F.contrib.BilinearResize2D(x, scale_height=2, scale_width=2)",
        ),
        safety=SAFE,
    ),
    # a scaled size is no dim: a creation of it has no like-form
    Invalid(net("h = x.shape[2] * 2\nreturn F.zeros((h, 1))"), line=3),
    # the data rebound before the dims are read: they are of an array no name holds
    Invalid(net("n = x.shape[0]\nx = F.relu(x)\nreturn F.zeros((n, 1))"), line=3),
    # the data rebound by the very statement that reads the dims (blind round 13's
    # UpsampleConvLayer): the call reads the x the dims are of
    Invalid(
        net(
            "_, _, h, w = x.shape\nx = F.contrib.BilinearResize2D(x, height=h * 2, width=w * 2)\nreturn x"
        ),
        line=3,
        fix=(
            "_, _, h, w = x.shape\nx = F.contrib.BilinearResize2D(x, height=h * 2, width=w * 2)",
            "x = F.contrib.BilinearResize2D(x, scale_height=2, scale_width=2)",
        ),
        safety=SAFE,
    ),
    Invalid(
        net("h, w = x.shape[-2:]\nreturn F.contrib.BilinearResize2D(x, height=h * 2, width=2 * w)"),
        line=3,
        fix=(
            "h, w = x.shape[-2:]\nreturn F.contrib.BilinearResize2D(x, height=h * 2, width=2 * w)",
            "return F.contrib.BilinearResize2D(x, scale_height=2, scale_width=2)",
        ),
        safety=SAFE,
    ),
    Invalid(
        net("return F.full((x.shape[0], 2), 0.5)"),
        line=3,
        fix=(
            "F.full((x.shape[0], 2), 0.5)",
            "F.broadcast_like(F.full((1, 2), 0.5), x, lhs_axes=(0,), rhs_axes=(0,))",
        ),
        safety=UNSAFE,
    ),
    Invalid(
        net("n = x.shape[1]\nreturn F.arange(n)"),
        line=3,
        fix=(
            "n = x.shape[1]\nreturn F.arange(n)",
            "return F.contrib.arange_like(x, axis=1).astype('float32')",
        ),
        safety=SAFE,
    ),
    Invalid(
        net("return F.full((3,), x.shape[1])"),
        line=3,
        fix=(
            "F.full((3,), x.shape[1])",
            (
                "F.broadcast_mul(F.ones((3,)), F.slice_axis(F.shape_array(x), "
                "axis=0, begin=1, end=2).astype('float32'))"
            ),
        ),
        safety=SAFE,
    ),
    Invalid(
        net("b, c = x.shape\nreturn F.concat(F.zeros((b, 4)), x.reshape((b, c)), dim=1)"),
        line=3,
        fix=(
            "b, c = x.shape\nreturn F.concat(F.zeros((b, 4)), x.reshape((b, c)), dim=1)",
            (
                "return F.concat(F.broadcast_like(F.zeros((1, 4)), x, lhs_axes=(0,), "
                "rhs_axes=(0,)), x.reshape((0, 0)), dim=1)"
            ),
        ),
        safety=SAFE,
    ),
    # a square size read from one axis: the like-resize, exact only on a square y
    Invalid(
        net("return F.contrib.BilinearResize2D(x, height=y.shape[3], width=y.shape[3])", "F, x, y"),
        line=3,
        fix=(
            "F.contrib.BilinearResize2D(x, height=y.shape[3], width=y.shape[3])",
            "F.contrib.BilinearResize2D(x, like=y, mode='like')",
        ),
        safety=UNSAFE,
    ),
    Invalid(
        net("return F.contrib.BilinearResize2D(x, height=y.shape[2], width=y.shape[3])", "F, x, y"),
        line=3,
        fix=(
            "F.contrib.BilinearResize2D(x, height=y.shape[2], width=y.shape[3])",
            "F.contrib.BilinearResize2D(x, like=y, mode='like')",
        ),
        safety=SAFE,
    ),
    Invalid(
        net(
            "height, width = y.shape[2:]\nreturn F.contrib.BilinearResize2D(x, height=height, "
            "width=width)",
            "F, x, y",
        ),
        line=3,
        fix=(
            (
                "height, width = y.shape[2:]\n"
                "return F.contrib.BilinearResize2D(x, height=height, width=width)"
            ),
            "return F.contrib.BilinearResize2D(x, like=y, mode='like')",
        ),
        safety=SAFE,
    ),
    Invalid(
        net("return F.zeros((x.shape[0] * 2, 4))"), line=3
    ),  # a dim in arithmetic: reported only
]
