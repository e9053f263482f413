"""Elementwise ops: unary math, Activation, the non-broadcasting binary ops Symbol operators
use (`_plus`, `_equal` ...) and the scalar variants (`_plus_scalar`, `_rminus_scalar` ...).

Every op here keeps shape and dtype, so each has an `out_kernel` writing into a preallocated
buffer and is marked `inplace` (the executor may run it on its input's buffer).
"""

import math

import numpy as np

from ..registry import (
    Param,
    ShapeError,
    elemwise_shape,
    float_only,
    p_bool,
    p_enum,
    p_float,
    register,
)
from ._util import fmt_shape, keep_dtype, ufunc_inline, zeros_operand

# ----------------------------------------------------------------------------- unary math


def _round_half_away(x, out=None):
    """C's roundf (MXNet's round): halves go away from zero, unlike numpy's half-to-even."""
    a = np.abs(x)
    r = np.floor(a)
    r += (a - r) >= 0.5
    return np.copysign(r, x, out=out)


def _rint(x, out=None):
    """MXNet's rint: floor(x) when x - floor(x) <= 0.5, else ceil(x) (halves go down)."""
    f = np.floor(x)
    up = (x - f) > 0.5
    return np.add(f, up, out=out, casting="unsafe") if out is not None else (f + up).astype(x.dtype)


def _sigmoid(x, out=None):
    if x.dtype.kind != "f" and out is None:  # MXNet computes in float and casts back
        x = x.astype(np.float64)
    with np.errstate(over="ignore"):
        out = np.negative(x, out=out)
        np.exp(out, out=out)
        out += 1
        return np.reciprocal(out, out=out)


_erf_scalar = np.frompyfunc(math.erf, 1, 1)
_erfinv_scalar = None


def _erf(x, out=None):
    r = _erf_scalar(x.astype(np.float64)).astype(x.dtype)
    if out is None:
        return r
    out[...] = r
    return out


def _rsqrt(x, out=None):
    out = np.sqrt(x, out=out)
    return np.reciprocal(out, out=out)


def _rcbrt(x, out=None):
    out = np.cbrt(x, out=out)
    return np.reciprocal(out, out=out)


def _softsign(x, out=None):
    d = np.abs(x)
    d += 1
    return np.divide(x, d, out=out)


def _softrelu(x, out=None):
    return np.logaddexp(x.dtype.type(0), x, out=out)


def _relu(x, out=None):
    """max(x, 0); NaN stays NaN and -0.0 becomes +0.0, as MXNet's relu (np.maximum gives
    both in its scalar and vectorized loops; `zeros_operand` says why not a scalar 0)."""
    return np.maximum(x, zeros_operand(x.shape, x.dtype), out=out)


def _act_relu_passes(shape, dtype):
    """The np.fmax/np.maximum calls of a float32 Activation(relu) on `shape`, as
    [(ufunc, zero operand)]: the first reads the input, the rest work in place. One np.fmax
    against a scalar on small inputs; on large ones np.maximum (its +0.0 for -0.0) then
    np.fmax over the result (NaN to 0, no -0.0 left to flip): two vectorized passes, 2x
    faster than one np.fmax against a scalar (np.fmax alone gives -0.0 for -0.0 in numpy 2's
    vectorized loop). Shared by the eager kernel and the compiled plan's inline code."""
    zero = zeros_operand(shape, dtype)
    if type(zero) is not np.ndarray:
        return [(np.fmax, zero)]
    return [(np.maximum, zero), (np.fmax, zero)]


def _act_relu(x, out=None):
    """Activation(act_type='relu'): MXNet 1.9.1 runs float32 inputs of 1 to 5 dims through
    oneDNN, whose relu maps NaN to 0 (np.fmax, see `_act_relu_passes`); otherwise NaN stays
    NaN, as the `relu` op."""
    if x.dtype == np.float32 and 1 <= x.ndim <= 5:
        for ufunc, zero in _act_relu_passes(x.shape, x.dtype):
            out = ufunc(x, zero, out=out)
            x = out
        return out
    return _relu(x, out=out)


def _sign(x, out=None):
    """MXNet's sign is (x > 0) - (x < 0), both comparisons false for NaN: sign(NaN) = 0."""
    r = np.sign(x, out=out)
    if r.dtype.kind == "f":
        np.copyto(r, 0, where=np.isnan(r))
    return r


def _logical_not(x, out=None):
    return np.equal(x, 0, out=out) if out is not None else (x == 0).astype(x.dtype)


def _hard_sigmoid_kernel(attrs, x):
    float_only(x.dtype)  # MXNet's kernel checks it when it runs; graph inference passes
    return np.clip(x * x.dtype.type(attrs.alpha) + x.dtype.type(attrs.beta), 0, 1).astype(
        x.dtype, copy=False
    )


UNARY = {
    "relu": _relu,
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "rsqrt": _rsqrt,
    "cbrt": np.cbrt,
    "rcbrt": _rcbrt,
    "abs": np.abs,
    "square": np.square,
    "negative": np.negative,
    "reciprocal": np.reciprocal,
    "sign": _sign,
    "floor": np.floor,
    "ceil": np.ceil,
    "round": _round_half_away,
    "rint": _rint,
    "fix": np.trunc,
    "trunc": np.trunc,
    "erf": _erf,
    "softsign": _softsign,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "log2": np.log2,
    "log10": np.log10,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "arcsin": np.arcsin,
    "arccos": np.arccos,
    "arctan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "arcsinh": np.arcsinh,
    "arccosh": np.arccosh,
    "arctanh": np.arctanh,
    "degrees": np.degrees,
    "radians": np.radians,
    "logical_not": _logical_not,
}


def _relu_inline(step):
    """relu as one np.maximum call against a zero operand of the right dtype and shape."""
    dt = step.out_dtype
    if dt.kind != "f" or step.in_dtypes[0] != dt:
        return None
    return [
        "{}({}, {}, out={})".format(
            step.const(np.maximum),
            step.ins[0],
            step.const(zeros_operand(step.in_shapes[0], dt)),
            step.out,
        )
    ]


def _unary_kernels(fn):
    def kernel(attrs, x):
        r = fn(x)
        return keep_dtype(r, x)

    def out_kernel(attrs, out, x):
        if out.dtype == x.dtype.type and x.dtype.kind == "f":
            fn(x, out=out)
        else:
            out[...] = kernel(attrs, x)

    return kernel, out_kernel


for _name, _fn in UNARY.items():
    _k, _ok = _unary_kernels(_fn)
    _k.__doc__ = "Elementwise {} of the input (MXNet's `{}`).".format(_name, _name)
    register(
        _name,
        infer_shape=elemwise_shape,
        out_kernel=_ok,
        inplace=True,
        elementwise=True,
        inline=_relu_inline if _name == "relu" else ufunc_inline(_fn) if _name != "erf" else None,
    )(_k)

register(
    "hard_sigmoid",
    params={"alpha": Param(p_float, 0.2), "beta": Param(p_float, 0.5)},
    infer_shape=elemwise_shape,
    elementwise=True,
)(_hard_sigmoid_kernel)

_ACT = {
    "relu": _act_relu,
    "sigmoid": _sigmoid,
    "tanh": np.tanh,
    "softrelu": _softrelu,
    "softsign": _softsign,
}


def _activation(attrs, x):
    return _ACT[attrs.act_type](x)


def _activation_out(attrs, out, x):
    _ACT[attrs.act_type](x, out=out)


def _activation_inline(step):
    if step.attrs.act_type == "relu":
        dt = step.out_dtype
        if dt != np.float32 or step.in_dtypes[0] != dt or not 1 <= len(step.in_shapes[0]) <= 5:
            return _relu_inline(step)
        src, lines = step.ins[0], []
        for ufunc, zero in _act_relu_passes(step.in_shapes[0], dt):
            lines.append(
                "{}({}, {}, out={})".format(step.const(ufunc), src, step.const(zero), step.out)
            )
            src = step.out
        return lines
    return ufunc_inline(_ACT[step.attrs.act_type])(step)


register(
    "Activation",
    params={"act_type": Param(p_enum(*_ACT))},
    infer_shape=elemwise_shape,
    out_kernel=_activation_out,
    inplace=True,
    elementwise=True,
    inline=_activation_inline,
    doc="Activation function (relu, sigmoid, tanh, softrelu, softsign).",
)(_activation)

# identity-like ops: the executor treats them as aliases of their input


def _identity(attrs, x):
    return x.copy()


register(
    "_copy",
    aliases=("identity",),
    infer_shape=elemwise_shape,
    elementwise=True,
    alias=True,
    doc="A copy of the input.",
)(_identity)
register(
    "BlockGrad",
    aliases=("stop_gradient",),
    infer_shape=elemwise_shape,
    elementwise=True,
    alias=True,
    doc="The input, with gradients stopped.",
)(_identity)

# ----------------------------------------------------------------------------- binary, same shape


def _to_dtype(fn):
    """Comparisons and logical ops return the input dtype (1.0/0.0), as MXNet's do."""

    def wrapped(a, b, out=None):
        if out is not None:
            return fn(a, b, out=out)
        return fn(a, b).astype(a.dtype)

    return wrapped


def _int_safe_divide(a, b, out=None):
    if a.dtype.kind in "iu":
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.true_divide(a, b).astype(a.dtype)
        if out is not None:
            out[...] = r
            return out
        return r
    return np.true_divide(a, b, out=out)


def _logical(fn):
    return _to_dtype(lambda a, b, out=None: fn(a != 0, b != 0, out=out))


BINARY = {
    # name: (numpy function, aliases used by Symbol operators / older MXNet names)
    "elemwise_add": (np.add, ("_plus", "_Plus", "_add")),
    "elemwise_sub": (np.subtract, ("_minus", "_Minus", "_sub")),
    "elemwise_mul": (np.multiply, ("_mul", "_Mul")),
    "elemwise_div": (_int_safe_divide, ("_div", "_Div")),
    "_mod": (np.mod, ("_Mod",)),
    "_power": (np.power, ("_Power",)),
    "_maximum": (np.maximum, ("_Maximum",)),
    "_minimum": (np.minimum, ("_Minimum",)),
    "_hypot": (np.hypot, ("_Hypot",)),
    "_equal": (_to_dtype(np.equal), ()),
    "_not_equal": (_to_dtype(np.not_equal), ()),
    "_greater": (_to_dtype(np.greater), ()),
    "_greater_equal": (_to_dtype(np.greater_equal), ()),
    "_lesser": (_to_dtype(np.less), ()),
    "_lesser_equal": (_to_dtype(np.less_equal), ()),
    "_logical_and": (_logical(np.logical_and), ()),
    "_logical_or": (_logical(np.logical_or), ()),
    "_logical_xor": (_logical(np.logical_xor), ()),
}


def _binary_kernels(name, fn):
    def kernel(attrs, a, b):
        if a.shape != b.shape:
            raise ShapeError(
                "Incompatible attr in node at 1-th input: expected {}, got {}".format(
                    fmt_shape(a.shape), fmt_shape(b.shape)
                )
            )
        r = fn(a, b)
        return keep_dtype(r, a)

    def out_kernel(attrs, out, a, b):
        fn(a, b, out=out)

    kernel.__doc__ = "Elementwise {} of two arrays of the same shape (no broadcasting).".format(
        name
    )
    return kernel, out_kernel


for _name, (_fn, _aliases) in BINARY.items():
    _k, _ok = _binary_kernels(_name, _fn)
    register(
        _name,
        inputs=("lhs", "rhs"),
        aliases=_aliases,
        infer_shape=elemwise_shape,
        out_kernel=_ok,
        inplace=True,
        elementwise=True,
        inline=ufunc_inline(_fn),
    )(_k)

# ----------------------------------------------------------------------------- scalar variants

SCALAR = {
    # name: (function of (array, scalar), alias Symbol operators call)
    "_plus_scalar": (np.add, "_PlusScalar"),
    "_minus_scalar": (np.subtract, "_MinusScalar"),
    "_rminus_scalar": (lambda a, s, out=None: np.subtract(s, a, out=out), "_RMinusScalar"),
    "_mul_scalar": (np.multiply, "_MulScalar"),
    "_div_scalar": (_int_safe_divide, "_DivScalar"),
    "_rdiv_scalar": (
        lambda a, s, out=None: (
            _int_safe_divide(np.asarray(s, a.dtype), a, out=out)
            if a.dtype.kind in "iu"
            else np.true_divide(s, a, out=out)
        ),
        "_RDivScalar",
    ),
    "_mod_scalar": (np.mod, "_ModScalar"),
    "_rmod_scalar": (lambda a, s, out=None: np.mod(s, a, out=out), "_RModScalar"),
    "_power_scalar": (np.power, "_PowerScalar"),
    "_rpower_scalar": (lambda a, s, out=None: np.power(s, a, out=out), "_RPowerScalar"),
    "_maximum_scalar": (np.maximum, "_MaximumScalar"),
    "_minimum_scalar": (np.minimum, "_MinimumScalar"),
    "_hypot_scalar": (np.hypot, "_HypotScalar"),
    "_equal_scalar": (_to_dtype(np.equal), "_EqualScalar"),
    "_not_equal_scalar": (_to_dtype(np.not_equal), "_NotEqualScalar"),
    "_greater_scalar": (_to_dtype(np.greater), "_GreaterScalar"),
    "_greater_equal_scalar": (_to_dtype(np.greater_equal), "_GreaterEqualScalar"),
    "_lesser_scalar": (_to_dtype(np.less), "_LesserScalar"),
    "_lesser_equal_scalar": (_to_dtype(np.less_equal), "_LesserEqualScalar"),
    "_logical_and_scalar": (_logical(np.logical_and), "_LogicalAndScalar"),
    "_logical_or_scalar": (_logical(np.logical_or), "_LogicalOrScalar"),
    "_logical_xor_scalar": (_logical(np.logical_xor), "_LogicalXorScalar"),
}

SCALAR_PARAMS = {"scalar": Param(p_float, 1.0), "is_int": Param(p_bool, True)}


def _scalar_kernels(fn):
    def kernel(attrs, x):
        r = fn(x, x.dtype.type(attrs.scalar))
        return keep_dtype(r, x)

    def out_kernel(attrs, out, x):
        fn(x, x.dtype.type(attrs.scalar), out=out)

    return kernel, out_kernel


for _name, (_fn, _alias) in SCALAR.items():
    _k, _ok = _scalar_kernels(_fn)
    _k.__doc__ = "Elementwise {} with a scalar (the scalar is cast to the input dtype).".format(
        _name
    )
    register(
        _name,
        aliases=(_alias,),
        params=SCALAR_PARAMS,
        infer_shape=elemwise_shape,
        out_kernel=_ok,
        inplace=True,
        elementwise=True,
        inline=ufunc_inline(_fn, scalar=True),
    )(_k)
