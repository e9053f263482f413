"""mx.autograd.Function on the engine, differential against real MXNet 1.9.1 (recorded in
tests/recordings/test_engine_autograd_function.npz): forward runs on NDArrays with recording
off and returns what it returns; an instance runs once; on Symbols (a hybridized block)
forward gets the Symbols. gluoncv2's iSQRTCOVPool and Conv2D1bit use it."""

import numpy as np
import pytest

import hybridlint.engine as mx
from hybridlint.checker import Example, check_source
from mxnet_record import reference
from tests.checker_support import backend_params

X = np.array([[-2.0, -0.5, 0.0], [0.25, 1.0, 3.0]], np.float32)


def _functions(m):
    class Sigmoid(m.autograd.Function):
        def forward(self, x):
            self.recording_inside = m.autograd.is_recording()
            y = 1 / (1 + m.nd.exp(-x))
            self.save_for_backward(y)
            return y

        def backward(self, dy):
            (y,) = self.saved_tensors
            return dy * y * (1 - y)

    class Pair(m.autograd.Function):
        def forward(self, x, y):
            return x + y, x * y

    class Scaled(m.autograd.Function):  # Conv2D1bit's Binarize, shape-free
        def forward(self, x):
            return x.sign() * 0.5

    class Shape(m.autograd.Function):  # iSQRTCOVPool's CovPool reads x.shape
        def forward(self, x):
            batch, channels = x.shape
            return x.reshape(batch * channels)

    return Sigmoid, Pair, Scaled, Shape


def _error(call):
    try:
        call()
    except Exception as err:  # noqa: BLE001 - the type and message are compared
        return "{}: {}".format(type(err).__name__, err)
    return "no error"


def _forward(m):
    Sigmoid, Pair, _, _ = _functions(m)
    x = m.nd.array(X)
    f = Sigmoid()
    y = f(x)
    s, p = Pair()(x, x)
    with m.autograd.record():
        g = Sigmoid()
        z = g(x)
        recording_after = m.autograd.is_recording()
    return {
        "y": y,
        "saved": f.saved_tensors[0],
        "recording inside": f.recording_inside,
        "sum": s,
        "product": p,
        "recorded": z,
        "recording inside record": g.recording_inside,
        "recording after": recording_after,
        "types": [type(v).__name__ for v in (y, s, z)],
        "second call": _error(lambda: f(x)),
    }


def _on_symbols(m):
    _, Pair, Scaled, Shape = _functions(m)
    a, b = m.sym.var("a"), m.sym.var("b")
    s, p = Pair()(a, b)
    scaled = Scaled()(a)
    out = scaled.eval(ctx=m.cpu(), a=m.nd.array(X))[0]
    return {
        "types": [type(v).__name__ for v in (s, p, scaled)],
        "arguments": [s.list_arguments(), scaled.list_arguments()],
        "scaled": out,
        "shape": _error(lambda: Shape()(a)),
    }


@pytest.mark.mxnet
def test_forward_matches_mxnet():
    want = reference(_forward, ("forward", X))
    got = _forward(mx)
    assert sorted(got) == sorted(want)
    for key, value in want.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_allclose(got[key].asnumpy(), value, rtol=1e-6, err_msg=key)
        else:
            assert got[key] == value, key
    assert want["second call"] == (
        "AssertionError: Each Function instance can only be called once. "
        "Please create another instance."
    )


@pytest.mark.mxnet
def test_symbols_match_mxnet():
    want = reference(_on_symbols, ("symbols", X))
    got = _on_symbols(mx)
    assert got["types"] == want["types"] == ["Symbol", "Symbol", "Symbol"]
    assert got["arguments"] == want["arguments"]
    np.testing.assert_allclose(got["scaled"].asnumpy(), want["scaled"])
    assert got["shape"] == want["shape"]
    assert "has no attribute 'shape'" in want["shape"]


def test_forward_without_mxnet():
    Sigmoid, _, _, _ = _functions(mx)
    f = Sigmoid()
    with mx.autograd.record():
        y = f(mx.nd.array(X))
        assert mx.autograd.is_recording() and not f.recording_inside
    np.testing.assert_allclose(y.asnumpy(), 1 / (1 + np.exp(-X)), rtol=1e-6)
    with pytest.raises(AssertionError, match="can only be called once"):
        f(mx.nd.array(X))
    with pytest.raises(NotImplementedError):
        mx.autograd.Function()(mx.nd.array(X))


BLOCKS = """\
import math
import mxnet as mx
from mxnet.gluon import HybridBlock


class Binarize(mx.autograd.Function):
    def forward(self, x):
        return math.sqrt(2.0 / (x.shape[1] * x.shape[2])) * x.sign()


class Sign(mx.autograd.Function):
    def forward(self, x):
        return x.sign()


class Uses(HybridBlock):
    def __init__(self, shape_free=False, **kwargs):
        super().__init__(**kwargs)
        self.shape_free = shape_free

    def hybrid_forward(self, F, x):
        f = Sign() if self.shape_free else Binarize()
        return F.relu(f(x))


class Kept(HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.sign = Sign()

    def hybrid_forward(self, F, x):
        return self.sign(x) * 2
"""


@pytest.mark.parametrize("backend", backend_params())
def test_the_checker_reaches_the_verdicts_mxnet_gives(backend):
    reports = check_source(
        BLOCKS,
        "fn.py",
        [
            Example("Uses", ((2, 3, 4),)),
            Example("Uses", ((2, 3, 4),), {"shape_free": True}),
            Example("Kept", ((2, 3),)),
        ],
        backend=backend,
    )
    lines = BLOCKS.splitlines()
    shape_line = lines.index("        return math.sqrt(2.0 / (x.shape[1] * x.shape[2])) * x.sign()")
    statuses = [(r.status, r.source_line.lineno if r.source_line else None) for r in reports]
    # Kept's Function raises at its second eager call, as in plain eager MXNet: only the
    # first call is compared, and hybridized it equals eager (the graph calls it once)
    assert statuses == [
        ("hybrid_error", shape_line + 1),
        ("equal", None),
        ("equal", None),
    ], [r.summary() for r in reports]
    assert "has no attribute 'shape'" in reports[0].reason
    (note,) = [n for n in reports[2].notes if n.startswith("compared on the calls before")]
    assert "eager call 2" in note and "can only be called once" in note
