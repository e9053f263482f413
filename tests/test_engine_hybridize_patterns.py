"""The hybridize failure patterns hybridlint exists to catch: for each, a HybridBlock runs
eagerly and hybridized on the engine and on real MXNet 1.9.1; both must agree on whether the
pattern raises (and with which exception type) or silently computes something different."""

import numpy as np
import pytest

import hybridlint.engine as mx

PATTERNS = {
    "shape attribute": "return x.reshape((x.shape[0], -1))",
    "size attribute": "return x * x.size",
    "ndim attribute": "return x * x.ndim",
    "dtype attribute": "return x.astype(x.dtype)",
    "context attribute": "return x.as_in_context(x.context)",
    "T attribute": "return x.T",
    "asnumpy": "return x * float(x.asnumpy()[0, 0])",
    "asscalar": "return x * x[0][0].asscalar()",
    "index selects output": "return x[0]",
    "slice": "return x[0:1]",
    "len": "return x * len(x)",
    "inplace add": "x += 1\n        return x",
    "inplace mul": "x *= 2\n        return x",
    "bool": "return x if x else x * 2",
    "F.array": "return x + F.array([1.0, 2.0, 3.0])",
    "elementwise plus broadcasting": "return x + y",
    "elementwise mul broadcasting": "return x * y",
    "comparison broadcasting": "return x > y",
    "broadcast_add": "return F.broadcast_add(x, y)",
    "same shape plus": "return x + x * 2 - 1",
    "scalar ops": "return 2 - x / 4 + x ** 2",
    "F.ones": "return x + F.ones((2, 3))",
    "eager namespace": "return mx_lib.nd.relu(x)",
    "print": "print(x)\n        return x",
    "split then index": "a = F.split(x, num_outputs=3, axis=1)\n        return a[1]",
    "wait_to_read": "x.wait_to_read()\n        return x",
    "if on reduction": "if x.sum() > 0:\n            return x\n        return -x",
    "float of reduction": "return x * float(x.sum())",
    "int of shape index": "return x.reshape((int(x.shape[0]), 3))",
    "while loop": "while x.max() > 1:\n            x = x / 2\n        return x",
    "for over tensor": "return F.stack(*[r * 2 for r in x], axis=0)",
    "and/or": "return (x > 1) and x or y",
    "softmax broadcast": "return F.softmax(x) * y",
    "nested split": "a, b = F.split(x, num_outputs=2, axis=0)\n        return a + b",
    "astype": "return x.astype('float16').astype('float32')",
    "zeros_like index": "z = F.zeros_like(x)\n        return z[0] + x",
    "concat then slice_axis": "return F.slice_axis(F.concat(x, x, dim=0), axis=0, begin=1, end=3)",
    "expand_dims broadcast_to": "return F.broadcast_to(F.expand_dims(y, axis=0), (2, 2, 3))",
    "varargs reshape": "return x.reshape(3, 2)",
    "varargs reshape binds reverse": "return x.reshape(6, 1)",
    "varargs reshape codes": "return x.reshape(-1, 0)",
    "tuple reshape": "return x.reshape((3, 2))",
    "NDArray into a Symbol op": "return F.broadcast_mul(x, mx_lib.nd.ones((2, 3)))",
}


@pytest.fixture(autouse=True)
def _fresh_names():
    """Auto-named nodes (relu0, convolution0 ...) of these tests never shift the global
    counters other test modules may rely on."""
    with mx.name.NameManager():
        yield


def _block_class(lib, body):
    src = (
        "class Net(lib.gluon.HybridBlock):\n    def hybrid_forward(self, F, x, y):\n        {}\n"
    ).format(body)
    ns = {"lib": lib, "mx_lib": lib}
    exec(compile(src, "<pattern>", "exec"), ns)
    return ns["Net"]


def _outcome(fn):
    try:
        out = fn()
        return ("ok", out.asnumpy())
    except Exception as err:  # noqa: BLE001 - comparing behaviour
        return ("raise", type(err).__name__)


def _run(lib, body):
    x = lib.nd.array(np.arange(6).reshape(2, 3) + 1.0)
    y = lib.nd.array([[1.0, 2.0, 3.0]])
    net = _block_class(lib, body)()
    net.initialize()
    eager = _outcome(lambda: net(x, y))
    net.hybridize()
    hybrid = _outcome(lambda: net(x, y))
    return eager, hybrid


def _summary(eager, hybrid):
    """What a user sees: eager result kind, hybrid result kind, and whether they agree."""
    same = None
    if eager[0] == hybrid[0] == "ok":
        same = eager[1].shape == hybrid[1].shape and np.allclose(eager[1], hybrid[1])
    return (
        eager[0],
        eager[1] if eager[0] == "raise" else "value",
        hybrid[0],
        hybrid[1] if hybrid[0] == "raise" else "value",
        same,
    )


@pytest.mark.mxnet
@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_pattern_behaves_like_mxnet(name):
    m = pytest.importorskip("mxnet")
    body = PATTERNS[name]
    want = _run(m, body)
    got = _run(mx, body)
    assert _summary(*got) == _summary(*want)
    for g, w in zip(got, want):
        if g[0] == w[0] == "ok":
            np.testing.assert_allclose(g[1], w[1], rtol=1e-5)


def test_patterns_engine_only_expectations():
    """The headline behaviours, pinned without MXNet (recorded from MXNet 1.9.1)."""
    eager, hybrid = _run(mx, PATTERNS["index selects output"])
    assert eager[1].shape == (3,) and hybrid[1].shape == (2, 3)  # silently different
    eager, hybrid = _run(mx, PATTERNS["len"])
    assert np.allclose(eager[1], hybrid[1] * 2)  # len 2 vs 1 output
    assert _run(mx, PATTERNS["shape attribute"])[1] == ("raise", "AttributeError")
    assert _run(mx, PATTERNS["inplace add"])[1] == ("raise", "NotImplementedForSymbol")
    assert _run(mx, PATTERNS["elementwise plus broadcasting"])[1] == ("raise", "MXNetError")
    assert _run(mx, PATTERNS["F.array"])[1] == ("raise", "AttributeError")
    assert _run(mx, PATTERNS["varargs reshape"])[1] == ("raise", "MXNetError")
    eager, hybrid = _run(mx, PATTERNS["varargs reshape binds reverse"])
    assert eager[1].shape == (6, 1) and hybrid[1].shape == (6,)  # silently different
    assert _run(mx, PATTERNS["NDArray into a Symbol op"])[1] == ("raise", "AssertionError")
