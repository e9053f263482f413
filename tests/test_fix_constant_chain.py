"""HL005 on `nd.array(literal)` that reaches the graph through fluent NDArray methods (issue 12).

`base = nd.array([[...]])` followed by `F.tile(base.expand_dims(axis=0), reps=(x.shape[0], 1, 1))`
(testdata/rewrite_corpus/anchor_batch_tile.py), `F.broadcast_add(x, c.T.astype(...))`,
`c.expand_dims(0).broadcast_like(x)`...: HL005 follows the array through the methods a Symbol
has too (and `.T`, and arithmetic with a number) until it meets the graph and makes it a constant
parameter (`self.params.get_constant`), the fluent calls staying; HL001 then rewrites the tile
(the constant's literal shape expanded at axis 0 has a 1 there) and `.T`.

For random literal tables and batch sizes (hypothesis) the source is fixed with every rule,
unsafe fixes included (as `hybridlint --fix --unsafe-fixes`); the original runs eagerly (the
reference), the fixed block eagerly and hybridized: values, shapes and dtypes equal, nothing
left to report. On the bundled engine and, marked `mxnet`, on real MXNet 1.9.1.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from fix_support import fix_source, lint_source

BACKENDS = [
    pytest.param("engine", id="engine"),
    pytest.param("mxnet", id="mxnet", marks=pytest.mark.mxnet),
]
SETTINGS = settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def backend_module(name):
    if name == "mxnet":
        return pytest.importorskip("mxnet")
    import hybridlint.engine as engine

    return engine


def engine_lacks(error: Exception) -> bool:
    text = str(error)
    return "does not implement" in text or "engine does not" in text


def build(source: str, mx):
    namespace = {"HybridBlock": mx.gluon.HybridBlock, "mx": mx, "nd": mx.nd}
    exec(compile(source, "<fixture>", "exec"), namespace)
    return namespace["Net"]


def call(klass, inputs_np, mx, hybridize: bool):
    net = klass()
    net.initialize()
    if hybridize:
        net.hybridize()
    out = net(*[mx.nd.array(a, dtype=a.dtype) for a in inputs_np])
    return out.asnumpy(), out.dtype


def table(rows, cols, seed):
    """A literal table that is not constant-filled (that is F.full's case, not a constant's)."""
    values = np.random.RandomState(seed).uniform(-1, 1, size=(rows, cols)).round(2)
    values[0, 0], values[-1, -1] = 0.75, -0.5
    return values


def source_of(body: str, with_init: bool) -> str:
    init = (
        "    def __init__(self, **kwargs):\n        super(Net, self).__init__(**kwargs)\n\n"
        if with_init
        else ""
    )
    lines = "".join(f"        {line}\n" for line in body.splitlines())
    return f"class Net(HybridBlock):\n{init}    def hybrid_forward(self, F, x):\n{lines}"


def check(source: str, inputs_np, mx):
    """HL005 reports an unsafe fix; fixed with every rule nothing is left, and the original's
    eager output equals the fixed block's, eagerly and hybridized."""
    findings = [f for f in lint_source(source) if f.code == "HL005"]
    assert findings and findings[0].fix == "unsafe", (source, findings)
    fixed = fix_source(source, unsafe=True).source
    assert "get_constant" in fixed and "nd.array" not in fixed, fixed
    assert not lint_source(fixed), (fixed, lint_source(fixed))
    try:
        expected = call(build(source, mx), inputs_np, mx, False)
    except Exception:  # noqa: BLE001 - the original fails on this input: nothing to compare
        assume(False)
    try:
        for hybridize in (False, True):
            got, dtype = call(build(fixed, mx), inputs_np, mx, hybridize)
            assert got.shape == expected[0].shape and dtype == expected[1], (
                fixed,
                hybridize,
                got.shape,
            )
            np.testing.assert_array_equal(
                got, expected[0], err_msg=f"{fixed}\nhybridize={hybridize}"
            )
    except Exception as error:  # noqa: BLE001
        if mx.__name__.startswith("hybridlint") and engine_lacks(error):
            pytest.skip(f"engine: {error}")
        raise
    return fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    rows=st.integers(1, 4),
    cols=st.integers(2, 5),
    batch=st.integers(1, 4),
    seed=st.integers(0, 1000),
    assigned=st.booleans(),
    with_init=st.booleans(),
)
def test_tiled_anchor_table(backend, rows, cols, batch, seed, assigned, with_init):
    """The corpus block: a literal table expanded at axis 0 and tiled to the batch size."""
    mx = backend_module(backend)
    literal = repr(table(rows, cols, seed).tolist())
    tile = "F.tile({}.expand_dims(axis=0), reps=(x.shape[0], 1, 1))"
    body = (
        f"base = nd.array({literal})\nreturn {tile.format('base')}"
        if assigned
        else f"return {tile.format(f'nd.array({literal})')}"
    )
    x = np.random.RandomState(seed + 1).uniform(-1, 1, size=(batch, 4, 3, 3)).astype("float32")
    fixed = check(source_of(body, with_init), [x], mx)
    assert "broadcast_like" in fixed and "tile" not in fixed, fixed  # HL001's rewrite took the tile


# (the chain on a constant c of shape (r, k), the shape of x it meets: B = batch) -> how x meets it
CHAINS = [
    ("{c}.expand_dims(axis=0)", lambda b, r, k: (b, r, k)),
    ("{c}.reshape((1, {r}, {k}))", lambda b, r, k: (b, r, k)),
    ("{c}.astype('float32').expand_dims(0)", lambda b, r, k: (b, r, k)),
    ("{c}.T", lambda b, r, k: (b, k, r)),
    ("({c} * 2 - 1).expand_dims(axis=0)", lambda b, r, k: (b, r, k)),
    ("(-{c}).T.expand_dims(axis=0)", lambda b, r, k: (b, k, r)),
    ("{c}.expand_dims(axis=0).broadcast_like(x)", lambda b, r, k: (b, r, k)),
    ("F.expand_dims({c}, axis=0)", lambda b, r, k: (b, r, k)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    rows=st.integers(2, 4),
    cols=st.integers(2, 4),
    batch=st.integers(1, 3),
    seed=st.integers(0, 1000),
    chain=st.integers(0, len(CHAINS) - 1),
    assigned=st.sampled_from(["inline", "local", "chained local"]),
    with_init=st.booleans(),
)
def test_constant_through_fluent_methods(
    backend, rows, cols, batch, seed, chain, assigned, with_init
):
    mx = backend_module(backend)
    form, x_shape = CHAINS[chain]
    literal = f"nd.array({table(rows, cols, seed).tolist()!r})"
    if assigned == "inline":
        body = f"return F.broadcast_add(x, {form.format(c=literal, r=rows, k=cols)})"
    elif assigned == "local":
        body = f"c = {literal}\nreturn F.broadcast_add(x, {form.format(c='c', r=rows, k=cols)})"
    else:
        body = (
            f"c = {literal}\nd = {form.format(c='c', r=rows, k=cols)}\nreturn F.broadcast_mul(x, d)"
        )
    x = (
        np.random.RandomState(seed + 1)
        .uniform(-1, 1, size=x_shape(batch, rows, cols))
        .astype("float32")
    )
    check(source_of(body, with_init), [x], mx)
