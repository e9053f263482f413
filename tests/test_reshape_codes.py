"""rules/hl001/reshape/codes.py: shape algebra -> MXNet reshape codes.

Targets are built from a source's dims by random operations (copy, merge a run of dims, split a
dim by a constant or an external size, insert a literal 1, write one dim as -1). Whatever codes
the synthesizer returns must give exactly the written target for several random source shapes,
on the engine's reshape (NDArray eagerly and a Symbol through an executor) and on real MXNet
1.9.1; targets built only from operations MXNet has a code for must get codes; permuted or
resized targets must get None.
"""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import hybridlint.engine as engine
from hybridlint.linter import fix_source, lint_source
from hybridlint.rules import ALL_RULES
from hybridlint.engine.ops.shape import infer_reshape
from hybridlint.rules.hl001.reshape.codes import (
    INFER,
    Dim,
    Ref,
    const,
    simulate,
    symbol,
    synthesize,
    synthesize_dims,
)

H = "h"  # an external size (a constructor argument, `self._heads`)


@st.composite
def problems(draw, coded_only=False):
    """(source names, target terms, a sampler of concrete source shapes + external values)."""
    n = draw(st.integers(1, 4))
    names = ["s%d" % i for i in range(n)]
    factors = [draw(st.sampled_from([2, 3])) for _ in range(n)]  # each dim = factor * k
    target, i = [], 0
    while i < n:
        op = draw(
            st.sampled_from(
                ["copy", "merge", "split_const", "split_ext", "one"]
                if not coded_only
                else ["copy", "merge2", "split_const", "split_ext"]
            )
        )
        if op == "copy" or (op.startswith("merge") and i + 1 >= n):
            target.append(symbol(names[i]))
            i += 1
        elif op in ("merge", "merge2"):
            k = 2 if op == "merge2" else draw(st.integers(2, n - i))
            term = Dim()
            for name in names[i : i + k]:
                term = term * symbol(name)
            target.append(term)
            i += k
        elif op == "split_const":
            c = const(factors[i])
            parts = [c, symbol(names[i]) / c]
            target += parts if draw(st.booleans()) else parts[::-1]
            i += 1
        elif op == "split_ext":
            parts = [symbol(H), symbol(names[i]) / symbol(H)]
            target += parts if draw(st.booleans()) else parts[::-1]
            i += 1
        else:
            target.append(const(1))
    if draw(st.booleans()):
        position = draw(st.integers(0, len(target) - 1))
        external_part = target[position] == symbol(H)
        if not (coded_only and external_part):  # the written -1 would hide the size `h`
            target[position] = INFER
    return names, target, factors


def _has(term, name):
    return isinstance(term, Dim) and name in term.symbols()


def concrete(names, target, factors, rng):
    """Random source shape (dim i a multiple of its factor; h divides every dim) and the
    target's concrete shape."""
    values = {H: 1}
    shape = []
    for name, factor in zip(names, factors):
        shape.append(factor * int(rng.randint(1, 4)))
        values[name] = shape[-1]
    h_choices = [c for c in (2, 3, 1) if all(d % c == 0 for d in shape)]
    values[H] = h_choices[0]
    total = int(np.prod(shape))
    dims = [t.evaluate(values) if t is not INFER else None for t in target]
    known = int(np.prod([d for d in dims if d is not None]))
    dims = [Fraction(total, known) if d is None else d for d in dims]
    return tuple(shape), tuple(int(d) for d in dims), values


def numeric_codes(codes, target, values):
    out = []
    for code in codes:
        out.append(int(target[code.index].evaluate(values)) if isinstance(code, Ref) else code)
    return tuple(out)


def check_on(lib, shape, codes, expected):
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    eager = lib.nd.array(data).reshape(codes).asnumpy()
    sym = lib.sym.var("x").reshape(codes)
    graph = sym.bind(lib.cpu(), {"x": lib.nd.array(data)}).forward()[0].asnumpy()
    want = data.reshape(expected)
    assert eager.shape == graph.shape == expected
    np.testing.assert_array_equal(eager, want)
    np.testing.assert_array_equal(graph, want)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(0, 2**31 - 1))
def test_codes_give_exactly_the_written_target_on_the_engine(problem, seed):
    names, target, factors = problem
    codes = synthesize(names, target)
    if codes is None:
        return
    rng = np.random.RandomState(seed)
    for _ in range(3):
        shape, expected, values = concrete(names, target, factors, rng)
        check_on(engine, shape, numeric_codes(codes, target, values), expected)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(coded_only=True))
def test_targets_made_of_coded_operations_get_codes(problem):
    """Copy (0), merge two (-3) and split by a literal or external size (-4 with a local -1)
    each have a code, whatever else the target holds and wherever its one -1 is."""
    names, target, _ = problem
    assert synthesize(names, target) is not None, target


def test_permuted_or_resized_targets_have_no_codes():
    b, ln, d = symbol("b"), symbol("l"), symbol("d")
    assert synthesize(["b", "l", "d"], [ln, b, d]) is None
    assert synthesize(["b", "l", "d"], [b, ln, const(2)]) is None
    assert synthesize(["b", "l", "d"], [b, ln, d, const(2)]) is None
    # (b * d, l) is no permutation: a row-major reshape like any other, (-1, 0)
    assert synthesize(["b", "l", "d"], [b * d, ln]) == (-1, 0)
    assert synthesize(["b", "l", "d"], [INFER, INFER, d]) is None


def test_the_issue_examples():
    b, ln, u, h, d = (symbol(n) for n in ("b", "l", "u", "h", "d"))
    assert synthesize(["b", "l", "u"], [b, ln, h, u / h]) == (0, 0, Ref(2), -1)
    assert synthesize(["b", "h", "l", "d"], [b * h, ln, INFER]) == (-3, 0, 0)
    assert synthesize(["bh", "l", "d"], [symbol("bh") / h, h, ln, INFER]) == (-4, -1, Ref(1), 0, 0)
    # a leading literal advances the source position: only a split of the first dim works
    assert synthesize(["b", "l", "d"], [const(1), b, ln, d]) == (-4, Ref(0), -1, 0, 0)


def test_unknown_trailing_dims_only_inferred():
    b, ln = symbol("b"), symbol("l")
    assert synthesize(["b"], [b, INFER], rest=True) == (0, -1)
    assert synthesize(["b", "l"], [b * ln, INFER], rest=True) == (-3, -1)
    assert synthesize(["b", "l"], [b * ln, const(2)], rest=True) is None  # the tail's size
    for extra in [(), (2,), (2, 3)]:  # (0, -1) for every tail
        shape = (3,) + extra
        check_on(engine, shape, (0, -1), (3, int(np.prod(extra))))


def test_a_target_of_the_named_dims_forces_the_others_to_one():
    """`(x.shape[0], x.shape[1] * x.shape[2] * x.shape[3])` (YOLO's heads, blind round 16): the
    original runs only where x's other dims hold one element, so codes for the named dims that
    also hold with 1s there are exact wherever it runs; where it raises, MXNet's size check
    makes the codes raise too (or, with an unknown tail, the -1 absorbs it)."""
    s0, s1, s2, s3 = (symbol(n) for n in ("s0", "s1", "s2", "s3"))
    assert synthesize(["s0", "s1", "s2", "s3"], [s0, s1 * s2 * s3], rest=True) == (0, -1)
    assert synthesize(["b", "l"], [symbol("b"), symbol("l")], rest=True) == (0, 0)
    assert synthesize(["b", "l", "d"], [symbol("b"), symbol("l")]) == (0, 0)
    # (0, -2) would copy the 1s too; a dim read twice or a number changes the size: no codes
    assert synthesize(["s0", "s1"], [s0, s1, s0], rest=True) is None
    check_on(engine, (2, 3, 4, 5), (0, -1), (2, 60))
    check_on(engine, (2, 3, 4, 5, 1), (0, -1), (2, 60))
    check_on(engine, (2, 3, 1), (0, 0), (2, 3))
    with pytest.raises(ValueError):  # as the original (2, 3) of a (2, 3, 4) does, in MXNet too
        engine.nd.zeros((2, 3, 4)).reshape((0, 0))


def test_a_written_tail_is_copied_by_minus_two_and_only_there():
    """`(-1, h) + x.shape[1:]`: the rest symbol written in the target may be copied by -2; a rest
    that only a -1 stands for may not (on a rank-4 source (0, -2) would keep 4 dims)."""
    s0, rest, h = symbol("s0"), symbol("<rest:x>"), symbol("ext:h")
    ext = lambda name: name.startswith("ext:")  # noqa: E731
    assert synthesize_dims([s0, rest], [INFER, h, rest], ext) == (-4, -1, Ref(1), -2)
    assert synthesize_dims([s0, rest], [s0, INFER], ext) == (0, -1)
    assert synthesize_dims([s0, rest], [s0, rest], ext) == (-2,)
    # the tail must start where the source position is: a dim copied twice is no tail
    assert synthesize_dims([s0, rest], [s0, s0, rest], ext) is None
    for extra in [(), (2,), (2, 3)]:
        check_on(engine, (6,) + extra, (-4, -1, 3, -2), (2, 3) + extra)


def test_positions_reading_a_shape_and_written_minus_ones_are_no_literals():
    a, h = symbol("a"), symbol("ext:h")
    ext = lambda name: name.startswith("ext:")  # noqa: E731
    # h read from a shape (no_literal) is no size code: no sequence gives a third dim then
    assert synthesize_dims([a * h, h], [a, h, h], ext) == (-1, 0, Ref(2))
    assert synthesize_dims([a * h, h], [a, h, h], ext, no_literal={1, 2}) is None
    # a -1 that stands for 2 stays -1 without `derived`
    assert synthesize_dims([a, const(4)], [a, const(2), INFER], ext) == (0, Ref(1), 2)
    assert synthesize_dims([a, const(4)], [a, const(2), INFER], ext, derived=False) == (
        0,
        Ref(1),
        -1,
    )


def test_simulate_reproduces_mxnets_inferred_position_quirk():
    """MXNet stores the -1's position as its index in the code list, which after a -2 is not
    its output position (engine/ops/shape.py reproduces it; so must the symbolic check)."""
    a, b, c = symbol("a"), symbol("b"), symbol("c")
    assert engine.nd.zeros((2, 3, 4)).reshape((-3, -1)).shape == (6, 4)
    assert simulate([a, b, c], (-3, -1), []) == [a * b, c]
    assert infer_reshape((2, 3), (-2, -1), check_size=False) == (2, 1, 1)
    assert simulate([a, b], (-2, -1), []) == [a, Dim(), Dim()]  # (MXNet 1.9.1 too)


@pytest.mark.mxnet
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(), st.integers(0, 2**31 - 1))
def test_codes_give_exactly_the_written_target_on_mxnet(problem, seed):
    mx = pytest.importorskip("mxnet")
    names, target, factors = problem
    codes = synthesize(names, target)
    if codes is None:
        return
    rng = np.random.RandomState(seed)
    for _ in range(2):
        shape, expected, values = concrete(names, target, factors, rng)
        if len(expected) > 6:  # MXNet's CPU build: "MKLDNN doesn't support 7 dimensions"
            continue
        check_on(mx, shape, numeric_codes(codes, target, values), expected)


# ---- HL001's fix: reshape targets written from the shape -> codes, run as blocks -------------
HL001 = next(rule for rule in ALL_RULES if rule.code == "HL001")
_BLOCK = (
    "class Net(HybridBlock):\n    def __init__(self, h):\n        super().__init__()\n"
    "        self._h = h\n\n    def hybrid_forward(self, F, {}):\n"
)

# body, codes it must become, input shapes from (h, k1, k2, k3, k4)
FIX_CASES = {
    "split last by h": (
        "b, l, u = x.shape\nreturn x.reshape((b, l, self._h, u // self._h))",
        "x.reshape((0, 0, self._h, -1))",
        lambda h, a, b, c, d: ((a, b, h * c),),
    ),
    "merge two": (
        "b, h, l, d = x.shape\nreturn x.reshape((b * h, l, -1))",
        "x.reshape((-3, 0, 0))",
        lambda h, a, b, c, d: ((a, b, c, d),),
    ),
    "split first": (
        "bh, l, d = x.shape\nreturn x.reshape((bh // self._h, self._h, l, -1))",
        "x.reshape((-4, -1, self._h, 0, 0))",
        lambda h, a, b, c, d: ((h * a, b, c),),
    ),
    "index product": (
        "return x.reshape((x.shape[0] * x.shape[1], -1))",
        "x.reshape((-3, -1))",
        lambda h, a, b, c, d: ((a, b, c, d)[: 2 + d % 3],),
    ),
    "F.reshape": (
        "b, l, u = x.shape\nreturn F.reshape(x, shape=(b * l, u))",
        "F.reshape(x, shape=(-3, 0))",
        lambda h, a, b, c, d: ((a, b, c),),
    ),
    "varargs": (
        "b, l, u = x.shape\nreturn x.reshape(b, l * u)",
        "x.reshape((0, -3))",
        lambda h, a, b, c, d: ((a, b, c),),
    ),
    "underscore": (
        "_, c, hh, w = x.shape\nreturn x.reshape((-1, c * hh * w))",
        "x.reshape((0, -1))",
        lambda h, a, b, c, d: ((a, b, c, d),),
    ),
    "reshape_like": (
        "return x.reshape(y.shape) + y",
        "F.reshape_like(x, y)",
        lambda h, a, b, c, d: ((a, b, c), (a * b, c)),
    ),
}


def _net(source: str, lib):
    namespace = {"HybridBlock": lib.gluon.HybridBlock}
    if lib.__name__.startswith("hybridlint"):
        with engine.as_mxnet():
            exec(compile(source, "<case>", "exec"), namespace)
    else:
        exec(compile(source, "<case>", "exec"), namespace)
    return namespace["Net"]


def _run(klass, lib, h, shapes, hybridize):
    net = klass(h)
    net.initialize()
    if hybridize:
        net.hybridize()
    rng = np.random.RandomState(0)
    return net(*[lib.nd.array(rng.uniform(-1, 1, s)) for s in shapes]).asnumpy()


def _fixed(name):
    body, _, shapes = FIX_CASES[name]
    inputs = "x, y" if len(shapes(1, 1, 1, 1, 1)) == 2 else "x"
    source = _BLOCK.format(inputs) + "".join("        " + line + "\n" for line in body.splitlines())
    return source, fix_source(source, rules=[HL001]).source


@pytest.mark.parametrize("name", sorted(FIX_CASES))
def test_hl001_writes_the_target_as_codes(name):
    source, fixed = _fixed(name)
    assert FIX_CASES[name][1] in fixed and ".shape" not in fixed, fixed
    assert not [f for f in lint_source(fixed, rules=[HL001])]


def _same_on(lib, name, h, dims):
    source, fixed = _fixed(name)
    shapes = FIX_CASES[name][2](h, *dims)
    want = _run(_net(source, lib), lib, h, shapes, False)
    for hybridize in (False, True):
        got = _run(_net(fixed, lib), lib, h, shapes, hybridize)
        assert got.shape == want.shape
        np.testing.assert_array_equal(got, want)


_DIMS = st.tuples(
    st.integers(1, 3), st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.integers(1, 4)
)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(FIX_CASES)), _DIMS)
def test_hl001_codes_equal_the_original_eager_output_on_the_engine(name, dims):
    _same_on(engine, name, dims[0], dims[1:])


@pytest.mark.mxnet
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(FIX_CASES)), _DIMS)
def test_hl001_codes_equal_the_original_eager_output_on_mxnet(name, dims):
    _same_on(pytest.importorskip("mxnet"), name, dims[0], dims[1:])


def test_hl001_leaves_targets_without_codes_alone():
    for body in (
        "b, l, u = x.shape\nreturn x.reshape((l, b, u)) + y",  # a permutation
        "b, l, u = x.shape\ny = x.reshape((b, l, 2, -1))\nreturn y * b",
    ):  # b used elsewhere
        source = _BLOCK.format("x, y") + "".join(
            "        " + line + "\n" for line in body.splitlines()
        )
        assert fix_source(source, rules=[HL001]).source == source
