"""HL018 non-array-input-output: hybrid_forward returns None, or uses an input as a Python value."""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from ._examples import net
from .analysis import ClassFacts
from .base import Invalid, Rule, Valid
from ..mxnet_facts import attribute_keywords
from ..project import ARRAY_KINDS
from .values import dotted_name, last_name, namespace_call, target_names, walk_nodes

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


def _none_test(test: cst.BaseExpression) -> Optional[str]:
    """`if n is None:`: the name `n`."""
    if (
        isinstance(test, cst.Comparison)
        and isinstance(test.left, cst.Name)
        and len(test.comparisons) == 1
        and isinstance(test.comparisons[0].operator, cst.Is)
        and isinstance(test.comparisons[0].comparator, cst.Name)
        and test.comparisons[0].comparator.value == "None"
    ):
        return test.left.value
    return None


def _bound_names(body: cst.CSTNode, none_filled: bool = False) -> Set[str]:
    """Every plain name the body assigns (outside nested scopes). With `none_filled`, not a
    name assigned only under `if n is None:` (a None default filled in: a value the caller
    passes still reaches the uses after it)."""
    names: Set[str] = set()
    filled: Set[cst.CSTNode] = set()
    if none_filled:
        for node in walk_nodes(body, stop=_SCOPES):
            if isinstance(node, cst.If) and _none_test(node.test) is not None:
                name = _none_test(node.test)
                for inner in walk_nodes(node.body, stop=_SCOPES):
                    if isinstance(inner, cst.AssignTarget) and (
                        isinstance(inner.target, cst.Name) and inner.target.value == name
                    ):
                        filled.add(inner)

    for node in walk_nodes(body, stop=_SCOPES):
        if isinstance(node, cst.AssignTarget):
            if node not in filled:
                names.update(target_names(node.target))
        elif isinstance(node, (cst.AugAssign, cst.AnnAssign, cst.For, cst.CompFor, cst.NamedExpr)):
            names.update(target_names(node.target))
        elif isinstance(node, cst.AsName):
            names.update(target_names(node.name))
    return names


def _inputs(function: cst.FunctionDef) -> List[cst.Param]:
    """hybrid_forward's positional inputs after `self, F` (positional-only ones too)."""
    return [*function.params.posonly_params, *function.params.params][2:]


def _label(name: str, number: int, count: int) -> str:
    """An example as --verify names it: `Net`, or `Net#2` of several."""
    return name if count == 1 else f"{name}#{number}"


class NonArrayInputOutput(Rule):
    code = "HL018"
    name = "non-array-input-output"
    message = "a hybridized block's inputs and outputs must be arrays (or None inputs)"
    explanation = """\
Off by default: turn it on with `--select HL018`, `--extend-select HL018` or
`extend-select = ["HL018"]`. It fails only for the block hybridized on its own (or a caller
passing the value): inside a hybridized parent a child's None output or Python-valued input
stays a Python value of the parent's trace, and on real code most reports are such children.
That holds for inputs with no default too: sockeye's DotAttentionCell takes its required `heads`
as an operator attribute and works, because its parents pass an int inside their own traces.
On a block with configured examples (`[tool.hybridlint.examples]`), which say how it is called
on its own, it reports by default what they prove: an input an example passes as a Python
int/float/bool/str, a None that the only `return` of the body gives back on an example's call
(not for a block with its own `forward`, a registered parameter, or a class name the module
defines twice or only nested).

## What it does
In `hybrid_forward` itself, finds
- an input a configured example passes as a Python value (`{ int = 12 }`; gluon's eager call
  takes it, even as the first input), reported at the parameter;
- an output that is None: `return y, None`, or an input that may be None returned untouched
  (its default is None or its annotation `Optional[...]`, and the body never rebinds it);
- an input used only as a Python value (`if flag:`, `not flag`, `a if flag else b`, `flag and
  ...`, `range(n)`) whose default is a literal bool, number or string or whose annotation is
  `bool`/`int`/`float`/`str`, never rebound in the body;
- an input passed as an operator's attribute (`F.one_hot(x, depth=units)`: an argument MXNet
  1.9.1 declares of a non-array type, `int` here), whatever its default, never rebound but
  under `if units is None:` (a filled-in default leaves a passed value in place).

## Why it breaks under hybridize
gluon flattens a hybridized block's outputs into one Symbol group: a None among them raises
`TypeError: Expected a list of symbols as input` when the graph is built (a list or dict
output is refused too). A hybridized block's inputs must be NDArrays (or None): a caller
passing a Python bool or int gets `ValueError: When hybridized, the input of HybridBlock input
must be (nested) list of Symbol or NDArray, but got False of type <class 'bool'>`; an array
passed instead fails at the Python use (`bool()` of a Symbol raises NotImplementedForSymbol,
`range(Symbol)` TypeError). So only the default works hybridized: any value a caller passes
fails. An operator attribute is passed to MXNet as a string: a Python value works, an array
fails there eagerly and hybridized (`Invalid Parameter format for depth expect int`).

## Example
```python
def hybrid_forward(self, F, x, units, scale: Optional[Tensor], is_train: bool = True):
    y = F.relu(x) if is_train else x
    return F.one_hot(y, depth=units), scale
```

## Fix
None automatic: the caller changes. Return only arrays (the caller keeps its None itself);
make a Python-valued input a constructor option (`self._is_train`, set in `__init__`), or
keep one block per value.

## Fix safety
Reported only.
"""

    VALID = [
        # an input passed as an array argument, an attribute from the constructor
        Valid(net("return F.one_hot(x, depth=self._units) + F.relu(y)", "F, x, y")),
        Valid(net("if n is None:\n    n = x\nreturn F.dot(x, n)", "F, x, n=None")),
        Valid(net("return F.relu(x), y", "F, x, y")),
        Valid(net("if y is None:\n    y = F.zeros_like(x)\nreturn x, y", "F, x, y=None")),
        Valid(net("return F.relu(x)", "F, x, is_train=True")),
        Valid(net("if is_train:\n    is_train = F.ones_like(x)\nreturn x", "F, x, is_train=True")),
        Valid(net("if mask is not None:\n    x = x * mask\nreturn x", "F, x, mask=None")),
    ]
    INVALID = [
        Invalid(net("return F.relu(x), None"), line=3),
        Invalid(net("y = F.relu(x)\nreturn y, cache", "F, x, cache=None"), line=4),
        Invalid(net("return F.relu(x), scale", "F, x, scale: Optional[int]"), line=3),
        Invalid(net("y = x * 2 if not is_train else x\nreturn y", "F, x, is_train=True"), line=3),
        Invalid(
            net("for _ in range(steps):\n    x = F.relu(x)\nreturn x", "F, x, steps: int = 2"),
            line=3,
        ),
        # gluonnlp's LabelSmoothing: `units` (default None, filled in) is one_hot's int depth
        Invalid(
            net(
                "if units is None:\n    units = self._units\nreturn F.one_hot(x, depth=units)",
                "F, x, units=None",
            ),
            line=5,
        ),
        Invalid(net("return F.reshape(x, shape=shape)", "F, x, shape"), line=3),
    ]

    def __init__(self, state=None) -> None:
        super().__init__(state)
        self._function: Optional[cst.FunctionDef] = None
        self._may_be_none: Set[str] = set()
        self._python: Dict[str, cst.Param] = {}
        self._attribute_inputs: Set[str] = set()
        self._reported: Set[str] = set()
        self._examples: List[Tuple[Tuple[str, str], ...]] = []

    # -- what the configured examples pass -------------------------------------------------
    def _examples_of(self, klass: Optional[ClassFacts]) -> List[Tuple[Tuple[str, str], ...]]:
        """The configured examples' inputs of `klass`, when they say what its hybrid_forward
        gets: a class an example can name (`WalkState.example_classes`), no `forward` of its
        own (one may turn a Python value into an array before hybrid_forward sees it)."""
        if klass is not None and "forward" in klass.methods:
            return []
        return self.configured_examples(klass)

    def check_class(self, klass: ClassFacts) -> None:
        """An input a configured example of the block passes as a Python value (`{ int = 12
        }`): its hybridized call fails, whatever the body does with it."""
        function = klass.methods.get("hybrid_forward")
        examples = self._examples_of(klass)
        if function is None or not examples:
            return
        for index, param in enumerate(_inputs(function)):
            if param.name.value in klass.parameters:
                continue  # gluon passes a registered parameter by name
            for number, given in enumerate(examples, 1):
                kind, shown = given[index] if index < len(given) else ("array", "")
                if kind in ARRAY_KINDS or kind == "none":
                    continue
                name = param.name.value
                self.report(
                    param.name,
                    f"input `{name}` is {shown}, a Python {kind}, in the configured example "
                    f"{_label(klass.name, number, len(examples))}: hybridized, gluon refuses "
                    "it (ValueError: the input of HybridBlock must be (nested) list of Symbol "
                    f"or NDArray); make `{name}` a constructor option (self.{name}) or pass "
                    "an array",
                )
                break

    def _prepare(self) -> bool:
        facts = self.facts
        if facts is None or facts.kind != "hybrid_forward":
            return False
        if facts.node is not self._function:
            self._function, self._reported = facts.node, set()
            self._examples = self._examples_of(facts.klass)
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
            filled = _bound_names(facts.node.body, none_filled=True) if candidates else set()
            weights = facts.klass.parameters if facts.klass is not None else {}
            self._attribute_inputs = {
                p.name.value
                for p in candidates
                if p.name.value not in filled and p.name.value not in weights
            }
        return True

    # -- outputs ---------------------------------------------------------------------------
    def visit_Return(self, node: cst.Return) -> None:
        if node.value is None or not self._prepare():
            return
        if self.examples_only and not self._examples:
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
            proof = self._none_returned_by_example(node, element.value)
            if self.examples_only and proof is None:
                continue
            self.report(
                element,
                f"hybrid_forward returns {what} as an output{proof or ''}: hybridized, gluon "
                "cannot put None in the graph's outputs (TypeError: Expected a list of "
                "symbols as input); return only arrays and let the caller keep the None",
            )

    def _none_returned_by_example(self, node: cst.Return, name: str) -> Optional[str]:
        """`, None in the configured example C#k` when the return runs on every call (a
        statement of the body itself) and an example makes the returned `name` None: the
        literal None, or an input the example passes as None or leaves at its None default."""
        facts = self.facts
        if not self._examples or facts is None or facts.klass is None:
            return None
        body = facts.node.body
        returns = [n for n in walk_nodes(body, stop=_SCOPES) if isinstance(n, cst.Return)]
        if returns != [node] or not any(  # the only return, a statement of the body itself
            isinstance(line, cst.SimpleStatementLine) and node in line.body for line in body.body
        ):
            return None
        if name in facts.klass.parameters:
            return None  # gluon passes a registered parameter: an array
        inputs = _inputs(facts.node)
        index = next((i for i, p in enumerate(inputs) if p.name.value == name), None)
        for number, given in enumerate(self._examples, 1):
            if name != "None":
                if index is None:
                    continue
                passed = given[index][0] if index < len(given) else None
                default = inputs[index].default
                left_none = isinstance(default, cst.Name) and default.value == "None"
                if passed != "none" and not (passed is None and left_none):
                    continue
            label = _label(facts.klass.name, number, len(self._examples))
            return f" (None in the configured example {label})"
        return None

    # -- inputs used as Python values ------------------------------------------------------
    def _unreported_input(
        self, expr: Optional[cst.BaseExpression], attribute: bool = False
    ) -> Optional[cst.Name]:
        """`expr` if it names an input not reported yet (it is then taken as reported) that is
        used only as a Python value, or (`attribute`) that may be an operator's attribute:
        each input is reported once. The sets are read after `_prepare` fills them."""
        if not isinstance(expr, cst.Name) or not self._prepare():
            return None
        inputs = self._attribute_inputs if attribute else self._python
        if expr.value not in inputs or expr.value in self._reported:
            return None
        self._reported.add(expr.value)
        return expr

    def _python_use(self, expr: Optional[cst.BaseExpression], how: str) -> None:
        if self.examples_only:
            return
        name_node = self._unreported_input(expr)
        if name_node is None:
            return
        name = name_node.value
        self.report(
            name_node,
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
            return
        op = namespace_call(node, self.namespace)
        keywords = attribute_keywords(op.split(".", 1)[1]) if op and "." in op else frozenset()
        for arg in node.args:
            if arg.keyword is not None and arg.keyword.value in keywords:
                self._attribute_use(arg.value, f"`{arg.keyword.value}=` of `{op}`")

    def _attribute_use(self, expr: cst.BaseExpression, where: str) -> None:
        """An input passed as an operator's attribute: MXNet takes a Python value there, and
        an array fails (`Invalid Parameter format`) eagerly and hybridized alike."""
        if self.examples_only:
            return
        name_node = self._unreported_input(expr, attribute=True)
        if name_node is None:
            return
        name = name_node.value
        self.report(
            name_node,
            f"input `{name}` is an operator attribute ({where}), a Python value: hybridized, "
            "gluon refuses an int/float/str/bool input (ValueError: the input of HybridBlock "
            "must be (nested) list of Symbol or NDArray) and an array fails as an attribute "
            f"(Invalid Parameter format), so no value a caller passes works; make `{name}` a "
            f"constructor option (self.{name}) instead of an input",
        )
