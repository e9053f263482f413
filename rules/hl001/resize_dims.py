"""An input's height and width unpacked from its shape, read only by resizes: HL001 rewrite.

gluoncv 0.3's `_PyramidPooling` (PSPNet's pyramid) reads `_, _, h, w = x.shape` and resizes
each pooled branch back with `self.upsample(F, t, h, w)`, a method that returns
`F.contrib.BilinearResize2D(t, height=h, width=w)`. A Symbol has no shape, but the resize has
a `like` mode that reads x's size in the graph.

- **The pattern**: in hybrid_forward, a top-level `a, b, h, w = x.shape` (four names; the first
  two unread), x not assigned before it, and h and w read only as the sizes of resizes:
  `F.contrib.BilinearResize2D(t, height=h, width=w)`, or `self.m(F, t, h, w)` where the
  class's method `m(self, F, data, h, w)` only returns
  `F.contrib.BilinearResize2D(data, height=h, width=w)`.
- **The rewrite**: each resize becomes `F.contrib.BilinearResize2D(t, like=x, mode='like')`,
  and the unpacking goes. When x, an input, is assigned after the unpacking (ALCNet's
  `x = self.head(...)` before the resize back to the input's size), the unpacking becomes
  `x_in = x` and the resizes read `like=x_in`: the array whose size the unpacking read (an
  NDArray's shape never changes in place). Not when `x_in` is a name the function has.
- **Exactness**: the `like` mode reads axes 2 and 3 of x, the sizes h and w were (MXNet 1.9.1,
  as for the resize-child rewrite), and the interpolation depends only on the sizes.
- **Safety**: safe when every resize is the direct call; unsafe through the method, which the
  rewrite no longer calls (a subclass overriding it would differ).
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import libcst as cst

from .._build import call
from ..base import SAFE, UNSAFE, Edit, Invalid
from ..values import bound_targets, self_attribute_name, target_names, walk_nodes
from .resize_helper import resized_data, top_statements, variables

_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def plan_unpacked_resize(rule, node: cst.Attribute) -> Optional[Tuple[Tuple[Edit, ...], str]]:
    """(edits, safety) when `node` is the `x.shape` of such an unpacking (module docstring)."""
    facts = rule.facts
    ns = rule.namespace
    if facts is None or facts.kind != "hybrid_forward" or facts.klass is None or ns is None:
        return None
    if not isinstance(node.value, cst.Name):
        return None
    data = node.value.value
    forward = facts.node
    found = _unpacking(forward, node)
    if found is None:
        return None
    line, names, starred = found
    if any(_assigned(forward, n) > 1 for n in names[-2:]):
        return None
    like, keep = data, None
    if _assigned(forward, data):
        # x rebound after the unpacking (`x = self.stem(x)`): the array whose size the
        # unpacking read stays under a name of its own, `x_in = x`, which the resizes read
        like = f"{data}_in"
        if not _rebound_after(forward, data, line) or like in _names(forward):
            return None
        keep = line.with_changes(
            body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(like))], value=cst.Name(data))]
        )
    # the names' loads (the unpacking stores each as often as it lists it: `_, _`)
    seen = [v.value for v in variables(forward.body)]
    reads = {n: seen.count(n) - names.count(n) for n in names}
    if any(reads[n] for n in names[:-2]):
        return None
    height, width = names[-2], names[-1]
    resizes = []
    for expr in walk_nodes(forward.body, _SCOPES):
        if isinstance(expr, cst.Call):
            target = _resized(expr, height, width, ns, facts.klass)
            if target is not None:
                resizes.append((expr, target))
    if not resizes or reads[height] + reads[width] != 2 * len(resizes):
        return None
    edits: List[Edit] = [(line, cst.RemovalSentinel.REMOVE if keep is None else keep)]
    direct = True
    for expr, (tensor, through_method) in resizes:
        direct = direct and not through_method
        resize = call(
            f"{ns}.contrib.BilinearResize2D",
            [tensor],
            [("like", cst.Name(like)), ("mode", cst.SimpleString("'like'"))],
        )
        edits.append((expr, resize))
    shape = rule.value(node.value).shape
    four = shape is not None and len(shape) == 4
    return tuple(edits), SAFE if direct and (four or not starred) else UNSAFE


def _unpacking(
    forward: cst.FunctionDef, shape: cst.Attribute
) -> Optional[Tuple[cst.SimpleStatementLine, List[str], bool]]:
    """(line, the names, starred) of a top-level `a, b, h, w = x.shape` holding this node, or
    of `*_, h, w = x.shape` (starred: h and w are the last two axes, the axes 2 and 3 the
    `like` mode reads only when x has rank 4, which the caller checks)."""
    for line, statement in top_statements(forward):
        if not (
            isinstance(statement, cst.Assign)
            and statement.value is shape
            and len(statement.targets) == 1
            and isinstance(statement.targets[0].target, (cst.Tuple, cst.List))
        ):
            continue
        elements = statement.targets[0].target.elements
        names = [e.value.value for e in elements if isinstance(e.value, cst.Name)]
        starred = isinstance(elements[0], cst.StarredElement) if elements else False
        if len(names) == len(elements) == (3 if starred else 4) and len(set(names[-2:])) == 2:
            return line, names, starred
    return None


def _rebound_after(forward: cst.FunctionDef, name: str, line: cst.SimpleStatementLine) -> bool:
    """Whether `name` is an input of the function that only top-level statements after `line`
    bind (so at `line` it is the input, and stays so under another name)."""
    params = forward.params
    inputs = [p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]]
    body = list(forward.body.body) if isinstance(forward.body, cst.IndentedBlock) else []
    if name not in inputs or line not in body:
        return False
    position = body.index(line)
    return not any(
        name in target_names(target)
        for statement in body[: position + 1]
        for node in walk_nodes(statement, _SCOPES)
        for target in bound_targets(node)
    )


def _names(forward: cst.FunctionDef) -> set:
    """Every name the function reads, binds or declares (its parameters included)."""
    return {n.value for n in walk_nodes(forward) if isinstance(n, cst.Name)}


def _assigned(forward: cst.FunctionDef, name: str) -> int:
    """How many times the function binds `name`."""
    count = 0
    for node in walk_nodes(forward.body, _SCOPES):
        for target in bound_targets(node):
            count += sum(
                1 for n in walk_nodes(target) if isinstance(n, cst.Name) and n.value == name
            )
    return count


def _resized(
    expr: cst.Call, height: str, width: str, ns: str, klass
) -> Optional[Tuple[cst.BaseExpression, bool]]:
    """(the resized tensor, whether through a method) for `ns.contrib.BilinearResize2D(t,
    height=h, width=w)` or `self.m(ns, t, h, w)` with such a method m."""
    if _is_resize(expr, ns, height, width):
        return expr.args[0].value, False
    method_name = self_attribute_name(expr.func)
    method = klass.methods.get(method_name) if method_name else None
    args = expr.args
    if (
        method is None
        or len(args) != 4
        or any(a.keyword or a.star for a in args)
        or not (isinstance(args[0].value, cst.Name) and args[0].value.value == ns)
        or not all(isinstance(a.value, cst.Name) for a in args[2:])
        or [a.value.value for a in args[2:]] != [height, width]  # type: ignore[attr-defined]
        or any(isinstance(v, cst.Name) and v.value in (height, width) for v in walk_nodes(args[1]))
    ):
        return None
    params = method.params.params
    if len(params) != 5 or method.params.star_arg is not cst.MaybeSentinel.DEFAULT:
        return None
    m_ns, m_data, m_h, m_w = (p.name.value for p in params[1:])
    body = method.body.body if isinstance(method.body, cst.IndentedBlock) else ()
    statements = [
        s
        for s in body
        if not (
            isinstance(s, cst.SimpleStatementLine)
            and isinstance(s.body[0], cst.Expr)
            and isinstance(s.body[0].value, cst.SimpleString)
        )
    ]
    if not (
        len(statements) == 1
        and isinstance(statements[0], cst.SimpleStatementLine)
        and len(statements[0].body) == 1
        and isinstance(statements[0].body[0], cst.Return)
    ):
        return None
    value = statements[0].body[0].value
    if not (
        isinstance(value, cst.Call)
        and _is_resize(value, m_ns, m_h, m_w)
        and isinstance(value.args[0].value, cst.Name)
        and value.args[0].value.value == m_data
    ):
        return None
    return args[1].value, True


def _is_resize(expr: cst.Call, ns: str, height: str, width: str) -> bool:
    """`ns.contrib.BilinearResize2D(t, height=<height>, width=<width>)`."""
    if resized_data(expr, ns) is None or len(expr.args) != 3:
        return False
    keys = {
        a.keyword.value: a.value.value
        for a in expr.args[1:]
        if a.keyword and isinstance(a.value, cst.Name)
    }
    return keys == {"height": height, "width": width}


_METHOD = (
    "    def upsample(self, F, x, h, w):\n"
    "        return F.contrib.BilinearResize2D(x, height=h, width=w)\n\n"
)
_EXAMPLE = (
    "class Pyramid(HybridBlock):\n"
    "{}"
    "    def hybrid_forward(self, F, x):\n"
    "{}"
    "        y = {}\n"
    "        return F.concat(x, y, dim=1)\n"
)
_UNPACK = "        _, _, h, w = x.shape\n"
_REBOUND = (
    "class Net(HybridBlock):\n"
    "    def hybrid_forward(self, F, x):\n"
    "{}"
    "        x = F.contrib.AdaptiveAvgPooling2D(x, output_size=2)\n"
    "        return {}\n"
)
_POOLED = "F.contrib.AdaptiveAvgPooling2D(x, output_size=2)"
_LIKE = f"F.contrib.BilinearResize2D({_POOLED}, like=x, mode='like')"
INVALID = [
    # gluoncv 0.3's _PyramidPooling: through the method, which the rewrite bypasses
    Invalid(
        _EXAMPLE.format(_METHOD, _UNPACK, f"self.upsample(F, {_POOLED}, h, w)"),
        line=6,
        fixed=_EXAMPLE.format(_METHOD, "", _LIKE),
        safety=UNSAFE,
    ),
    Invalid(
        _EXAMPLE.format("", _UNPACK, f"F.contrib.BilinearResize2D({_POOLED}, height=h, width=w)"),
        line=3,
        fixed=_EXAMPLE.format("", "", _LIKE),
        safety=SAFE,
    ),
    # ALCNet's PCMNet: x rebound before the resize back to its size, kept as `x_in`
    Invalid(
        _REBOUND.format(_UNPACK, "F.contrib.BilinearResize2D(x, height=h, width=w)"),
        line=3,
        fixed=_REBOUND.format(
            "        x_in = x\n", "F.contrib.BilinearResize2D(x, like=x_in, mode='like')"
        ),
        safety=SAFE,
    ),
    # deeplabv3+'s image pooling: the last two axes, which are 2 and 3 only at rank 4
    Invalid(
        _EXAMPLE.format(
            "",
            "        *_, h, w = x.shape\n",
            f"F.contrib.BilinearResize2D({_POOLED}, height=h, width=w)",
        ),
        line=3,
        fixed=_EXAMPLE.format("", "", _LIKE),
        safety=UNSAFE,
    ),
]
