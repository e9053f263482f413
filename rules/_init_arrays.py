"""Shapes of the numpy arrays a block's `__init__` builds for its constants.

`self.params.get_constant(name, value)` declares no shape: the constant has the shape of
`value`, most often an array built a few lines earlier from the constructor's arguments (a
flow-warping block's mesh grid, `np.expand_dims(grid, axis=0)` "so it's easier for
broadcasting"). Knowing its rank and where its 1s are is what tells HL007 that `flow + offsets`
does not broadcast on Symbols. This module reads such values: a small evaluator of the numpy
calls that build them, over the names bound at the top level of `__init__` before the
constant. A dim set from a constructor argument is None (unknown, but there); anything it does
not know makes the whole shape None, never a guess.
"""

from __future__ import annotations

from typing import Dict, List, Mapping, Optional, Sequence

import libcst as cst

from .values import (
    Shape,
    bound_targets,
    call_argument,
    dotted_name,
    literal_int,
    literal_shape,
    target_names,
    walk_nodes,
)

_ARRAY_COPIES = frozenset({"array", "asarray", "ascontiguousarray", "copy", "float32"})
_FILLED = frozenset({"ones", "zeros", "empty", "full"})
_FILLED_LIKE = frozenset({"ones_like", "zeros_like", "empty_like", "full_like"})


def nested_literal_shape(node: cst.BaseExpression) -> Optional[Shape]:
    """The shape of a rectangular nested list/tuple literal of numbers (`[[1, 2], [3, 4]]` ->
    (2, 2)), else None."""
    if (
        isinstance(node, (cst.Integer, cst.Float))
        or literal_int(node) is not None
        or (
            isinstance(node, cst.UnaryOperation)
            and isinstance(node.expression, (cst.Integer, cst.Float))
        )
    ):
        return ()
    if not isinstance(node, (cst.List, cst.Tuple)) or not node.elements:
        return None
    inner = [
        nested_literal_shape(e.value) if isinstance(e, cst.Element) else None for e in node.elements
    ]
    if inner[0] is None or any(shape != inner[0] for shape in inner):
        return None
    return (len(inner),) + inner[0]


def top_statements(init: cst.FunctionDef) -> List[cst.BaseStatement]:
    """The top-level statements of `__init__`, those of `with self.name_scope():` inlined."""
    top: List[cst.BaseStatement] = []
    if not isinstance(init.body, cst.IndentedBlock):
        return top
    for stmt in init.body.body:
        if (
            isinstance(stmt, cst.With)
            and any(is_name_scope(i) for i in stmt.items)
            and isinstance(stmt.body, cst.IndentedBlock)
        ):
            top.extend(stmt.body.body)
        else:
            top.append(stmt)
    return top


def is_name_scope(item: cst.WithItem) -> bool:
    """`with self.name_scope():`"""
    return isinstance(item.item, cst.Call) and dotted_name(item.item.func) == "self.name_scope"


def shapes_before(init: cst.FunctionDef, statement: cst.CSTNode) -> Dict[str, Shape]:
    """The shapes of the arrays named at the top level of `__init__` before the top-level
    statement holding `statement` (a small statement or a whole line): `grid = np.arange(n)`
    gives `grid` (None,). A name bound anywhere else (in a branch, a loop) is unknown after;
    nothing is known for a statement that is not at the top level."""
    top = top_statements(init)
    at = next(
        (
            i
            for i, stmt in enumerate(top)
            if stmt is statement
            or (
                isinstance(stmt, cst.SimpleStatementLine) and any(s is statement for s in stmt.body)
            )
        ),
        None,
    )
    env: Dict[str, Shape] = {}
    for stmt in top[:at] if at is not None else ():
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                _bind(small, env)
        else:
            for name in _stores(stmt):
                env.pop(name, None)
    return env


def array_shape(expr: cst.BaseExpression, env: Mapping[str, Shape]) -> Optional[Shape]:
    """The shape of the array `expr` builds, names read from `env`, else None."""
    literal = nested_literal_shape(expr)
    if literal is not None:
        return literal
    if isinstance(expr, cst.Name):
        return env.get(expr.value)
    if isinstance(expr, cst.Subscript):
        return _indexed(expr, env)
    if isinstance(expr, cst.BinaryOperation):
        return _broadcast(array_shape(expr.left, env), array_shape(expr.right, env), expr, env)
    if not isinstance(expr, cst.Call) or any(a.star for a in expr.args):
        return None
    func = expr.func
    short = func.attr.value if isinstance(func, cst.Attribute) else dotted_name(func) or ""
    method_of = expr.func.value if isinstance(expr.func, cst.Attribute) else None
    positional = [a.value for a in expr.args if a.keyword is None]
    if short in ("astype", "copy") and method_of is not None:
        inner = array_shape(method_of, env)  # `a.astype(np.float32)`; `np.copy(a)` below
        if inner is not None:
            return inner
    if short == "reshape" and method_of is not None:
        return _reshaped(positional)
    if short in _ARRAY_COPIES and positional:
        return array_shape(positional[0], env)
    if short in _FILLED:
        shape = call_argument(expr, 0, "shape")
        return _size_shape(shape.value) if shape is not None else None
    if short in _FILLED_LIKE and positional:
        return array_shape(positional[0], env)
    if short == "arange":
        return (_arange_length(positional),)
    if short == "linspace":
        num = call_argument(expr, 2, "num")
        return ((literal_int(num.value) if num is not None else 50),)
    if short == "expand_dims" and positional:
        axis = call_argument(expr, 1, "axis")
        inner = array_shape(positional[0], env)
        k = literal_int(axis.value) if axis is not None else None
        if inner is None or k is None or not -len(inner) - 1 <= k <= len(inner):
            return None
        k = k if k >= 0 else len(inner) + 1 + k
        return inner[:k] + (1,) + inner[k:]
    if short in ("concatenate", "stack") and positional:
        return _joined(short, expr, positional[0], env)
    return None


def _bind(small: cst.BaseSmallStatement, env: Dict[str, Shape]) -> None:
    """Update `env` for one small statement at the top level of `__init__`."""
    if isinstance(small, cst.Assign) and len(small.targets) == 1:
        target = small.targets[0].target
        if isinstance(target, cst.Name):
            shape = array_shape(small.value, env)
            if shape is None:
                env.pop(target.value, None)
            else:
                env[target.value] = shape
            return
        if isinstance(target, (cst.Tuple, cst.List)) and _meshgrid(small.value, target, env):
            return
    for name in _stores(small):
        env.pop(name, None)


def _meshgrid(value: cst.BaseExpression, target: cst.BaseExpression, env: Dict[str, Shape]) -> bool:
    """`gx, gy = np.meshgrid(a, b)`: both (len b, len a), or (len a, len b) with
    `indexing='ij'`; True when bound."""
    if not (isinstance(value, cst.Call) and (dotted_name(value.func) or "").endswith("meshgrid")):
        return False
    names = [e.value for e in target.elements]  # type: ignore[attr-defined]
    vectors = [array_shape(a.value, env) for a in value.args if a.keyword is None]
    if len(vectors) != 2 or len(names) != 2 or not all(isinstance(n, cst.Name) for n in names):
        return False
    if any(v is None or len(v) != 1 for v in vectors) or len(value.args) > 3:
        return False
    indexing = call_argument(value, None, "indexing")
    ij = indexing is not None and isinstance(indexing.value, cst.SimpleString)
    ij = ij and indexing.value.evaluated_value == "ij"  # type: ignore[union-attr]
    if indexing is not None and not ij and not _is_string(indexing.value, "xy"):
        return False
    first, second = vectors[0][0], vectors[1][0]  # type: ignore[index]
    shape = (first, second) if ij else (second, first)
    for name in names:
        env[name.value] = shape
    return True


def _is_string(node: cst.BaseExpression, text: str) -> bool:
    return isinstance(node, cst.SimpleString) and node.evaluated_value == text


def _stores(node: cst.CSTNode) -> List[str]:
    """Every name `node` binds, at any depth (an assignment, a loop target, an import)."""
    return [
        name
        for inner in walk_nodes(node)
        for target in bound_targets(inner)
        for name in (target_names(target) if isinstance(target, cst.BaseExpression) else [])
    ]


def _size_shape(node: cst.BaseExpression) -> Optional[Shape]:
    """A `shape=` argument: literal dims, a name or expression for a dim set when the block is
    built (None); a tuple of them. None when even the rank is unknown."""
    literal = literal_shape(node)
    if literal is not None:
        return literal
    if isinstance(node, (cst.Tuple, cst.List)) and all(
        isinstance(e, cst.Element) and not isinstance(e.value, (cst.Tuple, cst.List))
        for e in node.elements
    ):
        return tuple(literal_int(e.value) for e in node.elements)
    return None


def _arange_length(args: Sequence[cst.BaseExpression]) -> Optional[int]:
    values = [literal_int(a) for a in args]
    if not args or len(args) > 3 or any(v is None for v in values):
        return None
    bounds = (0, values[0], 1) if len(values) == 1 else tuple(values) + (1,) * (3 - len(values))
    try:
        return len(range(*bounds))  # type: ignore[arg-type]
    except ValueError:
        return None


def _reshaped(target: Sequence[cst.BaseExpression]) -> Optional[Shape]:
    """`<array>.reshape(dims)` with literal dims, `-1` at most once (an unknown dim)."""
    if len(target) == 1 and isinstance(target[0], (cst.Tuple, cst.List)):
        elements = target[0].elements
        if not all(isinstance(e, cst.Element) for e in elements):
            return None
        target = [e.value for e in elements]
    dims = [literal_int(t) for t in target]
    if not dims or any(d is None or d == 0 or d < -1 for d in dims) or dims.count(-1) > 1:
        return None
    return tuple(None if d == -1 else d for d in dims)


def _indexed(expr: cst.Subscript, env: Mapping[str, Shape]) -> Optional[Shape]:
    """`a[:, :, np.newaxis]`, `a[None]`, `a[..., None]`: full slices keep a dim, None adds a 1,
    an integer drops one; anything else (a partial slice, an array index) is unknown."""
    inner = array_shape(expr.value, env)
    if inner is None:
        return None
    kept: List[Optional[int]] = []
    consumed, ellipsis_at = 0, None
    for element in expr.slice:
        index = element.slice
        if isinstance(index, cst.Slice):
            if index.lower is not None or index.upper is not None or index.step is not None:
                return None
            if consumed >= len(inner):
                return None
            kept.append(inner[consumed])
            consumed += 1
        elif isinstance(index, cst.Index):
            value = index.value
            if (isinstance(value, cst.Name) and value.value == "None") or (
                dotted_name(value) or ""
            ).endswith("newaxis"):
                kept.append(1)
            elif isinstance(value, cst.Ellipsis) and ellipsis_at is None:
                ellipsis_at = len(kept)
            elif literal_int(value) is not None and consumed < len(inner):
                consumed += 1
            else:
                return None
    rest = list(inner[consumed:])
    if ellipsis_at is None:
        return tuple(kept + rest)
    return tuple(kept[:ellipsis_at] + rest + kept[ellipsis_at:])


def _broadcast(
    a: Optional[Shape], b: Optional[Shape], expr: cst.BinaryOperation, env: Mapping[str, Shape]
) -> Optional[Shape]:
    """numpy broadcasting of two operands; a number is shape ()."""
    shapes = []
    for side, shape in ((expr.left, a), (expr.right, b)):
        if shape is None and isinstance(side, (cst.Integer, cst.Float)):
            shape = ()
        if shape is None:
            return None
        shapes.append(shape)
    first, second = shapes
    rank = max(len(first), len(second))
    first = (1,) * (rank - len(first)) + tuple(first)
    second = (1,) * (rank - len(second)) + tuple(second)
    out: List[Optional[int]] = []
    for x, y in zip(first, second):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            out.append(None)
    return tuple(out)


def _joined(
    how: str, call: cst.Call, arrays: cst.BaseExpression, env: Mapping[str, Shape]
) -> Optional[Shape]:
    """`np.concatenate((a, b), axis=k)` / `np.stack((a, b), axis=k)` of arrays of one rank."""
    if not isinstance(arrays, (cst.Tuple, cst.List)) or not arrays.elements:
        return None
    parts = [
        array_shape(e.value, env) if isinstance(e, cst.Element) else None for e in arrays.elements
    ]
    if any(p is None for p in parts) or len({len(p) for p in parts}) != 1:  # type: ignore[arg-type]
        return None
    rank = len(parts[0])  # type: ignore[arg-type]
    axis_arg = call_argument(call, 1, "axis")
    axis = literal_int(axis_arg.value) if axis_arg is not None else 0
    out_rank = rank + 1 if how == "stack" else rank
    if axis is None or not -out_rank <= axis < out_rank:
        return None
    axis = axis % out_rank
    merged: List[Optional[int]] = [dims[0] if len(set(dims)) == 1 else None for dims in zip(*parts)]
    if how == "stack":
        return tuple(merged[:axis] + [len(parts)] + merged[axis:])
    along = [p[axis] for p in parts]  # type: ignore[index]
    merged[axis] = None if None in along else sum(along)  # type: ignore[arg-type]
    return tuple(merged)
