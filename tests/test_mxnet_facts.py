"""hybridlint/mxnet_facts.py against MXNet 1.9.1: every name a hand-kept fact lists exists in MXNet
1.9.1 where it is used (per the generated hybridlint/mxnet_names.py), the semantic facts hold
under the engine's op registry and under real MXNet, and the generated data is current.

A fact naming an operator MXNet does not have (`F.relu6`, `F.softrelu`: an act_type, not an
operator) or claiming a shape it does not keep (`where` keeps x's, not its condition's) fails
here, not in a user's review.
"""

import importlib.util
import os
import warnings

import pytest

from hybridlint import mxnet_facts as facts
from hybridlint import mxnet_names as names

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _in(op: str, module: str) -> bool:
    """Whether `op` ("sum", "linalg.gelqf") is a public function of `module` ("mxnet.symbol")."""
    namespace, _, name = op.rpartition(".")
    return name in names.FUNCTIONS.get(module + ("." + namespace if namespace else ""), ())


def _in_both(op: str) -> bool:
    return _in(op, "mxnet.ndarray") and _in(op, "mxnet.symbol")


# the facts about `F.<op>` that must hold in both modes, and those naming functions of either
BOTH = {
    "SHAPE_PRESERVING": facts.SHAPE_PRESERVING,
    "LIKE_OPS": facts.LIKE_OPS,
    "REDUCTIONS": facts.REDUCTIONS,
    "MULTI_OUTPUT_OPS": facts.MULTI_OUTPUT_OPS,
    "MULTI_OUTPUT_COUNTS": frozenset(facts.MULTI_OUTPUT_COUNTS),
    "BROADCAST_BINARY": facts.BROADCAST_BINARY,
    "EFFECT_FREE_OPS": facts.EFFECT_FREE_OPS,
}
EITHER = {"CREATION_OPS": facts.CREATION_OPS, "NON_TENSOR_OPS": facts.NON_TENSOR_OPS}


@pytest.mark.parametrize("fact", sorted(BOTH))
def test_every_listed_operator_is_in_mx_nd_and_mx_sym(fact):
    assert sorted(op for op in BOTH[fact] if not _in_both(op)) == []


@pytest.mark.parametrize("fact", sorted(EITHER))
def test_every_listed_function_is_in_mx_nd_or_mx_sym(fact):
    missing = [
        op
        for op in EITHER[fact]
        if not (_in(op, "mxnet.ndarray") or _in(op, "mxnet.symbol"))
        and op.rpartition(".")[2] not in names.NAMES["mxnet.symbol"]  # sym.Group: a class
    ]
    assert sorted(missing) == []


def test_the_check_fails_for_names_mxnet_lacks():
    """The helpers above can say no: the names once listed by mistake are not 1.9.1's."""
    for op in ("relu6", "softrelu", "gelu", "copy", "linalg_syevd"):
        assert not _in_both(op) and not _in(op, "mxnet.ndarray")
    assert _in_both("linalg.syevd") and _in_both("relu")


def test_methods_exist_on_the_tensor_classes():
    assert sorted(facts.SHAPE_PRESERVING_METHODS - facts.SHARED_METHODS) == []
    tensors = names.ATTRIBUTES["NDArray"] | names.ATTRIBUTES["Symbol"]
    assert sorted(facts.NON_TENSOR_METHODS - tensors) == ["tolist"]  # numpy's, documented
    assert "copyto" in names.ATTRIBUTES["NDArray"] - names.ATTRIBUTES["Symbol"]


def test_multi_output_attrs_are_operator_parameters():
    parameters = {a for arguments in names.OPERATORS.values() for a in arguments}
    assert sorted(facts.MULTI_OUTPUT_ATTRS - parameters) == []
    assert "return_indices" not in parameters  # listed once; no 1.9.1 operator takes it


def test_reduction_parameters_follow_mxnet_order():
    assert facts.REDUCTION_PARAMETERS["sum"] == ("axis", "keepdims", "exclude")
    assert facts.REDUCTION_PARAMETERS["norm"] == ("ord", "axis", "out_dtype", "keepdims")
    assert facts.REDUCTION_PARAMETERS["pick"] == ("index", "axis", "keepdims", "mode")
    assert set(facts.REDUCTION_PARAMETERS) == facts.REDUCTIONS


def test_broadcast_binary_is_the_lhs_rhs_broadcast_family():
    assert {"broadcast_add", "broadcast_hypot", "broadcast_logical_xor"} <= facts.BROADCAST_BINARY
    assert not {"broadcast_to", "broadcast_like", "broadcast_axis"} & facts.BROADCAST_BINARY
    assert len(facts.BROADCAST_BINARY) == 20


def test_layers_exist_in_gluon():
    gluon = (
        names.NAMES["mxnet.gluon.nn"]
        | names.NAMES["mxnet.gluon.contrib.nn"]
        | names.NAMES["mxnet.gluon.rnn"]
    )
    layers = facts.SINGLE_OUTPUT_LAYERS | facts.SHAPE_PRESERVING_LAYERS | facts.RNN_LAYERS
    assert sorted(layers - gluon) == []


def test_derived_namespace_tables():
    assert facts.OPS == (names.FUNCTIONS["mxnet.ndarray"] & names.FUNCTIONS["mxnet.symbol"]) - {
        "load"
    }
    assert "syevd" in facts.LINALG_OPS and "to_tensor" in facts.IMAGE_OPS
    assert facts.ndarray_only("equal") and not facts.ndarray_only("broadcast_equal")


# ------------------------------------------------------------------ semantics, engine and MXNet

# The parameters an operator requires.
_REQUIRED = {
    "Activation": {"act_type": "relu"},
    "Cast": {"dtype": "float16"},
    "cast": {"dtype": "float16"},
    "clip": {"a_min": 0, "a_max": 1},
}
_MULTI_REQUIRED = {"contrib.bipartite_matching": {"threshold": 0.5}}


def _symbol(mx, op, **kwargs):
    namespace, _, name = op.rpartition(".")
    module = getattr(mx.sym, namespace) if namespace else mx.sym
    return getattr(module, name)(mx.sym.var("x"), **kwargs)


def _keeps_shape(mx, op):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, out, _ = _symbol(mx, op, **_REQUIRED.get(op, {})).infer_shape(x=(2, 3, 4))
    return out[0] == (2, 3, 4)


def _outputs(mx, op):
    return len(_symbol(mx, op, **_MULTI_REQUIRED.get(op, {})).list_outputs())


@pytest.mark.parametrize("op", sorted(facts.SHAPE_PRESERVING))
def test_shape_preserving_under_the_engine(op):
    from hybridlint import engine

    assert _keeps_shape(engine, op)


def test_every_unary_elementwise_operator_of_the_engine_is_listed():
    """The engine's registry marks its elementwise ops: each one-input elementwise operator that
    both namespaces have keeps its input's shape, so a list missing one is incomplete."""
    from hybridlint import engine  # noqa: F401  (registers the ops)
    from hybridlint.engine import registry

    unary = {
        name
        for name, op in registry._OPS.items()
        if op.elementwise and not callable(op._inputs) and len(op._inputs or ()) == 1
    }
    assert len(unary & facts.OPS) > 40
    assert sorted((unary & facts.OPS) - facts.SHAPE_PRESERVING) == []


# the engine lacks these operators (it says "cannot verify" for them)
_ENGINE_LACKS = {"contrib.MultiBoxTarget", "contrib.calibrate_entropy", "contrib.hawkesll"}
_ENGINE_LACKS |= {"linalg.gelqf", "linalg_gelqf", "linalg.syevd"}


@pytest.mark.parametrize("op", sorted(set(facts.MULTI_OUTPUT_COUNTS) - _ENGINE_LACKS))
def test_output_counts_under_the_engine(op):
    from hybridlint import engine

    assert _outputs(engine, op) == facts.MULTI_OUTPUT_COUNTS[op]


def test_where_does_not_keep_its_condition_shape_under_the_engine():
    from hybridlint import engine as mx

    c, x, y = (mx.sym.var(n) for n in "cxy")
    _, out, _ = mx.sym.where(c, x, y).infer_shape(c=(2,), x=(2, 3), y=(2, 3))
    assert out == [(2, 3)] and "where" not in facts.SHAPE_PRESERVING


@pytest.mark.mxnet
@pytest.mark.parametrize("op", sorted(facts.SHAPE_PRESERVING))
def test_shape_preserving_under_mxnet(op):
    mx = pytest.importorskip("mxnet")
    assert _keeps_shape(mx, op)


@pytest.mark.mxnet
@pytest.mark.parametrize("op", sorted(facts.MULTI_OUTPUT_COUNTS))
def test_output_counts_under_mxnet(op):
    mx = pytest.importorskip("mxnet")
    assert _outputs(mx, op) == facts.MULTI_OUTPUT_COUNTS[op]


def _generator():
    path = os.path.join(ROOT, "tools", "gen_mxnet_names.py")
    spec = importlib.util.spec_from_file_location("gen_mxnet_names", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.mxnet
def test_generated_names_are_current():
    """`tools/gen_mxnet_names.py --check`, in process: the stored data equals what the
    installed MXNet 1.9.1 gives, and an edit of the stored data is seen as stale."""
    mx = pytest.importorskip("mxnet")
    if mx.__version__ != names.VERSION:
        pytest.skip("another MXNet version installed")
    gen = _generator()
    with open(gen.TARGET, encoding="utf-8") as handle:
        stored = handle.read()
    assert not gen.stale(stored)
    assert gen.stale(stored.replace("'sum': (", "'sum_renamed': (").replace('"sum": (', '"x": ('))


def test_eager_attributes_are_ndarrays_and_not_symbols():
    eager_only = names.ATTRIBUTES["NDArray"] - names.ATTRIBUTES["Symbol"]
    assert sorted(set(facts.EAGER_ATTRIBUTES) - eager_only) == []


def test_axis_operators_take_the_axis_they_are_listed_for():
    for ops, parameter in (
        (facts.AXIS_OPS | facts.ADDED_AXIS_OPS, "axis"),
        (facts.DIM_OPS, "dim"),
    ):
        assert sorted(op for op in ops if op not in facts.OPS) == []
        missing = sorted(op for op in ops if parameter not in names.OPERATORS.get(op, ()))
        assert missing == []


def test_gluon_block_kinds():
    assert {"Dense", "HybridSequential", "LSTM", "SyncBatchNorm"} <= facts.HYBRID_GLUON
    assert {"Block", "Sequential", "SparseEmbedding"} <= facts.NON_HYBRID_GLUON
    assert not facts.HYBRID_GLUON & facts.NON_HYBRID_GLUON
    layers = facts.SINGLE_OUTPUT_LAYERS | facts.SHAPE_PRESERVING_LAYERS | facts.RNN_LAYERS
    assert sorted(layers - facts.HYBRID_GLUON) == []


def test_shared_signatures_of_the_python_defined_functions():
    shared = facts.SHARED_SIGNATURE
    assert set(shared) == set(
        "arange eye full histogram linspace maximum minimum ones power split_v2 zeros".split()
    )
    assert shared["zeros"] == (1, {"shape", "dtype"})  # nd's 2nd positional is ctx, sym's dtype
    assert shared["full"] == (2, {"shape", "val", "dtype"})  # out is nd's only
    assert shared["maximum"] == (2, set())  # lhs/rhs vs left/right: positions only
    assert shared["arange"] == (5, {"start", "stop", "step", "repeat", "infer_range", "dtype"})
    assert shared["split_v2"] == (4, {"ary", "indices_or_sections", "axis", "squeeze_axis"})


def test_array_arguments_are_arguments_and_tell_attributes_apart():
    """ARRAY_ARGUMENTS (generated from MXNet's declared argument types) names only arguments of
    the operator; `depth` of one_hot is an attribute, Convolution's weight an array."""
    assert set(names.ARRAY_ARGUMENTS) == set(names.OPERATORS)
    assert [
        op for op, a in names.ARRAY_ARGUMENTS.items() if set(a) - set(names.OPERATORS[op])
    ] == []
    assert names.ARRAY_ARGUMENTS["one_hot"] == ("indices",)
    assert names.ARRAY_ARGUMENTS["Convolution"] == ("data", "weight", "bias")
    assert names.ARRAY_ARGUMENTS["add_n"] == ("args",)


# (function as written after F., position, keyword) -> whether a Python number there raises
NUMBER_ARGUMENTS = [
    ("relu", 0, None, True),
    ("broadcast_mul", 1, None, True),
    ("broadcast_mul", None, "rhs", True),
    ("concat", 1, None, True),  # variadic: every positional is an input
    ("maximum", 1, None, False),  # a Python function of mx.nd: it takes numbers
    ("power", 1, None, False),
    ("clip", 2, None, False),  # a_max is an attribute
    ("clip", None, "a_max", False),
    ("LeakyReLU", None, "slope", False),
    ("contrib.BilinearResize2D", 0, None, True),
]


@pytest.mark.parametrize("function, position, keyword, raises", NUMBER_ARGUMENTS)
def test_takes_only_arrays_says_where_mxnet_refuses_a_number(function, position, keyword, raises):
    assert facts.takes_only_arrays(function, position, keyword) is raises


@pytest.mark.mxnet
@pytest.mark.parametrize("function, position, keyword, raises", NUMBER_ARGUMENTS)
def test_takes_only_arrays_matches_mxnet(function, position, keyword, raises):
    """Call mx.nd.<function> with an array in every other argument it needs and the number 2.0
    at the place named: MXNet 1.9.1 asserts the type of its array inputs (AssertionError) and
    takes numbers elsewhere."""
    mx = pytest.importorskip("mxnet")
    x = mx.nd.ones((1, 2, 4, 4))
    base = {
        "relu": ([x], {}),
        "broadcast_mul": ([x, x], {}),
        "concat": ([x, x], {"dim": 1}),
        "maximum": ([x, x], {}),
        "power": ([x, x], {}),
        "clip": ([x, 0.0, 1.0], {}),
        "LeakyReLU": ([x], {"slope": 0.1}),
        "contrib.BilinearResize2D": ([x], {"height": 2, "width": 2}),
    }[function]
    args, kwargs = list(base[0]), dict(base[1])
    if keyword is not None:  # the named argument leaves the positional ones
        args = args[: {"rhs": 1, "a_max": 2}.get(keyword, len(args))]
        kwargs[keyword] = 2.0
    else:
        args[position] = 2.0
    target = mx.nd
    for part in function.split("."):
        target = getattr(target, part)
    try:
        target(*args, **kwargs)
        refused = False
    except AssertionError:
        refused = True
    assert refused is raises


@pytest.mark.mxnet
def test_the_defaults_that_differ_between_nd_and_sym_are_mxnets():
    """DEFAULTS_DIFFER is every keyword whose default mx.nd.random and mx.sym.random give
    differently in MXNet 1.9.1, at its position, with both defaults; the engine follows it."""
    import inspect

    mx = pytest.importorskip("mxnet")
    import hybridlint.engine as engine

    found = {}
    for name in sorted(set(dir(mx.nd.random)) & set(dir(mx.sym.random))):
        nd_fn, sym_fn = getattr(mx.nd.random, name), getattr(mx.sym.random, name)
        if name.startswith("_") or not (inspect.isfunction(nd_fn) and inspect.isfunction(sym_fn)):
            continue
        nd_params = [p for p in inspect.signature(nd_fn).parameters.values() if p.name != "out"]
        sym_params = {p.name: p for p in inspect.signature(sym_fn).parameters.values()}
        for position, param in enumerate(nd_params):
            other = sym_params.get(param.name)
            if other is not None and repr(other.default) != repr(param.default):
                found["random." + name] = (param.name, position, param.default, other.default)
    assert found == facts.DEFAULTS_DIFFER
    for op, (keyword, _, nd_default, sym_default) in found.items():
        namespace, _, name = op.rpartition(".")
        for lib, default in ((engine.nd, nd_default), (engine.sym, sym_default)):
            function = getattr(getattr(lib, namespace), name)
            assert inspect.signature(function).parameters[keyword].default == default


# the inputs each layer of DEFERRED_LAYER_PARAMETERS is called on, and every parameter it has
_DEFERRED_CASES = {
    "Dense": ((2, 3), ("weight", "bias"), (2,)),
    "Conv1D": ((2, 3, 5), ("weight", "bias"), (2, 1)),
    "Conv2D": ((2, 3, 5, 5), ("weight", "bias"), (2, 1)),
    "Conv3D": ((2, 3, 4, 4, 4), ("weight", "bias"), (2, 1)),
    "Conv1DTranspose": ((2, 3, 5), ("weight", "bias"), (2, 1)),
    "Conv2DTranspose": ((2, 3, 5, 5), ("weight", "bias"), (2, 1)),
    "Conv3DTranspose": ((2, 3, 4, 4, 4), ("weight", "bias"), (2, 1)),
    "BatchNorm": ((2, 3, 4), ("gamma", "beta", "running_mean", "running_var"), ()),
    "SyncBatchNorm": ((2, 3, 4), ("gamma", "beta", "running_mean", "running_var"), ()),
    "LayerNorm": ((2, 3), ("gamma", "beta"), ()),
    "InstanceNorm": ((2, 3, 4), ("gamma", "beta"), ()),
}


def _borrowed_runs(mx, layer: str, param: str, sized: bool) -> bool:
    """Whether a parent registering its child's `param` (`self.c_p = self.c.<param>`) and
    taking it in hybrid_forward runs eagerly: False on DeferredInitializationError."""
    shape, _, args = _DEFERRED_CASES[layer]
    size_argument = facts.DEFERRED_LAYER_PARAMETERS[layer][0]
    kwargs = {size_argument: shape[1]} if sized else {}
    nn = mx.gluon.contrib.nn if layer == "SyncBatchNorm" else mx.gluon.nn

    class Parent(mx.gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.c = getattr(nn, layer)(*args, **kwargs)
            self.c_p = getattr(self.c, param)

        def hybrid_forward(self, F, x, c_p):
            return F.broadcast_add(self.c(x).sum(), c_p.sum())

    net = Parent()
    net.initialize()
    try:
        net(mx.nd.ones(shape))
    except mx.gluon.parameter.DeferredInitializationError:
        return False
    return True


def _deferred_table(mx, lacks=frozenset()):
    return {
        (layer, param, sized): _borrowed_runs(mx, layer, param, sized)
        for layer, (_, params, _) in _DEFERRED_CASES.items()
        if layer not in lacks
        for param in params
        for sized in (False, True)
    }


def _expected_table(lacks=frozenset()):
    return {
        (layer, param, sized): sized or param not in facts.DEFERRED_LAYER_PARAMETERS[layer][1]
        for layer, (_, params, _) in _DEFERRED_CASES.items()
        if layer not in lacks
        for param in params
        for sized in (False, True)
    }


def test_deferred_layer_parameters_are_the_layers_listed():
    assert set(_DEFERRED_CASES) == set(facts.DEFERRED_LAYER_PARAMETERS)


@pytest.mark.mxnet
def test_deferred_layer_parameters_under_mxnet():
    """Which borrowed child parameters fail a parent's eager call: those the table lists, and
    only while the layer is not given its input size (HL012 offers no fix for them)."""
    mx = pytest.importorskip("mxnet")
    assert _deferred_table(mx) == _expected_table()


def test_deferred_layer_parameters_under_the_engine():
    from hybridlint import engine

    lacks = {"SyncBatchNorm"}  # the engine says "cannot verify" for it
    assert _deferred_table(engine, lacks) == _expected_table(lacks)


_LAYER_ARGS = {"Dense": (2,), "Embedding": (4, 3), **{c: (2, 1) for c in facts._CONVOLUTIONS}}


def _declared(mx, layer: str) -> set:
    nn = mx.gluon.contrib.nn if layer == "SyncBatchNorm" else mx.gluon.nn
    return set(getattr(nn, layer)(*_LAYER_ARGS.get(layer, ()))._reg_params)


@pytest.mark.mxnet
@pytest.mark.parametrize("layer", sorted(facts.LAYER_PARAMETERS))
def test_layer_parameters_under_mxnet(layer):
    mx = pytest.importorskip("mxnet")
    assert _declared(mx, layer) == facts.LAYER_PARAMETERS[layer]


@pytest.mark.parametrize("layer", sorted(set(facts.LAYER_PARAMETERS) - {"SyncBatchNorm"}))
def test_layer_parameters_under_the_engine(layer):
    from hybridlint import engine

    assert _declared(engine, layer) == facts.LAYER_PARAMETERS[layer]


def _pooled_shapes(mx):
    """Each pooling layer's output shape on an input of its rank (3, 5, 6, ... spatial)."""
    shapes = {}
    for layer, (rank, _) in facts.POOLING_LAYERS.items():
        block = getattr(mx.gluon.nn, layer)()
        block.initialize()
        data = mx.nd.ones((2, 4) + (5, 6, 7)[: rank - 2])
        shapes[layer] = block(data).shape
    return shapes


def _check_pooled(shapes):
    assert set(shapes) == set(facts.POOLING_LAYERS)
    for layer, shape in shapes.items():
        rank, glob = facts.POOLING_LAYERS[layer]
        assert len(shape) == rank and shape[:2] == (2, 4), layer
        assert (shape[2:] == (1,) * (rank - 2)) == glob, layer


def test_pooling_layers_keep_batch_channels_and_rank_under_the_engine():
    from hybridlint import engine

    _check_pooled(_pooled_shapes(engine))


@pytest.mark.mxnet
def test_pooling_layers_keep_batch_channels_and_rank_under_mxnet():
    mx = pytest.importorskip("mxnet")
    _check_pooled(_pooled_shapes(mx))


@pytest.mark.mxnet
@pytest.mark.parametrize("qualified", sorted(facts.SHAPED_LIKE_HELPERS))
def test_shaped_like_helpers_return_their_arguments_shape_under_mxnet(qualified):
    """Each listed gluon helper exists in MXNet 1.9.1 and returns an array of the shape of the
    argument the table names, eagerly and as a Symbol."""
    mx = pytest.importorskip("mxnet")
    import importlib

    module, _, name = qualified.rpartition(".")
    helper = getattr(importlib.import_module(module), name)
    position = facts.SHAPED_LIKE_HELPERS[qualified]
    arrays = [mx.nd, mx.nd.ones((2, 6)), mx.nd.ones((2, 3, 2))]
    assert helper(*arrays).shape == arrays[position].shape
    symbols = [mx.sym, mx.sym.var("x"), mx.sym.var("y")]
    out = helper(*symbols).infer_shape(x=(2, 6), y=(2, 3, 2))[1]
    assert out == [arrays[position].shape]


def test_effect_free_operators_draw_nothing():
    """No random operator, and none of the stateful or callback ones, is called free of
    effects (HL014 drops an unread unpacking of one as a safe fix)."""
    assert not facts.EFFECT_FREE_OPS & (facts.RANDOM_OPS | facts.CREATION_OPS)
    assert not facts.EFFECT_FREE_OPS & {"Dropout", "BatchNorm", "Custom", "uniform", "normal"}
