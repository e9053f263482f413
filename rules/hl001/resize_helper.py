"""Resize sizes that a helper method computes from the input's shape: HL001 rewrite (issue 20).

gluoncv2's `InterpolationBlock` (used by BiSeNet, LEDNet, CGNet, DABNet...) resizes with
`F.contrib.BilinearResize2D(x, height=out_size[0], width=out_size[1])`, where
`out_size = self.calc_out_size(x) if size is None else size` and the helper returns
`tuple(s * self.scale_factor for s in x.shape[2:])`. A Symbol has no shape, but the resize
has a scale mode that reads the input's own size in the graph:
`BilinearResize2D(x, scale_height=k, scale_width=k)` gives height `int(k * x.shape[2])`.

- **The pattern**: a method `def m(self, p)` whose return values feed, through one name `S`
  (`S = self.m(t)` or `S = self.m(t) if C else E`), only `height=S[0], width=S[1]` of one
  `F.contrib.BilinearResize2D(t, ...)` of the same tensor t. A return of
  `tuple(s * k for s in p.shape[2:])` (also a list comprehension, `k * s`, or the literal
  `(p.shape[2] * k, p.shape[3] * k)`; k an int literal, a name or `self.<attr>`) becomes
  `dict(scale_height=k, scale_width=k)`; every other return R and the other branch E become
  `dict(height=R[0], width=R[1])` (a name or attribute) or `dict(zip(('height', 'width'), R))`,
  and the call `F.contrib.BilinearResize2D(t, **S)`. The helper keeps its control flow;
  returns that still read the shape otherwise (`s + 1`) are still reported.
- **Exactness** (MXNet 1.9.1, eager and hybridized, in tests/test_fix_resize_scale.py): for an
  integer k the scale mode gives the output size `h * k` (a float32 product of integers below
  2**24 is exact) and the interpolation depends only on the input and output sizes, so values
  and shapes equal the sized call's, up and down to odd sizes; both truncate sizes to int16
  alike. A float k fails in the original (`height` must be an int) and works rewritten, which
  changes only failing code.
- **Downscaling, `s // k`**, becomes `dict(scale_height=1.0 / k, scale_width=1.0 / k)`. MXNet
  truncates the float32 product `h * float32(1 / k)`: that is `h // k` for every int k from 1
  to 32 and every h up to 4096 (checked exhaustively on MXNet 1.9.1; always for a power of
  two), but not for every k beyond (k=41, h=41 gives 0 rows, not 1). Real downscales are by 2,
  4 or 8, and the fix is unsafe: `--verify` runs it on the block's examples.
- **Safety: unsafe.** The helper now returns keyword arguments, not sizes, and a public method
  may have callers outside the module; a non-literal k might be a bool, which `height=` takes
  and `scale_height=` rejects. The helper must be called once in its module and its parameter,
  the resized tensor and S never assigned again.
"""

from __future__ import annotations

from typing import Iterator, List, Optional, Tuple

import libcst as cst

from .._build import call
from ..base import UNSAFE, Edit, Invalid
from ..values import (  # noqa: F401  (variables: read by the resize modules from here)
    literal_int,
    plain_loop,
    self_attribute_name,
    shape_index,
    variables,
    walk_nodes,
)


def resized_data(
    expr: cst.BaseExpression, ns: Optional[str] = None
) -> Optional[cst.BaseExpression]:
    """The data of `<ns>.contrib.BilinearResize2D(data, ...)`, given first and by position (any
    namespace when `ns` is None), else None: the call every resize rewrite of HL001 looks for,
    each then reading the size arguments its own pattern takes."""
    if not isinstance(expr, cst.Call):
        return None
    func = expr.func
    if not (
        isinstance(func, cst.Attribute)
        and func.attr.value == "BilinearResize2D"
        and isinstance(func.value, cst.Attribute)
        and func.value.attr.value == "contrib"
        and (
            ns is None or (isinstance(func.value.value, cst.Name) and func.value.value.value == ns)
        )
        and expr.args
        and not expr.args[0].keyword
        and not expr.args[0].star
    ):
        return None
    return expr.args[0].value


def top_statements(
    function: cst.FunctionDef,
) -> Iterator[Tuple[cst.SimpleStatementLine, cst.BaseSmallStatement]]:
    """(line, statement) of each line of the function's own body that holds one statement."""
    body = function.body.body if isinstance(function.body, cst.IndentedBlock) else ()
    for line in body:
        if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1:
            yield line, line.body[0]


_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def plan_helper_resize(rule, node: cst.Attribute) -> Optional[Tuple[Tuple[Edit, ...], str]]:
    """(edits, safety) when `node` (a `p.shape` in a helper method) is read by a return that
    sizes a resize of the same tensor in the caller (module docstring), else None."""
    facts = rule.facts
    if facts is None or facts.kind != "helper_method" or facts.klass is None:
        return None
    helper = facts.node
    param = _single_parameter(helper)
    if param is None or not (isinstance(node.value, cst.Name) and node.value.value == param):
        return None
    returns = [n for n in walk_nodes(helper.body, _SCOPES) if isinstance(n, cst.Return)]
    values = [r.value for r in returns if r.value is not None]
    if not returns or len(values) != len(returns) or _assigned(helper.body, param):
        return None
    scales = [_scale(v, param) for v in values]
    mine = [k for v, k in zip(values, scales) if any(n is node for n in walk_nodes(v))]
    if len(mine) != 1 or mine[0] is None:
        return None
    site = _call_site(rule, helper.name.value)
    if site is None:
        return None
    edits: List[Edit] = list(site)
    for value, k in zip(values, scales):
        if k is not None:
            edits.append((value, call("dict", keywords=[("scale_height", k), ("scale_width", k)])))
        else:
            edits.append((value, _sizes(value)))
    return tuple(edits), UNSAFE


def _single_parameter(helper: cst.FunctionDef) -> Optional[str]:
    """p of `def m(self, p)` (no defaults, no *args/**kwargs, no decorators), else None."""
    params = helper.params
    if (
        helper.decorators
        or len(params.params) != 2
        or params.posonly_params
        or params.kwonly_params
        or not isinstance(params.star_arg, cst.MaybeSentinel)
        or params.star_kwarg is not None
        or params.params[1].default is not None
    ):
        return None
    return params.params[1].name.value


def _assigned(body: cst.CSTNode, name: str) -> bool:
    """Whether `name` is bound anywhere under body."""
    return bindings(body, name) > 0


def _pure(expr: cst.BaseExpression) -> bool:
    """An int literal, a name or `self.<attr>`: read twice, it is the same value."""
    if literal_int(expr) is not None:
        return True
    return isinstance(expr, cst.Name) or self_attribute_name(expr) is not None


def shape_tail(expr: cst.BaseExpression) -> Optional[cst.Attribute]:
    """The `x.shape` node of `x.shape[2:]` (the spatial size of an NCHW input), else None."""
    if not (
        isinstance(expr, cst.Subscript)
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Slice)
        and isinstance(expr.value, cst.Attribute)
        and expr.value.attr.value == "shape"
    ):
        return None
    part = expr.slice[0].slice
    if (
        part.lower is not None
        and literal_int(part.lower) == 2
        and part.upper is None
        and part.step is None
    ):
        return expr.value
    return None


def _shape_tail(expr: cst.BaseExpression, param: str) -> bool:
    """`p.shape[2:]`."""
    shape = shape_tail(expr)
    return shape is not None and isinstance(shape.value, cst.Name) and shape.value.value == param


def _factor(expr: cst.BaseExpression, operand) -> Optional[cst.BaseExpression]:
    """The scale of `a * k` / `k * a` (k) or `a // k` (`1.0 / k`) where operand(a) holds and k
    is pure, else None."""
    if not isinstance(expr, cst.BinaryOperation):
        return None
    if isinstance(expr.operator, cst.FloorDivide):
        a, k = expr.left, expr.right
        if operand(a) and _pure(k) and not operand(k):
            return cst.BinaryOperation(cst.Float("1.0"), cst.Divide(), k)
        return None
    if not isinstance(expr.operator, cst.Multiply):
        return None
    for a, k in ((expr.left, expr.right), (expr.right, expr.left)):
        if operand(a) and _pure(k) and not operand(k):
            return k
    return None


def _scale(expr: cst.BaseExpression, param: str) -> Optional[cst.BaseExpression]:
    """The scale when expr is `tuple(s * k for s in p.shape[2:])`, `[s * k for s in
    p.shape[2:]]` or `(p.shape[2] * k, p.shape[3] * k)` (the same k; `//` for `*`: see
    _factor), else None."""
    comp: Optional[cst.BaseExpression] = None
    if (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Name)
        and expr.func.value in ("tuple", "list")
        and len(expr.args) == 1
        and not expr.args[0].keyword
        and not expr.args[0].star
    ):
        comp = expr.args[0].value
    elif isinstance(expr, cst.ListComp):
        comp = expr
    if isinstance(comp, (cst.GeneratorExp, cst.ListComp)):
        loop = comp.for_in
        var = plain_loop(loop)
        if var is None or not _shape_tail(loop.iter, param):
            return None
        return _factor(comp.elt, lambda a: isinstance(a, cst.Name) and a.value == var)
    if isinstance(expr, cst.Tuple) and len(expr.elements) == 2:
        factors = []
        for axis, element in zip((2, 3), expr.elements):
            if isinstance(element, cst.StarredElement):
                return None
            factors.append(_factor(element.value, lambda a, i=axis: _dim(a, param) == i))
        first, second = factors
        if first is not None and second is not None and first.deep_equals(second):
            return first
    return None


def _dim(expr: cst.BaseExpression, param: str) -> Optional[int]:
    """k of `p.shape[k]`."""
    found = shape_index(expr)
    if found is None or not isinstance(found[0].value, cst.Name) or found[0].value.value != param:
        return None
    return found[1]


def _sizes(expr: cst.BaseExpression) -> cst.Call:
    """`dict(height=E[0], width=E[1])` for a name or attribute E (read twice, the same),
    else `dict(zip(('height', 'width'), E))` (E evaluated once)."""
    if isinstance(expr, (cst.Name, cst.Attribute)):
        return call(
            "dict",
            keywords=[
                (
                    "height",
                    cst.Subscript(expr, [cst.SubscriptElement(cst.Index(cst.Integer("0")))]),
                ),
                ("width", cst.Subscript(expr, [cst.SubscriptElement(cst.Index(cst.Integer("1")))])),
            ],
        )
    keys = cst.Tuple(
        [cst.Element(cst.SimpleString("'height'")), cst.Element(cst.SimpleString("'width'"))]
    )
    return call("dict", [call("zip", [keys, expr])])


def _is_helper_call(expr: cst.BaseExpression, name: str) -> bool:
    return (
        isinstance(expr, cst.Call)
        and isinstance(expr.func, cst.Attribute)
        and isinstance(expr.func.value, cst.Name)
        and expr.func.value.value == "self"
        and expr.func.attr.value == name
    )


def _call_site(rule, name: str) -> Optional[List[Edit]]:
    """The edits at the one call of `self.<name>(t)` in the class's hybrid_forward: its
    assignment's other branch and the resize it sizes; None when the helper is referenced
    anywhere else in the module or the flow is not the pattern."""
    facts = rule.facts
    module = facts.module
    bodies = [fn for klass in module.classes.values() for fn in klass.methods.values()]
    bodies += list(module.functions.values())
    bodies += [fn for fn in facts.klass.methods.values() if fn not in bodies]
    refs = [
        (fn, n)
        for fn in bodies
        for n in walk_nodes(fn)
        if isinstance(n, cst.Attribute) and n.attr.value == name
    ]
    forward = facts.klass.methods.get("hybrid_forward")
    if forward is None or len(refs) != 1 or refs[0][0] is not forward:
        return None
    assign = _assignment(forward, name)
    if assign is None:
        return None
    statement, target, helper_call = assign
    if len(helper_call.args) != 1 or helper_call.args[0].keyword or helper_call.args[0].star:
        return None
    data = helper_call.args[0].value
    if not isinstance(data, cst.Name) or _assigned(forward.body, data.value):
        return None
    loads = [
        n
        for n in variables(forward.body)
        if n.value == target and n is not statement.targets[0].target
    ]
    resize = _resize_of(forward, target, data.value)
    if resize is None or len(loads) != 2 or bindings(forward.body, target) != 1:
        return None
    edits: List[Edit] = []
    value = statement.value
    if isinstance(value, cst.IfExp):
        other = value.orelse if value.body is helper_call else value.body
        edits.append((other, _sizes(other)))
    args = [a for a in resize.args if not (a.keyword and a.keyword.value in ("height", "width"))]
    args.append(cst.Arg(value=cst.Name(target), star="**"))
    args[-2] = args[-2].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    edits.append((resize, resize.with_changes(args=args)))
    return edits


def bindings(body: cst.CSTNode, name: str) -> int:
    """How many targets under body bind `name` (assignment, for, with, walrus, del)."""
    count = 0
    for n in walk_nodes(body):
        targets: List[cst.CSTNode] = []
        if isinstance(n, cst.Assign):
            targets = [t.target for t in n.targets]
        elif isinstance(n, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            targets = [n.target]
        elif isinstance(n, cst.AsName):
            targets = [n.name]
        elif isinstance(n, cst.Del):
            targets = [n.target]
        count += sum(t.value == name for tg in targets for t in variables(tg))
    return count


def _assignment(forward: cst.FunctionDef, name: str) -> Optional[Tuple[cst.Assign, str, cst.Call]]:
    """(statement, S, the helper call) of `S = self.<name>(t)` or
    `S = self.<name>(t) if C else E` (either branch)."""
    for n in walk_nodes(forward.body, _SCOPES):
        if not (
            isinstance(n, cst.Assign)
            and len(n.targets) == 1
            and isinstance(n.targets[0].target, cst.Name)
        ):
            continue
        value = n.value
        if _is_helper_call(value, name):
            assert isinstance(value, cst.Call)
            return n, n.targets[0].target.value, value
        if isinstance(value, cst.IfExp):
            for branch, other in ((value.body, value.orelse), (value.orelse, value.body)):
                if _is_helper_call(branch, name) and not _is_helper_call(other, name):
                    assert isinstance(branch, cst.Call)
                    return n, n.targets[0].target.value, branch
    return None


def _resize_of(forward: cst.FunctionDef, target: str, data: str) -> Optional[cst.Call]:
    """The `<F>.contrib.BilinearResize2D(data, height=S[0], width=S[1], ...)` call."""
    for n in walk_nodes(forward.body, _SCOPES):
        first = resized_data(n)
        if not (isinstance(first, cst.Name) and first.value == data):
            continue
        assert isinstance(n, cst.Call)
        if any(a.star for a in n.args):
            continue
        keys = {a.keyword.value: a.value for a in n.args if a.keyword}
        if (
            set(keys) & {"like", "mode", "scale_height", "scale_width"}
            or len(n.args) - len(keys) != 1
        ):
            continue
        if _index_of(keys.get("height"), target) == 0 and _index_of(keys.get("width"), target) == 1:
            return n
    return None


def _index_of(expr: Optional[cst.BaseExpression], target: str) -> Optional[int]:
    """i of `S[i]`."""
    if (
        isinstance(expr, cst.Subscript)
        and isinstance(expr.value, cst.Name)
        and expr.value.value == target
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
    ):
        return literal_int(expr.slice[0].slice.value)
    return None


_EXAMPLE = (
    "class Net(HybridBlock):\n    def __init__(self):\n        super().__init__()\n"
    "        self.k = 2\n\n    def hybrid_forward(self, F, x):\n        size = self._size(x)\n"
    "        return F.contrib.BilinearResize2D(x, {})\n\n"
    "    def _size(self, x):\n        return {}\n"
)
INVALID = [
    Invalid(
        _EXAMPLE.format("height=size[0], width=size[1]", "tuple(s * self.k for s in x.shape[2:])"),
        line=11,
        fix=[
            (
                "F.contrib.BilinearResize2D(x, height=size[0], width=size[1])",
                "F.contrib.BilinearResize2D(x, **size)",
            ),
            (
                "tuple(s * self.k for s in x.shape[2:])",
                "dict(scale_height=self.k, scale_width=self.k)",
            ),
        ],
        safety=UNSAFE,
    ),
    Invalid(
        _EXAMPLE.format("height=size[0], width=size[1]", "tuple(s // self.k for s in x.shape[2:])"),
        line=11,
        fix=[
            (
                "F.contrib.BilinearResize2D(x, height=size[0], width=size[1])",
                "F.contrib.BilinearResize2D(x, **size)",
            ),
            (
                "tuple(s // self.k for s in x.shape[2:])",
                "dict(scale_height=1.0 / self.k, scale_width=1.0 / self.k)",
            ),
        ],
        safety=UNSAFE,
    ),
]
