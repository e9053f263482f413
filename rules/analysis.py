"""The shared per-function analysis every rule reads (computed once, never re-derived).

What it decides, per analysed function (hybrid_forward, helper methods and helper functions
reached from it with F or tensors):
- the namespace parameter (by position: the first parameter after self, whatever its name);
- what every name holds at every statement (`Value`: tensor, sequence of tensors, scalar,
  shape tuple, namespace, Parameter, unknown), by a small forward abstract interpretation;
- eager-only regions (guarded by `F is mx.nd`, `isinstance(x, nd.NDArray)`, after
  `if F is mx.sym: raise`), which rules never see;
- known shapes where evident, with the evidence that a shape may differ (for HL007);
- for in-place rules: whether an array is freshly created and whether it was aliased.

Precision before recall: whatever is not certain is UNKNOWN, and rules report only certainties.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

import libcst as cst

TENSOR = "tensor"  # an NDArray eagerly, a Symbol when hybridized
TENSORS = "tensors"  # a list/tuple whose elements are tensors (F.split, *args, list(x))
SEQUENCE = "sequence"  # a list/tuple of unknown elements
SCALAR = "scalar"  # Python number, string, bool, None, tuple of numbers
SHAPE = "shape"  # a shape tuple, e.g. x.shape (a tuple of ints eagerly)
NAMESPACE = "namespace"  # F (mx.nd or mx.sym)
PARAMETER = "parameter"  # a gluon Parameter object (self.weight): static attributes are fine
UNKNOWN = "unknown"

Shape = Tuple[Optional[int], ...]


@dataclass(frozen=True)
class Value:
    """What an expression holds. `shape`: known dims (None = unknown dim) or None.

    `shape_reason` is the evidence that the shape may differ from its neighbours' (set by
    literal creation, reductions, expand_dims, reshape, parameters of declared shape).
    `fresh` means the array was just created by an operator (not a view, not an input).
    """

    kind: str
    shape: Optional[Shape] = None
    shape_reason: Optional[str] = None
    fresh: bool = False

    @property
    def is_tensor(self) -> bool:
        return self.kind == TENSOR


UNKNOWN_VALUE = Value(UNKNOWN)
SCALAR_VALUE = Value(SCALAR)
Env = Dict[str, Value]

EAGER_NAMESPACES = {"nd", "mx.nd", "mx.ndarray", "mxnet.nd", "mxnet.ndarray", "ndarray"}
SYMBOL_NAMESPACES = {"sym", "mx.sym", "mx.symbol", "mxnet.sym", "mxnet.symbol", "symbol"}
MULTI_OUTPUT_OPS = {"split", "SliceChannel", "split_v2"}
# Ops whose result is not a single tensor (or depends on attributes we do not model).
NON_TENSOR_OPS = {
    "Group", "load", "save", "load_json", "waitall", "contrib.foreach", "contrib.while_loop",
    "contrib.cond", "linalg.gelqf", "linalg_gelqf", "linalg.syevd", "linalg_syevd",
    "contrib.MultiBoxTarget", "contrib.MultiBoxDetection", "contrib.MultiProposal",
    "contrib.Proposal", "contrib.box_encode", "contrib.bipartite_matching",
}
MULTI_OUTPUT_ATTRS = {"state_outputs", "output_mean_var", "ret_typ", "return_indices"}
OP_SUBNAMESPACES = {"contrib", "random", "linalg", "image", "sparse", "op"}
CREATION_OPS = {"zeros", "ones", "full", "empty", "random.uniform", "random.normal",
                "random_uniform", "random_normal", "uniform", "normal"}
LIKE_OPS = {"zeros_like", "ones_like", "random.uniform_like", "random.normal_like"}
REDUCTIONS = {"sum", "mean", "max", "min", "prod", "nansum", "nanprod", "norm", "argmax",
              "argmin", "sum_axis", "max_axis", "min_axis"}
SHAPE_PRESERVING = {
    "relu", "sigmoid", "tanh", "exp", "log", "abs", "sqrt", "square", "negative", "Activation",
    "Dropout", "softmax", "log_softmax", "clip", "cast", "identity", "BlockGrad",
    "stop_gradient", "LeakyReLU", "sign", "round", "floor", "ceil", "reciprocal", "softsign",
    "erf", "zeros_like", "ones_like", "sin", "cos", "rsqrt", "log1p", "expm1", "relu6",
}
# Gluon layers returning one tensor (a child of these types gives a tensor when called).
SINGLE_OUTPUT_LAYERS = {
    "Dense", "Conv1D", "Conv2D", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
    "Conv3DTranspose", "BatchNorm", "SyncBatchNorm", "LayerNorm", "InstanceNorm", "GroupNorm",
    "Dropout", "Activation", "LeakyReLU", "PReLU", "ELU", "SELU", "GELU", "Swish", "Embedding",
    "Flatten", "MaxPool1D", "MaxPool2D", "MaxPool3D", "AvgPool1D", "AvgPool2D", "AvgPool3D",
    "GlobalMaxPool1D", "GlobalMaxPool2D", "GlobalMaxPool3D", "GlobalAvgPool1D",
    "GlobalAvgPool2D", "GlobalAvgPool3D", "ReflectionPad2D", "HybridSequential", "Identity",
}
# NDArray methods that do not return a tensor.
NON_TENSOR_METHODS = {"asnumpy", "asscalar", "tolist", "wait_to_read", "copyto", "split",
                      "attach_grad", "backward", "tostype", "list_outputs", "infer_shape",
                      "get_internals", "list_arguments"}
STATIC_ATTRS = {"size", "ndim"}
NON_TENSOR_ATTRS = {"dtype", "context", "ctx", "stype", "grad", "handle", "name"}


def dotted_name(node: cst.BaseExpression) -> Optional[str]:
    """`mx.nd.NDArray` -> "mx.nd.NDArray"; None for anything that is not a dotted name."""
    parts: List[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


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
            return tuple(dims)  # type: ignore[arg-type]
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


def join(a: Value, b: Value) -> Value:
    if a == b:
        return a
    if a.kind == b.kind:
        return Value(a.kind, a.shape if a.shape == b.shape else None, None, a.fresh and b.fresh)
    return UNKNOWN_VALUE


def join_envs(a: Env, b: Env) -> Env:
    return {k: join(a.get(k, UNKNOWN_VALUE), b.get(k, UNKNOWN_VALUE)) for k in set(a) | set(b)}


@dataclass(eq=False)
class ClassFacts:
    """Facts about a class that defines hybrid_forward."""

    node: cst.ClassDef
    name: str
    methods: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    scalar_attrs: Set[str] = field(default_factory=set)  # self.<a> = number in __init__
    parameters: Dict[str, Optional[Shape]] = field(default_factory=dict)  # self.<p> = params.get
    children: Dict[str, Value] = field(default_factory=dict)  # what self.<c>(...) returns
    functions: List["FunctionFacts"] = field(default_factory=list)


@dataclass(eq=False)
class FunctionFacts:
    """Facts about one analysed function; rules read these through `Rule.value()` & co."""

    node: cst.FunctionDef
    kind: str  # "hybrid_forward", "helper_method" or "helper_function"
    klass: Optional[ClassFacts]
    module: "ModuleFacts"
    namespace: Optional[str] = None
    params: Env = field(default_factory=dict)
    env_at: Dict[cst.CSTNode, Env] = field(default_factory=dict)
    skip: Set[cst.CSTNode] = field(default_factory=set)  # eager-only subtrees
    order: Dict[cst.CSTNode, int] = field(default_factory=dict)  # statement -> position
    loops: Dict[cst.CSTNode, Tuple[cst.CSTNode, ...]] = field(default_factory=dict)
    alias_uses: Dict[str, List[Tuple[int, Tuple[cst.CSTNode, ...]]]] = field(default_factory=dict)
    _memo: Dict[cst.CSTNode, Value] = field(default_factory=dict)

    def value(self, expr: cst.BaseExpression, env: Env) -> Value:
        """What `expr` holds, evaluated in `env` (the environment of its statement)."""
        cached = self._memo.get(expr)
        if cached is None:
            cached = _Evaluator(self, None).eval(expr, env)
            self._memo[expr] = cached
        return cached

    def aliased_before(self, name: str, statement: cst.CSTNode) -> bool:
        """True when `name` may share memory with another live reference at `statement`:
        it was stored, returned or viewed before, or anywhere in a loop around it."""
        here = self.order.get(statement, 1 << 30)
        around = set(self.loops.get(statement, ()))
        for order, loops in self.alias_uses.get(name, ()):
            if order < here or around.intersection(loops):
                return True
        return False


@dataclass(eq=False)
class ModuleFacts:
    """All analysed functions of a file (over all parsed regions)."""

    functions: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    classes: Dict[str, ClassFacts] = field(default_factory=dict)
    scopes: List[FunctionFacts] = field(default_factory=list)
    local_envs: Dict[cst.CSTNode, Env] = field(default_factory=dict)  # nested def -> env at def


# ----------------------------------------------------------------------------------------
# Class facts
# ----------------------------------------------------------------------------------------
def _walk_statements(body: Sequence[cst.BaseStatement]) -> Iterable[cst.BaseSmallStatement]:
    """Every small statement in a block, descending into compound statements."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        elif isinstance(stmt, cst.BaseCompoundStatement):
            for block in _blocks_of(stmt):
                yield from _walk_statements(block)


def _blocks_of(stmt: cst.CSTNode) -> List[Sequence[cst.BaseStatement]]:
    blocks: List[Sequence[cst.BaseStatement]] = []
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.BaseSuite) and isinstance(body, cst.IndentedBlock):
        blocks.append(body.body)
    for attr in ("orelse", "finalbody"):
        part = getattr(stmt, attr, None)
        if isinstance(part, (cst.Else, cst.Finally)) and isinstance(part.body, cst.IndentedBlock):
            blocks.append(part.body.body)
        elif isinstance(part, cst.If):
            blocks.extend(_blocks_of(part))
    for handler in getattr(stmt, "handlers", ()) or ():
        if isinstance(handler.body, cst.IndentedBlock):
            blocks.append(handler.body.body)
    return blocks


def _child_value(call: cst.BaseExpression, module: ModuleFacts, classes: Dict[str, cst.ClassDef]) -> Value:
    """What calling a child block created by `call` returns."""
    if not isinstance(call, cst.Call):
        return UNKNOWN_VALUE
    name = dotted_name(call.func)
    if name is None:
        return UNKNOWN_VALUE
    last = name.split(".")[-1]
    if last in SINGLE_OUTPUT_LAYERS:
        return Value(TENSOR)
    klass = classes.get(last)
    if klass is not None:
        method = _method(klass, "hybrid_forward") or _method(klass, "forward")
        if method is None:
            return UNKNOWN_VALUE
        returns = [s for s in _walk_statements(method.body.body) if isinstance(s, cst.Return)]
        if returns and all(r.value is not None and not isinstance(r.value, (cst.Tuple, cst.List))
                           for r in returns):
            return Value(TENSOR)
    return UNKNOWN_VALUE


def _method(klass: cst.ClassDef, name: str) -> Optional[cst.FunctionDef]:
    if not isinstance(klass.body, cst.IndentedBlock):
        return None
    for stmt in klass.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value == name:
            return stmt
    return None


def _class_facts(node: cst.ClassDef, module: ModuleFacts, classes: Dict[str, cst.ClassDef]) -> ClassFacts:
    facts = ClassFacts(node=node, name=node.name.value)
    if isinstance(node.body, cst.IndentedBlock):
        for stmt in node.body.body:
            if isinstance(stmt, cst.FunctionDef):
                facts.methods[stmt.name.value] = stmt
    init = facts.methods.get("__init__")
    if init is None:
        return facts
    for small in _walk_statements(init.body.body):
        if not isinstance(small, (cst.Assign, cst.AnnAssign)) or small.value is None:
            continue
        targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
        for target in targets:
            if not (isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name)
                    and target.value.value == "self"):
                continue
            attr, value = target.attr.value, small.value
            if isinstance(value, (cst.Integer, cst.Float)) or literal_int(value) is not None or (
                    isinstance(value, cst.UnaryOperation) and isinstance(value.expression, cst.Float)):
                facts.scalar_attrs.add(attr)
            elif literal_shape(value) is not None and isinstance(value, (cst.Tuple, cst.List)):
                facts.scalar_attrs.add(attr)
            elif isinstance(value, cst.Call) and (dotted_name(value.func) or "").split(".")[-1] in (
                    "get", "get_constant", "Parameter", "Constant"):
                shape_arg = call_argument(value, None, "shape")
                facts.parameters[attr] = literal_shape(shape_arg.value) if shape_arg else None
            elif isinstance(value, cst.Call):
                facts.children[attr] = _child_value(value, module, classes)
    return facts


# ----------------------------------------------------------------------------------------
# Guards: eager-only branches
# ----------------------------------------------------------------------------------------
def classify_guard(test: cst.BaseExpression, namespace: Optional[str]) -> Tuple[bool, bool]:
    """(body is eager-only, orelse is eager-only) for `if test:`."""
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        body, orelse = classify_guard(test.expression, namespace)
        return orelse, body
    if isinstance(test, cst.BooleanOperation):
        left = classify_guard(test.left, namespace)
        right = classify_guard(test.right, namespace)
        if isinstance(test.operator, cst.And):
            return left[0] or right[0], False
        return left[0] and right[0], left[1] or right[1]
    if isinstance(test, cst.Comparison) and len(test.comparisons) == 1:
        comp = test.comparisons[0]
        sides = [dotted_name(test.left), dotted_name(comp.comparator)]
        if namespace is None or namespace not in sides:
            return False, False
        other = sides[1] if sides[0] == namespace else sides[0]
        positive = isinstance(comp.operator, (cst.Is, cst.Equal))
        negative = isinstance(comp.operator, (cst.IsNot, cst.NotEqual))
        if other in EAGER_NAMESPACES:
            return (True, False) if positive else (False, True) if negative else (False, False)
        if other in SYMBOL_NAMESPACES:
            return (False, True) if positive else (True, False) if negative else (False, False)
        return False, False
    if isinstance(test, cst.Call) and dotted_name(test.func) == "isinstance" and len(test.args) == 2:
        types = test.args[1].value
        names = ([dotted_name(e.value) for e in types.elements]
                 if isinstance(types, cst.Tuple) else [dotted_name(types)])
        if names and all(n is not None and n.split(".")[-1] == "NDArray" for n in names):
            return True, False
        if names and all(n is not None and n.split(".")[-1] == "Symbol" for n in names):
            return False, True
    return False, False


def _always_exits(block: cst.BaseSuite) -> bool:
    """True when a block ends in raise or return (the code after its `if` is the other case)."""
    if not isinstance(block, cst.IndentedBlock) or not block.body:
        return isinstance(block, cst.SimpleStatementSuite) and bool(block.body) and isinstance(
            block.body[-1], (cst.Raise, cst.Return))
    last = block.body[-1]
    return isinstance(last, cst.SimpleStatementLine) and bool(last.body) and isinstance(
        last.body[-1], (cst.Raise, cst.Return))


# ----------------------------------------------------------------------------------------
# Expression evaluation
# ----------------------------------------------------------------------------------------
class _Evaluator:
    """Evaluates expressions to Values; with an analyzer attached it also records call sites
    of helpers and aliasing uses of names (only during the analysis pass)."""

    def __init__(self, facts: FunctionFacts, analyzer: Optional["_FunctionAnalyzer"]) -> None:
        self.facts = facts
        self.analyzer = analyzer

    def eval(self, expr: cst.BaseExpression, env: Env, consumed: bool = False) -> Value:
        method = getattr(self, "_eval_" + type(expr).__name__, None)
        if method is None:
            return UNKNOWN_VALUE
        if isinstance(expr, cst.Name):
            return self._eval_Name(expr, env, consumed)
        return method(expr, env)

    # atoms
    def _eval_Name(self, expr: cst.Name, env: Env, consumed: bool = False) -> Value:
        if not consumed and self.analyzer is not None:
            self.analyzer.alias_use(expr.value)
        if expr.value in env:
            return env[expr.value]
        if expr.value in ("True", "False", "None"):
            return SCALAR_VALUE
        return UNKNOWN_VALUE

    def _eval_Integer(self, expr: cst.CSTNode, env: Env) -> Value:
        return SCALAR_VALUE

    _eval_Float = _eval_Imaginary = _eval_SimpleString = _eval_Integer
    _eval_ConcatenatedString = _eval_FormattedString = _eval_Integer

    def _eval_Tuple(self, expr: cst.Tuple, env: Env) -> Value:
        values = [self.eval(e.value, env) if isinstance(e, cst.Element) else UNKNOWN_VALUE
                  for e in expr.elements]
        if all(v.kind == SCALAR for v in values):
            return SCALAR_VALUE
        if values and all(v.kind == TENSOR for v in values):
            return Value(TENSORS)
        return Value(SEQUENCE)

    _eval_List = _eval_Tuple

    def _eval_Dict(self, expr: cst.CSTNode, env: Env) -> Value:
        for element in getattr(expr, "elements", ()):
            for part in ("key", "value"):
                sub = getattr(element, part, None)
                if isinstance(sub, cst.BaseExpression):
                    self.eval(sub, env)
        return UNKNOWN_VALUE

    _eval_Set = _eval_Dict

    # composite
    def _eval_Attribute(self, expr: cst.Attribute, env: Env) -> Value:
        attr = expr.attr.value
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            klass = self.facts.klass
            if klass is not None and attr in klass.scalar_attrs:
                return SCALAR_VALUE
            if klass is not None and attr in klass.parameters:
                return Value(PARAMETER, klass.parameters[attr])
            return UNKNOWN_VALUE
        consumed = attr == "shape" or attr in STATIC_ATTRS or attr in NON_TENSOR_ATTRS
        base = self.eval(expr.value, env, consumed=consumed)
        if base.kind == TENSOR:
            if attr == "shape":
                return Value(SHAPE, base.shape)
            if attr in STATIC_ATTRS:
                return SCALAR_VALUE
            if attr == "T":
                return Value(TENSOR, tuple(reversed(base.shape)) if base.shape else None)
        if base.kind == PARAMETER and attr == "shape":
            return Value(SHAPE, base.shape)
        return UNKNOWN_VALUE

    def _eval_Subscript(self, expr: cst.Subscript, env: Env) -> Value:
        base = self.eval(expr.value, env)
        index_values = []
        is_slice = False
        for element in expr.slice:
            if isinstance(element.slice, cst.Index):
                index_values.append(self.eval(element.slice.value, env, consumed=True))
            else:
                is_slice = True
                for part in (element.slice.lower, element.slice.upper, element.slice.step):
                    if part is not None:
                        self.eval(part, env, consumed=True)
        if base.kind == TENSORS:
            return Value(TENSORS) if is_slice else Value(TENSOR) if len(expr.slice) == 1 else UNKNOWN_VALUE
        if base.kind == TENSOR:
            return Value(TENSOR)
        if base.kind == SHAPE:
            if is_slice:
                return Value(SHAPE)
            return SCALAR_VALUE if all(v.kind == SCALAR for v in index_values) else UNKNOWN_VALUE
        return UNKNOWN_VALUE

    def _eval_BinaryOperation(self, expr: cst.BinaryOperation, env: Env) -> Value:
        left = self.eval(expr.left, env, consumed=True)
        right = self.eval(expr.right, env, consumed=True)
        kinds = {left.kind, right.kind}
        if TENSOR in kinds and not kinds & {TENSORS, SEQUENCE, NAMESPACE, SHAPE}:
            shape = None
            if left.kind == TENSOR and right.kind != TENSOR:
                shape = left.shape
            elif right.kind == TENSOR and left.kind != TENSOR:
                shape = right.shape
            elif left.shape == right.shape:
                shape = left.shape
            return Value(TENSOR, shape, fresh=True)
        if kinds == {SCALAR}:
            return SCALAR_VALUE
        if kinds == {SHAPE} and isinstance(expr.operator, cst.Add):
            return Value(SHAPE)
        return UNKNOWN_VALUE

    def _eval_UnaryOperation(self, expr: cst.UnaryOperation, env: Env) -> Value:
        operand = self.eval(expr.expression, env, consumed=True)
        if isinstance(expr.operator, cst.Not):
            return SCALAR_VALUE if operand.kind != TENSOR else UNKNOWN_VALUE
        if operand.kind == TENSOR:
            return Value(TENSOR, operand.shape, fresh=True)
        return operand if operand.kind == SCALAR else UNKNOWN_VALUE

    def _eval_BooleanOperation(self, expr: cst.BooleanOperation, env: Env) -> Value:
        self.eval(expr.left, env, consumed=True)
        self.eval(expr.right, env, consumed=True)
        return UNKNOWN_VALUE

    def _eval_Comparison(self, expr: cst.Comparison, env: Env) -> Value:
        values = [self.eval(expr.left, env, consumed=True)]
        values += [self.eval(c.comparator, env, consumed=True) for c in expr.comparisons]
        identity = any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn))
                       for c in expr.comparisons)
        if identity:
            return SCALAR_VALUE
        if any(v.kind == TENSOR for v in values) and len(values) == 2 and not any(
                v.kind in (TENSORS, SEQUENCE, SHAPE) for v in values):
            return Value(TENSOR, fresh=True)
        if all(v.kind == SCALAR for v in values):
            return SCALAR_VALUE
        return UNKNOWN_VALUE

    def _eval_IfExp(self, expr: cst.IfExp, env: Env) -> Value:
        self.eval(expr.test, env, consumed=True)
        body_eager, orelse_eager = classify_guard(expr.test, self.facts.namespace)
        if body_eager:
            if self.analyzer is not None:
                self.facts.skip.add(expr.body)
            return self.eval(expr.orelse, env)
        if orelse_eager:
            if self.analyzer is not None:
                self.facts.skip.add(expr.orelse)
            return self.eval(expr.body, env)
        return join(self.eval(expr.body, env), self.eval(expr.orelse, env))

    # calls
    def _eval_Call(self, expr: cst.Call, env: Env) -> Value:
        func = expr.func
        namespace_op = self._namespace_op(func, env)
        args = [self.eval(a.value, env, consumed=namespace_op is not None) for a in expr.args]
        if namespace_op is not None:
            return self._op_value(namespace_op, expr, args)
        if isinstance(func, cst.Attribute):
            if isinstance(func.value, cst.Name) and func.value.value == "self":
                return self._self_call(func.attr.value, expr, args)
            base = self.eval(func.value, env)
            if base.kind == TENSOR:
                return self._method_value(func.attr.value, expr, base)
            return UNKNOWN_VALUE
        if isinstance(func, cst.Name):
            name = func.value
            if name in ("len", "int", "float", "bool", "str", "isinstance", "hasattr", "round",
                        "abs") and name not in env:
                return SCALAR_VALUE
            if name in ("list", "tuple") and name not in env:
                if args and args[0].kind in (TENSOR, TENSORS):
                    return Value(TENSORS)
                return Value(SEQUENCE)
            if name == "range" and name not in env:
                return Value(SEQUENCE)
            if self.analyzer is not None:
                self.analyzer.call_site(("function", name), expr, args)
            return UNKNOWN_VALUE
        self.eval(func, env)
        return UNKNOWN_VALUE

    def _namespace_op(self, func: cst.BaseExpression, env: Env) -> Optional[str]:
        """`F.contrib.arange_like` -> "contrib.arange_like" when F holds the namespace."""
        parts: List[str] = []
        node = func
        while isinstance(node, cst.Attribute):
            parts.append(node.attr.value)
            node = node.value
        if not parts or not isinstance(node, cst.Name):
            return None
        if env.get(node.value, UNKNOWN_VALUE).kind != NAMESPACE:
            return None
        return ".".join(reversed(parts))

    def _op_value(self, op: str, call: cst.Call, args: List[Value]) -> Value:
        parts = op.split(".")
        if op in NON_TENSOR_OPS or len(parts) > 2 or (len(parts) == 2 and parts[0] not in OP_SUBNAMESPACES):
            return UNKNOWN_VALUE
        if any(a.keyword is not None and a.keyword.value in MULTI_OUTPUT_ATTRS for a in call.args):
            return UNKNOWN_VALUE
        if op in MULTI_OUTPUT_OPS:
            num = call_argument(call, 1, "num_outputs") or call_argument(call, 1, "indices_or_sections")
            count = literal_int(num.value) if num is not None else None
            return Value(TENSORS) if count is not None and count > 1 else UNKNOWN_VALUE
        first = args[0] if args else UNKNOWN_VALUE
        return Value(TENSOR, *self._op_shape(op, call, first), fresh=True)

    def _op_shape(self, op: str, call: cst.Call, first: Value) -> Tuple[Optional[Shape], Optional[str]]:
        if op in CREATION_OPS:
            arg = call_argument(call, 0, "shape")
            return literal_shape(arg.value if arg else None), "literal"
        if op in LIKE_OPS or op in SHAPE_PRESERVING:
            return first.shape, first.shape_reason
        if op == "expand_dims":
            axis_arg = call_argument(call, 1, "axis")
            axis = literal_int(axis_arg.value) if axis_arg else None
            if first.shape is not None and axis is not None:
                dims = list(first.shape)
                position = axis if axis >= 0 else len(dims) + axis + 1
                if 0 <= position <= len(dims):
                    dims.insert(position, 1)
                    return tuple(dims), "expand_dims"
            return None, "expand_dims"
        if op in REDUCTIONS:
            keep = call_argument(call, None, "keepdims")
            keeps = keep is not None and dotted_name(keep.value) == "True"
            return None, "reduction_keepdims" if keeps else "reduction"
        if op in ("reshape", "Reshape"):
            arg = call_argument(call, 1, "shape")
            shape = literal_shape(arg.value if arg else None)
            if shape is not None and all(d > 0 for d in shape if d is not None):
                return shape, "reshape"
            return None, "reshape"
        return None, None

    def _method_value(self, method: str, call: cst.Call, base: Value) -> Value:
        if method == "asscalar":
            return SCALAR_VALUE
        if method in NON_TENSOR_METHODS:
            return Value(TENSORS) if method == "split" else UNKNOWN_VALUE
        if method == "reshape":
            shape = literal_shape(call.args[0].value) if len(call.args) == 1 else None
            if shape is None and call.args and all(a.keyword is None for a in call.args):
                shape = literal_shape(cst.Tuple([cst.Element(a.value) for a in call.args]))
            if shape is not None and all(d > 0 for d in shape if d is not None):
                return Value(TENSOR, shape, "reshape")
            return Value(TENSOR, None, "reshape")
        if method in REDUCTIONS:
            return Value(TENSOR, None, "reduction", fresh=False)
        if method == "expand_dims":
            return Value(TENSOR, None, "expand_dims")
        return Value(TENSOR, base.shape if method in SHAPE_PRESERVING else None)

    def _self_call(self, attr: str, call: cst.Call, args: List[Value]) -> Value:
        klass = self.facts.klass
        if klass is None:
            return UNKNOWN_VALUE
        if attr in klass.children:
            return klass.children[attr]
        if attr in klass.methods and self.analyzer is not None:
            self.analyzer.call_site(("method", attr), call, args)
        return UNKNOWN_VALUE


# ----------------------------------------------------------------------------------------
# Statement walk (forward abstract interpretation)
# ----------------------------------------------------------------------------------------
class _FunctionAnalyzer:
    def __init__(self, facts: FunctionFacts, on_call) -> None:
        self.facts = facts
        self.evaluator = _Evaluator(facts, self)
        self.on_call = on_call
        self.counter = 0
        self.loop_stack: List[cst.CSTNode] = []
        self.local_defs: Dict[str, cst.FunctionDef] = {}

    def alias_use(self, name: str) -> None:
        self.facts.alias_uses.setdefault(name, []).append((self.counter, tuple(self.loop_stack)))

    def call_site(self, key: Tuple[str, str], call: cst.Call, args: List[Value]) -> None:
        if key[0] == "function" and key[1] in self.local_defs:
            self.on_call(self.local_defs[key[1]], self.facts, call, args)
        else:
            self.on_call(key, self.facts, call, args)

    def eval(self, expr: Optional[cst.BaseExpression], env: Env) -> Value:
        if expr is None:
            return UNKNOWN_VALUE
        return self.evaluator.eval(expr, env)

    def run(self) -> None:
        env = dict(self.facts.params)
        self.block(self.facts.node.body, env)

    def block(self, suite: cst.BaseSuite, env: Env) -> Tuple[Env, bool]:
        """Analyse a suite; returns the env after it and whether it always exits."""
        statements = suite.body if isinstance(suite, cst.IndentedBlock) else [suite]
        if isinstance(suite, cst.SimpleStatementSuite):
            statements = [suite]
        for index, stmt in enumerate(statements):
            env, exits, rest_eager = self.statement(stmt, env)
            if rest_eager:
                self.facts.skip.update(statements[index + 1:])
                return env, exits
            if exits:
                return env, True
        return env, False

    def statement(self, stmt: cst.CSTNode, env: Env) -> Tuple[Env, bool, bool]:
        """Returns (env after, always exits, the rest of the block is eager-only)."""
        self.counter += 1
        self.facts.env_at[stmt] = env
        self.facts.order[stmt] = self.counter
        self.facts.loops[stmt] = tuple(self.loop_stack)
        if isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            exits = False
            for small in stmt.body:
                env, small_exits = self.small_statement(small, env)
                exits = exits or small_exits
            return env, exits, False
        if isinstance(stmt, cst.If):
            return self.if_statement(stmt, env)
        if isinstance(stmt, (cst.For, cst.While)):
            return self.loop(stmt, env), False, False
        if isinstance(stmt, cst.With):
            for item in stmt.items:
                self.eval(item.item, env)
                if item.asname is not None:
                    env = self.bind(item.asname.name, UNKNOWN_VALUE, env)
            env, exits = self.block(stmt.body, env)
            return env, exits, False
        if isinstance(stmt, cst.Try):
            after, _ = self.block(stmt.body, dict(env))
            joined = join_envs(env, after)
            for handler in stmt.handlers:
                handler_env, _ = self.block(handler.body, dict(joined))
                joined = join_envs(joined, handler_env)
            if stmt.orelse is not None:
                joined = join_envs(joined, self.block(stmt.orelse.body, dict(after))[0])
            if stmt.finalbody is not None:
                joined = self.block(stmt.finalbody.body, joined)[0]
            return joined, False, False
        if isinstance(stmt, cst.FunctionDef):
            self.local_defs[stmt.name.value] = stmt
            self.facts.module.local_envs[stmt] = dict(env)
            return {**env, stmt.name.value: UNKNOWN_VALUE}, False, False
        if isinstance(stmt, cst.ClassDef):
            return {**env, stmt.name.value: UNKNOWN_VALUE}, False, False
        return env, False, False

    def small_statement(self, small: cst.BaseSmallStatement, env: Env) -> Tuple[Env, bool]:
        self.facts.env_at[small] = env
        self.facts.order[small] = self.counter
        self.facts.loops[small] = tuple(self.loop_stack)
        if isinstance(small, cst.Assign):
            if (len(small.targets) == 1 and isinstance(small.targets[0].target, (cst.Tuple, cst.List))
                    and isinstance(small.value, (cst.Tuple, cst.List))
                    and len(small.targets[0].target.elements) == len(small.value.elements)):
                values = [self.eval(e.value, env) for e in small.value.elements]
                env = dict(env)
                for target, value in zip(small.targets[0].target.elements, values):
                    env = self.bind(target.value, value, env)
                return env, False
            value = self.eval(small.value, env)
            for target in small.targets:
                env = self.bind(target.target, value, env)
            return env, False
        if isinstance(small, cst.AnnAssign):
            if small.value is None:
                return env, False
            return self.bind(small.target, self.eval(small.value, env), env), False
        if isinstance(small, cst.AugAssign):
            value = self.eval(small.value, env)
            if isinstance(small.target, cst.Name):
                old = env.get(small.target.value, UNKNOWN_VALUE)
                if old.kind == TENSOR or value.kind == TENSOR:
                    new = Value(TENSOR, old.shape, fresh=old.fresh)
                elif old.kind == SCALAR and value.kind == SCALAR:
                    new = SCALAR_VALUE
                else:
                    new = UNKNOWN_VALUE
                return {**env, small.target.value: new}, False
            self.eval(small.target, env)
            return env, False
        if isinstance(small, cst.Expr):
            self.eval(small.value, env)
            return env, False
        if isinstance(small, (cst.Return, cst.Raise)):
            self.eval(getattr(small, "value", None) if isinstance(small, cst.Return) else small.exc, env)
            return env, True
        if isinstance(small, cst.Assert):
            self.eval(small.test, env)
            return env, False
        if isinstance(small, (cst.Import, cst.ImportFrom)):
            names = small.names if not isinstance(small.names, cst.ImportStar) else ()
            env = dict(env)
            for alias in names:
                bound = alias.asname.name if alias.asname else alias.name
                key = dotted_name(bound) if isinstance(bound, (cst.Name, cst.Attribute)) else None
                if key:
                    env[key.split(".")[0]] = UNKNOWN_VALUE
            return env, False
        return env, False

    def bind(self, target: cst.BaseExpression, value: Value, env: Env) -> Env:
        if isinstance(target, cst.Name):
            return {**env, target.value: value}
        if isinstance(target, (cst.Tuple, cst.List)):
            element = Value(TENSOR) if value.kind == TENSORS else UNKNOWN_VALUE
            for item in target.elements:
                inner = item.value
                env = self.bind(inner, UNKNOWN_VALUE if isinstance(item, cst.StarredElement) else element, env)
            return env
        if isinstance(target, (cst.Attribute, cst.Subscript)):
            self.evaluator.eval(target.value, env, consumed=True)
        return env

    def if_statement(self, stmt: cst.If, env: Env) -> Tuple[Env, bool, bool]:
        self.eval(stmt.test, env)
        body_eager, orelse_eager = classify_guard(stmt.test, self.facts.namespace)
        if body_eager:
            self.facts.skip.add(stmt.body)
            body_env, body_exits = env, _always_exits(stmt.body)
        else:
            body_env, body_exits = self.block(stmt.body, dict(env))
        orelse_exits = False
        orelse_env = env
        if stmt.orelse is not None:
            if orelse_eager:
                self.facts.skip.add(stmt.orelse)
                orelse_exits = isinstance(stmt.orelse, cst.Else) and _always_exits(stmt.orelse.body)
            elif isinstance(stmt.orelse, cst.If):
                orelse_env, orelse_exits, _ = self.statement(stmt.orelse, dict(env))
            else:
                orelse_env, orelse_exits = self.block(stmt.orelse.body, dict(env))
        # `if F is mx.sym: raise` -> the rest is eager-only; likewise `if eager: ... else: raise`.
        rest_eager = (orelse_eager and body_exits) or (body_eager and stmt.orelse is not None and orelse_exits)
        if body_exits and not orelse_exits:
            return orelse_env, False, rest_eager
        if orelse_exits and not body_exits:
            return body_env, False, rest_eager
        return join_envs(body_env, orelse_env), body_exits and orelse_exits, rest_eager

    def loop(self, stmt, env: Env) -> Env:
        self.loop_stack.append(stmt)
        try:
            if isinstance(stmt, cst.For):
                iterable = self.eval(stmt.iter, env)
                element = {TENSORS: Value(TENSOR), TENSOR: Value(TENSOR)}.get(iterable.kind, UNKNOWN_VALUE)
                if isinstance(stmt.iter, cst.Call) and dotted_name(stmt.iter.func) == "range":
                    element = SCALAR_VALUE
                start = self.bind(stmt.target, element, dict(env))
            else:
                self.eval(stmt.test, env)
                start = dict(env)
            after, _ = self.block(stmt.body, start)
            second_start = join_envs(start, after)  # a second pass sees values from the loop end
            after, _ = self.block(stmt.body, second_start)
            result = join_envs(env, after)
            if stmt.orelse is not None:
                result = self.block(stmt.orelse.body, result)[0]
            return result
        finally:
            self.loop_stack.pop()


# ----------------------------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------------------------
def _signature(node: cst.FunctionDef) -> List[cst.Param]:
    return list(node.params.posonly_params) + list(node.params.params)


# Inputs that gluon passes as nested lists by convention (RNN states, caches, memories).
_LIST_LIKE_NAME = re.compile(r"state|hidden|cache|mem", re.IGNORECASE)


def _hybrid_forward_params(node: cst.FunctionDef) -> Tuple[Optional[str], Env]:
    """The namespace name (by position) and the kinds of the inputs after it."""
    positional = _signature(node)
    if len(positional) < 2:
        return None, {}
    namespace = positional[1].name.value
    env: Env = {namespace: Value(NAMESPACE)}
    sequence_like = _sequence_used_names(node)
    for param in positional[2:] + list(node.params.kwonly_params):
        name = param.name.value
        if param.default is not None or _LIST_LIKE_NAME.search(name) or name in sequence_like:
            env[name] = UNKNOWN_VALUE
        else:
            env[name] = Value(TENSOR)
    star = node.params.star_arg
    if isinstance(star, cst.Param):  # elements may themselves be nested lists of inputs
        env[star.name.value] = Value(SEQUENCE)
    if node.params.star_kwarg is not None:
        env[node.params.star_kwarg.name.value] = UNKNOWN_VALUE
    return namespace, env


def _sequence_used_names(node: cst.FunctionDef) -> Set[str]:
    """Names the author treats as sequences: unpacked (`h, c = states`) or starred (`*x`)."""
    names: Set[str] = set()

    class Finder(cst.CSTVisitor):
        def visit_Assign(self, assign: cst.Assign) -> None:
            if isinstance(assign.value, cst.Name) and any(
                    isinstance(t.target, (cst.Tuple, cst.List)) for t in assign.targets):
                names.add(assign.value.value)

        def visit_StarredElement(self, starred: cst.StarredElement) -> None:
            if isinstance(starred.value, cst.Name):
                names.add(starred.value.value)

        def visit_Arg(self, arg: cst.Arg) -> None:
            if arg.star == "*" and isinstance(arg.value, cst.Name):
                names.add(arg.value.value)

    node.body.visit(Finder())
    return names


def _bind_call(node: cst.FunctionDef, call: cst.Call, args: List[Value], skip_self: bool) -> Env:
    positional = _signature(node)[1 if skip_self else 0:]
    env: Env = {}
    index = 0
    for arg, value in zip(call.args, args):
        if arg.star:
            return {}
        if arg.keyword is not None:
            env[arg.keyword.value] = value
        elif index < len(positional):
            env[positional[index].name.value] = value
            index += 1
    return env


def analyze(classes: Sequence[cst.ClassDef], functions: Sequence[cst.FunctionDef]) -> ModuleFacts:
    """Analyse the classes defining hybrid_forward and the module functions given.

    `functions` are the module-level functions that may serve as helpers; they become
    analysed scopes only when some analysed function calls them with F or tensors.
    """
    module = ModuleFacts()
    module.functions = {f.name.value: f for f in functions}
    class_nodes = {c.name.value: c for c in classes}
    pending: List[FunctionFacts] = []
    helper_envs: Dict[Tuple[object, ...], Env] = {}
    helper_owner: Dict[Tuple[object, ...], Tuple[cst.FunctionDef, Optional[ClassFacts], str]] = {}

    for class_node in classes:
        klass = _class_facts(class_node, module, class_nodes)
        module.classes[klass.name] = klass
        method = klass.methods.get("hybrid_forward")
        if method is None:
            continue
        namespace, params = _hybrid_forward_params(method)
        for name, shape in klass.parameters.items():  # keyword inputs named like the parameters
            if params.get(name, UNKNOWN_VALUE).kind == TENSOR:
                dims = None if shape is None else tuple(d if d and d > 0 else None for d in shape)
                params[name] = Value(TENSOR, dims, "parameter")
        facts = FunctionFacts(method, "hybrid_forward", klass, module, namespace, params)
        klass.functions.append(facts)
        pending.append(facts)

    def on_call(target, caller: FunctionFacts, call: cst.Call, args: List[Value]) -> None:
        if not any(v.kind in (NAMESPACE, TENSOR, TENSORS) for v in args):
            return
        if isinstance(target, cst.FunctionDef):
            key: Tuple[object, ...] = ("local", target)
            node, klass, kind, skip_self = target, caller.klass, "helper_function", False
        elif target[0] == "method" and caller.klass is not None:
            node = caller.klass.methods[target[1]]
            if node is caller.node or node.name.value in ("hybrid_forward", "__init__"):
                return
            key, klass, kind, skip_self = ("method", caller.klass, target[1]), caller.klass, "helper_method", True
        elif target[0] == "function" and target[1] in module.functions:
            node = module.functions[target[1]]
            key, klass, kind, skip_self = ("function", target[1]), None, "helper_function", False
        else:
            return
        bound = _bind_call(node, call, args, skip_self)
        previous = helper_envs.get(key)
        merged = bound if previous is None else join_envs(previous, bound)
        if previous is None or merged != previous:
            helper_envs[key] = merged
            helper_owner[key] = (node, klass, kind)

    analysed: Dict[Tuple[object, ...], Tuple[Env, FunctionFacts]] = {}
    for _round in range(6):  # helpers calling helpers: iterate until the call-site kinds settle
        for facts in pending:
            _FunctionAnalyzer(facts, on_call).run()
            module.scopes.append(facts)
        pending = []
        for key, env in list(helper_envs.items()):
            node, klass, kind = helper_owner[key]
            old = analysed.get(key)
            if old is not None and old[0] == env:
                continue
            namespace = next((n for n, v in env.items() if v.kind == NAMESPACE), None)
            params = _helper_env(node, env, namespace)
            if key[0] == "local":
                params = {**module.local_envs.get(node, {}), **params}
            if old is not None:
                module.scopes.remove(old[1])
                if old[1].klass is not None and old[1] in old[1].klass.functions:
                    old[1].klass.functions.remove(old[1])
            facts = FunctionFacts(node, kind, klass, module, namespace, params)
            if klass is not None:
                klass.functions.append(facts)
            analysed[key] = (env, facts)
            pending.append(facts)
        if not pending:
            break
    for facts in pending:  # still changing after the last round: analyse with what we have
        _FunctionAnalyzer(facts, lambda *args: None).run()
        module.scopes.append(facts)
    return module


def _helper_env(node: cst.FunctionDef, bound: Env, namespace: Optional[str]) -> Env:
    """Parameters of a helper: the joined kinds of its call sites, unknown otherwise."""
    env: Env = {}
    for param in _signature(node) + list(node.params.kwonly_params):
        env[param.name.value] = bound.get(param.name.value, UNKNOWN_VALUE)
    if isinstance(node.params.star_arg, cst.Param):
        env[node.params.star_arg.name.value] = UNKNOWN_VALUE
    if node.params.star_kwarg is not None:
        env[node.params.star_kwarg.name.value] = UNKNOWN_VALUE
    return env
