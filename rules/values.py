"""Values of the shared analysis: kinds, `Value`, joins, and small CST readers.

Split from analysis.py so the evaluator and the statement walk can share them; rules
import them from `.analysis`, which re-exports everything here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

import libcst as cst

# MXNet's operators, methods and layers live in hybridlint/mxnet_facts.py (checked against
# MXNet 1.9.1 by tests/test_mxnet_facts.py); re-exported here, where the rules import them from.
from ..mxnet_facts import (  # noqa: F401
    CREATION_OPS,
    LIKE_OPS,
    MULTI_OUTPUT_ATTRS,
    MULTI_OUTPUT_COUNTS,
    MULTI_OUTPUT_OPS,
    NON_TENSOR_METHODS,
    NON_TENSOR_OPS,
    OP_SUBNAMESPACES,
    REDUCTIONS,
    RNN_LAYERS,
    SHAPE_PRESERVING,
    SINGLE_OUTPUT_LAYERS,
)
from ._shape_forms import Dim, Form

TENSOR = "tensor"  # an NDArray eagerly, a Symbol when hybridized
TENSORS = "tensors"  # a list/tuple whose elements are tensors (F.split, list(x))
SEQUENCE = "sequence"  # a list/tuple of unknown elements
MAPPING = (
    "mapping"  # a dict (`d["key"]`, `d.items()`, `isinstance(d, dict)`, a `Dict[...]` annotation)
)
SCALAR = "scalar"  # a Python number (also string, bool, None, tuple of numbers): never an array
NUMBER = SCALAR  # the same kind, by the name the docs use
SHAPE = "shape"  # a shape tuple, e.g. x.shape (a tuple of ints eagerly)
NAMESPACE = "namespace"  # F (mx.nd or mx.sym)
PARAMETER = "parameter"  # a gluon Parameter object (self.weight): static attributes are fine
# a gluon block held by a container child (`for layer in self.features`, `self.body[0]`), or the
# container itself: calling one on arrays gives arrays (taken for an array by position only)
BLOCK = "block"
UNKNOWN = "unknown"
# a shape_reason: the shape went through an operand of unknown kind, so nothing is known about it,
# not even that it is "like the inputs" (HL007 takes it for no evidence either way)
LOST = "lost"

Shape = Tuple[Optional[int], ...]


@dataclass(frozen=True)
class Value:
    """What an expression holds. `shape`: known dims (None = unknown dim) or None.

    `shape_reason` is the evidence that the shape may differ from its neighbours' (set by
    literal creation, reductions, expand_dims, reshape, parameters of declared shape).
    `fresh` means the array was just created by an operator (not a view, not an input).
    `outputs` is set on TENSORS made by a multi-output operator (`F.split`, `x.split`...),
    which is a grouped Symbol when hybridized: the number of outputs, 0 when unknown.
    """

    kind: str
    shape: Optional[Shape] = None
    shape_reason: Optional[str] = None
    fresh: bool = False
    outputs: Optional[int] = None
    nonnegative: bool = False  # a SCALAR known to be >= 0 (a range() loop index, a dim, len())
    # A hybrid_forward input taken for a tensor only by its position: gluon passes lists of
    # arrays (feature maps, states) the same way, so a rewrite that is exact on a tensor may
    # break such code. HL003 makes its one-element-subscript fixes on it unsafe unless
    # `FunctionFacts.used_as_array` settles it; `join` keeps it when either side has it.
    assumed: bool = False
    # Why the analysis holds this kind (e.g. "isinstance(x, (list, tuple))", "annotation List[...]",
    # "F.linalg.slogdet has 2 outputs"): for messages and debugging, never part of equality.
    evidence: Optional[str] = field(default=None, compare=False)
    # A Python tuple whose elements are known by position (a module block whose every return
    # is `self.a(x), self.b(x)`, a gluon RNN layer called with states: `(output, states)`):
    # what unpacking binds to each target (`unpacked`). `join` drops it.
    items: Optional[Tuple["Value", ...]] = None
    # The shape relative to a root tensor of unknown rank (`_shape_forms.Form`: an input, or an
    # operator's result whose shape nothing else tells): `x.sum(axis=1, keepdims=True)` is x's
    # dims with a 1 at axis 1, whatever x's rank. HL007 compares two operands' forms: the same
    # form proves equal shapes, a rank or a 1 against a dim proves they differ. `join` keeps it
    # only when both sides have it.
    form: Optional[Form] = None
    # A Python bool literal's value (`True`), carried through a helper's parameter
    # (`var(x, dim, keepdims=True)` reads `keepdims=keepdims`); `join` drops it unless both
    # sides hold the same
    flag: Optional[bool] = None
    # What a value that may be None holds where a test proves it is not (`if bias is not
    # None:`, `guards.narrowed`): the data of an optional Parameter (`ClassFacts.
    # optional_parameters`); `join` drops it unless both sides hold the same
    unless_none: Optional["Value"] = None
    # The form of every item of a TENSORS list built by appends (`outs.append(self.leaf(x))`):
    # `F.stack(*outs, axis=k)` requires equal items, so one appended item's form is the
    # items' form and the stack's is it with a new axis (blind round 19's soft tree:
    # `F.stack(*weights, axis=-1) * F.stack(*outputs, axis=-1)` of (B, 1) and (B, 10) leaves
    # was a silent pass). `join` keeps it only when both sides have the same
    item_form: Optional[Form] = None
    # A SCALAR that may be a tuple or list of numbers (a literal one, an attribute some
    # `__init__` write sets to one, a name one branch binds to one): an index rewrite must not
    # take it for one number (`x[:, self.rows]` with `self.rows = [0, 2]`). `join` keeps it
    # when either side has it
    sequence: bool = False
    # A BLOCK whose every layer is a flattening `nn.Dense` of one width (`self.gates` filled by
    # `self.gates.add(nn.Dense(1))` in a loop): calling one of its layers gives (batch, width)
    # (`ClassFacts.container_units`; blind round 17's soft tree iterated `zip(self.gates,
    # self.leaves)`). `join` keeps it only when both sides have the same
    layer_width: Dim = None

    @property
    def is_tensor(self) -> bool:
        """A tensor by positive evidence (an operator's result, a layer's, a use only arrays
        allow); an input taken for one by position only (`assumed`) is not, until
        `FunctionFacts.used_as_array` settles it (`Rule.is_tensor` asks)."""
        return self.kind == TENSOR and not self.assumed


def with_form(value: Value, form: Optional[Form]) -> Value:
    """`value` with the shape form `form` (None: without one); items keep no forms either."""
    items = value.items
    if form is None and items is not None:
        items = tuple(with_form(item, None) for item in items)
    if value.form == form and items is value.items:
        return value
    return replace(value, form=form, items=items)


UNKNOWN_VALUE = Value(UNKNOWN)
SCALAR_VALUE = Value(SCALAR)
NONNEGATIVE = Value(SCALAR, nonnegative=True)
Env = Dict[str, Value]
# the env key of `self.<a>` once the function being walked has stored into it ("self.<a>": no
# Python name has a dot, so it cannot shadow a local)
SELF_PREFIX = "self."

# Nodes whose body runs in a scope of its own (a nested def, class or lambda, a comprehension):
# a walk of one function's statements stops at them.
NESTED_SCOPES = (
    cst.FunctionDef,
    cst.ClassDef,
    cst.Lambda,
    cst.ListComp,
    cst.SetComp,
    cst.DictComp,
    cst.GeneratorExp,
)

# The comparison operators that compare two values (not `in`, `is`): elementwise on tensors.
COMPARISON_OPERATORS = (
    cst.LessThan,
    cst.LessThanEqual,
    cst.GreaterThan,
    cst.GreaterThanEqual,
    cst.Equal,
    cst.NotEqual,
)

EAGER_NAMESPACES = {"nd", "mx.nd", "mx.ndarray", "mxnet.nd", "mxnet.ndarray", "ndarray"}
SYMBOL_NAMESPACES = {"sym", "mx.sym", "mx.symbol", "mxnet.sym", "mxnet.symbol", "symbol"}
STATIC_ATTRS = {"size", "ndim"}
NON_TENSOR_ATTRS = {"dtype", "context", "ctx", "stype", "grad", "handle", "name"}


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """`mx.nd.NDArray` -> "mx.nd.NDArray"; None for anything that is not a dotted name."""
    parts: List[str] = []
    # exact classes, not isinstance: LibCST's nodes are ABCs, and a failed isinstance against
    # one goes through ABCMeta (this function alone made ~670k such checks per corpus lint)
    while node.__class__ is cst.Attribute:
        parts.append(node.attr.value)  # type: ignore[attr-defined]
        node = node.value  # type: ignore[attr-defined]
    if node.__class__ is not cst.Name:
        return None
    parts.append(node.value)  # type: ignore[attr-defined]
    return ".".join(reversed(parts))


def last_name(node: cst.BaseExpression) -> str:
    """`nn.Conv2D` -> "Conv2D", `Dense` -> "Dense"; "" for anything that is not a dotted name."""
    return (dotted_name(node) or "").split(".")[-1]


def namespace_call(call: cst.Call, namespace: Optional[str]) -> Optional[str]:
    """The dotted name of `call`'s function when it starts with the namespace parameter
    (`F.relu`, `F.contrib.arange_like`, `F` itself), else None."""
    name = dotted_name(call.func)
    if namespace is None or name is None or name.split(".")[0] != namespace:
        return None
    return name


def literal_int(node: cst.BaseExpression) -> Optional[int]:
    """The value of an integer literal (`3`, `-1`, `(2)`), else None."""
    if isinstance(node, cst.Integer):
        try:
            return int(node.value, 0)
        except ValueError:
            return None
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = literal_int(node.expression)
        return None if inner is None else -inner
    return None


_INT_OPERATORS = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.FloorDivide: lambda a, b: a // b if b else None,
}


def constant_int(node: cst.BaseExpression) -> Optional[int]:
    """An integer literal or `+ - * //` of them (`32*6*6`, a capsule count written as its
    factors), else None."""
    if isinstance(node, cst.BinaryOperation):
        apply = _INT_OPERATORS.get(type(node.operator))
        left, right = constant_int(node.left), constant_int(node.right)
        if apply is None or left is None or right is None:
            return None
        return apply(left, right)
    return literal_int(node)


def literal_factors(expr: cst.BaseExpression) -> List[Tuple[cst.BaseExpression, int]]:
    """For `a * k` / `k * a` (k a positive int literal): (a, k), the left side first as the
    scaled one; [] for anything else. Readers of scaled sizes (`h = x.shape[2] * 2`, a resize's
    `height=h * 2`) try each pair with their own reading of `a`."""
    if not isinstance(expr, cst.BinaryOperation) or not isinstance(expr.operator, cst.Multiply):
        return []
    pairs = []
    for scaled, factor in ((expr.left, expr.right), (expr.right, expr.left)):
        k = literal_int(factor)
        if k is not None and k > 0:
            pairs.append((scaled, k))
    return pairs


def literal_shape(node: Optional[cst.BaseExpression]) -> Optional[Shape]:
    """`(1, 3)` / `[1, 3]` / `3` as a tuple of ints, else None."""
    if node is None:
        return None
    single = literal_int(node)
    if single is not None:
        return (single,)
    if isinstance(node, (cst.Tuple, cst.List)):
        dims = [literal_int(e.value) if isinstance(e, cst.Element) else None for e in node.elements]
        if all(d is not None for d in dims):
            return tuple(dims)
    return None


def call_argument(call: cst.Call, position: Optional[int], keyword: str) -> Optional[cst.Arg]:
    """The argument of `call` given by keyword or position (positional before any keyword)."""
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg
    if position is not None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        if position < len(positional):
            return positional[position]
    return None


def target_names(target: cst.BaseExpression) -> List[str]:
    """The names an assignment or loop target binds: `a`, `a, (b, *c)` -> a, b, c."""
    return [name.value for name in target_name_nodes(target)]


def target_name_nodes(target: cst.CSTNode) -> List[cst.Name]:
    """The Name nodes of :func:`target_names` (`a[i]`, `a.b` bind no name)."""
    if isinstance(target, cst.Name):
        return [target]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in target_name_nodes(e.value)]
    if isinstance(target, cst.StarredElement):
        return target_name_nodes(target.value)
    return []


_TARGET_FORMS = (
    cst.AssignTarget,
    cst.AugAssign,
    cst.AnnAssign,
    cst.NamedExpr,
    cst.For,
    cst.CompFor,
    cst.Del,
)


def plain_loop(comp: cst.CompFor) -> Optional[str]:
    """The name a comprehension's only `for` binds (`for t in ...`: no other `for`, no `if`,
    not async), else None."""
    if (
        comp.inner_for_in is not None
        or comp.ifs
        or comp.asynchronous is not None
        or not isinstance(comp.target, cst.Name)
    ):
        return None
    return comp.target.value


def parameter_names(params: cst.Parameters) -> Set[str]:
    """Every name a def's parameters bind (positional-only, plain, keyword-only, `*args`,
    `**kwargs`)."""
    names = {p.name.value for p in [*params.posonly_params, *params.params, *params.kwonly_params]}
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    return names


def bound_targets(node: cst.CSTNode) -> List[cst.BaseExpression]:
    """What `node` binds, when it is one of Python's binding forms (one node of a walk; [] for
    any other): an assignment, augmented or annotated target, walrus, for and comprehension
    targets, `del`, every `as` (with, except, import), `global`/`nonlocal` names, a nested def's
    or class's name. Targets as written: `target_names` gives their names, `self.a` stays an
    attribute. A bare `import a.b` is not here. `NameBindings` is the visitor for names
    followed through a body (HL002, HL012), without `del`, `global`/`nonlocal` and imports."""
    form = _BINDING_FORM.get(node.__class__)
    if form is None:
        form = _binding_form(node.__class__)
    if form == _TARGET:
        return [node.target]  # type: ignore[attr-defined]
    if form == _AS_NAME:
        return [node.name]  # type: ignore[attr-defined]
    if form == _NAMES:
        return [item.name for item in node.names]  # type: ignore[attr-defined]
    if form == _DEF:
        return [node.name]  # type: ignore[attr-defined]
    return []


# node class -> which binding form it is (filled as met): `bound_targets` runs on every node of
# many walks, and an isinstance that fails against LibCST's classes is a call into ABCMeta
_NOT_BINDING, _TARGET, _AS_NAME, _NAMES, _DEF = range(5)
_BINDING_FORM: Dict[type, int] = {}


def _binding_form(kind: type) -> int:
    if issubclass(kind, _TARGET_FORMS):
        form = _TARGET
    elif issubclass(kind, cst.AsName):
        form = _AS_NAME
    elif issubclass(kind, (cst.Global, cst.Nonlocal)):
        form = _NAMES
    elif issubclass(kind, (cst.FunctionDef, cst.ClassDef)):
        form = _DEF
    else:
        form = _NOT_BINDING
    _BINDING_FORM[kind] = form
    return form


def iterated_names(iterable: cst.BaseExpression) -> List[str]:
    """The names a `for` iterates element by element: `x`, and the plain arguments of
    `zip(...)`, `enumerate(x)` and `reversed(x)`."""
    if isinstance(iterable, cst.Name):
        return [iterable.value]
    if isinstance(iterable, cst.Call) and dotted_name(iterable.func) in (
        "zip",
        "enumerate",
        "reversed",
    ):
        return [
            a.value.value
            for a in iterable.args
            if isinstance(a.value, cst.Name) and a.keyword is None and not a.star
        ]
    return []


_SEQUENCE_HINTS = {"List", "list", "Tuple", "tuple", "Sequence", "Iterable", "MutableSequence"}
_MAPPING_HINTS = {"Dict", "dict", "Mapping", "MutableMapping", "OrderedDict"}
_NUMBER_HINTS = {"int", "float", "bool", "str"}
_TENSOR_HINTS = {"Tensor", "NDArray", "Symbol"}


def annotation_value(annotation: Optional[cst.Annotation]) -> Optional[Value]:
    """What a parameter's annotation says it holds: `List[Tensor]` a list of tensors, `List[...]`
    / `Tuple[...]` a sequence, `Dict[...]` a mapping, `int` / `float` a number, `Tensor` /
    `NDArray` / `Symbol` a tensor; None when it says nothing certain (`Optional[...]`, `Union`)."""
    if annotation is None:
        return None
    node = annotation.annotation
    if isinstance(node, cst.SimpleString):  # a string annotation: its text
        text = node.evaluated_value if isinstance(node.evaluated_value, str) else ""
        head, item = text.split("[")[0], text.partition("[")[2].rstrip("]")
    else:
        head = dotted_name(node.value if isinstance(node, cst.Subscript) else node) or ""
        item = ""
        if (
            isinstance(node, cst.Subscript)
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)
        ):
            item = dotted_name(node.slice[0].slice.value) or ""
    head, item = head.split(".")[-1], item.split(".")[-1]
    evidence = "its annotation"
    if head in _SEQUENCE_HINTS:
        return Value(TENSORS if item in _TENSOR_HINTS else SEQUENCE, evidence=evidence)
    if head in _MAPPING_HINTS:
        return Value(MAPPING, evidence=evidence)
    if head in _NUMBER_HINTS:
        return Value(SCALAR, evidence=evidence)
    if head in _TENSOR_HINTS:
        return Value(TENSOR, evidence=evidence)
    return None


def class_method(klass: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
    """The method `name` the class body itself defines (not an inherited one), else None."""
    if not isinstance(klass.body, cst.IndentedBlock):
        return None
    for stmt in klass.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    return None


def self_attribute_name(node: cst.BaseExpression) -> Optional[str]:
    """`"a"` for `self.a`, else None."""
    if (
        isinstance(node, cst.Attribute)
        and isinstance(node.value, cst.Name)
        and node.value.value == "self"
    ):
        return node.attr.value
    return None


def piece(value: Value) -> Value:
    """One array of a TENSORS value (an item, a loop's element): the form its pieces share
    when the split that made them says it (`split_pieces`: 1 on the split axis), else none."""
    return Value(TENSOR, assumed=value.assumed, shape_reason=value.shape_reason, form=value.form)


# the evidence of an input every configured example passes as one array (analysis)
CONFIGURED_ARRAY = "the configured examples' array"


def unpacked(value: Value, elements: Sequence[cst.BaseElement]) -> List[Value]:
    """What `a, b, ... = value` binds to each target element: by position when `value.items`
    knows them (same length, no starred target), a tensor each when `value` is the outputs of
    a multi-output operator (TENSORS), an array by position each when `value` is one by
    position (`Value.assumed`), unknown otherwise (a starred target always)."""
    starred = [isinstance(e, cst.StarredElement) for e in elements]
    if value.items is not None and len(value.items) == len(elements) and not any(starred):
        return list(value.items)
    if value.kind == TENSORS:
        element = piece(value)
    elif value.kind == TENSOR and value.assumed:
        # taken for an array by position only, it may be a tuple of arrays (a block's
        # outputs, an input of states): each item is taken for one the same way
        element = Value(TENSOR, assumed=True)
    elif value.kind == TENSOR and value.evidence == CONFIGURED_ARRAY:
        # an array every configured example passes: unpacked into its rows (HL014)
        element = Value(TENSOR)
    else:
        element = UNKNOWN_VALUE
    return [UNKNOWN_VALUE if star else element for star in starred]


def join(a: Value, b: Value) -> Value:
    if a == b:
        return a
    if {a.kind, b.kind} == {
        SCALAR,
        SHAPE,
    }:  # `self.in_size if ... else x.shape[2:]`: numbers either way
        return SCALAR_VALUE
    if a.kind == b.kind:
        outputs = (
            a.outputs
            if a.outputs == b.outputs
            else (0 if None not in (a.outputs, b.outputs) else None)
        )
        reason = a.shape_reason if a.shape_reason == b.shape_reason else None
        return Value(
            a.kind,
            a.shape if a.shape == b.shape else None,
            reason,
            a.fresh and b.fresh,
            outputs,
            a.nonnegative and b.nonnegative,
            assumed=a.assumed or b.assumed,
            form=a.form if a.form == b.form else None,
            item_form=a.item_form if a.item_form == b.item_form else None,
            sequence=a.sequence or b.sequence,
            layer_width=a.layer_width if a.layer_width == b.layer_width else None,
        )
    return UNKNOWN_VALUE


def join_envs(a: Env, b: Env) -> Env:
    return {k: join(a.get(k, UNKNOWN_VALUE), b.get(k, UNKNOWN_VALUE)) for k in set(a) | set(b)}


# Fields that hold only layout (whitespace, brackets, commas, operators' tokens) or strings:
# a walk looking for calls, names and statements skips them.
_LAYOUT_FIELDS = (
    "whitespace",
    "lpar",
    "rpar",
    "comma",
    "leading_lines",
    "lines_after",
    "header",
    "footer",
    "semicolon",
    "trailing",
    "newline",
    "lbracket",
    "rbracket",
    "lbrace",
    "rbrace",
    "equal",
    "colon",
    "dot",
)
_STRING_VALUED = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString)
_WALKED_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _walked_fields(kind: type) -> Tuple[str, ...]:
    names = _WALKED_FIELDS.get(kind)
    if names is None:
        import dataclasses  # noqa: WPS433

        names = _WALKED_FIELDS[kind] = tuple(
            f.name
            for f in dataclasses.fields(kind)
            if not any(part in f.name for part in _LAYOUT_FIELDS)
            and f.name
            not in (
                "operator",
                "star",
                "default_indent",
                "default_newline",
                "encoding",
                "has_trailing_newline",
            )
            and not (f.name == "value" and issubclass(kind, _STRING_VALUED))
        )
    return names


# node class -> whether it is a LibCST node (filled as met): a dict lookup instead of an
# isinstance against LibCST's abstract base, which costs a call into ABCMeta for every non-node
_IS_NODE: Dict[type, bool] = {}


def is_node_class(kind: type) -> bool:
    found = _IS_NODE.get(kind)
    if found is None:
        found = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return found


# stop classes -> node class -> whether the walk stops there (filled as met, as `_IS_NODE`)
_STOPS: Dict[Tuple[type, ...], Dict[type, bool]] = {}


def walk_nodes(node: cst.CSTNode, stop: Tuple[type, ...] = ()):
    """Every node under `node` (itself included) but layout (whitespace, brackets, commas,
    operator tokens), not descending into `stop` nodes (which are yielded). Reads the nodes'
    fields directly: `node.children` and a LibCST visitor rebuild every node they pass (a
    gluoncv2 model file: 0.06 s here, 0.8 s visited)."""
    stack = [node]
    nodes = _IS_NODE
    stops = _STOPS.setdefault(stop, {}) if stop else None
    while stack:
        current = stack.pop()
        yield current
        if stops is not None and current is not node:
            stopped = stops.get(current.__class__)
            if stopped is None:
                stopped = stops[current.__class__] = issubclass(current.__class__, stop)
            if stopped:
                continue
        for name in _walked_fields(current.__class__):
            value = getattr(current, name)
            kind = value.__class__
            if kind is tuple or kind is list:
                for item in value:
                    is_node = nodes.get(item.__class__)
                    if is_node or (is_node is None and is_node_class(item.__class__)):
                        stack.append(item)
            else:
                is_node = nodes.get(kind)
                if is_node or (is_node is None and is_node_class(kind)):
                    stack.append(value)


# Layout: node types that only hold whitespace, brackets, commas or operator tokens. LibCST
# visits them; the linter's walk (linter._Dispatcher) and `syntax_children` do not, so no rule
# may visit them (see linter._run_rules)
LAYOUT_TYPES = (
    cst.BaseParenthesizableWhitespace,
    cst.Comma,
    cst.Comment,
    cst.EmptyLine,
    cst.Newline,
    cst.TrailingWhitespace,
    cst.LeftParen,
    cst.RightParen,
    cst.LeftSquareBracket,
    cst.RightSquareBracket,
    cst.LeftCurlyBrace,
    cst.RightCurlyBrace,
    cst.Dot,
    cst.AssignEqual,
    cst.Colon,
    cst.Semicolon,
    cst.BaseBinaryOp,
    cst.BaseUnaryOp,
    cst.BaseBooleanOp,
    cst.BaseCompOp,
    cst.BaseAugOp,
    cst.ImportStar,
    cst.ParamStar,
    cst.ParamSlash,
)
# node type -> (the fields holding its non-layout children in LibCST's visiting order, the
# fields LibCST's visitor does not name: strings and flags, checked on each node)
_VISIT_ORDERS: Dict[type, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {}


def visit_order(kind: type) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """The fields of node type ``kind`` that hold non-layout children, in the order LibCST's
    visitor visits them (``IfExp``: body, test, orelse; ``Arg``: keyword, value), read from the
    order of the field names in the code of ``kind._visit_and_replace_children``, and the other
    non-layout fields (strings, flags: ``FormattedString.start``; a node found in one makes the
    walk fall back to LibCST's). Checked against LibCST's own walk in tests/test_walk_order.py."""
    found = _VISIT_ORDERS.get(kind)
    if found is not None:
        return found
    fields = _walked_fields(kind)
    code = getattr(getattr(kind, "_visit_and_replace_children", None), "__code__", None)
    consts = code.co_consts if code is not None else ()
    order = tuple(c for c in dict.fromkeys(consts) if isinstance(c, str) and c in fields)
    result = _VISIT_ORDERS[kind] = (order, tuple(f for f in fields if f not in order))
    return result


def syntax_children(node: cst.CSTNode) -> List[cst.CSTNode]:
    """The non-layout children of ``node`` in the order LibCST's visitor visits them (with a
    few layout nodes that fields name: the `*` and `/` of a parameter list, the dots of a
    relative import, a match pattern's `|`): what ``node.children`` gives without its layout
    nodes, read from the fields (``children`` rebuilds the node through a visitor, with every
    child validated again)."""
    order, others = visit_order(type(node))
    if others and any(holds_node(getattr(node, name)) for name in others):
        return [c for c in node.children if not isinstance(c, LAYOUT_TYPES)]
    children: List[cst.CSTNode] = []
    for name in order:
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            children.append(value)
        elif type(value) in (tuple, list):
            children.extend(item for item in value if isinstance(item, cst.CSTNode))
    return children


def holds_node(value: object) -> bool:
    """Whether a node's field holds a node (itself, or in a sequence)."""
    return isinstance(value, cst.CSTNode) or (
        type(value) in (tuple, list) and any(isinstance(v, cst.CSTNode) for v in value)  # type: ignore[attr-defined]
    )


def parent_map(node: cst.CSTNode) -> Dict[cst.CSTNode, cst.CSTNode]:
    """Each node under `node` (layout passed over, as in :func:`walk_nodes`) -> its parent."""
    parents: Dict[cst.CSTNode, cst.CSTNode] = {}
    stack = [node]
    while stack:
        current = stack.pop()
        for name in _walked_fields(current.__class__):
            value = getattr(current, name)
            kind = value.__class__
            if kind is tuple or kind is list:
                for item in value:
                    if _IS_NODE.get(item.__class__) or is_node_class(item.__class__):
                        parents[item] = current
                        stack.append(item)
            elif _IS_NODE.get(kind) or is_node_class(kind):
                parents[value] = current
                stack.append(value)
    return parents


class NameBindings(cst.CSTVisitor):
    """Calls `bind_name` for every name a function body binds: assignment targets (plain,
    augmented, annotated; unpacked through tuples, lists and stars), for and comprehension
    targets, walrus, `with ... as`, nested defs. One list of binding forms, so the rules that
    follow a local name (HL002, HL012) agree on what rebinds it."""

    def bind_name(self, name: cst.Name) -> None:
        raise NotImplementedError

    def bind(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.bind_name(target)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.bind(element.value)
        elif isinstance(target, cst.StarredElement):
            self.bind(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self.bind(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self.bind(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.bind(node.target)

    def visit_For(self, node: cst.For) -> None:
        self.bind(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self.bind(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.bind(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.bind(node.asname.name)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.bind_name(node.name)


def shape_index(expr: cst.BaseExpression) -> Optional[Tuple[cst.Attribute, int]]:
    """`x.shape[k]` for a literal k (negative too) -> (the `x.shape` node, k)."""
    if (
        isinstance(expr, cst.Subscript)
        and len(expr.slice) == 1
        and isinstance(expr.slice[0].slice, cst.Index)
        and isinstance(expr.value, cst.Attribute)
        and expr.value.attr.value == "shape"
    ):
        index = literal_int(expr.slice[0].slice.value)
        if index is not None:
            return expr.value, index
    return None


def size_spelling(expr: cst.BaseExpression) -> Optional[str]:
    """A size as a key two places can compare: a literal int, or `self.<attr>`; else None."""
    number = literal_int(expr)
    if number is not None:
        return str(number)
    attr = self_attribute_name(expr)
    return f"self.{attr}" if attr is not None else None


def variables(node: cst.CSTNode) -> Iterator[cst.Name]:
    """The names under node that are variables: not an attribute's name (`self.size`), a
    keyword (`size=`) or a def's name."""
    skip: Set[int] = set()
    for n in walk_nodes(node):
        if isinstance(n, cst.Attribute):
            skip.add(id(n.attr))
        elif isinstance(n, cst.Arg) and n.keyword is not None:
            skip.add(id(n.keyword))
        elif isinstance(n, (cst.FunctionDef, cst.ClassDef)):
            skip.add(id(n.name))
        elif isinstance(n, cst.Name) and id(n) not in skip:
            yield n
