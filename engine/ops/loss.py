"""Output/loss layers of MXNet's symbolic API: SoftmaxOutput (alias Softmax), the
Linear/Logistic/MAE RegressionOutputs, MakeLoss, make_loss and softmax_cross_entropy.

hybridlint only runs forward passes, and these layers' forward values are simple: softmax,
identity or sigmoid (their gradient options such as grad_scale, ignore_label or normalization
are parsed and kept in the graph, but change nothing forward). Their `label` inputs still take
part in shape inference exactly as in MXNet, so graphs bind with the same argument shapes.
"""

import numpy as np

from ..registry import Param, ShapeError, merge_shape, p_bool, p_enum, p_float, register, same_type
from ._util import as_array, fmt_shape


def _label_shape(attrs, data):
    if attrs.multi_output:
        return (data[0],) + tuple(data[2:])
    return tuple(data[:-1])


def _softmax_output_shape(attrs, in_shapes):
    data = in_shapes[0]
    if data is None:
        return in_shapes, [None]
    want = _label_shape(attrs, data)
    label = in_shapes[1]
    if label is not None and len(label) == len(want):
        try:
            label = merge_shape(label, want)
        except ShapeError:
            raise ShapeError(
                "SoftmaxOutput: label has shape {}, expected {} for data {}".format(
                    fmt_shape(label), fmt_shape(want), fmt_shape(data)
                )
            ) from None
    elif label is None:
        label = want
    return [data, label], [data]


def _softmax(z, axis):
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    e /= np.sum(e, axis=axis, keepdims=True, dtype=z.dtype)
    return e


def softmax_output(attrs, data, label):
    """Forward of SoftmaxOutput: softmax over axis 1 (multi_output), over the last axis
    (preserve_shape), or over everything but the batch axis (default)."""
    if attrs.multi_output:
        return _softmax(data, 1)
    if attrs.preserve_shape:
        return _softmax(data, -1)
    return _softmax(data.reshape(data.shape[0], -1), 1).reshape(data.shape)


_TYPE_FLAG = {
    "float32": 0,
    "float64": 1,
    "float16": 2,
    "uint8": 3,
    "int32": 4,
    "int8": 5,
    "int64": 6,
}


def _uniform_type(attrs, in_types):
    """SoftmaxOutput and the regression heads need data and label of one dtype; MXNet's
    check (legacy-op type inference) words the conflict its own way."""
    dtype = in_types[0] if in_types[0] is not None else in_types[1]
    for name, t in zip(("data", "label"), in_types):
        if t is not None and t != dtype:
            raise ShapeError(
                "Check failed: (*in_type)[i] == dtype ({} vs. {}) : This layer "
                "requires uniform type. Expected '{}' v.s. given '{}' at '{}'".format(
                    _TYPE_FLAG.get(t.name, -1),
                    _TYPE_FLAG.get(dtype.name, -1),
                    dtype.name,
                    t.name,
                    name,
                )
            )
    return [dtype] * len(in_types), [dtype]


register(
    "SoftmaxOutput",
    aliases=("Softmax",),
    inputs=("data", "label"),
    params={
        "grad_scale": Param(p_float, 1.0),
        "ignore_label": Param(p_float, -1.0),
        "multi_output": Param(p_bool, False),
        "use_ignore": Param(p_bool, False),
        "preserve_shape": Param(p_bool, False),
        "normalization": Param(p_enum("batch", "null", "valid"), "null"),
        "out_grad": Param(p_bool, False),
        "smooth_alpha": Param(p_float, 0.0),
    },
    infer_shape=_softmax_output_shape,
    infer_type=_uniform_type,
)(softmax_output)


def _same_as_data(attrs, in_shapes):
    data = in_shapes[0]
    try:
        label = merge_shape(in_shapes[1], data) if data is not None else in_shapes[1]
    except ShapeError:
        # MXNet accepts a label of the same size (e.g. (N,) for data (N, 1))
        label = in_shapes[1]
        if data is not None and int(np.prod(label)) != int(np.prod(data)):
            raise ShapeError(
                "label has shape {}, expected {} (the data's shape)".format(
                    fmt_shape(label), fmt_shape(data)
                )
            ) from None
    return [data, label], [data]


_REG_PARAMS = {"grad_scale": Param(p_float, 1.0)}


def linear_regression_output(attrs, data, label):
    """Forward of LinearRegressionOutput: the data itself."""
    return data.copy()


def logistic_regression_output(attrs, data, label):
    """Forward of LogisticRegressionOutput: sigmoid(data)."""
    with np.errstate(over="ignore"):
        return (1 / (1 + np.exp(-data))).astype(data.dtype)


def mae_regression_output(attrs, data, label):
    """Forward of MAERegressionOutput: the data itself."""
    return data.copy()


for _name, _fn in (
    ("LinearRegressionOutput", linear_regression_output),
    ("LogisticRegressionOutput", logistic_regression_output),
    ("MAERegressionOutput", mae_regression_output),
):
    register(
        _name,
        inputs=("data", "label"),
        params=dict(_REG_PARAMS),
        infer_shape=_same_as_data,
        infer_type=_uniform_type,
    )(_fn)


def _identity(attrs, data):
    """Forward of a loss head: the data itself (gradient options do not change it)."""
    return data.copy()


_ID_SHAPE = lambda attrs, s: (s, [s[0]])  # noqa: E731 - tiny shape rule

register(
    "MakeLoss",
    params={
        "grad_scale": Param(p_float, 1.0),
        "valid_thresh": Param(p_float, 0.0),
        "normalization": Param(p_enum("batch", "null", "valid"), "null"),
    },
    infer_shape=_ID_SHAPE,
)(_identity)
register("make_loss", output_names=("loss",), infer_shape=_ID_SHAPE)(_identity)


def _sce_shape(attrs, in_shapes):
    data, label = in_shapes
    if data is not None and len(data) != 2:
        raise ShapeError(
            "softmax_cross_entropy: data must be 2-D (batch, classes), got {}".format(
                fmt_shape(data)
            )
        )
    if data is not None:
        try:
            label = merge_shape(label, (data[0],))
        except ShapeError:
            raise ShapeError(
                "softmax_cross_entropy: label has shape {}, expected [{}]".format(
                    fmt_shape(label), data[0]
                )
            ) from None
    return [data, label], [(1,)]


def softmax_cross_entropy(attrs, data, label):
    """Sum over the batch of -log softmax(data)[label] (labels truncated to int)."""
    _sce_shape(attrs, [data.shape, label.shape])
    z = data - np.max(data, axis=1, keepdims=True)
    logp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True, dtype=data.dtype))
    idx = label.astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= data.shape[1]):
        raise ShapeError("softmax_cross_entropy: label out of range [0, {})".format(data.shape[1]))
    return as_array(-np.sum(logp[np.arange(data.shape[0]), idx], dtype=data.dtype), data.dtype)


register(
    "softmax_cross_entropy", inputs=("data", "label"), infer_shape=_sce_shape, infer_type=same_type
)(softmax_cross_entropy)
