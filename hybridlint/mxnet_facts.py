"""What hybridlint knows about MXNet 1.9.1, in one module: rules and engine tests read it, no rule
keeps a private list of operator names (issue 22 item 2).

Two kinds of facts. Derived ones come from hybridlint/mxnet_names.py, generated from real MXNet
1.9.1 by tools/gen_mxnet_names.py (which functions each namespace has, the methods of NDArray
and Symbol, each operator's argument names): a new MXNet means regenerating, not editing.
Hand-kept ones are what MXNet cannot list: which operator keeps its data's shape, which reduces,
which has several outputs. Every name in them is checked by tests/test_mxnet_facts.py against
the generated names (it exists in MXNet 1.9.1, in the namespace it is used in), and the
semantic ones against real MXNet (`infer_shape`, `list_outputs`) and the engine's registry.

It lives in `hybridlint/`, beside the generated data: `hybridlint.rules` and `hybridlint.engine`
both import it without importing each other (it imports only the data), and the result cache's
key covers it (cache.result_sources hashes hybridlint/, the engine excluded).
"""

from typing import Dict, FrozenSet, Optional, Tuple

from .mxnet_names import (
    ARRAY_ARGUMENTS,
    ATTRIBUTES,
    BLOCKS,
    FUNCTIONS,
    NAMES,
    OPERATORS,
    SIGNATURES,
)
from .mxnet_names import LAYER_PARAMETERS as _LAYER_PARAMETERS

# ------------------------------------------------------------------ namespaces and operators

# The sub-namespaces of mx.nd / mx.sym whose operators `F.<sub>.<op>` names.
SUBNAMESPACES = ("contrib", "random", "linalg", "image")
# ... and every sub-namespace an operator call may go through (`F.sparse`, `F.op` too).
OP_SUBNAMESPACES = frozenset(SUBNAMESPACES + ("sparse", "op"))


def _shared(submodule: str = "") -> FrozenSet[str]:
    suffix = "." + submodule if submodule else ""
    return FUNCTIONS["mxnet.ndarray" + suffix] & FUNCTIONS["mxnet.symbol" + suffix]


# The public functions mx.nd and mx.sym both have (`F.<op>` exists eagerly and hybridized), minus
# `load`, whose two versions do different things (a file of arrays vs a graph).
OPS: FrozenSet[str] = _shared() - {"load"}
SUBNAMESPACE_OPS: Dict[str, FrozenSet[str]] = {sub: _shared(sub) for sub in SUBNAMESPACES}
CONTRIB_OPS = SUBNAMESPACE_OPS["contrib"]
RANDOM_OPS = SUBNAMESPACE_OPS["random"]
LINALG_OPS = SUBNAMESPACE_OPS["linalg"]
IMAGE_OPS = SUBNAMESPACE_OPS["image"]
# The methods a tensor has in both modes (`x.<name>(...)` on an NDArray and on a Symbol).
SHARED_METHODS: FrozenSet[str] = ATTRIBUTES["NDArray"] & ATTRIBUTES["Symbol"]
# The public attributes an NDArray has and a Symbol lacks (`hasattr(y, "shape")` is False
# for a Symbol: the branch it guards runs eagerly only).
NDARRAY_ONLY_ATTRIBUTES: FrozenSet[str] = frozenset(
    n for n in ATTRIBUTES["NDArray"] - ATTRIBUTES["Symbol"] if not n.startswith("_")
)

# The binary broadcast operators (`broadcast_add(lhs, rhs)` ...): their shape is the broadcast
# of their two inputs'. broadcast_to/axis/like/axes take other arguments and are left out.
BROADCAST_BINARY: FrozenSet[str] = frozenset(
    op for op in OPS if op.startswith("broadcast_") and OPERATORS.get(op) == ("lhs", "rhs")
)


# nd.maximum(lhs, rhs) is sym.maximum(left, right): the same operands under other names.
_RENAMED = {("lhs", "left"), ("rhs", "right")}


def _shared_signature(nd: Tuple[str, ...], sym: Tuple[str, ...]) -> Tuple[int, FrozenSet[str]]:
    count = 0
    for a, b in zip(nd, sym):
        if a.startswith("*") or b.startswith("*") or not (a == b or (a, b) in _RENAMED):
            break
        count += 1
    return count, frozenset(p for p in set(nd) & set(sym) if not p.startswith("*"))


# The Python-defined functions both namespaces have, whose nd and sym signatures may differ
# (nd.zeros(shape, ctx, dtype) vs sym.zeros(shape, dtype)): (how many leading positional
# arguments mean the same in both, the keywords both accept). Derived from the generated
# SIGNATURES; a call outside them has no exact spelling in the other namespace.
SHARED_SIGNATURE: Dict[str, Tuple[int, FrozenSet[str]]] = {
    name: _shared_signature(*SIGNATURES[name]) for name in sorted(set(SIGNATURES) & OPS)
}

# ------------------------------------------------------------------ hand-kept semantic facts

# Operators whose (first) output has the shape of their first argument, the data: elementwise
# unary operators, activations, normalisations (their other inputs are parameters), casts and
# gradient stops. Each checked by infer_shape under MXNet 1.9.1 and the engine. Not `where`:
# its first argument is the condition, which may be 1-D (`where(c (2,), x (2, 3), y)` is (2, 3)).
SHAPE_PRESERVING: FrozenSet[str] = frozenset(
    """
    Activation BatchNorm BlockGrad Cast Dropout InstanceNorm L2Normalization LayerNorm LeakyReLU
    MakeLoss SoftmaxActivation abs arccos arccosh arcsin arcsinh arctan arctanh cast cbrt ceil
    clip cos cosh degrees erf erfinv exp expm1 fix floor gamma gammaln hard_sigmoid identity log
    log10 log1p log2 log_softmax logical_not make_loss negative ones_like radians rcbrt reciprocal
    relu rint round rsqrt sigmoid sign sin sinh smooth_l1 softmax softmin softsign sqrt square
    stop_gradient tan tanh trunc zeros_like
    """.split()
)
# Methods (of NDArray and Symbol both) that return a tensor of the caller's shape: the
# shape-preserving operators that are methods too, and the conversions and copies.
SHAPE_PRESERVING_METHODS: FrozenSet[str] = (SHAPE_PRESERVING & SHARED_METHODS) | frozenset(
    ("astype", "copy", "as_in_context", "detach")
)
# Operators whose evaluation has no effect beyond their result (no random draw, no state, no
# Python callback: not `uniform`, `Dropout`, `BatchNorm`, `Custom`): a statement that computes
# one into names nothing reads can go (HL014's dead unpacking, `B, C, H, W = F.shape_array(x)`).
EFFECT_FREE_OPS: FrozenSet[str] = frozenset(
    """
    shape_array size_array split SliceChannel slice slice_axis slice_like reshape Reshape
    reshape_like transpose squeeze expand_dims flatten Flatten identity stop_gradient BlockGrad
    cast Cast zeros_like ones_like relu sigmoid tanh exp log abs sqrt square
    """.split()
)
# Creation operators (`F.zeros(shape)`): the shape is an argument. `empty` is mx.nd's only.
CREATION_OPS = frozenset(
    """
    zeros ones full empty uniform normal random_uniform random_normal random.uniform
    random.normal
    """.split()
)
# Operators whose result has the shape of their first argument (and nothing of its values).
LIKE_OPS = frozenset(("zeros_like", "ones_like", "random.uniform_like", "random.normal_like"))
# gluon's own Python helpers that return an array shaped like one of their arguments (its
# position): `_reshape_like(F, x, y)` is `x.reshape(y.shape)` or `F.reshape_like(x, y)`, copied
# or imported by losses everywhere (accel-brain's DRCNLoss imports it from mxnet.gluon.loss)
SHAPED_LIKE_HELPERS: Dict[str, int] = {"mxnet.gluon.loss._reshape_like": 2}
# Reductions (`axis`, `keepdims`); the first eight reduce over every axis when given none (a
# result of shape (1,) in MXNet 1.x).
FULL_REDUCTIONS = frozenset(("sum", "mean", "max", "min", "prod", "nansum", "nanprod", "norm"))
REDUCTIONS = FULL_REDUCTIONS | frozenset(
    ("argmax", "argmin", "pick", "sum_axis", "max_axis", "min_axis")
)
# Each reduction's parameters after its data, in MXNet's order (generated): what a positional
# argument of `F.sum(x, 1, True)` or `x.sum(1, True)` means.
REDUCTION_PARAMETERS: Dict[str, Tuple[str, ...]] = {op: OPERATORS[op][1:] for op in REDUCTIONS}

# Operators with a visible output count set by an argument (`num_outputs`, `indices_or_sections`).
MULTI_OUTPUT_OPS = frozenset(("split", "SliceChannel", "split_v2"))
# Operators with more than one visible output whatever their arguments (MXNet 1.9.1:
# `len(mx.sym.<op>(mx.sym.var('a')).list_outputs())`): `[i]` selects an output in both modes.
MULTI_OUTPUT_COUNTS: Dict[str, int] = {
    "linalg.slogdet": 2,
    "linalg_slogdet": 2,
    "linalg.gelqf": 2,
    "linalg_gelqf": 2,
    "linalg.syevd": 2,
    "moments": 2,
    "contrib.box_encode": 2,
    "contrib.MultiBoxTarget": 3,
    "contrib.bipartite_matching": 2,
    "contrib.hawkesll": 2,
    "contrib.calibrate_entropy": 2,
}
# Parameters with which an operator has more than one output (RNN's state_outputs,
# BatchNorm's output_mean_var, topk's ret_typ, Proposal's output_score, sample_multinomial's
# get_prob): with one of them the result is not modelled.
MULTI_OUTPUT_ATTRS = frozenset(
    ("state_outputs", "output_mean_var", "ret_typ", "output_score", "get_prob")
)
# Functions whose result is not a single tensor (or depends on attributes not modelled).
NON_TENSOR_OPS = frozenset(
    """
    Group load save load_json waitall contrib.foreach contrib.while_loop contrib.cond
    linalg.gelqf linalg_gelqf linalg.syevd contrib.MultiBoxTarget contrib.MultiBoxDetection
    contrib.MultiProposal contrib.Proposal contrib.box_encode contrib.bipartite_matching
    random.multinomial sample_multinomial
    """.split()
)
# The NDArray attributes a Symbol lacks that user code reads for a tensor's size or placement
# (HL001's subject): `x.shape` works eagerly and raises AttributeError under hybridize.
EAGER_ATTRIBUTES = ("shape", "size", "ndim", "dtype", "context", "ctx", "T")
# Symbol methods that answer nothing while a HybridBlock traces: its inputs are Variables with
# no shape, so MXNet 1.9.1 gives `([()], [()], [])` from `relu(var).infer_shape_partial()` and
# `(None, None, None)` from `infer_shape()`; an NDArray has neither (AttributeError eagerly)
TRACE_SHAPE_QUERIES = ("infer_shape", "infer_shape_partial")
# The axis-taking operators whose `axis` counts the axes of their data and accepts a negative
# value, checked against MXNet 1.9.1 (`op(x, axis=-1) == op(x, axis=2)` on a rank-3 x, eagerly
# and hybridized). Left out on purpose: flip/reverse, squeeze, broadcast_axis, which reject some
# negative axes, and swapaxes (two axes).
AXIS_OPS = frozenset(
    """
    softmax log_softmax softmin sum mean max min prod nansum nanprod argmax argmin norm topk sort
    argsort slice_axis split pick take repeat LayerNorm sum_axis max_axis min_axis
    """.split()
)
DIM_OPS = frozenset(("concat", "Concat"))  # `dim`; every input has the same rank
ADDED_AXIS_OPS = frozenset(("expand_dims", "stack"))  # the axis counts the output's axes
# Tensor methods that do not return a tensor (`tolist` is numpy's: NDArray and Symbol lack it);
# the Symbol's graph methods (`_, shapes, _ = x.infer_shape_partial()`: Python lists) among them.
NON_TENSOR_METHODS = frozenset(
    """
    asnumpy asscalar tolist wait_to_read copyto split attach_grad backward tostype list_outputs
    infer_shape get_internals list_arguments infer_shape_partial infer_type infer_type_partial
    list_auxiliary_states list_inputs list_attr attr attr_dict tojson debug_str get_children
    """.split()
)

# ------------------------------------------------------------------ Gluon layers

# Gluon's Block classes (gluon, gluon.nn, gluon.rnn, gluon.contrib.nn; generated: issubclass
# under MXNet 1.9.1): a HybridBlock child is hybridized with its parent, a plain Block is not.
HYBRID_GLUON: FrozenSet[str] = BLOCKS["hybrid"]
NON_HYBRID_GLUON: FrozenSet[str] = BLOCKS["plain"]
# Gluon layers returning one tensor (a child of these types gives a tensor when called).
SINGLE_OUTPUT_LAYERS = frozenset(
    """
    Dense Conv1D Conv2D Conv3D Conv1DTranspose Conv2DTranspose Conv3DTranspose BatchNorm
    SyncBatchNorm LayerNorm InstanceNorm GroupNorm Dropout Activation LeakyReLU PReLU ELU SELU
    GELU Swish Embedding Flatten MaxPool1D MaxPool2D MaxPool3D AvgPool1D AvgPool2D AvgPool3D
    GlobalMaxPool1D GlobalMaxPool2D GlobalMaxPool3D GlobalAvgPool1D GlobalAvgPool2D
    GlobalAvgPool3D ReflectionPad2D HybridSequential Identity
    """.split()
)
# Gluon layers whose output has their input's shape.
SHAPE_PRESERVING_LAYERS = frozenset(
    """
    Activation Dropout BatchNorm SyncBatchNorm LayerNorm InstanceNorm GroupNorm LeakyReLU PReLU
    ELU SELU GELU Swish Identity
    """.split()
)
# Gluon's pooling layers -> (their input's rank, whether they pool globally). In the default
# layouts (NCW, NCHW, NCDHW), as the Pooling operator they run: the output keeps the batch and
# channel axes and the rank; a global pool makes every spatial axis 1.
POOLING_LAYERS: Dict[str, Tuple[int, bool]] = {
    f"{kind}Pool{n}D": (n + 2, kind.startswith("Global"))
    for kind in ("Max", "Avg", "GlobalMax", "GlobalAvg")
    for n in (1, 2, 3)
}
_CONVOLUTIONS = (
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "Conv3DTranspose",
)
_BATCH_NORMS = ("BatchNorm", "SyncBatchNorm")
# Gluon's recurrent layers (rnn.RNN/LSTM/GRU): one output tensor when called on the data alone,
# the pair (output, new states) when called with states.
RNN_LAYERS = frozenset(("RNN", "LSTM", "GRU"))
# The Parameters each Gluon layer registers, which its hybrid_forward receives by name, by layer
# name (generated from MXNet 1.9.1: mxnet_names.LAYER_PARAMETERS). The recurrent layers and
# cells are left out: a recurrent layer's names depend on its configuration (`l0_`, `r0_`: per
# layer and direction), and HL012's fix registering a child's Parameter on its parent was never
# checked on a cell.
LAYER_PARAMETERS: Dict[str, FrozenSet[str]] = {
    name: frozenset(parameters)
    for name, parameters in _LAYER_PARAMETERS.items()
    if name not in RNN_LAYERS and not name.endswith("Cell")
}
# Gluon layers whose parameters wait for the first input to get their shape unless the
# constructor is given the input's size: layer -> (that argument, the parameters it sizes).
# Such a parameter of a child, registered on its parent (`self.fc_weight = self.fc.weight`),
# cannot be passed to the parent's hybrid_forward before the child has run once:
# HybridBlock.forward finishes the deferred initialization of the block's own parameters
# only (DeferredInitializationError on every call; checked on MXNet 1.9.1).
DEFERRED_LAYER_PARAMETERS: Dict[str, Tuple[str, FrozenSet[str]]] = {
    **{name: ("in_units", frozenset(("weight",))) for name in ("Dense",)},
    **{name: ("in_channels", frozenset(("weight",))) for name in _CONVOLUTIONS},
    **{name: ("in_channels", LAYER_PARAMETERS[name]) for name in _BATCH_NORMS},
    **{name: ("in_channels", LAYER_PARAMETERS[name]) for name in ("LayerNorm", "InstanceNorm")},
}

# ------------------------------------------------------------------ NDArray-only functions


def _ndarray_only(submodule: str = "") -> FrozenSet[str]:
    suffix = "." + submodule if submodule else ""
    functions = FUNCTIONS["mxnet.ndarray" + suffix]
    return frozenset(functions - NAMES["mxnet.symbol" + suffix])


# The public functions of mx.nd (and of its contrib/linalg/random submodules) that mx.sym lacks
# in MXNet 1.9.1: `F.<name>` raises AttributeError under hybridize (HL015; `nd.<name>` is HL006's).
# `array` is left to HL005 (array-creation).
NDARRAY_ONLY: Dict[str, FrozenSet[str]] = {
    "": _ndarray_only() - {"array"},
    "contrib": _ndarray_only("contrib"),
    "linalg": _ndarray_only("linalg"),
    "random": _ndarray_only("random"),
}


# Functions whose mx.nd and mx.sym forms default a keyword differently in MXNet 1.9.1 (checked
# by tests/test_mxnet_facts.py against its signatures), by name: (keyword, its position
# among the positional parameters, mx.nd's default, mx.sym's default). mx.sym.random.multinomial
# returns its samples' log-probabilities too: a Symbol of two outputs where mx.nd's is one array.
DEFAULTS_DIFFER: Dict[str, Tuple[str, int, object, object]] = {
    "random.multinomial": ("get_prob", 2, False, True),
}

# Hybridized, MXNet 1.9.1's `cond` types its predicate float32: a predicate of any other dtype
# (`F.sum(int_mask) == 0` on an int32 mask, a float64 one) fails type inference ("Incompatible
# attr ... expected int32, got float32"), while `mx.nd.contrib.cond` reads any dtype as a truth
# value. The engine enforces it; tests/test_mxnet_facts.py checks it against MXNet.
COND_PREDICATE_DTYPE = "float32"

# MXNet 1.9.1 runs these subgraphs of its control-flow ops as CachedOps of their own, which
# refuse a graph without inputs ("There are no inputs in computation graph that require
# gradients") at the hybridized block's first call: a `cond` branch or a `while_loop` condition
# built from constants alone fails, whichever branch runs; a constant `cond` predicate, a
# `foreach` body or a `while_loop` body that reads its inputs do not. Subgraph indices by op
# (cond: predicate, then, else; while_loop: condition, body).
INPUTLESS_SUBGRAPHS_FAIL = {"_cond": (1, 2), "_while_loop": (0,)}


def ndarray_only(op: str) -> bool:
    """Whether `op` ("equal", "contrib.isnan") is a function of mx.nd that mx.sym lacks."""
    namespace, _, name = op.rpartition(".")
    return name in NDARRAY_ONLY.get(namespace, frozenset())


# What the NDArray-only functions of MXNet 1.9.1 are in terms of operators both namespaces have
# (one table for HL006's `nd.<name>` and HL015's `F.<name>`; rules/_ndarray_only_fix.py builds
# the rewrites, tests/test_fix_equivalence_hl015.py checks each against real MXNet).
#
# Binary helpers: ndarray.py's `_ufunc_helper(lhs, rhs, fn_array, fn_scalar, lfn_scalar,
# rfn_scalar)` calls `fn_array(lhs, rhs)`, the broadcast operator, for two NDArrays, and the
# `_<op>_scalar` operator for an NDArray and a number, which is what the Python operator calls on
# a Symbol too (`x - 2` -> `_minus_scalar`, `2 - x` -> `_rminus_scalar`); None: a Symbol has no
# operator for it (`&`), so a scalar operand is reported only. `true_divide` is `divide`.
BINARY: Dict[str, Tuple[str, Optional[str]]] = {
    "add": ("broadcast_add", "+"),
    "subtract": ("broadcast_sub", "-"),
    "multiply": ("broadcast_mul", "*"),
    "divide": ("broadcast_div", "/"),
    "true_divide": ("broadcast_div", "/"),
    "modulo": ("broadcast_mod", "%"),
    "equal": ("broadcast_equal", "=="),
    "not_equal": ("broadcast_not_equal", "!="),
    "greater": ("broadcast_greater", ">"),
    "greater_equal": ("broadcast_greater_equal", ">="),
    "lesser": ("broadcast_lesser", "<"),
    "lesser_equal": ("broadcast_lesser_equal", "<="),
    "logical_and": ("broadcast_logical_and", None),
    "logical_or": ("broadcast_logical_or", None),
    "logical_xor": ("broadcast_logical_xor", None),
}
# The others that have an exact F spelling (argument rewriting in rules/_ndarray_only_fix.py):
#   concatenate(arrays, axis=0, always_copy=True) -> concat(*arrays, dim=axis): the nd helper
#     asserts `arrays` is a list of NDArrays of one dtype and copies them into one array (it
#     raises under autograd.record and with a negative axis computes a wrong shape);
#   moveaxis(tensor, source, destination) -> transpose(tensor, axes=order): the helper computes
#     the permutation from tensor.ndim and calls `op.transpose` (exact when ndim is known);
#   empty(shape, ctx, dtype) -> zeros(shape, dtype=dtype): uninitialised memory (unsafe);
#   contrib.isnan(x) is `x != x`, contrib.isinf(x) `x.abs() == np.inf`, contrib.isfinite(x)
#     `logical_and(x.abs() != np.inf, x == x)` (MXNet 1.9.1's ndarray/contrib.py).
# Advice for those without one: onehot_encode(indices, out) writes into `out`.
ADVICE: Dict[str, str] = {
    "onehot_encode": "use F.one_hot(indices, depth=n), which returns the encoding",
    "empty": "use F.zeros(shape, dtype=...) (or F.zeros_like)",
    "concatenate": "use F.concat(*arrays, dim=axis)",
    "moveaxis": "use F.transpose(x, axes=...) with the permutation, or F.swapaxes",
}

_FIXED_NAMESPACES = (("mxnet.ndarray.", True), ("mxnet.symbol.", False))


def fixed_namespace_op(qualified: Optional[str]) -> Optional[Tuple[str, bool]]:
    """("contrib.arange_like", is mx.nd) for an import-qualified call of a fixed namespace's
    operator (`mxnet.ndarray.contrib.arange_like`), else None (also for `array`, HL005's, and
    for paths deeper than one submodule)."""
    for prefix, eager in _FIXED_NAMESPACES:
        if qualified and qualified.startswith(prefix):
            op = qualified[len(prefix) :]
            parts = op.split(".")
            if (
                op == "array"
                or len(parts) > 2
                or (len(parts) == 2 and parts[0] not in SUBNAMESPACE_OPS)
            ):
                return None
            return op, eager
    return None


# `F.<sub>.<op>` is the registry's `_<sub>_<op>`; `random` and `sparse` functions are Python
# wrappers whose parameters are not the registry's, so they are left out
_REGISTRY_PREFIXES = {"contrib": "_contrib_", "linalg": "_linalg_", "image": "_image_"}


def operator_of(function: str) -> Optional[str]:
    """The registry operator `F.<function>` calls (`one_hot` -> `one_hot`,
    `contrib.box_nms` -> `_contrib_box_nms`), or None: a Python-defined function of mx.nd
    (`maximum`, `power`: its parameters take numbers), an unknown name."""
    head, _, name = function.rpartition(".")
    if head in ("", "op"):
        return name if name in OPERATORS and name not in SIGNATURES else None
    prefix = _REGISTRY_PREFIXES.get(head)
    if prefix is None or prefix + name not in OPERATORS:
        return None
    return prefix + name


def attribute_keywords(function: str) -> FrozenSet[str]:
    """The keywords of the operator `F.<function>` calls that are attributes (Python values:
    MXNet passes them to the operator as strings, so an array there fails, `depth` of
    one_hot), from the argument types MXNet 1.9.1 declares."""
    op = operator_of(function)
    if op is None:
        return frozenset()
    return frozenset(OPERATORS[op]) - frozenset(ARRAY_ARGUMENTS.get(op, OPERATORS[op]))


def takes_only_arrays(function: str, position: Optional[int], keyword: Optional[str]) -> bool:
    """Whether `F.<function>(...)` raises eagerly for a Python number at argument `position`
    (or `keyword`): the argument is one MXNet 1.9.1 declares NDArray-or-Symbol, and MXNet's
    generated function asserts its type. Python-defined functions (`maximum`, `power`) and
    attributes (`clip`'s `a_max`, `LeakyReLU`'s `slope`) take numbers."""
    op = operator_of(function)
    if op is None:
        return False
    arguments, arrays = OPERATORS[op], ARRAY_ARGUMENTS.get(op, ())
    if keyword is not None:
        return keyword in arrays
    if "num_args" in arguments:  # variadic (concat, add_n, stack): every positional is an array
        return True
    return position is not None and position < len(arguments) and arguments[position] in arrays
