"""Shared helpers of the tests/test_ops_*.py differential tests: run one op on the same inputs
through real MXNet 1.9.1 and through the engine, eagerly (mx.nd.X) and as a graph (mx.sym.X
compiled by the engine's executor via CachedOp; bound with aux states in real MXNet), and
compare shapes, dtypes and values (rtol 1e-5, atol 1e-6 unless a case says otherwise).
Real MXNet's side goes through mxnet_record.reference: live when MXNet is importable, its
recorded results (tests/recordings/) otherwise."""

import json

import numpy as np

import hybridlint.engine as mx
from mxnet_record import reference

RTOL, ATOL = 1e-5, 1e-6


def rand(rng, *shape, low=-2.0, high=2.0, dtype=np.float32):
    return rng.uniform(low, high, size=shape).astype(dtype)


def case_id(case):
    name, arrays, kwargs = case[:3]
    return "{}-{}-{}".format(
        name,
        "x".join(str(tuple(a.shape)) for a in arrays),
        ",".join("%s=%s" % kv for kv in sorted(kwargs.items())),
    )


def lookup(module, name):
    if name.startswith("_contrib_"):
        return getattr(module.contrib, name[len("_contrib_") :])
    if name.startswith("_"):
        return getattr(module._internal, name)
    return getattr(module, name)


def as_list(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def _np(a):
    """An output as numpy: engine or MXNet NDArray (live), or a recorded numpy array."""
    return a.asnumpy() if hasattr(a, "asnumpy") else np.asarray(a)


def assert_same(got, want, n_compare=None, rtol=RTOL, atol=ATOL):
    got, want = as_list(got), as_list(want)
    assert len(got) == len(want), (len(got), len(want))
    for i, (g, w) in enumerate(zip(got, want)):
        if n_compare is not None and i >= n_compare:
            break
        w = _np(w)
        assert g.shape == w.shape, (i, g.shape, w.shape)
        assert np.dtype(g.dtype) == np.dtype(w.dtype), (i, g.dtype, w.dtype)
        np.testing.assert_allclose(_np(g), w, rtol=rtol, atol=atol, equal_nan=True)


def eager_reference(name, arrays, kwargs):
    """Real MXNet's outputs of mx.nd.<name>(*arrays, **kwargs) (live or recorded)."""
    return reference(
        lambda m: as_list(
            lookup(m.nd, name)(*[m.nd.array(a, dtype=a.dtype) for a in arrays], **kwargs)
        ),
        ("eager", name, arrays, kwargs),
        "eager " + name,
    )


def check_eager(mx_real, name, arrays, kwargs, n_compare=None, rtol=RTOL, atol=ATOL):
    """`mx_real` is unused (kept for callers): the reference comes from mxnet_record, live
    when MXNet is importable, recorded otherwise."""
    want = eager_reference(name, arrays, kwargs)
    got = lookup(mx.nd, name)(*[mx.nd.array(a, dtype=a.dtype) for a in arrays], **kwargs)
    assert_same(got, want, n_compare, rtol, atol)


def _bound_outputs(m, sym, feed, arguments, aux):
    args = {n: m.nd.array(feed[n], dtype=feed[n].dtype) for n in arguments}
    aux = {n: m.nd.array(feed[n], dtype=feed[n].dtype) for n in aux}
    return sym.bind(m.cpu(), args=args, aux_states=aux, grad_req="null").forward(is_train=False)


def _graph_facts(m, name, names, feed, kwargs):
    """Real MXNet's view of the op as a graph node, as plain data."""
    with m.name.NameManager():
        sym = lookup(m.sym, name)(*[m.sym.var(n) for n in names], **kwargs)
    return {
        "arguments": sym.list_arguments(),
        "outputs": sym.list_outputs(),
        "aux": sym.list_auxiliary_states(),
        "json": sym.tojson(),
        "shapes": sym.infer_shape(**{n: a.shape for n, a in feed.items()}),
        "forward": _bound_outputs(m, sym, feed, sym.list_arguments(), sym.list_auxiliary_states()),
    }


def check_graph(mx_real, name, arrays, kwargs, n_compare=None, rtol=RTOL, atol=ATOL):
    """The op as a graph node: list_arguments/outputs/aux, inferred shapes and the compiled
    plan's results agree with real MXNet's bound executor, and the engine's JSON export runs
    in real MXNet with the same results. (`mx_real` is unused, as in check_eager.)"""
    names = ["x%d" % i for i in range(len(arrays))]
    feed = dict(zip(names, arrays))
    want_g = reference(
        lambda m: _graph_facts(m, name, names, feed, kwargs),
        ("graph", name, arrays, kwargs),
        "graph " + name,
    )
    with mx.name.NameManager():
        got_sym = lookup(mx.sym, name)(*[mx.sym.var(n) for n in names], **kwargs)
    got_json = got_sym.tojson()
    # real MXNet runs the engine's exported graph (names, attribute strings): recorded with
    # the engine's JSON as input, so a changed export needs a new recording, never passes
    again = reference(
        lambda m: _bound_outputs(
            m, m.sym.load_json(got_json), feed, want_g["arguments"], want_g["aux"]
        ),
        ("export", got_json, arrays, want_g["arguments"], want_g["aux"]),
        "real MXNet running the engine's exported JSON of " + name,
    )
    assert got_sym.list_arguments() == want_g["arguments"]
    assert got_sym.list_outputs() == want_g["outputs"]
    assert got_sym.list_auxiliary_states() == want_g["aux"]
    # exported graphs count the same (hidden) outputs per node
    assert json.loads(got_json)["node_row_ptr"] == json.loads(want_g["json"])["node_row_ptr"]
    shapes = {n: a.shape for n, a in feed.items()}
    got_shapes = got_sym.infer_shape(**shapes)
    assert [list(map(tuple, s)) for s in got_shapes] == [
        list(map(tuple, s)) for s in want_g["shapes"]
    ]
    want = want_g["forward"]
    op = mx.nd.CachedOp(got_sym)
    got = op(*[mx.nd.array(feed[n], dtype=feed[n].dtype) for n in got_sym.list_inputs()])
    assert_same(got, want, n_compare, rtol, atol)
    for a, w in list(zip(again, want))[:n_compare]:
        np.testing.assert_allclose(_np(a), _np(w), rtol=rtol, atol=atol, equal_nan=True)
    # and real MXNet's JSON loads in the engine (its attribute strings parse) and runs alike
    imported = mx.sym.load_json(want_g["json"])
    assert imported.list_inputs() == got_sym.list_inputs()
    assert_same(
        mx.nd.CachedOp(imported)(
            *[mx.nd.array(feed[n], dtype=feed[n].dtype) for n in imported.list_inputs()]
        ),
        want,
        n_compare,
        rtol,
        atol,
    )


def check_both(case):
    """Eager and graph comparison of one (name, arrays, kwargs[, n_compare]) case, against
    real MXNet when it is importable and its recorded results otherwise."""
    name, arrays, kwargs = case[:3]
    n_compare = case[3] if len(case) > 3 else None
    check_eager(None, name, arrays, kwargs, n_compare)
    check_graph(None, name, arrays, kwargs, n_compare)


def engine_shapes(name, shapes, **kwargs):
    """Engine-only: (arg shapes, out shapes, aux shapes) of mx.sym.X(data) with only the
    given named input shapes known (the others are inferred backward, as gluon needs)."""
    with mx.name.NameManager():
        sym = lookup(mx.sym, name)(mx.sym.var("data"), **kwargs)
    return sym, sym.infer_shape(**shapes)
