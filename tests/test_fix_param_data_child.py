"""HL012's fix for a child's parameter (a tied embedding), checked by running it (issue 12).

`F.FullyConnected(h, self.embed.weight.data(), ...)` fails hybridized (an NDArray among
Symbols); the fix registers the child's Parameter on the block (`self.embed_weight =
self.embed.weight` in `__init__`) and uses the argument gluon passes. For random sizes
(hypothesis) the original block runs eagerly (the reference), the fixed block eagerly and
hybridized, with the same parameter values: outputs must be equal, and on real MXNet 1.9.1
(marked `mxnet`) also the outputs and parameters after one SGD step (the gradient reaches the
shared weight through both uses; the bundled engine has no autograd, it checks outputs). The
tests at the end pin what makes the fix unsafe (a second name in `save_parameters` files) and
what it keeps (old checkpoints load).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fix_support
from fix_support import BACKENDS, backend_module, fix_settings
from fix_support import fix_source, lint_source

SETTINGS = fix_settings(10)


TIED = """\
class Net(HybridBlock):
    def __init__(self, vocab, units, **kwargs):
        super(Net, self).__init__(**kwargs)
        self._vocab = vocab
        with self.name_scope():
            self.embed = nn.Embedding(vocab, units)
            self.cell = nn.Dense(units, flatten=False, activation='tanh')

    def hybrid_forward(self, F, tokens):
        h = self.cell(self.embed(tokens))
        return F.FullyConnected(h, self.embed.weight.data(), no_bias=True,
                                num_hidden=self._vocab, flatten=False)
"""

# a Dense child's weight and bias reused by hand (a weight-tied projection back)
DENSE = """\
class Net(HybridBlock):
    def __init__(self, vocab, units, **kwargs):
        super(Net, self).__init__(**kwargs)
        self.proj = nn.Dense(units, in_units=vocab, flatten=False)

    def hybrid_forward(self, F, x):
        h = F.tanh(self.proj(x))
        back = F.FullyConnected(h, F.transpose(self.proj.weight.data()), no_bias=True,
                                num_hidden=self._vocab, flatten=False)
        return F.broadcast_add(back, F.sum(self.proj.bias.data()))
"""


def build(source: str, mx):
    return fix_support.build(source, mx, names=("nn",))


def fixed_source(source: str) -> str:
    findings = [f for f in lint_source(source) if f.code == "HL012"]
    assert findings and all(f.fix == "unsafe" for f in findings), findings
    fixed = fix_source(source, select=["HL012"], unsafe=True).source
    assert ".data()" not in fixed and not [f for f in lint_source(fixed) if f.code == "HL012"], (
        fixed
    )
    return fixed


def run(klass, mx, vocab, units, x, hybridize, params_file):
    """(outputs, and on MXNet the outputs after one SGD step and the parameters after it: the
    engine has no autograd)."""
    net = klass(vocab, units)
    net.initialize()
    net(x)  # finish deferred initialisation, then take the reference parameters
    net.load_parameters(params_file)
    if hybridize:
        net.hybridize()
    if mx.__name__.startswith("hybridlint"):
        return [net(x).asnumpy()]
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with mx.autograd.record():
        out = net(x)
        loss = (out * out).sum()
    loss.backward()
    trainer.step(1)
    after = net(x)
    params = [v.data().asnumpy() for _, v in sorted(net.collect_params().items())]
    return [out.asnumpy(), after.asnumpy()] + params


def check(source, mx, vocab, units, x, tmp_path):
    fixed = fixed_source(source)
    reference_net = build(source, mx)(vocab, units)
    reference_net.initialize()
    reference_net(x)
    params_file = str(tmp_path / "reference.params")
    reference_net.save_parameters(params_file)  # the original's checkpoint
    expected = run(build(source, mx), mx, vocab, units, x, False, params_file)
    for hybridize in (False, True):
        got = run(build(fixed, mx), mx, vocab, units, x, hybridize, params_file)
        assert len(got) == len(expected)
        for a, b in zip(got, expected):
            assert a.shape == b.shape
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6, err_msg=fixed)
    return fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    vocab=st.integers(2, 7),
    units=st.integers(1, 5),
    batch=st.integers(1, 3),
    steps=st.integers(1, 4),
    seed=st.integers(0, 2**16),
)
def test_tied_embedding_equals_the_eager_original(
    backend, vocab, units, batch, steps, seed, tmp_path_factory
):
    mx = backend_module(backend)
    mx.random.seed(seed)
    tokens = mx.nd.array(
        np.random.RandomState(seed).randint(0, vocab, (batch, steps)), dtype="int32"
    )
    fixed = check(TIED, mx, vocab, units, tokens, tmp_path_factory.mktemp("tied"))
    assert "self.embed_weight = self.embed.weight" in fixed


@pytest.mark.parametrize("backend", BACKENDS)
@SETTINGS
@given(
    vocab=st.integers(2, 7),
    units=st.integers(1, 5),
    batch=st.integers(1, 3),
    seed=st.integers(0, 2**16),
)
def test_dense_child_weight_and_bias_equal_the_eager_original(
    backend, vocab, units, batch, seed, tmp_path_factory
):
    mx = backend_module(backend)
    mx.random.seed(seed)
    source = DENSE.replace(
        "self.proj = nn.Dense", "self._vocab = vocab\n        self.proj = nn.Dense"
    )
    x = mx.nd.array(np.random.RandomState(seed).randn(batch, 2, vocab).astype("float32"))
    fixed = check(source, mx, vocab, units, x, tmp_path_factory.mktemp("dense"))
    assert (
        "self.proj_weight = self.proj.weight" in fixed
        and "self.proj_bias = self.proj.bias" in fixed
    )


@pytest.mark.mxnet
def test_mxnet_checkpoints_of_the_fixed_block_name_the_parameter_twice_which_is_why_the_fix_is_unsafe(
    tmp_path,
):
    mx = pytest.importorskip("mxnet")
    original, fixed = build(TIED, mx), build(fixed_source(TIED), mx)
    tokens = mx.nd.array([[0, 1, 2]], dtype="int32")
    old = original(4, 3)
    old.initialize()
    old(tokens)
    old.save_parameters(str(tmp_path / "old.params"))
    new = fixed(4, 3)
    new.initialize()
    new(tokens)
    new.load_parameters(str(tmp_path / "old.params"))  # the original's checkpoints still load
    np.testing.assert_array_equal(new(tokens).asnumpy(), old(tokens).asnumpy())

    def names(net):  # the Trainer's view: each parameter once, by its name under the block
        return sorted(k[len(net.prefix) :] for k in net.collect_params().keys())

    assert names(new) == names(old) == ["dense0_bias", "dense0_weight", "embedding0_weight"]
    new.save_parameters(str(tmp_path / "new.params"))
    assert sorted(mx.nd.load(str(tmp_path / "new.params"))) == [
        "cell.bias",
        "cell.weight",
        "embed.weight",
        "embed_weight",
    ]
    with pytest.raises(Exception, match="embed_weight"):
        original(4, 3).load_parameters(str(tmp_path / "new.params"))
    new.save_parameters(str(tmp_path / "dedup.params"), deduplicate=True)
    original(4, 3).load_parameters(str(tmp_path / "dedup.params"))
