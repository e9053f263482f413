"""Shared helpers of the tests/test_ops_*.py differential tests: run one op on the same inputs
through real MXNet 1.9.1 and through the engine, eagerly (mx.nd.X) and as a graph (mx.sym.X
compiled by the engine's executor via CachedOp; bound with aux states in real MXNet), and
compare shapes, dtypes and values (rtol 1e-5, atol 1e-6 unless a case says otherwise)."""
import json

import numpy as np
import pytest

import hybridlint.engine as mx

RTOL, ATOL = 1e-5, 1e-6


def rand(rng, *shape, low=-2.0, high=2.0, dtype=np.float32):
    return rng.uniform(low, high, size=shape).astype(dtype)


def case_id(case):
    name, arrays, kwargs = case[:3]
    return "{}-{}-{}".format(name, "x".join(str(tuple(a.shape)) for a in arrays),
                             ",".join("%s=%s" % kv for kv in sorted(kwargs.items())))


def lookup(module, name):
    if name.startswith("_contrib_"):
        return getattr(module.contrib, name[len("_contrib_"):])
    if name.startswith("_"):
        return getattr(module._internal, name)
    return getattr(module, name)


def as_list(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def assert_same(got, want, n_compare=None, rtol=RTOL, atol=ATOL):
    got, want = as_list(got), as_list(want)
    assert len(got) == len(want), (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        if n_compare is not None and i >= n_compare:
            break
        assert g.shape == w.shape, (i, g.shape, w.shape)
        assert np.dtype(g.dtype) == np.dtype(w.dtype), (i, g.dtype, w.dtype)
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=rtol, atol=atol,
                                   equal_nan=True)


def check_eager(mx_real, name, arrays, kwargs, n_compare=None, rtol=RTOL, atol=ATOL):
    want = lookup(mx_real.nd, name)(*[mx_real.nd.array(a, dtype=a.dtype) for a in arrays],
                                    **kwargs)
    got = lookup(mx.nd, name)(*[mx.nd.array(a, dtype=a.dtype) for a in arrays], **kwargs)
    assert_same(got, want, n_compare, rtol, atol)


def check_graph(mx_real, name, arrays, kwargs, n_compare=None, rtol=RTOL, atol=ATOL):
    """The op as a graph node: list_arguments/outputs/aux, inferred shapes and the compiled
    plan's results agree with real MXNet's bound executor, and the engine's JSON export runs
    in real MXNet with the same results."""
    names = ["x%d" % i for i in range(len(arrays))]
    with mx_real.name.NameManager():
        want_sym = lookup(mx_real.sym, name)(*[mx_real.sym.var(n) for n in names], **kwargs)
    with mx.name.NameManager():
        got_sym = lookup(mx.sym, name)(*[mx.sym.var(n) for n in names], **kwargs)
    assert got_sym.list_arguments() == want_sym.list_arguments()
    assert got_sym.list_outputs() == want_sym.list_outputs()
    assert got_sym.list_auxiliary_states() == want_sym.list_auxiliary_states()
    # exported graphs count the same (hidden) outputs per node
    assert json.loads(got_sym.tojson())["node_row_ptr"] == \
        json.loads(want_sym.tojson())["node_row_ptr"]
    feed = dict(zip(names, arrays))
    shapes = {n: a.shape for n, a in feed.items()}
    want_shapes = want_sym.infer_shape(**shapes)
    got_shapes = got_sym.infer_shape(**shapes)
    assert [list(map(tuple, s)) for s in got_shapes] == \
        [list(map(tuple, s)) for s in want_shapes]
    args = {n: mx_real.nd.array(feed[n], dtype=feed[n].dtype)
            for n in want_sym.list_arguments()}
    aux = {n: mx_real.nd.array(feed[n], dtype=feed[n].dtype)
           for n in want_sym.list_auxiliary_states()}
    exe = want_sym.bind(mx_real.cpu(), args=args, aux_states=aux, grad_req="null")
    want = exe.forward(is_train=False)
    op = mx.nd.CachedOp(got_sym)
    got = op(*[mx.nd.array(feed[n], dtype=feed[n].dtype) for n in got_sym.list_inputs()])
    assert_same(got, want, n_compare, rtol, atol)
    # the engine's exported graph (names, attribute strings) loads and runs in real MXNet
    exported = mx_real.sym.load_json(got_sym.tojson())
    again = exported.bind(mx_real.cpu(), args=args, aux_states=aux, grad_req="null").forward(
        is_train=False)
    for a, w in list(zip(again, want))[:n_compare]:
        np.testing.assert_allclose(a.asnumpy(), w.asnumpy(), rtol=rtol, atol=atol,
                                   equal_nan=True)
    # and real MXNet's JSON loads in the engine (its attribute strings parse) and runs alike
    imported = mx.sym.load_json(want_sym.tojson())
    assert imported.list_inputs() == got_sym.list_inputs()
    assert_same(mx.nd.CachedOp(imported)(*[mx.nd.array(feed[n], dtype=feed[n].dtype)
                                            for n in imported.list_inputs()]),
                want, n_compare, rtol, atol)


def check_both(case):
    """Eager and graph comparison of one (name, arrays, kwargs[, n_compare]) case."""
    mx_real = pytest.importorskip("mxnet")
    name, arrays, kwargs = case[:3]
    n_compare = case[3] if len(case) > 3 else None
    check_eager(mx_real, name, arrays, kwargs, n_compare)
    check_graph(mx_real, name, arrays, kwargs, n_compare)


def engine_shapes(name, shapes, **kwargs):
    """Engine-only: (arg shapes, out shapes, aux shapes) of mx.sym.X(data) with only the
    given named input shapes known (the others are inferred backward, as gluon needs)."""
    with mx.name.NameManager():
        sym = lookup(mx.sym, name)(mx.sym.var("data"), **kwargs)
    return sym, sym.infer_shape(**shapes)
