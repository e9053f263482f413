"""Running a rule example's source as a block, on real MXNet 1.9.1 or on the bundled engine
(the ground-truth half of tests/test_rule_examples.py)."""

import inspect
import itertools
import logging
import re

import numpy as np
import pytest

from hybridlint.linter import lint_source

BACKENDS = [
    pytest.param("engine", id="engine"),
    pytest.param("mxnet", id="mxnet", marks=pytest.mark.mxnet),
]
# Input shapes tried in order (every input, all combinations) until the eager block runs.
SHAPES = [(2, 3), (2, 2), (3, 4), (2, 3, 4), (3,), (2, 4), (4, 3), (2, 4, 3, 3)]


def backend(name):
    """Real MXNet (skipped when absent) or the bundled engine."""
    if name == "mxnet":
        return pytest.importorskip("mxnet")
    import hybridlint.engine as engine

    return engine


def net_class(source: str, mx):
    """The example's `Net` class, its module names bound to ``mx``'s (the engine's modules
    stand for mxnet's while the source runs)."""
    namespace = {
        "HybridBlock": mx.gluon.HybridBlock,
        "mx": mx,
        "nd": mx.nd,
        "np": np,
        "nn": mx.gluon.nn,
        "gluon": mx.gluon,
        "logging": logging,
    }
    if mx.__name__.startswith("hybridlint"):
        from hybridlint.engine import as_mxnet

        with as_mxnet():
            exec(compile(source, "<example>", "exec"), namespace)
    else:
        exec(compile(source, "<example>", "exec"), namespace)
    return namespace["Net"]


def input_count(klass) -> int:
    """hybrid_forward's inputs: positional parameters after F that are not gluon parameters."""
    registered = klass()._reg_params
    params = list(inspect.signature(klass.hybrid_forward).parameters.values())[2:]
    return sum(
        1
        for p in params
        if p.default is inspect.Parameter.empty
        and p.kind == p.POSITIONAL_OR_KEYWORD
        and p.name not in registered
    )


def settle(mx) -> None:
    """MXNet runs operators asynchronously: let a failed run's pending errors surface here,
    not in a later, unrelated test."""
    try:
        mx.nd.waitall()
    except Exception:  # noqa: BLE001
        pass


def _plain(value, mx):
    """A block attribute as comparable data (arrays by value, Symbols by kind)."""
    if isinstance(value, mx.nd.NDArray):
        return ("array", value.asnumpy().tolist())
    if isinstance(value, mx.sym.Symbol):
        return ("symbol",)
    if isinstance(value, (list, tuple)):
        return [_plain(v, mx) for v in value]
    if isinstance(value, (int, float, str, bool, type(None))):
        return value
    return type(value).__name__


def run(klass, mx, shapes, hybridize: bool, attributes=()):
    """Outputs of two calls with the same inputs, the trainable parameters changed in between
    (+1, as a training step does: a value frozen into the graph while tracing goes stale), and
    the named block attributes afterwards."""
    net = klass()
    mx.random.seed(0)  # the same parameter values in every run (original, fixed, hybridized)
    net.initialize()
    if hybridize:
        net.hybridize()
    rng = np.random.RandomState(0)
    values = [rng.randint(1, 4, size=s).astype("float32") for s in shapes]
    outputs = []
    for call in range(2):
        out = net(*[mx.nd.array(v) for v in values])  # fresh: an in-place write stays in its call
        outputs += [o.asnumpy() for o in (out if isinstance(out, (list, tuple)) else [out])]
        if call == 0:
            for param in net.collect_params().values():
                if param.grad_req != "null":  # a constant stays what it is
                    param.set_data(param.data() + 1)
    state = {name: _plain(getattr(net, name, None), mx) for name in attributes}
    return outputs, state


def state_attributes(source: str, klass) -> list:
    """`self.<attr>` names of the example that are neither parameters nor children (a private
    `self.__x` under the name Python gives it, `_Net__x`)."""
    net = klass()
    mangle = f"_{klass.__name__.lstrip('_')}"
    names = sorted(
        {
            mangle + n if n.startswith("__") and not n.endswith("__") else n
            for n in re.findall(r"self\.(\w+)", source)
        }
    )
    return [
        n
        for n in names
        if n not in net._reg_params
        and n not in net._children
        and not callable(getattr(net, n, None))
    ]


def eager_reference(source: str, mx):
    """(input shapes, attributes, eager outputs and state) for the first shapes that run,
    else skip."""
    try:
        klass = net_class(source, mx)
        attributes = state_attributes(source, klass)
    except Exception as error:  # noqa: BLE001
        pytest.skip(f"the example does not build as written ({type(error).__name__})")
    settle(mx)  # an earlier test's pending asynchronous error must not fail these shapes
    for shapes in itertools.product(SHAPES, repeat=input_count(klass)):
        try:
            return list(shapes), attributes, run(klass, mx, shapes, False, attributes)
        except Exception:  # noqa: BLE001 - try the next shapes
            settle(mx)
    pytest.skip("the example does not run eagerly as written (a fragment)")


def same(a, b, state: bool = True) -> bool:
    """Two runs agree: outputs (shape and values) and, with `state`, the block attributes."""
    (outs_a, state_a), (outs_b, state_b) = a, b
    return (
        (not state or state_a == state_b)
        and len(outs_a) == len(outs_b)
        and all(
            x.shape == y.shape and np.allclose(x, y, rtol=1e-5, atol=1e-6)
            for x, y in zip(outs_a, outs_b)
        )
    )


def prints_once_while_tracing(source: str, mx, shapes, capsys) -> bool:
    """Eagerly the values are printed on every call; hybridized only `<Symbol` while tracing."""
    net = net_class(source, mx)()
    net.initialize()
    arrays = [mx.nd.ones(s) for s in shapes]
    capsys.readouterr()
    net(*arrays)
    eager_text = capsys.readouterr().out
    net.hybridize()
    net(*arrays)
    first = capsys.readouterr().out
    net(*arrays)
    second = capsys.readouterr().out
    return "<Symbol" not in eager_text and "<Symbol" in first and second == ""


def skip_unless_comparable(code: str) -> None:
    """Skip a VALID example whose hybridized run is not expected to equal its eager run,
    saying why."""
    if "class Net" not in code:
        pytest.skip("not a block")
    if lint_source(re.sub(r"#.*", "", code)):
        pytest.skip("some rule reports it (suppressed, or another rule's hazard)")
    if re.search(r"isinstance\(|F is |F == ", code):
        pytest.skip("eager-only branch: differs from the hybridized run by design")
    if list_input(code) or re.search(
        r"def hybrid_forward\(self, F, [^)]*(state|hidden|cache|mem)", code
    ):
        pytest.skip("an input gluon passes as a list; the harness feeds single arrays")
    if "gluon may pass" in code:
        pytest.skip("an input nothing proves an array (it may be a list); the harness feeds arrays")
    if re.search(r"def hybridize\(|use_np|F\.np\.", code):
        pytest.skip("a block that refuses hybridize() or runs in numpy mode")


def _inputs(code: str):
    """hybrid_forward's input names (after self and F) and the text after its signature."""
    _, _, body = code.partition("def hybrid_forward(")
    names = [n.strip().split("=")[0].strip() for n in body.split(")", 1)[0].split(",")[2:]]
    return [n for n in names if n and not n.startswith("*")], body.partition(":")[2]


def unused_input(code: str) -> bool:
    """Whether hybrid_forward leaves an input unused: MXNet's CachedOp then fails on its own
    (no gradient inputs), whatever the body does."""
    names, rest = _inputs(code)
    return any(not re.search(rf"\b{n}\b", rest) for n in names)


def list_input(code: str) -> bool:
    """Whether hybrid_forward unpacks an input (`*x`) or assigns to its items (`x[i] = ...`):
    gluon passes it a list; the harness feeds single arrays."""
    names, rest = _inputs(code)
    return any(re.search(rf"\*{n}\b|\b{n}\[[^\]]*\]\s*=[^=]", rest) for n in names)
