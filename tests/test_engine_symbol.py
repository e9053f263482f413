"""Symbol semantics that decide what breaks under hybridize, checked against real MXNet 1.9.1,
and the JSON graph format in both directions."""

import functools
import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import hybridlint.engine as mx

BOTH = pytest.mark.mxnet


@pytest.fixture(autouse=True)
def _fresh_names():
    """Auto-named nodes (relu0, convolution0 ...) of these tests never shift the global
    counters other test modules may rely on."""
    with mx.name.NameManager():
        yield


def _real():
    return pytest.importorskip("mxnet")


def _outcome(fn):
    """('ok', value) or ('raise', exception class name, message)."""
    try:
        return ("ok", fn())
    except Exception as err:  # noqa: BLE001 - comparing behaviour, any exception counts
        first = str(err).split("\n")[0]
        return ("raise", type(err).__name__, re.sub(r"^\[\d\d:\d\d:\d\d\] \S+: ", "", first))


@BOTH
@pytest.mark.parametrize(
    "attr",
    ["shape", "size", "ndim", "dtype", "context", "ctx", "T", "asnumpy", "name", "grad", "stype"],
)
def test_symbol_attributes_like_mxnet(attr):
    m = _real()
    want = _outcome(lambda: type(getattr(m.sym.var("a"), attr)).__name__)
    got = _outcome(lambda: type(getattr(mx.sym.var("a"), attr)).__name__)
    assert got == want


@BOTH
@pytest.mark.parametrize(
    "expr",
    [
        "x.asnumpy()",
        "x.asscalar()",
        "bool(x)",
        "x.wait_to_read()",
        "len(x)",
        "len(s)",
        "x[0].name",
        "s[1].name",
        "s[-1].name",
        "x[1]",
        "list(s.list_outputs())",
        "[o.name for o in s]",
        "x.copyto(x)",
        "x.as_in_context(None)",
        "x.as_in_context()",
        "x.copy()",
        "x.detach()",
        "s[0:2].list_outputs()",
        "s['split0_output1'].name",
        "x[np.int64(0)]",
        "x.reshape((2, 3)).name",
        "x.T",
    ],
)
def test_ndarray_only_patterns_like_mxnet(expr):
    m = _real()

    def run(lib):
        x = lib.sym.var("x")
        with lib.name.NameManager():
            s = lib.sym.split(x, num_outputs=3)
            return eval(expr, globals(), {"x": x, "s": s})

    assert _outcome(lambda: run(mx)) == _outcome(lambda: run(m))


@BOTH
@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/="])
def test_inplace_operators_raise_not_implemented_for_symbol(op):
    m = _real()

    def run(lib):
        x = lib.sym.var("x")
        exec("x {} 1".format(op), globals(), {"x": x})

    want, got = _outcome(lambda: run(m)), _outcome(lambda: run(mx))
    assert want[0] == "raise" and want[1] == "NotImplementedForSymbol"
    assert got == want
    with pytest.raises(mx.base.MXNetError):
        run(mx)


@BOTH
def test_sym_array_absent_and_nd_array_present():
    m = _real()
    assert hasattr(m.sym, "array") is hasattr(mx.sym, "array") is False
    assert hasattr(mx.nd, "array")


@BOTH
@pytest.mark.parametrize(
    "expr",
    [
        "a + b",
        "a - b",
        "a * b",
        "a / b",
        "a % b",
        "a ** b",
        "a == b",
        "a != b",
        "a < b",
        "a <= b",
        "a > b",
        "a >= b",
        "a + 1",
        "1 - a",
        "2 * a",
        "a / 2",
        "2 / a",
        "a % 2",
        "2 % a",
        "a ** 2",
        "2 ** a",
        "-a",
        "abs(a)",
        "a < 1",
        "1 < a",
        "a >= 1",
        "a != 1",
    ],
)
def test_symbol_operators_build_the_same_nodes(expr):
    m = _real()

    def build(lib):
        with lib.name.NameManager():
            a, b = lib.sym.var("a"), lib.sym.var("b")
            s = eval(expr, globals(), {"a": a, "b": b})
        nodes = json.loads(s.tojson())["nodes"]
        return [(n["op"], n["name"], n.get("attrs", {})) for n in nodes]

    assert build(mx) == build(m)


@BOTH
@pytest.mark.parametrize(
    "expr", ["a + b", "a - b", "a * b", "a / b", "a == b", "a > b", "a ** b", "a % b"]
)
def test_symbol_operators_do_not_broadcast(expr):
    """(2, 3) op (1, 3): NDArray broadcasts, Symbol fails at shape inference in both."""
    m = _real()
    for lib in (m, mx):
        a, b = lib.sym.var("a"), lib.sym.var("b")
        with pytest.raises(lib.base.MXNetError):
            eval(expr, globals(), {"a": a, "b": b}).infer_shape(a=(2, 3), b=(1, 3))
        x, y = lib.nd.ones((2, 3)), lib.nd.ones((1, 3))
        assert eval(
            expr.replace("a", "x").replace("b", "y"), globals(), {"x": x, "y": y}
        ).shape == (2, 3)


def test_shape_error_names_op_shapes_and_user_line():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    c = a + b  # the line the error must show
    with pytest.raises(mx.base.MXNetError) as info:
        c.infer_shape(a=(2, 3), b=(3, 2))
    msg = str(info.value)
    assert "_plus" in msg and "[2,3]" in msg and "[3,2]" in msg
    assert "test_engine_symbol.py" in msg and "c = a + b  # the line the error must show" in msg


def test_shape_error_at_compile_time_too():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    c = mx.sym.relu(a * b)  # compiled later
    op = mx.nd.CachedOp(c)
    with pytest.raises(mx.base.MXNetError, match="compiled later"):
        op(mx.nd.ones((2, 3)), mx.nd.ones((2, 1)))


@BOTH
def test_listing_and_naming_like_mxnet():
    m = _real()

    def build(lib):
        with lib.name.NameManager():
            return _build_listing(lib)

    def _build_listing(lib):
        data = lib.sym.var("data")
        fc = lib.sym.FullyConnected(data, num_hidden=4, name="fc1")
        act = lib.sym.Activation(fc, act_type="relu")
        fc2 = lib.sym.FullyConnected(act, num_hidden=2, no_bias=True)
        parts = lib.sym.split(fc2, num_outputs=2)
        out = lib.sym.Group([parts[0] + 1, lib.sym.concat(parts[0], parts[1], dim=1), act])
        shapes = out.infer_shape(data=(5, 3))
        partial = out.infer_shape_partial(data=(0, 3))
        internals = out.get_internals()
        return (
            out.list_arguments(),
            out.list_outputs(),
            out.list_inputs(),
            out.list_auxiliary_states(),
            shapes,
            partial,
            internals.list_outputs(),
            internals["fc1_output"].name,
            len(out),
            out[1].name,
            lib.sym.var("x").infer_shape_partial(),
            out.infer_type(data="float32"),
        )

    assert build(mx) == build(m)


@BOTH
def test_our_json_loads_in_mxnet_and_computes_the_same():
    m = _real()
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc1")
    out = mx.sym.Group([mx.sym.relu(fc) * 2 - 1, mx.sym.reshape(fc, shape=(-1,), name="r")])
    theirs = m.sym.load_json(out.tojson())
    assert theirs.list_arguments() == out.list_arguments()
    assert theirs.list_outputs() == out.list_outputs()
    rng = np.random.RandomState(0)
    feed = {
        "data": rng.rand(3, 5).astype(np.float32),
        "fc1_weight": rng.rand(4, 5).astype(np.float32),
        "fc1_bias": rng.rand(4).astype(np.float32),
    }
    want = theirs.eval(ctx=m.cpu(), **{k: m.nd.array(v) for k, v in feed.items()})
    got = out.eval(**{k: mx.nd.array(v) for k, v in feed.items()})
    for g, w in zip(got, want):
        # MXNet's FullyConnected (oneDNN) and numpy's matmul sum in another order: the last
        # float32 bits of an output near 0 differ (unseeded data once gave 1.6e-5 relative)
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5, atol=1e-6)


@BOTH
def test_mxnet_json_loads_here_and_round_trips():
    m = _real()
    data = m.sym.var("data")
    fc = m.sym.FullyConnected(data, num_hidden=3, name="fc")
    x = m.sym.split(m.sym.Activation(fc, act_type="tanh"), num_outputs=3, axis=1)
    out = m.sym.Group([x[0] + x[2], m.sym.transpose(fc), m.sym.broadcast_mul(fc, x[1])])
    ours = mx.sym.load_json(out.tojson())
    assert ours.list_arguments() == out.list_arguments()
    assert ours.list_outputs() == out.list_outputs()
    assert json.loads(ours.tojson()) == json.loads(out.tojson())
    feed = {
        "data": np.random.rand(2, 4).astype(np.float32),
        "fc_weight": np.random.rand(3, 4).astype(np.float32),
        "fc_bias": np.random.rand(3).astype(np.float32),
    }
    want = out.eval(ctx=m.cpu(), **{k: m.nd.array(v) for k, v in feed.items()})
    got = ours.eval(**{k: mx.nd.array(v) for k, v in feed.items()})
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-5)


def test_save_and_load_file(tmp_path):
    s = mx.sym.relu(mx.sym.var("x") + 1)
    path = str(tmp_path / "g.json")
    s.save(path)
    back = mx.sym.load(path)
    assert back.tojson() == s.tojson()


# ----------------------------------------------------------------- JSON text and escaping
# Strings MXNet 1.9.1 writes in its graph JSON (dmlc::JSONWriter): only \\ " \n \r \t are
# escaped, everything else - non-ASCII, other control characters - is written as is.
AWKWARD = [
    "é模型",
    'q"uote',
    "back\\slash",
    "new\nline",
    "tab\tcr\r",
    "ctl\x01\x1f\x7f",
    "emoji\U0001f600 and \u2028 sep",
    "/slash{}[]:,",
    "",
]


def _awkward_graph(lib):
    """Every awkward string as a node name, a variable attribute and an op's `attr=` value
    (which MXNet also copies to the weight/bias variables it creates for the op)."""
    with lib.name.NameManager():
        xs = [lib.sym.var("x_" + t, attr={"k": t, "__é__": t + "é"}) for t in AWKWARD]
        s = lib.sym.concat(*xs, dim=0, name="連結")
        s = lib.sym.FullyConnected(
            s, num_hidden=2, name="fc\t" + AWKWARD[0], attr={"__doc__": "".join(AWKWARD)}
        )
        return lib.sym.Group([s, lib.sym.relu(xs[1], name='ré"l\\x')])


# dmlc's text for a variable named "é" with the attribute k = 'a"b\c<LF>d<TAB>e<CR>f<0x01>g',
# as real MXNet 1.9.1 writes it (raw é and 0x01, escaped quote, backslash, LF, TAB, CR)
MXNET_ESCAPED_VAR = (
    '{\n  "nodes": [\n    {\n      "op": "null", \n      "name": "é", \n'
    '      "attrs": {"k": "a\\"b\\\\c\\nd\\te\\rf\x01g"}, \n'
    '      "inputs": []\n    }\n  ], \n  "arg_nodes": [0], \n'
    '  "node_row_ptr": [0, 1], \n  "heads": [[0, 0, 0]], \n'
    '  "attrs": {"mxnet_version": ["int", 10901]}\n}'
)


def test_tojson_escapes_like_dmlc():
    s = mx.sym.var("é", attr={"k": 'a"b\\c\nd\te\rf\x01g'})
    assert s.tojson() == MXNET_ESCAPED_VAR
    assert "\\u" not in _awkward_graph(mx).tojson()


def test_mxnet_text_with_raw_control_characters_loads():
    s = mx.sym.load_json(MXNET_ESCAPED_VAR)
    assert s.list_arguments() == ["é"]
    assert s.attr_dict() == {"é": {"k": 'a"b\\c\nd\te\rf\x01g'}}
    assert s.tojson() == MXNET_ESCAPED_VAR


def test_old_escaped_text_still_loads():
    """Symbol.save wrote json.dumps escapes (backslash-u) before it matched MXNet: still read."""
    old = MXNET_ESCAPED_VAR.replace('"é"', '"\\u00e9"').replace("\x01", "\\u0001")
    assert mx.sym.load_json(old).tojson() == MXNET_ESCAPED_VAR


def test_awkward_names_and_attributes_round_trip(tmp_path):
    s = _awkward_graph(mx)
    text = s.tojson()
    back = mx.sym.load_json(text)
    assert back.tojson() == text
    assert back.list_arguments() == s.list_arguments()
    assert back.list_outputs() == s.list_outputs()
    assert back.attr_dict() == s.attr_dict()
    path = str(tmp_path / "g.json")
    s.save(path)
    raw = (tmp_path / "g.json").read_bytes()
    assert raw == text.encode("utf-8")  # UTF-8, no BOM, no newline translation
    assert mx.sym.load(path).tojson() == text
    net = mx.gluon.SymbolBlock.imports(
        path, [n for n in s.list_arguments() if not n.startswith("fc")]
    )
    net.initialize()
    assert [o.shape for o in net(*[mx.nd.ones((1, 3)) for _ in AWKWARD])] == [(9, 2), (1, 3)]


def test_save_and_load_json_argument_errors(tmp_path):
    s = mx.sym.var("x")
    with pytest.raises(TypeError, match="fname need to be string"):
        s.save(tmp_path / "g.json")
    with pytest.raises(mx.base.MXNetError, match="No such file or directory"):
        s.save(str(tmp_path / "missing" / "g.json"))
    with pytest.raises(TypeError, match="fname required to be string"):
        mx.sym.load_json(s.tojson().encode())


@BOTH
def test_awkward_tojson_is_byte_identical_to_mxnet():
    m = _real()
    assert _awkward_graph(mx).tojson() == _awkward_graph(m).tojson()
    # dmlc writes attribute *keys* unescaped: the text is MXNet's even where it is not JSON
    for key in ['a"b', "back\\slash", "é", "\x01"]:
        assert mx.sym.var("v", attr={key: "1"}).tojson() == m.sym.var("v", attr={key: "1"}).tojson()


@BOTH
def test_awkward_files_load_on_the_other_side(tmp_path):
    m = _real()
    ours, theirs = _awkward_graph(mx), _awkward_graph(m)
    ours.save(str(tmp_path / "ours.json"))
    theirs.save(str(tmp_path / "theirs.json"))
    assert (tmp_path / "ours.json").read_bytes() == (tmp_path / "theirs.json").read_bytes()
    in_mxnet = m.sym.load(str(tmp_path / "ours.json"))
    in_engine = mx.sym.load(str(tmp_path / "theirs.json"))
    for got in (in_mxnet, in_engine):
        assert got.list_arguments() == theirs.list_arguments()
        assert got.list_outputs() == theirs.list_outputs()
        assert got.attr_dict() == theirs.attr_dict()
    assert in_mxnet.tojson() == in_engine.tojson() == theirs.tojson()
    assert m.sym.load_json(ours.tojson()).tojson() == theirs.tojson()


@BOTH
def test_save_and_load_json_argument_errors_like_mxnet(tmp_path):
    m = _real()
    missing = str(tmp_path / "no" / "x.json")
    with pytest.raises(m.base.MXNetError) as real:
        m.sym.var("x").save(missing)
    with pytest.raises(mx.base.MXNetError) as ours:
        mx.sym.var("x").save(missing)
    assert str(ours.value) in str(real.value)  # MXNet prefixes dmlc's C++ traceback line
    for lib in (m, mx):  # same TypeErrors as the engine-only test above checks
        with pytest.raises(TypeError, match="fname need to be string"):
            lib.sym.var("x").save(tmp_path / "x.json")
        with pytest.raises(TypeError, match="fname required to be string"):
            lib.sym.load_json(b"{}")


_TEXT = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12
)  # what MXNet's C strings can carry: no NUL, no lone surrogates


@given(name=_TEXT, value=_TEXT)
@settings(max_examples=60, deadline=None)
def test_any_name_and_value_round_trip(name, value):
    with mx.name.NameManager():
        s = mx.sym.relu(mx.sym.var(name, attr={"k": value}), name=name + "r")
        text = s.tojson()
        back = mx.sym.load_json(text)
    assert back.tojson() == text
    assert back.attr_dict() == {name: {"k": value}}
    assert back.list_outputs() == [name + "r_output"]


@BOTH
@given(name=_TEXT, value=_TEXT)
@settings(max_examples=60, deadline=None)
def test_any_name_and_value_byte_identical_to_mxnet(name, value):
    m = _real()

    def build(lib):
        with lib.name.NameManager():
            return lib.sym.relu(lib.sym.var(name, attr={"k": value}), name=name + "r").tojson()

    assert build(mx) == build(m)


def test_bad_json_is_a_clear_error():
    with pytest.raises(mx.base.MXNetError, match="load_json"):
        mx.sym.load_json("{not json")
    with pytest.raises(mx.base.MXNetError, match="Cannot find operator"):
        mx.sym.load_json(
            json.dumps(
                {"nodes": [{"op": "NoSuchOp", "name": "n", "inputs": []}], "heads": [[0, 0, 0]]}
            )
        )


@BOTH
def test_ndarray_repr_and_basics_like_mxnet():
    m = _real()
    for fn in (
        lambda lib: repr(lib.nd.ones((2, 3))),
        lambda lib: repr(lib.nd.array([1, 2])),
        lambda lib: repr(lib.nd.array([[1, 2]], dtype="int32")),
        lambda lib: str(lib.nd.arange(4)),
        lambda lib: lib.nd.ones((2, 3)).dtype,
        lambda lib: lib.nd.array([1.5]).dtype,
        lambda lib: lib.nd.ones((2, 3))[0].shape,
        lambda lib: lib.nd.arange(3)[1].shape,
        lambda lib: lib.nd.ones((2, 3))[1, 2].shape,
        lambda lib: len(lib.nd.ones((4, 2))),
        lambda lib: bool(lib.nd.ones(1)),
        lambda lib: bool(lib.nd.ones(2)),
        lambda lib: lib.nd.ones((2, 3)).T.shape,
        lambda lib: lib.nd.ones(3).T.shape,
        lambda lib: float(lib.nd.array([2.5])),
        lambda lib: lib.nd.array([3]).asscalar(),
        lambda lib: lib.nd.ones((2, 2)).asscalar(),
        lambda lib: str(lib.nd.ones(1).context),
        lambda lib: lib.nd.ones((2, 3)).reshape((3, -1)).shape,
        lambda lib: lib.nd.ones((2, 3)).reshape(-1).shape,
        lambda lib: (lib.nd.ones((2, 3)) == 1).asnumpy().tolist(),
        lambda lib: (lib.nd.arange(6).reshape((2, 3))[:, 1:]).asnumpy().tolist(),
        lambda lib: lib.nd.ones((2, 3)).sum(axis=1).shape if hasattr(mx.nd, "sum") else None,
    ):
        assert _outcome(functools.partial(fn, mx)) == _outcome(functools.partial(fn, m))


def test_ndarray_inplace_and_setitem():
    x = mx.nd.ones((2, 3))
    y = x
    x += 1
    x[0] = 5
    x[1, 1:] = mx.nd.array([7, 8])
    assert y is x
    assert x.asnumpy().tolist() == [[5, 5, 5], [2, 7, 8]]


@BOTH
def test_compose_replaces_variables_like_mxnet():
    m = _real()

    def run(lib):
        with lib.name.NameManager():
            a, b = lib.sym.var("a"), lib.sym.var("b")
            c = lib.sym.relu(a) * 2 + b
            d = c(a=lib.sym.exp(lib.sym.var("x")))
            return (
                d.list_arguments(),
                d.list_outputs(),
                c.list_arguments(),
                _outcome(lambda: c(lib.sym.var("y")).list_arguments()),
            )

    assert run(mx) == run(m)


@BOTH
def test_ndarray_slices_share_memory_like_mxnet():
    m = _real()

    def run(lib, key):
        x = lib.nd.arange(6).reshape((3, 2))
        y = x[key]
        y[:] = 0
        return x.asnumpy().tolist()

    for key in (1, slice(0, 1), (slice(None), 1), slice(0, 3, 2)):
        assert run(mx, key) == run(m, key)


@BOTH
def test_infer_shape_unknown_argument_is_an_error_like_mxnet():
    m = _real()
    for lib in (m, mx):
        s = lib.sym.relu(lib.sym.var("a"))
        with pytest.raises(lib.base.MXNetError, match="argument name foo not found"):
            s.infer_shape(foo=(1, 2))
        with pytest.warns(UserWarning, match="Cannot decide shape for the following arguments"):
            assert s.infer_shape() == (None, None, None)


@BOTH
def test_tojson_text_is_byte_identical_to_mxnet():
    m = _real()

    def build(lib):
        with lib.name.NameManager():
            a, b = lib.sym.var("a"), lib.sym.var("b")
            c = lib.sym.FullyConnected((a + b) * 2, num_hidden=3, name="fc")
            parts = lib.sym.split(lib.sym.relu(c), num_outputs=3, axis=1)
            out = lib.sym.Group([2 - parts[0] ** a, parts[2]])
            many = lib.sym.concat(*[lib.sym.var("x%d" % i) for i in range(11)], dim=0)
            return out.tojson(), many.tojson(), lib.sym.relu(a).tojson()

    assert build(mx) == build(m)


@BOTH
def test_creation_nodes_like_mxnet():
    m = _real()

    def build(lib):
        with lib.name.NameManager():
            s = lib.sym.Group(
                [
                    lib.sym.zeros((2, 3)),
                    lib.sym.ones((2,)),
                    lib.sym.full((2,), 7),
                    lib.sym.arange(5),
                    lib.sym.arange(1, 7, 2, dtype="int32"),
                    lib.sym.zeros_like(lib.sym.var("a")),
                    lib.sym.var("b", shape=(2, 3), dtype="float16"),
                ]
            )
            return (s.tojson(), s.infer_shape_partial(a=(2, 2)), s.infer_type(a="float32"))

    assert build(mx) == build(m)


# ---- reshape's arguments: Symbol binds positional ints to shape, reverse, target_shape, ...
# (cases whose size differs are engine-only: MXNet 1.9.1 returns the wrong shape without a
# check and then reads memory outside the array; its process dies with a double free)
SYMBOL_RESHAPE_ARGS = [
    (3, 2),
    (2, 3),
    (6,),
    (-1,),
    (6, 1),
    (6, 0),
    (-1, 1),
    (6, "false"),
    (6, "yes"),
    ((3, 2),),
    ([3, 2],),
    ((-1, 0), 1),
    ((0, -1), True),
    (2.0,),
    (6, 0, 0, 0, None, None, None, 5),
    (6, 1, (3, 2)),
    (6, 0, 0, 1),
]


def _symbol_reshape(lib, args):
    y = lib.sym.var("x").reshape(*args)
    out = y.infer_shape(x=(2, 3))[1]
    exe = y.bind(lib.cpu(), {"x": lib.nd.array(np.arange(6.0).reshape(2, 3))})
    attrs = {k: v.replace("[", "(").replace("]", ")") for k, v in y.list_attr().items()}
    return attrs, out, exe.forward()[0].asnumpy().tolist()  # (the engine writes lists as tuples)


@BOTH
@pytest.mark.parametrize("args", SYMBOL_RESHAPE_ARGS, ids=repr)
def test_symbol_reshape_positional_arguments_like_mxnet(args):
    m = _real()
    got, want = (
        _outcome(lambda: _symbol_reshape(mx, args)),
        _outcome(lambda: _symbol_reshape(m, args)),
    )
    assert got[:2] == want[:2]
    if want[0] == "ok":
        assert got == want
    elif "expect boolean" in want[2]:  # MXNet: "Invalid Parameter format for reverse ..."
        assert "reverse" in got[2] and "expect boolean" in got[2]


def test_symbol_reshape_varargs_engine_only():
    """The same, pinned without MXNet (recorded from MXNet 1.9.1)."""
    x = mx.sym.var("x")
    with pytest.raises(mx.base.MXNetError, match="reverse.*expect boolean but value='3'"):
        x.reshape(2, 3, 4)
    y = x.reshape(6, 1)  # shape=(6,), reverse=True: eager NDArray.reshape gives (6, 1)
    assert y.list_attr() == {"shape": "6", "reverse": "1"}
    assert y.infer_shape(x=(2, 3))[1] == [(6,)]
    with pytest.raises(
        TypeError, match=r"reshape\(\) takes from 0 to 8 positional arguments but 9"
    ):
        x.reshape(6, 0, 0, 0, None, None, None, 5)
    assert x.reshape(6, 0, 0, 0, "named").name == "named"
    with pytest.raises(TypeError, match="got multiple values for argument 'reverse'"):
        x.reshape(-1, 3, reverse=True)
    dense = mx.sym.FullyConnected(x, mx.sym.var("w"), None, num_hidden=3, no_bias=True)
    assert dense.list_arguments() == ["x", "w"]  # None: an optional input not given


def test_symbol_reshape_of_another_size_fails_loudly_where_mxnet_computes_garbage():
    """MXNet 1.9.1 infers (2,) for `x.reshape(2, 1)` on a (2, 3, 4) Symbol without checking the
    size, returns two values read from the array and then corrupts the heap; the engine says so."""
    y = mx.sym.var("x").reshape(2, 1)
    with pytest.raises(mx.base.MXNetError, match="MXNet 1.9.1 does not check this.*garbage"):
        y.infer_shape(x=(2, 3, 4))
    with pytest.raises(mx.base.MXNetError, match="garbage"):
        mx.nd.reshape(mx.nd.ones((2, 3, 4)), shape=(2,))  # MXNet's eager op does not check either


NDARRAY_RESHAPE_CALLS = {
    "varargs": lambda lib, x: x.reshape(3, 2),
    "varargs codes": lambda lib, x: x.reshape(-1, 0),
    "varargs reverse": lambda lib, x: x.reshape(-1, 3, reverse=True),
    "tuple": lambda lib, x: x.reshape((3, 2)),
    "list": lambda lib, x: x.reshape([6]),
    "keyword": lambda lib, x: x.reshape(shape=(3, 2)),
    "smaller": lambda lib, x: x.reshape(4),
    "smaller tuple": lambda lib, x: x.reshape((2, 2)),
    "larger": lambda lib, x: x.reshape(4, 2),
    "no shape": lambda lib, x: x.reshape(),
    "unknown keyword": lambda lib, x: x.reshape(3, 2, foo=1),
    "float": lambda lib, x: x.reshape(3.0, 2),
    "tuple then int": lambda lib, x: x.reshape((3,), 2),
    "bad code": lambda lib, x: x.reshape(-3, -3),
    "op varargs": lambda lib, x: (
        x.__class__.__module__ and __import__("operator").attrgetter("reshape")
    ),
}


def _nd_reshape(lib, name):
    x = lib.nd.array(np.arange(6.0).reshape(2, 3))
    return NDARRAY_RESHAPE_CALLS[name](lib, x).asnumpy().tolist()


@BOTH
@pytest.mark.parametrize("name", sorted(NDARRAY_RESHAPE_CALLS))
def test_ndarray_reshape_like_mxnet(name):
    m = _real()
    got, want = _outcome(lambda: _nd_reshape(mx, name)), _outcome(lambda: _nd_reshape(m, name))
    assert got[:2] == want[:2]
    if want[0] == "ok" or want[1] in ("ValueError", "TypeError", "AssertionError"):
        assert got == want
    if "Check failed" in want[-1]:
        assert got[2].split("Check failed")[1] == want[2].split("Check failed")[1]


@BOTH
@pytest.mark.parametrize("case", ["data", "weight", "variadic", "keyword", "fluent", "scalar"])
def test_ndarray_given_to_a_symbol_op_like_mxnet(case):
    """MXNet's generated symbol functions assert their inputs are Symbols (an NDArray from
    `self.weight.data()` inside hybrid_forward); a parameter value goes to the parser."""
    m = _real()

    def run(lib):
        s, a = lib.sym.var("s"), lib.nd.ones((2, 3))
        return {
            "data": lambda: lib.sym.relu(a),
            "weight": lambda: lib.sym.FullyConnected(s, a, num_hidden=3, no_bias=True),
            "variadic": lambda: lib.sym.concat(s, a, dim=0),
            "keyword": lambda: lib.sym.FullyConnected(s, weight=a, num_hidden=3, no_bias=True),
            "fluent": lambda: s.broadcast_like(a),
            "scalar": lambda: lib.sym.clip(s, a, 1),
        }[case]().name

    got, want = _outcome(lambda: run(mx)), _outcome(lambda: run(m))
    assert got[:2] == want[:2]
    if want[1] == "AssertionError":
        assert got[2] == want[2]


@BOTH
@pytest.mark.parametrize("shape", [(1, 1), (1, 3), (1, 2, 2)])
def test_split_into_one_output_is_one_array_like_mxnet(shape):
    """`split(num_outputs=1, squeeze_axis=True)` gives one array, eagerly and in a graph (the
    engine's compiled plan took the 1-tuple for an array of one more axis)."""
    m = _real()

    def run(lib):
        data = lib.nd.array(np.arange(np.prod(shape), dtype=np.float32).reshape(shape))
        eager = lib.nd.split(data, num_outputs=1, axis=0, squeeze_axis=True)
        y = (
            lib.sym.split(lib.sym.relu(lib.sym.var("x")), num_outputs=1, axis=0, squeeze_axis=True)
            * 1
        )
        graph = y.bind(lib.cpu(), {"x": data}).forward()[0]
        return type(eager).__name__, eager.asnumpy().tolist(), graph.asnumpy().tolist()

    assert run(mx) == run(m)
