"""slice (begin/end/step with None and negatives) and broadcast_* shape rules, property-tested
against real MXNet 1.9.1: same success or failure, same shapes, same values."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import hybridlint.engine as mx

bound = st.one_of(st.none(), st.integers(-6, 6))
step = st.one_of(st.none(), st.sampled_from([1, 2, -1, -2, 3]))


def _flush(lib):
    """MXNet raises kernel errors asynchronously, at a later sync point: flush them so that
    each outcome belongs to its own call."""
    try:
        lib.nd.waitall()
    except Exception:  # noqa: BLE001 - a previous call's deferred error
        pass


def _outcome(fn, lib=mx):
    _flush(lib)
    try:
        out = fn().asnumpy()
        lib.nd.waitall()
        return ("ok", out)
    except Exception as err:  # noqa: BLE001 - only the kind of failure is compared
        return ("error", "MXNetError" if "MXNetError" in type(err).__name__ else type(err).__name__)


@pytest.mark.mxnet
@settings(max_examples=120, deadline=None)
@given(
    shape=st.lists(st.integers(1, 5), min_size=1, max_size=3),
    spec=st.lists(st.tuples(bound, bound, step), min_size=1, max_size=3),
)
def test_slice_matches_mxnet(shape, spec):
    """Shapes from MXNet's (synchronous) symbolic inference, values from its eager op. MXNet
    1.9.1 clips out-of-range begin/end like Python, except that its MKL-DNN path fails a
    float32 slice of rank 1, 2 or 4 with unit steps whose negative begin reaches before an
    axis ("could not
    construct a sub-memory", also hybridized): the engine fails there too, since a rewrite of
    `x[-k:]` as a slice must not be proven where MXNet fails. (Empty results, where the eager
    path fails as well, are left out.)"""
    m = pytest.importorskip("mxnet")
    spec = spec[: len(shape)]
    begin = tuple(s[0] for s in spec)
    end = tuple(s[1] for s in spec)
    steps = tuple(s[2] for s in spec)
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    assume(all(st_ != 0 for st_ in steps if st_ is not None))
    expect = data[tuple(slice(b, e, st_) for b, e, st_ in spec)]
    assume(expect.size > 0)
    sym = m.sym.slice(m.sym.var("a"), begin=begin, end=end, step=steps)
    want_shape = sym.infer_shape(a=tuple(shape))[1][0]
    want = _outcome(lambda: m.nd.slice(m.nd.array(data), begin=begin, end=end, step=steps), m)
    outcome = _outcome(lambda: mx.nd.slice(mx.nd.array(data), begin=begin, end=end, step=steps), mx)
    assert outcome[0] == want[0], (outcome, want)
    if want[0] == "ok":
        assert outcome[1].shape == want_shape == expect.shape
        np.testing.assert_array_equal(outcome[1], want[1])
    with mx.name.NameManager():
        s = mx.sym.slice(mx.sym.var("a"), begin=begin, end=end, step=steps)
    assert s.infer_shape(a=tuple(shape))[1][0] == want_shape


@pytest.mark.mxnet
@settings(max_examples=120, deadline=None)
@given(
    a=st.lists(st.integers(1, 3), min_size=1, max_size=3),
    b=st.lists(st.integers(1, 3), min_size=1, max_size=3),
)
def test_broadcast_and_elemwise_shapes_match_mxnet(a, b):
    m = pytest.importorskip("mxnet")
    x = np.random.rand(*a).astype(np.float32)
    y = np.random.rand(*b).astype(np.float32)
    for name in ("broadcast_add", "elemwise_add"):
        want = _outcome(_nd_op(m.nd, name, x, y), m)
        got = _outcome(_nd_op(mx.nd, name, x, y))
        assert got[0] == want[0], name
        if want[0] == "ok":
            np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
        with mx.name.NameManager():
            s = getattr(mx.sym, name)(mx.sym.var("x"), mx.sym.var("y"))
        ms = getattr(m.sym, name)(m.sym.var("x"), m.sym.var("y"))
        w = _outcome_shape(_inferred(ms, a, b))
        g = _outcome_shape(_inferred(s, a, b))
        assert g == w, name


def _nd_op(nd, name, x, y):
    """`nd.<name>` of the numpy arrays x and y, as arrays of that nd."""
    return lambda: getattr(nd, name)(nd.array(x), nd.array(y))


def _inferred(sym, a, b):
    """The output shapes of `sym` on inputs x, y of shapes a, b."""
    return lambda: sym.infer_shape(x=tuple(a), y=tuple(b))[1]


def _outcome_shape(fn):
    try:
        return ("ok", fn())
    except Exception:  # noqa: BLE001
        return ("error",)
