# ruff: noqa: E501  (a one-off reproduction script, kept as run)
"""MXFusion 0.3.1 under MXNet 1.9.1: TestBlock (the two HL007 findings) and ObjectiveBlock (the misses).

Why: labels/mxfusion-0.3.1.tsv and labels/mxfusion-0.3.1.misses.tsv say ``how = mxnet``. MXFusion
is imported from the cached extraction (~/.cache/hybridlint-realworld/src/mxfusion-0.3.1); its one
dependency, networkx, is taken from this machine's system Python when the MXNet 1.9.1 venv lacks
it (a symlink to the package directory only). Nothing of MXFusion is copied.

    /tmp/mxv/bin/python benchmarks/realworld/repro/round9_repro_mxfusion.py

1. util/testutils.py TestBlock (``x + var1 + var2``, var1/var2 parameters of shape (2,)): eager
   and hybridized for x of shape (2,) and (3, 2), and the block hybridlint --fix makes of a copy
   (read back through ``--stdin-filename``: F.broadcast_add(F.broadcast_add(x, var1), var2)).
2. inference/inference_alg.py ObjectiveBlock (what ``Inference(..., hybridize=True)`` hybridizes):
   its parameters are attached with setattr(self, uuid, param) on a block whose ParameterDict is
   the InferenceParameters dict *shared*, so collect_params() is empty and, once tracing gets
   through, MXNet refuses the cached graph: "Unknown input to HybridBlock: <uuid>". Any inference
   with a trainable variable (MAP/SVI/score-function on latents, the GP modules, carried-over
   parameters) therefore cannot be hybridized at all, whatever its compute code does.
3. ObjectiveBlock without parameters (forward sampling, or log-likelihood evaluation of a model
   whose inputs are all observed or constants) is accepted by gluon: run hybridized plainly, it
   fails at its first hazard; run hybridized under a "shape oracle" it goes through the whole
   compute and every hazard on its way is recorded with the line that hits it:
   - a Symbol's .shape/.ndim/.dtype is answered from MXNet's own infer_shape_partial/infer_type
     on the input shapes of the call (recorded as HL001);
   - ``a op b`` between Symbols of different inferred shapes is recorded (HL007) and computed
     with the broadcast_* operator NDArray arithmetic amounts to;
   - ``x[i]``/``x[a:b]``/``len(x)`` on a one-output Symbol is recorded (HL003/HL009) and computed
     as NDArray indexing does (slice + squeeze);
   - a helper called without F inside the trace falls back to mx.nd (get_default_MXNet_mode) and
     is recorded at the call that omitted F (HL006), then continued with mx.sym;
   - ``isinstance(v, F.NDArray)`` with F = mx.sym (no such attribute) is recorded (HL015);
   - an NDArray constant entering the graph (ObjectiveBlock line 82) is recorded (HL005) and
     stands in as an extra input; a Symbol written into InferenceParameters (line 89) is
     recorded (HL013) and dropped;
   anything else stops the trace and is printed with its line (item assignment on a Symbol,
   mx.sym.array, Symbol.reshape(-1), ...). Where the trace completes and no NDArray had to be
   stood in, the hybridized output is compared with the eager one (log-likelihoods are
   deterministic).

Recorded output (2026-12-03): TestBlock equal for x (2,) in every mode; for x (3, 2) the original
fails hybridized (_plus), the fixed block equals the original eager output eagerly and hybridized.
The MAP executor passes 2 parameters and collects 0; MAP and SVI stop at "Unknown input to
HybridBlock" / earlier hazards. Every parameter-free scenario runs eagerly and fails hybridized at
util/inference.py:32, runtime_variable.py:82 (functions, operators), inference_alg.py:82 (array
constants) or operator_impl.py:152 (broadcast_to); under the oracle the log-likelihood, function and
operator traces complete with the eager values, the sampling ones with the eager shapes; the
recorded hazards and the three stops (normal.py:392, special.py:58, operator_impl.py:152) are the
46 lines labels/mxfusion-0.3.1.misses.tsv marks mxnet; its 9 read lines lie after the Wishart
trace's stop at special.py:58.
"""

import collections
import importlib
import os
import subprocess
import sys
import tempfile
import traceback
import warnings

import numpy as np

warnings.filterwarnings("ignore")
SRC = os.path.expanduser("~/.cache/hybridlint-realworld/src/mxfusion-0.3.1")
PKG = os.path.join(SRC, "mxfusion")
HERE = os.path.dirname(os.path.abspath(__file__))

try:
    import networkx  # noqa: F401
except ImportError:
    found = subprocess.run(
        ["python3", "-c", "import networkx; print(networkx.__path__[0])"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not found:
        sys.exit("networkx is needed (MXFusion builds its models with it): none found")
    link_dir = tempfile.mkdtemp()
    os.symlink(found, os.path.join(link_dir, "networkx"))
    sys.path.append(link_dir)
sys.path.insert(0, SRC)

import mxnet as mx  # noqa: E402
from mxnet.ndarray import NDArray  # noqa: E402
from mxnet.symbol import Symbol  # noqa: E402

import mxfusion  # noqa: E402,F401
from mxfusion import Model, Variable  # noqa: E402
from mxfusion.components.distributions import (  # noqa: E402
    Normal,
    MultivariateNormal,
    MultivariateNormalMeanPrecision,
    NormalMeanPrecision,
    Gamma,
    GammaMeanVariance,
    Bernoulli,
    Categorical,
    Beta,
    Dirichlet,
    Uniform,
    Laplace,
    Wishart,
)
from mxfusion.components.functions import MXFusionGluonFunction  # noqa: E402
from mxfusion.components.functions.operators import broadcast_to  # noqa: E402
from mxfusion.components.variables import PositiveTransformation  # noqa: E402
from mxfusion.components.variables import runtime_variable  # noqa: E402
from mxfusion.inference import (  # noqa: E402
    Inference,
    GradBasedInference,
    MAP,
    ForwardSamplingAlgorithm,
    StochasticVariationalInference,
    create_Gaussian_meanfield,
)
from mxfusion.inference.inference_alg import ObjectiveBlock  # noqa: E402
from mxfusion.inference.inference_parameters import InferenceParameters  # noqa: E402


def close(a, b):
    return np.allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------
print("== 1. TestBlock (util/testutils.py:160), eager vs hybridized, and the fixed copy ==")
testutils = importlib.import_module("mxfusion.util.testutils")
source = open(os.path.join(PKG, "util", "testutils.py")).read()
fixed = subprocess.run(
    [
        sys.executable,
        "-m",
        "hybridlint",
        "check",
        "--fix",
        "--select",
        "HL007",
        "--stdin-filename",
        "mxfusion/util/testutils.py",
    ],
    input=source,
    capture_output=True,
    text=True,
    cwd=SRC,
).stdout
print("fixed line 160:", [line.strip() for line in fixed.splitlines()][159])
fixed_module = {"__name__": "mxfusion.util.testutils_fixed", "__package__": "mxfusion.util"}
exec(compile(fixed, "testutils_fixed.py", "exec"), fixed_module)
for shape in ((2,), (3, 2)):
    x = mx.nd.array(np.random.RandomState(0).rand(*shape))
    row = {}
    for label, cls in (("original", testutils.TestBlock), ("fixed", fixed_module["TestBlock"])):
        for hybrid in (False, True):
            block = cls()
            block.initialize(mx.init.Uniform())
            block.var1.set_data(mx.nd.array([0.5, -1.0]))
            block.var2.set_data(mx.nd.array([2.0, 3.0]))
            if hybrid:
                block.hybridize()
            try:
                row[label, hybrid] = block(x)
            except Exception as error:
                row[label, hybrid] = "%s: %s" % (
                    type(error).__name__,
                    str(error).splitlines()[0][:70],
                )
    eager = row["original", False]
    for key in (("original", True), ("fixed", False), ("fixed", True)):
        value = row[key]
        verdict = (
            ("equals the original eager output" if close(value, eager) else "DIFFERS")
            if isinstance(value, NDArray)
            else value
        )
        print("x%-7s %-8s hybridized=%-5s %s" % (shape, key[0], key[1], verdict))


# ---------------------------------------------------------------------------------------------
# the shape oracle
ACTIVE = {"on": False, "scenario": None}
SHAPES, DTYPES = {}, {}
EVENTS = collections.OrderedDict()  # (path, line, kind) -> {scenario: detail}
STOOD_IN = []


def _first_pkg_frame(frame, skip=()):
    while frame is not None and (
        not frame.f_code.co_filename.startswith(PKG)
        or os.path.basename(frame.f_code.co_filename) in skip
    ):
        frame = frame.f_back
    return frame


def record(kind, detail="", site=None, depth=2, skip=()):
    if site is None:
        frame = _first_pkg_frame(sys._getframe(depth), skip)
        if frame is None:
            return False
        site = (frame.f_code.co_filename[len(SRC) + 1 :], frame.f_lineno)
    EVENTS.setdefault((site[0], site[1], kind), {}).setdefault(ACTIVE["scenario"], detail)
    return True


def oracle_shape(sym):
    args = set(sym.list_arguments())
    _, out, _ = sym.infer_shape_partial(**{k: v for k, v in SHAPES.items() if k in args})
    return tuple(out[0])


def oracle_dtype(sym):
    args = set(sym.list_arguments())
    _, out, _ = sym.infer_type_partial(**{k: v for k, v in DTYPES.items() if k in args})
    return out[0]


def _attribute(name, compute):
    def get(self):
        if ACTIVE["on"] and record("HL001 ." + name):
            return compute(self)
        raise AttributeError("'Symbol' object has no attribute '%s'" % name)

    return property(get)


Symbol.shape = _attribute("shape", oracle_shape)
Symbol.ndim = _attribute("ndim", lambda s: len(oracle_shape(s)))
Symbol.dtype = _attribute("dtype", oracle_dtype)
Symbol.size = _attribute("size", lambda s: int(np.prod(oracle_shape(s))))
Symbol.context = _attribute("context", lambda s: mx.cpu())


def _broadcasting(name, broadcast):
    orig = getattr(Symbol, name)

    def operator(self, other):
        if ACTIVE["on"] and isinstance(other, Symbol):
            a, b = oracle_shape(self), oracle_shape(other)
            if a and b and 0 not in a and 0 not in b and a != b:
                record("HL007 " + name.strip("_"), "%s vs %s" % (a, b))
                return getattr(mx.sym, broadcast)(self, other)
        return orig(self, other)

    return operator


for _name, _broadcast in (
    ("__add__", "broadcast_add"),
    ("__sub__", "broadcast_sub"),
    ("__mul__", "broadcast_mul"),
    ("__truediv__", "broadcast_div"),
    ("__mod__", "broadcast_mod"),
    ("__pow__", "broadcast_power"),
    ("__gt__", "broadcast_greater"),
    ("__ge__", "broadcast_greater_equal"),
    ("__lt__", "broadcast_lesser"),
    ("__le__", "broadcast_lesser_equal"),
):
    setattr(Symbol, _name, _broadcasting(_name, _broadcast))

_getitem = Symbol.__getitem__


def _index(self, index):
    if (
        ACTIVE["on"]
        and not isinstance(index, str)
        and len(self.list_outputs()) == 1
        and record("HL003 [%r]" % (index,))
    ):
        begin, end, step, squeeze = [], [], [], []
        for axis, i in enumerate(index if isinstance(index, tuple) else (index,)):
            if isinstance(i, int):
                begin.append(i)
                end.append(i + 1 if i != -1 else None)
                step.append(1)
                squeeze.append(axis)
            else:
                begin.append(i.start)
                end.append(i.stop)
                step.append(1 if i.step is None else i.step)
        out = mx.sym.slice(self, begin=tuple(begin), end=tuple(end), step=tuple(step))
        return mx.sym.squeeze(out, axis=tuple(squeeze)) if squeeze else out
    return _getitem(self, index)


Symbol.__getitem__ = _index
_len = Symbol.__len__


def _length(self):
    caller = sys._getframe(1).f_code.co_filename
    if ACTIVE["on"] and caller.startswith(PKG) and record("HL009 len()"):
        return oracle_shape(self)[0]
    return _len(self)


Symbol.__len__ = _length


class _NDArrayOnSymbol(type):
    def __instancecheck__(cls, obj):
        record("HL015 F.NDArray")
        return False


mx.symbol.NDArray = _NDArrayOnSymbol("NDArray", (), {})


def _symbol_array(data, dtype=None, **kwargs):
    record("HL005 F.array")
    return mx.sym.concat(
        *[mx.sym.full(shape=(1,), val=float(v), dtype=dtype or "float32") for v in data], dim=0
    )


mx.symbol.array = _symbol_array

for _nd_only, _broadcast in (
    ("add", "broadcast_add"),
    ("subtract", "broadcast_sub"),
    ("multiply", "broadcast_mul"),
    ("divide", "broadcast_div"),
):

    def _nd_only_function(x, y, _nd_only=_nd_only, _broadcast=_broadcast):
        record("HL015 F." + _nd_only)  # mx.nd.add & co. broadcast; mx.sym has no such function
        return getattr(mx.sym, _broadcast)(x, y)

    setattr(mx.symbol, _nd_only, _nd_only_function)

from mxfusion.components.distributions.random_gen import MXNetRandomGenerator  # noqa: E402

_sample_univariate = MXNetRandomGenerator._sample_univariate


def _sample_univariate_patched(func, shape=None, dtype=None, out=None, ctx=None, F=None, **kwargs):
    if ACTIVE["on"] and F is not mx.ndarray and shape is None:
        # the Symbol branch (random_gen.py:79) passes shape=None on to the op, which cannot parse it
        record(
            "* shape=None to an mx.sym random op",
            site=("mxfusion/components/distributions/random_gen.py", 79),
        )
        return func(dtype=dtype, **kwargs)
    return _sample_univariate(func, shape=shape, dtype=dtype, out=out, ctx=ctx, F=F, **kwargs)


MXNetRandomGenerator._sample_univariate = staticmethod(_sample_univariate_patched)


def _without_ctx(orig):
    def random_op(*args, **kwargs):
        if ACTIVE["on"] and "ctx" in kwargs:
            record("* ctx= to an mx.sym op", repr(kwargs["ctx"]))
            kwargs.pop("ctx")
        return orig(*args, **kwargs)

    return random_op


for _random_name in ("gamma", "normal", "uniform", "exponential", "poisson", "multinomial"):
    setattr(mx.symbol.random, _random_name, _without_ctx(getattr(mx.symbol.random, _random_name)))


def _default_mode():
    if ACTIVE["on"]:
        record("HL006 F defaults to mx.nd", depth=3, skip=("config.py",))
        return mx.sym
    return mx.nd


for _module_name, _module in list(sys.modules.items()):
    if _module_name.startswith("mxfusion") and hasattr(_module, "get_default_MXNet_mode"):
        _module.get_default_MXNet_mode = _default_mode

_add_sample_dimension = runtime_variable.add_sample_dimension


def _add_sample_dimension_patched(F, array):
    if ACTIVE["on"] and F is mx.sym and isinstance(array, NDArray):
        frame = sys._getframe(1)
        while frame is not None and not frame.f_code.co_filename.endswith("inference_alg.py"):
            frame = frame.f_back
        record(
            "HL005 NDArray constant",
            str(array.shape),
            site=(frame.f_code.co_filename[len(SRC) + 1 :], frame.f_lineno) if frame else None,
        )
        name = "stood_in_ndarray%d" % len(STOOD_IN)
        STOOD_IN.append(name)
        SHAPES[name] = (1,) + array.shape
        DTYPES[name] = array.dtype
        return mx.sym.var(name)
    return _add_sample_dimension(F, array)


runtime_variable.add_sample_dimension = _add_sample_dimension_patched
_setitem = InferenceParameters.__setitem__


def _setitem_patched(self, key, item):
    if ACTIVE["on"] and isinstance(item, Symbol):
        record("HL013 InferenceParameters[...] = Symbol")
        return None
    return _setitem(self, key, item)


InferenceParameters.__setitem__ = _setitem_patched
_forward = ObjectiveBlock.forward
_hybrid_forward = ObjectiveBlock.hybrid_forward


def _forward_patched(self, x, *args):
    if isinstance(x, NDArray):
        self._real_inputs = [x] + list(args)
    return _forward(self, x, *args)


def _hybrid_forward_patched(self, F, x, *args, **kw):
    if F is mx.sym and ORACLE["on"]:
        names = (
            ["data"]
            if len(self._real_inputs) == 1
            else ["data%d" % i for i in range(len(self._real_inputs))]
        )
        for name, array in zip(names, self._real_inputs):
            SHAPES[name], DTYPES[name] = array.shape, array.dtype
        for param in self._reg_params.values():
            SHAPES[param.name], DTYPES[param.name] = param.shape, param.dtype
        ACTIVE["on"] = True
        try:
            return _hybrid_forward(self, F, x, *args, **kw)
        finally:
            ACTIVE["on"] = False
    return _hybrid_forward(self, F, x, *args, **kw)


ObjectiveBlock.forward = _forward_patched
ObjectiveBlock.hybrid_forward = _hybrid_forward_patched
ORACLE = {"on": False}


# ---------------------------------------------------------------------------------------------
# scenarios: the package's own kinds of inference, built as MXFusion's tests build them
def const(values):
    return mx.nd.array(values)


def sc_map_normal(hybridize):
    """GradBasedInference(MAP) of a Normal with mean/variance parameters (trainable)."""
    m = Model()
    m.mu = Variable()
    m.s = Variable(transformation=PositiveTransformation())
    m.Y = Normal.define_variable(mean=m.mu, variance=m.s, shape=(20,))
    infr = GradBasedInference(inference_algorithm=MAP(model=m, observed=[m.Y]), hybridize=hybridize)
    infr.run(Y=mx.nd.array(np.random.RandomState(0).randn(20)), learning_rate=0.1, max_iter=2)
    return infr.params[m.mu]


def sc_svi_bnn(hybridize):
    """GradBasedInference(SVI) of a Bayesian network over a Gluon block (trainable)."""
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(8, activation="tanh", in_units=1), mx.gluon.nn.Dense(1, in_units=8))
    net.initialize(mx.init.Xavier())
    m = Model()
    m.N = Variable()
    m.f = MXFusionGluonFunction(net, num_outputs=1)
    m.x = Variable(shape=(m.N, 1))
    m.v = Variable(shape=(1,), transformation=PositiveTransformation(), initial_value=0.01)
    m.r = m.f(m.x)
    for _, v in m.r.factor.parameters.items():
        v.set_prior(
            Normal(
                mean=broadcast_to(Variable(mx.nd.array([0.0])), v.shape),
                variance=broadcast_to(Variable(mx.nd.array([1.0])), v.shape),
            )
        )
    m.y = Normal.define_variable(mean=m.r, variance=broadcast_to(m.v, (m.N, 1)), shape=(m.N, 1))
    q = create_Gaussian_meanfield(model=m, observed=[m.y, m.x])
    alg = StochasticVariationalInference(num_samples=2, model=m, observed=[m.y, m.x], posterior=q)
    infr = GradBasedInference(inference_algorithm=alg, hybridize=hybridize)
    r = np.random.RandomState(1)
    infr.run(
        max_iter=2, learning_rate=1e-2, x=mx.nd.array(r.rand(6, 1)), y=mx.nd.array(r.rand(6, 1))
    )
    return infr.params[m.v]


def sc_sample_univariate(hybridize):
    """Forward sampling (target variables given) of univariate distributions with NDArray constants (no parameter)."""
    m = Model()
    c3 = lambda v: const([v] * 3)  # noqa: E731
    m.a = Normal.define_variable(mean=c3(0.0), variance=c3(1.0), shape=(3,))
    m.b = Gamma.define_variable(alpha=c3(2.0), beta=c3(1.0), shape=(3,))
    m.c = GammaMeanVariance.define_variable(mean=c3(2.0), variance=c3(1.0), shape=(3,))
    m.d = Beta.define_variable(alpha=c3(2.0), beta=c3(3.0), shape=(3,))
    m.e = Bernoulli.define_variable(prob_true=c3(0.3), shape=(3,))
    m.f = Laplace.define_variable(location=c3(0.0), scale=c3(1.0), shape=(3,))
    m.g = Uniform.define_variable(low=c3(0.0), high=c3(1.0), shape=(3,))
    m.i = NormalMeanPrecision.define_variable(mean=c3(0.0), precision=c3(1.0), shape=(3,))
    targets = [m.a.uuid, m.b.uuid, m.c.uuid, m.d.uuid, m.e.uuid, m.f.uuid, m.g.uuid, m.i.uuid]
    m.z = Variable(shape=(3,))
    infr = Inference(
        ForwardSamplingAlgorithm(m, observed=[m.z], num_samples=4, target_variables=targets),
        hybridize=hybridize,
    )
    return infr.run(z=mx.nd.array([0.1, 0.2, 0.3]))


def sc_sample_observed(hybridize):
    """Forward sampling (target variables given) driven by observed inputs only: Normal, Laplace, MultivariateNormal, Categorical, Dirichlet, Gamma."""
    m = Model()
    m.z = Variable(shape=(2,))
    m.v = Variable(shape=(2,))
    m.cov = Variable(shape=(2, 2))
    m.p = Variable(shape=(4,))
    m.n = Normal.define_variable(mean=m.z, variance=m.v, shape=(2,))
    m.lap = Laplace.define_variable(location=m.z, scale=m.v, shape=(2,))
    m.a = MultivariateNormal.define_variable(mean=m.z, covariance=m.cov, shape=(2,))
    m.c = Categorical.define_variable(log_prob=m.p, num_classes=4, shape=(1,))
    m.d = Dirichlet.define_variable(alpha=m.v, shape=(2,))
    m.g = Gamma.define_variable(alpha=m.v, beta=m.v, shape=(2,))
    m.a2 = MultivariateNormalMeanPrecision.define_variable(mean=m.z, precision=m.cov, shape=(2,))
    targets = [m.n.uuid, m.lap.uuid, m.a.uuid, m.c.uuid, m.d.uuid, m.g.uuid, m.a2.uuid]
    infr = Inference(
        ForwardSamplingAlgorithm(
            m, observed=[m.z, m.v, m.cov, m.p], num_samples=3, target_variables=targets
        ),
        hybridize=hybridize,
    )
    return infr.run(
        z=const([0.5, 1.5]),
        v=const([1.0, 2.0]),
        cov=const([[2.0, 0.3], [0.3, 1.0]]),
        p=mx.nd.log(const([0.1, 0.2, 0.3, 0.4])),
    )


def sc_sample_scalar_parameters(hybridize):
    """Forward sampling (targets given) of (3,) variables from (1,) observed parameters, which UnivariateDistribution's docstring says are broadcast."""
    m = Model()
    for name in ("s0", "s1", "s2", "s3", "s4"):
        setattr(m, name, Variable(shape=(1,)))
    m.n = Normal.define_variable(mean=m.s1, variance=m.s2, shape=(3,))
    m.e = Bernoulli.define_variable(prob_true=m.s3, shape=(3,))
    m.g = Uniform.define_variable(low=m.s0, high=m.s4, shape=(3,))
    m.f = Laplace.define_variable(location=m.s1, scale=m.s2, shape=(3,))
    m.i = NormalMeanPrecision.define_variable(mean=m.s1, precision=m.s2, shape=(3,))
    targets = [m.n.uuid, m.e.uuid, m.g.uuid, m.f.uuid, m.i.uuid]
    infr = Inference(
        ForwardSamplingAlgorithm(
            m, observed=[m.s0, m.s1, m.s2, m.s3, m.s4], num_samples=4, target_variables=targets
        ),
        hybridize=hybridize,
    )
    return infr.run(
        s0=const([0.0]), s1=const([0.5]), s2=const([2.0]), s3=const([0.3]), s4=const([4.0])
    )


def sc_loglik_scalar_bernoulli(hybridize):
    """Log-likelihood of a (5,) Bernoulli variable with an observed (1,) probability."""
    m = Model()
    m.q = Variable(shape=(1,))
    m.e = Bernoulli.define_variable(prob_true=m.q, shape=(5,))
    return _loglik(hybridize, m, dict(q=const([0.3]), e=const([1, 0, 0, 1, 1])))


def sc_sample_dict(hybridize):
    """Forward sampling without target variables (the default): compute returns a dict of samples."""
    m = Model()
    m.z = Variable(shape=(2,))
    m.v = Variable(shape=(2,))
    m.n = Normal.define_variable(mean=m.z, variance=m.v, shape=(2,))
    infr = Inference(
        ForwardSamplingAlgorithm(m, observed=[m.z, m.v], num_samples=3), hybridize=hybridize
    )
    return infr.run(z=const([0.5, 1.5]), v=const([1.0, 2.0]))


def _loglik(hybridize, m, data):
    infr = Inference(MAP(model=m, observed=[getattr(m, k) for k in data]), hybridize=hybridize)
    return infr.run(**data)[0]


def sc_loglik_univariate(hybridize):
    """Log-likelihood of a fully observed model (Inference(MAP(...)) with nothing latent)."""
    m = Model()
    for name in ("p1", "p2"):
        setattr(m, name, Variable(shape=(1,)))
    m.a = Gamma.define_variable(alpha=m.p1, beta=m.p2, shape=(5,))
    m.b = Beta.define_variable(alpha=m.p1, beta=m.p2, shape=(5,))
    m.c = Laplace.define_variable(location=m.p1, scale=m.p2, shape=(5,))
    m.f = NormalMeanPrecision.define_variable(mean=m.p1, precision=m.p2, shape=(5,))
    m.g = GammaMeanVariance.define_variable(mean=m.p1, variance=m.p2, shape=(5,))
    m.n = Normal.define_variable(mean=m.p1, variance=m.p2, shape=(5,))
    m.q1 = Variable(shape=(5,))
    m.q2 = Variable(shape=(5,))
    m.d = Uniform.define_variable(low=m.q1, high=m.q2, shape=(5,))
    m.e = Bernoulli.define_variable(prob_true=m.q1, shape=(5,))
    r = np.random.RandomState(0)
    data = dict(
        p1=const([1.5]),
        p2=const([2.0]),
        q1=const([0.2] * 5),
        q2=const([1.5] * 5),
        a=const(r.rand(5) + 0.1),
        b=const(r.rand(5) * 0.8 + 0.1),
        c=const(r.randn(5)),
        f=const(r.randn(5)),
        g=const(r.rand(5) + 0.1),
        n=const(r.randn(5)),
        d=const(r.rand(5) + 0.2),
        e=const(r.rand(5) > 0.5),
    )
    return _loglik(hybridize, m, data)


def sc_loglik_multivariate(hybridize):
    """Log-likelihood of fully observed MultivariateNormal, Categorical and Dirichlet variables."""
    m = Model()
    m.z = Variable(shape=(2,))
    m.cov = Variable(shape=(2, 2))
    m.h = MultivariateNormal.define_variable(mean=m.z, covariance=m.cov, shape=(2,))
    m.lp = Variable(shape=(5, 4))
    m.i = Categorical.define_variable(log_prob=m.lp, num_classes=4, shape=(5, 1))
    m.al = Variable(shape=(1, 3))
    m.j = Dirichlet.define_variable(alpha=m.al, shape=(1, 3))
    data = dict(
        z=const([0.5, 1.5]),
        cov=const([[2.0, 0.3], [0.3, 1.0]]),
        h=const([0.3, 1.0]),
        lp=mx.nd.log(const([[0.1, 0.2, 0.3, 0.4]] * 5)),
        i=const([[0], [1], [3], [2], [1]]),
        al=const([[1.0, 2.0, 3.0]]),
        j=const([[0.2, 0.3, 0.5]]),
    )
    return _loglik(hybridize, m, data)


def sc_loglik_mvn_precision(hybridize):
    """Log-likelihood of a fully observed MultivariateNormalMeanPrecision variable."""
    m = Model()
    m.z = Variable(shape=(2,))
    m.prec = Variable(shape=(2, 2))
    m.h = MultivariateNormalMeanPrecision.define_variable(mean=m.z, precision=m.prec, shape=(2,))
    return _loglik(
        hybridize,
        m,
        dict(z=const([0.5, 1.5]), prec=const([[2.0, 0.3], [0.3, 1.0]]), h=const([0.1, 0.7])),
    )


def sc_loglik_wishart(hybridize):
    """Log-likelihood of a fully observed Wishart variable."""
    m = Model()
    m.df = Variable(shape=(1,))
    m.cov = Variable(shape=(1, 2, 2))
    m.k = Wishart.define_variable(shape=(1, 2, 2), degrees_of_freedom=m.df, scale=m.cov)
    data = dict(
        df=const([3.0]), cov=const([[[2.0, 0.3], [0.3, 1.0]]]), k=const([[[2.0, 0.1], [0.1, 1.0]]])
    )
    return _loglik(hybridize, m, data)


def _function_model(broadcastable):
    block = mx.gluon.nn.HybridLambda(lambda F, x: F.tanh(x) * 2)
    m = Model()
    m.x = Variable(shape=(3,))
    m.s = Variable(shape=(3,))
    m.f = MXFusionGluonFunction(block, num_outputs=1, broadcastable=broadcastable)
    m.r = m.f(m.x)
    m.y = Normal.define_variable(mean=m.r, variance=m.s, shape=(3,))
    return m


def sc_function(hybridize):
    """A parameterless Gluon block wrapped by MXFusionGluonFunction (broadcastable=False, the default)."""
    m = _function_model(False)
    return _loglik(
        hybridize,
        m,
        dict(x=const([0.1, -0.4, 0.9]), s=const([1.0, 2.0, 3.0]), y=const([0.2, 0.3, -0.1])),
    )


def sc_function_broadcastable(hybridize):
    """The same block with broadcastable=True."""
    m = _function_model(True)
    return _loglik(
        hybridize,
        m,
        dict(x=const([0.1, -0.4, 0.9]), s=const([1.0, 2.0, 3.0]), y=const([0.2, 0.3, -0.1])),
    )


def sc_operators(hybridize):
    """Arithmetic between model variables (MXFusion's add/subtract/multiply/divide operators)."""
    m = Model()
    m.a = Variable(shape=(3,))
    m.b = Variable(shape=(3,))
    m.v = Variable(shape=(3,))
    m.c = m.a + m.b * m.a - m.b / m.a
    m.y = Normal.define_variable(mean=m.c, variance=m.v, shape=(3,))
    return _loglik(
        hybridize,
        m,
        dict(
            a=const([1.0, 2.0, 3.0]),
            b=const([0.5, -1.0, 2.0]),
            v=const([1.0, 2.0, 3.0]),
            y=const([0.2, 0.3, -0.1]),
        ),
    )


def sc_broadcast_to(hybridize):
    """The broadcast_to operator of MXFusion models."""
    m = Model()
    m.s = Variable(shape=(1,))
    m.mu = Variable(shape=(3,))
    m.y = Normal.define_variable(mean=m.mu, variance=broadcast_to(m.s, (3,)), shape=(3,))
    return _loglik(
        hybridize, m, dict(s=const([2.0]), mu=const([0.0, 0.0, 0.0]), y=const([0.2, 0.3, -0.1]))
    )


SCENARIOS = [
    sc_map_normal,
    sc_svi_bnn,
    sc_sample_univariate,
    sc_sample_observed,
    sc_sample_scalar_parameters,
    sc_sample_dict,
    sc_loglik_univariate,
    sc_loglik_scalar_bernoulli,
    sc_loglik_multivariate,
    sc_loglik_mvn_precision,
    sc_loglik_wishart,
    sc_function,
    sc_function_broadcastable,
    sc_operators,
    sc_broadcast_to,
]


def outcome(fn, hybridize):
    mx.random.seed(0)
    np.random.seed(0)
    try:
        return fn(hybridize), None
    except Exception as error:
        frames = [
            f for f in traceback.extract_tb(error.__traceback__) if f.filename.startswith(PKG)
        ]
        where = (
            "%s:%d" % (frames[-1].filename[len(SRC) + 1 :], frames[-1].lineno)
            if frames
            else "gluon"
        )
        return None, "%s at %s: %s" % (
            type(error).__name__,
            where,
            str(error).splitlines()[0][:90] if str(error) else "",
        )


def flat(value):
    if isinstance(value, dict):
        return [value[k] for k in sorted(value)]
    return list(value) if isinstance(value, (list, tuple)) else [value]


print("\n== 2. ObjectiveBlock with parameters: what gluon collects ==")
_m = Model()
_m.mu = Variable()
_m.s = Variable(transformation=PositiveTransformation())
_m.Y = Normal.define_variable(mean=_m.mu, variance=_m.s, shape=(20,))
_infr = GradBasedInference(inference_algorithm=MAP(model=_m, observed=[_m.Y]))
_infr.initialize(Y=mx.nd.zeros(20))
_block = _infr.create_executor()
print(
    "MAP executor: %d parameters passed to hybrid_forward (_reg_params), %d in collect_params() "
    "(the ParameterDict is InferenceParameters' dict, shared, never get() on the block)"
    % (len(_block._reg_params), len(list(_block.collect_params().keys())))
)

print("\n== 2./3. ObjectiveBlock: eager, hybridized, hybridized under the shape oracle ==")
for fn in SCENARIOS:
    print("\n%s: %s" % (fn.__name__, fn.__doc__))
    eager, error = outcome(fn, False)
    print("  eager:                 %s" % ("runs" if error is None else error))
    _, error = outcome(fn, True)
    print("  hybridized:            %s" % ("runs" if error is None else error))
    ACTIVE["scenario"] = fn.__name__
    ORACLE["on"] = True
    del STOOD_IN[:]
    hybrid, error = outcome(fn, True)
    ORACLE["on"] = False
    if error is not None:
        print(
            "  under the oracle:      stops: %s%s"
            % (error, " (%d NDArray constants stood in)" % len(STOOD_IN) if STOOD_IN else "")
        )
    else:
        same = all(a.shape == b.shape for a, b in zip(flat(eager), flat(hybrid)))
        deterministic = (
            fn.__name__.startswith("sc_loglik")
            or fn.__name__.startswith("sc_function")
            or fn.__name__ in ("sc_operators", "sc_broadcast_to")
        )
        if deterministic:
            same = all(close(a, b) for a, b in zip(flat(eager), flat(hybrid)))
        print(
            "  under the oracle:      runs; %s %s"
            % (
                "values equal to eager:"
                if deterministic
                else "output shapes equal to eager (random draws):",
                same,
            )
        )

print("\n== hazards met by the hybridized traces (path:line kind [scenarios] detail | source) ==")
for (path, line, kind), seen in sorted(EVENTS.items()):
    text = open(os.path.join(SRC, path)).read().splitlines()[line - 1].strip()
    print(
        "%s:%d  %-34s [%s] %s | %s"
        % (path, line, kind, ", ".join(s[3:] for s in seen), list(seen.values())[0], text[:80])
    )
