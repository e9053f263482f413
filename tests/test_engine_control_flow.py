"""contrib.foreach, while_loop and cond on the engine, differential against real MXNet 1.9.1
(recorded in tests/recordings/test_engine_control_flow.npz): eagerly Python control flow, on
Symbols a `_foreach` / `_while_loop` / `_cond` node holding the traced subgraphs (values,
nesting of the returned outputs and states, shape and type inference, graph JSON both ways),
and in hybridized gluon blocks (an LSTM cell as foreach's body: gluonnlp's BiLMEncoder)."""

import re

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.checker import Example, check_source
from mxnet_record import reference
from tests.checker_support import backend_params

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 2, 3)).astype(np.float32)
S = RNG.standard_normal((2, 3)).astype(np.float32)
W = RNG.standard_normal((3,)).astype(np.float32)


def _shape_of(value):
    """Nesting and shapes of what foreach returned: ('NDArray', shape) / ('Symbol', outputs)."""
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [_shape_of(v) for v in value]]
    if type(value).__name__ == "NDArray":
        return ["NDArray", list(value.shape)]
    return [type(value).__name__, value.list_outputs()]


def _eager(m):
    x, s, w = m.nd.array(X), m.nd.array(S), m.nd.array(W)
    single = m.nd.contrib.foreach(lambda d, st: (d * w, st + d), x, s)
    lists = m.nd.contrib.foreach(
        lambda d, st: ([d[0], d[1] + st[0]], [st[0] * 0.5 + d[0]]), [x, x], [s]
    )
    nested = m.nd.contrib.foreach(
        lambda d, st: (d[0] - d[1], [[st[0][0] + d[0]], st[1]]), [x, x * 2], [[s], s]
    )
    return {
        "single": single,
        "lists": lists,
        "nested": nested,
        "nesting": [_shape_of(r) for r in (single, lists, nested)],
    }


def _flat(value):
    if isinstance(value, (list, tuple)):
        return [a for v in value for a in _flat(v)]
    return [value.asnumpy() if hasattr(value, "asnumpy") else value]


@pytest.mark.mxnet
def test_eager_foreach_matches_mxnet():
    want = reference(_eager, ("eager foreach", X, S, W))
    got = _eager(mx)
    assert got["nesting"] == want["nesting"]
    for key in ("single", "lists", "nested"):
        wants, gots = _flat(want[key]), _flat(got[key])
        assert len(gots) == len(wants), key
        for g, w in zip(gots, wants):
            np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=key)


def _normalized(json_text):
    """The graph JSON with the process-wide subgraph counter (MXNet's AttrScope keeps one per
    process, so it depends on which tests ran before) set to 0."""
    return re.sub(r'("__subgraph_name__": "[a-z_]+?)\d+"', r'\g<1>0"', json_text)


def _graph(m):
    """A loop whose body multiplies by a Symbol of the enclosing graph (cut out as an input)
    and carries two states, one returned unchanged (passed through identity)."""
    with m.name.NameManager():
        x, s, w = m.sym.var("x"), m.sym.var("s"), m.sym.var("w")
        outer = m.sym.relu(w, name="outer")

        def body(d, st):
            return d * 2 + outer, [st[0] + d, st[1]]

        out, states = m.sym.contrib.foreach(body, x, [s, w])
        single_out, single_state = m.sym.contrib.foreach(lambda d, st: (d, st * d), x, s)
        group = m.sym.Group([out] + states + [single_out, single_state])
    return group, [_shape_of(v) for v in (out, states, single_out, single_state)]


def _symbolic(m):
    group, nesting = _graph(m)
    arg_shapes, out_shapes, _ = group.infer_shape(x=X.shape, s=S.shape, w=S.shape)
    args = {"x": X, "s": S, "w": S[::-1] - 0.5}
    outs = group.eval(ctx=m.cpu(), **{k: m.nd.array(v) for k, v in args.items()})
    return {
        "nesting": nesting,
        "arguments": group.list_arguments(),
        "outputs": group.list_outputs(),
        "arg_shapes": arg_shapes,
        "out_shapes": out_shapes,
        "types": [
            np.dtype(t).name for t in group.infer_type(x="float64", s="float64", w="float64")[1]
        ],
        "values": outs,
        "json": _normalized(group.tojson()),
    }


@pytest.mark.mxnet
def test_symbolic_foreach_matches_mxnet():
    want = reference(_symbolic, ("symbolic foreach", X, S, W))
    got = _symbolic(mx)
    for key in ("nesting", "arguments", "outputs", "arg_shapes", "out_shapes", "types"):
        assert got[key] == want[key], key
    for g, w in zip(got["values"], want["values"]):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6)
    assert got["json"] == want["json"]
    assert '"subgraphs"' in got["json"]


def _run_json(m, text):
    sym = m.sym.load_json(text)
    args = {"x": X, "s": S, "w": S[::-1] - 0.5}
    return sym.eval(ctx=m.cpu(), **{k: m.nd.array(v) for k, v in args.items()})


@pytest.mark.mxnet
def test_graph_json_runs_both_ways():
    engine_json = _normalized(_graph(mx)[0].tojson())
    by_mxnet = reference(lambda m: _run_json(m, engine_json), ("engine json", engine_json, X))
    mxnet_json = reference(lambda m: _normalized(_graph(m)[0].tojson()), ("mxnet json",))
    by_engine = _run_json(mx, mxnet_json)
    direct = _run_json(mx, engine_json)
    assert len(by_mxnet) == len(by_engine) == 5
    for a, b, c in zip(by_mxnet, by_engine, direct):
        np.testing.assert_allclose(b.asnumpy(), a, rtol=1e-6)
        np.testing.assert_allclose(c.asnumpy(), a, rtol=1e-6)


def _errors(m):
    x, s = m.sym.var("x"), m.sym.var("s")
    found = []
    for body in (
        lambda d, st: (st * 2, st),  # the data is never used
        lambda d, st: (d, [st[0], st[0]]),  # the states change format
    ):
        try:
            m.sym.contrib.foreach(body, x, [s])
            found.append("no error")
        except Exception as err:  # noqa: BLE001 - type and message compared
            found.append("{}: {}".format(type(err).__name__, err))
    return found


@pytest.mark.mxnet
def test_refusals_match_mxnet():
    want = reference(_errors, ("foreach refusals",))
    assert _errors(mx) == want
    assert want[0] == "AssertionError: the data arrays have to be used in the loop body"


def _lstm_block(m, ctx_params):
    class Net(m.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.cell = m.gluon.rnn.LSTMCell(5, input_size=3)
                self.dense = m.gluon.nn.Dense(2, flatten=False, in_units=5)

        def hybrid_forward(self, F, x, h, c):
            out, states = F.contrib.foreach(self.cell, x, [h, c])
            return self.dense(out), states

    net = Net(prefix="net_")
    net.initialize()
    for name, param in sorted(net.collect_params().items()):
        param.set_data(m.nd.array(ctx_params[name]))
    return net


PARAMS = {
    "net_lstm0_i2h_weight": RNG.standard_normal((20, 3)).astype(np.float32),
    "net_lstm0_i2h_bias": RNG.standard_normal((20,)).astype(np.float32),
    "net_lstm0_h2h_weight": RNG.standard_normal((20, 5)).astype(np.float32),
    "net_lstm0_h2h_bias": RNG.standard_normal((20,)).astype(np.float32),
    "net_dense0_weight": RNG.standard_normal((2, 5)).astype(np.float32),
    "net_dense0_bias": RNG.standard_normal((2,)).astype(np.float32),
}
H = RNG.standard_normal((2, 5)).astype(np.float32)


def _gluon(m, tmp):
    net = _lstm_block(m, PARAMS)
    args = [m.nd.array(X), m.nd.array(H), m.nd.array(H * 0.5)]
    eager = net(*args)
    net.hybridize()
    hybrid = net(*args)
    net.export(str(tmp / "net"))
    with open(str(tmp / "net-symbol.json"), encoding="utf-8") as f:
        text = f.read()
    return {"eager": eager, "hybrid": hybrid, "json": _normalized(text)}


@pytest.mark.mxnet
def test_hybridized_lstm_loop_matches_mxnet(tmp_path):
    want = reference(lambda m: _gluon(m, tmp_path), ("gluon foreach", PARAMS, X, H))
    got = _gluon(mx, tmp_path)
    for key in ("eager", "hybrid"):
        wants, gots = _flat(want[key]), _flat(got[key])
        assert len(gots) == len(wants) == 3, key
        for g, w in zip(gots, wants):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=key)
    assert got["json"] == want["json"]


def test_exported_loop_imports_and_runs(tmp_path):
    """The exported graph and parameters load back as a SymbolBlock computing the same."""
    net = _lstm_block(mx, PARAMS)
    net.hybridize()
    args = [mx.nd.array(X), mx.nd.array(H), mx.nd.array(H * 0.5)]
    before = _flat(net(*args))
    net.export(str(tmp_path / "net"))
    back = mx.gluon.SymbolBlock.imports(
        str(tmp_path / "net-symbol.json"),
        ["data0", "data1", "data2"],
        str(tmp_path / "net-0000.params"),
    )
    after = _flat(back(*args))
    for a, b in zip(after, before):
        np.testing.assert_array_equal(a, b)


def test_body_errors_name_the_body_line():
    """A shape error inside the loop body names the body's own line, as any op does."""
    x, s = mx.sym.var("x"), mx.sym.var("s")
    out, _ = mx.sym.contrib.foreach(lambda d, st: (d + st, st), x, s)  # body line
    with pytest.raises(mx.MXNetError, match="body line"):
        out.infer_shape(x=(4, 3), s=(2,))


LOOP = """\
from mxnet import gluon


class Loop(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = gluon.rnn.GRUCell(4)

    def hybrid_forward(self, F, x, h):
        outputs, states = F.contrib.foreach(self.cell, x, [h])
        return outputs, states[0]
"""


@pytest.mark.parametrize("backend", backend_params())
def test_the_checker_runs_a_block_with_a_loop(backend):
    reports = check_source(LOOP, "loop.py", [Example("Loop", ((5, 2, 3), (2, 4)))], backend=backend)
    assert [r.status for r in reports] == ["equal"], [r.summary() for r in reports]


def _branching(m):
    """while_loop and cond eagerly and on Symbols (rows of while_loop's outputs past the last
    step are undefined in MXNet: only the defined ones are returned)."""
    i0, s0 = np.array([0.0], np.float32), np.array([1.0], np.float32)

    def cond(i, s):
        return i <= 3

    def func(i, s):
        return [i + s * 2], [i + 1, s + i]

    eager_out, eager_vars = m.nd.contrib.while_loop(
        cond, func, [m.nd.array(i0), m.nd.array(s0)], max_iterations=6
    )
    a, b = m.nd.array([1.0]), m.nd.array([2.0])
    picked = [
        m.nd.contrib.cond(a * b < lim, lambda: (a + 5) * (b + 5), lambda: [(a - 5) * (b - 5)])
        for lim in (5, 1)
    ]
    with m.name.NameManager():
        i, s, sa, sb = (m.sym.var(n) for n in ("i", "s", "a", "b"))
        outs, final = m.sym.contrib.while_loop(cond, func, [i, s], max_iterations=6)
        branch = m.sym.contrib.cond(sa * sb < 5, lambda: (sa + 5) * (sb + 5), lambda: sa - sb)
        loop = m.sym.Group(outs + final)
    run = loop.eval(ctx=m.cpu(), i=m.nd.array(i0), s=m.nd.array(s0))
    branches = [
        branch.eval(ctx=m.cpu(), a=m.nd.array(x), b=m.nd.array([2.0]))[0] for x in ([1.0], [3.0])
    ]
    return {
        "eager": [eager_out[0][:4], eager_vars],
        "eager nesting": [_shape_of(eager_out), _shape_of(eager_vars), _shape_of(picked)],
        "picked": picked,
        "symbolic": [run[0][:4]] + run[1:],
        "symbolic nesting": [_shape_of(outs), _shape_of(final), _shape_of(branch)],
        "branches": branches,
        "outputs": [loop.list_outputs(), branch.list_outputs()],
        "json": [_normalized(loop.tojson()), _normalized(branch.tojson())],
    }


@pytest.mark.mxnet
def test_while_loop_and_cond_match_mxnet():
    want = reference(_branching, ("while_loop and cond",))
    got = _branching(mx)
    for key in ("eager nesting", "symbolic nesting", "outputs", "json"):
        assert got[key] == want[key], key
    for key in ("eager", "picked", "symbolic", "branches"):
        wants, gots = _flat(want[key]), _flat(got[key])
        assert len(gots) == len(wants), key
        for g, w in zip(gots, wants):
            np.testing.assert_allclose(g, w, rtol=1e-6, err_msg=key)
    assert _flat(want["symbolic"])[0].ravel().tolist() == [2.0, 3.0, 6.0, 11.0]


BRANCHY = """\
from mxnet import gluon


class Branchy(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = gluon.nn.Dense(3, flatten=False)

    def hybrid_forward(self, F, x, limit):
        y = F.contrib.cond(
            limit.sum() > 0, lambda: self.dense(x), lambda: self.dense(x) * -1
        )
        _, (total, count) = F.contrib.while_loop(
            lambda t, c: c < 3, lambda t, c: (None, [t + y, c + 1]),
            [F.zeros_like(y), F.zeros_like(limit)], max_iterations=5,
        )
        return total
"""


@pytest.mark.parametrize("backend", backend_params())
def test_the_checker_runs_a_block_with_cond_and_while_loop(backend):
    examples = [Example("Branchy", ((2, 4), (1,)))]
    reports = check_source(BRANCHY, "branchy.py", examples, backend=backend)
    assert [r.status for r in reports] == ["equal"], [r.summary() for r in reports]


def _while_inference(m):
    """MXNet's graph inference learns nothing from a while_loop: its outputs stay unknown and a
    body parameter's shape is never filled, so a hybridized block whose loop body holds a
    Dense of deferred input size fails its deferred initialisation (eagerly it runs)."""

    class Looped(m.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = m.gluon.nn.Dense(3, flatten=False)

        def hybrid_forward(self, F, x, c):
            _, (t, _) = F.contrib.while_loop(
                lambda t, c: c < 2,
                lambda t, c: (None, [self.dense(t), c + 1]),
                [x, c],
                max_iterations=4,
            )
            return t

    found = []
    for hybridize in (False, True):
        block = Looped(prefix="looped_")
        block.initialize(m.init.One())
        if hybridize:
            block.hybridize()
        try:
            found.append(block(m.nd.ones((2, 3)), m.nd.zeros((1,))))
        except Exception as err:  # noqa: BLE001 - type and first line compared
            found.append("{}: {}".format(type(err).__name__, str(err).splitlines()[0]))
    x, c = m.sym.var("x"), m.sym.var("c")
    o, (t, _) = m.sym.contrib.while_loop(
        lambda t, c: c < 2, lambda t, c: ([t + 1], [t * 2, c + 1]), [x, c], max_iterations=4
    )
    found.append(m.sym.Group(o + [t]).infer_shape_partial(x=(2, 3), c=(1,)))
    return found


@pytest.mark.mxnet
def test_while_loop_shapes_are_unknown_to_graph_inference_as_in_mxnet():
    want = reference(_while_inference, ("while_loop inference",))
    got = _while_inference(mx)
    np.testing.assert_array_equal(got[0].asnumpy(), want[0])
    assert got[1:] == want[1:]
    assert want[1].startswith("ValueError: Deferred initialization failed")


PREDICATE_DTYPES = ("float32", "float16", "float64", "int32", "uint8")


def _cond_predicates(m):
    """Per predicate dtype: a hybridized cond's outputs, or the error's type (MXNet types the
    predicate float32; eagerly any dtype is a truth value)."""
    from hybridlint import mxnet_facts  # noqa: F401 - the fact the engine follows

    class Gate(m.gluon.HybridBlock):
        def hybrid_forward(self, F, x, mask):
            return F.contrib.cond(F.sum(mask) == 0, lambda: x * 2, lambda: x + 1)

    found = {}
    for dtype in PREDICATE_DTYPES:
        net = Gate()
        x = m.nd.array([[1.0, 2.0], [3.0, 4.0]])
        mask = m.nd.array([0, 1], dtype=dtype)
        eager = net(x, mask).asnumpy()
        net.hybridize()
        try:
            found[dtype] = ("ok", net(x, mask).asnumpy().tolist(), eager.tolist())
        except Exception as err:  # noqa: BLE001 - the kind of failure is compared
            found[dtype] = ("fails", type(err).__name__, eager.tolist())
    return found


@pytest.mark.mxnet
def test_a_cond_predicate_must_be_float32_hybridized_as_in_mxnet():
    from hybridlint.mxnet_facts import COND_PREDICATE_DTYPE

    want = reference(_cond_predicates, ("cond predicate dtypes", PREDICATE_DTYPES))
    assert _cond_predicates(mx) == want
    assert [d for d in PREDICATE_DTYPES if want[d][0] == "ok"] == [COND_PREDICATE_DTYPE]


def test_the_predicate_error_says_what_to_cast():
    x, mask = mx.sym.var("x"), mx.sym.var("mask")
    out = mx.sym.contrib.cond(mx.sym.sum(mask) == 0, lambda: x * 2, lambda: x + 1)
    with pytest.raises(mx.base.MXNetError, match=r"predicate is int32.*astype\('float32'\)"):
        out.infer_type(x="float32", mask="int32")


SUBGRAPH_CASES = {
    # a cond branch or a while_loop condition of constants: MXNet runs those subgraphs as
    # CachedOps, which refuse a graph without inputs (mxnet_facts.INPUTLESS_SUBGRAPHS_FAIL)
    "else_of_constants": "F.contrib.cond(F.sum(x) > 0, lambda: x, lambda: F.ones((2, 3)))",
    "then_of_constants": "F.contrib.cond(F.sum(x) > 0, lambda: F.ones((2, 3)), lambda: x)",
    "predicate_of_constants": "F.contrib.cond(F.ones((1,)), lambda: x, lambda: x * 2)",
    "branch_reading_x": "F.contrib.cond(F.sum(x) > 0, lambda: x * 0 + 1, lambda: x)",
    "loop_condition_of_constants": "F.contrib.while_loop(lambda i, a: F.ones((1,)), "
    "lambda i, a: ([a], [i + 1, a + x]), [F.zeros((1,)), F.zeros_like(x)], max_iterations=3)[1][1]",
    "loop_body_constant_output": "F.contrib.while_loop(lambda i, a: i < 3, lambda i, a: "
    "([F.ones((2,))], [i + 1, a + x]), [F.zeros((1,)), F.zeros_like(x)], max_iterations=3)[1][1]",
    "foreach_constant_output": "F.contrib.foreach(lambda d, s: (F.ones((3,)), [s[0] + d]), x, "
    "[F.zeros((3,))])[1][0]",
    # the branches' outputs must have one dtype (MXNet: Incompatible attr ... expected float32,
    # got int32), one shape need not (MXNet runs cond with dynamic shapes: a gap, see below)
    "branches_of_two_dtypes": "F.contrib.cond(F.sum(x) > 0, lambda: x.astype('int32'), lambda: x)",
    "branches_of_one_int_dtype": "F.contrib.cond(F.sum(x) > 0, lambda: x.astype('int32'), "
    "lambda: x.astype('int32') * 2)",
}


def _subgraph_rules(m):
    found = {}
    for name, expr in SUBGRAPH_CASES.items():
        space = {"gluon": m.gluon}
        exec(
            "class Net(gluon.HybridBlock):\n    def hybrid_forward(self, F, x):\n"
            f"        return {expr}\n",
            space,
        )
        net = space["Net"]()
        x = m.nd.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
        eager = net(x).asnumpy().tolist()
        net.hybridize()
        try:
            found[name] = ("ok", net(x).asnumpy().tolist() == eager)
        except Exception as err:  # noqa: BLE001 - the kind of failure is compared
            found[name] = ("fails", type(err).__name__)
    return found


@pytest.mark.mxnet
def test_which_control_flow_subgraphs_fail_hybridized_as_in_mxnet():
    want = reference(_subgraph_rules, ("control-flow subgraphs", sorted(SUBGRAPH_CASES.items())))
    assert _subgraph_rules(mx) == want
    assert want["else_of_constants"] == ("fails", "MXNetError")
    assert want["predicate_of_constants"] == ("ok", True)


def test_a_constant_branch_error_names_the_branch_and_the_line():
    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.contrib.cond(F.sum(x) > 0, lambda: x, lambda: F.zeros((2,)))

    net = Net()
    net.hybridize()
    with pytest.raises(mx.base.MXNetError, match="its else branch is built from constants") as err:
        net(mx.nd.ones((2,)))
    assert err.value.source_line[1] > 0


def _branches_of_two_shapes(m):
    class Net(m.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.contrib.cond(F.sum(x) < 0, lambda: x, lambda: F.sum(x, axis=1)) + 1

    net = Net()
    x = m.nd.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]])
    eager = net(x).asnumpy()
    net.hybridize()
    try:
        return ("ok", net(x).asnumpy().tolist() == eager.tolist())
    except Exception as err:  # noqa: BLE001 - the kind of failure is compared
        return ("fails", type(err).__name__)


@pytest.mark.mxnet
@pytest.mark.xfail(
    strict=True,
    reason="engine gap: MXNet 1.9.1 runs a hybridized cond with dynamic output shapes (the "
    "branches may differ in shape); the engine plans static shapes and refuses it",
)
def test_branches_of_two_shapes_run_hybridized_as_in_mxnet():
    want = reference(_branches_of_two_shapes, ("cond branches of two shapes",))
    assert want == ("ok", True)
    assert _branches_of_two_shapes(mx) == want
