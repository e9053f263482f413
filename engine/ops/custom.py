"""The `Custom` op: runs a Python operator registered with `mx.operator.register`
(engine/operator.py), eagerly and as a graph node.

`op_type` names the registered CustomOpProp; every other keyword goes to its constructor as a
string, as MXNet passes them (so they are kept as strings here, whatever their name: the
params mapping below answers every keyword with a string parser). The prop decides the input
names (`list_arguments`), outputs (`list_outputs`), shapes (`infer_shape`, called once all
input shapes are known) and dtypes (`infer_type`); the kernel creates the operator and calls
its `forward` with NDArrays and req 'write'.
"""

import numpy as np

from .. import autograd
from ..base import MXNetError, engine_not_implemented
from ..registry import Param, ShapeError, get_op, p_str, register
from ._util import fmt_shape


class _AnyKeyword(dict):
    """Parameters of Custom: `op_type` (required) and any other keyword, as strings."""

    def get(self, key, default=None):
        return super().get(key, Param(p_str))

    def __contains__(self, key):
        return isinstance(key, str)


def _prop(attrs):
    from ..operator import make_prop

    # not op_type, the eager path's cached `_n_inputs` nor `__attr__` user attributes
    kwargs = {
        k: v
        for k, v in attrs.__dict__.items()
        if k not in ("op_type", "_n_inputs") and not k.startswith("__")
    }
    prop = make_prop(attrs.op_type, kwargs)
    if prop.list_auxiliary_states():
        engine_not_implemented("Custom operators with auxiliary states")
    return prop


def _inputs(attrs):
    return tuple(_prop(attrs).list_arguments())


def _outputs(attrs):
    return tuple(_prop(attrs).list_outputs())


def _shape(attrs, in_shapes):
    prop = _prop(attrs)
    n_out = len(prop.list_outputs())
    if any(s is None or 0 in s for s in in_shapes):
        return in_shapes, [None] * n_out
    ins, outs, _ = prop.infer_shape([list(s) for s in in_shapes])
    ins = [tuple(int(d) for d in s) for s in ins]
    for i, (got, want) in enumerate(zip(in_shapes, ins)):
        if tuple(got) != want:
            raise ShapeError(
                "Custom {}: input {} has shape {}, the operator infers {}".format(
                    attrs.op_type, i, fmt_shape(got), fmt_shape(want)
                )
            )
    outs = [tuple(int(d) for d in s) for s in outs]
    if any(not s or 0 in s for s in outs):  # () is an unknown shape in MXNet 1.x
        raise ShapeError(
            "Custom {}: infer_shape gave output shapes {}: MXNet 1.x has no "
            "0-d arrays and cannot use unknown dims".format(
                attrs.op_type, ", ".join(fmt_shape(s) for s in outs)
            )
        )
    return ins, outs


def _type(attrs, in_types):
    prop = _prop(attrs)
    n_out = len(prop.list_outputs())
    if any(t is None for t in in_types):
        return in_types, [None] * n_out
    ins, outs, _ = prop.infer_type([np.dtype(t).type for t in in_types])
    return [np.dtype(t) for t in ins], [np.dtype(t) for t in outs]


def _custom(attrs, *arrays):
    """Run the registered Python operator's forward."""
    from ..context import cpu
    from ..ndarray.ndarray import wrap

    prop = _prop(attrs)
    _, out_shapes = _shape(attrs, [a.shape for a in arrays])
    _, out_types = _type(attrs, [a.dtype for a in arrays])
    op = prop.create_operator(
        cpu(), [list(a.shape) for a in arrays], [a.dtype.type for a in arrays]
    )
    in_data = [wrap(a.copy()) for a in arrays]
    out_data = [wrap(np.zeros(s, t)) for s, t in zip(out_shapes, out_types)]
    try:
        op.forward(
            is_train=autograd.is_training(),
            req=["write"] * len(out_data),
            in_data=in_data,
            out_data=out_data,
            aux=[],
        )
    except (MXNetError, NotImplementedError):
        raise
    except Exception as err:  # the user's Python code failed: MXNet reports it this way
        raise MXNetError(
            "Error in CustomOp.forward: {}: {}".format(type(err).__name__, err)
        ) from err
    res = [o.asnumpy() for o in out_data]
    return res[0] if len(res) == 1 else tuple(res)


register(
    "Custom",
    inputs=_inputs,
    num_outputs=lambda attrs: len(_outputs(attrs)),
    output_names=_outputs,
    params={"op_type": Param(p_str)},
    infer_shape=_shape,
    infer_type=_type,
    random=True,
)(_custom)
get_op("Custom").params = _AnyKeyword(op_type=Param(p_str))  # register copies into a dict
