"""The NDArray-only functions' rewrites (HL015's `F.equal(a, b)`, HL006's `nd.equal(a, b)`, one
table: hybridlint/mxnet_facts.py) and HL006's nested fixes, on the engine and on MXNet 1.9.1.

For each mapped name the original block runs eagerly (where `F` is `mx.nd`, so `F.equal` is the
NDArray-only function itself: the reference); the block the rule rewrote runs eagerly and
hybridized, and values, shapes and dtypes must equal the reference. The originals fail
hybridized (checked on MXNet: AttributeError for `F.<name>`).
"""

import importlib.util

import numpy as np
import pytest

import fix_support
from fix_support import BACKENDS, engine_gaps_skipped, fix_source, lint_source
from fix_support import backend_module as backend
from hybridlint.rules import ALL_RULES
from hybridlint.mxnet_facts import BINARY, NDARRAY_ONLY

RULES = {rule.code: rule for rule in ALL_RULES}
HEAD = "import mxnet as mx\nfrom mxnet import nd\n\n\n"


def source_of(body, inputs="x, y"):
    return fix_support.block_source(body, inputs=inputs, head=HEAD)


def outputs(source, lib, arrays, hybridize):
    net = fix_support.build(source, lib, names=("mx", "nd"))()
    net.initialize()
    if hybridize:
        net.hybridize()
    with engine_gaps_skipped(lib):
        out = net(*[lib.nd.array(a) for a in arrays])
    return [o.asnumpy() for o in (out if isinstance(out, (list, tuple)) else [out])]


def check(code, source, lib, arrays, safety="safe", values=True):
    """`source` is reported by `code` with a fix of `safety`; the fixed block equals the
    original's eager outputs eagerly and hybridized (only shapes and dtypes with values=False)."""
    findings = [f for f in lint_source(source, rules=[RULES[code]]) if f.code == code]
    assert findings and findings[0].fix == safety, findings
    fixed = fix_source(source, rules=[RULES[code]], unsafe=True).source
    assert fixed != source, "the rule did not rewrite the case"
    want = outputs(source, lib, arrays, False)
    for hybridize in (False, True):
        got = outputs(fixed, lib, arrays, hybridize)
        assert [(g.shape, g.dtype) for g in got] == [(w.shape, w.dtype) for w in want], fixed
        if values:
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w, err_msg=fixed)
    return fixed


X = np.array([[0.5, -1.0, 2.0], [3.0, 2.0, -0.5]], dtype="float32")
Y = np.array([[2.0, -1.0, 1.5]], dtype="float32")  # broadcasts against X


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("op", sorted(BINARY))
@pytest.mark.parametrize("namespace, code", [("F", "HL015"), ("nd", "HL006")])
def test_binary_of_two_tensors_is_the_broadcast_operator(name, op, namespace, code):
    lib = backend(name)
    source = source_of(f"a = F.relu(x)\nb = F.relu(y)\nreturn {namespace}.{op}(a, b)")
    fixed = check(code, source, lib, [X, Y])
    assert f"F.{BINARY[op][0]}(a, b)" in fixed


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("op", sorted(op for op in BINARY if BINARY[op][1] is not None))
@pytest.mark.parametrize("scalar", ["2", "-0.5", "3"])
@pytest.mark.parametrize("dtype", ["float32", "int32"])
@pytest.mark.parametrize("tensor_first", [True, False])
def test_binary_of_a_tensor_and_a_number_is_the_python_operator(
    name, op, scalar, dtype, tensor_first
):
    if dtype == "int32" and "." in scalar and op in ("divide", "true_divide", "modulo"):
        return  # -0.5 is 0 for an int32 tensor: the original dies of SIGFPE (no reference)
    lib = backend(name)
    operands = ("a", scalar) if tensor_first else (scalar, "a")
    source = source_of(
        f"a = F.relu(x).astype('{dtype}') + 1\nreturn F.{op}({operands[0]}, {operands[1]})",
        inputs="x",
    )
    fixed = check("HL015", source, lib, [X])
    assert f"F.{op}" not in fixed and BINARY[op][1] in fixed


@pytest.mark.parametrize("op", sorted(op for op in BINARY if BINARY[op][1] is None))
def test_logical_of_a_number_is_reported_without_a_fix(op):
    # a Symbol has no `&`; its scalar operators refuse a bool: no exact spelling
    source = source_of(f"return F.{op}(F.relu(x), 1)", inputs="x")
    findings = lint_source(source, rules=[RULES["HL015"]])
    assert [(f.code, f.fix) for f in findings] == [("HL015", None)]


def test_a_number_that_is_not_a_literal_makes_the_operator_form_unsafe():
    # `self.k` may be a bool, which a Symbol's scalar operators refuse (checked below on MXNet)
    source = (
        "class Net(HybridBlock):\n    def __init__(self, k=2.0):\n        super().__init__()\n"
        "        self.k = k\n\n    def hybrid_forward(self, F, x):\n"
        "        return F.multiply(F.relu(x), self.k)\n"
    )
    findings = lint_source(source, rules=[RULES["HL015"]])
    assert [(f.code, f.fix) for f in findings] == [("HL015", "unsafe")]


@pytest.mark.mxnet
def test_mxnet_a_symbol_refuses_a_bool_scalar_which_the_ndarray_helper_takes():
    mx = pytest.importorskip("mxnet")
    assert mx.nd.multiply(mx.nd.ones((2,)), True).asnumpy().tolist() == [1.0, 1.0]
    with pytest.raises(mx.base.MXNetError, match="Invalid Parameter format for scalar"):
        mx.sym.var("x") * True  # noqa: B018


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (1, 2, 1, 3)])
@pytest.mark.parametrize("namespace, code", [("F", "HL015"), ("nd", "HL006")])
def test_concatenate_is_concat_with_the_axis_as_dim(name, shape, namespace, code):
    lib = backend(name)
    x = np.arange(np.prod(shape), dtype="float32").reshape(shape) - 3
    for axis in [None] + list(range(len(shape))):
        given = "" if axis is None else f", axis={axis}"
        source = source_of(f"return {namespace}.concatenate([F.relu(x), y * 2, x]{given})")
        fixed = check(code, source, lib, [x, x + 1])
        assert f"dim={0 if axis is None else axis}" in fixed
        # a list held by a name: `*arrays`
        source = source_of(f"parts = [x, F.relu(y)]\nreturn F.concatenate(parts{given})")
        fixed = check("HL015", source, lib, [x, x + 1])
        assert "F.concat(*parts" in fixed


def test_concatenate_with_a_negative_axis_is_reported_only():
    source = source_of("return F.concatenate([F.relu(x), y], axis=-1)")
    findings = lint_source(source, rules=[RULES["HL015"]])
    assert [(f.code, f.fix) for f in findings] == [("HL015", None)]


@pytest.mark.mxnet
def test_mxnet_concatenate_with_a_negative_axis_is_wrong_eagerly_which_is_why_it_is_not_fixed():
    mx = pytest.importorskip("mxnet")
    a = mx.nd.ones((2, 3))
    with pytest.raises(Exception):  # noqa: B017 - the helper slices shapes with -1
        mx.nd.concatenate([a, a], axis=-1).asnumpy()
    assert mx.nd.concat(a, a, dim=-1).shape == (2, 6)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (2, 1, 3, 4)])
def test_moveaxis_of_a_known_rank_is_transpose(name, shape):
    lib = backend(name)
    n = len(shape)
    x = np.arange(np.prod(shape), dtype="float32").reshape(shape)
    for source_axis in range(-n, n):
        for destination in range(-n, n):
            body = f"z = x.reshape({shape!r})\nreturn F.moveaxis(z, {source_axis}, {destination})"
            fixed = check("HL015", source_of(body, inputs="x"), lib, [x])
            assert "F.transpose(z, axes=" in fixed


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("shape", [(2, 3), (2, 3, 4), (2, 1, 3, 4)])
@pytest.mark.parametrize("pair", [(0, 1), (1, 0), (1, 2), (2, 1), (-1, -2), (-2, -1), (-3, -2)])
def test_moveaxis_to_a_neighbouring_axis_of_any_rank_is_swapaxes(name, shape, pair):
    lib = backend(name)
    if max(pair) >= len(shape) or min(pair) < -len(shape):
        return
    x = np.arange(np.prod(shape), dtype="float32").reshape(shape)
    body = f"return F.moveaxis(F.relu(x), {pair[0]}, {pair[1]})"
    fixed = check("HL015", source_of(body, inputs="x"), lib, [x])
    assert "F.swapaxes(" in fixed


def test_moveaxis_of_an_unknown_rank_and_far_axes_is_reported_only():
    source = source_of("return F.moveaxis(F.relu(x), 0, 2)", inputs="x")
    findings = lint_source(source, rules=[RULES["HL015"]])
    assert [(f.code, f.fix) for f in findings] == [("HL015", None)]


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("dtype", [None, "float16", "int32"])
def test_empty_is_zeros_of_the_same_shape_and_dtype_unsafe(name, dtype):
    lib = backend(name)
    given = "" if dtype is None else f", dtype='{dtype}'"
    source = source_of(f"return F.empty((2, 3){given}), F.relu(x)", inputs="x")
    # uninitialised memory: only the shape and dtype are the helper's
    check("HL015", source, lib, [X], safety="unsafe", values=False)


@pytest.mark.parametrize("name", BACKENDS)
@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite"])
def test_contrib_float_class_tests(name, op):
    lib = backend(name)
    x = np.array([[0.0, np.nan, np.inf], [-np.inf, 1.0, -2.5]], dtype="float32")
    source = source_of(f"z = F.relu(x) - x\nreturn F.contrib.{op}(z) + 0", inputs="x")
    check("HL015", source, lib, [x])


@pytest.mark.parametrize("name", BACKENDS)
def test_hl006_nested_and_chained_eager_calls_are_all_fixed_in_one_run(name):
    lib = backend(name)
    body = (
        "s = nd.sum(nd.square(x - y), axis=1)\n"
        "t = nd.log1p(nd.exp(s))\n"
        "return nd.broadcast_add(nd.expand_dims(t, axis=1), nd.equal(x, y))"
    )
    source = source_of(body)
    findings = lint_source(source, rules=[RULES["HL006"]])
    assert len(findings) == 7 and all(f.fix == "safe" for f in findings), findings
    fixed = check("HL006", source, lib, [X, X * 2])
    assert "nd." not in fixed


def test_the_ndarray_only_set_is_mxnet_public_functions_mx_sym_lacks():
    assert {"equal", "concatenate", "moveaxis", "onehot_encode", "empty"} <= NDARRAY_ONLY[""]
    assert "array" not in NDARRAY_ONLY[""]  # HL005's
    assert not NDARRAY_ONLY[""] & {"relu", "concat", "broadcast_equal", "NDArray", "utils"}
    assert {"isnan", "isinf", "isfinite"} <= NDARRAY_ONLY["contrib"]


@pytest.mark.mxnet
@pytest.mark.skipif(importlib.util.find_spec("mxnet") is None, reason="needs real MXNet")
def test_mxnet_the_ndarray_only_set_matches_the_installed_mxnet():
    import inspect

    import mxnet as mx

    def functions(module):
        return {
            n
            for n in dir(module)
            if not n.startswith("_")
            and callable(getattr(module, n))
            and not inspect.isclass(getattr(module, n))
            and not inspect.ismodule(getattr(module, n))
        }

    assert NDARRAY_ONLY[""] | {"array"} == functions(mx.nd) - set(dir(mx.sym))
    assert NDARRAY_ONLY["contrib"] == functions(mx.nd.contrib) - set(dir(mx.sym.contrib))
    for op in ("equal", "concatenate", "moveaxis"):
        with pytest.raises(AttributeError, match=f"has no attribute '{op}'"):
            getattr(mx.sym, op)


ZERO_D = (
    "label = x.reshape(F.relu(x).shape) if F is mx.nd else x.reshape(())\nreturn F.relu(x) * label"
)


def test_hl011_reports_a_zero_d_reshape_of_a_one_sided_guard_with_reshape_like():
    findings = lint_source(source_of(ZERO_D, inputs="x"), rules=[RULES["HL011"]])
    # unsafe: F.reshape_like copies where the eager branch's reshape made a view of x
    assert [(f.code, f.line, f.fix) for f in findings] == [("HL011", 7, "unsafe")]


@pytest.mark.parametrize("name", BACKENDS)
def test_hl011_reshape_like_keeps_the_eager_branch_in_both_modes(name):
    fixed = check("HL011", source_of(ZERO_D, inputs="x"), backend(name), [X], "unsafe")
    assert "F.reshape_like(x, F.relu(x))" in fixed


@pytest.mark.mxnet
def test_mxnet_a_zero_d_reshape_works_eagerly_and_fails_hybridized():
    mx = pytest.importorskip("mxnet")
    source = source_of(ZERO_D, inputs="x")
    assert outputs(source, mx, [X], False)[0].shape == X.shape
    with pytest.raises(mx.base.MXNetError, match="0 dimensions|Incompatible attr"):
        outputs(source, mx, [X], True)
