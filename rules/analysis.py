"""The shared per-function analysis every rule reads (computed once, never re-derived).

What it decides, per analysed function (hybrid_forward, helper methods and helper functions
reached from it with F or tensors):
- the namespace parameter (by position: the first parameter after self, whatever its name);
- which hybrid_forward inputs are lists of arrays rather than arrays (`list_inputs`), and which
  the body uses as tensors, with no evidence of a list (`_input_uses.tensors_by_use`);
- which helpers it reaches: `self.<m>(...)`, module and nested functions, static or
  class methods called through a module class's name (`Head._flatten(F, x)`), and the
  methods of a plain object the function builds and hands F (`dist = Dist(m, s, F=F);
  dist.kl_div(o)`: `_instances`), where `self.F` holds the namespace;
- what every name holds at every statement (`Value`: tensor, sequence of tensors, scalar,
  shape tuple, namespace, Parameter, unknown), by a small forward abstract interpretation;
- eager-only regions (guarded by `F is mx.nd`, `isinstance(x, nd.NDArray)`, after
  `if F is mx.sym: raise`), which rules never see;
- known shapes where evident, with the evidence that a shape may differ (for HL007);
- for in-place rules: whether an array is freshly created and whether it was aliased.

Precision before recall: whatever is not certain is UNKNOWN, and rules report only certainties.
"""

from __future__ import annotations

import ast
import re
from collections import ChainMap
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import (
    TYPE_CHECKING,
    AbstractSet,
    Any,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Set,
    Tuple,
    Union,
    cast,
)

import libcst as cst

from ..cstwalk import visit_only
from ..project import OPAQUE, Constructions, ExampleInputs
from ._factories import bound_call, factory_value, returns
from ._init_arrays import array_shape, shapes_before
from ._build import source_of
from ._index_lists import number_lists
from ._parameter_lists import parameter_lists
from ._pooled import child_effect
from ._dim_bindings import FunctionScan, scan_function
from ._sliced_arrays import sliced_arrays
from . import _shape_forms as forms
from .evaluate import FALSE_VALUE, TRUE_VALUE, Evaluator
from .flow import FunctionAnalyzer
from ._input_uses import tensors_by_use
from .guards import always_exits, classify_guard, normalized_code  # noqa: F401  (re-exported)
from .module_context import ModuleContext
from ._instances import InstanceClass, instance_class

if TYPE_CHECKING:  # typing.TypeGuard is Python 3.10+; only the annotations (postponed) name it
    from typing_extensions import TypeGuard

from .values import *  # noqa: F401,F403  (re-exported: rules import kinds and readers from here)
from .values import (
    BLOCK,
    CONFIGURED_ARRAY,
    UNKNOWN,
    bound_targets,
    target_names,
    class_method,
    last_name,
    self_attribute_name,
    unpacked,
    piece,
    size_spelling,
    annotation_value,
    EAGER_NAMESPACES,
    NESTED_SCOPES,
    MAPPING,
    SCALAR,
    SCALAR_VALUE,
    SYMBOL_NAMESPACES,
    NAMESPACE,
    SEQUENCE,
    RNN_LAYERS,
    SINGLE_OUTPUT_LAYERS,
    TENSOR,
    TENSORS,
    UNKNOWN_VALUE,
    Env,
    Shape,
    Value,
    call_argument,
    dotted_name,
    iterated_names,
    join,
    with_form,
    join_envs,
    literal_int,
    literal_shape,
    parameter_names,
    walk_nodes,
)


@dataclass(eq=False)
class ClassFacts:
    """Facts about a class that defines hybrid_forward."""

    node: cst.ClassDef
    name: str
    methods: Dict[str, cst.FunctionDef] = field(default_factory=dict)
    scalar_attrs: Set[str] = field(default_factory=set)  # self.<a> = number in __init__
    # attributes SOME `__init__` write sets to a literal tuple or list of numbers (`self.rows
    # = [0, 2]`, whatever other branches store): an index with one may be a list of rows, not
    # an int (HL003 must not slice with it); later writes do not clear it
    scalar_sequences: Set[str] = field(default_factory=set)
    parameters: Dict[str, Optional[Shape]] = field(default_factory=dict)  # self.<p> = params.get
    # attributes `__init__` fills with Parameters in a list (`self.ws = [self.params.get(...)
    # for ...]`): no hybrid_forward argument, `self.ws[i].data()` stays an NDArray (HL012)
    parameter_lists: Set[str] = field(default_factory=set)
    # attributes every store of which, in any method, is a non-empty literal list or tuple of
    # ints (`self.rows = [0, 2]`): an index with one surely picks several rows (HL003)
    number_lists: Set[str] = field(default_factory=set)
    # attributes one `__init__` write sets to a Parameter and another to None (`if use_bias:
    # self.bias = self.params.get(...) else: self.bias = None`): the hybrid_forward input named
    # so (`bias=None`) is that Parameter's data wherever it is not None (`Value.unless_none`)
    optional_parameters: Dict[str, Optional[Shape]] = field(default_factory=dict)
    # what `setattr(self, <name>, <child>)` in `__init__` stores (one value per call; the
    # children `getattr(self, <name>)(x)` calls: capsule and expert blocks built in a loop)
    dynamic_children: List[Value] = field(default_factory=list)
    children: Dict[str, Value] = field(default_factory=dict)  # what self.<c>(...) returns
    # convolution children (channels first): their `channels` argument as written in __init__,
    # and the rank of their output (Conv2D: 4)
    conv_channels: Dict[str, Tuple[cst.BaseExpression, int]] = field(default_factory=dict)
    # `self.<a> = nn.Dense(units)` (flattening): its output is (batch, units); units a literal
    # int or a constructor parameter's name (`units_of`)
    dense_units: Dict[str, Union[int, cst.BaseExpression]] = field(default_factory=dict)
    # `self.<a> = nn.HybridSequential()` every `self.<a>.add(...)` of which adds flattening
    # Dense layers of one width (as `dense_units`): what calling one of its layers gives
    container_units: Dict[str, Union[int, cst.BaseExpression]] = field(default_factory=dict)
    layers: Set[str] = field(default_factory=set)  # children that are gluon layers (nn.Dense ...)
    # attributes SOME `__init__` write of which builds a gluon layer, whatever other branches
    # store there (XKT's DKT: an Embedding, else a lambda): `self.<a>(x)` passes x to a layer
    # in that configuration, which settles x as an array (`FunctionFacts.used_as_array`)
    array_layers: Set[str] = field(default_factory=set)
    # children that pool globally or keep a pooled gate's spatial 1s (`_pooled.child_effect`)
    shape_effects: Dict[str, str] = field(default_factory=dict)
    rnn_layers: Set[str] = field(default_factory=set)  # children that are rnn.RNN/LSTM/GRU layers
    # children built by a call of a name the module does not define (an imported block class, a
    # model-zoo getter: `self.body = resnet.resnet18_v1()`): outputs unknown, an array or a
    # tuple of them (`evaluate._self_call` takes what they return on arrays for an array)
    foreign_children: Set[str] = field(default_factory=set)
    # the block's own opt-out of hybridization: flags named so (`self.hybridizable`), tests the
    # constructor asserts when hybridizable (normalized `guards.normalized_code`), `hybridize` raising
    opt_out_flags: Set[str] = field(default_factory=set)
    invariants: Set[str] = field(default_factory=set)
    refuses_hybridize: bool = False
    # self.<a> -> the module class every `__init__` write of it constructs (`self.head =
    # Head(...)`), None when any write is something else: whose hybrid_forward `self.<a>(...)`
    # runs (call-site evidence for the child's inputs, `_call_site_evidence`)
    built_children: Dict[str, Optional[str]] = field(default_factory=dict)
    defaults: Dict[str, object] = field(
        default_factory=dict
    )  # self.<a> = <param>: the param's literal default
    required: Dict[str, str] = field(
        default_factory=dict
    )  # self.<a> = <param> without a default: a -> param
    stored: Dict[str, str] = field(
        default_factory=dict
    )  # self.<a> = <param> with a default: a -> param
    _built_memo: Dict[str, object] = field(default_factory=dict)  # param -> `_built` (memo)
    _array_inputs: Optional[Tuple[Optional[str], ...]] = None  # `array_inputs` (memo)
    module: Optional["ModuleFacts"] = None

    def channels_of(self, attr: str) -> Optional[str]:
        """The channel count of the convolution child `self.<attr>`, spelled as hybrid_forward
        reads it (`self.parts` for `nn.Conv2D(parts)` with `self.parts = parts`; a literal as
        its number), else None."""
        if attr not in self.conv_channels:
            return None
        return self._spelling(self.conv_channels[attr][0])

    def units_of(self, attr: str) -> forms.Dim:
        """The output width of the flattening Dense child `self.<attr>` as a form's dim: its
        literal number, else its spelling (`units:self.classes`, taken for a width above 1,
        as a convolution's channel count is), else None (unknown)."""
        return self._width(self.dense_units.get(attr))

    def item_units_of(self, attr: str) -> forms.Dim:
        """`units_of` for each layer of the container child `self.<attr>`."""
        return self._width(self.container_units.get(attr))

    def _width(self, units: Union[int, cst.BaseExpression, None]) -> forms.Dim:
        if units is None or isinstance(units, int):
            return units
        # a constructor parameter (`_wide_parameter`), kept on self or not: its name
        spelled = self._spelling(units) or getattr(units, "value", None)
        return None if spelled is None else forms.spelled_width(spelled)

    def _spelling(self, expr: cst.BaseExpression) -> Optional[str]:
        """`expr` of `__init__` as hybrid_forward reads it: a constructor parameter stored on
        self as `self.<a>`, else the expression's spelling (a literal as its number)."""
        if isinstance(expr, cst.Name):
            held = [a for a, p in {**self.stored, **self.required}.items() if p == expr.value]
            return f"self.{held[0]}" if len(held) == 1 else None
        return size_spelling(expr)

    def array_inputs(self) -> Tuple[Optional[str], ...]:
        """hybrid_forward's inputs after F, by position, each named when the body uses it as
        only an array can be used (an operator's argument, an array-only attribute, a tuple
        index, the input of one of its gluon layers), else None. A parent passing something
        in that position settles it as an array too (CangJie's WCLSTM hands its word ids to
        WCEmbedding, whose Embedding takes them). Read syntactically, so the classes of a
        file may be analysed in any order."""
        if self._array_inputs is None:
            forward = self.methods.get("hybrid_forward")
            positional = _signature(forward)[2:] if forward is not None else []
            self._array_inputs = tuple(
                p.name.value if _uses_as_array(forward, p.name.value, self.array_layers) else None
                for p in positional
                if forward is not None
            )
        return self._array_inputs

    def default_of(self, attr: str) -> object:
        """The value `self.<attr>` has in the module's configuration of the block: what every
        construction of this class in the module passes for the constructor parameter it
        stores, under the constructing classes' own defaults (`EffiDwsConvUnit(in_size=in_size
        if fixed_size else None)` in `EfficientNet(fixed_size=True)`: a tuple, whatever the
        unit's own `in_size=None`), configured examples included (`_CONFIGURED`); when the
        module builds it nowhere (or its constructions disagree, and no configured example
        builds it), the parameter's literal default; `NO_DEFAULT` when neither decides."""
        param = self.required.get(attr) or self.stored.get(attr)
        if param is not None and self.module is not None and self.module.class_nodes is not None:
            built = self.built_as(attr)
            if built is not NO_DEFAULT or built_by_example(self.name):
                return built  # configured examples that disagree leave it undecided
        return self.defaults.get(attr, NO_DEFAULT)

    def built_as(self, attr: str) -> object:
        """What every construction of this class in the module passes for the parameter stored
        in `self.<attr>`, ignoring the parameter's own literal default: `NO_DEFAULT` when the
        module builds the class nowhere or its constructions disagree."""
        param = self.required.get(attr) or self.stored.get(attr)
        built = self._constructions_pass(param)
        return NO_DEFAULT if built is _NOT_BUILT else built

    def chosen_by_callers(self, attr: str) -> bool:
        """Whether `self.<attr>` stores a constructor argument without a default that the
        module never passes (it builds the class nowhere): every caller, in other modules,
        chooses it, and nothing here says which way."""
        return self._constructions_pass(self.required.get(attr)) is _NOT_BUILT

    def _constructions_pass(self, param: Optional[str]) -> object:
        """`_built` for constructor parameter `param` (memo): `_NOT_BUILT` when the module
        constructs the class nowhere, `NO_DEFAULT` when there is no parameter or module."""
        if param is None or self.module is None or self.module.class_nodes is None:
            return NO_DEFAULT
        if param not in self._built_memo:
            self._built_memo[param] = _built(
                self.node, param, self.module.class_nodes, 0, self.module.functions
            )
        return self._built_memo[param]

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
    # its star parameters that hold graph inputs: "*" -> the name of the one with the inputs
    # after the named ones, "**" -> the one with the block's Parameters (a hybrid_forward's
    # own, or a helper's bound from them by every call: `_forwarded`, `_bind_call`)
    stars: Dict[str, str] = field(default_factory=dict)
    # a helper's parameters some call fills from a forwarded `*args` (or with such a parameter
    # of its caller): graph inputs, which its own uses decide as a hybrid_forward's uses decide
    # its inputs (`tensors_by_use`), and which may be numbers (gluon passes numbers on eagerly)
    forwarded: Set[str] = field(default_factory=set)
    # a helper's parameters some call fills with an input of its caller passed by name
    # (`self._mix(F, pred, lam)` with `lam` a hybrid_forward input, or a helper's such or
    # forwarded parameter): eagerly gluon passes a number input on as it is, so they may hold
    # Python numbers (read by fix safety; unlike `forwarded`, they do not change input kinds)
    passed_inputs: Set[str] = field(default_factory=set)
    env_at: Dict[cst.CSTNode, Env] = field(default_factory=dict)
    skip: Set[cst.CSTNode] = field(default_factory=set)  # eager-only subtrees
    # the branches among them that a test of the tensor's type decides (`isinstance(x,
    # nd.NDArray)`, `F is mx.nd`, `hasattr(x, "shape")`; not a configuration's opt-out)
    eager_branches: Set[cst.CSTNode] = field(default_factory=set)
    # every node of a branch that runs only hybridized (`if F is mx.sym:`, `if F == sym and
    # ...:`): a fixed `mx.sym.` call there is the namespace F is (HL006)
    symbol_only: Set[cst.CSTNode] = field(default_factory=set)
    order: Dict[cst.CSTNode, int] = field(default_factory=dict)  # statement -> position
    loops: Dict[cst.CSTNode, Tuple[cst.CSTNode, ...]] = field(default_factory=dict)
    alias_uses: Dict[str, List[Tuple[int, Tuple[cst.CSTNode, ...]]]] = field(default_factory=dict)
    returns: List[Value] = field(default_factory=list)  # values of its return statements
    local_defs: Dict[str, cst.FunctionDef] = field(default_factory=dict)  # nested defs by name
    # comprehension -> the env its element sees (its targets bound from the iterables), read by
    # the linter core's walk so rules see the same facts inside `[... for f in feats]`
    comp_envs: Dict[cst.CSTNode, Env] = field(default_factory=dict)
    _memo: Dict[cst.CSTNode, Value] = field(default_factory=dict)
    _array_uses: Dict[str, bool] = field(default_factory=dict)
    # names the walk saw used as only an array can be (an operand next to a certain tensor, an
    # argument of an operator or of a gluon layer): read by `used_as_array`
    array_names: Set[str] = field(default_factory=set)
    numpy: bool = False  # the body calls F.np.* / F.npx.*: numpy-mode code
    # inputs that are tensors only by the module's call sites (`_call_site_evidence`), or only by
    # uses a list survives too (`x * 2`, `x + y`: `_input_uses`): another caller may pass a list,
    # so a fix resting on them is unsafe (`Rule.report`)
    caller_tensors: Set[str] = field(default_factory=set)
    _sliced: Optional[Set[cst.Name]] = None  # `sliced_arrays`, once per walk
    _dims: Optional[FunctionScan] = None  # `dim_bindings` (memo)
    # a method reached through an object hybrid code made and handed F (`_instances`): its
    # class, and what `self.<a>` holds there (the namespace, tensors the constructor stored)
    instance_of: Optional[str] = None
    self_attrs: Env = field(default_factory=dict)
    # the walk's constructions of such classes: call -> {"self.<a>": what it stores}
    made: Dict[cst.Call, Env] = field(default_factory=dict)

    def dim_bindings(self) -> FunctionScan:
        """The names the body binds to dims of arrays (`_dim_bindings.scan_function`), scanned
        once on demand: HL001's creation and resize rewrites and HL003's own-dim slice bounds
        read the same scan."""
        if self._dims is None:
            self._dims = scan_function(self.node)
        return self._dims

    def sliced_arrays(self) -> Set[cst.Name]:
        """The names holding a gluon input (or an item of one) that `n[a:b] - n[c:d]` & co
        prove arrays (`_sliced_arrays`): only a hybrid_forward's inputs are graph inputs.

        Computed on demand (HL003 asks only for a slice of a value of unknown kind)."""
        if self._sliced is None:
            self._sliced = set()
            if self.kind == "hybrid_forward":
                params = self.node.params
                inputs = [p.name.value for p in _signature(self.node)[2:]]
                inputs += [p.name.value for p in params.kwonly_params]
                if isinstance(params.star_arg, cst.Param):
                    inputs.append(params.star_arg.name.value)
                self._sliced = sliced_arrays(self.node, set(inputs))
        return self._sliced

    def used_as_array(self, name: str) -> bool:
        """Whether the body uses `name` as only an array can be used, which settles that an
        input taken for a tensor by its position (`Value.assumed`) is not a list of arrays.

        Computed on demand (a rule asks only before offering a safe fix on such an input), so
        the common path pays nothing for it.
        """
        if name in self.array_names:
            return True
        known = self._array_uses.get(name)
        if known is None:
            known = self._array_uses[name] = _used_before_rebound(self.node, name, self.namespace)
        return known

    def value(self, expr: cst.BaseExpression, env: Env) -> Value:
        """What `expr` holds, evaluated in `env` (the environment of its statement)."""
        cached = self._memo.get(expr)
        if cached is None:
            cached = _Evaluator(self, None).eval(expr, env)
            self._memo[expr] = cached
        return cached

    @property
    def return_value(self) -> Value:
        """What every call returns: the join of its returns when the body always returns."""
        if not self.returns or not always_exits(self.node.body):
            return UNKNOWN_VALUE
        value = self.returns[0]
        for other in self.returns[1:]:
            value = join(value, other)
        return with_form(value, None)  # its shape form is relative to this function's roots

    def reset(self) -> None:
        """Forget the walk's results (before analysing the function again)."""
        for table in (
            self.env_at,
            self.order,
            self.loops,
            self.alias_uses,
            self._memo,
            self.local_defs,
            self._array_uses,
            self.comp_envs,
            self.made,
        ):
            table.clear()
        self.array_names.clear()
        self._sliced = None
        self.skip.clear()
        self.eager_branches.clear()
        self.symbol_only.clear()
        self.returns.clear()

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
    return_values: Dict[cst.CSTNode, Value] = field(default_factory=dict)  # helper def -> result
    class_methods: Dict[str, Dict[str, cst.FunctionDef]] = field(default_factory=dict)  # lineage's
    class_nodes: Optional[Dict[str, cst.ClassDef]] = None  # every class given, by name
    # what children may be built from: the module's functions and classes over those imported
    # from other modules of the project (`analyze(foreign=...)`), read by `_pooled.child_effect`
    built_from: Tuple[Mapping[str, cst.FunctionDef], Mapping[str, cst.ClassDef]] = ({}, {})
    # names more than one class given has (a block factory's own `Head` beside the module's)
    shared_class_names: Set[str] = field(default_factory=set)
    context: Optional[ModuleContext] = None  # imports, namespace aliases (None: conventions only)
    # `f = lambda t: ...` in an analysed function: analysed as a nested def of that name; the
    # def is made once per lambda (`lambda_def`), `origins` maps it back to the lambda
    lambdas: Dict[cst.Lambda, cst.FunctionDef] = field(default_factory=dict)
    origins: Dict[cst.FunctionDef, cst.CSTNode] = field(default_factory=dict)
    # the `K(...)` calls that are the whole value of a `self.<a> = K(...)` in an `__init__`
    bound_constructions: Set[cst.Call] = field(default_factory=set)
    # module functions and methods analysed functions call (the call -> its caller; the last
    # walk's): where a helper without F is called from (HL006 passes F to it)
    helper_calls: Dict[cst.FunctionDef, Dict[cst.Call, "FunctionFacts"]] = field(
        default_factory=dict
    )
    _instance_classes: Dict[str, Optional[InstanceClass]] = field(default_factory=dict)

    def instance_class(self, name: str) -> Optional[InstanceClass]:
        """The plain module class `name` when hybrid code may follow its methods through an
        instance handed F (`_instances.instance_class`), else None."""
        if name not in self._instance_classes:
            node = (self.class_nodes or {}).get(name)
            self._instance_classes[name] = None if node is None else instance_class(node)
        return self._instance_classes[name]

    def lambda_def(self, node: cst.Lambda, name: str) -> cst.FunctionDef:
        """The def standing for `name = lambda ...: body` (`def name(...): return body`, the
        lambda's own parameter and body nodes, so positions and fixes are the lambda's)."""
        made = self.lambdas.get(node)
        if made is None:
            made = cst.FunctionDef(
                name=cst.Name(name),
                params=node.params,
                body=cst.IndentedBlock(
                    body=[cst.SimpleStatementLine(body=[cst.Return(value=node.body)])]
                ),
            )
            self.lambdas[node] = made
            self.origins[made] = node
        return made

    def namespace_kind(self, dotted: Optional[str]) -> Optional[str]:
        """ "eager" / "symbol" when `dotted` names mx.nd / mx.sym in this module (aliases too)."""
        return self.context.namespace_kind(dotted) if self.context is not None else None

    @property
    def predicates(self) -> Mapping[str, Tuple[Tuple[str, ...], str]]:
        """The module's one-line namespace tests (`ModuleContext.predicates`)."""
        return self.context.predicates if self.context is not None else {}

    def class_helper(self, class_name: str, method: str) -> Optional[cst.FunctionDef]:
        """The method `class_name.method(...)` calls when that is a @staticmethod or
        @classmethod of a module class (its own or inherited in the module): such a call runs
        the helper exactly as `self.method(...)` would, so it is followed the same way. A plain
        method called through the class takes `self` explicitly: not followed."""
        node = self.class_methods.get(class_name, {}).get(method)
        if node is None or _binding(node) is None:
            return None
        return node


def _binding(node: cst.FunctionDef) -> Optional[str]:
    """ "staticmethod" or "classmethod" when `node` is decorated so, else None."""
    for decorator in node.decorators:
        name = dotted_name(decorator.decorator)
        if name in ("staticmethod", "classmethod"):
            return name
    return None


# ----------------------------------------------------------------------------------------
# Class facts
# ----------------------------------------------------------------------------------------
def _declared_shape(node: cst.BaseExpression) -> Optional[Shape]:
    """A parameter's declared shape: its rank and literal dims, None for a computed dim
    (`shape=(1, 1, units)` -> (1, 1, None)); HL001's tile rewrite needs the rank and the 1s."""
    if isinstance(node, (cst.Tuple, cst.List)) and all(
        isinstance(e, cst.Element) for e in node.elements
    ):
        return tuple(literal_int(e.value) for e in node.elements)
    return literal_shape(node)


def _setattr_value(small: cst.BaseSmallStatement) -> Optional[cst.BaseExpression]:
    """The value of a statement `setattr(self, <name>, <value>)`, else None."""
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return None
    call = small.value
    if not (
        isinstance(call.func, cst.Name)
        and call.func.value == "setattr"
        and len(call.args) == 3
        and not any(a.star or a.keyword for a in call.args)
        and isinstance(call.args[0].value, cst.Name)
        and call.args[0].value.value == "self"
    ):
        return None
    return call.args[2].value


def _walk_statements(
    body: Union[Sequence[cst.BaseStatement], Sequence[cst.BaseSmallStatement]],
) -> Iterable[cst.BaseSmallStatement]:
    """Every small statement in a block, descending into compound statements."""
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            yield from stmt.body
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        elif isinstance(stmt, cst.BaseCompoundStatement):
            for block in blocks_of(stmt):
                yield from _walk_statements(block)


def blocks_of(stmt: cst.CSTNode) -> List[Sequence[cst.BaseStatement]]:
    """The statement blocks of a compound statement: its body, then `else` / `finally` (an
    `elif`'s blocks in turn), then each `except` handler's body. Shared by the analysis and
    HL001's reshape flow, which both follow names into every branch."""
    blocks: List[Sequence[cst.BaseStatement]] = []
    body = getattr(stmt, "body", None)
    if isinstance(body, cst.BaseSuite) and isinstance(body, cst.IndentedBlock):
        blocks.append(body.body)
    for attr in ("orelse", "finalbody"):
        part = getattr(stmt, attr, None)
        if isinstance(part, (cst.Else, cst.Finally)) and isinstance(part.body, cst.IndentedBlock):
            blocks.append(part.body.body)
        elif isinstance(part, cst.If):
            blocks.extend(blocks_of(part))
    for handler in getattr(stmt, "handlers", ()) or ():
        if isinstance(handler.body, cst.IndentedBlock):
            blocks.append(handler.body.body)
    return blocks


def _child_value(
    call: cst.BaseExpression,
    module: ModuleFacts,
    classes: Mapping[str, cst.ClassDef],
    depth: int = 0,
) -> Value:
    """What calling a child block created by `call` returns; a module factory function
    (`conv1x1_block(...)` returning `ConvBlock(...)`, also one imported from another module of
    the project: `ModuleFacts.built_from`) is followed to what it returns."""
    if not isinstance(call, cst.Call):
        return UNKNOWN_VALUE
    name = dotted_name(call.func)
    if name is None:
        return UNKNOWN_VALUE
    last = name.split(".")[-1]
    factory = module.built_from[0].get(name) if name not in classes else None
    if factory is not None and depth < 3:
        return factory_value(factory, lambda r: _child_value(r, module, classes, depth + 1))
    if last in SINGLE_OUTPUT_LAYERS:
        # an operator layer writes a new array (checked on MXNet 1.9.1: `y = layer(x); y += 1`
        # leaves x alone); a container may hand back its input (an empty HybridSequential does)
        return Value(TENSOR, fresh=last not in ("HybridSequential", "Identity"))
    klass = classes.get(last)
    if klass is not None:
        method = class_method(klass, "hybrid_forward") or class_method(klass, "forward")
        if method is None:
            return UNKNOWN_VALUE
        statements = list(_walk_statements(method.body.body))
        returns = [s for s in statements if isinstance(s, cst.Return)]
        # a returned name bound to a list (`out = [...]`, GluonCV's DLAUp) is no tensor, nor
        # `tuple(outputs)` (ICNet's head): the child is single-output only if no return is one
        lists = {
            t.target.value
            for s in statements
            if isinstance(s, cst.Assign)
            and isinstance(s.value, (cst.List, cst.ListComp, cst.Tuple))
            for t in s.targets
            if isinstance(t.target, cst.Name)
        }
        layer_tuple = _returned_layer_tuple(klass, returns)
        if layer_tuple is not None:
            return layer_tuple
        if returns and all(
            r.value is not None
            and not isinstance(r.value, (cst.Tuple, cst.List))
            and not (isinstance(r.value, cst.Name) and r.value.value in lists)
            and not (
                isinstance(r.value, cst.Call) and dotted_name(r.value.func) in ("tuple", "list")
            )
            for r in returns
        ):
            return Value(TENSOR)
    return UNKNOWN_VALUE


def _foreign(call: cst.Call, module: ModuleFacts, classes: Mapping[str, cst.ClassDef]) -> bool:
    """Whether `call` constructs with a name neither this module nor its project definitions
    define (`resnet.resnet18_v1(...)`, `get_model(...)`, an imported block class)."""
    name = dotted_name(call.func)
    if name is None or name.split(".")[0] == "self":
        return False
    last = name.split(".")[-1]
    return (
        last not in classes
        and last not in SINGLE_OUTPUT_LAYERS
        and name not in module.built_from[0]
        and last not in module.functions
    )


def _returned_layer_tuple(klass: cst.ClassDef, returns: List[cst.Return]) -> Optional[Value]:
    """A module block whose every return is a tuple, of one length, of what its own gluon
    layers computed (`return self.coords(x), self.visible(x)`, or names each bound once, from
    such a call: `y = self.final_fc(x)` ... `return y, x`): a Python tuple known by position,
    what `a, b = self.child(x)` binds (`values.unpacked`), fresh tensors where a layer computed
    the item, unknown elsewhere. None when no item is known or a return is not such a tuple."""
    tuples = [r.value for r in returns if isinstance(r.value, cst.Tuple)]
    if not returns or len(tuples) != len(returns):
        return None
    lengths = {len(t.elements) for t in tuples}
    if len(lengths) != 1:
        return None
    layers = _own_layers(klass)
    method = class_method(klass, "hybrid_forward") or class_method(klass, "forward")
    computed = _layer_outputs(method, layers) if method is not None else set()

    def layer_made(element: cst.BaseElement) -> bool:
        value = element.value
        if isinstance(element, cst.StarredElement):
            return False
        if isinstance(value, cst.Name):
            return value.value in computed
        func = value.func if isinstance(value, cst.Call) else None
        return func is not None and self_attribute_name(func) in layers

    known = [
        all(layer_made(returned.elements[i]) for returned in tuples) for i in range(lengths.pop())
    ]
    if not any(known) or any(isinstance(e, cst.StarredElement) for t in tuples for e in t.elements):
        return None
    return Value(
        SEQUENCE, items=tuple(Value(TENSOR, fresh=True) if k else UNKNOWN_VALUE for k in known)
    )


def _layer_outputs(method: cst.FunctionDef, layers: Set[str]) -> Set[str]:
    """The names `method` binds exactly once, by `name = self.<layer>(...)` of one of its own
    gluon `layers` (any other binding of the name, anywhere in it, leaves it out)."""
    bindings: Dict[str, int] = {}
    from_layer: Set[str] = set()
    for node in walk_nodes(method.body):
        for target in bound_targets(node):
            for name in target_names(target):
                bindings[name] = bindings.get(name, 0) + 1
        if (
            isinstance(node, cst.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0].target, cst.Name)
            and isinstance(node.value, cst.Call)
            and self_attribute_name(node.value.func) in layers
        ):
            from_layer.add(node.targets[0].target.value)
    return {name for name in from_layer if bindings.get(name) == 1}


def _own_layers(klass: cst.ClassDef) -> Set[str]:
    """The attributes every `__init__` write of which builds a single-output gluon layer
    (`self.coords = nn.Dense(2)`; not a container, which may hand back its input)."""
    init = class_method(klass, "__init__")
    layers: Set[str] = set()
    others: Set[str] = set()
    for small in _walk_statements(init.body.body) if init is not None else ():
        if not isinstance(small, cst.Assign):
            continue
        built = last_name(small.value.func) if isinstance(small.value, cst.Call) else None
        single = built in SINGLE_OUTPUT_LAYERS and built not in ("HybridSequential", "Identity")
        for target in small.targets:
            attr = self_attribute_name(target.target)
            if attr is not None:
                (layers if single else others).add(attr)
    return layers - others


def _own_methods(node: cst.ClassDef) -> Dict[str, cst.FunctionDef]:
    if not isinstance(node.body, cst.IndentedBlock):
        return {}
    return {s.name.value: s for s in node.body.body if isinstance(s, cst.FunctionDef)}


def class_lineage(node: cst.ClassDef, classes: Dict[str, cst.ClassDef]) -> List[cst.ClassDef]:
    """The class and its bases defined in the module, most derived first (depth-first, left
    to right: Python's MRO for the single and simple multiple inheritance of model code)."""
    order: List[cst.ClassDef] = []

    def visit(current: cst.ClassDef) -> None:
        if current in order:
            return
        order.append(current)
        for base in current.bases:
            name = dotted_name(base.value)
            parent = classes.get(name.split(".")[-1]) if name else None
            if parent is not None:
                visit(parent)

    visit(node)
    return order


def _class_facts(
    node: cst.ClassDef,
    module: ModuleFacts,
    classes: Dict[str, cst.ClassDef],
    inherited: Optional[Mapping[str, cst.ClassDef]] = None,
) -> ClassFacts:
    """Methods and `__init__` facts of a class, inherited ones included (derived ones win).
    `inherited`: classes of other modules that define a hybrid_forward, by their name here
    (`analyze`); one of them ends the lineage of a class that has no hybrid_forward in it."""
    facts = ClassFacts(node=node, name=node.name.value)
    lineage = class_lineage(node, classes)
    if inherited and not any("hybrid_forward" in _own_methods(c) for c in lineage):
        lineage += _inherited_base(lineage, inherited)
    for cls in reversed(lineage):
        facts.methods.update(_own_methods(cls))
    for cls in reversed(lineage):
        init = _own_methods(cls).get("__init__")
        if init is not None:
            _init_facts(init, facts, module, classes)
            _opt_out_facts(init, facts)
            facts.parameter_lists |= parameter_lists(init)
    facts.number_lists = number_lists(facts.methods.values())
    hybridize = facts.methods.get("hybridize")
    if (
        hybridize is not None
        and isinstance(hybridize.body, cst.IndentedBlock)
        and hybridize.body.body
    ):
        last = hybridize.body.body[-1]
        facts.refuses_hybridize = (
            isinstance(last, cst.SimpleStatementLine)
            and isinstance(last.body[-1], cst.Raise)
            and len(hybridize.body.body) <= 2
        )
    return facts


def _inherited_base(
    lineage: List[cst.ClassDef], inherited: Mapping[str, cst.ClassDef]
) -> List[cst.ClassDef]:
    """The first base of the lineage (most derived first) named like a class of `inherited`:
    [that class], else []."""
    for cls in lineage:
        for base in cls.bases:
            name = dotted_name(base.value)
            if name and name in inherited:
                return [inherited[name]]
    return []


def _numpy_decorated(node: cst.ClassDef) -> bool:
    """`@use_np` / `@use_np_array` / `@use_np_shape` (any spelling of the path) on the class."""
    for decorator in node.decorators:
        expr = (
            decorator.decorator.func
            if isinstance(decorator.decorator, cst.Call)
            else decorator.decorator
        )
        if last_name(expr).startswith("use_np"):
            return True
    return False


def _numeric(value: cst.BaseExpression, numbers: Set[str]) -> bool:
    """A Python number by construction: literals, number parameters, arithmetic on them,
    `math.<f>(...)` of them, and `float(...)` / `int(...)` of anything."""
    if isinstance(value, (cst.Integer, cst.Float)):
        return True
    if isinstance(value, cst.Name):
        return value.value in numbers
    if isinstance(value, cst.UnaryOperation):
        return _numeric(value.expression, numbers)
    if isinstance(value, cst.BinaryOperation):
        return _numeric(value.left, numbers) and _numeric(value.right, numbers)
    if isinstance(value, cst.Attribute):
        return dotted_name(value) in ("math.pi", "math.e", "math.inf", "np.pi", "numpy.pi")
    if isinstance(value, cst.Call):
        name = dotted_name(value.func) or ""
        if name in ("float", "int"):  # a Python number whatever it converts (or it raises)
            return True
        return name.startswith("math.") and all(
            not arg.star and _numeric(arg.value, numbers) for arg in value.args
        )
    return False


_OPT_OUT = re.compile(r"hybridi[sz]", re.IGNORECASE)
NO_DEFAULT = object()
_NOT_BUILT = object()  # `_built`: the module constructs the class nowhere
_UNSEEN = object()
_TRUTHY = True  # a value known only to be not None and truthy (a non-empty tuple)


def _built(
    klass: cst.ClassDef,
    param: str,
    classes: Dict[str, cst.ClassDef],
    depth: int,
    functions: Optional[Dict[str, cst.FunctionDef]] = None,
) -> object:
    """What every `Klass(...)` in the module, and every configured example of `Klass`
    (`_CONFIGURED`, literal kwargs), passes for `param`: a construction in a class's
    `__init__` is evaluated under that class's own defaults (and, for its parameters without
    one, recursively under the constructions of that class), one anywhere else (another
    method, a module function) only when it passes a literal; an omitted argument is the
    parameter's default. NO_DEFAULT unless there is one construction at least and all agree
    (None / truthy / falsy), or when a construction passes `*args` / `**kwargs`; `_NOT_BUILT`
    when the module has no construction of the class."""
    init = class_method(klass, "__init__")
    if init is None or depth > 6:
        return NO_DEFAULT
    signature = _signature(init)[1:]
    names = [p.name.value for p in signature]
    position = names.index(param) if param in names else None
    declared = next(
        (p for p in signature + list(init.params.kwonly_params) if p.name.value == param), None
    )
    if declared is None:
        return NO_DEFAULT
    index = _index(classes, functions)
    known = index.built.get((klass, param), _UNSEEN)
    if known is not _UNSEEN:
        return known
    values = []
    for call, parent, parent_init in index.calls.get(klass.name.value, ()):
        if parent is klass:
            continue
        if any(a.star for a in call.args):
            return NO_DEFAULT
        arg = call_argument(call, position, param)
        if arg is None:
            if declared.default is None:
                return NO_DEFAULT
            values.append(
                _value_in(declared.default, None, None, classes, depth, functions=functions)
            )
        elif parent is None:
            values.append(_value_in(arg.value, None, None, classes, depth, functions=functions))
        else:
            values.append(
                _value_in(arg.value, parent, parent_init, classes, depth, functions=functions)
            )
    examples = [dict(passed) for name, passed in index.configured if name == klass.name.value]
    if examples and not values and declared.default is not None:
        # built nowhere in the module: the default still stands for the callers outside, and
        # an example only adds its own configuration (it never hides the default's branch)
        examples.append({})
    for given in examples:  # an example builds it: `Klass(**kwargs)` from outside
        if param in given:
            if given[param] == OPAQUE:
                return NO_DEFAULT  # a numpy array: its truth is not a literal's
            values.append(given[param])
        elif declared.default is None:
            return NO_DEFAULT
        else:
            values.append(
                _value_in(declared.default, None, None, classes, depth, functions=functions)
            )
    if not values:
        result = _NOT_BUILT
    elif any(v is NO_DEFAULT for v in values):
        result = NO_DEFAULT
    else:
        kinds = {(v is None, bool(v)) for v in values}
        result = values[0] if len(kinds) == 1 else NO_DEFAULT
    index.built[(klass, param)] = result
    return result


class _Index:
    """Per-module tables of the construction analysis, built on first use: the constructions
    of every module class, the bindings of every `__init__`, and `_built`'s results."""

    def __init__(
        self, classes: Dict[str, cst.ClassDef], functions: Optional[Dict[str, cst.FunctionDef]]
    ) -> None:
        self.classes, self.functions = classes, functions
        self.calls = _constructions(classes, functions)
        self.bindings: Dict[cst.FunctionDef, Dict[str, Tuple[List[cst.BaseExpression], bool]]] = {}
        self.built: Dict[Tuple[cst.ClassDef, str], object] = {}
        self.configured = _CONFIGURED.get()


_LAST: List[Optional[_Index]] = [None]  # the last module's tables (modules are analysed one by one)

# How the project's configured examples build the module's classes (the linter's
# `FileProject.constructions`: (class name, sorted (parameter, value) pairs), one per example).
# `_built` reads each as a construction from outside the module passing literals, so a block
# the user's examples build with `fixed_size=False` is analysed in that configuration too
# (its dynamic-size fallback is then taken: `guards.configuration_fallback`). Empty: the
# module's own constructions and defaults decide.
_CONFIGURED: ContextVar[Constructions] = ContextVar("configured_constructions", default=())


# What the configured examples pass the module's blocks (`FileProject.example_inputs`): HL018
# reports the hybridized calls they prove to fail.
_CONFIGURED_INPUTS: ContextVar[ExampleInputs] = ContextVar("configured_inputs", default=())


@contextmanager
def configured_constructions(
    constructions: Constructions, inputs: ExampleInputs = ()
) -> Iterator[None]:
    """Within: the analysis reads ``constructions`` as constructions of the module's classes
    (``_CONFIGURED``), and ``inputs`` as what the examples pass them (``example_inputs``)."""
    token = _CONFIGURED.set(tuple(constructions))
    inputs_token = _CONFIGURED_INPUTS.set(tuple(inputs))
    try:
        yield
    finally:
        _CONFIGURED_INPUTS.reset(inputs_token)
        _CONFIGURED.reset(token)


def example_inputs(name: str) -> List[Tuple[Tuple[str, str], ...]]:
    """What each configured example of the module class `name` passes its hybrid_forward:
    one (kind, shown value) per positional input (``hybridlint.config.input_kind``)."""
    return [given for built, given in _CONFIGURED_INPUTS.get() if built == name]


def _configured_numbers(klass: ClassFacts, method: cst.FunctionDef) -> Env:
    """The inputs every configured example of the block passes as a Python int or float
    (`{ int = 2 }`: a batch size the caller hands over), as numbers: eagerly the body runs on
    that number, and `t / (2 * n)` is a tensor divided by a scalar, not arithmetic of two
    arrays (a broadcast op there would fail eagerly). Hybridized the call fails before the
    body runs, which HL018 reports. Not for a block with a `forward` of its own (it may turn
    the number into an array first)."""
    examples = example_inputs(klass.name)
    if not examples or "forward" in klass.methods:
        return {}
    numbers: Env = {}
    for index, param in enumerate([*method.params.posonly_params, *method.params.params][2:]):
        kinds = [given[index][0] if index < len(given) else "array" for given in examples]
        if all(kind in ("int", "float") for kind in kinds):
            numbers[param.name.value] = Value(SCALAR, evidence="the configured examples' number")
    return numbers


def _configured_arrays(klass: ClassFacts, method: cst.FunctionDef) -> Env:
    """The inputs every configured example of the block passes as one array (a shape or an
    array table, not a list of them), as certain arrays: `cos_theta, phi_theta = x` then
    unpacks an array's rows eagerly, and hybridized a one-output Symbol (HL014; blind round
    17's SphereFace AngleLoss, whose real callers pass one array). Not for a block with a
    `forward` of its own (it may turn the array into something else first)."""
    examples = example_inputs(klass.name)
    if not examples or "forward" in klass.methods:
        return {}
    arrays: Env = {}
    for index, param in enumerate([*method.params.posonly_params, *method.params.params][2:]):
        if all(index < len(given) and given[index][0] == "array" for given in examples):
            arrays[param.name.value] = Value(TENSOR, evidence=CONFIGURED_ARRAY)
    return arrays


def built_by_example(name: str) -> bool:
    """Whether a configured example builds the module class `name` (``_CONFIGURED``): then
    what its constructions pass is undecided when they disagree, not the parameter's default
    (an example that takes a branch makes it a hazard)."""
    return any(built == name for built, _ in _CONFIGURED.get())


def _index(
    classes: Dict[str, cst.ClassDef], functions: Optional[Dict[str, cst.FunctionDef]]
) -> _Index:
    last = _LAST[0]
    if (
        last is None
        or last.classes is not classes
        or last.functions is not functions
        or last.configured is not _CONFIGURED.get()
    ):
        last = _LAST[0] = _Index(classes, functions)
    return last


def _constructions(
    classes: Dict[str, cst.ClassDef], functions: Optional[Dict[str, cst.FunctionDef]]
) -> Dict[str, List[Tuple[cst.Call, Optional[cst.ClassDef], Optional[cst.FunctionDef]]]]:
    """Every call of a module class by name (`Klass(...)`, `mod.Klass(...)`) or through a local
    bound to classes only (`unit_class = StridedDiceBlock if j == 0 else ShuffledDiceBlock;
    unit_class(...)`: a construction of each), in the methods of the classes and in the module
    functions: (call, the class whose `__init__` makes it and that `__init__`, or None twice
    elsewhere)."""
    names = set(classes)
    calls: Dict[str, List[Tuple[cst.Call, Optional[cst.ClassDef], Optional[cst.FunctionDef]]]] = {}

    def held(expr: cst.BaseExpression) -> Optional[Set[str]]:
        if isinstance(expr, cst.IfExp):
            body, orelse = held(expr.body), held(expr.orelse)
            return None if body is None or orelse is None else body | orelse
        name = last_name(expr)
        return {name} if name in names else None

    def scan(
        function: cst.FunctionDef, parent: Optional[cst.ClassDef], init: Optional[cst.FunctionDef]
    ) -> None:
        aliases: Dict[str, Set[str]] = {}
        for small in _walk_statements(function.body.body):
            if (
                isinstance(small, cst.Assign)
                and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name)
            ):
                classes_held = held(small.value)
                if classes_held:
                    aliases.setdefault(small.targets[0].target.value, set()).update(classes_held)
        for node in walk_nodes(function):
            if isinstance(node, cst.Call):
                name = last_name(node.func)
                made = set(aliases.get(name, ())) if isinstance(node.func, cst.Name) else set()
                if name in names:
                    made.add(name)
                for klass in made:
                    calls.setdefault(klass, []).append((node, parent, init))

    for parent in classes.values():
        if isinstance(parent.body, cst.IndentedBlock):
            for stmt in parent.body.body:
                if isinstance(stmt, cst.FunctionDef):
                    inits = stmt.name.value == "__init__"
                    scan(stmt, parent if inits else None, stmt if inits else None)
    for function in (functions or {}).values():
        scan(function, None, None)
    return calls


_SCOPES = NESTED_SCOPES


# the node classes `_bindings` reads (the forms that bind a name)
_BINDING_FORMS = frozenset(
    {
        cst.FunctionDef,
        cst.ClassDef,
        cst.Assign,
        cst.AssignTarget,
        cst.AnnAssign,
        cst.AugAssign,
        cst.NamedExpr,
        cst.For,
        cst.CompFor,
        cst.Del,
        cst.AsName,
        cst.ImportAlias,
        cst.Global,
        cst.Nonlocal,
    }
)


def _bindings(
    init: cst.FunctionDef, index: "_Index"
) -> Dict[str, Tuple[List[cst.BaseExpression], bool]]:
    """Every name bound in a function body (nested defs, classes, lambdas and comprehensions
    have their own scopes) -> (the values of its plain `name = value` assignments, whether it is
    bound any other way: unpacking, a `for` target, `+=`, `with ... as`, `:=`, `del`, an
    import, `except ... as`, `global`/`nonlocal`, a nested def or class), whose value is not read."""
    table = index.bindings.get(init)
    if table is not None:
        return table
    table = {}

    def other(target: Optional[cst.CSTNode]) -> None:
        if isinstance(target, cst.Name):
            table.setdefault(target.value, ([], False))
            table[target.value] = (table[target.value][0], True)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                other(element.value)
        elif isinstance(target, cst.StarredElement):
            other(target.value)

    for node in walk_nodes(init.body, _SCOPES):
        if node.__class__ not in _BINDING_FORMS:  # most nodes: one set lookup, no isinstance
            continue
        if isinstance(node, cst.Assign):  # its other targets: at their AssignTarget below
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    table.setdefault(target.target.value, ([], False))[0].append(node.value)
        elif isinstance(node, cst.AssignTarget):
            if not isinstance(node.target, cst.Name):
                other(node.target)
        elif isinstance(node, cst.AnnAssign):  # `x: int` alone binds nothing
            if isinstance(node.target, cst.Name) and node.value is not None:
                table.setdefault(node.target.value, ([], False))[0].append(node.value)
        elif isinstance(node, cst.ImportAlias):  # `import a.b` binds a (`as`: at its AsName)
            if node.asname is None:
                other(cst.Name((dotted_name(node.name) or "_").split(".")[0]))
        else:
            for bound in bound_targets(node):
                other(bound)
    index.bindings[init] = table
    return table


def _value_in(
    expr: cst.BaseExpression,
    klass: Optional[cst.ClassDef],
    init: Optional[cst.FunctionDef],
    classes: Dict[str, cst.ClassDef],
    depth: int,
    _seen: frozenset = frozenset(),
    functions: Optional[Dict[str, cst.FunctionDef]] = None,
) -> object:
    """`expr`'s value in `klass.__init__` under its defaults: a literal, None, a truthy tuple,
    a ternary or `is (not) None` test of such, a local (every value it is ever assigned in
    `__init__`, and for a parameter its own value too, agreeing: `in_size = (h // 2, w // 2)`
    in a loop over stages keeps a tuple) or a parameter (its default; without one, what the
    module's constructions of `klass` pass); NO_DEFAULT when not decided. Without `init`
    (a construction outside a constructor) only literals are decided."""

    def value(sub: cst.BaseExpression) -> object:
        return _value_in(sub, klass, init, classes, depth, _seen, functions)

    if isinstance(expr, (cst.Tuple, cst.List)) and expr.elements:
        return _TRUTHY
    if isinstance(expr, cst.IfExp):
        test = value(expr.test)
        if test is NO_DEFAULT:
            return NO_DEFAULT
        return value(expr.body if test else expr.orelse)
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Not):
        inner = value(expr.expression)
        return NO_DEFAULT if inner is NO_DEFAULT else not inner
    if (
        isinstance(expr, cst.Comparison)
        and len(expr.comparisons) == 1
        and dotted_name(expr.comparisons[0].comparator) == "None"
        and isinstance(expr.comparisons[0].operator, (cst.Is, cst.IsNot))
    ):
        left = value(expr.left)
        if left is NO_DEFAULT:
            return NO_DEFAULT
        return (left is None) == isinstance(expr.comparisons[0].operator, cst.Is)
    name = dotted_name(expr)
    if name in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[name]
    if isinstance(expr, (cst.Integer, cst.Float, cst.SimpleString)):
        return ast.literal_eval(expr.value)
    if name is None or "." in name or init is None or klass is None or name in _seen:
        return NO_DEFAULT
    seen = _seen | {name}
    assigned, other = _bindings(init, _index(classes, functions)).get(name, ([], False))
    if other:
        return NO_DEFAULT
    values = [_value_in(v, klass, init, classes, depth, seen, functions) for v in assigned]
    param = next(
        (p for p in _signature(init)[1:] + list(init.params.kwonly_params) if p.name.value == name),
        None,
    )
    if param is not None:  # the value it holds before (or without) any assignment: what the
        # module's constructions pass, else (built nowhere, or not decided) its default
        built = _built(klass, name, classes, depth + 1, functions)
        if built is _NOT_BUILT or (built is NO_DEFAULT and not built_by_example(klass.name.value)):
            built = (
                NO_DEFAULT
                if param.default is None
                else _value_in(param.default, klass, init, classes, depth, seen, functions)
            )
        values.append(built)
    elif not values:
        return NO_DEFAULT
    if any(v is NO_DEFAULT for v in values):
        return NO_DEFAULT
    kinds = {(v is None, bool(v)) for v in values}
    return values[0] if len(kinds) == 1 else NO_DEFAULT


def _opt_out_facts(init: cst.FunctionDef, facts: ClassFacts) -> None:
    """`self.hybridizable = hybridizable` flags, and `assert <test> or not hybridizable`
    invariants rewritten on `self` (`assert (in_size is not None) or not hybridizable` with
    `self.in_size = in_size` makes `self.in_size is not None` hold whenever hybridizable)."""
    stored: Dict[str, str] = {}  # constructor parameter -> self attribute holding it
    parameter_defaults: Dict[str, object] = {}
    for param in _signature(init) + list(init.params.kwonly_params):
        if param.default is not None:
            try:
                parameter_defaults[param.name.value] = ast.literal_eval(
                    cst.Module([]).code_for_node(param.default)
                )
            except (ValueError, SyntaxError, TypeError):
                pass
    asserts: List[cst.BaseExpression] = []
    for small in _walk_statements(init.body.body):
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            attr = self_attribute_name(small.targets[0].target)
            if attr is not None:
                if _OPT_OUT.search(attr):
                    facts.opt_out_flags.add(attr)
                if isinstance(small.value, cst.Name):
                    stored[small.value.value] = attr
                    default = parameter_defaults.get(small.value.value, NO_DEFAULT)
                    if default is not NO_DEFAULT:
                        facts.defaults[attr] = default
                        facts.stored[attr] = small.value.value
                    elif any(
                        p.name.value == small.value.value and p.default is None
                        for p in _signature(init)[1:] + list(init.params.kwonly_params)
                    ):
                        facts.required[attr] = small.value.value
        elif isinstance(small, cst.Assert):
            asserts.append(small.test)
    for test in asserts:
        if not (isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or)):
            continue
        for held, other in ((test.left, test.right), (test.right, test.left)):
            flag = (
                other.expression
                if isinstance(other, cst.UnaryOperation) and isinstance(other.operator, cst.Not)
                else None
            )
            if isinstance(flag, cst.Name) and _OPT_OUT.search(flag.value):
                on_self = held.visit(_OnSelf(stored))
                if isinstance(on_self, cst.CSTNode):  # always: _OnSelf renames, never removes
                    facts.invariants.add(normalized_code(on_self))


class _OnSelf(cst.CSTTransformer):
    """Constructor parameters -> the `self` attributes that store them."""

    def __init__(self, stored: Dict[str, str]) -> None:
        super().__init__()
        self.stored = stored

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        attr = self.stored.get(original.value)
        return cst.Attribute(value=cst.Name("self"), attr=cst.Name(attr)) if attr else updated


def _wide_parameter(expr: cst.BaseExpression, init: cst.FunctionDef) -> bool:
    """`expr` is a parameter of `init` without a default or with a literal default above 1
    (`classes=10`): a layer width taken for one above 1. A module constant, a local or a
    default of 1 (`num_outputs=1`, a regression head) may well be 1."""
    if not isinstance(expr, cst.Name):
        return False
    for param in _signature(init) + list(init.params.kwonly_params):
        if param.name.value == expr.value:
            if param.default is None:
                return True
            default = literal_int(param.default)
            return default is not None and default > 1
    return False


def _flattening_units(
    value: cst.BaseExpression, init: cst.FunctionDef
) -> Union[int, cst.BaseExpression, None]:
    """The width of `value` when it builds a flattening `nn.Dense`: a literal int, or a
    constructor parameter taken for a width above 1 (`_wide_parameter`); else None."""
    if not isinstance(value, cst.Call) or last_name(value.func) != "Dense":
        return None
    units = call_argument(value, 0, "units")
    flatten = call_argument(value, 3, "flatten")
    if units is None or not (
        flatten is None or (isinstance(flatten.value, cst.Name) and flatten.value.value == "True")
    ):
        return None
    number = literal_int(units.value)
    if number is not None:
        return number
    if _wide_parameter(units.value, init) and not any(a.star == "**" for a in value.args):
        return units.value  # `nn.Dense(classes)`; `**kw` may hold flatten=False
    return None


def _added_layers(small: cst.BaseSmallStatement) -> Optional[Tuple[str, List[cst.Arg]]]:
    """`self.<a>.add(<layers>)`: `<a>` and the arguments, else None."""
    call = small.value if isinstance(small, cst.Expr) else None
    if not (
        isinstance(call, cst.Call)
        and isinstance(call.func, cst.Attribute)
        and call.func.attr.value == "add"
    ):
        return None
    attr = self_attribute_name(call.func.value)
    return None if attr is None else (attr, list(call.args))


def _container_units(
    adds: List[Tuple[str, List[cst.Arg]]], init: cst.FunctionDef, facts: ClassFacts
) -> Dict[str, Union[int, cst.BaseExpression]]:
    """The containers (`nn.HybridSequential()` children) every `add` of which (`adds`, the
    `self.<a>.add(...)` calls of `init` in order) adds flattening Dense layers of one width
    (the same literal, or the same parameter)."""
    widths: Dict[str, Set[object]] = {}
    spelled: Dict[str, Union[int, cst.BaseExpression]] = {}
    for attr, args in adds:
        for arg in args:
            units = None if arg.star else _flattening_units(arg.value, init)
            key = units if units is None or isinstance(units, int) else source_of(units)
            widths.setdefault(attr, set()).add(key)
            if units is not None:
                spelled[attr] = units
    return {
        attr: spelled[attr]
        for attr, found in widths.items()
        if len(found) == 1 and None not in found and attr in facts.layers and attr in facts.children
    }


def _init_facts(
    init: cst.FunctionDef, facts: ClassFacts, module: ModuleFacts, classes: Dict[str, cst.ClassDef]
) -> None:
    """What `self.<attr> = ...` in `__init__` makes of each attribute (a later write wins).

    A constructor argument stored as it is (`self.eps = eps`) is a number when its parameter is
    annotated `int` / `float` / `bool` or defaults to a number (and its default is not None)."""
    numbers = set()
    for param in _signature(init) + list(init.params.kwonly_params):
        default = param.default
        if isinstance(default, cst.UnaryOperation):
            default = default.expression
        annotated = annotation_value(param.annotation)
        if isinstance(default, (cst.Integer, cst.Float)) or (
            annotated is not None and annotated.kind == SCALAR and default is None
        ):
            numbers.add(param.name.value)
    unfilled: Set[str] = set()  # HybridSequential attributes no `add` has filled yet
    declared: Dict[str, Optional[Shape]] = {}  # every Parameter write, and every None write
    nones: Set[str] = set()
    adds: List[Tuple[str, List[cst.Arg]]] = []  # the `self.<a>.add(...)` calls, in order
    for small in _walk_statements(init.body.body):
        added = _added_layers(small)
        if added is not None:
            adds.append(added)
        stored = _setattr_value(small)
        if stored is not None:  # `setattr(self, name, nn.Conv2D(...))`
            facts.dynamic_children.append(
                _child_value(stored, module, module.built_from[1])
                if isinstance(stored, cst.Call)
                else UNKNOWN_VALUE
            )
        first = _first_added(added, unfilled)
        if first is not None:  # `self.<a>.add(nn.Embedding(...), ...)`: its first layer
            unfilled.discard(first[0])
            if first[1] in SINGLE_OUTPUT_LAYERS and first[1] not in _CONTAINER_LAYERS:
                facts.array_layers.add(first[0])
        if not isinstance(small, (cst.Assign, cst.AnnAssign)) or small.value is None:
            continue
        targets = (
            [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
        )
        for attr, value in _attribute_writes(targets, small.value, facts.node):
            built = last_name(value.func) if isinstance(value, cst.Call) else None
            if built in classes and facts.built_children.get(attr, built) == built:
                facts.built_children[attr] = built
                module.bound_constructions.add(value)  # type: ignore[arg-type]
            else:
                facts.built_children[attr] = None
            unfilled.discard(attr)
            if isinstance(value, cst.Name) and value.value == "None":
                nones.add(attr)
            facts.scalar_attrs.discard(attr)
            facts.parameters.pop(attr, None)
            facts.children.pop(attr, None)
            facts.conv_channels.pop(attr, None)
            facts.dense_units.pop(attr, None)
            facts.layers.discard(attr)
            facts.rnn_layers.discard(attr)
            facts.foreign_children.discard(attr)
            facts.shape_effects.pop(attr, None)
            if (
                isinstance(value, (cst.Integer, cst.Float))
                or literal_int(value) is not None
                or (
                    isinstance(value, cst.UnaryOperation)
                    and isinstance(value.expression, cst.Float)
                )
            ):
                facts.scalar_attrs.add(attr)
            elif _numeric(value, numbers):  # `self.eps = eps`, `self.th = math.cos(math.pi - m)`
                facts.scalar_attrs.add(attr)
            elif literal_shape(value) is not None and isinstance(value, (cst.Tuple, cst.List)):
                facts.scalar_attrs.add(attr)
                facts.scalar_sequences.add(attr)
            elif isinstance(value, cst.Call) and built in (
                "get",
                "get_constant",
                "Parameter",
                "Constant",
            ):
                shape_arg = call_argument(value, None, "shape")
                facts.parameters[attr] = _declared_shape(shape_arg.value) if shape_arg else None
                if built == "get_constant":  # the shape of its value, an array built here
                    constant = call_argument(value, 1, "value")
                    facts.parameters[attr] = (
                        array_shape(constant.value, shapes_before(init, small))
                        if constant
                        else None
                    )
                declared[attr] = facts.parameters[attr]
            elif isinstance(value, cst.Call):
                facts.children[attr] = _child_value(value, module, module.built_from[1])
                if _foreign(value, module, classes):
                    facts.foreign_children.add(attr)
                effect = child_effect(value, *module.built_from)
                if effect is not None:
                    facts.shape_effects[attr] = effect
                channels = call_argument(value, 0, "channels")
                if (
                    built in _CONVOLUTIONS
                    and channels is not None
                    and call_argument(value, None, "layout") is None
                ):
                    facts.conv_channels[attr] = (channels.value, int(built[-2]) + 2)
                units = _flattening_units(value, init)
                if units is not None:
                    facts.dense_units[attr] = units
                if built in SINGLE_OUTPUT_LAYERS:
                    facts.layers.add(attr)
                    if built not in _CONTAINER_LAYERS:
                        facts.array_layers.add(attr)
                    elif built == "HybridSequential":  # its first child settles (XKT's DKT)
                        unfilled.add(attr)
                elif built in RNN_LAYERS and built not in classes:
                    facts.rnn_layers.add(attr)
    for attr in nones.intersection(declared):
        facts.optional_parameters[attr] = declared[attr]
    facts.container_units.update(_container_units(adds, init, facts))


def _attribute_writes(
    targets: Sequence[cst.BaseExpression], value: cst.BaseExpression, klass: cst.ClassDef
) -> List[Tuple[str, cst.BaseExpression]]:
    """(attribute, what it is bound to) for each `self.<attr>` an `__init__` assignment writes.

    A child a method of the class builds and returns (`self.layer1 = self._make_layer(...)`,
    `self.f1, self.f2 = self._split_backbone()`: the method binds `layer = nn.HybridSequential(
    ...)` once and returns it) is bound to that construction (`_factories.bound_call`), so its
    outputs are known as any other child's; an element the method's one `return` does not
    show is bound to an expression no rule knows (the attribute is written, its kind unknown)."""
    writes: List[Tuple[str, cst.BaseExpression]] = []
    for target in targets:
        attr = self_attribute_name(target)
        if attr is not None:
            writes.append((attr, _built_by_method(value, klass, None) or value))
        elif isinstance(target, (cst.Tuple, cst.List)):
            names = [self_attribute_name(e.value) for e in target.elements]
            items = list(value.elements) if isinstance(value, (cst.Tuple, cst.List)) else []
            for i, name in enumerate(names):
                if name is None:
                    continue
                item = items[i] if len(items) == len(names) else None
                if isinstance(item, cst.Element):  # `self.h, self.w = 3, 4`
                    writes.append((name, item.value))
                else:
                    writes.append((name, _built_by_method(value, klass, (i, len(names))) or target))
    return writes


def _built_by_method(
    value: cst.BaseExpression, klass: cst.ClassDef, item: Optional[Tuple[int, int]]
) -> Optional[cst.Call]:
    """The construction `self.<m>(...)` returns (`item`: the i-th of the n it returns as a
    tuple), when `<m>` is a method of `klass` with one return; None otherwise."""
    if not isinstance(value, cst.Call) or not isinstance(value.func, cst.Attribute):
        return None
    if not (isinstance(value.func.value, cst.Name) and value.func.value.value == "self"):
        return None
    method = class_method(klass, value.func.attr.value)
    found = returns(method) if method is not None else []
    if method is None or len(found) != 1 or found[0].value is None:
        return None
    returned = found[0].value
    if item is None:
        return bound_call(method, returned)
    index, count = item
    if not isinstance(returned, cst.Tuple) or len(returned.elements) != count:
        return None
    element = returned.elements[index]
    return None if isinstance(element, cst.StarredElement) else bound_call(method, element.value)


# ----------------------------------------------------------------------------------------
# Array uses (asked on demand by FunctionFacts.used_as_array)
# ----------------------------------------------------------------------------------------
# Attributes a list, tuple or dict also has: using them proves nothing about an array.
_CONTAINER_ATTRIBUTES = frozenset(dir(list)) | frozenset(dir(tuple)) | frozenset(dir(dict))


# Layers that hand their input on as it is (Identity) or to their first child (a
# HybridSequential of a block that takes a list): MXNet 1.9.1 runs both on a list of arrays.
_CONTAINER_LAYERS = frozenset(("HybridSequential", "Identity"))


def _first_added(
    added: Optional[Tuple[str, List[cst.Arg]]], unfilled: AbstractSet[str]
) -> Optional[Tuple[str, Optional[str]]]:
    """For an `add` call (`_added_layers`) `self.<a>.add(<first>, ...)` with `<a>` in
    `unfilled`: `<a>` and the name of the class `<first>` builds (None when it is not a call:
    a block built elsewhere)."""
    if added is None or added[0] not in unfilled:
        return None
    attr, args = added
    if not args or args[0].star:
        return attr, None
    first = args[0].value
    return attr, (last_name(first.func) if isinstance(first, cst.Call) else None)


def _uses_as_array(function: cst.FunctionDef, name: str, layers: AbstractSet[str]) -> bool:
    """Whether `function`'s body uses `name` as only an array can be used (`_ArrayUseFinder`),
    a call of one of the `self.<layer>` gluon layers in `layers` included. Read without flow,
    so an input the body rebinds (`ids = F.concat(*ids)`) or asks the type of
    (`isinstance(ids, list)`) is not settled: what it was given may be a list."""
    positional = _signature(function)
    namespace = positional[1].name.value if len(positional) > 1 else None
    if _rebinds_or_asks(function, name):
        return False
    finder = _ArrayUseFinder(name, namespace, layers)
    visit_only(function.body, finder)
    return finder.found


def _rebinds_or_asks(function: cst.FunctionDef, name: str) -> bool:
    """Whether `function` binds `name` again (any of Python's binding forms,
    `values.bound_targets`, or a nested def's or lambda's parameter) or asks its type
    (`isinstance(name, ...)`, `type(name)`)."""
    for node in walk_nodes(function.body):
        if isinstance(node, cst.Param) and node.name.value == name:
            return True
        if any(name in target_names(target) for target in bound_targets(node)):
            return True
        if (
            isinstance(node, cst.Call)
            and dotted_name(node.func) in ("isinstance", "type")
            and node.args
            and isinstance(node.args[0].value, cst.Name)
            and node.args[0].value.value == name
        ):
            return True
    return False


def _used_before_rebound(function: cst.FunctionDef, name: str, namespace: Optional[str]) -> bool:
    """`_ArrayUseFinder` over the body's statements up to the simple statement that binds
    `name` again (included: `x = F.relu(x)` reads the input first): a parameter's first such
    binding, a local's second (its first defines it). A later use is of another value:
    `top = feats[-1]; feats = F.relu(top); feats.reshape(...)` says nothing of a list input."""
    body = function.body
    statements: Sequence[cst.CSTNode] = [body]
    if isinstance(body, cst.IndentedBlock):
        statements = body.body
    definitions = 0 if name in parameter_names(function.params) else 1
    for statement in statements:
        finder = _ArrayUseFinder(name, namespace)
        visit_only(statement, finder)
        if finder.found:
            return True
        if isinstance(statement, cst.SimpleStatementLine) and any(
            name in target_names(target)
            for node in walk_nodes(statement, NESTED_SCOPES)
            for target in bound_targets(node)
        ):  # a binding always made (in a loop or branch, the old value may reach later uses)
            if not definitions:
                return False
            definitions -= 1
    return False


class _ArrayUseFinder(cst.CSTVisitor):
    """Finds a use of `name` that a list of arrays would not survive eagerly: a plain (not
    starred) argument of an `F.<op>(...)` call or of a `self.<a>(...)` call where `<a>` is one
    of `layers` (gluon layers), an attribute only arrays have (`name.reshape(...)`,
    `name.shape`, `name.expand_dims(...)`), or a tuple index (`name[:, 0]`)."""

    def __init__(
        self, name: str, namespace: Optional[str], layers: AbstractSet[str] = frozenset()
    ) -> None:
        self.name, self.namespace, self.found = name, namespace, False
        self.layers = layers

    def _is_name(self, expr: cst.BaseExpression) -> bool:
        return isinstance(expr, cst.Name) and expr.value == self.name

    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        if self._is_name(node.value) and node.attr.value not in _CONTAINER_ATTRIBUTES:
            self.found = True
        return not self.found

    def visit_Subscript(self, node: cst.Subscript) -> Optional[bool]:
        if self._is_name(node.value) and len(node.slice) > 1:  # `x[:, 0]`: TypeError on a list
            self.found = True
        return not self.found

    def visit_Call(self, node: cst.Call) -> Optional[bool]:
        array_only = _operator_call(node, self.namespace) or (
            self_attribute_name(node.func) in self.layers
        )
        if array_only and any(self._is_name(arg.value) and not arg.star for arg in node.args):
            self.found = True
        return not self.found


def _operator_call(call: cst.Call, namespace: Optional[str]) -> bool:
    """`F.<op>(...)`, `nd.<op>(...)`, `mx.sym.<op>(...)`: an MXNet operator, which takes only
    arrays as plain arguments (`nd.array(...)`, which takes lists, excepted)."""
    name = dotted_name(call.func)
    if name is None or "." not in name:
        return False
    head, _, op = name.rpartition(".")
    if op in ("array", "asarray"):
        return False
    return (
        head.split(".")[0] == namespace
        or head in EAGER_NAMESPACES
        or head in SYMBOL_NAMESPACES
        or (head.rpartition(".")[0] in EAGER_NAMESPACES | SYMBOL_NAMESPACES)
    )


# ----------------------------------------------------------------------------------------
# Inputs that are lists of arrays (asked only for inputs the walk saw under len() or a for)
# ----------------------------------------------------------------------------------------
def list_inputs(node: cst.FunctionDef, candidates: Iterable[str]) -> Set[str]:
    """The hybrid_forward inputs among `candidates` that are lists of arrays, not arrays.

    gluon passes a (nested) list of arrays as one input the same way it passes an array (a
    decoder's feature maps, GluonCV's DLA/monodepth2 style), and nothing in the signature
    tells them apart. `len(x)`, `x[i]` and `for t in x` read the same on both: on an array
    they are hazards (HL009, HL003, HL008), on a list correct code. The decision:

    An input is a list when the body takes its `len()` or iterates it with a `for` (the
    candidates: the walk records them), and EVERY other mention of the name is one of those
    uses or a one-element subscript (`x[i]`, `x[-1]`, `x[a:b]`, also as a store target): the
    name itself is never an operand, an argument (of an operator, a child block, a helper),
    an attribute's base, a returned value, rebound, or used inside a comprehension, lambda or
    nested def in any other way. A list of arrays can only be used like that, while a real
    array input always meets an operator or a child somewhere whole in working code (the
    hazard files' inputs do); what only indexes and counts its input is taken for a list,
    trading the rare such array-hazard for no false positive on decoders (pre-commit: a false
    positive costs more than a miss). Indexing alone (no len(), no for) is not enough: `x[0]`
    on an array input is the commonest HL003 hazard.

    A list input then holds `Value(SEQUENCE)` (like `*args`): its elements may themselves be
    nested lists, so `x[i]` is UNKNOWN and nothing about the elements is reported.
    """
    names = set(candidates)
    if not names:
        return set()
    checker = _SequenceUseChecker(names)
    node.body.visit(checker)
    return names & checker.counted - checker.other


class _SequenceUseChecker(cst.CSTVisitor):
    """Sorts every mention of the names: `len(n)` / `for _ in n` (counted), `n[<one>]`
    (allowed), anything else (other). Parents are visited before their children, so the
    allowed Name nodes are known when the visitor reaches them."""

    def __init__(self, names: Set[str]) -> None:
        self.names = names
        self.allowed: Set[cst.CSTNode] = set()
        self.counted: Set[str] = set()
        self.other: Set[str] = set()

    def _mine(self, expr: cst.BaseExpression) -> TypeGuard[cst.Name]:
        return isinstance(expr, cst.Name) and expr.value in self.names

    def visit_Call(self, node: cst.Call) -> None:
        if (
            isinstance(node.func, cst.Name)
            and node.func.value == "len"
            and len(node.args) == 1
            and not node.args[0].star
            and self._mine(node.args[0].value)
        ):
            self.allowed.add(node.args[0].value)
            self.counted.add(node.args[0].value.value)

    def _iterated(self, iterable: cst.BaseExpression) -> None:
        arguments = (
            iterable.args if isinstance(iterable, cst.Call) and iterated_names(iterable) else ()
        )
        for expr in [iterable] + [a.value for a in arguments]:
            if self._mine(expr):
                self.allowed.add(expr)
                self.counted.add(expr.value)

    def visit_For(self, node: cst.For) -> None:
        self._iterated(node.iter)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._iterated(node.iter)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self._mine(node.value) and len(node.slice) == 1:  # `x[:, 0]` is array-only
            self.allowed.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self.allowed.add(node.attr)  # `self.feats`: not the name

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self.allowed.add(node.keyword)  # `f(feats=...)`: not the name

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names and node not in self.allowed:
            self.other.add(node.value)


# ----------------------------------------------------------------------------------------
# Reaching every helper: comprehensions and lambdas (issue 12)
# ----------------------------------------------------------------------------------------
class _Evaluator(Evaluator):
    """The evaluator with comprehensions evaluated inside: their targets are bound from the
    iterables as a `for` binds them (`zip` and `enumerate` element by element, items of a
    tuple literal joined), their element and conditions evaluated in that env (so helpers
    called there are reached and inputs used there as arrays count), and the env recorded
    for the rules (`FunctionFacts.comp_envs`)."""

    def _eval_ListComp(self, expr: cst.BaseExpression, env: Env) -> Value:
        result = super()._eval_ListComp(expr, env)
        if self.analyzer is None:
            # a rule's question after the walk: the element in the env the walk bound
            # (`nd.concat(*[parts[i] for i in range(n)], dim=1)`, yolov4-mxnet)
            bound = self.facts.comp_envs.get(expr)
            if isinstance(expr, cst.ListComp) and bound is not None:
                value = self.eval(expr.elt, bound)
                if value.kind == TENSOR:
                    return Value(TENSORS, assumed=value.assumed)
            return result
        bound = dict(env)
        self._inside += 1
        try:
            comp = getattr(expr, "for_in", None)
            while comp is not None:
                bound = self._bind_target(comp.target, comp.iter, bound)
                for condition in comp.ifs:
                    self.eval(condition.test, bound)
                comp = comp.inner_for_in
            self.facts.comp_envs[expr] = bound
            for part in ("elt", "key", "value"):
                sub = getattr(expr, part, None)
                if isinstance(sub, cst.BaseExpression):
                    value = self.eval(sub, bound)
                    if isinstance(expr, cst.ListComp) and value.kind == TENSOR:
                        # `[conv(x).expand_dims(-1) for conv in self.convs]`: a list of tensors
                        result = Value(TENSORS, assumed=value.assumed)
        finally:
            self._inside -= 1
        return result

    _eval_SetComp = _eval_GeneratorExp = _eval_DictComp = _eval_ListComp

    _inside = 0  # depth of comprehensions being evaluated

    def eval(self, expr: cst.BaseExpression, env: Env, consumed: bool = False) -> Value:
        value = super().eval(expr, env, consumed)
        if (self._inside or self._narrowing) and self.analyzer is not None:
            # what an expression inside a comprehension (or a branch of a type-tested
            # ternary: `size[0] if isinstance(size, tuple) else ...`) holds needs that env,
            # which a statement-level reader (FunctionFacts.value with the statement's env)
            # does not have: the walk's value is what it reads (the last walk wins)
            self.facts._memo[expr] = value
        return value

    def element(self, iterable: cst.BaseExpression, env: Env) -> Value:
        """What one element of `iterable` holds."""
        if (
            isinstance(iterable, (cst.Tuple, cst.List))
            and iterable.elements
            and all(isinstance(e, cst.Element) for e in iterable.elements)
        ):
            values = [self.eval(e.value, env) for e in iterable.elements]
            value = values[0]
            for other in values[1:]:
                value = join(value, other)
            return value
        if (
            isinstance(iterable, cst.Call)
            and dotted_name(iterable.func) == "range"
            and "range" not in env
        ):
            self.eval(iterable, env)
            args = [a for a in iterable.args if a.keyword is None and not a.star]
            if len(args) == 1 or (len(args) == 2 and (literal_int(args[0].value) or -1) >= 0):
                return Value(SCALAR, nonnegative=True)
            return SCALAR_VALUE
        value = self.eval(iterable, env)
        if value.kind == BLOCK:  # `[op(d) for d, op in zip(parts, self.branches)]`
            return value
        if value.kind == TENSORS:
            return piece(value)
        if value.kind == TENSOR:  # rows of a tensor (HL008 reports the iteration itself)
            return Value(TENSOR, assumed=value.assumed)
        return UNKNOWN_VALUE

    def _bind_target(
        self, target: cst.BaseExpression, iterable: cst.BaseExpression, env: Env
    ) -> Env:
        name = dotted_name(iterable.func) if isinstance(iterable, cst.Call) else None
        positional = (
            [a.value for a in iterable.args if a.keyword is None and not a.star]
            if isinstance(iterable, cst.Call) and not any(a.star for a in iterable.args)
            else []
        )
        if isinstance(target, (cst.Tuple, cst.List)) and name not in env:
            elements = [e.value for e in target.elements if isinstance(e, cst.Element)]
            if len(elements) == len(target.elements):
                if (
                    name == "zip"
                    and isinstance(iterable, cst.Call)
                    and len(positional) == len(elements) == len(iterable.args)
                ):
                    for inner, arg in zip(elements, positional):
                        env = _bind_value(inner, self.element(arg, env), env)
                    return env
                if name == "enumerate" and len(elements) == 2 and positional:
                    env = _bind_value(elements[0], Value(SCALAR, nonnegative=True), env)
                    return (
                        self._bind_target(elements[1], positional[0], env)
                        if isinstance(elements[1], (cst.Tuple, cst.List))
                        else _bind_value(elements[1], self.element(positional[0], env), env)
                    )
        return _bind_value(target, self.element(iterable, env), env)

    # objects handed F (`_instances`): `dist = Dist(mean, sigma, F=F); dist.kl_div(other)`
    def _eval_Call(self, expr: cst.Call, env: Env) -> Value:
        func, module = expr.func, self.facts.module
        if isinstance(func, cst.Name) and func.value not in env:
            found = module.instance_class(func.value)
            if found is not None and func.value not in module.functions:
                args = [self.eval(a.value, env) for a in expr.args]
                if self.analyzer is not None:
                    self.facts.made[expr] = _stored_values(found, expr, args)
                return UNKNOWN_VALUE
        if (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value != "self"
            and func.value.value in env
        ):
            made = self._made(func.value.value)
            method = made[0].method(func.attr.value) if made is not None else None
            if made is not None and method is not None:
                args = [self.eval(a.value, env) for a in expr.args]
                self.eval(func.value, env)
                if self.analyzer is not None:
                    target = ("instance", made[0].name, func.attr.value, made[1])
                    self.analyzer.call_site(target, expr, args)
                return module.return_values.get(method, UNKNOWN_VALUE)
        return super()._eval_Call(expr, env)

    def _made(self, name: str) -> Optional[Tuple[InstanceClass, Env]]:
        """The class and stored values of the object `name` holds when the function binds
        `name` once, to a construction of a followed class handed the namespace (a parameter
        of that name, or any other binding, may hold something else)."""
        facts, module = self.facts, self.facts.module
        if module.class_nodes is None or any(
            p.name.value == name
            for p in _signature(facts.node) + list(facts.node.params.kwonly_params)
        ):
            return None
        assigned, other = _bindings(facts.node, _index(module.class_nodes, module.functions)).get(
            name, ([], True)
        )
        if other or len(assigned) != 1 or not isinstance(assigned[0], cst.Call):
            return None
        stored = facts.made.get(assigned[0])
        found = module.instance_class(dotted_name(assigned[0].func) or "")
        if found is None or not stored or all(v.kind != NAMESPACE for v in stored.values()):
            return None
        return found, stored

    def _eval_Attribute(self, expr: cst.Attribute, env: Env) -> Value:
        if self.facts.self_attrs and self_attribute_name(expr) in self.facts.self_attrs:
            return self.facts.self_attrs[expr.attr.value]  # `self.F`, `self.sigma`
        return super()._eval_Attribute(expr, env)

    def _namespace_op(self, func: cst.BaseExpression, env: Env) -> Optional[str]:
        """`self.F.linalg.potrf` -> "linalg.potrf" in a method whose `self.F` holds F."""
        found = super()._namespace_op(func, env)
        if found is None and self.facts.self_attrs:
            parts = (dotted_name(func) or "").split(".", 2)
            held = self.facts.self_attrs.get(parts[1]) if len(parts) == 3 else None
            if parts[0] == "self" and held is not None and held.kind == NAMESPACE:
                if parts[2].startswith(("np.", "npx.")):
                    self.facts.numpy = True
                return parts[2]
        return found

    def _self_call(self, attr: str, call: cst.Call, args: List[Value]) -> Value:
        """`self.log_det(self.sigma)` in a followed method: that method, with the same `self`."""
        facts = self.facts
        found = facts.module.instance_class(facts.instance_of) if facts.instance_of else None
        method = found.method(attr) if found is not None else None
        if found is None or method is None:
            return super()._self_call(attr, call, args)
        if self.analyzer is not None:
            held = {"self." + a: v for a, v in facts.self_attrs.items()}
            self.analyzer.call_site(("instance", found.name, attr, held), call, args)
        return facts.module.return_values.get(method, UNKNOWN_VALUE)


def _stored_values(found: InstanceClass, call: cst.Call, args: List[Value]) -> Env:
    """What a construction of a followed class stores that its methods compute with:
    {"self.<a>": the namespace or a tensor} (a tensor's shape form is the caller's: dropped)."""
    bound = _bind_call(found.init, call, args, skip_self=True)
    stored: Env = {}
    for param, attr in found.stored.items():
        value = bound.get(param)
        if value is not None and value.kind == NAMESPACE:
            stored["self." + attr] = Value(NAMESPACE)
        elif value is not None and value.kind == TENSOR:
            stored["self." + attr] = Value(
                TENSOR, value.shape, value.shape_reason, assumed=value.assumed
            )
    return stored


def _bind_value(target: cst.BaseExpression, value: Value, env: Env) -> Env:
    """`target = value` as the statement walk binds it (tuple targets: `values.unpacked`)."""
    if isinstance(target, cst.Name):
        return {**env, target.value: value}
    if isinstance(target, (cst.Tuple, cst.List)):
        for item, known in zip(target.elements, unpacked(value, target.elements)):
            env = _bind_value(item.value, known, env)
    return env


class _Analyzer(FunctionAnalyzer):
    """The statement walk with lambdas bound to a name (`flat = lambda t: ...`) registered as
    nested defs, so calling them reaches them like `def flat(t): ...` (comprehension bodies
    are reached by `_Evaluator`)."""

    def __init__(self, facts: "FunctionFacts", on_call) -> None:
        super().__init__(facts, on_call)
        self.evaluator = _Evaluator(facts, self)

    def run(self) -> None:
        """In a method of an object handed F (`_instances`), the walk reads `self.F` as the
        namespace in guards too (`if self.F is mx.nd:` is eager-only), as it reads F in a
        helper given F; rules see no namespace parameter there (`FunctionFacts.self_attrs`
        holds it), so it is set for the walk only."""
        facts = self.facts
        held = next((a for a, v in facts.self_attrs.items() if v.kind == NAMESPACE), None)
        if held is None or facts.namespace is not None:
            super().run()
            return
        facts.namespace = "self." + held
        try:
            super().run()
        finally:
            facts.namespace = None

    def bind_loop_target(
        self, target: cst.BaseExpression, iterable: cst.BaseExpression, element: Value, env: Env
    ) -> Env:
        """`for x, w in zip(inputs, weights)` binds x and w as a comprehension's targets are
        (`_Evaluator._bind_target`: zip and enumerate element by element)."""
        if (
            isinstance(target, (cst.Tuple, cst.List))
            and isinstance(iterable, cst.Call)
            and dotted_name(iterable.func) in ("zip", "enumerate")
        ):
            # a target the binder leaves alone is unknown, not what it held before the loop
            fresh = {**env, **{name: UNKNOWN_VALUE for name in target_names(target)}}
            return cast(_Evaluator, self.evaluator)._bind_target(target, iterable, fresh)
        return super().bind_loop_target(target, iterable, element, env)

    def small_statement(self, small: cst.BaseSmallStatement, env: Env) -> Tuple[Env, bool]:
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Lambda):
            for target in small.targets:
                if isinstance(target.target, cst.Name):
                    name = target.target.value
                    node = self.facts.module.lambda_def(small.value, name)
                    self.local_defs[name] = self.facts.local_defs[name] = node
                    self.facts.module.local_envs[node] = dict(env)
        return super().small_statement(small, env)


# ----------------------------------------------------------------------------------------
# Entry point
# ----------------------------------------------------------------------------------------
def _signature(node: cst.FunctionDef) -> List[cst.Param]:
    return list(node.params.posonly_params) + list(node.params.params)


# Inputs that gluon passes as nested lists by convention (RNN states, caches, memories).
_LIST_LIKE_NAME = re.compile(r"state|hidden|cache|mem", re.IGNORECASE)


def _hybrid_forward_params(node: cst.FunctionDef) -> Tuple[Optional[str], Env]:
    """The namespace name (by position) and the kinds of the inputs after it (inputs the body
    only counts, iterates and indexes become lists after the first walk: `list_inputs`)."""
    positional = _signature(node)
    if len(positional) < 2:
        return None, {}
    namespace = positional[1].name.value
    env: Env = {namespace: Value(NAMESPACE)}
    sequence_like = _sequence_used_names(node)
    for param in positional[2:] + list(node.params.kwonly_params):
        env[param.name.value] = _input_value(param, sequence_like)
    star = node.params.star_arg
    if isinstance(star, cst.Param):  # elements may themselves be nested lists of inputs
        # each taken for a tensor by position, as a named input is (`p = args[0]`)
        env[star.name.value] = Value(SEQUENCE, assumed=True)
    if node.params.star_kwarg is not None:
        env[node.params.star_kwarg.name.value] = UNKNOWN_VALUE
    return namespace, env


def _defaults_to_none(node: cst.FunctionDef, name: str) -> bool:
    """Whether the parameter `name` of `node` is declared `name=None`."""
    return any(
        p.name.value == name and isinstance(p.default, cst.Name) and p.default.value == "None"
        for p in _signature(node) + list(node.params.kwonly_params)
    )


def _input_value(param: cst.Param, sequence_like: Set[str]) -> Value:
    """What a graph input holds before its uses are seen (the "undecided input" policy): its
    annotation unless that says Tensor (`x: Tensor` is often loose, states), UNKNOWN with a
    default, a list-like name or a use as a sequence (`sequence_like`), else a tensor taken
    by its position only (`Value.assumed`: gluon passes lists of arrays the same way)."""
    annotated = annotation_value(param.annotation)
    name = param.name.value
    if annotated is not None and annotated.kind != TENSOR:
        return annotated
    if param.default is not None or _LIST_LIKE_NAME.search(name) or name in sequence_like:
        return UNKNOWN_VALUE
    return Value(TENSOR, assumed=True)


def _sequence_used_names(node: cst.FunctionDef) -> Set[str]:
    """Names the author treats as sequences: unpacked (`h, c = states`), starred (`*x`) or
    item-assigned at one computed index (`layers[i] = f(layers[i])`, GluonCV's IDAUp).

    Looks at the statements and the top level of their expressions only (calls, tuples,
    lists): a full tree walk per function would cost as much as the analysis itself.
    """
    names: Set[str] = set()

    def starred_in(expr: Optional[cst.BaseExpression]) -> None:
        if isinstance(expr, cst.Call):
            names.update(
                a.value.value for a in expr.args if a.star == "*" and isinstance(a.value, cst.Name)
            )
            starred_in(expr.func.value if isinstance(expr.func, cst.Attribute) else None)
            for arg in expr.args:
                starred_in(arg.value)
        elif isinstance(expr, (cst.Tuple, cst.List)):
            for element in expr.elements:
                if isinstance(element, cst.StarredElement) and isinstance(element.value, cst.Name):
                    names.add(element.value.value)
                else:
                    starred_in(element.value)

    for small in _walk_statements(node.body.body):
        if isinstance(small, cst.Assign):
            if isinstance(small.value, cst.Name) and any(
                isinstance(t.target, (cst.Tuple, cst.List)) for t in small.targets
            ):
                names.add(small.value.value)
            for t in small.targets:  # `layers[i] = ...`, one computed index: a list of inputs
                target = t.target
                if (
                    isinstance(target, cst.Subscript)
                    and isinstance(target.value, cst.Name)
                    and len(target.slice) == 1
                    and isinstance(target.slice[0].slice, cst.Index)
                    and literal_int(target.slice[0].slice.value) is None
                ):
                    names.add(target.value.value)
            starred_in(small.value)
        elif isinstance(small, (cst.Expr, cst.Return, cst.AugAssign, cst.AnnAssign)):
            starred_in(getattr(small, "value", None))
    return names


def _bind_call(
    node: cst.FunctionDef,
    call: cst.Call,
    args: List[Value],
    skip_self: bool,
    forwarded: Mapping[str, str] = {},
    parameters: Mapping[str, Optional[Shape]] = {},
) -> Env:
    """The callee's parameters as `call` binds them; {} when a starred argument hides which
    parameter gets what, unless it forwards the caller's graph inputs (`forwarded`: the
    caller's `*args` / `**kwargs` of `FunctionFacts.stars`, never rebound), as the template
    method `hybrid_forward(self, F, x, *args, **kwargs): return self.loss_forward(F, x, *args,
    **kwargs)` does: the parameters `*args` may fill are then inputs like a hybrid_forward's
    own (`_forwarded_inputs`). A forwarded input passed on by name (`forwarded` "*<name>")
    marks the parameter it fills as one too."""
    positional = _signature(node)[1 if skip_self else 0 :]
    env: Env = {}
    index = 0
    rest: Optional[int] = None  # where a forwarded `*args` starts, by position
    keywords = False  # `**kwargs` forwarded: the block's Parameters, by name
    # another starred argument (`*self._range`, `**self._kwargs`): the arguments before it are
    # bound by position as ever, keywords by name; the parameters it may fill stay unbound,
    # their defaults included, and after a `*` no position is known
    hidden = lost = False
    for arg, value in zip(call.args, args):
        name = arg.value.value if isinstance(arg.value, cst.Name) else None
        if arg.star == "*" and rest is None and name is not None and forwarded.get("*") == name:
            rest = index
        elif arg.star == "**" and name is not None and forwarded.get("**") == name:
            keywords = True
        elif arg.star and rest is None:
            hidden = True
            lost = lost or arg.star == "*"
        elif arg.star or (rest is not None and arg.keyword is None):
            return {}  # which parameter a value reaches is not known
        else:
            if arg.keyword is not None:
                param = arg.keyword.value
            elif lost:
                continue
            elif index < len(positional):
                param, index = positional[index].name.value, index + 1
            else:
                continue
            env[param] = value
            if name is not None and _STAR_INPUTS + name in forwarded:  # passed on by name
                env[_STAR_INPUTS + param] = Value(SEQUENCE)
            if name is not None and _PASSED_INPUT + name in forwarded:
                env[_PASSED_INPUT + param] = Value(SEQUENCE)
    if rest is not None or keywords:
        env.update(_forwarded_inputs(node, positional, env, rest, keywords, parameters))
    # parameters the call leaves to a number default (`eps=1e-5`) are that number
    for declared in [] if hidden else positional + list(node.params.kwonly_params):
        default = declared.default
        if isinstance(default, cst.UnaryOperation) and isinstance(default.operator, cst.Minus):
            default = default.expression
        if declared.name.value not in env and isinstance(default, (cst.Integer, cst.Float)):
            env[declared.name.value] = SCALAR_VALUE
        elif declared.name.value not in env and isinstance(default, cst.Name):
            if default.value in ("True", "False"):  # `keepdims=False` left to its default
                env[declared.name.value] = TRUE_VALUE if default.value == "True" else FALSE_VALUE
    return env


# `Env` keys (no parameter can be named so) marking a helper's star parameters as holding the
# forwarded graph inputs / Parameters when every call forwards them (`join_envs` drops a mark
# one call lacks); "*<name>" marks a parameter filled from a forwarded `*args`
_STAR_INPUTS, _STAR_PARAMETERS = "*", "**"
# "~<name>" marks a parameter some call fills with an input of the caller passed by name
# (`FunctionFacts.passed_inputs`)
_PASSED_INPUT = "~"


def _forwarded_inputs(
    node: cst.FunctionDef,
    positional: List[cst.Param],
    bound: Env,
    rest: Optional[int],
    keywords: bool,
    parameters: Mapping[str, Optional[Shape]],
) -> Env:
    """The callee's parameters a forwarded `*args` (from position `rest`) or `**kwargs` may
    fill. gluon 1.9.1's `HybridBlock.forward(x, *args)` calls `hybrid_forward(F, x, *args,
    **params)`: the items of `*args` are inputs exactly like named ones, the keywords the
    block's registered Parameters. So a parameter named like a Parameter (when `**kwargs` is
    forwarded) is that Parameter; one `*args` may fill gets the input policy
    (`_input_value`), and is a list when the body only counts, iterates and indexes it
    (`list_inputs`), as a hybrid_forward's input would be. The callee's own star parameters
    get the marks (`_STAR_INPUTS`, `_STAR_PARAMETERS`) that make them forwardable again."""
    env: Env = {}
    open_params = positional[rest:] if rest is not None else []
    if keywords:
        open_params = positional + list(node.params.kwonly_params)
    sequence_like = _sequence_used_names(node) if rest is not None else set()
    undecided: List[str] = []
    for param in open_params:
        name = param.name.value
        if name in bound:
            continue
        if keywords and name in parameters:
            env[name] = _parameter_value(parameters[name])
        elif rest is not None and param in positional[rest:]:
            env[name] = _input_value(param, sequence_like)
            env[_STAR_INPUTS + name] = Value(SEQUENCE)  # the mark of a forwarded input
            if env[name].assumed:
                undecided.append(name)
    for name in list_inputs(node, undecided):
        env[name] = Value(SEQUENCE)
    if rest is not None and isinstance(node.params.star_arg, cst.Param):
        env[_STAR_INPUTS] = Value(SEQUENCE)
    if keywords and node.params.star_kwarg is not None:
        env[_STAR_PARAMETERS] = Value(MAPPING)
    return env


def _input_mark(key: str) -> bool:
    """Whether an `Env` key is the "*<name>" mark of a parameter filled with a forwarded input
    or the "~<name>" mark of one filled with a passed input (kept when any call sets it, unlike
    the marks of star parameters, which every call must)."""
    return key[:1] in (_STAR_INPUTS, _PASSED_INPUT) and key[1:].isidentifier()


def _parameter_value(shape: Optional[Shape]) -> Value:
    """A registered Parameter passed to hybrid_forward: a tensor of its declared shape (0 and
    -1 dims, inferred later, unknown)."""
    dims = None if shape is None else tuple(d if d and d > 0 else None for d in shape)
    return Value(TENSOR, dims, "parameter")


def _forwarded(caller: "FunctionFacts", module: "ModuleFacts") -> Dict[str, str]:
    """The caller's star parameters holding graph inputs (`FunctionFacts.stars`) and, under
    "*<name>" keys, its forwarded inputs (`FunctionFacts.forwarded`), those its body never
    rebinds (`args = args[1:]` leaves other values in them)."""
    inputs = set(caller.forwarded) | caller.passed_inputs
    if caller.kind == "hybrid_forward":  # its own inputs, after self and F
        inputs.update(p.name.value for p in caller.node.params.params[2:])
        inputs.update(p.name.value for p in caller.node.params.kwonly_params)
    if not (caller.stars or inputs) or module.class_nodes is None:
        return {}
    rebound = _bindings(caller.node, _index(module.class_nodes, module.functions))
    found = {star: name for star, name in caller.stars.items() if name not in rebound}
    found.update((_STAR_INPUTS + n, n) for n in caller.forwarded if n not in rebound)
    found.update((_PASSED_INPUT + n, n) for n in inputs if n not in rebound)
    return found


# a call into a function of another module: the call and the values of its arguments
ExternalCall = Tuple[cst.Call, List[Value]]


def analyze(
    classes: Sequence[cst.ClassDef],
    functions: Sequence[cst.FunctionDef],
    context: Optional[ModuleContext] = None,
    *,
    seeds: Optional[Mapping[str, Sequence[ExternalCall]]] = None,
    external: Optional[Dict[str, Dict[cst.Call, List[Value]]]] = None,
    foreign: Optional[Tuple[Mapping[str, cst.FunctionDef], Mapping[str, cst.ClassDef]]] = None,
    inherited: Optional[Mapping[str, cst.ClassDef]] = None,
) -> ModuleFacts:
    """Analyse the classes with a hybrid_forward (own or inherited from a class given) and the
    module functions given.

    An inherited hybrid_forward is analysed once per class that has it, with that class's
    methods: a subclass's override of a helper the base's hybrid_forward calls is followed.

    `functions` are the module-level functions that may serve as helpers; they become
    analysed scopes only when some analysed function calls them with F or tensors.

    Helpers imported from another module of the project (issue 12): `seeds` maps a module
    function to the calls other modules' hybrid code makes to it (`ExternalCall`s, collected
    with `external`); each is bound like a call made here, so the function is analysed as a
    helper with the joined facts of those call sites. `external`, when given, collects the
    calls the analysed functions make with F or tensors to names imported with `from ...
    import` (name -> call -> argument values).

    `foreign`: the functions and classes of other modules of the project this file imports
    (and what they call there), by their name here: evidence of how children are built (a
    `conv1x1_block` factory of `.common` and the block class it returns), never analysed.

    `inherited`: classes of other modules of the project that define a hybrid_forward, by
    their name here; a class deriving from one, with no hybrid_forward in the module, is
    analysed with it as with a base of the module (its overrides of the helpers that
    hybrid_forward calls run in the graph). Their own nodes are never reported: no rule
    walks them.
    """
    module = ModuleFacts(context=context)
    module.functions = {f.name.value: f for f in functions}
    class_nodes = module.class_nodes = {c.name.value: c for c in classes}
    module.built_from = (
        (ChainMap(module.functions, foreign[0]), ChainMap(class_nodes, foreign[1]))  # type: ignore[arg-type]
        if foreign
        else (module.functions, class_nodes)
    )
    if len(class_nodes) < len(classes):
        names = [c.name.value for c in classes]
        module.shared_class_names = {name for name in class_nodes if names.count(name) > 1}
    pending: List[FunctionFacts] = []
    helper_envs: Dict[Tuple[object, ...], Env] = {}
    helper_owner: Dict[Tuple[object, ...], Tuple[cst.FunctionDef, Optional[ClassFacts], str]] = {}
    # call-site evidence (`_call_site_evidence`), per class: its inputs as the policy alone
    # decides them before the walk, the inputs `list_inputs` then took for lists, and the
    # evidence its last walk used
    policy: Dict[str, Env] = {}
    listed: Dict[str, Set[str]] = {}
    applied: Dict[str, Env] = {}

    for class_node in classes:
        klass = _class_facts(class_node, module, class_nodes, inherited)
        klass.module = module
        module.class_methods[klass.name] = klass.methods
        method = klass.methods.get("hybrid_forward")  # own or inherited within the module
        if (
            method is None or klass.refuses_hybridize
        ):  # a block whose hybridize() raises is eager-only
            continue
        if (context is not None and context.numpy_mode) or _numpy_decorated(class_node):
            continue  # numpy mode: slicing works on np symbols, legacy rewrites reject np arrays
        module.classes[klass.name] = klass
        namespace, params = _hybrid_forward_params(method)
        if any(v.kind == MAPPING for v in params.values()):
            continue  # a dict input: MXNet 1.9.1 refuses to hybridize the block (_flatten raises)
        for name, shape in klass.parameters.items():  # keyword inputs named like the parameters
            if params.get(name, UNKNOWN_VALUE).kind == TENSOR:
                params[name] = _parameter_value(shape)
        # `bias=None`: the Parameter's data, or None where it is not registered (`if use_bias:`)
        for name, shape in {**klass.optional_parameters, **klass.parameters}.items():
            if params.get(name) == UNKNOWN_VALUE and _defaults_to_none(method, name):
                params[name] = replace(UNKNOWN_VALUE, unless_none=_parameter_value(shape))
        params.update(_configured_numbers(klass, method))
        for name, value in _configured_arrays(klass, method).items():
            known = params.get(name, UNKNOWN_VALUE)
            if known.kind == TENSOR:  # what the analysis knew of it stays (its form, shape)
                params[name] = replace(known, assumed=False, evidence=value.evidence)
            elif known.kind == UNKNOWN:
                params[name] = value
        facts = FunctionFacts(method, "hybrid_forward", klass, module, namespace, params)
        if isinstance(method.params.star_arg, cst.Param):
            facts.stars[_STAR_INPUTS] = method.params.star_arg.name.value
        if method.params.star_kwarg is not None:
            facts.stars[_STAR_PARAMETERS] = method.params.star_kwarg.name.value
        klass.functions.append(facts)
        pending.append(facts)
        policy[klass.name] = dict(params)

    # child class name -> `self.<a>(...)` call -> (the calling function, its argument values)
    child_sites: Dict[str, Dict[cst.Call, Tuple[FunctionFacts, List[Value]]]] = {}

    def on_call(target, caller: FunctionFacts, call: cst.Call, args: List[Value]) -> None:
        if isinstance(target, tuple) and target[0] == "child":
            child = caller.klass.built_children.get(target[1]) if caller.klass else None
            if child is not None and child != caller.klass.name:  # type: ignore[union-attr]
                child_sites.setdefault(child, {})[call] = (caller, list(args))
            return
        forwarded = _forwarded(caller, module)
        if isinstance(target, tuple) and target[0] == "instance":  # `dist.kl_div(other)`
            found = module.instance_class(target[1])
            method = found.method(target[2]) if found is not None else None
            if method is None:
                return
            bound = _bind_call(method, call, args, True, forwarded)
            bound.update(target[3])  # what `self.<a>` holds: the namespace, tensors
            record(("instance", target[1], target[2]), method, None, "helper_method", bound, call)
            return
        called = _called_helper(target, caller, module)
        if called is not None:  # every call, tensors passed or not (`helper_calls`)
            module.helper_calls.setdefault(called, {})[call] = caller
        passes_inputs = any(
            a.star == "*" and isinstance(a.value, cst.Name) and a.value.value == forwarded.get("*")
            for a in call.args
        )
        if not passes_inputs and not any(v.kind in (NAMESPACE, TENSOR, TENSORS) for v in args):
            return
        if isinstance(target, cst.FunctionDef):
            key: Tuple[object, ...] = ("local", target)
            node, klass, kind, skip_self = target, caller.klass, "helper_function", False
        elif target[0] == "method" and caller.klass is not None:
            node = caller.klass.methods[target[1]]
            if node is caller.node or node.name.value in ("hybrid_forward", "__init__"):
                return
            static = any(dotted_name(d.decorator) == "staticmethod" for d in node.decorators)
            key, klass, kind = ("method", caller.klass, target[1]), caller.klass, "helper_method"
            skip_self = not static  # a @staticmethod helper's first parameter is not self
        elif target[0] == "class":  # `Head._flatten(F, x)`: the helper of the class named
            helper = module.class_helper(target[1], target[2])
            if helper is None or helper is caller.node:
                return
            node = helper
            owner = module.classes.get(target[1])
            skip_self = _binding(node) == "classmethod"  # `cls` is bound by the call
            if owner is not None and owner.methods.get(target[2]) is node:
                key, klass = ("method", owner, target[2]), owner  # the same scope as self.<m>(...)
            else:  # a base's helper or a class without hybrid_forward: no `self` facts needed
                key, klass = ("class", node), None
            kind = "helper_method"
        elif target[0] == "function" and target[1] in module.functions:
            node = module.functions[target[1]]
            key, klass, kind, skip_self = ("function", target[1]), None, "helper_function", False
        elif (
            target[0] == "function"
            and external is not None
            and context is not None
            and target[1] in context.from_imports
        ):
            external.setdefault(target[1], {})[call] = list(args)  # the last round's values win
            return
        else:
            return
        parameters = caller.klass.parameters if caller.klass is not None else {}
        bound = _bind_call(node, call, args, skip_self, forwarded, parameters)
        record(key, node, klass, kind, bound, call)

    # a helper's call sites and what each binds: a caller walked again (a helper it calls
    # returned something known only after the first walk) replaces its sites' bindings
    # instead of joining them with its first walk's (`s = self._match(F, x)` unknown, then a
    # tensor: `self._loss(F, s)` binds a tensor)
    site_envs: Dict[Tuple[object, ...], Dict[cst.Call, Env]] = {}

    def record(
        key: Tuple[object, ...],
        node: cst.FunctionDef,
        klass: Optional[ClassFacts],
        kind: str,
        bound: Env,
        call: cst.Call,
    ) -> None:
        """Join the call sites' bindings into the helper's env (analysed again if changed)."""
        previous = helper_envs.get(key)
        sites = site_envs.setdefault(key, {})
        sites[call] = bound
        merged: Env = {}
        marked: Env = {}
        for i, env in enumerate(sites.values()):
            merged = env if i == 0 else join_envs(merged, env)
            # a parameter any call fills with a graph input may hold one
            marked.update((k, v) for k, v in env.items() if _input_mark(k))
        if len(sites) > 1:
            merged = {**merged, **marked}
        if previous is None or merged != previous:
            helper_envs[key] = merged
            helper_owner[key] = (node, klass, kind)

    for name, calls in (seeds or {}).items():  # helpers of other modules' hybrid code
        seeded = module.functions.get(name)
        if seeded is None:
            continue
        for call, args in calls:
            if any(v.kind in (NAMESPACE, TENSOR, TENSORS) for v in args):
                bound = _bind_call(seeded, call, args, False)
                record(("function", name), seeded, None, "helper_function", bound, call)
    analysed: Dict[Tuple[object, ...], Tuple[Env, FunctionFacts]] = {}
    pending = _parents_first(pending, module)

    def evidence_for(owner: ClassFacts, node: cst.FunctionDef) -> Env:
        lists = listed.get(owner.name, set())
        return _call_site_evidence(owner, node, policy[owner.name], lists, child_sites, module)

    for _round in range(6):  # helpers calling helpers: iterate until the call-site kinds settle
        for facts in pending:
            owner = facts.klass
            sited = (
                facts.kind == "hybrid_forward" and owner is not None and owner.name in child_sites
            )
            if sited and owner is not None:  # its parents' calls, walked before it
                evidence = applied[owner.name] = evidence_for(owner, facts.node)
                facts.params = {**policy[owner.name], **evidence}
                facts.caller_tensors = {n for n, v in evidence.items() if v.kind == TENSOR}
            # a hybrid_forward's calls wait until its inputs are settled: a walk made again
            # with other input kinds replaces the first walk's call sites
            held: List[Tuple[Any, ...]] = []  # the arguments of each on_call
            inputs = facts.kind == "hybrid_forward" or bool(facts.forwarded)
            first = on_call if not inputs else (lambda *a, _h=held: _h.append(a))
            analyzer = _Analyzer(facts, first)
            analyzer.run()
            again = False
            if facts.kind == "hybrid_forward" and analyzer.sequence_hints:
                lists = list_inputs(facts.node, analyzer.sequence_hints & set(facts.params))
                if lists:  # walk again with those inputs as lists (rare: len()/for on an input)
                    kinds = {name: Value(SEQUENCE) for name in lists}
                    if owner is not None:
                        listed[owner.name] = lists
                        if sited:  # unless every call site in the module passes one tensor
                            evidence = applied[owner.name] = evidence_for(owner, facts.node)
                            kinds.update((n, v) for n, v in evidence.items() if n in lists)
                    facts.params.update(kinds)
                    again = True
            if inputs:  # a helper's forwarded inputs are decided like hybrid_forward's own
                initial = analyzer.initial
                if facts.kind != "hybrid_forward":
                    initial = {n: v for n, v in initial.items() if n in facts.forwarded}
                used, strong = tensors_by_use(facts, initial)
                strong |= {n for n in used if facts.used_as_array(n)}  # a layer's argument too
                # an input only sliced and fed on (`c = pred[:, 0]; acc(c, gt)`, cnstd's DiceLoss)
                # is settled by what the rules read too: its slices reach helpers as arrays.
                # Only a name the body never binds again: `used_as_array` stops at a plain
                # rebinding, but past one in a loop or branch it may read the later value
                rebound = _bindings(facts.node, _index(module.class_nodes, module.functions))
                settled = {
                    n
                    for n, v in initial.items()
                    if v.kind == TENSOR
                    and v.assumed
                    and n not in used
                    and n not in rebound
                    and facts.used_as_array(n)
                }
                used |= settled
                strong |= settled
                used -= {n for n, v in facts.params.items() if v.kind != TENSOR or not v.assumed}
                if used:  # inputs used as tensors (issue 21 item 1): certain from now on
                    facts.params.update(
                        (n, Value(TENSOR, evidence="used as a tensor")) for n in used
                    )
                    facts.caller_tensors |= used - strong  # a list is still possible: unsafe fixes
                    again = True
            if again:
                facts.reset()
                _Analyzer(facts, on_call).run()
            else:
                for site in held:
                    on_call(*site)
            module.scopes.append(facts)
        pending = []
        # what a helper returns is known once it is walked: its callers walk again with it, so
        # the helpers they call next see it (`w = warp(x, flow); self._cat([w, x])`)
        for facts in list(module.scopes):
            if facts.kind == "hybrid_forward":
                continue
            value = facts.return_value
            if value.kind == UNKNOWN_VALUE.kind or module.return_values.get(facts.node) == value:
                continue
            module.return_values[facts.node] = value
            for caller in module.helper_calls.get(facts.node, {}).values():
                if caller in module.scopes and caller not in pending:
                    module.scopes.remove(caller)
                    caller.reset()
                    pending.append(caller)
        for key, env in list(helper_envs.items()):
            helper_node, helper_klass, kind = helper_owner[key]
            old = analysed.get(key)
            if old is not None and old[0] == env:
                continue
            namespace = next(
                (n for n, v in env.items() if v.kind == NAMESPACE and "." not in n), None
            )
            params = _helper_env(helper_node, env, namespace)
            if key[0] == "local":
                params = {**module.local_envs.get(helper_node, {}), **params}
            if old is not None:
                if old[1] in module.scopes:
                    module.scopes.remove(old[1])
                if old[1] in pending:  # a caller walked again for a return value: replaced
                    pending.remove(old[1])
                if old[1].klass is not None and old[1] in old[1].klass.functions:
                    old[1].klass.functions.remove(old[1])
            facts = FunctionFacts(helper_node, kind, helper_klass, module, namespace, params)
            facts.stars = _helper_stars(helper_node, env)
            facts.forwarded = {k[1:] for k in env if _input_mark(k) and k[0] == _STAR_INPUTS}
            facts.passed_inputs = {k[1:] for k in env if _input_mark(k) and k[0] == _PASSED_INPUT}
            if key[0] == "instance":  # a method of an object handed F (`_instances`)
                facts.instance_of = str(key[1])
                facts.self_attrs = {
                    k[len("self.") :]: v
                    for k, v in env.items()
                    if k.startswith("self.") and v.kind in (NAMESPACE, TENSOR)
                }
            if helper_klass is not None:
                helper_klass.functions.append(facts)
            analysed[key] = (env, facts)
            pending.append(facts)
        # a parent analysed after its child, or calling it from a helper: walk the child again
        # when the call sites seen since change what its inputs are (rare: only then)
        for name in child_sites:
            owner = module.classes.get(name)
            if owner is None or not owner.functions:
                continue
            walked = owner.functions[0]
            if walked.kind != "hybrid_forward" or walked in pending:
                continue
            if evidence_for(owner, walked.node) != applied.get(name, {}):
                if walked in module.scopes:
                    module.scopes.remove(walked)
                walked.reset()
                pending.append(walked)
        if not pending:
            break
    for facts in pending:  # still changing after the last round: analyse with what we have
        _Analyzer(facts, lambda *args: None).run()
        module.scopes.append(facts)
    # a function calling `F.np.*` / `F.npx.*` runs in numpy mode: not for legacy-mode rules
    module.scopes = [facts for facts in module.scopes if not facts.numpy]
    # What helpers return is known only now: analyse the callers once more with it.
    for facts in module.scopes:
        if facts.kind != "hybrid_forward" and facts.return_value.kind != UNKNOWN_VALUE.kind:
            module.return_values[facts.node] = facts.return_value
    if module.return_values:
        for facts in module.scopes:
            facts.reset()
            _Analyzer(facts, lambda *args: None).run()
    return module


def _called_helper(
    target: Any, caller: FunctionFacts, module: ModuleFacts
) -> Optional[cst.FunctionDef]:
    """The def a call of an analysed function runs when it is one of the module's functions, a
    method of the caller's class or a nested def (what `analyze`'s `on_call` follows)."""
    if isinstance(target, cst.FunctionDef):
        return target
    if not isinstance(target, tuple) or len(target) < 2:
        return None
    if target[0] == "method" and caller.klass is not None:
        return caller.klass.methods.get(target[1])
    if target[0] == "function":
        return module.functions.get(target[1])
    return None


def _parents_first(pending: List[FunctionFacts], module: ModuleFacts) -> List[FunctionFacts]:
    """The hybrid_forwards ordered so a class that calls a module class's block
    (`self.head = Head(...)`; `self.head(x)`) is walked before it: the child's walk then has
    its parents' call sites (`_call_site_evidence`). Unchanged when no class builds another."""
    children = {
        facts.klass.name: [c for c in facts.klass.built_children.values() if c]
        for facts in pending
        if facts.klass is not None and any(facts.klass.built_children.values())
    }
    if not children:
        return pending
    by_class = {f.klass.name: f for f in pending if f.klass is not None}
    order: List[FunctionFacts] = []
    done: Set[str] = set()

    def visit(name: str) -> None:  # parents of `name` first (reversed post-order of children)
        if name in done:
            return
        done.add(name)
        for child in children.get(name, ()):
            visit(child)
        if name in by_class:
            order.append(by_class[name])

    for facts in pending:
        if facts.klass is not None:
            visit(facts.klass.name)
    order.reverse()
    return order + [f for f in pending if f.klass is None]


def _call_site_evidence(
    klass: ClassFacts,
    method: cst.FunctionDef,
    policy: Env,
    lists: Set[str],
    sites: Mapping[str, Mapping[cst.Call, Tuple[FunctionFacts, List[Value]]]],
    module: ModuleFacts,
) -> Env:
    """What the module's calls of a class's block say about its hybrid_forward inputs (issue
    11: how a parent block calls the child), for the inputs the policy could not decide.

    The call sites are the `self.<a>(...)` calls in the analysed functions of other classes
    of the module, `self.<a>` bound in `__init__` only to constructions of this class
    (`ClassFacts.built_children`); their arguments map to the inputs after F as the call binds
    them. Per input:

    - SEQUENCE when any call site passes a list, a tuple or a sequence (whatever the policy
      assumed: gluon hands the child that list);
    - TENSOR when the policy left it UNKNOWN or takes it for a list (a default, a list-like
      name, an unpacking; `lists`: what `list_inputs` decided after a walk) and EVERY call
      site passes a value the caller knows positively as one tensor (an operator's result, a
      layer's output; not the caller's own bare input, which is only `assumed`), and every
      construction of the class in the module is such a `self.<a> = Klass(...)` of an
      analysed class (a block built anywhere else, or put in a container, is called in ways
      not seen here; what the linter does not parse, a factory function no hybrid code calls,
      is like another module's code: not seen);
    - otherwise as the policy says (no call site, mixed or unknown arguments).

    Annotated inputs keep their annotation. Returns only the inputs it changes.
    """
    calls = [
        (call, args)
        for call, (caller, args) in sites.get(klass.name, {}).items()
        if caller.klass is not klass
    ]
    if not calls:
        return {}
    positional = [p.name.value for p in _signature(method)[2:]]
    declared = {p.name.value: p for p in _signature(method)[2:] + list(method.params.kwonly_params)}
    seen: Dict[str, List[str]] = {name: [] for name in declared}
    for call, args in calls:
        passed: Dict[str, str] = {}
        if not any(a.star for a in call.args):
            index = 0
            for arg, value in zip(call.args, args):
                name = arg.keyword.value if arg.keyword is not None else None
                if name is None and index < len(positional):
                    name, index = positional[index], index + 1
                if name is None:
                    continue
                if isinstance(arg.value, (cst.List, cst.Tuple, cst.ListComp)) or value.kind in (
                    SEQUENCE,
                    TENSORS,
                ):
                    passed[name] = "sequence"
                elif value.is_tensor:
                    passed[name] = "tensor"
        for name in seen:
            seen[name].append(passed.get(name, "unknown"))
    undecided = lists | {
        name for name, value in policy.items() if value.kind in (UNKNOWN_VALUE.kind, SEQUENCE)
    }
    evidence: Env = {}
    accounted: Optional[bool] = None
    for name, kinds in seen.items():
        if declared[name].annotation is not None:
            continue
        if "sequence" in kinds:
            evidence[name] = Value(SEQUENCE, evidence="a module call site passes a list")
        elif name in undecided and all(k == "tensor" for k in kinds):
            if accounted is None:
                accounted = _built_only_as_children(klass, module)
            if accounted:
                evidence[name] = Value(TENSOR, evidence="every module call site passes a tensor")
    return evidence


def _built_only_as_children(klass: ClassFacts, module: ModuleFacts) -> bool:
    """Every construction of the class in the module is a `self.<a> = Klass(...)` in the
    `__init__` of an analysed class (so every call of the block is a `self.<a>(...)` the walk
    of that class sees)."""
    assert module.class_nodes is not None
    constructions = _index(module.class_nodes, module.functions).calls.get(klass.name, [])
    return bool(constructions) and all(
        parent is not None
        and call in module.bound_constructions
        and parent.name.value in module.classes
        for call, parent, _ in constructions
    )


def _helper_env(node: cst.FunctionDef, bound: Env, namespace: Optional[str]) -> Env:
    """Parameters of a helper: the joined kinds of its call sites, unknown otherwise."""
    env: Env = {}
    for param in _signature(node) + list(node.params.kwonly_params):
        value = bound.get(param.name.value, UNKNOWN_VALUE)
        annotated = annotation_value(param.annotation)
        if annotated is not None and annotated.kind != TENSOR and value.kind != NAMESPACE:
            value = annotated  # `feats: List[Tensor]`: the author's word beats a guess
        elif annotated is not None and value.kind == UNKNOWN_VALUE.kind:
            value = Value(TENSOR, assumed=True)  # `x: Tensor` said, but a caller may pass a number
        env[param.name.value] = value
    if isinstance(node.params.star_arg, cst.Param):  # forwarded inputs: like hybrid_forward's
        inputs = bound.get(_STAR_INPUTS, UNKNOWN_VALUE).kind == SEQUENCE
        env[node.params.star_arg.name.value] = Value(SEQUENCE) if inputs else UNKNOWN_VALUE
    if node.params.star_kwarg is not None:
        env[node.params.star_kwarg.name.value] = UNKNOWN_VALUE
    return env


def _helper_stars(node: cst.FunctionDef, bound: Env) -> Dict[str, str]:
    """The helper's star parameters every call fills with forwarded graph inputs or
    Parameters (`_forwarded_inputs`' marks in its joined call-site env)."""
    stars: Dict[str, str] = {}
    star, star_kwarg = node.params.star_arg, node.params.star_kwarg
    if isinstance(star, cst.Param) and bound.get(_STAR_INPUTS, UNKNOWN_VALUE).kind == SEQUENCE:
        stars[_STAR_INPUTS] = star.name.value
    if star_kwarg is not None and bound.get(_STAR_PARAMETERS, UNKNOWN_VALUE).kind == MAPPING:
        stars[_STAR_PARAMETERS] = star_kwarg.name.value
    return stars


_CONVOLUTIONS = frozenset(("Conv1D", "Conv2D", "Conv3D"))
