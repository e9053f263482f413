"""Expression evaluation of the shared analysis: what value an expression holds."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

import libcst as cst

from ..mxnet_facts import (
    BROADCAST_BINARY,
    FULL_REDUCTIONS,
    REDUCTION_PARAMETERS,
    SHAPE_PRESERVING_METHODS,
    SHAPED_LIKE_HELPERS,
    fixed_namespace_op,
)
from . import _shape_forms as forms
from ._pooled import child_gate, op_gate
from .guards import classify_guard, configuration_fallback, configuration_guard, narrowed
from .values import (
    BLOCK,
    SELF_PREFIX,
    LOST,
    UNKNOWN,
    NONNEGATIVE,
    CREATION_OPS,
    LIKE_OPS,
    MAPPING,
    MULTI_OUTPUT_ATTRS,
    MULTI_OUTPUT_COUNTS,
    MULTI_OUTPUT_OPS,
    NAMESPACE,
    NON_TENSOR_ATTRS,
    NON_TENSOR_METHODS,
    NON_TENSOR_OPS,
    OP_SUBNAMESPACES,
    PARAMETER,
    REDUCTIONS,
    SCALAR,
    SCALAR_VALUE,
    SEQUENCE,
    SHAPE,
    SHAPE_PRESERVING,
    STATIC_ATTRS,
    TENSOR,
    TENSORS,
    UNKNOWN_VALUE,
    with_form,
    Env,
    Shape,
    Value,
    call_argument,
    dotted_name,
    iterated_names,
    join,
    constant_int,
    literal_int,
    literal_shape,
    piece,
    size_spelling,
)

if TYPE_CHECKING:  # pragma: no cover
    from .analysis import FunctionFacts, ModuleFacts
    from .flow import FunctionAnalyzer


class Evaluator:
    """Evaluates expressions to Values; with an analyzer attached it also records call sites
    of helpers and aliasing uses of names (only during the analysis pass)."""

    def __init__(self, facts: FunctionFacts, analyzer: Optional["FunctionAnalyzer"]) -> None:
        self.facts = facts
        self.analyzer = analyzer
        # call arguments (by node id) last evaluated to a bool literal's value: a name
        # (`keepdims=keepdims`) counts as the literal its caller passed (`_flag`)
        self._flags: Dict[int, bool] = {}

    def _flag(self, arg: Optional[cst.Arg]) -> Optional[bool]:
        """`_literal_flag`, or the bool literal a name argument holds (a helper's parameter
        every caller passes the same `True`: blind round 14's `var(x, dim, keepdims=True)`)."""
        found = _literal_flag(arg)
        if found is None and arg is not None:
            return self._flags.get(id(arg))
        return found

    _narrowing = 0  # depth of type-tested ternary branches being evaluated

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
        if expr.value in ("True", "False"):
            return TRUE_VALUE if expr.value == "True" else FALSE_VALUE
        if expr.value == "None":
            return SCALAR_VALUE
        return UNKNOWN_VALUE

    def _eval_Integer(self, expr: cst.CSTNode, env: Env) -> Value:
        return NONNEGATIVE  # a literal; `-1` is a UnaryOperation

    def _eval_Float(self, expr: cst.CSTNode, env: Env) -> Value:
        return SCALAR_VALUE

    _eval_Imaginary = _eval_SimpleString = _eval_Float
    _eval_ConcatenatedString = _eval_FormattedString = _eval_Float

    def _eval_Tuple(self, expr: cst.Tuple, env: Env) -> Value:
        values = [
            self.eval(e.value, env) if isinstance(e, cst.Element) else UNKNOWN_VALUE
            for e in expr.elements
        ]
        if all(v.kind == SCALAR for v in values):
            # a tuple of numbers is a SCALAR too (a shape, axes), said to be a sequence so
            # that an index rewrite can tell it from one number (`x[rows]`, a list of rows)
            return Value(SCALAR, items=tuple(values), sequence=True)
        if values and all(v.kind == TENSOR for v in values):
            # `[x, y]` of inputs taken for arrays by position: a list of them, taken the same
            # way (its items are those very inputs)
            return Value(TENSORS, assumed=not all(v.is_tensor for v in values))
        if any(v.kind == TENSOR for v in values) and all(
            isinstance(e, cst.Element) for e in expr.elements
        ):
            # `return F.cast(x, 'int32'), scale`: what `q, s = helper(...)` binds, by position
            return Value(SEQUENCE, items=tuple(values))
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

    def _eval_ListComp(self, expr: cst.BaseExpression, env: Env) -> Value:
        """Not evaluated inside (its names are bound per element); `[... for f in feats]` over
        an input taken for a tensor by position is recorded for `analysis.list_inputs`."""
        if self.analyzer is not None:
            comp = getattr(expr, "for_in", None)
            while comp is not None:
                for name in iterated_names(comp.iter):
                    if env.get(name, UNKNOWN_VALUE).assumed:
                        self.analyzer.sequence_hints.add(name)
                comp = comp.inner_for_in
        return UNKNOWN_VALUE

    _eval_SetComp = _eval_GeneratorExp = _eval_DictComp = _eval_ListComp

    # composite
    def _eval_Attribute(self, expr: cst.Attribute, env: Env) -> Value:
        attr = expr.attr.value
        if isinstance(expr.value, cst.Name) and expr.value.value == "self":
            stored = env.get(SELF_PREFIX + attr)
            if stored is not None and stored.kind in (TENSOR, TENSORS):
                # a tensor this function stored there earlier (`self.__x = x` ... `self.__x / n`:
                # accel-brain-base keeps its activities on self while it computes)
                return stored
            klass = self.facts.klass
            if klass is not None and attr in klass.scalar_attrs:
                if attr in klass.scalar_sequences:
                    return Value(SCALAR, sequence=True)
                return SCALAR_VALUE
            if klass is not None and attr in klass.parameters:
                return Value(PARAMETER, klass.parameters[attr])
            if klass is not None and attr in klass.layers and attr in klass.children:
                # `self.features`, iterated or indexed for its layers
                return Value(BLOCK, layer_width=klass.item_units_of(attr))
            return UNKNOWN_VALUE
        consumed = attr == "shape" or attr in STATIC_ATTRS or attr in NON_TENSOR_ATTRS
        base = self.eval(expr.value, env, consumed=consumed)
        if base.kind == TENSOR:
            if attr == "shape":
                return Value(SHAPE, base.shape)
            if attr in STATIC_ATTRS:
                return SCALAR_VALUE
            if attr == "T":
                return Value(
                    TENSOR,
                    tuple(reversed(base.shape)) if base.shape else None,
                    form=forms.transpose(base.form, None),
                )
        if base.kind == PARAMETER and attr == "shape":
            return Value(SHAPE, base.shape)
        return UNKNOWN_VALUE

    def _eval_Subscript(self, expr: cst.Subscript, env: Env) -> Value:
        base = self.eval(expr.value, env)
        if base.kind == BLOCK:  # `self.features[0]`, `self.body[-1]`, `self.body[1:]`
            one = len(expr.slice) == 1 and isinstance(expr.slice[0].slice, cst.Index)
            for element in expr.slice:
                index = element.slice
                parts: List[Optional[cst.BaseExpression]] = (
                    [index.value]
                    if isinstance(index, cst.Index)
                    else [index.lower, index.upper, index.step]
                    if isinstance(index, cst.Slice)
                    else []
                )
                for part in parts:
                    if part is not None:
                        self.eval(part, env, consumed=True)
            return base if one else BLOCK_VALUE  # one layer keeps the layers' width
        if (
            len(expr.slice) == 1
            and isinstance(expr.slice[0].slice, cst.Index)
            and isinstance(expr.slice[0].slice.value, _STRING_NODES)
        ):
            return UNKNOWN_VALUE  # `d["key"]`, `d[f"level_{i}"]`: a mapping's item, no array
        index_values = []
        is_slice = False
        for element in expr.slice:
            if isinstance(element.slice, cst.Index):
                index_values.append(self.eval(element.slice.value, env, consumed=True))
            elif isinstance(element.slice, cst.Slice):  # the other BaseSlice
                is_slice = True
                for part in (element.slice.lower, element.slice.upper, element.slice.step):
                    if part is not None:
                        self.eval(part, env, consumed=True)
        if base.kind == TENSORS:
            return (
                Value(TENSORS, assumed=base.assumed, shape_reason=base.shape_reason, form=base.form)
                if is_slice
                else piece(base)
                if len(expr.slice) == 1
                else UNKNOWN_VALUE
            )
        if base.kind == SEQUENCE and base.assumed and not is_slice and len(index_values) == 1:
            # `p = args[0]` of hybrid_forward's `*args`: an input, taken for a tensor by
            # position like a named one
            return Value(TENSOR, assumed=True) if index_values[0].kind == SCALAR else UNKNOWN_VALUE
        if (
            base.kind == TENSOR
        ):  # an item of an input taken for a tensor by position may be anything
            return Value(TENSOR, assumed=True) if base.assumed else Value(TENSOR)
        if base.kind == SCALAR and all(v.kind == SCALAR for v in index_values):
            return SCALAR_VALUE  # an item of a tuple of numbers (`in_size[1]`) or of a string
        if base.kind == SHAPE:
            if is_slice:
                return Value(SHAPE)
            return (
                NONNEGATIVE if all(v.kind == SCALAR for v in index_values) else UNKNOWN_VALUE
            )  # a dim
        return UNKNOWN_VALUE

    def array_use(self, expr: cst.BaseExpression, value: Value) -> None:
        """`expr` is used as only an array can be: an input name taken for a tensor by position
        is one (recorded for `FunctionFacts.used_as_array`)."""
        if value.assumed and self.analyzer is not None and isinstance(expr, cst.Name):
            self.facts.array_names.add(expr.value)

    def _eval_BinaryOperation(self, expr: cst.BinaryOperation, env: Env) -> Value:
        left = self.eval(expr.left, env, consumed=True)
        right = self.eval(expr.right, env, consumed=True)
        if left.is_tensor:  # NDArray arithmetic takes only arrays and numbers (TypeError otherwise)
            self.array_use(expr.right, right)
        elif right.is_tensor:
            self.array_use(expr.left, left)
        kinds = {left.kind, right.kind}
        if TENSOR in kinds and not kinds & {TENSORS, SEQUENCE, NAMESPACE, SHAPE, MAPPING}:
            if isinstance(expr.operator, (cst.Add, cst.Multiply)) and not (
                left.is_tensor or right.is_tensor
            ):  # `a + b`, `a * 2` also join/repeat lists
                return Value(TENSOR, assumed=True)
            if not kinds <= {TENSOR, SCALAR}:  # `indices % in_size[1]`: an operand of unknown kind
                reason = LOST if UNKNOWN in kinds else None  # may or may not change the shape
                return Value(TENSOR, None, reason, fresh=True)
            if left.kind == TENSOR and right.kind != TENSOR:  # tensor op scalar keeps the evidence
                return Value(TENSOR, left.shape, left.shape_reason, fresh=True, form=left.form)
            if right.kind == TENSOR and left.kind != TENSOR:
                return Value(TENSOR, right.shape, right.shape_reason, fresh=True, form=right.form)
            shape = left.shape if left.shape == right.shape else None
            return paired(expr, left, right, shape)
        if kinds == {SCALAR}:
            if (
                left.nonnegative
                and right.nonnegative
                and isinstance(expr.operator, (cst.Add, cst.Multiply, cst.FloorDivide, cst.Power))
            ):
                return NONNEGATIVE
            return SCALAR_VALUE
        if kinds == {SHAPE} and isinstance(expr.operator, cst.Add):
            return Value(SHAPE)
        return UNKNOWN_VALUE

    def _eval_UnaryOperation(self, expr: cst.UnaryOperation, env: Env) -> Value:
        operand = self.eval(expr.expression, env, consumed=True)
        if isinstance(expr.operator, cst.Not):
            return SCALAR_VALUE if operand.kind != TENSOR else UNKNOWN_VALUE
        if operand.kind == TENSOR:
            return Value(TENSOR, operand.shape, operand.shape_reason, fresh=True, form=operand.form)
        if operand.kind == SCALAR:  # -n: the sign is no longer known
            return operand if isinstance(expr.operator, cst.Plus) else SCALAR_VALUE
        return UNKNOWN_VALUE

    def _eval_BooleanOperation(self, expr: cst.BooleanOperation, env: Env) -> Value:
        self.eval(expr.left, env, consumed=True)
        self.eval(expr.right, env, consumed=True)
        return UNKNOWN_VALUE

    def _eval_Comparison(self, expr: cst.Comparison, env: Env) -> Value:
        values = [self.eval(expr.left, env, consumed=True)]
        values += [self.eval(c.comparator, env, consumed=True) for c in expr.comparisons]
        if len(values) == 2 and not isinstance(
            expr.comparisons[0].operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)
        ):
            if values[0].is_tensor:
                self.array_use(expr.comparisons[0].comparator, values[1])
            elif values[1].is_tensor:
                self.array_use(expr.left, values[0])
        identity = any(
            isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in expr.comparisons
        )
        if identity:
            return SCALAR_VALUE
        if (
            any(v.kind == TENSOR for v in values)
            and len(values) == 2
            and not any(v.kind in (TENSORS, SEQUENCE, SHAPE) for v in values)
        ):
            kinds = {v.kind for v in values}
            if not any(v.is_tensor for v in values):  # `feats == other` compares lists too
                return Value(TENSOR, assumed=True)
            if kinds == {TENSOR, SCALAR}:  # `flag = err == 0` keeps err's shape evidence
                tensor = values[0] if values[0].kind == TENSOR else values[1]
                return Value(
                    TENSOR, tensor.shape, tensor.shape_reason, fresh=True, form=tensor.form
                )
            if kinds == {TENSOR}:  # `a > b`: the elementwise result of the two shapes
                shape = values[0].shape if values[0].shape == values[1].shape else None
                return paired(expr, values[0], values[1], shape)
            return Value(TENSOR, fresh=True)
        if all(v.kind == SCALAR for v in values):
            return SCALAR_VALUE
        return UNKNOWN_VALUE

    def _eval_IfExp(self, expr: cst.IfExp, env: Env) -> Value:
        self.eval(expr.test, env, consumed=True)
        body_eager, orelse_eager = classify_guard(
            expr.test,
            self.facts.namespace,
            self.facts.module.namespace_kind,
            predicates=self.facts.module.predicates,
        )
        opted_body, opted_orelse = configuration_guard(expr.test, self.facts.klass)
        body_eager, orelse_eager = body_eager or opted_body, orelse_eager or opted_orelse
        fallback = (
            None if body_eager or orelse_eager else configuration_fallback(expr, self.facts.klass)
        )
        if fallback is not None:  # `self.in_size if self.fixed_size else x.shape[2:]`
            body_eager, orelse_eager = fallback is expr.body, fallback is expr.orelse
        if body_eager:
            if self.analyzer is not None:
                self.facts.skip.add(expr.body)
            return self.eval(expr.orelse, env)
        if orelse_eager:
            if self.analyzer is not None:
                self.facts.skip.add(expr.orelse)
            return self.eval(expr.body, env)
        body_env, orelse_env = narrowed(expr.test, env)
        if body_env is env and orelse_env is env:
            return join(self.eval(expr.body, env), self.eval(expr.orelse, env))
        self._narrowing += 1  # what the branches' parts hold needs their narrowed env
        try:
            return join(self.eval(expr.body, body_env), self.eval(expr.orelse, orelse_env))
        finally:
            self._narrowing -= 1

    # calls
    def _eval_Call(self, expr: cst.Call, env: Env) -> Value:
        func = expr.func
        namespace_op = self._namespace_op(func, env)
        args = [self.eval(a.value, env, consumed=namespace_op is not None) for a in expr.args]
        for arg, value in zip(expr.args, args):  # (`keepdims=keepdims` of a helper's parameter)
            if value.flag is not None:
                self._flags[id(arg)] = value.flag
            else:
                self._flags.pop(id(arg), None)
        if namespace_op is not None:
            for arg, value in zip(expr.args, args):
                if not arg.star:
                    self.array_use(arg.value, value)
            return self._op_value(namespace_op, expr, args)
        if self._numpy_number(func, args):
            return SCALAR_VALUE
        if _dynamic_child(func):  # `getattr(self, name)(x)` of children set by setattr
            return self._dynamic_child_call(expr, args)
        fixed_op = self._fixed_namespace_op(func, env)
        if fixed_op is not None and any(
            v.kind == TENSOR or (a.star == "*" and v.kind == TENSORS)
            for a, v in zip(expr.args, args)
        ):
            # `nd.exp(x)` of a tensor: the operator's value (HL006 makes it `F.exp(x)`), so
            # `nd.log1p(nd.exp(x))` and `y = nd.sum(x); helper(y)` meet a tensor too
            return self._op_value(fixed_op, expr, args)
        if isinstance(func, cst.Attribute):
            if isinstance(func.value, cst.Name) and func.value.value == "self":
                return self._self_call(func.attr.value, expr, args)
            if isinstance(func.value, cst.Name) and func.value.value not in env:
                helper = self.facts.module.class_helper(func.value.value, func.attr.value)
                if helper is not None:  # `Head._flatten(F, x)`: a static/class method helper
                    if self.analyzer is not None:
                        self.analyzer.call_site(
                            ("class", func.value.value, func.attr.value), expr, args
                        )
                    return self.facts.module.return_values.get(helper, UNKNOWN_VALUE)
            if func.attr.value in ("hybrid_forward", "forward") and _super_call(func.value):
                # `super(Net, self).hybrid_forward(F, x)`, gluonnlp's CacheCell running its
                # language model's: a block's outputs, an array or a tuple of them, taken for
                # an array by position only (certain where used as one, as an input is)
                return Value(TENSOR, assumed=True)
            base = self.eval(func.value, env)
            if func.attr.value == "expand_dims" and self._optional_input(func.value, base):
                # only MXNet's arrays have this method (numpy's is a function): the result of
                # `mask.expand_dims(-1)`, `mask=None` tested before, is an array, 1 at the axis
                return Value(TENSOR, None, "expand_dims", fresh=True)
            if base.kind == TENSOR:
                if base.assumed and func.attr.value in CONTAINER_ATTRIBUTES:
                    if func.attr.value == "copy" and not expr.args:
                        # a list's copy is a list, an array's an array: the same assumption
                        return replace(base, fresh=True)
                    return UNKNOWN_VALUE  # `d.items()`: a list's or dict's method too
                return self._method_value(func.attr.value, expr, base, args)
            return UNKNOWN_VALUE
        if isinstance(func, cst.Name):
            name = func.value
            if name == "len" and name not in env:
                if (
                    self.analyzer is not None
                    and len(expr.args) == 1
                    and args[0].assumed
                    and isinstance(expr.args[0].value, cst.Name)
                ):  # `len(feats)`: a list input?
                    self.analyzer.sequence_hints.add(expr.args[0].value.value)
                return NONNEGATIVE
            if (
                name in ("int", "float", "bool", "str", "isinstance", "hasattr", "round", "abs")
                and name not in env
            ):
                return SCALAR_VALUE
            if (
                name in ("min", "max")
                and is_builtin(name, env, self.facts.module)
                and compared_arrays(expr, args)
            ):
                # `min(pos * 3, neg)` of arrays returns one of them (cnstd's OHEM): an array,
                # not a new one (`k = max(m, n); k += 1` changes m or n in place)
                return Value(TENSOR, assumed=any(v.assumed for v in args))
            if name in ("list", "tuple") and name not in env:
                if args and (args[0].is_tensor or args[0].kind == TENSORS):
                    return Value(TENSORS, assumed=args[0].assumed)
                return Value(SEQUENCE)
            if name == "range" and name not in env:
                return Value(SEQUENCE)
            if self.analyzer is not None:
                self.analyzer.call_site(("function", name), expr, args)
            if name in env and env[name].kind == BLOCK:  # `for layer in self.features: layer(x)`
                return _block_output(args, env[name], expr)
            helper = self.facts.local_defs.get(name) or self.facts.module.functions.get(name)
            like = self._shaped_like(name, env, args) if helper is None else None
            if like is not None:
                return like
            if helper is None and self._imported_hybrid_helper(name, env, args):
                # `x, y = aug(F, x, y)`, `aug` from another module: a helper given F and
                # arrays returns arrays (or a tuple of them), taken so by position only
                return Value(TENSOR, assumed=True, evidence=f"{name}(F, ...) of another module")
            if helper is None or (name in env and name not in self.facts.local_defs):
                return UNKNOWN_VALUE  # a parameter or variable shadows the module function
            return self.facts.module.return_values.get(helper, UNKNOWN_VALUE)
        block = self.eval(func, env)
        if block.kind == BLOCK:  # `self.features[-1](x)`
            return _block_output(args, block, expr)
        return UNKNOWN_VALUE

    def _shaped_like(self, name: str, env: Env, args: List[Value]) -> Optional[Value]:
        """An imported gluon helper returning an array shaped like one of its arguments
        (`mxnet_facts.SHAPED_LIKE_HELPERS`: `_reshape_like(F, x, y)` has y's shape)."""
        context = self.facts.module.context
        if context is None or name in env or name not in context.imports:
            return None
        position = SHAPED_LIKE_HELPERS.get(context.qualify(name) or "")
        if position is None or position >= len(args) or args[position].kind != TENSOR:
            return None
        like = args[position]
        return Value(TENSOR, like.shape, like.shape_reason, fresh=True, form=like.form)

    def _imported_hybrid_helper(self, name: str, env: Env, args: List[Value]) -> bool:
        """Whether `name(...)` calls a function imported from another module with the hybrid
        namespace and an array among its arguments (`aug(F, embeddings, labels)`)."""
        context = self.facts.module.context
        return (
            context is not None
            and name not in env
            and name in context.from_imports
            and any(a.kind == NAMESPACE for a in args)
            and any(a.kind in (TENSOR, TENSORS) for a in args)
        )

    def _optional_input(self, expr: cst.BaseExpression, value: Value) -> bool:
        """Whether `expr` is a hybrid_forward input of unknown kind (`mask=None`) the body never
        rebinds: gluon passes it as a Symbol when hybridized, unlike a local made eagerly
        (`m = mx.nd.array(...)` stays an NDArray: not a tensor of the graph)."""
        from ._constant_param import binds  # imports analysis, which imports this module

        return (
            value.kind == UNKNOWN
            and isinstance(expr, cst.Name)
            and self.facts.kind == "hybrid_forward"
            and expr.value in self.facts.params
            and not binds(self.facts.node.body, expr.value)
        )

    def _numpy_number(self, func: cst.BaseExpression, args: List[Value]) -> bool:
        """`np.prod([x.shape[d] for d in dim])`, `np.sqrt(n)`: numpy on Python numbers gives a
        number, which arithmetic with a tensor keeps the tensor's shape (a divisor read as
        unknown lost it: U-GAT-IT's `var(...) / (n - 1)`, blind round 14)."""
        context = self.facts.module.context
        qualified = context.qualify(dotted_name(func)) if context is not None else None
        if qualified is None or not qualified.startswith("numpy."):
            return False
        name = qualified[len("numpy.") :]
        if any(v.kind in (TENSOR, TENSORS) for v in args):
            return False
        if name in _NUMPY_REDUCTIONS:
            return True  # of a sequence or a number: one number
        return name in _NUMPY_ELEMENTWISE and all(v.kind == SCALAR for v in args)

    def _namespace_op(self, func: cst.BaseExpression, env: Env) -> Optional[str]:
        """`F.contrib.arange_like` -> "contrib.arange_like" when F holds the namespace."""
        head, dot, op = (dotted_name(func) or "").partition(".")
        if not dot or env.get(head, UNKNOWN_VALUE).kind != NAMESPACE:
            return None
        if op.startswith(("np.", "npx.")):
            self.facts.numpy = True
        return op

    def _fixed_namespace_op(self, func: cst.BaseExpression, env: Env) -> Optional[str]:
        """`nd.contrib.arange_like` -> "contrib.arange_like" when `nd` is an import of mx.nd (or
        mx.sym; `from mxnet.ndarray import relu` for a bare `relu`), not a local name."""
        dotted = dotted_name(func)
        context = self.facts.module.context
        if dotted is None or context is None or dotted.split(".")[0] in env:
            return None
        if "." not in dotted and dotted not in context.imports:
            return None
        resolved = fixed_namespace_op(context.qualify(dotted))
        return resolved[0] if resolved is not None else None

    def _op_value(self, op: str, call: cst.Call, args: List[Value]) -> Value:
        outputs = MULTI_OUTPUT_COUNTS.get(op)
        if outputs is not None:  # `F.linalg.slogdet(a)[1]` selects an output in both modes
            return Value(TENSORS, outputs=outputs, evidence=f"{op} has {outputs} outputs")
        parts = op.split(".")
        if (
            op in NON_TENSOR_OPS
            or len(parts) > 2
            or (len(parts) == 2 and parts[0] not in OP_SUBNAMESPACES)
        ):
            return UNKNOWN_VALUE
        if any(a.keyword is not None and a.keyword.value in MULTI_OUTPUT_ATTRS for a in call.args):
            return UNKNOWN_VALUE
        if op in MULTI_OUTPUT_OPS:
            num = call_argument(call, 1, "num_outputs") or call_argument(
                call, 1, "indices_or_sections"
            )
            count = literal_int(num.value) if num is not None else None
            data = args[0] if args else UNKNOWN_VALUE
            if count is None and num is not None:
                # `F.split(x, self.groups)`: a list of arrays, or one array when the count is
                # 1 (whose rows, iterated or indexed, are arrays too): taken by position
                return _pieces(Value(TENSORS, assumed=True), call, data, 1)
            return (
                _pieces(Value(TENSORS, outputs=count), call, data, 1)
                if count is not None and count > 1
                else UNKNOWN_VALUE
            )
        first = args[0] if args else UNKNOWN_VALUE
        if (
            op in ("maximum", "minimum")
            and len(args) >= 2
            and {args[0].kind, args[1].kind} == {TENSOR, SCALAR}
        ):
            tensor = args[0] if args[0].kind == TENSOR else args[1]  # F.maximum(x, 1.0): x's shape
            return Value(TENSOR, tensor.shape, tensor.shape_reason, fresh=True, form=tensor.form)
        if op in BROADCAST_BINARY or op in ("maximum", "minimum"):
            operands = [
                v
                for a, v in zip(call.args, args)
                if a.keyword is None or a.keyword.value in ("lhs", "rhs")
            ]
            if len(operands) == 2 and all(v.kind == TENSOR for v in operands):
                # the broadcast of two known shapes is known; F.maximum(a, b) broadcasts too
                shape = _broadcast_shape(operands[0].shape, operands[1].shape)
                if op in ("maximum", "minimum") and operands[0].shape != operands[1].shape:
                    shape = None
                return paired(call, operands[0], operands[1], shape)
        gate = op_gate(op, call, self._op_form("identity", call, args, 1))
        if gate is not None:  # a (B, C, 1, 1) gate of the pooled array's form (`_pooled`)
            return gate
        form = self._op_form(op, call, args, 1) or forms.root(f"@{id(call)}")
        if op == "dot" and _literal_flag(call_argument(call, None, "transpose_a")):
            # `F.dot(p, x, transpose_a=True)` contracts the first axis (a batch: ClusterNorm's
            # per-cluster sums): nothing says the result is shaped like the inputs or not
            return Value(TENSOR, None, LOST, fresh=True, form=form)
        return Value(TENSOR, *self._op_shape(op, call, first), fresh=True, form=form)

    def _op_form(self, op: str, call: cst.Call, args: List[Value], at: int) -> Optional[forms.Form]:
        """The form (`_shape_forms`) of `F.<op>(data, ...)` (at=1: the first argument is the
        data) or of the method `data.<op>(...)` (at=0), from literal arguments only."""
        if op == "where" and at:  # where(condition, x, y) has x's shape (and y's)
            positional = len(call.args) > 1 and all(a.keyword is None for a in call.args[:2])
            x = args[1] if positional and len(args) > 1 else UNKNOWN_VALUE
            return x.form if x.kind == TENSOR else None
        items = _starred_list(call, args) if at and op == "stack" else None
        if items is not None:
            axis_arg = call_argument(call, None, "axis")
            axis = _literal_axes(axis_arg) if axis_arg is not None else (0,)
            if items.item_form is None or not axis or len(axis) != 1:
                return None
            # the items' form with an axis of their count (unknown) inserted
            return forms.expand(items.item_form, axis[0], None)
        data = (args[0] if args else UNKNOWN_VALUE) if at else self._method_base
        if data.kind != TENSOR or (at and (not call.args or call.args[0].keyword is not None)):
            return None
        node = call.args[0].value if at else call.func.value  # type: ignore[attr-defined]
        # an array of unknown form is a root of its own: its reduction still has its 1s
        data = data if data.form is not None else with_form(data, forms.root(f"@{id(node)}"))
        if op in LIKE_OPS or op in (SHAPE_PRESERVING_METHODS if at == 0 else SHAPE_PRESERVING):
            return data.form
        if op == "expand_dims":
            axis = _literal_axes(call_argument(call, at, "axis"))
            return forms.expand(data.form, axis[0]) if axis and len(axis) == 1 else None
        if at and op in ("stack", "concat", "Concat") and _one_positional(call):
            # `F.stack(a, axis=-1)` of one array is `a.expand_dims(-1)`, `F.concat(a, dim=1)`
            # is `a` (blind round 17: `F.stack(a, axis=-1) * F.stack(b, axis=-1)` with a
            # (B, 1) and b (B, 10) was a silent pass)
            if op == "stack":
                axis_arg = call_argument(call, None, "axis")
                axis = _literal_axes(axis_arg) if axis_arg is not None else (0,)
                return forms.expand(data.form, axis[0]) if axis and len(axis) == 1 else None
            return data.form
        if op in REDUCTION_PARAMETERS:
            axis_arg = _reduction_argument(call, op, at, "axis")
            axis = _literal_axes(axis_arg) if axis_arg is not None else None
            keep = self._flag(_reduction_argument(call, op, at, "keepdims"))
            exclude = _literal_flag(_reduction_argument(call, op, at, "exclude"))
            if (axis_arg is not None and axis is None) or keep is None or exclude is None:
                return None
            if op == "pick" and axis_arg is None:
                axis = (-1,)
            if op in ("argmax", "argmin") and axis_arg is None:
                return None  # a flattened index
            return forms.reduce(data.form, axis, keep, exclude)
        if op == "transpose":
            axes_arg = call_argument(call, at, "axes")
            axes = _literal_axes(axes_arg) if axes_arg is not None else None
            if axes_arg is not None and axes is None:
                return None
            return forms.transpose(data.form, axes or None)
        if op in ("swapaxes", "SwapAxis"):
            first, second = (
                _literal_axes(call_argument(call, at, "dim1")),
                _literal_axes(call_argument(call, at + 1, "dim2")),
            )
            if first and second and len(first) == len(second) == 1:
                return forms.swap(data.form, first[0], second[0])
            return None
        if op == "squeeze":
            axis = _literal_axes(call_argument(call, at, "axis"))
            return forms.squeeze(data.form, axis) if axis else None
        if op in ("reshape", "Reshape") and call_argument(call, None, "reverse") is None:
            if at == 0 and len(call.args) > 1 and all(a.keyword is None for a in call.args):
                codes = _literal_axes(cst.Arg(cst.Tuple([cst.Element(a.value) for a in call.args])))
            else:
                codes = _literal_axes(call_argument(call, at, "shape"))
            return forms.reshape(data.form, codes) if codes else None
        other = args[at] if at < len(args) else UNKNOWN_VALUE
        if op in ("reshape_like", "broadcast_like") and len(call.args) == 2 - (1 - at):
            return other.form  # the shape of `like` (no begin/end or axes keywords)
        return None

    def _op_shape(
        self, op: str, call: cst.Call, first: Value
    ) -> Tuple[Optional[Shape], Optional[str]]:
        if op in CREATION_OPS:
            arg = call_argument(call, 0, "shape")
            return _creation_shape(arg.value if arg else None), "literal"
        if op == "broadcast_like" and call_argument(call, None, "lhs_axes") is not None:
            # `F.broadcast_like(F.zeros((1, 1)), x, lhs_axes=(0,), rhs_axes=(0,))`: the data's
            # shape with x's dims at lhs_axes, its other 1s kept (HL001's rewrite of
            # `F.zeros((n, 1))` must not hide the broadcast HL007 saw in `x + F.zeros((n, 1))`)
            axes = _literal_axes(call_argument(call, None, "lhs_axes"))
            if first.shape is None or not axes:
                return None, None
            widened: List[Optional[int]] = list(first.shape)
            for lhs_axis in axes:
                if not -len(widened) <= lhs_axis < len(widened):
                    return None, None
                widened[lhs_axis] = None
            return tuple(widened), first.shape_reason
        if op in LIKE_OPS or op in SHAPE_PRESERVING:
            return first.shape, first.shape_reason
        if op == "slice_axis" and first.shape is not None:
            return _sliced_shape(call, first.shape), first.shape_reason
        if op == "squeeze" and first.shape is not None:
            return _squeezed_shape(call, first.shape), first.shape_reason
        if op == "slice_like" and first.shape is not None:
            # `F.slice_like(grid, x, axes=(1, 2))`: the other axes keep their dims (a leading
            # 1 kept for broadcasting stays 1); without axes it has the shape of `like`
            axes = _literal_axes(call_argument(call, 2, "axes"))
            if not axes or any(not -len(first.shape) <= a < len(first.shape) for a in axes):
                return None, None
            cut = {a % len(first.shape) for a in axes}
            return tuple(None if i in cut else d for i, d in enumerate(first.shape)), (
                first.shape_reason
            )
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
            keep = (
                _reduction_argument(call, op, 1, "keepdims")
                if op in REDUCTION_PARAMETERS
                else call_argument(call, None, "keepdims")
            )
            keeps = self._flag(keep) is True
            axis_arg = (
                _reduction_argument(call, op, 1, "axis")
                if op in REDUCTION_PARAMETERS
                else call_argument(call, 1, "axis")
            )
            if (
                op in FULL_REDUCTIONS
                and not keeps
                and axis_arg is None
                and call_argument(call, None, "exclude") is None
            ):
                return (1,), "reduction"  # no axis: MXNet 1.x reduces to shape (1,)
            if keeps:
                return _keepdims_shape(call, op, 1, axis_arg, first.shape), "reduction_keepdims"
            return _kept_axes(call, op, 1, axis_arg), "reduction"
        if op in ("reshape", "Reshape"):
            arg = call_argument(call, 1, "shape")
            if call_argument(call, None, "reverse") is not None:
                return None, "reshape"
            return reshape_target(arg.value if arg else None), "reshape"
        return None, None

    _method_base: Value = UNKNOWN_VALUE  # the array a method is called on (`_op_form` reads it)

    def _method_value(self, method: str, call: cst.Call, base: Value, args: List[Value]) -> Value:
        if method == "asscalar":
            return SCALAR_VALUE
        if method in STATIC_ATTRS or method in NON_TENSOR_ATTRS or method == "shape":
            return UNKNOWN_VALUE  # `x.size()`: an NDArray's size is an int (calling it raises)
        if method in NON_TENSOR_METHODS:
            if method == "split":
                num = call_argument(call, None, "num_outputs")
                count = literal_int(num.value) if num is not None else None
                return (
                    _pieces(Value(TENSORS, outputs=count or 0), call, base, 0)
                    if count is None or count > 1
                    else UNKNOWN_VALUE
                )
            return UNKNOWN_VALUE
        self._method_base = base
        form = self._op_form(method, call, args, 0)
        if method == "reshape":
            if any(a.keyword is not None and a.keyword.value == "reverse" for a in call.args):
                return Value(TENSOR, None, "reshape")
            target: Optional[cst.BaseExpression] = None
            if len(call.args) == 1:
                target = call.args[0].value
            elif call.args and all(a.keyword is None for a in call.args):
                target = cst.Tuple([cst.Element(a.value) for a in call.args])
            return Value(TENSOR, reshape_target(target), "reshape", form=form)
        if method in REDUCTIONS:
            full = method in FULL_REDUCTIONS and not call.args  # x.sum(): shape (1,)
            keep = _reduction_argument(call, method, 0, "keepdims")
            keeps = self._flag(keep)
            reason = "reduction_keepdims" if keeps else "reduction"
            axis = _reduction_argument(call, method, 0, "axis")
            shape = (
                (1,)
                if full
                else _keepdims_shape(call, method, 0, axis, base.shape)
                if keeps is True
                else None
                if keeps is not False
                else _kept_axes(call, method, 0, axis)
            )
            return Value(TENSOR, shape, reason, fresh=False, form=form)
        if method == "expand_dims":
            return Value(TENSOR, None, "expand_dims", form=form)
        if method in SHAPE_PRESERVING_METHODS:
            # `(a / b).floor()`, `x.astype("float32")`: a's shape and its evidence
            return Value(TENSOR, base.shape, base.shape_reason, form=form)
        return Value(TENSOR, form=form or forms.root(f"@{id(call)}"))

    def _child_array_uses(self, built: str, call: cst.Call, args: List[Value]) -> None:
        """`self.head(x)` where Head's hybrid_forward uses that input as only an array can
        be used: x is an array here too (`ClassFacts.array_inputs`). A name two classes of
        the module share says nothing (which one `Head` is depends on the scope)."""
        module = self.facts.module
        child = module.classes.get(built)
        if child is None or built in module.shared_class_names:
            return
        settled = child.array_inputs()
        for index, (arg, value) in enumerate(zip(call.args, args)):
            if arg.star or arg.keyword is not None or index >= len(settled):
                break
            if settled[index] is not None:
                self.array_use(arg.value, value)

    def _dynamic_child_call(self, call: cst.Call, args: List[Value]) -> Value:
        """`getattr(self, name)(x)`: a child `__init__` stored with `setattr(self, ...)`; its
        result is what every such child returns when they all return one kind of value (a
        tensor of gluon layers), else unknown (a method, a list of outputs, unknown blocks)."""
        klass = self.facts.klass
        children = klass.dynamic_children if klass is not None else []
        if not children or any(c.kind != TENSOR or c.items is not None for c in children):
            return UNKNOWN_VALUE
        return Value(TENSOR, fresh=True, form=forms.root(f"@{id(call)}"))

    def _self_call(self, attr: str, call: cst.Call, args: List[Value]) -> Value:
        klass = self.facts.klass
        if klass is None:
            return UNKNOWN_VALUE
        if attr in klass.rnn_layers:
            return rnn_layer_call(call, args)
        if attr in klass.array_layers:  # a gluon layer computes on arrays only
            for arg, value in zip(call.args, args):
                if not arg.star:
                    self.array_use(arg.value, value)
        if attr in klass.children:
            built = klass.built_children.get(attr)
            if self.analyzer is not None and built:
                # `self.head(x)` with `self.head = Head(...)`: evidence for Head's inputs
                self.analyzer.call_site(("child", attr), call, args)
                self._child_array_uses(built, call, args)
            gate = child_gate(klass.shape_effects.get(attr), args[0] if args else UNKNOWN_VALUE)
            if gate is not None:  # a (B, C, 1, 1) gate of the pooled array's form (`_pooled`)
                return gate
            value = klass.children[attr]
            if value.kind == UNKNOWN and attr in klass.foreign_children:
                # an imported block (`self.res_net1 = resnet.resnet18_v1()`): as a block handed
                # to the constructor, its result on arrays is taken for an array by position
                return _block_output(args)
            if value.kind == TENSOR and value.form is None and value.items is None:
                # each call's result is an array of its own (`x = self.conv(x)`, then pooled)
                value = with_form(value, forms.root(f"@{id(call)}"))
                channels = klass.channels_of(attr)
                if channels is not None:  # a convolution's: its channel count at axis 1
                    rank = klass.conv_channels[attr][1]
                    dim: forms.Dim = 1 if channels == "1" else f"ch:{channels}"
                    value = with_form(value, forms.sized(value.form, rank, 1, dim))
                elif attr in klass.dense_units:  # a flattening Dense's: (batch, units)
                    value = with_form(value, forms.sized(value.form, 2, 1, klass.units_of(attr)))
            return value
        method = klass.methods.get(attr)
        if method is None:
            if (
                attr in klass.built_children
                and attr not in klass.scalar_attrs
                and attr not in klass.parameters
            ):
                # a block handed to the constructor (`self.backbone = backbone`): as any block
                # known only as one, an array by position when called on arrays
                return _block_output(args)
            return UNKNOWN_VALUE
        if self.analyzer is not None:
            self.analyzer.call_site(("method", attr), call, args)
        return self.facts.module.return_values.get(method, UNKNOWN_VALUE)


BLOCK_VALUE = Value(BLOCK)


def _block_output(
    args: List[Value], block: Optional[Value] = None, call: Optional[cst.Call] = None
) -> Value:
    """A block known only as a block (a container child's layer, an imported block), called:
    gluon blocks return an array, or a list or tuple of them; taken for an array by position
    only when it is given one (as the result of a block handed to the constructor is), certain
    where the body uses it as only an array can. A layer of flattening Dense layers of one
    width (`Value.layer_width`) gives (batch, width), an array of its own per call."""
    if not any(v.kind == TENSOR for v in args):
        return UNKNOWN_VALUE
    if block is not None and block.layer_width is not None and call is not None:
        root = forms.root(f"@{id(call)}")
        return Value(TENSOR, form=forms.sized(root, 2, 1, block.layer_width))
    return Value(TENSOR, assumed=True)


def reshape_target(node: Optional[cst.BaseExpression]) -> Optional[Shape]:
    """The output shape a literal reshape target determines: positive literals are known dims,
    0 (copy), -1 (infer) and non-literal elements one unknown dim each; None when a code that
    changes the rank (-2, -3, -4) or a non-tuple target makes positions uncertain."""
    if node is None:
        return None
    single = literal_int(node)
    if single is not None:
        return (single,) if single > 0 else None
    if not isinstance(node, (cst.Tuple, cst.List)) or not node.elements:
        return None
    dims: List[Optional[int]] = []
    for element in node.elements:
        if not isinstance(element, cst.Element):
            return None
        value = literal_int(element.value)
        if value is not None and value < -1:
            return None
        dims.append(value if value is not None and value > 0 else None)
    return tuple(dims)


_STRING_NODES = (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)
# Attributes a list, tuple or dict also has: calling them proves nothing about an array.
CONTAINER_ATTRIBUTES = frozenset(dir(list)) | frozenset(dir(tuple)) | frozenset(dir(dict))


def _reduction_argument(call: cst.Call, op: str, at: int, name: str) -> Optional[cst.Arg]:
    """The argument `name` of the reduction `op` (by keyword, or by position after the data:
    `at` is 1 for `F.sum(x, 1)`, 0 for `x.sum(1)`); None when absent or not a parameter."""
    names = REDUCTION_PARAMETERS.get(op, ())
    if name not in names:
        return None
    return call_argument(call, at + names.index(name), name)


SPLIT_PIECE = "split_piece"  # a Value.shape_reason: one channel of a convolution's output each


def _pieces(pieces: Value, call: cst.Call, data: Value, at: int) -> Value:
    """`pieces` (the TENSORS of `split`, `at` the position of its `num_outputs`) with the form
    each piece has when the split cuts a convolution's output into one channel each
    (`s.split(num_outputs=self.parts, axis=1)` of `nn.Conv2D(parts)`): 1 on that axis."""
    if data.form is None or op_flag(call, at + 2, "squeeze_axis") is not False:
        return pieces
    num = call_argument(call, at, "num_outputs")
    axis_arg = call_argument(call, at + 1, "axis")
    axis = literal_int(axis_arg.value) if axis_arg is not None else 1
    spelled = size_spelling(num.value) if num is not None else None
    if axis is None or spelled is None:
        return pieces
    form = forms.split_piece(data.form, axis, f"ch:{spelled}")
    return replace(pieces, shape_reason=SPLIT_PIECE, form=form) if form is not None else pieces


def op_flag(call: cst.Call, position: int, keyword: str) -> Optional[bool]:
    """A bool argument of `call`: False when absent, its literal value, None when not literal."""
    arg = call_argument(call, position, keyword)
    if arg is None:
        return False
    value = arg.value
    if isinstance(value, cst.Name) and value.value in ("True", "False"):
        return value.value == "True"
    number = literal_int(value)
    return None if number is None else bool(number)


def _literal_axes(arg: Optional[cst.Arg]) -> Optional[Tuple[int, ...]]:
    """`1` -> (1,), `(0, 2)` -> (0, 2), `-1` -> (-1,); None for anything not literal ints."""
    if arg is None:
        return None
    single = literal_int(arg.value)
    if single is not None:
        return (single,)
    if not isinstance(arg.value, (cst.Tuple, cst.List)):
        return None
    values = [
        literal_int(e.value) if isinstance(e, cst.Element) else None for e in arg.value.elements
    ]
    return None if None in values else tuple(v for v in values if v is not None)


def _kept_axes(
    call: cst.Call, op: str, at: int, axis: Optional[cst.Arg]
) -> Optional[Tuple[None, ...]]:
    """The shape of `F.sum(x, axis=0, exclude=True)` (no keepdims): the axes listed, each of
    unknown size (`(None,)`: a per-sample value), or None when that is not certain. The axis
    is literal ints, or gluon Loss's `self._batch_axis` (one int, as Loss documents it)."""
    if op not in REDUCTION_PARAMETERS or "exclude" not in REDUCTION_PARAMETERS[op]:
        return None
    if _literal_flag(_reduction_argument(call, op, at, "exclude")) is not True:
        return None
    axes = _literal_axes(axis)
    if axes is not None:
        if len(axes) > 1 and any(a < 0 for a in axes):
            return None  # `(0, -1)` may name one axis twice: how many are kept is not known
        return (None,) * len(set(axes)) if axes else None
    if axis is not None and dotted_name(axis.value) == "self._batch_axis":
        return (None,)
    return None


def _keepdims_shape(
    call: cst.Call, op: str, at: int, axis: Optional[cst.Arg], source: Optional[Shape]
) -> Optional[Shape]:
    """The shape of a reduction with keepdims=True of an array of shape `source`: its dims with
    the reduced axes 1 (literal axes; none given, or `()`, reduces every axis, as MXNet 1.x
    does), so `F.sum(t, axis=0, keepdims=True)` of a `(-1, 1152, 10)` reshape is known to be
    `(1, 1152, 10)`. None when the rank is not known, an axis is not a literal in range, or
    the reduction runs over the other axes (`exclude=True`)."""
    if source is None:
        return None
    if op in REDUCTION_PARAMETERS and "exclude" in REDUCTION_PARAMETERS[op]:
        if _literal_flag(_reduction_argument(call, op, at, "exclude")) is not False:
            return None
    rank = len(source)
    if axis is None:
        if op not in FULL_REDUCTIONS:
            return None  # argmax/pick without an axis: not a reduction of every axis
        axes: Tuple[int, ...] = tuple(range(rank))
    else:
        literal = _literal_axes(axis)
        if literal is None:
            return None
        axes = literal or tuple(range(rank))
    positions = {a + rank if a < 0 else a for a in axes}
    if any(not 0 <= a < rank for a in positions):
        return None
    return tuple(1 if i in positions else d for i, d in enumerate(source))


TRUE_VALUE, FALSE_VALUE = Value(SCALAR, flag=True), Value(SCALAR, flag=False)
# numpy functions that make one number of a sequence of numbers, and those that map a number
# to a number (`_numpy_number`)
_NUMPY_REDUCTIONS = frozenset(("prod", "sum", "mean", "max", "min", "amax", "amin"))
_NUMPY_ELEMENTWISE = frozenset(
    ("sqrt", "floor", "ceil", "log", "log2", "exp", "abs", "float32", "float64", "int32", "int64")
)


def _starred_list(call: cst.Call, args: List[Value]) -> Optional[Value]:
    """The list of `F.stack(*items, axis=...)`: one starred TENSORS and keywords only."""
    if not call.args or call.args[0].star != "*" or not args or args[0].kind != TENSORS:
        return None
    if any(a.keyword is None for a in call.args[1:]):
        return None
    return args[0]


def is_builtin(name: str, env: Env, module: "ModuleFacts") -> bool:
    """`name` is Python's builtin here: no local, module function or import shadows it
    (`from mxnet.ndarray import maximum as max`, a module's own `def min(a, b)`)."""
    if name in env or name in module.functions:
        return False
    context = module.context  # `bound`: every name the module binds, absolute imports included
    return context is None or (name not in context.bound and name not in context.from_imports)


def compared_arrays(call: cst.Call, args: List[Value]) -> bool:
    """`min(a, b)` / `max(a, b, c)`: two or more positional arguments, all arrays, none
    starred, no `key=` or `default=` (the builtin then returns one of the arrays)."""
    return (
        len(call.args) >= 2
        and all(a.keyword is None and not a.star for a in call.args)
        and all(v.kind == TENSOR for v in args)
    )


def _one_positional(call: cst.Call) -> bool:
    """`F.stack(a, axis=-1)`: one array and keywords only, none of them a count of arrays
    other than 1 (a starred argument may hold many)."""
    if len(call.args) < 1 or call.args[0].keyword is not None or call.args[0].star:
        return False
    if any(a.keyword is None for a in call.args[1:]):
        return False
    count = call_argument(call, None, "num_args")
    return count is None or literal_int(count.value) == 1


def _literal_flag(arg: Optional[cst.Arg]) -> Optional[bool]:
    """A boolean argument: False when absent, its value when literal, None otherwise."""
    if arg is None:
        return False
    name = dotted_name(arg.value)
    if name in ("True", "False"):
        return name == "True"
    value = literal_int(arg.value)
    return None if value is None else bool(value)


def paired(node: cst.CSTNode, left: Value, right: Value, shape: Optional[Shape]) -> Value:
    """The value of an elementwise operator on two tensors (`a * b`, `a > b`, `F.maximum(a,
    b)`, `F.broadcast_add(a, b)`): the form of the broadcast when both share a root, a fresh
    root otherwise; the shape evidence both operands share is kept, unless their shapes
    differ (then the result is the broadcast, neither operand's shape: `(m, 1) + (1, n)`)."""
    if LOST in (left.shape_reason, right.shape_reason):  # nothing known of one side's shape
        form = forms.broadcast(left.form, right.form) or forms.root(f"@{id(node)}")
        return Value(TENSOR, None, LOST, fresh=True, form=form)
    reason = left.shape_reason if left.shape_reason == right.shape_reason else None
    if reason is not None and left.shape == right.shape:
        relation = forms.compare(left.form, right.form)
        sides = forms.ones(left.form), forms.ones(right.form)
        pairwise = all(any(side) for side in sides) and sides[0] != sides[1]
        # one operand's 1s placed, the other's not (a keepdims sum along axis 1 against one
        # of a transposed array of unknown rank): nothing says the result keeps either's
        one_placed = any(sides[0]) != any(sides[1])
        if relation == "differ" or (relation is None and (pairwise or one_placed)):
            reason = None
    elif left.shape != right.shape:
        reason = None
    form = forms.broadcast(left.form, right.form) or forms.root(f"@{id(node)}")
    return Value(TENSOR, shape, reason, fresh=True, form=form)


def _creation_shape(node: Optional[cst.BaseExpression]) -> Optional[Shape]:
    """The shape `F.ones((1, self._units))` makes: the literal dims known, the others None (the
    rank and the literal 1s are still shape evidence for HL007)."""
    shape = literal_shape(node)
    if shape is not None or not isinstance(node, (cst.Tuple, cst.List)) or not node.elements:
        return shape
    if any(not isinstance(e, cst.Element) for e in node.elements):
        return None  # a starred element: the rank is unknown
    return tuple(constant_int(e.value) for e in node.elements)


def _broadcast_shape(a: Optional[Shape], b: Optional[Shape]) -> Optional[Shape]:
    """numpy-style broadcast of two shapes of equal rank (None = unknown dim), else None."""
    if a is None or b is None or len(a) != len(b):
        return None
    dims = []
    for x, y in zip(a, b):
        if x == 1:
            dims.append(y)
        elif y == 1 or x == y:
            dims.append(x)
        elif x is None or y is None:
            dims.append(x if y is None else y)  # a valid broadcast makes the unknown one equal
        else:
            return None
    return tuple(dims)


def rnn_layer_call(call: cst.Call, args: List[Value]) -> Value:
    """What calling a gluon recurrent layer (`self.rnn = rnn.LSTM(...)`) returns. MXNet 1.9.1's
    `_RNNLayer.__call__` returns the output alone when `states` is None (omitted or passed as
    None) and the pair (output, new states) otherwise: so the data alone or a literal None give
    a fresh tensor; states that are surely not None (a list or tuple display, a sequence, a
    tensor) give the pair, the states a list; states that may be None (a name defaulting to
    None) give an unknown value."""
    keywords = [a.keyword.value for a in call.args if a.keyword is not None]
    if (
        not call.args
        or len(call.args) > 2
        or call.args[0].keyword is not None
        or any(a.star for a in call.args)
        or any(k != "states" for k in keywords)
    ):
        return UNKNOWN_VALUE
    given = list(zip(call.args, args))[1:]
    if not given or (isinstance(given[0][0].value, cst.Name) and given[0][0].value.value == "None"):
        return Value(TENSOR, fresh=True)
    arg, value = given[0]
    if (
        isinstance(arg.value, (cst.List, cst.Tuple))
        or value.kind in (SEQUENCE, TENSORS)
        or (value.is_tensor)
    ):
        return Value(SEQUENCE, items=(Value(TENSOR, fresh=True), Value(SEQUENCE)))
    return UNKNOWN_VALUE


def _super_call(expr: cst.BaseExpression) -> bool:
    """`super()` or `super(Cls, obj)`."""
    return isinstance(expr, cst.Call) and dotted_name(expr.func) == "super"


def _sliced_shape(call: cst.Call, shape: Shape) -> Optional[Shape]:
    """`F.slice_axis(x, axis=a, begin=b, end=e)` of a known shape, literal a, b, e (end None:
    to the end), Python's slice rules as MXNet's: the shape with that axis's length."""
    axis, begin, end = (
        call_argument(call, i, k) for i, k in ((1, "axis"), (2, "begin"), (3, "end"))
    )
    a = literal_int(axis.value) if axis else None
    b = literal_int(begin.value) if begin else None
    if a is None or b is None or end is None or not -len(shape) <= a < len(shape):
        return None
    to_end = isinstance(end.value, cst.Name) and end.value.value == "None"
    e = None if to_end else literal_int(end.value)
    if e is None and not to_end:
        return None
    dim = shape[a]
    if not isinstance(dim, int):
        return None
    dims = list(shape)
    dims[a] = len(range(dim)[b:e])
    return tuple(dims)


def _squeezed_shape(call: cst.Call, shape: Shape) -> Optional[Shape]:
    """`F.squeeze(x, axis=a)` of a known shape: the 1s at the literal axes dropped, and a
    shape left empty is (1,) in MXNet 1.x (`squeeze` of a (1,) array is (1,))."""
    arg = call_argument(call, 1, "axis")
    axes = _literal_axes(arg) if arg is not None else None
    if not axes:
        return None
    rank = len(shape)
    picked = {a % rank for a in axes if -rank <= a < rank}
    if len(picked) != len(axes) or any(shape[a] != 1 for a in picked):
        return None
    kept = tuple(d for i, d in enumerate(shape) if i not in picked)
    return kept or (1,)


def _dynamic_child(func: cst.BaseExpression) -> bool:
    """`getattr(self, <name>)` called: a child looked up by a computed name."""
    return (
        isinstance(func, cst.Call)
        and isinstance(func.func, cst.Name)
        and func.func.value == "getattr"
        and len(func.args) == 2
        and not any(a.star or a.keyword for a in func.args)
        and isinstance(func.args[0].value, cst.Name)
        and func.args[0].value.value == "self"
    )
