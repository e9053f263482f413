"""Shape scalars used as values (issue 12): `/ x.shape[-1]`, `/ h.size`, `math.sqrt(q.shape[-1])`.

A Symbol has no shape, so a dimension read from it cannot be a Python number; MXNet gives
the shape as a tensor instead (`F.shape_array(x)`, `F.size_array(x)`, int64, shape `(1,)`
once sliced), and tensor arithmetic with that tensor goes through the broadcast operators.
HL001 calls `plan_shape_scalar` for every `.shape`/`.size` it reports that no other planner
took; the patterns, their rewrite and its safety (HL001's explanation includes this text):

- **A dimension the analysis knows** (a parameter's declared shape, a literal creation or
  reshape target): `x.shape[k]` → that integer, `x.size` → the product. Safe: the same Python
  int, wherever it is used.
- **A parameter's shape**: `weight.shape` (`weight.shape[k]`) where `weight` is the data
  gluon passes for the block's parameter `self.weight`: an input named like it and never
  rebound, or `kwargs['weight']` of the `**kwargs` receiving the parameters, read only by
  literal keys → `self.weight.shape` (a literal declared dim: the int). Safe: a Parameter's
  shape is its data's shape whenever the data exists; while gluon infers a deferred shape it
  traces hybrid_forward with Symbols, where the original `.shape` raises in both modes.
- **A shape scalar in tensor arithmetic**: the largest scalar expression around the
  dimension (dims, their `+ - *`, numbers, `self.k` numbers, `math.sqrt(...)`, `** c`,
  `float(...)`, `int(...)` of integers, unary minus) becomes a `(1,)` tensor and its
  operator with the tensor becomes the broadcast op:
  `t / x.shape[-1]` → `F.broadcast_div(t, F.slice_axis(F.shape_array(x), axis=0, begin=-1,
  end=None).astype('float32'))`; `t / x.size` → `F.broadcast_div(t,
  F.size_array(x).astype('float32'))`; `t / (x.shape[2] * x.shape[3])` → the product of two
  slices, in int64, cast once; `t / math.sqrt(q.shape[-1])` → `F.sqrt(...)` of the cast dim;
  `t * h.shape[-1] ** -0.5` → `F.broadcast_mul(t, (...).astype('float32') ** -0.5)`;
  `+ - * / **` likewise (`broadcast_add/sub/mul/div/power`), the scalar on either side, and
  one comparison with a tensor (`steps < x.shape[1] - 1` → `F.broadcast_lesser`; `> <= >= ==
  !=` likewise: eagerly the comparison gives 0/1 in the tensor's dtype, as the broadcast op).
  Integer arithmetic of dims (`+ - *`, integer literals) is done in int64, exactly; the cast to
  float32 happens where the expression turns to floats; `a // b` of integers is
  `F.floor(a / b)` in float32 (`math.sqrt(q.shape[-1] // self._heads)`), exact while a is
  below 2**24 (the quotient's rounding cannot cross an integer); `%` is reported only.
  Unsafe, for two reasons: the analysis does not know dtypes, and the rewrite assumes the
  other operand is float32 (the default):
  eagerly `t / n` divides a float16/float64/int array in its own dtype, while the broadcast op
  refuses the mixed dtypes; and Python computes `math.sqrt(n)`, `n ** -0.5` and float
  constants in float64 before MXNet rounds the result to float32 once, while the rewrite
  computes in float32 (`pow` may differ in the last bit; `sqrt` and the int→float cast of a
  dim below 2**24 do not). A scalar compared with a Python value (`if x.shape[1] > 1:`),
  chained comparisons, or a scalar passed to an operator are reported only.
- **A dim of a variable axis, a product of dims**: `x.shape[dim]` with `dim` a name →
  `F.slice_axis(F.shape_array(x), axis=0, begin=dim, end=dim + 1 or None)` (-1 ends at None);
  `np.prod([x.shape[d] for d in dims])` (or `math.prod`) → `F.prod(F.concat(*[<dim d> for d
  in dims], dim=0))`, in int64 like other dims. Unsafe, as below (and `np.prod([])` is 1,
  where the concat of nothing fails).
- **A shape scalar kept in a name**: `d = q.shape[-1]` (a plain assignment in the function's
  body, or one in each branch of a top-level `if`, the name stored nowhere else) whose every
  later use is such tensor arithmetic (`s / math.sqrt(d)`, `y * d`): the assignment keeps the float32 tensor (`d =
  F.slice_axis(F.shape_array(q), axis=0, begin=-1, end=None).astype('float32')`) and every use
  becomes the broadcast op. Unsafe, as above. When any use needs the Python number (a reshape
  target, an operator argument, a Python comparison, a return) or sits where the rewrite cannot
  follow it (a `for` loop, a comprehension, a nested function, an eager-only branch, before
  the assignment), reported only.
- **Dims an unpacking bound** (`b, c, h, w = x.shape`), read in reshape targets (the reshape
  flow's codes) and in such tensor arithmetic (`gram / (c * h * w)`, `s / float(h * w)`): the
  unpacking goes, the reshapes get codes, and each arithmetic use becomes the broadcast op with
  the dims as tensors of `x`'s shape (`c * h * w` of consecutive axes as one `F.prod` of a
  slice of it). Unsafe, as above. Only when `x` and the names are bound once and every read is
  a reshape target or such arithmetic; otherwise reported only.
- **One-hot depth from the shape**: `F.one_hot(label, x.shape[k])` (no other argument) →
  `F.broadcast_equal(F.expand_dims(F.fix(F.cast(label, dtype='float32')), axis=-1),
  F.contrib.arange_like(x, axis=k).astype('float32'))`: the class index compared with
  0..depth-1, truncated toward zero as one_hot's int conversion does (`2.7` → 2, `-0.5` → 0),
  out-of-range labels give a zero row in both. Unsafe: labels beyond 2**24 (or depths beyond
  it) are compared after float32 rounding; on/off values and dtype other than the defaults are
  not rewritten. A depth that is a model constant (`self._num_class`) is not substituted: the
  code does not prove `x.shape[k] == self._num_class`.
- **Repeat counts from two shapes**: `F.repeat(k, repeats=q.shape[j] // k.shape[a], axis=a)`
  → `F.take(k, F.floor(F.broadcast_div(F.contrib.arange_like(q, axis=j).astype('float32'),
  F.floor(F.broadcast_div(Q, K)))), axis=a)` with Q, K the two dims as float32 tensors: head
  i of the result is head `i // r` of k. Unsafe: exact only when `q.shape[j]` is a multiple of
  `k.shape[a]` (grouped-query attention); otherwise the original has `k.shape[a] * r` heads
  and the rewrite `q.shape[j]`. The ratio of two model constants (`self._q_heads //
  self._kv_heads`) is not substituted: nothing in the code proves the inputs have those heads.
- Everything else (`range(x.shape[1])`, a scalar in a Python `if`, an operator argument that
  must be a Python int such as `F.slice_axis(..., end=x.shape[1] - 1)` or `num_outputs=`) has
  no exact shape-free form and is reported only: a graph's operator attributes are fixed when
  it is built, before any shape is known.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

import libcst as cst

from .._build import attr_chain, call, integer, keyword_arg
from .._examples import net
from .._constant_param import binds
from ..base import SAFE, UNSAFE, Edit, Invalid, Valid
from ..values import (
    NESTED_SCOPES,
    bound_targets,
    SCALAR,
    TENSOR,
    call_argument,
    dotted_name,
    literal_int,
    shape_index,
    syntax_children,
    walk_nodes,
)

Edits = Tuple[Tuple[cst.CSTNode, cst.CSTNode], ...]  # node for node (no sentinels)

_BROADCAST = {
    cst.Divide: "broadcast_div",
    cst.Multiply: "broadcast_mul",
    cst.Add: "broadcast_add",
    cst.Subtract: "broadcast_sub",
    cst.Power: "broadcast_power",
}
_COMPARE = {
    cst.LessThan: "broadcast_lesser",
    cst.LessThanEqual: "broadcast_lesser_equal",
    cst.GreaterThan: "broadcast_greater",
    cst.GreaterThanEqual: "broadcast_greater_equal",
    cst.Equal: "broadcast_equal",
    cst.NotEqual: "broadcast_not_equal",
}
_INT_OPS = (cst.Add, cst.Subtract, cst.Multiply)
_SQRT = ("math.sqrt", "numpy.sqrt")
# conversion domains: a Python int literal, another Python number, an int64 tensor, a float32 tensor
PYINT, PY, INT, FLOAT = "pyint", "py", "int", "float"


def plan_shape_scalar(rule, attribute: cst.Attribute) -> Optional[Tuple[Edits, str]]:
    """The edits (and their safety) that keep `attribute`'s value in the graph, or None."""
    path = _path(rule.statement, attribute)
    if path is None:
        return None
    index = len(path) - 1
    owner = parameter_of(rule, attribute.value) if attribute.attr.value == "shape" else None
    if owner is not None:  # `weight.shape[k]`, `kwargs['weight'].shape`: the Parameter's shape
        parent = path[index - 1] if index > 0 else None
        if isinstance(parent, cst.Subscript) and parent.value is attribute:
            known = _known(rule, parent)
            if known is not None:
                return ((parent, integer(known)),), SAFE
        me = rule.facts.node.params.params[0].name.value
        return ((attribute.value, cst.Attribute(cst.Name(me), cst.Name(owner))),), SAFE
    if attribute.attr.value == "shape":
        if index == 0:
            return None
        subscript = path[index - 1]  # `x.shape[k]`
        if (
            not isinstance(subscript, cst.Subscript)
            or (_dim_leaf(rule, subscript) is None and _variable_dim(rule, subscript) is None)
            or subscript.value is not attribute
        ):
            return None
        index -= 1
    elif attribute.attr.value != "size":
        return None
    leaf = path[index]
    if not isinstance(leaf, cst.BaseExpression):  # (`x.shape[k]` or `x.size`: always one)
        return None
    known = _known(rule, leaf)
    if known is not None:  # a dimension the analysis knows: the Python int itself
        return ((leaf, integer(known)),), SAFE
    written = _reshaped_dim(rule, leaf)
    if written is not None:  # the reshape's own `self.k`: unsafe (0, -1, -3 are codes)
        return ((leaf, written.deep_clone()),), UNSAFE
    ns = rule.namespace
    if ns is None:  # a helper without F: no shape_array to build from
        return None
    repeat = _repeat_plan(rule, path[:index], ns)
    if repeat is not None:
        return repeat
    climbed = _climb(rule, path[:index], leaf, ns)
    if climbed is not None:
        return climbed
    return _named_plan(rule, path[:index], leaf, ns)


def _climb(
    rule,
    ancestors: Sequence[cst.CSTNode],
    leaf: cst.BaseExpression,
    ns: str,
    names: frozenset = frozenset(),
) -> Optional[Tuple[Edits, str]]:
    """From `leaf` up through the scalar expression around it to the arithmetic with a tensor:
    the edit making that operation a broadcast op, or None. `names` hold converted scalars."""
    node: cst.BaseExpression = leaf
    for parent in reversed(ancestors):
        if isinstance(parent, (cst.Arg, cst.ComparisonTarget)):
            continue
        if isinstance(parent, cst.UnaryOperation) and isinstance(
            parent.operator, (cst.Minus, cst.Plus)
        ):
            node = parent
            continue
        if isinstance(parent, cst.Call):
            if _scalar_call(rule, parent) and parent.args[0].value is node:
                node = parent
                continue
            if node is leaf and not names:
                return _one_hot_plan(rule, parent, leaf, ns)
            return None
        if isinstance(parent, cst.Comparison):
            return _compare(rule, parent, node, ns, names)
        if not isinstance(parent, cst.BinaryOperation):
            return None
        other = parent.right if parent.left is node else parent.left
        if _convert(rule, other, ns, names) is not None:
            node = parent
            continue
        op = _BROADCAST.get(type(parent.operator))
        if op is None or not rule.is_tensor(other):
            return None
        return _broadcast(rule, parent, node, ns, names, op, parent.left, parent.right)
    return None


def _compare(
    rule, parent: cst.Comparison, node: cst.BaseExpression, ns: str, names: frozenset
) -> Optional[Tuple[Edits, str]]:
    """`t < x.shape[1]` (one comparison, a tensor on the other side) -> `F.broadcast_lesser`."""
    if len(parent.comparisons) != 1:
        return None
    right = parent.comparisons[0].comparator
    op = _COMPARE.get(type(parent.comparisons[0].operator))
    other = right if parent.left is node else parent.left
    if op is None or not rule.is_tensor(other):
        return None
    return _broadcast(rule, parent, node, ns, names, op, parent.left, right)


def _broadcast(
    rule,
    parent: cst.BaseExpression,
    node: cst.BaseExpression,
    ns: str,
    names: frozenset,
    op: str,
    left: cst.BaseExpression,
    right: cst.BaseExpression,
) -> Optional[Tuple[Edits, str]]:
    """`parent` (`left <op> right`, the shape scalar `node` one of the two) as `F.<op>(left,
    right)` with the scalar as a float tensor; None when it is not an int or float."""
    scalar = _convert(rule, node, ns, names)
    if scalar is None or scalar[1] not in (INT, FLOAT):
        return None
    tensor = _float(scalar)
    operands = [left, tensor] if right is node else [tensor, right]
    new = call(f"{ns}.{op}", [_operand(o, names) for o in operands])
    return ((parent, new.with_changes(lpar=parent.lpar, rpar=parent.rpar)),), UNSAFE


# -- a scalar kept in a name: `d = q.shape[-1]` ... `s / math.sqrt(d)` ---------------------------
class _At:
    """The rule's questions (`value`, `is_tensor`) asked at another statement of the function;
    `dims` maps names an unpacking bound (`_, c, h, w = x.shape`) to the dim each holds."""

    def __init__(self, rule, env, dims: Optional[Mapping[str, Tuple[str, int]]] = None) -> None:
        self.rule, self.env, self.state, self.namespace = rule, env, rule.state, rule.namespace
        self.dims = dims or {}

    def value(self, expr: cst.BaseExpression):
        return self.rule.facts.value(expr, self.env)

    def is_tensor(self, expr: cst.BaseExpression) -> bool:
        value = self.value(expr)
        if value.kind != TENSOR:
            return False
        return not value.assumed or (
            isinstance(expr, cst.Name) and self.rule.facts.used_as_array(expr.value)
        )


_STORES = (
    cst.AssignTarget,
    cst.AugAssign,
    cst.AnnAssign,
    cst.For,
    cst.CompFor,
    cst.AsName,
    cst.Param,
    cst.Global,
    cst.Nonlocal,
    cst.Del,
    cst.NamedExpr,
    cst.ImportAlias,
)
_OPAQUE = NESTED_SCOPES


def _paths(root: cst.CSTNode, stop: Tuple[type, ...] = ()) -> Iterator[List[cst.CSTNode]]:
    """The path from `root` down to each node under it, in source order (`root` first), not
    descending into `stop` nodes: the linter core's walk gives no parents, and a rewrite of a
    use needs the nodes around it. One list, changed in place: copy what is kept."""
    stack: List[Tuple[cst.CSTNode, int]] = [(root, 0)]
    path: List[cst.CSTNode] = []
    while stack:
        node, depth = stack.pop()
        del path[depth:]
        path.append(node)
        yield path
        if not isinstance(node, stop):
            stack.extend((child, depth + 1) for child in reversed(syntax_children(node)))


def _occurrences(body: cst.CSTNode, name: str) -> List[List[cst.CSTNode]]:
    """The paths (from `body` down) to every Name `name` that is a variable (not `a.name`,
    not a keyword)."""
    found: List[List[cst.CSTNode]] = []
    for path in _paths(body):
        node = path[-1]
        if isinstance(node, cst.Name) and node.value == name:
            parent = path[-2] if len(path) > 1 else None
            if not (isinstance(parent, cst.Attribute) and parent.attr is node) and not (
                isinstance(parent, cst.Arg) and parent.keyword is node
            ):
                found.append(list(path))
    return found


def _named_plan(
    rule, ancestors: Sequence[cst.CSTNode], leaf: cst.BaseExpression, ns: str
) -> Optional[Tuple[Edits, str]]:
    """`n = <scalar expr of dims>` (at the top of the function, or one in each branch of an
    `if`), `n` stored nowhere else, and every later use of `n` tensor arithmetic: each
    assignment keeps a float32 `(1,)` tensor and every use becomes the broadcast op."""
    facts = rule.facts
    node: cst.CSTNode = leaf  # the expression, or the argument holding it
    assign: Optional[cst.Assign] = None
    for parent in reversed(ancestors):
        if isinstance(parent, cst.Assign):
            assign = parent
            break
        if (
            isinstance(parent, cst.Arg)
            or (
                isinstance(parent, cst.Call) and (_scalar_call(rule, parent) or _prod(rule, parent))
            )
            or isinstance(parent, (cst.BinaryOperation, cst.UnaryOperation))
            or (isinstance(parent, (cst.ListComp, cst.GeneratorExp)) and parent.elt is node)
        ):
            node = parent
            continue
        return None
    if (
        facts is None
        or assign is None
        or assign.value is not node
        or len(assign.targets) != 1
        or not isinstance(assign.targets[0].target, cst.Name)
    ):
        return None
    name = assign.targets[0].target.value
    stores = _branch_stores(facts, name)
    if stores is None or all(store is not assign for _, store in stores):
        return None
    edits: List[Tuple[cst.CSTNode, cst.CSTNode]] = []
    for line, store in stores:  # each assignment keeps the tensor (`n = ...` in an if and its else)
        env = facts.env_at.get(line)
        if env is None:
            return None
        scalar = _convert(rule if store is assign else _At(rule, env), store.value, ns)
        if scalar is None or scalar[1] not in (INT, FLOAT):
            return None
        edits.append((store.value, _bare(_float(scalar))))
    here = max(facts.order.get(line, 1 << 30) for line, _ in stores)
    targets = {id(store.targets[0]) for _, store in stores}
    uses = 0
    for path in _occurrences(facts.node.body, name):
        if id(path[-2]) in targets:
            continue  # an assignment itself
        if here is None or any(
            isinstance(n, _STORES + _OPAQUE) or n in facts.skip for n in path[:-1]
        ):
            return None  # stored again, or read where the walk does not go
        use_statement = next(
            (
                n
                for n in reversed(path)
                if isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
            ),
            None,
        )
        env = next((facts.env_at[n] for n in reversed(path) if n in facts.env_at), None)
        order = facts.order.get(use_statement)
        if env is None or order is None or order <= here:
            return None
        use = path[-1]  # the Name
        if not isinstance(use, cst.Name):
            return None
        planned = _climb(_At(rule, env), path[:-1], use, ns, frozenset((name,)))
        if planned is None:
            return None
        edits.extend(edit for edit in planned[0] if all(edit[0] is not old for old, _ in edits))
        uses += 1
    if not uses:
        return None
    return nest_edits(edits), UNSAFE


def _branch_stores(facts, name: str) -> Optional[List[Tuple[cst.SimpleStatementLine, cst.Assign]]]:
    """Every assignment of `name` in the function, each `name = <expr>` alone on its line at
    the top level or in the branches of top-level `if`s (`n = np.prod(...)` in the `if`, `n =
    x.shape[dim]` in the `else`: U-GAT-IT's `var`); None when `name` is stored any other way."""
    found: List[Tuple[cst.SimpleStatementLine, cst.Assign]] = []
    for path in _occurrences(facts.node.body, name):
        if not any(isinstance(n, _STORES) for n in path[1:-1]):
            continue  # a read
        if not (
            len(path) >= 4
            and isinstance(path[-2], cst.AssignTarget)
            and isinstance(path[-3], cst.Assign)
            and len(path[-3].targets) == 1
            and isinstance(path[-4], cst.SimpleStatementLine)
            and len(path[-4].body) == 1
            and all(isinstance(n, (cst.IndentedBlock, cst.If, cst.Else)) for n in path[1:-4])
        ):
            return None
        found.append((path[-4], path[-3]))
    return found or None


def plan_dim_uses(
    rule, uses: Sequence[cst.Name], dims: Mapping[str, Tuple[str, int]]
) -> Optional[Edits]:
    """Names an unpacking bound to dims (`b, c, h, w = x.shape`, `dims` = {"h": ("x", 2), ...})
    read in tensor arithmetic (`gram / (c * h * w)`, `s / float(h * w)`): each such operation
    as the broadcast op, the dims as `(1,)` tensors of `x`'s shape, as for `x.shape[k]` itself
    (above). None unless every use in `uses` is such arithmetic, read where the function's
    walk goes. The caller (the reshape flow, which plans the names' other reads and removes
    the unpacking) checks that the names and `x` are bound once, so a name is its dim at every
    use. Unsafe, as every float form here. The edits are not nested (`nest_edits`): nesting
    rebuilds the replacements, and the caller still has edits of its own to fold in."""
    facts, ns = rule.facts, rule.namespace
    if facts is None or ns is None or not uses:
        return None
    wanted = {id(use) for use in uses}
    found: Dict[int, List[cst.CSTNode]] = {}
    for path in _paths(facts.node.body, stop=_OPAQUE):
        if id(path[-1]) in wanted:
            found[id(path[-1])] = list(path)
    edits: List[Tuple[cst.CSTNode, cst.CSTNode]] = []
    for use in uses:
        to_use = found.get(id(use))
        if to_use is None or any(node in facts.skip for node in to_use):
            return None
        env = next((facts.env_at[n] for n in reversed(to_use) if n in facts.env_at), None)
        if env is None:
            return None
        planned = _climb(_At(rule, env, dims), to_use[:-1], use, ns)
        if planned is None:
            return None
        edits.extend(edit for edit in planned[0] if all(edit[0] is not old for old, _ in edits))
    return tuple(edits)  # not nested yet: the caller nests them with its own, all at once


class _Swap(cst.CSTTransformer):
    """Replaces nodes by identity (the user's sub-expressions inside a replacement)."""

    def __init__(self, edits: Sequence[Tuple[cst.CSTNode, cst.CSTNode]]) -> None:
        super().__init__()
        self.edits = {id(old): new for old, new in edits}
        self.hit: set = set()

    def on_leave(self, original_node, updated_node):
        new = self.edits.get(id(original_node))
        if new is None:
            return updated_node
        self.hit.add(id(original_node))
        return new


def nest_edits(edits: Sequence[Tuple[cst.CSTNode, cst.CSTNode]]) -> Edits:
    """The edits with those inside another's replacement folded into it (`(y * d) - d`: the
    inner broadcast op goes inside the outer one), innermost first."""
    module = cst.Module(body=[])
    pending = sorted(edits, key=lambda edit: len(module.code_for_node(edit[0])))
    done: List[Tuple[cst.CSTNode, cst.CSTNode]] = []
    for old, new in pending:
        swap = _Swap(done)
        swapped = new.visit(swap)
        assert isinstance(
            swapped, cst.CSTNode
        )  # _Swap puts nodes in place of nodes, never sentinels
        new = swapped
        done = [edit for edit in done if id(edit[0]) not in swap.hit] + [(old, new)]
    return tuple(done)


def fold_dim_uses(rewrites: Sequence[Edit], scalar: Edits) -> Optional[Edits]:
    """A caller's own rewrites of a binding's uses (reshape codes, creations) and
    `plan_dim_uses`' edits of its other uses as one set of edits: a rewrite inside an
    arithmetic goes into its broadcast op (`y.reshape((n, c, 1)) / c`); None when a rewrite
    replaces nothing but a sentinel or one edit would land inside another that did not take
    it in."""
    if not all(isinstance(new, cst.CSTNode) for _, new in rewrites):
        return None
    combined = nest_edits([*rewrites, *scalar])  # type: ignore[list-item]
    for i, (old, _) in enumerate(combined):
        if any(
            any(node is old for node in walk_nodes(other))
            for j, (other, _) in enumerate(combined)
            if j != i
        ):
            return None
    return combined


# -- finding the expression around the attribute ---------------------------------------------
def _path(root: Optional[cst.CSTNode], target: cst.CSTNode) -> Optional[List[cst.CSTNode]]:
    """The nodes from `root` down to `target` (both included), by identity; None if absent.

    Only the current statement is searched (the linter core's walk gives no parents)."""
    if root is None:
        return None
    for path in _paths(root, stop=(cst.FunctionDef, cst.ClassDef, cst.Lambda)):
        if path[-1] is target:
            return path
    return None


def _dim_leaf(rule, expr: cst.CSTNode) -> Optional[Tuple[cst.BaseExpression, Optional[int]]]:
    """`x.shape[k]` (literal k) -> (x, k); `x.size` -> (x, None); x a certain tensor; a name
    an unpacking bound to `x.shape[k]` (`_At.dims`) -> (a new `x`, k)."""
    dims = getattr(rule, "dims", None)
    if dims and isinstance(expr, cst.Name) and expr.value in dims:
        data, k = dims[expr.value]
        return cst.Name(data), k
    indexed = shape_index(expr) if isinstance(expr, cst.BaseExpression) else None
    if indexed is not None and rule.is_tensor(indexed[0].value):
        return indexed[0].value, indexed[1]
    if isinstance(expr, cst.Attribute) and expr.attr.value == "size" and rule.is_tensor(expr.value):
        return expr.value, None
    return None


def _known(rule, leaf: cst.CSTNode) -> Optional[int]:
    """The dimension (or size) as an int when the analysis knows the tensor's shape there."""
    found = _dim_leaf(rule, leaf)
    if found is None:
        return None
    value = rule.value(found[0])
    shape = value.shape
    if shape is None or value.shape_reason == "lost":
        return None
    if found[1] is None:
        if any(not isinstance(d, int) for d in shape):
            return None
        size = 1
        for d in shape:
            size *= d
        return size
    k = found[1]
    if not -len(shape) <= k < len(shape):
        return None
    dim = shape[k]
    return dim if isinstance(dim, int) and not isinstance(dim, bool) else None


def _reshaped_dim(rule, leaf: cst.CSTNode) -> Optional[cst.BaseExpression]:
    """`w.shape[k]` after `w = t.reshape((self.k, 8, 3, 3))` (bound once, at the top level,
    before the read): the target's element k when it is `self.<attr>` the function never
    assigns or a name it never rebinds, and no element is a literal code below -1 (which moves
    the axes). SiamRPN's `num_filter=w.shape[0]` (blind round 14); exact when that value is a
    positive size, which the reshape's working call does not prove (a 0 or -1 there is a code)."""
    found = _dim_leaf(rule, leaf)
    facts = rule.facts
    if found is None or found[1] is None or facts is None or not isinstance(found[0], cst.Name):
        return None
    name, k = found[0], found[1]
    scan = facts.dim_bindings()
    stores = scan.stores.get(name.value, [])
    if len(stores) != 1 or stores[0] is None or stores[0] < 0:
        return None
    read_at = next((i for node, i in scan.loads.get(name.value, []) if node is name), None)
    if read_at is None or read_at <= stores[0]:
        return None
    target = _reshape_target(scan.statements[stores[0]], name.value, rule.namespace)
    if target is None or not -len(target) <= k < len(target):
        return None
    if any((literal_int(e) or 0) <= -2 for e in target):
        return None
    element = target[k]
    if isinstance(element, cst.Name) and scan.stores.get(element.value, [-1]) == [-1]:
        return element  # a parameter, or a module name the function never binds
    me = facts.node.params.params[0].name.value if facts.node.params.params else None
    if (
        isinstance(element, cst.Attribute)
        and isinstance(element.value, cst.Name)
        and element.value.value == me
        and not _assigns_attribute(facts.node, me, element.attr.value)
    ):
        return element
    return None


def _reshape_target(
    statement: cst.CSTNode, name: str, namespace: Optional[str]
) -> Optional[List[cst.BaseExpression]]:
    """The written target of `name = <a reshape>` (the forms `reshape.flow.reshape_parts`
    reads), element by element."""
    from .reshape.flow import reshape_parts  # (the flow imports this module)

    if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
        return None
    assign = statement.body[0]
    if (
        not isinstance(assign, cst.Assign)
        or len(assign.targets) != 1
        or not isinstance(assign.targets[0].target, cst.Name)
        or assign.targets[0].target.value != name
        or not isinstance(assign.value, cst.Call)
    ):
        return None
    parts = reshape_parts(assign.value, namespace)
    if parts is None:
        return None
    _, target, varargs = parts
    if varargs is not None:  # `t.reshape(a, b)`
        return [a.value for a in varargs.args]
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    if any(not isinstance(e, cst.Element) for e in target.elements):
        return None
    return [e.value for e in target.elements]


def _assigns_attribute(function: cst.FunctionDef, owner: str, attr: str) -> bool:
    """Whether any binding form of `function` (`values.bound_targets`) writes `owner.attr`."""
    return any(
        isinstance(part, cst.Attribute)
        and isinstance(part.value, cst.Name)
        and part.value.value == owner
        and part.attr.value == attr
        for node in walk_nodes(function.body)
        for target in bound_targets(node)
        for part in walk_nodes(target)
    )


def _scalar_call(rule, node: cst.Call) -> bool:
    """`math.sqrt(a)`, `float(a)`, `int(a)`: calls the scalar expression passes through."""
    if _sqrt(rule, node):
        return True
    return (
        isinstance(node.func, cst.Name)
        and node.func.value in ("float", "int")
        and len(node.args) == 1
        and not node.args[0].keyword
        and not node.args[0].star
        and node.func.value not in rule.state.module.bound
    )


def _sqrt(rule, node: cst.Call) -> bool:
    name = dotted_name(node.func)
    if name is None or len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
        return False
    return rule.state.module.qualify(name) in _SQRT


# -- building the tensor form ----------------------------------------------------------------
def _variable_dim(rule, expr: cst.CSTNode) -> Optional[Tuple[cst.BaseExpression, cst.Name]]:
    """`x.shape[i]` with i a name that is no tensor (a parameter, a comprehension's variable) ->
    (x, i), x a certain tensor."""
    if not (
        isinstance(expr, cst.Subscript)
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
        and isinstance(expr.slice[0].slice.value, cst.Name)
        and isinstance(expr.value, cst.Attribute)
        and expr.value.attr.value == "shape"
        and rule.is_tensor(expr.value.value)
    ):
        return None
    index = expr.slice[0].slice.value
    if rule.value(index).kind == TENSOR:
        return None
    return expr.value.value, index


def _slice_at(ns: str, data: cst.BaseExpression, index: cst.Name) -> cst.Call:
    """`F.slice_axis(F.shape_array(x), axis=0, begin=i, end=i + 1 or None)`: dim i (negative
    too: -1 ends at None) of a variable index."""
    return call(
        f"{ns}.slice_axis",
        [call(f"{ns}.shape_array", [data])],
        [
            ("axis", integer(0)),
            ("begin", index),
            ("end", cst.parse_expression(f"{index.value} + 1 or None")),
        ],
    )


_PRODUCTS = ("numpy.prod", "numpy.product", "math.prod")


def _prod(rule, node: cst.Call) -> bool:
    """`np.prod(<one iterable>)`, `math.prod(...)`."""
    name = dotted_name(node.func)
    return (
        name is not None
        and len(node.args) == 1
        and node.args[0].keyword is None
        and not node.args[0].star
        and rule.state.module.qualify(name) in _PRODUCTS
    )


def _convert_product(rule, expr: cst.Call, ns: str, names: frozenset):
    """`np.prod([x.shape[d] for d in dims])` -> `F.prod(F.concat(*[<dim d of x> for d in dims],
    dim=0))` in int64: the dims a Python list names, multiplied in the graph (U-GAT-IT's
    `var`). One `for`, no condition; None otherwise (an empty list, which np.prod makes 1,
    fails in concat: unsafe, as every form here)."""
    comp = expr.args[0].value
    if not isinstance(comp, (cst.ListComp, cst.GeneratorExp)):
        return None
    if comp.for_in.inner_for_in is not None or comp.for_in.ifs or comp.for_in.asynchronous:
        return None
    element = _convert(rule, comp.elt, ns, names)
    if element is None or element[1] != INT:
        return None
    listed = cst.ListComp(elt=_bare(element[0]), for_in=comp.for_in)
    concat = cst.Call(
        func=attr_chain(f"{ns}.concat"),
        args=[cst.Arg(value=listed, star="*"), keyword_arg("dim", integer(0))],
    )
    return call(f"{ns}.prod", [concat]).with_changes(lpar=expr.lpar, rpar=expr.rpar), INT


def _slice_dim(ns: str, data: cst.BaseExpression, k: int) -> cst.Call:
    """`F.slice_axis(F.shape_array(x), axis=0, begin=k, end=k + 1)` (end None for the last)."""
    return call(
        f"{ns}.slice_axis",
        [call(f"{ns}.shape_array", [data])],
        [("axis", integer(0)), ("begin", integer(k)), ("end", integer(None if k == -1 else k + 1))],
    )


def _parens(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, (cst.BinaryOperation, cst.UnaryOperation)) and not node.lpar:
        return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node


def _bare(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[], rpar=[]) if getattr(node, "lpar", None) else node


def _operand(node: cst.BaseExpression, names: frozenset) -> cst.BaseExpression:
    """An operand of the broadcast op, without its parentheses; with a named scalar the node
    itself, which `nest_edits` may still have to find (by identity) to fold an inner edit in."""
    return node if names else _bare(node)


def _float(converted: Tuple[cst.BaseExpression, str]) -> cst.BaseExpression:
    node, domain = converted
    if domain != INT:
        return node
    return cst.Call(
        func=cst.Attribute(value=_parens(node), attr=cst.Name("astype")),
        args=[cst.Arg(cst.SimpleString("'float32'"))],
    )


def _convert(
    rule, expr: cst.BaseExpression, ns: str, names: frozenset = frozenset()
) -> Optional[Tuple[cst.BaseExpression, str]]:
    """`expr`, a scalar expression of dims and numbers, as (node, domain); None if it is not one.

    Python parts (numbers, `self.k`) stay as written; dims become int64 `(1,)` tensors; integer
    `+ - *` stay in int64; anything else turns the tensors to float32."""
    if isinstance(expr, cst.Name) and expr.value in names:
        return expr, FLOAT
    if isinstance(expr, cst.Integer):
        return expr, PYINT
    if isinstance(expr, cst.Float):
        return expr, PY
    leaf = _dim_leaf(rule, expr)
    if leaf is not None:
        known = _known(rule, expr)
        if known is not None:
            return integer(known), PYINT
        data, k = leaf
        tensor = call(f"{ns}.size_array", [data]) if k is None else _slice_dim(ns, data, k)
        return tensor.with_changes(lpar=expr.lpar, rpar=expr.rpar), INT
    variable = _variable_dim(rule, expr)
    if variable is not None:
        return _slice_at(ns, *variable).with_changes(lpar=expr.lpar, rpar=expr.rpar), INT
    if isinstance(expr, cst.Call) and _prod(rule, expr):
        return _convert_product(rule, expr, ns, names)
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return (expr, PY) if rule.value(expr).kind == SCALAR else None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, (cst.Minus, cst.Plus)):
        inner = _convert(rule, expr.expression, ns, names)
        if inner is None:
            return None
        return (expr if inner[1] in (PY, PYINT) else expr.with_changes(expression=inner[0])), inner[
            1
        ]
    if isinstance(expr, cst.Call) and _scalar_call(rule, expr) and not _sqrt(rule, expr):
        inner = _convert(rule, expr.args[0].value, ns, names)  # float(x.shape[-1]), int(x.size)
        conversion = dotted_name(expr.func)  # "float" or "int" (a Name, _scalar_call checked)
        if inner is None or inner[1] in (PY, PYINT) or (conversion == "int" and inner[1] != INT):
            return (expr, PY) if inner is not None and inner[1] in (PY, PYINT) else None
        return (_float(inner) if conversion == "float" else inner[0]), (
            FLOAT if conversion == "float" else INT
        )
    if isinstance(expr, cst.Call) and _sqrt(rule, expr) and len(expr.args) == 1:
        inner = _convert(rule, expr.args[0].value, ns, names)
        if inner is None:
            return None
        if inner[1] in (PY, PYINT):
            return expr, PY
        return call(f"{ns}.sqrt", [_bare(_float(inner))]).with_changes(
            lpar=expr.lpar, rpar=expr.rpar
        ), FLOAT
    if isinstance(expr, cst.BinaryOperation):
        run = _dims_run(rule, expr)
        if run is not None:  # c * h * w of one tensor: one slice of its shape, multiplied out
            data, begin, end = run
            dims = call(
                f"{ns}.slice_axis",
                [call(f"{ns}.shape_array", [data])],
                [("axis", integer(0)), ("begin", integer(begin)), ("end", integer(end))],
            )
            return call(f"{ns}.prod", [dims]), INT
        left, right = _convert(rule, expr.left, ns, names), _convert(rule, expr.right, ns, names)
        if left is None or right is None:
            return None
        domains = {left[1], right[1]}
        if domains <= {PY, PYINT}:
            both_int = domains == {PYINT} and isinstance(
                expr.operator, (*_INT_OPS, cst.FloorDivide, cst.Modulo)
            )
            return expr, (PYINT if both_int else PY)
        if isinstance(expr.operator, cst.FloorDivide) and FLOAT not in domains:
            # a // b: the floor of the float32 quotient, exact for integers while a is below 2**24
            # (`self._heads` may hold a float: then float32 rounding, as everywhere in this form)
            quotient = cst.BinaryOperation(
                left=_float(left),
                operator=cst.Divide(
                    whitespace_before=cst.SimpleWhitespace(" "),
                    whitespace_after=cst.SimpleWhitespace(" "),
                ),
                right=_float(right),
            )
            return call(f"{ns}.floor", [quotient]).with_changes(
                lpar=expr.lpar, rpar=expr.rpar
            ), FLOAT
        if isinstance(
            expr.operator,
            (
                cst.FloorDivide,
                cst.Modulo,
                cst.MatrixMultiply,
                cst.LeftShift,
                cst.RightShift,
                cst.BitAnd,
                cst.BitOr,
                cst.BitXor,
            ),
        ):
            return None
        if isinstance(expr.operator, _INT_OPS) and domains <= {INT, PYINT}:
            return expr.with_changes(left=left[0], right=right[0]), INT
        return expr.with_changes(left=_float(left), right=_float(right)), FLOAT
    return None


def _dims_run(
    rule, expr: cst.BinaryOperation
) -> Optional[Tuple[cst.BaseExpression, int, Optional[int]]]:
    """(x, begin, end) when `expr` multiplies dims of one tensor `x` at consecutive axes, each
    once and none known (`c * h * w` of `_, c, h, w = x.shape`, `x.shape[2] * x.shape[3]`)."""
    factors: List[cst.BaseExpression] = []
    stack: List[cst.BaseExpression] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
            stack += [node.right, node.left]
        else:
            factors.append(node)
    if len(factors) < 2 or any(_known(rule, factor) is not None for factor in factors):
        return None
    names: Set[str] = set()
    axes: List[int] = []
    for factor in factors:
        leaf = _dim_leaf(rule, factor)
        if leaf is None or leaf[1] is None or not isinstance(leaf[0], cst.Name):
            return None
        names.add(leaf[0].value)
        axes.append(leaf[1])
    axes.sort()
    if len(names) != 1 or (axes[0] < 0) != (axes[-1] < 0):
        return None
    if axes != list(range(axes[0], axes[0] + len(axes))):
        return None
    end = axes[-1] + 1
    return cst.Name(names.pop()), axes[0], (None if end == 0 else end)


# -- operator arguments that must be Python ints ---------------------------------------------
def _namespace_op(node: cst.Call, ns: str) -> Optional[str]:
    name = dotted_name(node.func)
    if name is None or not name.startswith(ns + "."):
        return None
    return name[len(ns) + 1 :]


def _one_hot_plan(
    rule, node: cst.Call, leaf: cst.BaseExpression, ns: str
) -> Optional[Tuple[Edits, str]]:
    """`F.one_hot(label, x.shape[k])` -> label compared with `arange_like(x, axis=k)`."""
    if _namespace_op(node, ns) != "one_hot":
        return None
    indices, depth = call_argument(node, 0, "indices"), call_argument(node, 1, "depth")
    if (
        indices is None
        or depth is None
        or depth.value is not leaf
        or len(node.args) != 2
        or any(a.star for a in node.args)
    ):
        return None
    found = _dim_leaf(rule, leaf)
    if found is None or found[1] is None:
        return None
    data, k = found
    label = call(
        f"{ns}.fix",
        [call(f"{ns}.cast", [_bare(indices.value)], [("dtype", cst.SimpleString("'float32'"))])],
    )
    classes = _float((call(f"{ns}.contrib.arange_like", [data], [("axis", integer(k))]), INT))
    new = call(
        f"{ns}.broadcast_equal",
        [call(f"{ns}.expand_dims", [label], [("axis", integer(-1))]), classes],
    )
    return ((node, new.with_changes(lpar=node.lpar, rpar=node.rpar)),), UNSAFE


def _repeat_plan(rule, path: Sequence[cst.CSTNode], ns: str) -> Optional[Tuple[Edits, str]]:
    """`F.repeat(k, repeats=q.shape[j] // k.shape[a], axis=a)` -> a take of k's heads."""
    node = next((n for n in reversed(path) if isinstance(n, cst.Call)), None)
    if node is None or _namespace_op(node, ns) != "repeat" or any(a.star for a in node.args):
        return None
    data, repeats, axis = (
        call_argument(node, 0, "data"),
        call_argument(node, 1, "repeats"),
        call_argument(node, 2, "axis"),
    )
    if data is None or repeats is None or axis is None or len(node.args) != 3:
        return None
    ratio = repeats.value
    a = literal_int(axis.value)
    if a is None or not (
        isinstance(ratio, cst.BinaryOperation) and isinstance(ratio.operator, cst.FloorDivide)
    ):
        return None
    total, part = _dim_leaf(rule, ratio.left), _dim_leaf(rule, ratio.right)
    if total is None or part is None or total[1] is None or part[1] is None:
        return None
    if not (
        isinstance(part[0], cst.Name)
        and isinstance(data.value, cst.Name)
        and part[0].value == data.value.value
        and part[1] == a
    ):
        return None
    dims = [
        _float((_slice_dim(ns, total[0], total[1]), INT)),
        _float((_slice_dim(ns, part[0], part[1]), INT)),
    ]
    r = call(f"{ns}.floor", [call(f"{ns}.broadcast_div", dims)])
    heads = _float(
        (call(f"{ns}.contrib.arange_like", [total[0]], [("axis", integer(total[1]))]), INT)
    )
    index = call(f"{ns}.floor", [call(f"{ns}.broadcast_div", [heads, r])])
    new = call(f"{ns}.take", [data.value, index], [("axis", integer(a))])
    return ((node, new.with_changes(lpar=node.lpar, rpar=node.rpar)),), UNSAFE


# -- examples (HL001's VALID/INVALID lists include these; tests/test_rule_examples.py runs them) --
_WEIGHT = (
    "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
    "        self.weight = self.params.get('weight', shape=(3, 4))\n\n"
    "    def hybrid_forward(self, F, x, weight):\n"
)
_LAST = "F.slice_axis(F.shape_array({}), axis=0, begin=-1, end=None).astype('float32')"
# a projection with constructor-argument dims, its parameters received by name or as **kwargs
_UNITS = (
    "class Net(HybridBlock):\n    def __init__(self, units=4, in_units=3):\n"
    "        super().__init__()\n"
    "        self.weight = self.params.get('weight', shape=(units, in_units))\n\n"
)

VALID = [
    # the shape tensor itself: nothing to report
    Valid(net("return F.broadcast_div(x, F.size_array(x).astype('float32'))")),
    # a Parameter's shape is static
    Valid(_WEIGHT + "        return F.relu(x) / self.weight.shape[1]\n"),
    # **kwargs passed on: what the callee leaves in it is unknown
    Valid(
        _UNITS + "    def hybrid_forward(self, F, x, **kwargs):\n"
        "        y = self._proj(F, x, **kwargs)\n"
        "        return F.FullyConnected(y, kwargs['weight'], no_bias=True,"
        " num_hidden=kwargs['weight'].shape[0])\n"
    ),
    # a key that names no parameter of the block
    Valid(
        _UNITS + "    def hybrid_forward(self, F, x, **kwargs):\n"
        "        return x.reshape((0, -1)) * kwargs['scale'].shape[0]\n"
    ),
]

INVALID = [
    # the count of a helper's reduced elements, a product of dims a Python list names or one
    # dim of a variable axis, kept in a name assigned in both branches (U-GAT-IT's `var`,
    # blind round 14): each assignment keeps the tensor, the helper gets F
    Invalid(
        "import mxnet as mx\nimport numpy as np\n\n\ndef var(x, dim):\n"
        "    s = (x - x.mean(dim, keepdims=True).broadcast_like(x)).square().sum(dim)\n"
        "    if isinstance(dim, (list, tuple)):\n"
        "        n = np.prod([x.shape[d] for d in dim])\n"
        "    else:\n"
        "        n = x.shape[dim]\n"
        "    return s / (n - 1)\n\n\n" + net("y = F.relu(x)\nreturn var(y, (1, 2)), var(y, -1)"),
        line=8,
        fix=[
            ("def var(x, dim):", "def var(x, dim, F=mx.nd):"),
            (
                "np.prod([x.shape[d] for d in dim])",
                "F.prod(F.concat(*[F.slice_axis(F.shape_array(x), axis=0, begin=d, "
                "end=d + 1 or None) for d in dim], dim=0)).astype('float32')",
            ),
            (
                "n = x.shape[dim]",
                "n = F.slice_axis(F.shape_array(x), axis=0, begin=dim, end=dim + 1 or None)"
                ".astype('float32')",
            ),
            ("return s / (n - 1)", "return F.broadcast_div(s, (n - 1))"),
            ("return var(y, (1, 2)), var(y, -1)", "return var(y, (1, 2), F=F), var(y, -1, F=F)"),
        ],
        safety=UNSAFE,
    ),
    # a dim a reshape wrote as `self.k` (SiamRPN's correlation kernel): that value, unsafe
    Invalid(
        net(
            "w = x.reshape((self.k, 8, 3, 3))\n"
            "return F.Convolution(data=x, weight=w, no_bias=True, kernel=(3, 3), "
            "num_filter=w.shape[0])"
        ),
        line=4,
        fix=("num_filter=w.shape[0]", "num_filter=self.k"),
        safety=UNSAFE,
    ),
    # ... not when the reshape's codes move the axes, nor once self.k is assigned
    Invalid(
        net(
            "w = x.reshape((-3, self.k, 3))\n"
            "return F.Convolution(data=x, weight=w, kernel=(3, 3), num_filter=w.shape[1])"
        ),
        line=4,
    ),
    Invalid(
        net(
            "w = x.reshape((self.k, 8, 3, 3))\nself.k = 2\n"
            "return F.Convolution(data=x, weight=w, kernel=(3, 3), num_filter=w.shape[0])"
        ),
        line=5,
    ),
    # dims an unpacking bound, read in reshapes (the reshape flow's codes) and in arithmetic
    Invalid(
        net(
            "b, c, h, w = x.shape\nfeatures = x.reshape((b, c, h * w))\n"
            "gram = F.batch_dot(features, features, transpose_b=True)\nreturn gram / (c * h * w)"
        ),
        line=3,
        fix=[
            (
                "b, c, h, w = x.shape\nfeatures = x.reshape((b, c, h * w))",
                "features = x.reshape((0, 0, -3))",
            ),
            (
                "gram / (c * h * w)",
                "F.broadcast_div(gram, "
                "F.prod(F.slice_axis(F.shape_array(x), axis=0, begin=1, end=4)).astype('float32'))",
            ),
        ],
        safety=UNSAFE,
    ),
    Invalid(
        net(
            "_, c, h, w = x.shape\nloss = F.sum(F.square(x), axis=0, exclude=True) / "
            "float(h * w)\nreturn loss"
        ),
        line=3,
        fix=(
            "_, c, h, w = x.shape\nloss = F.sum(F.square(x), axis=0, exclude=True) / float(h * w)",
            "loss = F.broadcast_div(F.sum(F.square(x), axis=0, exclude=True), "
            "F.prod(F.slice_axis(F.shape_array(x), axis=0, begin=2, end=4)).astype('float32'))",
        ),
        safety=UNSAFE,
    ),
    # the reshape inside the arithmetic goes into the broadcast op
    Invalid(
        net("n, c = x.shape\ny = F.relu(x)\nreturn y.reshape((n, c, 1)) / c"),
        line=3,
        fix=[
            ("n, c = x.shape\ny = F.relu(x)", "y = F.relu(x)"),
            (
                "y.reshape((n, c, 1)) / c",
                "F.broadcast_div(y.reshape((0, 0, 1)), "
                "F.slice_axis(F.shape_array(x), axis=0, begin=1, end=2).astype('float32'))",
            ),
        ],
        safety=UNSAFE,
    ),
    # a dim read as a Python value, or the tensor rebound before the arithmetic: reported only
    Invalid(
        net("b, c = x.shape\nif c > 1:\n    x = x * 2\nreturn x.reshape((b, c, 1)) / c"), line=3
    ),
    Invalid(net("n, c = x.shape\nx = F.relu(x)\nreturn x.reshape((n, c, 1)) / c"), line=3),
    # a parameter's data by name, dims constructor arguments: the Parameter's own static shape
    Invalid(
        _UNITS + "    def hybrid_forward(self, F, x, weight):\n"
        "        return F.FullyConnected(x, weight, no_bias=True, num_hidden=weight.shape[0])\n",
        line=7,
        fix=("weight.shape[0]", "self.weight.shape[0]"),
        safety=SAFE,
    ),
    Invalid(
        _UNITS + "    def hybrid_forward(self, F, x, **kwargs):\n"
        "        units = kwargs['weight'].shape[0]\n"
        "        return F.FullyConnected(x, kwargs['weight'], no_bias=True, num_hidden=units)\n",
        line=7,
        fix=("kwargs['weight'].shape[0]", "self.weight.shape[0]"),
        safety=SAFE,
    ),
    Invalid(
        net("y = F.relu(x)\nreturn y.sum(axis=-1, keepdims=True) / y.shape[-1]"),
        line=4,
        fix=(
            "y.sum(axis=-1, keepdims=True) / y.shape[-1]",
            "F.broadcast_div(y.sum(axis=-1, keepdims=True), " + _LAST.format("y") + ")",
        ),
        safety=UNSAFE,
    ),
    Invalid(
        net("return F.sum(x).reshape((1,)) / x.size"),
        line=3,
        fix=(
            "F.sum(x).reshape((1,)) / x.size",
            "F.broadcast_div(F.sum(x).reshape((1,)), F.size_array(x).astype('float32'))",
        ),
        safety=UNSAFE,
    ),
    Invalid(
        net("return F.sum(x, axis=(1, 2)) / (x.shape[1] * x.shape[2])"),
        line=3,
        fix=(
            "F.sum(x, axis=(1, 2)) / (x.shape[1] * x.shape[2])",
            "F.broadcast_div(F.sum(x, axis=(1, 2)), "
            "F.prod(F.slice_axis(F.shape_array(x), axis=0, begin=1, end=3)).astype('float32'))",
        ),
        safety=UNSAFE,
    ),
    Invalid(
        net(
            "y = F.batch_dot(x, x, transpose_b=True)\nreturn y / math.sqrt(x.shape[-1])",
            head="import math\n\n\n",
        ),
        line=7,
        fix=("y / math.sqrt(x.shape[-1])", "F.broadcast_div(y, F.sqrt(" + _LAST.format("x") + "))"),
        safety=UNSAFE,
    ),
    Invalid(
        net("y = F.relu(x)\nreturn y * y.shape[-1] ** -0.5"),
        line=4,
        fix=("y * y.shape[-1] ** -0.5", "F.broadcast_mul(y, " + _LAST.format("y") + " ** -0.5)"),
        safety=UNSAFE,
    ),
    Invalid(
        net("y = F.relu(x)\nreturn y / (x.shape[-1] // 2)"),
        line=4,
        fix=(
            "y / (x.shape[-1] // 2)",
            "F.broadcast_div(y, F.floor(" + _LAST.format("x") + " / 2))",
        ),
        safety=UNSAFE,
    ),
    Invalid(
        net("y = F.relu(x)\nreturn (x.shape[0] + 1) - y"),
        line=4,
        fix=(
            "(x.shape[0] + 1) - y",
            (
                "F.broadcast_sub((F.slice_axis(F.shape_array(x), "
                "axis=0, begin=0, end=1) + 1).astype('float32'), y)"
            ),
        ),
        safety=UNSAFE,
    ),
    Invalid(
        net("steps = F.contrib.arange_like(x, axis=1)\nreturn steps < x.shape[1] - 1"),
        line=4,
        fix=(
            "steps < x.shape[1] - 1",
            (
                "F.broadcast_lesser(steps, (F.slice_axis(F.shape_array(x), "
                "axis=0, begin=1, end=2) - 1).astype('float32'))"
            ),
        ),
        safety=UNSAFE,
    ),
    # a dimension the analysis knows (the declared parameter shape): the int itself
    Invalid(
        _WEIGHT + "        return F.broadcast_add(x, F.sum(weight, axis=0)) / weight.shape[0]\n",
        line=7,
        fix=("weight.shape[0]", "3"),
        safety=SAFE,
    ),
    Invalid(
        net("return F.one_hot(F.argmax(x, axis=-1), x.shape[-1])"),
        line=3,
        fix=(
            "F.one_hot(F.argmax(x, axis=-1), x.shape[-1])",
            (
                "F.broadcast_equal(F.expand_dims(F.fix(F.cast(F.argmax(x, axis=-1), "
                "dtype='float32')), axis=-1), F.contrib.arange_like(x, "
                "axis=-1).astype('float32'))"
            ),
        ),
        safety=UNSAFE,
    ),
    Invalid(
        net(
            "return F.broadcast_add(F.repeat(k, repeats=q.shape[1] // k.shape[1], axis=1), q)",
            "F, q, k",
        ),
        line=3,
        fix=(
            "F.repeat(k, repeats=q.shape[1] // k.shape[1], axis=1)",
            (
                "F.take(k, F.floor(F.broadcast_div(F.contrib.arange_like(q, "
                "axis=1).astype('float32'), "
                "F.floor(F.broadcast_div(F.slice_axis(F.shape_array(q), "
                "axis=0, begin=1, end=2).astype('float32'), F.slice_axis(F.shape_array(k), "
                "axis=0, begin=1, end=2).astype('float32'))))), axis=1)"
            ),
        ),
        safety=UNSAFE,
    ),
    # an operator argument that must be a Python int: reported only
    Invalid(net("return F.slice_axis(x, axis=1, begin=0, end=x.shape[1] - 1)"), line=3),
    # a scalar kept in a name, every later use tensor arithmetic: the name keeps the tensor
    Invalid(
        net(
            "d = x.shape[-1]\ny = F.relu(x) / math.sqrt(d)\nreturn y * d", head="import math\n\n\n"
        ),
        line=6,
        fix=[
            ("x.shape[-1]", _LAST.format("x")),
            ("F.relu(x) / math.sqrt(d)", "F.broadcast_div(F.relu(x), F.sqrt(d))"),
            ("y * d", "F.broadcast_mul(y, d)"),
        ],
        safety=UNSAFE,
    ),
    # ... and reported only when a use needs the Python int
    Invalid(
        net(
            "d = x.shape[-1]\ny = F.relu(x) / d\nreturn F.slice_axis(y, axis=-1, begin=0, end=d - 1)"
        ),
        line=3,
    ),
]


class _KeyedReads(cst.CSTVisitor):
    """Whether every use of the name `mapping` in a body reads one literal key
    (`kwargs['weight']`, not a target, not `del`), and no nested scope rebinds it."""

    def __init__(self, mapping: str) -> None:
        super().__init__()
        self.mapping = mapping
        self.ok = True
        self._keyed: set = set()

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if (
            isinstance(node.value, cst.Name)
            and node.value.value == self.mapping
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
            and isinstance(node.slice[0].slice.value, cst.SimpleString)
        ):
            self._keyed.add(id(node.value))

    def _store(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Subscript) and _is_name(target.value, self.mapping):
            self.ok = False

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._store(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._store(node.target)

    def visit_Del(self, node: cst.Del) -> None:
        self.ok = False

    def visit_Name(self, node: cst.Name) -> None:
        if node.value == self.mapping and id(node) not in self._keyed:
            self.ok = False  # passed on, iterated, `.pop(...)`, rebound: anything may happen


def _is_name(expr: cst.BaseExpression, name: str) -> bool:
    return isinstance(expr, cst.Name) and expr.value == name


def _literal_key(expr: cst.BaseExpression) -> Optional[str]:
    if isinstance(expr, cst.SimpleString):
        value = expr.evaluated_value
        return value if isinstance(value, str) else None
    return None


def parameter_of(rule, expr: cst.BaseExpression) -> Optional[str]:
    """The attribute of the block parameter whose data `expr` certainly is in hybrid_forward,
    else None. Gluon passes each registered parameter's data (NDArray, Symbol once hybridized)
    as the keyword named like its attribute (`self.weight = self.params.get('weight', ...)`
    arrives as `weight`), so it is
    - an input named like a parameter of the class, never rebound in the body, or
    - `kwargs['weight']` of the `**kwargs` that receives them (GluonNLP's projections), the
      mapping read only by literal keys (not passed on, changed or rebound).
    `self.<attr>` is then that very Parameter, whose `.shape` is the data's shape."""
    facts = rule.facts
    if facts is None or facts.kind != "hybrid_forward" or facts.klass is None:
        return None
    node = facts.node
    if not node.params.params or not isinstance(node.body, cst.IndentedBlock):
        return None
    parameters = facts.klass.parameters
    inputs = {p.name.value for p in node.params.params[2:]} | {
        p.name.value for p in node.params.kwonly_params
    }
    if isinstance(expr, cst.Name):
        name = expr.value
        if name in parameters and name in inputs and not binds(node.body, name):
            return name
        return None
    star = node.params.star_kwarg
    if (
        isinstance(star, cst.Param)
        and isinstance(expr, cst.Subscript)
        and _is_name(expr.value, star.name.value)
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
    ):
        key = _literal_key(expr.slice[0].slice.value)
        if key is None or key not in parameters or key in inputs:
            return None
        reads = _KeyedReads(star.name.value)
        node.body.visit(reads)
        return key if reads.ok else None
    return None
