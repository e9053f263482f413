"""HL005's constant parameter in classes without their own `__init__`, checked by running it.

`rules/_constant_param.py` adds `self.<c> = self.params.get_constant(...)` to `__init__`; a class
with no `__init__` of its own gets one passing every argument on. Two forms beyond the
docstring case of tests/test_fix_equivalence_hl005_010.py: hybrid_forward is the class's first
statement (one edit then holds the new `__init__` and the rewritten hybrid_forward, which the
lines with several hazards of issue 12 need: `(h - nd.array(...)) / t.asscalar()`), and an
`__init__` inherited from a base class of the module (the base, whose own hybrid_forward takes
no constant, must stay as it is). For random shapes and values (hypothesis) the original runs
eagerly (the reference), the fixed block eagerly and hybridized: values, shapes and dtypes equal,
and the base class still runs. On the bundled engine and, marked `mxnet`, on real MXNet 1.9.1.
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
shapes = (
    st.lists(st.integers(1, 4), min_size=1, max_size=3)
    .map(tuple)
    .filter(lambda s: int(np.prod(s)) >= 2)
)


def backend_module(name):
    if name == "mxnet":
        return pytest.importorskip("mxnet")
    import hybridlint.engine as engine

    return engine


def build(source: str, mx):
    namespace = {"HybridBlock": mx.gluon.HybridBlock, "mx": mx, "nd": mx.nd}
    exec(compile(source, "<fixture>", "exec"), namespace)
    return namespace


def call(klass, inputs_np, mx, hybridize: bool):
    net = klass()
    net.initialize()
    if hybridize:
        net.hybridize()
    out = net(*[mx.nd.array(a, dtype=a.dtype) for a in inputs_np])
    return out.asnumpy(), out.dtype


def check(source: str, inputs_np, mx, codes=("HL005",)):
    fixed = fix_source(source, select=list(codes), unsafe=True).source
    assert fixed != source
    assert not [f for f in lint_source(fixed) if f.code in codes], fixed
    compile(fixed, "<fixed>", "exec")
    try:
        expected = call(build(source, mx)["Net"], inputs_np, mx, False)
    except Exception:  # noqa: BLE001 - the original fails on this input: nothing to compare
        assume(False)
    for hybridize in (False, True):
        got, dtype = call(build(fixed, mx)["Net"], inputs_np, mx, hybridize)
        assert got.shape == expected[0].shape and dtype == expected[1], (fixed, hybridize)
        np.testing.assert_array_equal(got, expected[0], err_msg=f"{fixed}\nhybridize={hybridize}")
    return fixed


def constant(shape, seed):
    const = np.random.RandomState(seed).uniform(-2, 2, size=shape).round(3)
    const.flat[0], const.flat[-1] = 7.5, -1.25  # never constant-filled (that is F.full's case)
    return const


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000), assigned=st.booleans())
def test_hybrid_forward_first_in_a_class_without_init(backend, shape, seed, assigned):
    mx = backend_module(backend)
    const = constant(shape, seed)
    body = (
        f"c = nd.array({const.tolist()!r})\n        return F.broadcast_sub(x, c)"
        if assigned
        else f"return F.broadcast_mul(F.relu(x), nd.array({const.tolist()!r}))"
    )
    source = f"class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        {body}\n"
    findings = [f for f in lint_source(source) if f.code == "HL005"]
    assert findings and findings[0].fix == "unsafe", findings
    x = np.random.RandomState(seed + 1).uniform(-3, 3, size=shape).astype("float32")
    fixed = check(source, [x], mx)
    assert fixed.index("def __init__(self, *args, **kwargs)") < fixed.index("def hybrid_forward")


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000), k=st.integers(1, 4))
def test_init_inherited_from_a_module_base_class(backend, shape, seed, k):
    mx = backend_module(backend)
    const = constant(shape, seed)
    base = (
        f"class Base(HybridBlock):\n    def __init__(self, k={k}, **kwargs):\n"
        "        super(Base, self).__init__(**kwargs)\n        self._k = k\n\n"
        "    def hybrid_forward(self, F, x):\n        return x * self._k\n\n\n"
    )
    source = base + (
        "class Net(Base):\n    def hybrid_forward(self, F, x):\n"
        f"        return F.broadcast_add(x, nd.array({const.tolist()!r})) * self._k\n"
    )
    x = np.random.RandomState(seed + 1).uniform(-3, 3, size=shape).astype("float32")
    fixed = check(source, [x], mx)
    assert fixed.startswith(base), fixed  # the base class is untouched
    namespace = build(fixed, mx)
    got, _ = call(namespace["Base"], [x], mx, True)  # and still runs as before
    np.testing.assert_array_equal(got, x * k)


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(shape=shapes, seed=st.integers(0, 1000))
def test_a_line_with_a_constant_and_a_scalar_read_is_fixed_whole(backend, shape, seed):
    """HL005 (the constant, which adds __init__ before hybrid_forward) and HL002 (the number
    read with asscalar) on one line, in a class without __init__: both fixes land, in one or
    two passes, and the block hybridizes with the eager result (float32: bit for bit)."""
    mx = backend_module(backend)
    const = constant(shape[-1:] if shape[-1] >= 2 else (2,), seed)
    shape = shape[:-1] + const.shape
    source = (
        "class Net(HybridBlock):\n    def hybrid_forward(self, F, x):\n        h = F.relu(x)\n"
        f"        return (h - nd.array({const.tolist()!r})) / h.max().asscalar()\n"
    )
    x = np.random.RandomState(seed + 1).uniform(0.5, 3, size=shape).astype("float32")
    fixed = check(source, [x], mx, codes=("HL002", "HL005", "HL007"))
    assert "asscalar" not in fixed and "nd.array" not in fixed, fixed


@pytest.mark.parametrize("backend", BACKENDS)
@settings(SETTINGS, max_examples=5)
@given(shape=shapes, seed=st.integers(0, 1000), dtype=st.sampled_from(["float32", "float64"]))
def test_an_ndarray_attribute_made_in_init_becomes_a_constant_in_place(backend, shape, seed, dtype):
    """`self.mean = mx.nd.array(mean, ...)` in `__init__` read by hybrid_forward (gluoncv's
    DeNormalize): the value becomes `self.params.get_constant('mean', <same value>)`, the
    signature takes `mean`; values, shape and dtype (float64 too) stay those of the NDArray."""
    mx = backend_module(backend)
    const = constant(shape, seed)
    source = (
        "class Net(HybridBlock):\n"
        f"    def __init__(self, mean={const.tolist()!r}, **kwargs):\n"
        "        super(Net, self).__init__(**kwargs)\n"
        f"        self.mean = mx.nd.array(mean, ctx=mx.cpu(0), dtype={dtype!r})\n\n"
        "    def hybrid_forward(self, F, x):\n"
        f"        y = F.broadcast_mul(x, self.mean.reshape(shape=(1,) + {tuple(shape)!r}))\n"
        "        return F.broadcast_add(y, self.mean)\n"
    )
    x = np.random.RandomState(seed + 1).uniform(-3, 3, size=shape).astype(dtype)
    fixed = check(source, [x], mx)
    assert "get_constant('mean', mx.nd.array(mean" in fixed, fixed


HELPER = (
    "import numpy as np\n\n\nclass Net(HybridBlock):\n    def __init__(self, n=3, **kwargs):\n"
    "        super().__init__(**kwargs)\n        self._n = n\n\n"
    "    def _scaled(self, F, x):\n{body}\n"
    "    def hybrid_forward(self, F, x):\n        return self._scaled(F, x)\n"
)


def _hl005_fixes(source):
    return [f.fix for f in lint_source(source) if f.code == "HL005"]


def test_a_helper_constant_is_threaded_even_when_the_helper_reads_its_attribute_in_a_tuple():
    """`x.reshape((self._n, -1))` reads `self._n`, it does not store it (a tuple display is a
    target only in an assignment): the constant built from `self._n` in __init__ is exact."""
    body = (
        "        y = x.reshape((self._n, -1))\n"
        "        scale = F.array(np.arange(self._n, dtype=np.float32).reshape(-1, 1))\n"
        "        return F.broadcast_mul(y, scale)\n"
    )
    assert _hl005_fixes(HELPER.format(body=body)) == ["unsafe"]


@pytest.mark.parametrize(
    "body",
    [
        # made only behind a branch: __init__ would build it for configurations that never do
        "        if self._n > 2:\n"
        "            x = F.broadcast_mul(x, F.array(np.ones(self._n) * 2))\n        return x\n",
        # after an early return
        "        if self._n == 1:\n            return x\n"
        "        scale = F.array(np.ones(self._n) * 2)\n        return F.broadcast_mul(x, scale)\n",
        # a value from the helper's own input
        "        scale = F.array(np.ones(x.ndim) * 2)\n        return F.broadcast_mul(x, scale)\n",
    ],
    ids=["branch", "early-return", "input"],
)
def test_a_helper_creation_that_may_not_run_or_reads_inputs_is_reported_without_a_fix(body):
    assert _hl005_fixes(HELPER.format(body=body)) == [None]


@pytest.mark.parametrize("backend", BACKENDS)
@settings(SETTINGS, max_examples=5)
@given(n=st.integers(2, 5), rows=st.integers(1, 4), seed=st.integers(0, 1000))
def test_helper_constants_threaded_through_hybrid_forward_compute_the_same(backend, n, rows, seed):
    """Two helpers each making a strictly-upper-triangular mask from numpy (gluonfr RangeLoss):
    both become constants built in __init__, passed by hybrid_forward; eager and hybridized
    equal the original bit for bit. The two fixes make the same constant (same name, same
    numpy expression): their identical edits of __init__ and hybrid_forward are applied once,
    so both helpers read one constant."""
    mx = backend_module(backend)
    mask = "F.array(1. - np.greater_equal.outer(np.arange(self._n), np.arange(self._n)).astype(np.float32))"
    source = (
        "import numpy as np\n\n\nclass Net(HybridBlock):\n"
        f"    def __init__(self, n={n}, **kwargs):\n"
        "        super().__init__(**kwargs)\n        self._n = n\n\n"
        f"    def _upper(self, F, x):\n        mask = {mask}\n        return F.dot(x, mask)\n\n"
        "    def _acc(self, F, x):\n        acc = F.array([0.])\n        for i in range(2):\n"
        f"            mask = {mask}\n            acc = F.broadcast_add(acc, F.sum(F.dot(x, mask)))\n"
        "        return acc\n\n"
        "    def hybrid_forward(self, F, x):\n"
        "        return F.broadcast_add(self._upper(F, x), self._acc(F, x))\n"
    )
    x = np.random.RandomState(seed).uniform(-3, 3, size=(rows, n)).astype("float32")
    fixed = check(source, [x], mx)
    assert "F.array" not in fixed and fixed.count("get_constant") == 1, fixed
    assert "self._upper(F, x, mask=mask)" in fixed and "self._acc(F, x, mask=mask)" in fixed
