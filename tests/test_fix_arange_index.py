"""HL001's row-wise pick rewrite (rules/hl001/row_picks.py), checked by running it.

`t[mx.nd.arange(t.shape[0]), idx]` -> `F.gather_nd(t, F.stack(arange_like(t, axis=0),
idx))`, both cast to int32 as NDArray indexing does: for random shapes, negative and
in-range indices, float and int index arrays, the original runs eagerly (the reference) and the
fix eagerly and hybridized; values, shapes and dtypes must be equal. On the bundled engine and,
marked `mxnet`, on real MXNet 1.9.1. The last test shows the unsafe side on real MXNet: an
index of shape (1,) broadcasts in the original and fails in the rewrite.
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fix_support
from fix_support import BACKENDS, backend_module, build, engine_gaps_skipped, fix_settings
from fix_support import fix_source, lint_source

SETTINGS = fix_settings(20)


def block_source(body: str) -> str:
    return fix_support.block_source(body, "x, ids", head="import mxnet as mx\n\n\n")


def fixed_source(source: str) -> str:
    findings = [f for f in lint_source(source) if f.code == "HL001"]
    assert findings and all(f.fix == "unsafe" for f in findings), (source, findings)
    fixed = fix_source(source, select=["HL001"], unsafe=True).source
    assert "F.gather_nd(" in fixed and ".shape" not in fixed, fixed
    return fixed


def run(source, mx, x, ids, hybridize):
    arrays = [mx.nd.array(x), mx.nd.array(ids, dtype=ids.dtype)]
    return fix_support.run(build(source, mx), arrays, hybridize)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    rows=st.integers(1, 5),
    trailing=st.lists(st.integers(1, 4), min_size=1, max_size=2).map(tuple),
    dtype=st.sampled_from(["int32", "float32", "int64"]),
    namespace=st.sampled_from(["mx.nd", "F"]),
    seed=st.integers(0, 2**16),
)
def test_row_wise_pick_equals_indexing(backend, rows, trailing, dtype, namespace, seed):
    mx = backend_module(backend)
    rng = np.random.RandomState(seed)
    x = rng.uniform(-3, 3, (rows,) + trailing).astype("float32")
    width = trailing[0]
    ids = rng.randint(-width, width, rows).astype(dtype)  # negative ones count from the end
    source = block_source(f"return x[{namespace}.arange(x.shape[0]), ids.reshape(-1)]")
    fixed = fixed_source(source)
    expected = run(source, mx, x, ids, hybridize=False)
    with engine_gaps_skipped(mx):
        for hybridize in (False, True):
            got = run(fixed, mx, x, ids, hybridize)
            assert got.shape == expected.shape and got.dtype == expected.dtype, fixed
            np.testing.assert_array_equal(got.asnumpy(), expected.asnumpy(), err_msg=fixed)


@pytest.mark.parametrize("backend", BACKENDS)
def test_out_of_range_index_fails_in_both(backend):
    mx = backend_module(backend)
    source = block_source("return x[mx.nd.arange(x.shape[0]), ids.reshape(-1)]")
    fixed = fixed_source(source)
    x, ids = np.zeros((2, 3), "float32"), np.array([0, 3], "int32")
    for code, hybridize in ((source, False), (fixed, False), (fixed, True)):
        with pytest.raises(Exception, match="out of bounds"):
            run(code, mx, x, ids, hybridize).asnumpy()


@pytest.mark.mxnet
def test_a_broadcast_index_is_why_the_rewrite_is_unsafe():
    """One index for every row: NDArray indexing broadcasts it, the stack in the rewrite
    cannot (MXNet 1.9.1)."""
    mx = pytest.importorskip("mxnet")
    source = block_source("return x[mx.nd.arange(x.shape[0]), ids.reshape(-1)]")
    fixed = fixed_source(source)
    x, ids = np.arange(6, dtype="float32").reshape(3, 2), np.array([1], "int32")
    assert run(source, mx, x, ids, hybridize=False).asnumpy().tolist() == [1.0, 3.0, 5.0]
    with pytest.raises(mx.base.MXNetError, match="shape"):
        run(fixed, mx, x, ids, hybridize=False).asnumpy()
