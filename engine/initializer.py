"""`mx.init` / `mx.initializer`: weight initializers with MXNet 1.9.1's defaults and dispatch.

Two dispatch paths exist in MXNet and both are kept because they give different results:
- an `InitDesc` whose attrs carry `__init__` (what Gluon's Parameter passes: the parameter's
  own initializer, or the global one) runs that initializer's `_init_weight` whatever the name;
- a bare name (symbolic/Module code) or an `InitDesc` without `__init__` dispatches on the name
  suffix: `*_bias`/`*_beta`/`*moving_mean` zero, `*_gamma`/`*moving_var` one, `*_weight` the
  initializer's own rule.
Random draws go through `mx.random` so that `mx.random.seed` makes initialisation repeatable.
"""

import json
import re
from typing import Any, Callable, Dict, Optional

import numpy as np

from .base import string_types

__all__ = [
    "InitDesc",
    "Initializer",
    "register",
    "alias",
    "create",
    "Load",
    "Mixed",
    "Zero",
    "One",
    "Constant",
    "Uniform",
    "Normal",
    "Orthogonal",
    "Xavier",
    "MSRAPrelu",
    "Bilinear",
]

_REGISTRY: Dict[str, type] = {}


class InitDesc(str):
    """A parameter name carrying the attributes (e.g. `__init__`) its initializer should see."""

    attrs: dict
    global_init: Any

    def __new__(cls, name: str, attrs: Optional[dict] = None, global_init=None):
        ret = super().__new__(cls, name)
        ret.attrs = attrs or {}
        ret.global_init = global_init
        return ret


def _rng():
    """The engine's one generator (so `mx.random.seed` makes initialisation repeatable)."""
    from . import random as engine_random  # late: random imports ndarray, which may import us

    return engine_random.generator()


def _fill_uniform(arr, low: float, high: float) -> None:
    arr[:] = _rng().uniform(low, high, size=arr.shape).astype(arr.dtype)


def _fill_normal(arr, loc: float, scale: float) -> None:
    arr[:] = _rng().normal(loc, scale, size=arr.shape).astype(arr.dtype)


class Initializer:
    """Base class of initializers: name dispatch plus the zero/one fills every subclass shares."""

    def __init__(self, **kwargs):
        self._kwargs = kwargs
        self._verbose = False
        self._print_func = None

    def set_verbosity(self, verbose: bool = False, print_func: Optional[Callable] = None):
        """Whether to log each initialised array (via `logging.info`)."""
        self._verbose = verbose
        if print_func is None:

            def print_func(x):
                x = x.asnumpy()
                return str(float(np.linalg.norm(x) / np.sqrt(max(x.size, 1))))

        self._print_func = print_func
        return self

    def _verbose_print(self, desc, init, arr) -> None:
        if self._verbose and self._print_func:
            import logging

            logging.info("Initialized %s as %s: %s", desc, init, self._print_func(arr))

    def dumps(self) -> str:
        """JSON `[name, kwargs]` as MXNet writes into a graph's `__init__` attribute."""
        return json.dumps([self.__class__.__name__.lower(), self._kwargs])

    def __call__(self, desc, arr) -> None:
        if not isinstance(desc, InitDesc):
            self._legacy_init(desc, arr)
            return
        if desc.global_init is None:
            desc.global_init = self
        init = desc.attrs.get("__init__", "")
        if init:
            create(init)._init_weight(desc, arr)
            self._verbose_print(desc, init, arr)
            return
        for suffix, method in (
            ("weight", self._init_weight),
            ("bias", self._init_bias),
            ("gamma", self._init_gamma),
            ("beta", self._init_beta),
            ("min", self._init_zero),
            ("max", self._init_one),
        ):
            if desc.endswith(suffix):
                method(desc, arr)
                self._verbose_print(desc, suffix, arr)
                return
        self._init_default(desc, arr)

    def _legacy_init(self, name, arr) -> None:
        """Dispatch on a bare name, as MXNet's Module/symbolic initialisation does."""
        import warnings

        warnings.warn(
            "\033[91mCalling initializer with init(str, NDArray) has been "
            "deprecated.please use init(mx.init.InitDesc(...), NDArray) "
            "instead.\033[0m",
            DeprecationWarning,
            stacklevel=3,
        )
        if not isinstance(name, string_types):
            raise TypeError("name must be string")
        if not hasattr(arr, "asnumpy"):
            raise TypeError("arr must be NDArray")
        if name.startswith("upsampling"):
            self._init_bilinear(name, arr)
        elif name.endswith("bias"):
            self._init_bias(name, arr)
        elif name.endswith("gamma"):
            self._init_gamma(name, arr)
        elif name.endswith("beta"):
            self._init_beta(name, arr)
        elif name.endswith("weight"):
            self._init_weight(name, arr)
        elif name.endswith(("moving_mean", "moving_inv_var", "moving_avg", "min")):
            self._init_zero(name, arr)
        elif name.endswith(("moving_var", "max")):
            self._init_one(name, arr)
        else:
            self._init_default(name, arr)

    def _init_bilinear(self, _, arr) -> None:
        shape = arr.shape
        weight: np.ndarray = np.zeros(int(np.prod(shape)), dtype="float32")
        f = np.ceil(shape[3] / 2.0)
        c = (2 * f - 1 - f % 2) / (2.0 * f)
        for i in range(int(np.prod(shape))):
            x = i % shape[3]
            y = (i // shape[3]) % shape[2]
            weight[i] = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
        arr[:] = weight.reshape(shape)

    def _init_zero(self, _, arr) -> None:
        arr[:] = 0.0

    def _init_one(self, _, arr) -> None:
        arr[:] = 1.0

    def _init_bias(self, _, arr) -> None:
        arr[:] = 0.0

    def _init_gamma(self, _, arr) -> None:
        arr[:] = 1.0

    def _init_beta(self, _, arr) -> None:
        arr[:] = 0.0

    def _init_weight(self, name, arr) -> None:
        raise NotImplementedError("Must override it")

    def _init_default(self, name, _) -> None:
        raise ValueError(
            "Unknown initialization pattern for %s. Default initialization is now limited to "
            '"weight", "bias", "gamma" (1.0), and "beta" (0.0).'
            "Please use mx.sym.Variable(init=mx.init.*) to set initialization pattern" % name
        )

    def __eq__(self, other):
        if not isinstance(other, Initializer):
            return NotImplemented
        return type(self) is type(other) and self._kwargs == other._kwargs

    __hash__ = object.__hash__


def register(klass, name: Optional[str] = None):
    """Register an Initializer subclass so `create("name")` and `init="name"` find it."""
    if not (isinstance(klass, type) and issubclass(klass, Initializer)):
        raise TypeError("Can only register subclass of Initializer")
    _REGISTRY[(name or klass.__name__).lower()] = klass
    return klass


def alias(*aliases: str):
    """Class decorator registering extra names (`zeros` for Zero, ...)."""

    def reg(klass):
        for name in aliases:
            register(klass, name)
        return klass

    return reg


def create(*args, **kwargs) -> Initializer:
    """An Initializer from an instance, a registered name, `'["name", {kwargs}]'` or a dict."""
    if args:
        name, args = args[0], args[1:]
    else:
        name = kwargs.pop("initializer")
    if isinstance(name, Initializer):
        if args or kwargs:
            raise ValueError("initializer is already an instance. Additional arguments are invalid")
        return name
    if isinstance(name, dict):
        return create(**name)
    if not isinstance(name, string_types):
        raise TypeError("initializer must be of string type, got {!r}".format(name))
    if name.startswith("["):
        name, kwargs = json.loads(name)
        return create(name, **kwargs)
    if name.startswith("{"):
        return create(**json.loads(name))
    key = name.lower()
    if key not in _REGISTRY:
        raise ValueError(
            "%s is not registered. Please register with initializer.register first" % name
        )
    return _REGISTRY[key](*args, **kwargs)


class Load:
    """Initialise by name from a dict of arrays (or a `.params` file), else a default init."""

    def __init__(self, param, default_init=None, verbose: bool = False):
        if isinstance(param, str):
            from .serialization import load

            param = load(param)
        if not isinstance(param, dict):
            raise TypeError("param must be a dict or a .params file name")
        self.param = {}
        for name, arr in param.items():
            if name.startswith(("arg:", "aux:")):
                name = name[4:]
            self.param[name] = arr
        self.default_init = default_init
        self.verbose = verbose

    def __call__(self, name, arr) -> None:
        if name in self.param:
            if tuple(arr.shape) != tuple(self.param[name].shape):
                raise ValueError(
                    "Parameter %s cannot be initialized from loading. Shape "
                    "mismatch, target %s vs loaded %s" % (name, arr.shape, self.param[name].shape)
                )
            arr[:] = self.param[name]
        else:
            if self.default_init is None:
                raise ValueError(
                    "Cannot Initialize %s. Not found in loaded param and no "
                    "default Initializer is provided." % name
                )
            self.default_init(name, arr)


class Mixed:
    """Pick the initializer by the first regex pattern that matches the parameter name."""

    def __init__(self, patterns, initializers):
        if len(patterns) != len(initializers):
            raise ValueError("patterns and initializers must have the same length")
        self.map = list(zip([re.compile(p) for p in patterns], initializers))

    def __call__(self, name, arr) -> None:
        for prog, init in self.map:
            if prog.match(name):
                init(name, arr)
                return
        raise ValueError(
            "Parameter name %s did not match any pattern. Consider adding a "
            '".*" pattern at the and with default Initializer.' % name
        )


@register
@alias("zeros")
class Zero(Initializer):
    """Fill with 0."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr) -> None:
        arr[:] = 0


@register
@alias("ones")
class One(Initializer):
    """Fill with 1."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, _, arr) -> None:
        arr[:] = 1


@register
class Constant(Initializer):
    """Fill with a scalar or broadcast an array value."""

    def __init__(self, value: Any):
        super().__init__(value=value)
        self.value = value

    def _init_weight(self, _, arr) -> None:
        arr[:] = self.value

    def dumps(self) -> str:
        val = self._kwargs["value"]
        if not np.isscalar(val):
            val = val.tolist() if isinstance(val, np.ndarray) else val.asnumpy().tolist()
        return json.dumps([self.__class__.__name__.lower(), dict(self._kwargs, value=val)])


@register
class Uniform(Initializer):
    """Uniform on [-scale, scale]; Gluon's global default with scale 0.07."""

    def __init__(self, scale: float = 0.07):
        super().__init__(scale=scale)
        self.scale = scale

    def _init_weight(self, _, arr) -> None:
        _fill_uniform(arr, -self.scale, self.scale)


@register
class Normal(Initializer):
    """Normal with mean 0 and standard deviation sigma."""

    def __init__(self, sigma: float = 0.01):
        super().__init__(sigma=sigma)
        self.sigma = sigma

    def _init_weight(self, _, arr) -> None:
        _fill_normal(arr, 0.0, self.sigma)


@register
class Orthogonal(Initializer):
    """Orthogonal matrix (from an SVD of a random one) scaled by `scale`."""

    def __init__(self, scale: float = 1.414, rand_type: str = "uniform"):
        super().__init__(scale=scale, rand_type=rand_type)
        self.scale = scale
        self.rand_type = rand_type

    def _init_weight(self, _, arr) -> None:
        nout = arr.shape[0]
        nin = int(np.prod(arr.shape[1:]))
        if self.rand_type == "uniform":
            tmp = _rng().uniform(-1.0, 1.0, size=(nout, nin))
        elif self.rand_type == "normal":
            tmp = _rng().normal(0.0, 1.0, size=(nout, nin))
        else:
            raise ValueError("Unknown random type")
        u, _s, v = np.linalg.svd(tmp, full_matrices=False)
        res = u if u.shape == tmp.shape else v
        arr[:] = (self.scale * res.reshape(arr.shape)).astype(arr.dtype)


@register
class Xavier(Initializer):
    """Glorot: scale sqrt(magnitude / fan) with fan by `factor_type` (avg, in, out)."""

    def __init__(self, rnd_type: str = "uniform", factor_type: str = "avg", magnitude: float = 3):
        super().__init__(rnd_type=rnd_type, factor_type=factor_type, magnitude=magnitude)
        self.rnd_type = rnd_type
        self.factor_type = factor_type
        self.magnitude = float(magnitude)

    def _init_weight(self, name, arr) -> None:
        shape = arr.shape
        if len(shape) < 2:
            raise ValueError(
                "Xavier initializer cannot be applied to vector {0}. It requires "
                "at least 2D.".format(name)
            )
        hw_scale = float(np.prod(shape[2:])) if len(shape) > 2 else 1.0
        fan_in, fan_out = shape[1] * hw_scale, shape[0] * hw_scale
        if self.factor_type == "avg":
            factor = (fan_in + fan_out) / 2.0
        elif self.factor_type == "in":
            factor = fan_in
        elif self.factor_type == "out":
            factor = fan_out
        else:
            raise ValueError("Incorrect factor type")
        scale = np.sqrt(self.magnitude / factor)
        if self.rnd_type == "uniform":
            _fill_uniform(arr, -scale, scale)
        elif self.rnd_type == "gaussian":
            _fill_normal(arr, 0.0, scale)
        else:
            raise ValueError("Unknown random type")


@register
class MSRAPrelu(Xavier):
    """He initialisation for PReLU nets: gaussian Xavier with magnitude 2/(1+slope^2)."""

    def __init__(self, factor_type: str = "avg", slope: float = 0.25):
        super().__init__("gaussian", factor_type, 2.0 / (1 + slope**2))
        self._kwargs = {"factor_type": factor_type, "slope": slope}


@register
class Bilinear(Initializer):
    """Bilinear upsampling kernel for Deconvolution weights."""

    def __init__(self):
        super().__init__()

    def _init_weight(self, name, arr) -> None:
        self._init_bilinear(name, arr)
