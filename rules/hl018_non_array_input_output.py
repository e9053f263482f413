"""HL018 non-array-input-output: hybrid_forward returns None, or uses an input as a Python value."""

from __future__ import annotations

from typing import Dict, Optional, Set

import libcst as cst

from ._examples import net
from .base import Invalid, Rule, Valid
from .values import dotted_name, last_name, walk_nodes

_PYTHON_ANNOTATIONS = {"bool", "int", "float", "str"}
_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _optional(annotation: Optional[cst.Annotation]) -> bool:
    """`Optional[...]` or `Union[..., None]`: the author expects None."""
    if annotation is None or not isinstance(annotation.annotation, cst.Subscript):
        return False
    sub = annotation.annotation
    head = last_name(sub.value)
    if head == "Optional":
        return True
    return head == "Union" and any(
        isinstance(e.slice, cst.Index)
        and isinstance(e.slice.value, cst.Name)
        and e.slice.value.value == "None"
        for e in sub.slice
    )


def _python_valued(param: cst.Param) -> bool:
    """A literal bool/number/string default, or a bool/int/float/str annotation."""
    default = param.default
    if isinstance(default, cst.Name) and default.value in ("True", "False"):
        return True
    if isinstance(default, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(default, cst.UnaryOperation) and isinstance(
        default.expression, (cst.Integer, cst.Float)
    ):
        return True
    annotation = param.annotation
    return (
        annotation is not None
        and isinstance(annotation.annotation, cst.Name)
        and annotation.annotation.value in _PYTHON_ANNOTATIONS
    )


def _bound_names(body: cst.CSTNode) -> Set[str]:
    """Every plain name the body assigns (outside nested scopes)."""
    names: Set[str] = set()

    def targets(target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            names.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                targets(element.value)
        elif isinstance(target, cst.StarredElement):
            targets(target.value)

    for node in walk_nodes(body, stop=_SCOPES):
        if isinstance(node, cst.AssignTarget):
            targets(node.target)
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor)):
            targets(node.target)
        elif isinstance(node, cst.NamedExpr):
            targets(node.target)
        elif isinstance(node, cst.AsName):
            targets(node.name)
    return names


class NonArrayInputOutput(Rule):
    code = "HL018"
    name = "non-array-input-output"
    message = "a hybridized block's inputs and outputs must be arrays (or None inputs)"
    explanation = """\
Off by default: turn it on with `--select HL018`, `--extend-select HL018` or
`extend-select = ["HL018"]`. It fails only for the block hybridized on its own (or a caller
passing the value): inside a hybridized parent a child's None output or Python-valued input
stays a Python value of the parent's trace, and on real code most reports are such children.

## What it does
In `hybrid_forward` itself, finds
- an output that is None: `return y, None`, or an input that may be None returned untouched
  (its default is None or its annotation `Optional[...]`, and the body never rebinds it);
- an input used only as a Python value (`if flag:`, `not flag`, `a if flag else b`, `flag and
  ...`, `range(n)`) whose default is a literal bool, number or string or whose annotation is
  `bool`/`int`/`float`/`str`, never rebound in the body.

## Why it breaks under hybridize
gluon flattens a hybridized block's outputs into one Symbol group: a None among them raises
`TypeError: Expected a list of symbols as input` when the graph is built (a list or dict
output is refused too). A hybridized block's inputs must be NDArrays (or None): a caller
passing a Python bool or int gets `ValueError: When hybridized, the input of HybridBlock input
must be (nested) list of Symbol or NDArray, but got False of type <class 'bool'>`; an array
passed instead fails at the Python use (`bool()` of a Symbol raises NotImplementedForSymbol,
`range(Symbol)` TypeError). So only the default works hybridized: any value a caller passes
fails.

## Example
```python
def hybrid_forward(self, F, x, scale: Optional[Tensor], is_train: bool = True):
    y = F.relu(x) if is_train else x
    return y, scale
```

## Fix
None automatic: the caller changes. Return only arrays (the caller keeps its None itself);
make a Python-valued input a constructor option (`self._is_train`, set in `__init__`), or
keep one block per value.

## Fix safety
Reported only.
"""

    VALID = [
        Valid(net("return F.relu(x), y", "F, x, y")),
        Valid(net("if y is None:\n    y = F.zeros_like(x)\nreturn x, y", "F, x, y=None")),
        Valid(net("return F.relu(x)", "F, x, is_train=True")),
        Valid(net("if is_train:\n    is_train = F.ones_like(x)\nreturn x", "F, x, is_train=True")),
        Valid(net("if mask is not None:\n    x = x * mask\nreturn x", "F, x, mask=None")),
    ]
    INVALID = [
        Invalid(net("return F.relu(x), None"), line=3),
        Invalid(net("y = F.relu(x)\nreturn y, cache", "F, x, cache=None"), line=4),
        Invalid(
            net("return F.relu(x), scale", "F, x, scale: Optional[int]"),
            line=3,
        ),
        Invalid(net("y = x * 2 if not is_train else x\nreturn y", "F, x, is_train=True"), line=3),
        Invalid(
            net(
                "for _ in range(steps):\n    x = F.relu(x)\nreturn x",
                "F, x, steps: int = 2",
            ),
            line=3,
        ),
    ]

    def __init__(self, state=None) -> None:
        super().__init__(state)
        self._function: Optional[cst.FunctionDef] = None
        self._may_be_none: Set[str] = set()
        self._python: Dict[str, cst.Param] = {}
        self._reported: Set[str] = set()

    def _prepare(self) -> bool:
        facts = self.facts
        if facts is None or facts.kind != "hybrid_forward":
            return False
        if facts.node is not self._function:
            self._function, self._reported = facts.node, set()
            params = facts.node.params
            candidates = list(params.params[2:]) + list(params.kwonly_params)
            bound = _bound_names(facts.node.body) if candidates else set()
            self._may_be_none = {
                p.name.value
                for p in candidates
                if p.name.value not in bound
                and (
                    (isinstance(p.default, cst.Name) and p.default.value == "None")
                    or _optional(p.annotation)
                )
            }
            self._python = {
                p.name.value: p
                for p in candidates
                if p.name.value not in bound and _python_valued(p)
            }
        return True

    # -- outputs ---------------------------------------------------------------------------
    def visit_Return(self, node: cst.Return) -> None:
        if node.value is None or not self._prepare():
            return
        value = node.value
        elements = (
            [e.value for e in value.elements]
            if isinstance(value, (cst.Tuple, cst.List))
            and all(isinstance(e, cst.Element) for e in value.elements)
            else [value]
        )
        for element in elements:
            if not isinstance(element, cst.Name):
                continue
            if element.value == "None":
                what = "None"
            elif element.value in self._may_be_none:
                what = f"input `{element.value}`, which may be None (never rebound),"
            else:
                continue
            self.report(
                element,
                f"hybrid_forward returns {what} as an output: hybridized, gluon cannot put "
                "None in the graph's outputs (TypeError: Expected a list of symbols as "
                "input); return only arrays and let the caller keep the None",
            )

    # -- inputs used as Python values ------------------------------------------------------
    def _python_use(self, expr: Optional[cst.BaseExpression], how: str) -> None:
        if not isinstance(expr, cst.Name) or not self._prepare():
            return
        name = expr.value
        if name not in self._python or name in self._reported:
            return
        self._reported.add(name)
        self.report(
            expr,
            f"input `{name}` is used as a Python value ({how}): hybridized, gluon refuses a "
            "bool/int/str input (ValueError: the input of HybridBlock must be (nested) list "
            "of Symbol or NDArray) and an array fails here too, so only the default works; "
            f"make `{name}` a constructor option (self.{name}) instead of an input",
        )

    def visit_If(self, node: cst.If) -> None:
        self._python_use(node.test, "an `if` test")

    def visit_While(self, node: cst.While) -> None:
        self._python_use(node.test, "a `while` test")

    def visit_IfExp(self, node: cst.IfExp) -> None:
        self._python_use(node.test, "a conditional expression's test")

    def visit_UnaryOperation(self, node: cst.UnaryOperation) -> None:
        if isinstance(node.operator, cst.Not):
            self._python_use(node.expression, "`not`")

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> None:
        self._python_use(node.left, "`and`/`or`")
        self._python_use(node.right, "`and`/`or`")

    def visit_Call(self, node: cst.Call) -> None:
        if dotted_name(node.func) == "range":
            for arg in node.args:
                self._python_use(arg.value, "`range(...)`")
