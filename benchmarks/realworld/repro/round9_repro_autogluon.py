# ruff: noqa: E501  (a one-off reproduction script, kept as run)
"""autogluon 0.0.15 under MXNet 1.9.1: every hybrid_forward of the package, eagerly and hybridized.

Why: labels/autogluon-0.0.15.tsv and labels/autogluon-0.0.15.misses.tsv say ``how = mxnet``.
The package is not installed (its __init__ pulls in half of PyPI): the real modules are loaded
from the cached extraction (~/.cache/hybridlint-realworld/src/autogluon-0.0.15) under their own
dotted names, with empty parent packages and a few stand-ins written here for what they import
and never run in the code under test (autogluon.core.space, autogluon.utils.EasyDict, the
text_classification dataset module, autogluon_contrib_nlp's CfgNode/get_activation/
get_norm_layer, scipy.special.gammaln when scipy is missing). No third-party code is copied.

    /tmp/mxv/bin/python benchmarks/realworld/repro/round9_repro_autogluon.py

What it shows:

1. gpmxnet: MarginalLikelihood (hybridized by GaussianProcessRegression.reset_params and
   gpr_mcmc._create_likelihood) with every kernel the package builds (Matern52 ARD, WarpedKernel,
   the four resource_kernel_factory kernels) plus Fabolas and a product kernel: eager == hybridized
   negative log likelihood and gradients. gluon_blocks_helpers.py:330 (`some_arg.context`) runs
   eagerly (F is mx.nd) and never while tracing (the mxnet_is_ndarray(F) branch): the HL001
   finding there is false.
2. contrib/enas: ENAS_Unit.hybrid_forward picks `self.module_list[self.index]`; ENAS_Scheduler
   hybridizes the supernet and calls supernet.sample(**config) before every batch. Eagerly the
   sampled op runs; hybridized the graph keeps the op of the first call (enas.py:374).
3. The other blocks (nets.py ResUnit/ConvBNReLU/Identity, EfficientNet + MBConvBlock + SamePadding
   + Swish, tabular_nn embednet blocks, RoBERTaClassifier with a stand-in backbone, the
   text_prediction BasicMLP/CategoricalFeatureNet/NumericalFeatureNet/FeatureAggregator/
   BERTForTabularBasicV1 with a stand-in backbone): eager == hybridized.

Recorded output (2026-12-03): every MarginalLikelihood equal eagerly and hybridized (values and
gradients), line 330 run 6-8 times eagerly by the exp-decay kernels and never while tracing; the
kernels and means hybridized on their own equal; Coregionalization cannot be constructed (its
get_params/set_params are abstract); ENAS: after sample() the hybridized supernet still equals its
first call while the eager one follows the sample; every other block equal eagerly and hybridized.
"""

import importlib
import importlib.util
import os
import sys
import types

import mxnet as mx
import numpy as np

SRC = os.path.expanduser("~/.cache/hybridlint-realworld/src/autogluon-0.0.15")


def package(name):
    """An empty package for ``name`` whose submodules are found in the cached sources."""
    if name in sys.modules:
        return sys.modules[name]
    module = types.ModuleType(name)
    module.__path__ = [os.path.join(SRC, *name.split("."))]
    sys.modules[name] = module
    return module


def stub(name, **attrs):
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


for name in (
    "autogluon",
    "autogluon.searcher",
    "autogluon.searcher.bayesopt",
    "autogluon.searcher.bayesopt.gpmxnet",
    "autogluon.searcher.bayesopt.autogluon",
    "autogluon.contrib",
    "autogluon.contrib.enas",
    "autogluon.core",
    "autogluon.model_zoo",
    "autogluon.model_zoo.models",
    "autogluon.task",
    "autogluon.task.image_classification",
    "autogluon.task.text_classification",
    "autogluon.task.text_prediction",
    "autogluon.task.text_prediction.modules",
    "autogluon.utils",
    "autogluon.utils.tabular",
    "autogluon.utils.tabular.ml",
    "autogluon.utils.tabular.ml.models",
    "autogluon.utils.tabular.ml.models.tabular_nn",
):
    package(name)

try:
    import scipy.special  # noqa: F401
except ImportError:  # gpmxnet/distribution.py imports gammaln; only regularizers use it
    stub("scipy", special=stub("scipy.special", gammaln=lambda x: np.log(np.abs(np.math.gamma(x)))))


class Space(object):
    pass


class Categorical(Space):
    def __init__(self, *data):
        self.data = list(data)


class EasyDict(dict):
    def __getattr__(self, key):
        return self[key]

    def __setattr__(self, key, value):
        self[key] = value


stub(
    "autogluon.core.space",
    Space=Space,
    Categorical=Categorical,
    _strip_config_space=lambda config, prefix: config,
)
sys.modules["autogluon.utils"].EasyDict = EasyDict
stub("autogluon.task.text_classification.dataset", __all__=[])


def close(a, b, rtol=1e-5, atol=1e-6):
    return np.allclose(a.asnumpy(), b.asnumpy(), rtol=rtol, atol=atol)


def eager_then_hybrid(make, *inputs, train=False, seed=0):
    """Two identical instances: one run eagerly, one hybridized, same parameters."""
    mx.random.seed(seed)
    a = make()
    a.initialize(mx.init.Xavier())
    with mx.autograd.record(train_mode=train):
        out_a = a(*inputs)
    b = make()
    b.initialize()
    params_b = b.collect_params()
    for (_, pa), (_, pb) in zip(sorted(a.collect_params().items()), sorted(params_b.items())):
        pb.set_data(pa.data())
    b.hybridize()
    with mx.autograd.record(train_mode=train):
        out_b = b(*inputs)
    return out_a, out_b


# ---------------------------------------------------------------------------------------------
# 1. gpmxnet
gp = "autogluon.searcher.bayesopt.gpmxnet"
kernel_mod = importlib.import_module(gp + ".kernel")
likelihood_mod = importlib.import_module(gp + ".likelihood")
mean_mod = importlib.import_module(gp + ".mean")
warping_mod = importlib.import_module(gp + ".warping")
helpers = importlib.import_module(gp + ".gluon_blocks_helpers")
factories = importlib.import_module("autogluon.searcher.bayesopt.autogluon.model_factories")

HELPERS_FILE = helpers.__file__
line_330_hits = []


def tracer(frame, event, arg):
    if frame.f_code.co_filename == HELPERS_FILE and frame.f_code.co_name == "unwrap_parameter":

        def local(frame, event, arg):
            if event == "line" and frame.f_lineno == 330:
                line_330_hits.append(frame.f_globals.get("__name__"))
            return local

        return local
    return None


def gp_kernels(d):
    M = kernel_mod.Matern52
    yield "Matern52(ARD) (build_kernel)", lambda: M(d, ARD=True), d
    yield (
        "WarpedKernel (build_kernel do_warping)",
        lambda: warping_mod.WarpedKernel(
            kernel=M(d, ARD=True),
            warping=warping_mod.Warping(d, {0: (0.0, 1.0), d - 1: (0.0, 1.0)}),
        ),
        d,
    )
    for name in ("matern52-res-warp", "exp-decay-sum", "exp-decay-combined", "exp-decay-delta1"):

        def make(name=name):
            kernel, mean = factories.resource_kernel_factory(
                name,
                kernel_x=M(d, ARD=True),
                mean_x=mean_mod.ScalarMeanFunction(),
                max_metric_value=1.0,
            )
            return kernel, mean

        yield "resource_kernel_factory(%r)" % name, make, d + 1
    yield "FabolasKernelFunction", lambda: kernel_mod.FabolasKernelFunction(), 1
    yield (
        "ProductKernelFunction(Matern52, Fabolas)",
        lambda: kernel_mod.ProductKernelFunction(
            M(d, ARD=True), kernel_mod.FabolasKernelFunction()
        ),
        d + 1,
    )


def gp_likelihood(make, dim):
    made = make()
    kernel, mean = made if isinstance(made, tuple) else (made, None)
    lik = likelihood_mod.MarginalLikelihood(kernel=kernel, mean=mean)
    lik.initialize(ctx=mx.cpu(), force_reinit=True)
    return lik


print("== 1. gpmxnet MarginalLikelihood, eager vs hybridized ==")
rng = np.random.RandomState(0)
for label, make, dim in gp_kernels(3):
    X = mx.nd.array(rng.rand(8, dim), dtype=np.float64)
    Y = mx.nd.array(rng.randn(8, 1), dtype=np.float64)
    results = []
    hits = []
    for hybrid in (False, True):
        mx.random.seed(1)
        lik = gp_likelihood(make, dim)
        if hybrid:
            lik.hybridize()
        del line_330_hits[:]
        sys.settrace(tracer)
        try:
            with mx.autograd.record():
                value = lik(X, Y)
            value.backward()
        finally:
            sys.settrace(None)
        hits.append(len(line_330_hits))
        grads = [p.grad().asnumpy().copy() for _, p in sorted(lik.collect_params().items())]
        results.append((value.asnumpy().copy(), grads))
    same = np.allclose(results[0][0], results[1][0], rtol=1e-6) and all(
        np.allclose(g0, g1, rtol=1e-5, atol=1e-8) for g0, g1 in zip(results[0][1], results[1][1])
    )
    print(
        "%-45s eager %.6f hybridized %.6f  grads equal %s  line 330 ran eagerly %d x, hybridized %d x"
        % (label, results[0][0][0], results[1][0][0], same, hits[0], hits[1])
    )

print("-- the kernels and mean functions hybridized on their own: k(X, X) and k(X, X2), mean(X) --")
for label, make, dim in gp_kernels(3):
    X = mx.nd.array(rng.rand(6, dim), dtype=np.float64)
    X2 = mx.nd.array(rng.rand(4, dim), dtype=np.float64)
    row = []
    for hybrid in (False, True):
        mx.random.seed(4)
        made = make()
        kernel, mean = made if isinstance(made, tuple) else (made, mean_mod.ScalarMeanFunction())
        holder = mx.gluon.nn.HybridSequential()  # one initialize for the shared children
        holder.add(kernel)
        holder.add(mean)
        holder.initialize(force_reinit=True)
        if hybrid:
            kernel.hybridize()
            mean.hybridize()
        row.append([kernel(X, X).asnumpy(), kernel(X, X2).asnumpy(), mean(X).asnumpy()])
    print(
        "%-45s k(X,X) %s  k(X,X2) %s  mean %s"
        % (label, *(np.allclose(a, b, rtol=1e-6, atol=1e-9) for a, b in zip(*row)))
    )
for size_cols in (True, False):
    X = mx.nd.array(rng.rand(5, 3), dtype=np.float64)
    row = []
    for hybrid in (False, True):
        block = helpers.ConstantPositiveVector(
            "c", helpers.PositiveScalarEncoding(lower=1e-3, init_val=0.5), size_cols
        )
        block.initialize()
        if hybrid:
            block.hybridize()
        row.append(block(X).asnumpy())
    print(
        "ConstantPositiveVector(size_cols=%-5s)           equal %s %s"
        % (size_cols, np.allclose(*row), row[0].shape)
    )
try:
    kernel_mod.Coregionalization(num_outputs=3, num_factors=2)
    print("Coregionalization: constructed")
except TypeError as error:  # get_params/set_params are abstract: nothing can build it
    print("Coregionalization cannot be constructed (%s): its hybrid_forward never runs" % error)

# ---------------------------------------------------------------------------------------------
# 2. contrib/enas
print("\n== 2. ENAS_Unit: sample() after the first hybridized call ==")
enas = importlib.import_module("autogluon.contrib.enas.enas")
mbconv = importlib.import_module("autogluon.model_zoo.models.mbconv")


def supernet():
    units = []
    for _ in range(2):
        ops = [
            mbconv.MBConvBlock(
                in_channels=8,
                channels=8,
                expand_ratio=e,
                kernel=k,
                stride=1,
                se_ratio=0.25,
                input_size=8,
            )
            for k, e in ((3, 1), (5, 3))
        ]
        units.append(enas.ENAS_Unit(*ops, with_zero=True))
    return enas.ENAS_Sequential(units)


x = mx.nd.array(np.random.RandomState(2).randn(2, 8, 8, 8))
outs = {}
for hybrid in (False, True):
    mx.random.seed(3)
    net = supernet()
    net.initialize(mx.init.Xavier())
    if hybrid:
        net.hybridize()
    row = []
    for config in ({"0": 0, "1": 0}, {"0": 1, "1": 2}, {"0": 2, "1": 1}):
        net.sample(**config)
        row.append(net(x).asnumpy())
    outs[hybrid] = row
for i, config in enumerate(("index 0,0", "index 1,2", "index 2,1")):
    print(
        "sample(%s): eager == hybridized %s; hybridized == first hybridized call %s"
        % (
            config,
            np.allclose(outs[False][i], outs[True][i], atol=1e-5),
            np.allclose(outs[True][i], outs[True][0]),
        )
    )

# ---------------------------------------------------------------------------------------------
# 3. the other blocks
print("\n== 3. other blocks, eager vs hybridized ==")
# nets.py imports ...model_zoo.model_zoo and ...core (heavy); its three blocks only need mxnet:
# load the file with those two imports answered by stand-ins.
stub("autogluon.model_zoo.model_zoo", get_model=None)
core = sys.modules["autogluon.core"]
core.__all__ = ["func", "AutoGluonObject", "Categorical"]
core.func = lambda **kw: lambda f: f
core.AutoGluonObject = object
core.Categorical = Categorical
nets = importlib.import_module("autogluon.task.image_classification.nets")


def mnist_like():
    seq = mx.gluon.nn.HybridSequential()
    seq.add(nets.ResUnit(1, 8, hidden_channels=8, kernel=3, stride=2))
    seq.add(nets.ResUnit(8, 8, hidden_channels=8, kernel=5, stride=2))
    seq.add(nets.ResUnit(8, 16, hidden_channels=8, kernel=3, stride=2))
    seq.add(nets.ResUnit(16, 16, hidden_channels=8, kernel=3, stride=1))
    return seq


a, b = eager_then_hybrid(mnist_like, mx.nd.array(np.random.RandomState(4).rand(2, 1, 28, 28)))
print("nets.ResUnit chain (mnist_net, + an Identity shortcut)  equal", close(a, b), a.shape)

efficientnet = importlib.import_module("autogluon.model_zoo.models.efficientnet")
a, b = eager_then_hybrid(
    lambda: efficientnet.EfficientNet(num_classes=10, input_size=64),
    mx.nd.array(np.random.RandomState(5).rand(2, 3, 64, 64)),
)
print("EfficientNet (b0 block args, input 64)              equal", close(a, b, atol=1e-5), a.shape)

embednet = importlib.import_module("autogluon.utils.tabular.ml.models.tabular_nn.embednet")
params = {
    "numeric_embed_dim": 6,
    "activation": "relu",
    "layers": [8, 4],
    "use_batchnorm": True,
    "dropout_prob": 0.1,
}
xv = mx.nd.array(np.random.RandomState(6).rand(5, 7))
for label, make, inp in (
    ("NumericBlock", lambda: embednet.NumericBlock(params), xv),
    ("EmbedBlock", lambda: embednet.EmbedBlock(3, 10), mx.nd.array([[1], [4], [9], [0], [2]])),
    ("FeedforwardBlock", lambda: embednet.FeedforwardBlock(params, 3), xv),
    ("WideAndDeepBlock", lambda: embednet.WideAndDeepBlock(params, 3), xv),
):
    a, b = eager_then_hybrid(make, inp)
    print("%-50s equal %s %s" % ("embednet." + label, close(a, b), a.shape))


class StandInRoberta(mx.gluon.HybridBlock):
    """RoBERTaModel's interface: (inputs, valid_length) -> (B, T, units); _units."""

    def __init__(self, units=6, **kwargs):
        super().__init__(**kwargs)
        self._units = units
        with self.name_scope():
            self.embed = mx.gluon.nn.Embedding(20, units)
            self.proj = mx.gluon.nn.Dense(units, flatten=False)

    def hybrid_forward(self, F, inputs, valid_length=None):
        out = self.proj(self.embed(inputs))
        return F.SequenceMask(out, sequence_length=valid_length, use_sequence_length=True, axis=1)


tc = importlib.import_module("autogluon.task.text_classification.network")
tokens = mx.nd.array(np.random.RandomState(7).randint(0, 20, size=(3, 5)))
valid = mx.nd.array([5, 3, 4])
a, b = eager_then_hybrid(
    lambda: tc.RoBERTaClassifier(StandInRoberta(), num_classes=3, dropout=0.0), tokens, valid
)
print("%-50s equal %s %s" % ("RoBERTaClassifier (stand-in backbone)", close(a, b), a.shape))


# text_prediction: autogluon_contrib_nlp stand-ins (CfgNode with clone_merge, two factories)
class CfgNode(dict):
    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key, value):
        self[key] = value

    def clone_merge(self, other):
        out = CfgNode()
        for key, value in self.items():
            out[key] = value.clone_merge(CfgNode()) if isinstance(value, CfgNode) else value
        for key, value in (other or {}).items():
            out[key] = (
                out[key].clone_merge(value) if isinstance(value, CfgNode) and key in out else value
            )
        return out


def get_activation(name):
    return mx.gluon.nn.LeakyReLU(0.1) if name == "leaky" else mx.gluon.nn.Activation(name)


def get_norm_layer(normalization, axis, epsilon, in_channels):
    return mx.gluon.nn.LayerNorm(axis=axis, epsilon=epsilon, in_channels=in_channels)


stub("autogluon_contrib_nlp")
stub("autogluon_contrib_nlp.utils")
stub("autogluon_contrib_nlp.utils.config", CfgNode=CfgNode)
stub("autogluon_contrib_nlp.layers", get_activation=get_activation, get_norm_layer=get_norm_layer)
bp = importlib.import_module("autogluon.task.text_prediction.modules.basic_prediction")
C = importlib.import_module("autogluon.task.text_prediction.constants")


@mx.util.use_np
class StandInBackbone(mx.gluon.HybridBlock):
    """The contrib-nlp backbones' interface: (ids, segments, valid_length) -> (contextual, pooled)."""

    def __init__(self, units=8, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        with self.name_scope():
            self.embed = mx.gluon.nn.Embedding(30, units)
            self.seg = mx.gluon.nn.Embedding(2, units)
            self.pool = mx.gluon.nn.Dense(units, flatten=False, activation="tanh")

    def hybrid_forward(self, F, ids, segments, valid_length):
        contextual = self.embed(ids) + self.seg(segments)
        contextual = F.npx.sequence_mask(
            contextual,
            sequence_length=valid_length.astype("float32"),
            use_sequence_length=True,
            axis=1,
        )
        return contextual, self.pool(contextual.mean(axis=1))


class Prop:
    def __init__(self, **kw):
        self.__dict__.update(kw)


mx.npx.set_np()
try:
    field_info = [
        (C.TEXT, {}),
        (C.CATEGORICAL, {"prop": Prop(num_class=5)}),
        (C.NUMERICAL, {"prop": Prop(shape=(3,))}),
        (C.CATEGORICAL, {"prop": Prop(num_class=4)}),
    ]
    r = np.random.RandomState(8)
    feature = [
        (
            mx.np.array(r.randint(0, 30, size=(4, 6)), dtype=np.int32),
            mx.np.array([6, 4, 5, 2], dtype=np.int32),
            mx.np.array(r.randint(0, 2, size=(4, 6)), dtype=np.int32),
            None,
        ),
        mx.np.array(r.randint(0, 5, size=(4,)), dtype=np.int32),
        mx.np.array(r.rand(4, 3), dtype=np.float32),
        mx.np.array(r.randint(0, 4, size=(4,)), dtype=np.int32),
    ]
    cfg = bp.BERTForTabularBasicV1.get_cfg()
    for label_shape in (3, None):
        outs = []
        for hybrid in (False, True):
            mx.random.seed(9)
            net = bp.BERTForTabularBasicV1(
                StandInBackbone(), field_info, label_shape=label_shape, cfg=cfg
            )
            net.initialize(mx.init.Normal(0.1))
            if hybrid:
                net.hybridize()
            outs.append(net(feature).asnumpy())
        print(
            "%-50s equal %s %s"
            % (
                "BERTForTabularBasicV1 label_shape=%r" % (label_shape,),
                np.allclose(outs[0], outs[1], atol=1e-5),
                outs[0].shape,
            )
        )
    for label, make, inp in (
        (
            "BasicMLP",
            lambda: bp.BasicMLP(3, 5, 2, num_layers=2, data_dropout=True),
            mx.np.array(r.rand(4, 3), dtype=np.float32),
        ),
        (
            "NumericalFeatureNet (2-D input_shape)",
            lambda: bp.NumericalFeatureNet((2, 3), 4),
            mx.np.array(r.rand(4, 2, 3), dtype=np.float32),
        ),
        (
            "CategoricalFeatureNet",
            lambda: bp.CategoricalFeatureNet(5, 4),
            mx.np.array([1, 4, 0, 2]),
        ),
    ):
        outs = []
        for hybrid in (False, True):
            mx.random.seed(10)
            net = make()
            net.initialize(mx.init.Normal(0.1))
            if hybrid:
                net.hybridize()
            outs.append(net(inp).asnumpy())
        print(
            "%-50s equal %s %s" % (label, np.allclose(outs[0], outs[1], atol=1e-5), outs[0].shape)
        )
    agg_cfg = bp.FeatureAggregator.get_cfg()
    agg_cfg.agg_type = "mean"
    fields = [mx.np.array(r.rand(5, 4), dtype=np.float32) for _ in range(3)]
    for cfg_, label in ((None, "concat"), (agg_cfg, "mean")):
        outs = []
        for hybrid in (False, True):
            mx.random.seed(11)
            net = bp.FeatureAggregator(3, (2, 2), 4, cfg=cfg_)
            net.initialize(mx.init.Normal(0.1))
            if hybrid:
                net.hybridize()
            outs.append(net(fields).asnumpy())
        print(
            "%-50s equal %s %s"
            % (
                "FeatureAggregator agg_type=%s out_shape=(2, 2)" % label,
                np.allclose(outs[0], outs[1], atol=1e-5),
                outs[0].shape,
            )
        )
finally:
    mx.npx.reset_np()
