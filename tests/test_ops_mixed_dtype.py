"""Differential test of eager dtype checking: every op test case with two or more array inputs,
re-run with one input switched to another dtype (float64, int32), must raise in the engine
exactly when it raises in real MXNet 1.9.1, and give the same output dtypes when it succeeds.

MXNet runs each op's dtype inference before an imperative call, so `f32 + f64` is an error
there while numpy would silently promote; ops whose inputs legitimately differ (take's and
Embedding's indices, where's condition, one_hot...) must keep working. The cases are the ones
the per-family differential tests already build (valid shapes and parameters for each op).
"""

import numpy as np
import pytest

import test_engine_ops_core
import test_ops_fresh
from mxnet_record import reference
from ops_diff import as_list, lookup

import hybridlint.engine as mx

SWITCH_TO = (np.float64, np.int32)

_RNG = np.random.RandomState(3)
# ops with two or more inputs that no per-family case exercises
EXTRA = [
    (n, [_RNG.uniform(-1, 1, (2, 3)).astype(np.float32) for _ in range(2)], {})
    for n in ("_logical_and", "_logical_or", "_logical_xor")
]
# amp_multicast (whose inputs differ in dtype by design) is left out: MXNet 1.9.1's CPU build
# runs it through oneDNN, which rejects float64/float16 ("unknown type for MKLDNN") and
# segfaults on int32, so there is nothing to compare against.


def _variants():
    """(id, name, arrays, kwargs): one per (op, input count, switched input, dtype); the
    first test case of each op stands for it (dtype inference rarely depends on parameters,
    and the per-op cases differ mostly in shapes)."""
    seen = set()
    out = []
    for case in test_engine_ops_core.CASES + test_ops_fresh.CASES + EXTRA:
        name, arrays, kwargs = case[:3]
        if len(arrays) < 2:
            continue
        for i, a in enumerate(arrays):
            for dt in SWITCH_TO:
                if a.dtype == dt:
                    continue
                key = (name, len(arrays), i, np.dtype(dt).name)
                if key in seen:
                    continue
                seen.add(key)
                switched = list(arrays)
                switched[i] = a.astype(dt)
                out.append(
                    (
                        "{}-{}in-{}:{}".format(name, len(arrays), i, np.dtype(dt).name),
                        name,
                        switched,
                        kwargs,
                    )
                )
    return out


VARIANTS = _variants()


def _run(module, name, arrays, kwargs):
    """('ok', output dtypes) or ('error', exception type name); results are read so that
    MXNet's asynchronous kernel errors surface here."""
    try:
        res = lookup(module.nd, name)(
            *[module.nd.array(a, dtype=a.dtype) for a in arrays], **kwargs
        )
        outs = as_list(res)
        for o in outs:
            o.asnumpy()
        return "ok", [np.dtype(o.dtype).name for o in outs]
    except Exception as err:  # noqa: BLE001 - any failure counts as "raises"
        return "error", "{}: {}".format(type(err).__name__, str(err).splitlines()[-1][:200])


def test_variants_were_collected():
    assert len(VARIANTS) > 150


@pytest.mark.mxnet
@pytest.mark.parametrize("variant", VARIANTS, ids=[v[0] for v in VARIANTS])
def test_mixed_dtype_raises_as_in_mxnet(variant):
    _, name, arrays, kwargs = variant
    want = reference(lambda m: _run(m, name, arrays, kwargs), (name, arrays, kwargs), name)
    got = _run(mx, name, arrays, kwargs)
    if want[0] == "ok":
        assert got == want, "MXNet accepts these dtypes: {}".format(want)
    else:
        assert got[0] == "error", "MXNet raises {}".format(want[1])


def test_eager_error_wording():
    """The engine names the operator and ends with MXNet's own message."""
    a = mx.nd.ones((2, 3))
    d = mx.nd.ones((2, 3), dtype="float64")
    tail = (
        "Check failed: assign(&dattr, vec.at(i)): Incompatible attr in node  at 1-th "
        "input: expected float32, got float64"
    )
    for call, op in [
        (lambda: a + d, "broadcast_add"),
        (lambda: mx.nd.dot(a, d.T), "dot"),
        (lambda: mx.nd.elemwise_add(a, d), "elemwise_add"),
    ]:
        with pytest.raises(mx.base.MXNetError) as info:
            call()
        assert str(info.value) == "Error in operator {}: {}".format(op, tail)
    with pytest.raises(mx.base.MXNetError, match="at 2-th input: expected float32, got float64"):
        mx.nd.where(mx.nd.ones((2, 3), dtype="int32"), a, d)
    with pytest.raises(mx.base.MXNetError, match="expected float64, got float32"):
        mx.nd.FullyConnected(d, a, mx.nd.ones((2,)), num_hidden=2)


@pytest.mark.parametrize(
    "expr",
    [
        "a + d",
        "a - d",
        "a * i",
        "a / d",
        "a % d",
        "a ** d",
        "a == d",
        "a != d",
        "a > d",
        "a >= d",
        "a < d",
        "a <= d",
        "d + a",
        "i * a",
    ],
)
def test_mixed_dtype_operators_raise(expr):
    env = {
        "a": mx.nd.ones((2, 3)),
        "d": mx.nd.ones((2, 3), dtype="float64"),
        "i": mx.nd.ones((2, 3), dtype="int32"),
    }
    with pytest.raises(mx.base.MXNetError, match="Incompatible attr in node  at 1-th input"):
        eval(expr, {}, env)


@pytest.mark.parametrize("stmt", ["a += d", "a -= i", "a *= d", "a /= d", "a %= d"])
def test_mixed_dtype_inplace_operators_raise(stmt):
    env = {
        "a": mx.nd.ones((2, 3)),
        "d": mx.nd.ones((2, 3), dtype="float64"),
        "i": mx.nd.ones((2, 3), dtype="int32"),
    }
    with pytest.raises(mx.base.MXNetError, match="Incompatible attr in node  at 1-th input"):
        exec(stmt, {}, env)
    assert (env["a"].asnumpy() == 1).all()  # nothing was written


def test_scalars_and_index_inputs_keep_working():
    """Scalars take the array's dtype; index and condition inputs may differ in dtype."""
    a = mx.nd.ones((2, 3))
    i = mx.nd.ones((2, 3), dtype="int32")
    assert (a + 1.5).dtype == np.float32
    assert (i + 1.5).dtype == np.int32 and (i / 2).dtype == np.int32
    idx = mx.nd.array([0, 1], dtype="int32")
    assert mx.nd.take(a, idx).dtype == np.float32
    assert mx.nd.Embedding(idx, a, input_dim=2, output_dim=3).dtype == np.float32
    assert mx.nd.pick(a, idx, axis=1).dtype == np.float32
    assert mx.nd.one_hot(idx, 3).dtype == np.float32
    assert mx.nd.where(i, a, a).dtype == np.float32
