"""How a block's inputs' shapes relate, read from its body: trial inputs for inferred examples.

An inferred example (inferred.py) gives a block's inputs random arrays of one trial rank each.
That runs a layer of one input, but not a loss taking `(pred, label)` with `label` an index
per row, nor a layer taking `(x, indices)`: the original fails eagerly on every uniform
trial, no example is inferred, and `--verify` proves nothing in the block. The body says more:

* `F.pick(a, i, axis=k)` (or `a.pick(i, ...)`): `i` has `a`'s shape without axis `k` (-1 by
  default, MXNet's);
* `F.SequenceMask(a, sequence_length=l, axis=k)`: `l` is a vector over `a`'s batch axis (axis
  1 when `k` is 0, MXNet's default, else axis 0);
* `self.<child>(a, i, ...)`: `i` passed beside `a` to a child (a loss's `(pred, label)`) has
  `a`'s shape;

where `a` is an input or a value computed from one by ops whose output shape follows from
their input's (`slice_axis` with literal bounds, `expand_dims`, `squeeze`, `pick`, elementwise
ops, broadcasting arithmetic). Such an input is *dependent*; the others are *free* and get the
trial's shape. The relations come from a straight walk of `hybrid_forward`, both branches of
every `if` (an argument `self._axis` reads the constructor's value), so they are guesses; the
eager run of the original on the trial is what accepts one, as for every inferred input.

Inputs only named like indices (`label`, `indices`, `mask`, ...) with no such use are tried
after the uniform trials, as the first free input's shape without its last axis: a `label`
that is as often `pred`'s own shape would otherwise get a shape `pred - label` merely
broadcasts eagerly, and the block would be judged on an input no caller passes.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

Shape = Tuple[int, ...]

# ops whose output has their first argument's shape
_KEEP_SHAPE = frozenset(
    """abs Activation arccos arcsin arctan BatchNorm ceil clip cos cosh Dropout elemwise_add
    elemwise_div elemwise_mul elemwise_sub erf exp expm1 fix floor gamma gammaln hard_sigmoid
    identity InstanceNorm LayerNorm LeakyReLU log log10 log1p log2 log_softmax logical_not
    negative ones_like rcbrt rcp reciprocal relu rint round rsqrt sigmoid sign sin sinh
    softmax softmin softsign sqrt square tan tanh trunc zeros_like astype SequenceMask
    SequenceReverse BlockGrad stop_gradient""".split()
)
# names callers give index, label and length inputs
_INDEX_NAME = re.compile(
    r"^(?:.*_)?(?:labels?|targets?|indices|index|idx|ids?|masks?|lengths?|valid_length)$"
)


def dependent_inputs(forward: ast.FunctionDef, inputs: Sequence[str]) -> Dict[str, str]:
    """input -> "use" (a relation of the module docstring names its shape) or "name" (only
    named like an index), for the inputs whose shape derives from another's; never the
    first input."""
    out: Dict[str, str] = {}
    for node in ast.walk(forward):
        if isinstance(node, ast.Call):
            for name in _related_arguments(node):
                if name in inputs[1:]:
                    out[name] = "use"
    for name in inputs[1:]:
        if name not in out and _INDEX_NAME.match(name):
            out[name] = "name"
    return out


def _related_arguments(call: ast.Call) -> List[str]:
    """The input names a call relates to its first argument's shape (module docstring)."""
    op = _op_name(call)
    args = _positional(call)
    names: List[Optional[ast.expr]] = []
    if op == "pick":
        names.append(_argument(call, args, 1, "index"))
    elif op == "SequenceMask":
        names.append(_argument(call, args, 1, "sequence_length"))
    elif _child_call(call):
        names.extend(call.args[1:])
    return [n.id for n in names if isinstance(n, ast.Name)]


def derive_shapes(
    forward: ast.FunctionDef,
    inputs: Sequence[str],
    free: Mapping[str, Shape],
    dependent: Mapping[str, str],
    attributes: Mapping[str, Any],
    use_names: bool,
) -> Optional[Tuple[Shape, ...]]:
    """Shapes for all `inputs`: the `free` ones as given, the `dependent` ones as the body
    relates them (`attributes`: `self.<name>` -> its value under the trial's constructor
    arguments); those only named like indices, when `use_names`, as the first free input's
    shape without its last axis. None when a dependent input gets no shape."""
    walker = _ShapeWalk(dict(free), set(dependent), attributes)
    try:
        walker.block(forward.body)
    except RecursionError:  # an expression nested thousands deep: no relation read
        return None
    shapes = walker.shapes
    first = free.get(inputs[0])
    for name, how in dependent.items():
        if name in shapes:
            continue
        if how == "name" and use_names and first is not None and len(first) > 1:
            shapes[name] = first[:-1]
        else:
            return None
    try:
        return tuple(shapes[name] for name in inputs)
    except KeyError:
        return None


class _ShapeWalk:
    """A straight walk of a function body that keeps the concrete shape of each name it can
    follow, and gives a dependent input the shape its first relation says."""

    def __init__(self, shapes: Dict[str, Shape], dependent: set, attributes: Mapping[str, Any]):
        self.shapes = shapes
        self.env: Dict[str, Shape] = dict(shapes)
        self.dependent = dependent
        self.attributes = attributes

    def block(self, body: Sequence[ast.stmt]) -> None:
        for stmt in body:
            self.statement(stmt)

    def statement(self, stmt: ast.stmt) -> None:
        if isinstance(stmt, ast.Assign):
            shape = self.shape(stmt.value)
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    self._bind(target.id, shape)
                else:  # `x, y = F.split(x, ...)`: what the names held is gone
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name):
                            self._bind(name.id, None)
        elif isinstance(stmt, (ast.AugAssign, ast.AnnAssign)) and stmt.value is not None:
            shape = self.shape(stmt.value)
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                self._bind(stmt.target.id, shape)
        elif isinstance(stmt, (ast.Expr, ast.Return)) and stmt.value is not None:
            self.shape(stmt.value)
        elif isinstance(stmt, ast.If):
            self.shape(stmt.test)
            self.block(stmt.body)
            self.block(stmt.orelse)
        elif isinstance(stmt, (ast.For, ast.While, ast.With, ast.Try)):
            targets = [stmt.target] if isinstance(stmt, ast.For) else []
            if isinstance(stmt, ast.With):
                targets = [i.optional_vars for i in stmt.items if i.optional_vars is not None]
            for name in (n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                self._bind(name.id, None)
            for field in ("body", "orelse", "finalbody"):
                self.block(getattr(stmt, field, []))
            for handler in getattr(stmt, "handlers", []):
                self.block(handler.body)

    def _bind(self, name: str, shape: Optional[Shape]) -> None:
        if name in self.dependent and name not in self.shapes:
            return  # an input rebound before its relation is read: keep looking
        if shape is None:
            self.env.pop(name, None)
        else:
            self.env[name] = shape

    def _relate(self, node: Optional[ast.expr], shape: Optional[Shape]) -> None:
        if (
            shape is not None
            and isinstance(node, ast.Name)
            and node.id in self.dependent
            and node.id not in self.shapes
        ):
            self.shapes[node.id] = shape
            self.env[node.id] = shape

    def shape(self, node: ast.expr) -> Optional[Shape]:
        if isinstance(node, ast.Name):
            return self.env.get(node.id)
        if isinstance(node, ast.BinOp):
            left, right = self.shape(node.left), self.shape(node.right)
            if left is None or right is None:
                return left or right if _scalar(node.left) or _scalar(node.right) else None
            return _broadcast(left, right)
        if isinstance(node, ast.Compare) and len(node.comparators) == 1:
            return self.shape(ast.BinOp(node.left, ast.Add(), node.comparators[0]))
        if isinstance(node, ast.UnaryOp):
            return self.shape(node.operand)
        if isinstance(node, ast.Call):
            return self.call(node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.shape(child)  # relations inside (a call in a subscript, a tuple)
        return None

    def call(self, call: ast.Call) -> Optional[Shape]:
        args = _positional(call)
        shapes = [self.shape(a) for a in args]
        for keyword in call.keywords:
            self.shape(keyword.value)
        op = _op_name(call)
        data = shapes[0] if shapes else None
        if _child_call(call):
            for other in call.args[1:]:
                self._relate(other, data)
            return None
        if data is None:
            return None
        if op == "pick":
            axis = _axis(self._int(_argument(call, args, 2, "axis"), -1), len(data))
            if axis is None:
                return None
            rest = data[:axis] + data[axis + 1 :]
            self._relate(_argument(call, args, 1, "index"), rest)
            keep = self._value(_keyword(call, "keepdims"), False)
            return data[:axis] + (1,) + data[axis + 1 :] if keep else rest
        if op == "SequenceMask":
            axis = self._int(_keyword(call, "axis"), 0)
            if axis in (0, 1) and len(data) > 1:
                self._relate(_argument(call, args, 1, "sequence_length"), (data[1 - axis],))
            return data
        if op == "slice_axis":
            return self._slice_axis(call, args, data)
        if op == "expand_dims":
            axis = self._int(_argument(call, args, 1, "axis"), None)
            if axis is None:
                return None
            at = axis if axis >= 0 else len(data) + 1 + axis
            return data[:at] + (1,) + data[at:] if 0 <= at <= len(data) else None
        if op == "squeeze":
            given = _argument(call, args, 1, "axis")
            if given is None:
                return tuple(d for d in data if d != 1)
            kept = _axis(self._int(given, None), len(data))
            return data[:kept] + data[kept + 1 :] if kept is not None and data[kept] == 1 else None
        if op in _KEEP_SHAPE:
            return data
        return None

    def _slice_axis(self, call: ast.Call, args: List[ast.expr], data: Shape) -> Optional[Shape]:
        axis = _axis(self._int(_argument(call, args, 1, "axis"), None), len(data))
        begin = self._int(_argument(call, args, 2, "begin"), None)
        end_node = _argument(call, args, 3, "end")
        end = None if _is_none(end_node) else self._int(end_node, None)
        if axis is None or begin is None or (end is None and not _is_none(end_node)):
            return None
        size = data[axis]
        stop = size if end is None else (end if end >= 0 else size + end)
        start = begin if begin >= 0 else size + begin
        if not 0 <= start < stop <= size:
            return None
        return data[:axis] + (stop - start,) + data[axis + 1 :]

    def _value(self, node: Optional[ast.expr], default: Any) -> Any:
        if node is None:
            return default
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self._value(node.operand, None)
            return -inner if isinstance(inner, (int, float)) else None
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            return self.attributes.get(node.attr)
        return None

    def _int(self, node: Optional[ast.expr], default: Optional[int]) -> Optional[int]:
        value = self._value(node, default)
        return value if isinstance(value, int) and not isinstance(value, bool) else None


def _op_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _method_call(call: ast.Call) -> bool:
    """`a.pick(i)`: the array is the receiver, not `F.pick(a, i)`'s first argument."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and not (isinstance(func.value, ast.Name) and func.value.id in ("F", "mx", "nd", "sym"))
        and not isinstance(func.value, ast.Attribute)
    )


def _child_call(call: ast.Call) -> bool:
    """`self.<child>(...)`: a child block (or a method) of the block."""
    func = call.func
    return (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
        and len(call.args) > 1
    )


def _positional(call: ast.Call) -> List[ast.expr]:
    """The call's array-first positional arguments: `a.pick(i)` as `pick(a, i)`."""
    args = [a for a in call.args if not isinstance(a, ast.Starred)]
    if _method_call(call) and not _child_call(call) and isinstance(call.func, ast.Attribute):
        return [call.func.value] + args
    return args


def _argument(
    call: ast.Call, args: List[ast.expr], position: int, keyword: str
) -> Optional[ast.expr]:
    found = _keyword(call, keyword)
    if found is not None:
        return found
    return args[position] if position < len(args) else None


def _keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _axis(axis: Optional[int], rank: int) -> Optional[int]:
    if axis is None:
        return None
    at = axis if axis >= 0 else rank + axis
    return at if 0 <= at < rank else None


def _is_none(node: Optional[ast.expr]) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _scalar(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float))


def _broadcast(left: Shape, right: Shape) -> Optional[Shape]:
    """numpy's broadcast of two shapes (NDArray arithmetic broadcasts eagerly), None when
    they do not broadcast."""
    try:
        return tuple(np.broadcast_shapes(left, right))
    except ValueError:
        return None
