"""Blocks mixing dtypes, eagerly and hybridized, against real MXNet 1.9.1: the engine must fail
exactly where MXNet fails and otherwise give the same dtype and values.

tests/test_ops_mixed_dtype.py covers eager calls of every op with one input switched to
another dtype; this covers what a user's block sees: graph type inference after hybridize()
(a `where` of float32 and float64 branches fails there as eagerly), integer data in ops MXNet
computes in float and casts back (`sigmoid` of int32 is int32 zeros) or refuses ("only support
floating point types": softmax and its kin, hard_sigmoid), and the usual mixed arithmetic.
"""

import json

import pytest

import hybridlint.engine as engine
from engine_blocks import eager_and_hybridized
from mxnet_record import reference

# name -> (hybrid_forward body on `a` float32 (2, 3) and `b`, the dtype of `b`)
CASES = {
    "add_f32_i32": ("a + b", "int32"),
    "mul_f32_f64": ("a * b", "float64"),
    "broadcast_add_f32_i32": ("F.broadcast_add(a, b)", "int32"),
    "where_int_condition": ("F.where(b, a, a * 2)", "int32"),
    "where_branches_differ": ("F.where(a > 0, a, b)", "float64"),
    "concat_f32_f64": ("F.concat(a, b, dim=0)", "float64"),
    "stack_f32_f64": ("F.stack(a, b)", "float64"),
    "int_plus_half": ("b + 0.5", "int32"),
    "int_div_2": ("b / 2", "int32"),
    "take_float_indices": ("F.take(a, b)", "float32"),
    "pick_int_index": ("F.pick(a, b, axis=1)", "int32"),
    "ones_like_int_plus_float": ("F.ones_like(b) + a", "int32"),
    "cast_then_add": ("F.Cast(b, dtype='float32') + a", "int32"),
    "sum_int": ("F.sum(b)", "int32"),
    "mean_int": ("F.mean(b)", "int32"),
    "sqrt_int": ("F.sqrt(b)", "int32"),
    "sigmoid_int": ("F.sigmoid(b)", "int32"),
    "tanh_int": ("F.tanh(b)", "int32"),
    "hard_sigmoid_int": ("F.hard_sigmoid(b)", "int32"),
    "softmax_int": ("F.softmax(b)", "int32"),
    "log_softmax_int": ("F.log_softmax(b)", "int32"),
    "softmax_int_to_float64": ("F.softmax(b, dtype='float64')", "int32"),
    "reshape_like_f32_f64": ("F.reshape_like(a, b)", "float64"),
    "broadcast_like_f32_f64": ("F.broadcast_like(a, b)", "float64"),
    "gemm2_f32_f64": ("F.linalg.gemm2(a, F.transpose(b))", "float64"),
    "arange_like_int": ("F.contrib.arange_like(b) + b", "int32"),
    "float16_plus_float32": ("a.astype('float16') + a", "float32"),
}


def _outcomes(mx):
    """Per case: [eager, hybridized], each [dtype name, values] or the error's type name."""
    a = mx.nd.array([[0.5, 1.0, 2.0], [1.0, 0.0, 1.0]], dtype="float32")
    return {
        name: eager_and_hybridized(
            mx,
            body,
            "a, b",
            [a, mx.nd.array([[1, 0, 2], [0, 1, 1]], dtype=dtype)],
            lambda out: [out.dtype.__name__, out.asnumpy().round(4).tolist()],
        )
        for name, (body, dtype) in CASES.items()
    }


def _plain(value):
    """Tuples as lists, as a recording gives them back."""
    return json.loads(json.dumps(value))


@pytest.mark.mxnet
def test_blocks_mixing_dtypes_fail_and_compute_as_in_mxnet():
    want = _plain(reference(_outcomes, ("dtype blocks", sorted(CASES.items()))))
    assert _plain(_outcomes(engine)) == want
    # the cases the engine used to get wrong, as MXNet has them
    assert want["where_branches_differ"][1] == "MXNetError"
    assert want["softmax_int"] == ["MXNetError", "MXNetError"]
    assert want["sigmoid_int"][0][0] == "int32"
