"""Precision of HL005-HL010 on hybridize-safe code: idioms of GluonNLP/GluonCV-style models
that are correct as written must draw no finding (a CI gate that cries wolf is switched off).

Each snippet below also runs hybridized on the engine with the output equal to eager, so a
snippet that is not in fact hybridize-safe cannot hide here.
"""

from pathlib import Path

import numpy as np
import pytest

from hybridlint.linter import lint_source

MY_RULES = ("HL005", "HL006", "HL007", "HL008", "HL009", "HL010")
HEADER = "import logging\nimport mxnet as mx\nfrom mxnet import gluon, nd\nfrom mxnet.gluon import nn\n\n\n"

SAFE_BLOCKS = {
    "masked_softmax_guard": (
        """
class Cell(gluon.HybridBlock):
    def hybrid_forward(self, F, score, mask=None):
        if mask is not None:
            return F.softmax(score, axis=-1) * mask
        return F.softmax(score, axis=-1)
""",
        [(2, 3, 4), (2, 3, 4)],
    ),
    "mlp_attention_broadcast": (
        """
class Cell(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Cell, self).__init__(**kwargs)
        self._normalized = False
        with self.name_scope():
            self.score = nn.Dense(1, flatten=False, in_units=4)

    def hybrid_forward(self, F, query, key):
        mid = F.broadcast_add(F.expand_dims(query, axis=2), F.expand_dims(key, axis=1))
        if self._normalized:
            mid = F.L2Normalization(mid)
        return self.score(F.tanh(mid)).reshape((0, 0, 0))
""",
        [(2, 3, 4), (2, 5, 4)],
    ),
    "residual_and_layers": (
        """
class Stack(gluon.HybridBlock):
    def __init__(self, num_layers=2, **kwargs):
        super(Stack, self).__init__(**kwargs)
        self._num_layers = num_layers
        with self.name_scope():
            self.layers = nn.HybridSequential()
            for _ in range(num_layers):
                self.layers.add(nn.Dense(4, flatten=False, in_units=4))

    def hybrid_forward(self, F, x):
        logging.debug('stack of %d layers', self._num_layers)
        for i in range(len(self.layers)):
            x = x + F.relu(self.layers[i](x))
        outs = F.split(x, num_outputs=2, axis=-1)
        return outs[0] * outs[1] + F.split(x, num_outputs=2, axis=-1)[1]
""",
        [(2, 3, 4)],
    ),
    "same_literals_and_reductions": (
        """
class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x, y):
        a = x.mean(axis=1) + y.mean(axis=1)
        b = F.ones((1, 3)) * F.zeros((1, 3))
        z = x * 2
        return F.concat(a, (z - x).sum(axis=1), dim=0) , F.broadcast_add(x, b)
""",
        [(2, 3), (2, 3)],
    ),
    "constants_built_in_init": (
        """
class Net(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super(Net, self).__init__(**kwargs)
        self.scale = self.params.get_constant('scale', nd.array([[1.0, 2.0, 3.0]]))

    def hybrid_forward(self, F, x, scale):
        print('tracing')
        return F.broadcast_mul(x, scale)
""",
        [(2, 3)],
    ),
    "eager_only_debugging": (
        """
class Net(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        if isinstance(x, mx.nd.NDArray):
            print(x, len(x))
            assert x.sum() >= 0 or True
            print(x + nd.ones((1, 3)))
        return F.relu(x)
""",
        [(2, 3)],
    ),
}


def load(source: str, mx):
    namespace = {}
    with_engine = mx.__name__.startswith("hybridlint")
    if with_engine:
        from hybridlint.engine import as_mxnet

        with as_mxnet():
            exec(compile(source, "<safe>", "exec"), namespace)
    else:
        exec(compile(source, "<safe>", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("name", sorted(SAFE_BLOCKS))
def test_safe_idioms_draw_no_finding_and_hybridize(name):
    body, shapes = SAFE_BLOCKS[name]
    source = HEADER + body.lstrip("\n")
    findings = [f for f in lint_source(source) if f.code in MY_RULES]
    assert findings == []
    import hybridlint.engine as mx

    namespace = load(source, mx)
    klass = [v for k, v in namespace.items() if isinstance(v, type) and k not in ("gluon",)][-1]
    rng = np.random.RandomState(0)
    inputs = [mx.nd.array(rng.uniform(0.5, 1.5, size=s)) for s in shapes]
    net = klass()
    net.initialize()
    eager = net(*inputs)
    net.hybridize()
    hybrid = net(*inputs)
    as_list = lambda out: list(out) if isinstance(out, (list, tuple)) else [out]  # noqa: E731
    for e, h in zip(as_list(eager), as_list(hybrid)):
        np.testing.assert_allclose(h.asnumpy(), e.asnumpy(), rtol=1e-5, atol=1e-6)


def test_clean_model_files_draw_no_finding():
    """testdata/models are written the hybridize-safe way: no rule may report them."""
    models = sorted((Path(__file__).resolve().parent.parent / "testdata" / "models").glob("*.py"))
    assert models
    for path in models:
        assert lint_source(path.read_text(), str(path)) == [], path.name
