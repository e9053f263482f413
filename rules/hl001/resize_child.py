"""An input's spatial size passed to a resize: HL001 rewrite (issue 20).

gluoncv2's segmentation nets (CGNet, DABNet, LEDNet, ...) read
`in_size = self.in_size if self.fixed_size else x.shape[2:]` and resize to it, through a
child (`y = self.up(y, in_size)`, an `InterpolationBlock` whose hybrid_forward, given a size,
returns `F.contrib.BilinearResize2D(y, height=size[0], width=size[1])`) or directly
(PSPNet's pyramid branch: `F.contrib.BilinearResize2D(y, height=in_size[0], width=in_size[1])`).
A Symbol has no shape, but the resize has a `like` mode that reads x's size in the graph.

- **The pattern**: in hybrid_forward, a name S bound once, at the top level, to
  `A if C else x.shape[2:]` (or to `x.shape[2:]`), C a plain test (names, `self.<attr>`,
  `is None`, `not`, `and`/`or` of those), and read only by resizes, wherever they are in an
  expression (SCNet's gate `x + self.up(self.down(x), S)`): `self.<c>(u, S)`, where
  `self.<c>` is built in `__init__` as a class of the module whose hybrid_forward
  `(self, F, data, size)`, when `size is not None`, decides its tests and returns
  `F.contrib.BilinearResize2D(data, height=size[0], width=size[1])` (through one name bound
  to size, or `**` of `dict(height=size[0], width=size[1])`, the form the rewrite of resize
  sizes a helper method computes writes); or `F.contrib.BilinearResize2D(u, height=S[0],
  width=S[1])` itself; or `self.<c>(u, S)` where the child's hybrid_forward `(self, F, data,
  size)` works on its data first (gluoncv2's PSPNet, DeepLabv3 and FCN-8s(d) heads: two
  convolutions, then the resize) and reads size once, in a top-level `v =` or `return
  F.contrib.BilinearResize2D(e, height=size[0], width=size[1])`.
- **The rewrite**: each resize R becomes `R if C else F.contrib.BilinearResize2D(u, like=x,
  mode='like')` (the plain form: the like-resize alone; parenthesized inside an expression)
  and the shape branch becomes `None` (the plain binding goes). When x is assigned anywhere
  in the function (pooled before the resize), S keeps x itself where it held x's size, the
  value x had when its size was read, and the like-resizes read S: `like=S`. A child that
  works on its data first is not bypassed: S holds x itself (never None), the call stays, and
  the child's resize R becomes `(R if isinstance(size, (tuple, list)) else
  F.contrib.BilinearResize2D(e, like=size, mode='like'))`: given a size, as before; given the
  tensor, like it.
- **Exactness**: where the original resizes to `x.shape[2:]`, the `like` mode reads axes 2 and
  3 of x, the same sizes (MXNet 1.9.1; see the shape-driven resize above), and the
  interpolation depends only on the sizes; elsewhere the resize runs as before. A caller
  of the edited child that passes a tuple or a list (every caller that worked: a size in any
  other form fails at `height=size[0]` with an array) gets the resize it got.
- **Safety**: safe when every resize is the direct call (C is a plain test: evaluating it twice
  gives the same value and has no effect). Unsafe with a child: it is skipped in that branch
  (its hooks, and a subclass or another block put in `self.<c>` later, would differ).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Dict, List, Optional, Tuple

import libcst as cst

from .._build import call
from .resize_helper import bindings, resized_data, shape_tail, top_statements, variables
from ..base import SAFE, UNSAFE, Edit, Invalid
from ..guards import configuration_fallback
from ..values import bound_targets, literal_int, self_attribute_name, walk_nodes

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)
_SIZE, _SIZES = "size", "sizes"  # a name holding the size / dict(height=size[0], width=size[1])


def plan_child_resize(rule, node: cst.Attribute) -> Optional[Tuple[Tuple[Edit, ...], str]]:
    """(edits, safety) when `node` is the `x.shape` of a size passed to resizing children
    (module docstring), else None. A child that works on its data first is edited by a
    finding of its own (:func:`plan_child_side`): a fix edits one top-level statement."""
    facts = rule.facts
    ns = rule.namespace
    if facts is None or facts.kind != "hybrid_forward" or facts.klass is None or ns is None:
        return None
    return _plan(facts.klass, facts.node, ns, node)


def plan_child_side(rule, node: cst.Call) -> Optional[Tuple[Tuple[Edit, ...], str]]:
    """(edits, safety) when `node` is the resize of a child that works on its data first
    (:func:`resizes_last`) and a block of the module passes it its input's size in a way
    :func:`plan_child_resize` rewrites (the block then passes the input itself): the child's
    half of that rewrite, `R if isinstance(size, (tuple, list)) else <resize like size>`."""
    facts = rule.facts
    ns = rule.namespace
    if facts is None or facts.kind != "hybrid_forward" or facts.klass is None or ns is None:
        return None
    module = facts.klass.module
    if module is None or len(node.args) != 3 or resizes_last(facts.node) is not node:
        return None
    for parent in module.classes.values():
        forward = parent.methods.get("hybrid_forward")
        if forward is None or facts.klass.name not in parent.built_children.values():
            continue
        params = forward.params.params
        if len(params) < 3:
            continue
        for shape in walk_nodes(forward.body, _SCOPES):
            if not (isinstance(shape, cst.Attribute) and shape.attr.value == "shape"):
                continue
            binding = _binding(forward, shape)
            if binding is None or _fallback_untaken(binding[0].value, shape, parent):
                continue
            plan = _plan(parent, forward, params[1].name.value, shape, inner_of=node)
            # (reported even where a `noqa` suppresses it: the parent then writes no half)
            if plan is not None:
                return (_child_edit(node, ns),), UNSAFE
    return None


def _fallback_untaken(value: cst.BaseExpression, shape: cst.Attribute, parent) -> bool:
    """Whether HL001 leaves the parent's `x.shape[2:]` alone: a fallback its block's
    configuration never takes (rules/guards.py), unless an example took it."""
    if not isinstance(value, cst.IfExp):
        return False
    untaken = configuration_fallback(value, parent)
    return untaken is not None and shape_tail(untaken) is shape


def _plan(
    klass, forward: cst.FunctionDef, ns: str, node: cst.Attribute, inner_of=None
) -> Optional[Tuple[Tuple[Edit, ...], str]]:
    """plan_child_resize in `klass`'s `forward`; with `inner_of` (a child's resize), only a
    plan that passes the input to that child."""
    if not isinstance(node.value, cst.Name):
        return None
    data = node.value.value
    binding = _binding(forward, node)
    if binding is None:
        return None
    statement, target, test = binding
    uses = [
        n
        for n in variables(forward.body)
        if n.value == target and n is not statement.targets[0].target
    ]
    calls = _resizing_calls(klass, forward, target, ns, respect_noqa=inner_of is None)
    if inner_of is not None and not any(inner is inner_of for _, _, _, inner in calls or ()):
        return None
    if (
        calls is None
        or not calls
        or sum(len(loads) for _, loads, _, _ in calls) != len(uses)
        or bindings(forward.body, target) != 1
    ):
        return None
    # x assigned anywhere: S holds x itself where it held x's size (its value at the binding)
    captured = bindings(forward.body, data) > 0
    whole = {
        n.value
        for n in walk_nodes(forward.body, _SCOPES)
        if isinstance(n, (cst.Assign, cst.Return)) and n.value is not None
    }
    # a child that works on its data before resizing gets S itself: S must hold a tensor
    keeps_tensor = captured or any(inner is not None for _, _, _, inner in calls)
    like = cst.Name(target) if captured else cst.Name(data)
    edits: List[Edit] = []
    for resize_call, _, _, inner in calls:
        if inner is not None:
            continue  # the child's own finding edits it (plan_child_side)
        resize = call(
            f"{ns}.contrib.BilinearResize2D",
            [resize_call.args[0].value],
            [("like", like), ("mode", cst.SimpleString("'like'"))],
        )
        if test is None:
            edits.append((resize_call, resize))
        else:
            choice = cst.IfExp(test=test, body=resize_call, orelse=resize)
            if resize_call not in whole:  # inside an expression (SCNet's `x + self.up(...)`)
                choice = choice.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            edits.append((resize_call, choice))
    value = statement.value
    if isinstance(value, cst.IfExp):
        shape_branch = value.orelse if _is_tail(value.orelse, node) else value.body
        other = value.body if shape_branch is value.orelse else value.orelse
        if not keeps_tensor and _none_when_none(value.test, other, shape_branch is value.orelse):
            edits.append((value, other))  # `A if A is not None else None` is A
        else:
            edits.append((shape_branch, cst.Name(data if keeps_tensor else "None")))
    elif keeps_tensor:
        edits.append((value, cst.Name(data)))
    else:
        edits.append((statement, cst.RemovalSentinel.REMOVE))
    direct = all(direct for _, _, direct, _ in calls)
    return tuple(edits), SAFE if direct and _stable(forward, test) else UNSAFE


def _commented_noqa(method: cst.FunctionDef, resize: cst.Call) -> bool:
    """Whether the line of the child's resize carries a `noqa` comment (any code: the two
    halves of the rewrite are applied together or not at all)."""
    for line, small in top_statements(method):
        if getattr(small, "value", None) is resize:
            comment = line.trailing_whitespace.comment
            return comment is not None and "noqa" in comment.value.lower()
    return False


def _child_edit(resize: cst.Call, ns: str) -> Edit:
    """The child's `ns.contrib.BilinearResize2D(e, height=size[0], width=size[1])` resizing
    like `size` when size is a tensor (module docstring)."""
    size = cst.ensure_type(resize.args[1].value, cst.Subscript).value
    like = call(
        f"{ns}.contrib.BilinearResize2D",
        [resize.args[0].value],
        [("like", size), ("mode", cst.SimpleString("'like'"))],
    )
    test = call("isinstance", [size, cst.parse_expression("(list, tuple)")], [])
    choice = cst.IfExp(test=test, body=resize, orelse=like)
    return resize, choice.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _stable(forward: cst.FunctionDef, test: Optional[cst.BaseExpression]) -> bool:
    """Whether the test reads the same at the binding and at each resize: none of its names
    (`self` aside) is bound in the function and none of its `self.<attr>` is assigned there."""
    if test is None:
        return True
    attributes = {self_attribute_name(n) for n in walk_nodes(test)} - {None}
    names = {n.value for n in variables(test)} - {"self", "None"}
    if any(bindings(forward.body, name) for name in names):
        return False
    for n in walk_nodes(forward.body, _SCOPES):
        for target in bound_targets(n):
            if self_attribute_name(target) in attributes:
                return False
    return True


def _none_when_none(test: cst.BaseExpression, other: cst.BaseExpression, other_first: bool) -> bool:
    """Whether the test is `A is not None` (`A is None` when A is the else branch) with A the
    other branch: the conditional with None in the shape's place is A itself."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return False
    target = test.comparisons[0]
    wanted = cst.IsNot if other_first else cst.Is
    return (
        isinstance(target.operator, wanted)
        and isinstance(target.comparator, cst.Name)
        and target.comparator.value == "None"
        and test.left.deep_equals(other)
    )


def _is_tail(expr: cst.BaseExpression, shape: cst.Attribute) -> bool:
    """`x.shape[2:]` with this `x.shape` node."""
    return shape_tail(expr) is shape


def _binding(
    forward: cst.FunctionDef, shape: cst.Attribute
) -> Optional[Tuple[cst.Assign, str, Optional[cst.BaseExpression]]]:
    """(statement, S, C) of a top-level `S = A if C else x.shape[2:]` (C None for
    `S = x.shape[2:]`) holding this `x.shape`."""
    for _, statement in top_statements(forward):
        if not (
            isinstance(statement, cst.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0].target, cst.Name)
        ):
            continue
        target = statement.targets[0].target.value
        value = statement.value
        if _is_tail(value, shape):
            return statement, target, None
        if (
            isinstance(value, cst.IfExp)
            and (_is_tail(value.orelse, shape) or _is_tail(value.body, shape))
            and _plain_test(value.test)
        ):
            other = value.body if _is_tail(value.orelse, shape) else value.orelse
            if any(
                isinstance(n, cst.Attribute) and n.attr.value == "shape" for n in walk_nodes(other)
            ):
                return None
            test = value.test
            if _is_tail(value.body, shape):  # `x.shape[2:] if C else A`: the child runs when not C
                test = cst.UnaryOperation(operator=cst.Not(), expression=_parenthesized(test))
            return statement, target, test
    return None


def _parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(expr, (cst.Name, cst.Attribute, cst.UnaryOperation)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def _plain_test(expr: cst.BaseExpression) -> bool:
    """Names, `self.<attr>`, `is (not) None`, `not`, `and`/`or` of those: evaluating it
    twice gives the same value and has no effect."""
    if isinstance(expr, cst.Name):
        return True
    if isinstance(expr, cst.Attribute):
        return isinstance(expr.value, cst.Name) and expr.value.value == "self"
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        return _plain_test(expr.expression)
    if isinstance(expr, cst.BooleanOperation):
        return _plain_test(expr.left) and _plain_test(expr.right)
    if isinstance(expr, cst.Comparison) and len(expr.comparisons) == 1:
        target = expr.comparisons[0]
        return (
            isinstance(target.operator, (cst.Is, cst.IsNot))
            and isinstance(target.comparator, cst.Name)
            and target.comparator.value == "None"
            and _plain_test(expr.left)
        )
    return False


_Resize = Tuple[cst.Call, List[cst.Name], bool, Optional[cst.Call]]


def _resizing_calls(
    klass, forward: cst.FunctionDef, target: str, ns: str, respect_noqa: bool = True
) -> Optional[List[_Resize]]:
    """(call, the loads of S it reads, whether it is the direct resize, the child's own resize
    when the child works on its data first) for each resize to S, wherever it is in an
    expression: `self.<c>(u, S)` with a child resizing to S, or
    `ns.contrib.BilinearResize2D(u, height=S[0], width=S[1])`; None when one is not. (A call
    that reads S in another way is left to the caller's count of S's loads.)"""
    found: List[_Resize] = []
    for value in walk_nodes(forward.body, _SCOPES):
        if not isinstance(value, cst.Call):
            continue
        loads = [v for v in variables(value) if v.value == target]
        if not loads:
            continue
        if _direct_resize(value, target, ns):
            found.append((value, loads, True, None))
            continue
        if not (
            len(value.args) == 2
            and isinstance(value.args[1].value, cst.Name)
            and value.args[1].value.value == target
        ):
            continue
        if any(a.keyword or a.star for a in value.args):
            return None
        if any(v.value == target for v in variables(value.args[0].value)):
            return None  # u reads S too: in the like branch S is None (or x), not the size
        attribute = self_attribute_name(value.func)
        if attribute is None:
            return None
        child = klass.built_children.get(attribute)
        facts = klass.module.classes.get(child) if child and klass.module else None
        method = facts.methods.get("hybrid_forward") if facts is not None else None
        if method is None:
            return None
        if resizes_to_size(method):
            found.append((value, loads, False, None))
            continue
        inner = resizes_last(method)
        if inner is None or (respect_noqa and _commented_noqa(method, inner)):
            return None  # the child's half may be suppressed: never write the parent's alone
        found.append((value, loads, False, inner))
    return found


def _direct_resize(node: cst.Call, target: str, ns: str) -> bool:
    """`ns.contrib.BilinearResize2D(u, height=S[0], width=S[1])`, u not reading S."""
    args = node.args
    if not (args and not args[0].keyword and not args[0].star and len(args) == 3):
        return False
    if any(v.value == target for v in variables(args[0].value)):
        return False
    return _is_resize(
        node.with_changes(args=[cst.Arg(cst.Name("u")), *args[1:]]), {target: _SIZE}, ns, "u"
    )


def _size_signature(method: cst.FunctionDef) -> Optional[Tuple[str, str, str]]:
    """(F, data, size) of `hybrid_forward(self, F, data, size)` with a body of statements."""
    params = method.params.params
    if (
        len(params) != 4
        or not isinstance(method.params.star_arg, cst.MaybeSentinel)
        or method.params.star_kwarg is not None
        or method.params.kwonly_params
        or not isinstance(method.body, cst.IndentedBlock)
    ):
        return None
    ns, data, size = (p.name.value for p in params[1:])
    return ns, data, size


def resizes_to_size(method: cst.FunctionDef) -> bool:
    """Whether `hybrid_forward(self, F, data, size)`, given a size, returns
    `F.contrib.BilinearResize2D(data, height=size[0], width=size[1])` (module docstring)."""
    signature = _size_signature(method)
    if signature is None:
        return False
    ns, data, size = signature
    env: Dict[str, str] = {size: _SIZE}
    return _returns_resize(
        cst.ensure_type(method.body, cst.IndentedBlock).body, env, ns, data, size
    )


@lru_cache(maxsize=16)  # asked for every call of the function (nodes hash by identity)
def resizes_last(method: cst.FunctionDef) -> Optional[cst.Call]:
    """The resize of `hybrid_forward(self, F, data, size)` that works on its data first and
    reads size once, in a top-level `v = ` or `return ns.contrib.BilinearResize2D(e,
    height=size[0], width=size[1])` (module docstring), else None."""
    signature = _size_signature(method)
    if signature is None:
        return None
    ns, _, size = signature
    if bindings(method.body, size) or bindings(method.body, ns):
        return None
    reads = [n for n in variables(method.body) if n.value == size]
    for _, small in top_statements(method):
        value = small.value if isinstance(small, (cst.Assign, cst.Return)) else None
        if isinstance(value, cst.Call) and len(reads) == 2 and _direct_resize(value, size, ns):
            return value  # size[0] and size[1], both read in this call
    return None


def _returns_resize(statements, env: Dict[str, str], ns: str, data: str, size: str) -> bool:
    """Follows the statements with `size is not None` to their return (module docstring)."""
    for statement in statements:
        if isinstance(statement, cst.If):
            taken = _truth(statement.test, size)
            if taken is None:
                return False
            if taken:
                branch = statement.body.body
            elif isinstance(statement.orelse, cst.Else):
                branch = statement.orelse.body.body
            elif isinstance(statement.orelse, cst.If):
                branch = [statement.orelse]
            else:
                continue
            # the taken branch must end in the return itself (no fall-through is followed)
            return _returns_resize(branch, dict(env), ns, data, size)
        if not isinstance(statement, cst.SimpleStatementLine) or len(statement.body) != 1:
            return False
        small = statement.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.SimpleString):
            continue  # a docstring
        if isinstance(small, cst.Assign):
            if len(small.targets) != 1 or not isinstance(small.targets[0].target, cst.Name):
                return False
            env[small.targets[0].target.value] = _kind(small.value, env, size) or "other"
            if small.targets[0].target.value in (data, ns):
                return False
            continue
        if isinstance(small, cst.Return) and small.value is not None:
            return _is_resize(small.value, env, ns, data)
        return False
    return False


def _kind(expr: cst.BaseExpression, env: Dict[str, str], size: str) -> Optional[str]:
    """_SIZE, _SIZES or None for an expression under `size is not None`."""
    if isinstance(expr, cst.IfExp):
        taken = _truth(expr.test, size)
        if taken is None:
            return None
        return _kind(expr.body if taken else expr.orelse, env, size)
    if isinstance(expr, cst.Name):
        return env.get(expr.value)
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value == "dict"
        and len(expr.args) == 2
    ):
        keys = {a.keyword.value: a.value for a in expr.args if a.keyword and not a.star}
        if _index(keys.get("height"), env) == 0 and _index(keys.get("width"), env) == 1:
            return _SIZES
    return None


def _index(expr: Optional[cst.BaseExpression], env: Dict[str, str]) -> Optional[int]:
    """i of `S[i]` for a name S holding the size."""
    if (
        isinstance(expr, cst.Subscript)
        and isinstance(expr.value, cst.Name)
        and env.get(expr.value.value) == _SIZE
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
    ):
        return literal_int(expr.slice[0].slice.value)
    return None


def _is_resize(expr: cst.BaseExpression, env: Dict[str, str], ns: str, data: str) -> bool:
    first = resized_data(expr, ns)
    if not (isinstance(first, cst.Name) and first.value == data):
        return False
    assert isinstance(expr, cst.Call)
    rest = expr.args[1:]
    if len(rest) == 1 and rest[0].star == "**":
        return isinstance(rest[0].value, cst.Name) and env.get(rest[0].value.value) == _SIZES
    keys = {a.keyword.value: a.value for a in rest if a.keyword and not a.star}
    return (
        len(keys) == len(rest) == 2
        and _index(keys.get("height"), env) == 0
        and _index(keys.get("width"), env) == 1
    )


def _truth(test: cst.BaseExpression, size: str) -> Optional[bool]:
    """The test's value when `size is not None` and nothing else is known; None: undecided."""
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        target = test.comparisons[0]
        if (
            isinstance(test.left, cst.Name)
            and test.left.value == size
            and isinstance(target.comparator, cst.Name)
            and target.comparator.value == "None"
        ):
            if isinstance(target.operator, cst.IsNot):
                return True
            if isinstance(target.operator, cst.Is):
                return False
        return None
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        inner = _truth(test.expression, size)
        return None if inner is None else not inner
    if isinstance(test, cst.BooleanOperation) and _plain_test(test):
        left, right = _truth(test.left, size), _truth(test.right, size)
        if isinstance(test.operator, cst.Or):
            return True if True in (left, right) else (False if left is right is False else None)
        return False if False in (left, right) else (True if left is right is True else None)
    return None


_EXAMPLE = (
    "class Up(HybridBlock):\n    def hybrid_forward(self, F, x, size):\n"
    "        return F.contrib.BilinearResize2D(x, height=size[0], width=size[1])\n\n\n"
    "class Net(HybridBlock):\n    def __init__(self, fixed_size=False):\n"
    "        super().__init__()\n        self.fixed_size = fixed_size\n"
    "        self.up = Up()\n\n    def hybrid_forward(self, F, x, y):\n"
    "        size = (4, 4) if self.fixed_size else {}\n        return {}\n"
)
INVALID = [
    Invalid(
        _EXAMPLE.format("x.shape[2:]", "self.up(y, size)"),
        line=13,
        fix=[
            ("x.shape[2:]", "None"),
            (
                "self.up(y, size)",
                (
                    "self.up(y, size) if self.fixed_size else F.contrib.BilinearResize2D(y, "
                    "like=x, mode='like')"
                ),
            ),
        ],
        safety=UNSAFE,
    ),
    # the child's resize inside an expression (SCNet's ScConv gate): parenthesized
    Invalid(
        _EXAMPLE.format("x.shape[2:]", "F.sigmoid(x + self.up(y, size))"),
        line=13,
        fix=[
            ("x.shape[2:]", "None"),
            (
                "self.up(y, size)",
                (
                    "(self.up(y, size) if self.fixed_size else F.contrib.BilinearResize2D(y, "
                    "like=x, mode='like'))"
                ),
            ),
        ],
        safety=UNSAFE,
    ),
    # a child that works on its data before resizing (PSPNet's head): the parent passes x
    # itself, and the child's resize (its own finding, reported first) resizes like it
    Invalid(
        _EXAMPLE.replace(
            "        return F.contrib.BilinearResize2D(x, height=size[0], width=size[1])\n",
            "        x = F.relu(x)\n"
            "        return F.contrib.BilinearResize2D(x, height=size[0], width=size[1])\n",
        ).format("x.shape[2:]", "self.up(y, size)"),
        line=4,
        fix=[
            (
                "F.contrib.BilinearResize2D(x, height=size[0], width=size[1])",
                (
                    "(F.contrib.BilinearResize2D(x, height=size[0], width=size[1]) if "
                    "isinstance(size, (list, tuple)) else F.contrib.BilinearResize2D(x, "
                    "like=size, mode='like'))"
                ),
            ),
            ("x.shape[2:]", "x"),
        ],
        safety=UNSAFE,
    ),
    # x pooled after its size is read: the name keeps x itself (LEDNet's PoolingBranch)
    Invalid(
        _EXAMPLE.format("x.shape[2:]\n        x = F.relu(x)", "self.up(x, size)"),
        line=13,
        fix=[
            ("x.shape[2:]", "x"),
            (
                "self.up(x, size)",
                (
                    "self.up(x, size) if self.fixed_size else F.contrib.BilinearResize2D(x, "
                    "like=size, mode='like')"
                ),
            ),
        ],
        safety=UNSAFE,
    ),
]
