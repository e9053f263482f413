"""What the fix property tests (tests/test_fix_*.py, tests/test_tensor_iteration.py) share.

Their method: for random shapes and values (hypothesis), a block using the original expression
is linted and fixed with the real linter; the original block runs eagerly (the reference), the
fixed block runs eagerly and hybridized, and values, shapes and dtypes must equal the reference.
Each property runs on the bundled engine and, marked `mxnet`, on real MXNet 1.9.1 (the ground
truth; /tmp/mxv/bin/python -m pytest ...). When the engine lacks an operator a form needs, the
engine case is skipped naming it (the real-MXNet case still runs).

This module holds one copy of the scaffolding for that: the two backends, the hypothesis
settings, the block written around a hybrid_forward body, building and running it.
"""

import contextlib
import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, settings

from hybridlint import linter

BACKENDS = [
    pytest.param("engine", id="engine"),
    pytest.param("mxnet", id="mxnet", marks=pytest.mark.mxnet),
]


def fix_settings(max_examples: int, **more) -> settings:
    """Hypothesis settings of these properties: no deadline (MXNet's first calls are slow) and
    no health check against slow data or function-scoped fixtures (the backend parameter)."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        **more,
    )


# Linting and fixing are deterministic functions of the source text and the arguments, and they
# dominate these tests' time (LibCST parses, metadata, rule walks: ~90% of a property's run).
# Hypothesis draws the same block source many times (most drawn values only change the input
# data, not the text), and each backend's run lints it again; so the results are memoized per
# (source, arguments) in each test process. Every example still checks its lint and fix
# results: only recomputing an identical result is skipped.
_LINTED: dict = {}
_FIXED: dict = {}


def _key(source, args, kwargs):
    """A cache key, or None when an argument is not plain data (a callable `accept`, rule
    classes): those calls are not memoized."""
    plain = (str, int, bool, type(None))
    items = list(args) + [v for _, v in sorted(kwargs.items())]
    for v in items:
        if isinstance(v, (list, tuple, set, frozenset)):
            if not all(isinstance(e, plain) for e in v):
                return None
        elif not isinstance(v, plain):
            return None
    return (source, repr(args), repr(sorted(kwargs.items())))


def lint_source(source, *args, **kwargs):
    """`hybridlint.linter.lint_source`, memoized (see above); returns a fresh list."""
    key = _key(source, args, kwargs)
    if key is None:
        return linter.lint_source(source, *args, **kwargs)
    if key not in _LINTED:
        _LINTED[key] = tuple(linter.lint_source(source, *args, **kwargs))
    return list(_LINTED[key])


def fix_source(source, *args, **kwargs):
    """`hybridlint.linter.fix_source`, memoized (see above); returns a fresh FixResult (its
    lists copied; findings are frozen)."""
    key = _key(source, args, kwargs)
    if key is None:
        return linter.fix_source(source, *args, **kwargs)
    if key not in _FIXED:
        _FIXED[key] = linter.fix_source(source, *args, **kwargs)
    r = _FIXED[key]
    return dataclasses.replace(
        r, applied=list(r.applied), remaining=list(r.remaining), initial=list(r.initial)
    )


def backend_module(name):
    """Real MXNet (skipped when absent) or the bundled engine."""
    if name == "mxnet":
        return pytest.importorskip("mxnet")
    import hybridlint.engine as engine

    return engine


def block_source(body: str, inputs: str = "x", init: str = "", head: str = "") -> str:
    """`class Net(HybridBlock)` with `body` as hybrid_forward's body (after `head`, e.g. an
    import); `init` lines, if any, go in an `__init__` after `super(Net, self).__init__()`."""
    text = head + "class Net(HybridBlock):\n"
    if init:
        text += "    def __init__(self):\n        super(Net, self).__init__()\n"
        text += "".join(f"        {line}\n" for line in init.splitlines()) + "\n"
    text += f"    def hybrid_forward(self, F, {inputs}):\n"
    return text + "".join(f"        {line}\n" for line in body.splitlines())


_NAMES = {
    "mx": lambda mx: mx,
    "nd": lambda mx: mx.nd,
    "nn": lambda mx: mx.gluon.nn,
    "gluon": lambda mx: mx.gluon,
}


def build(source: str, mx, names=("mx",)):
    """The source's `Net` class, with `HybridBlock` and `names` (of mx, nd, nn, gluon) bound to
    the backend's; on the engine an `import mxnet` in the source gets the engine."""
    namespace = {"HybridBlock": mx.gluon.HybridBlock}
    namespace.update((name, _NAMES[name](mx)) for name in names)
    if mx.__name__.startswith("hybridlint"):
        from hybridlint.engine import as_mxnet

        with as_mxnet():
            exec(compile(source, "<fixture>", "exec"), namespace)
    else:
        exec(compile(source, "<fixture>", "exec"), namespace)
    return namespace["Net"]


def run(net_class, arrays, hybridize: bool, initialize: bool = False, params=None):
    """One block's output on `arrays` (backend arrays); `params` (name -> array) set after
    initialization."""
    net = net_class()
    if initialize:
        net.initialize()
    for name, value in (params or {}).items():
        getattr(net, name).set_data(value)
    if hybridize:
        net.hybridize()
    return net(*arrays)


def run_with_fixed_params(source: str, mx, arrays, hybridize: bool, attrs=None):
    """The source's `Net(**attrs)` (with `HybridBlock`, `mx` and `nn` bound) on `arrays`, every
    parameter set to the same deterministic values in each build, so that an original and its
    fix compare output for output. Parameters of deferred shape get it from one eager call."""
    namespace = {"HybridBlock": mx.gluon.HybridBlock, "mx": mx, "nn": mx.gluon.nn}
    exec(compile(source, "<fixture>", "exec"), namespace)
    net = namespace["Net"](**(attrs or {}))
    net.initialize()
    params = list(net.collect_params().values())
    if any(not all(param.shape) for param in params):  # deferred: e.g. Conv2D without in_channels
        net(*arrays)
    for i, param in enumerate(params):
        values = (np.arange(int(np.prod(param.shape))) * (i + 3)) % 7 - 3
        param.set_data(mx.nd.array(values.reshape(param.shape).astype("float32")))
    if hybridize:
        net.hybridize()
    return net(*arrays)


def engine_lacks(error: Exception) -> bool:
    text = str(error)
    return "does not implement" in text or "engine does not" in text


@contextlib.contextmanager
def engine_gaps_skipped(mx):
    """Skip (naming the operator) where the engine lacks what a form needs; re-raise otherwise."""
    try:
        yield
    except Exception as error:
        if mx.__name__.startswith("hybridlint") and engine_lacks(error):
            pytest.skip(f"engine: {error}")
        raise


def data(shape, dtype="float32"):
    """1, 2, 3, ... in `shape`."""
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape) + 1


@contextlib.contextmanager
def children_check_lifted(mx):
    """HL010's originals put a plain Block inside a HybridBlock, which gluon refuses at
    construction; with the check lifted the original runs eagerly as the reference."""
    hybrid = mx.gluon.HybridBlock
    saved = hybrid.__dict__["register_child"]
    hybrid.register_child = mx.gluon.Block.register_child
    try:
        yield
    finally:
        hybrid.register_child = saved


def assert_fix_works_where_the_original_fails(
    source: str, fixed: str, mx, arrays_np, attrs=None
) -> None:
    """The original `Net(**attrs)` runs eagerly and fails hybridized on `arrays_np`, and the
    fixed one gives the original's eager output eagerly and hybridized (same parameters):
    the finding is real and its fix keeps what working code computes."""
    import numpy as np

    def output(text: str, hybridize: bool):
        arrays = [mx.nd.array(a) for a in arrays_np]
        return run_with_fixed_params(text, mx, arrays, hybridize, attrs).asnumpy()

    with engine_gaps_skipped(mx):
        expected = output(source, False)
        with pytest.raises(Exception):  # noqa: B017 - MXNet's shape error, the engine's its own
            output(source, True)
        for hybridize in (False, True):
            np.testing.assert_allclose(output(fixed, hybridize), expected, rtol=1e-5, atol=1e-6)
