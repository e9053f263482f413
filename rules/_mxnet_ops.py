"""Operator names MXNet 1.9.1 has in BOTH mx.nd and mx.sym (so `F.<op>` exists eagerly and
hybridized). Generated once from real MXNet 1.9.1 (set intersection of the public callables of
`mx.nd`/`mx.sym` and of their `contrib`, `random`, `linalg` and `image` submodules), minus
`load`, whose two versions do different things (a file of arrays vs a graph). To regenerate for
another MXNet: intersect the names `n` of `dir(mx.nd)` and `dir(mx.sym)` (and of each submodule)
that do not start with `_` and are callables but not classes or modules.
"""

import importlib.util
import os
from typing import Dict, FrozenSet, Optional, Tuple

OPS = frozenset(
    {
        "Activation",
        "BatchNorm",
        "BatchNorm_v1",
        "BilinearSampler",
        "BlockGrad",
        "CTCLoss",
        "Cast",
        "Concat",
        "Convolution",
        "Convolution_v1",
        "Correlation",
        "Crop",
        "Custom",
        "Deconvolution",
        "Dropout",
        "ElementWiseSum",
        "Embedding",
        "Flatten",
        "FullyConnected",
        "GridGenerator",
        "GroupNorm",
        "IdentityAttachKLSparseReg",
        "InstanceNorm",
        "L2Normalization",
        "LRN",
        "LayerNorm",
        "LeakyReLU",
        "LinearRegressionOutput",
        "LogisticRegressionOutput",
        "MAERegressionOutput",
        "MakeLoss",
        "Pad",
        "Pooling",
        "Pooling_v1",
        "RNN",
        "ROIPooling",
        "Reshape",
        "SVMOutput",
        "SequenceLast",
        "SequenceMask",
        "SequenceReverse",
        "SliceChannel",
        "Softmax",
        "SoftmaxActivation",
        "SoftmaxOutput",
        "SpatialTransformer",
        "SwapAxis",
        "UpSampling",
        "abs",
        "adam_update",
        "add_n",
        "all_finite",
        "amp_cast",
        "amp_multicast",
        "arange",
        "arccos",
        "arccosh",
        "arcsin",
        "arcsinh",
        "arctan",
        "arctanh",
        "argmax",
        "argmax_channel",
        "argmin",
        "argsort",
        "batch_dot",
        "batch_take",
        "broadcast_add",
        "broadcast_axes",
        "broadcast_axis",
        "broadcast_div",
        "broadcast_equal",
        "broadcast_greater",
        "broadcast_greater_equal",
        "broadcast_hypot",
        "broadcast_lesser",
        "broadcast_lesser_equal",
        "broadcast_like",
        "broadcast_logical_and",
        "broadcast_logical_or",
        "broadcast_logical_xor",
        "broadcast_maximum",
        "broadcast_minimum",
        "broadcast_minus",
        "broadcast_mod",
        "broadcast_mul",
        "broadcast_not_equal",
        "broadcast_plus",
        "broadcast_power",
        "broadcast_sub",
        "broadcast_to",
        "cast",
        "cast_storage",
        "cbrt",
        "ceil",
        "choose_element_0index",
        "clip",
        "col2im",
        "concat",
        "cos",
        "cosh",
        "crop",
        "ctc_loss",
        "cumsum",
        "degrees",
        "depth_to_space",
        "diag",
        "dot",
        "elemwise_add",
        "elemwise_div",
        "elemwise_mul",
        "elemwise_sub",
        "erf",
        "erfinv",
        "exp",
        "expand_dims",
        "expm1",
        "eye",
        "fill_element_0index",
        "fix",
        "flatten",
        "flip",
        "floor",
        "ftml_update",
        "ftrl_update",
        "full",
        "gamma",
        "gammaln",
        "gather_nd",
        "hard_sigmoid",
        "histogram",
        "identity",
        "im2col",
        "khatri_rao",
        "lamb_update_phase1",
        "lamb_update_phase2",
        "linalg_det",
        "linalg_extractdiag",
        "linalg_extracttrian",
        "linalg_gelqf",
        "linalg_gemm",
        "linalg_gemm2",
        "linalg_inverse",
        "linalg_makediag",
        "linalg_maketrian",
        "linalg_potrf",
        "linalg_potri",
        "linalg_slogdet",
        "linalg_sumlogdiag",
        "linalg_syrk",
        "linalg_trmm",
        "linalg_trsm",
        "linspace",
        "log",
        "log10",
        "log1p",
        "log2",
        "log_softmax",
        "logical_not",
        "make_loss",
        "max",
        "max_axis",
        "maximum",
        "mean",
        "min",
        "min_axis",
        "minimum",
        "moments",
        "mp_lamb_update_phase1",
        "mp_lamb_update_phase2",
        "mp_nag_mom_update",
        "mp_sgd_mom_update",
        "mp_sgd_update",
        "multi_all_finite",
        "multi_lars",
        "multi_mp_sgd_mom_update",
        "multi_mp_sgd_update",
        "multi_sgd_mom_update",
        "multi_sgd_update",
        "multi_sum_sq",
        "nag_mom_update",
        "nanprod",
        "nansum",
        "negative",
        "norm",
        "normal",
        "one_hot",
        "ones",
        "ones_like",
        "pad",
        "pick",
        "power",
        "preloaded_multi_mp_sgd_mom_update",
        "preloaded_multi_mp_sgd_update",
        "preloaded_multi_sgd_mom_update",
        "preloaded_multi_sgd_update",
        "prod",
        "radians",
        "random_exponential",
        "random_gamma",
        "random_generalized_negative_binomial",
        "random_negative_binomial",
        "random_normal",
        "random_pdf_dirichlet",
        "random_pdf_exponential",
        "random_pdf_gamma",
        "random_pdf_generalized_negative_binomial",
        "random_pdf_negative_binomial",
        "random_pdf_normal",
        "random_pdf_poisson",
        "random_pdf_uniform",
        "random_poisson",
        "random_randint",
        "random_uniform",
        "ravel_multi_index",
        "rcbrt",
        "reciprocal",
        "relu",
        "repeat",
        "reset_arrays",
        "reshape",
        "reshape_like",
        "reverse",
        "rint",
        "rmsprop_update",
        "rmspropalex_update",
        "round",
        "rsqrt",
        "sample_exponential",
        "sample_gamma",
        "sample_generalized_negative_binomial",
        "sample_multinomial",
        "sample_negative_binomial",
        "sample_normal",
        "sample_poisson",
        "sample_uniform",
        "scatter_nd",
        "sgd_mom_update",
        "sgd_update",
        "shape_array",
        "shuffle",
        "sigmoid",
        "sign",
        "signsgd_update",
        "signum_update",
        "sin",
        "sinh",
        "size_array",
        "slice",
        "slice_axis",
        "slice_like",
        "smooth_l1",
        "softmax",
        "softmax_cross_entropy",
        "softmin",
        "softsign",
        "sort",
        "space_to_depth",
        "split",
        "split_v2",
        "sqrt",
        "square",
        "squeeze",
        "stack",
        "stop_gradient",
        "sum",
        "sum_axis",
        "swapaxes",
        "take",
        "tan",
        "tanh",
        "tile",
        "topk",
        "transpose",
        "trunc",
        "uniform",
        "unravel_index",
        "where",
        "zeros",
        "zeros_like",
    }
)

CONTRIB_OPS = frozenset(
    {
        "AdaptiveAvgPooling2D",
        "BatchNormWithReLU",
        "BilinearResize2D",
        "CTCLoss",
        "DeformableConvolution",
        "DeformablePSROIPooling",
        "ModulatedDeformableConvolution",
        "MultiBoxDetection",
        "MultiBoxPrior",
        "MultiBoxTarget",
        "MultiProposal",
        "PSROIPooling",
        "Proposal",
        "ROIAlign",
        "RROIAlign",
        "SparseEmbedding",
        "SyncBatchNorm",
        "adamw_update",
        "allclose",
        "arange_like",
        "backward_gradientmultiplier",
        "backward_hawkesll",
        "backward_index_copy",
        "backward_quadratic",
        "bipartite_matching",
        "boolean_mask",
        "box_decode",
        "box_encode",
        "box_iou",
        "box_nms",
        "box_non_maximum_suppression",
        "calibrate_entropy",
        "cond",
        "count_sketch",
        "ctc_loss",
        "dequantize",
        "dgl_adjacency",
        "dgl_csr_neighbor_non_uniform_sample",
        "dgl_csr_neighbor_uniform_sample",
        "dgl_graph_compact",
        "dgl_subgraph",
        "div_sqrt_dim",
        "edge_id",
        "fft",
        "foreach",
        "getnnz",
        "gradientmultiplier",
        "group_adagrad_update",
        "hawkesll",
        "ifft",
        "index_array",
        "index_copy",
        "interleaved_matmul_encdec_qk",
        "interleaved_matmul_encdec_valatt",
        "interleaved_matmul_selfatt_qk",
        "interleaved_matmul_selfatt_valatt",
        "mp_adamw_update",
        "quadratic",
        "quantize",
        "quantize_asym",
        "quantize_v2",
        "quantized_act",
        "quantized_batch_norm",
        "quantized_concat",
        "quantized_conv",
        "quantized_elemwise_add",
        "quantized_elemwise_mul",
        "quantized_embedding",
        "quantized_flatten",
        "quantized_fully_connected",
        "quantized_pooling",
        "quantized_rnn",
        "rand_zipfian",
        "requantize",
        "round_ste",
        "sign_ste",
        "uniform",
        "while_loop",
    }
)

RANDOM_OPS = frozenset(
    {
        "exponential",
        "exponential_like",
        "gamma",
        "gamma_like",
        "generalized_negative_binomial",
        "generalized_negative_binomial_like",
        "multinomial",
        "negative_binomial",
        "negative_binomial_like",
        "normal",
        "normal_like",
        "poisson",
        "poisson_like",
        "randint",
        "randn",
        "shuffle",
        "uniform",
        "uniform_like",
    }
)

LINALG_OPS = frozenset(
    {
        "det",
        "extractdiag",
        "extracttrian",
        "gelqf",
        "gemm",
        "gemm2",
        "inverse",
        "makediag",
        "maketrian",
        "potrf",
        "potri",
        "slogdet",
        "sumlogdiag",
        "syevd",
        "syrk",
        "trmm",
        "trsm",
    }
)

IMAGE_OPS = frozenset(
    {
        "adjust_lighting",
        "crop",
        "flip_left_right",
        "flip_top_bottom",
        "normalize",
        "random_brightness",
        "random_color_jitter",
        "random_contrast",
        "random_flip_left_right",
        "random_flip_top_bottom",
        "random_hue",
        "random_lighting",
        "random_saturation",
        "resize",
        "to_tensor",
    }
)

SUBNAMESPACE_OPS: Dict[str, FrozenSet[str]] = {
    "contrib": CONTRIB_OPS,
    "random": RANDOM_OPS,
    "linalg": LINALG_OPS,
    "image": IMAGE_OPS,
}


def _generated_names():
    """engine/_mxnet_names.py (generated from real MXNet 1.9.1 by tools/gen_mxnet_names.py), read
    as a file: importing it through `hybridlint.engine` would load the whole engine (0.1 s) on
    every lint run."""
    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "engine", "_mxnet_names.py")
    spec = importlib.util.spec_from_file_location("_hybridlint_mxnet_names", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_NAMES = _generated_names()


def _ndarray_only(submodule: str = "") -> FrozenSet[str]:
    suffix = "." + submodule if submodule else ""
    functions = _NAMES.FUNCTIONS["mxnet.ndarray" + suffix]
    return frozenset(functions - _NAMES.NAMES["mxnet.symbol" + suffix])


# The public functions of mx.nd (and of its contrib/linalg/random submodules) that mx.sym lacks
# in MXNet 1.9.1: `F.<name>` raises AttributeError under hybridize (HL015; `nd.<name>` is HL006's).
# `array` is left to HL005 (array-creation).
NDARRAY_ONLY: Dict[str, FrozenSet[str]] = {
    "": _ndarray_only() - {"array"},
    "contrib": _ndarray_only("contrib"),
    "linalg": _ndarray_only("linalg"),
    "random": _ndarray_only("random"),
}


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
