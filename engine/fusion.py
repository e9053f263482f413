"""Operator folding for compiled plans: Convolution [+ relu] + max Pooling as one step.

LeNet-style blocks compute a convolution, a relu and a max pooling whose intermediate results
nobody else reads. Folded, the pooling taps read the raw matrix-multiply result of the
convolution (its junk columns are never touched), and the bias and relu are applied to the
pooled result, a quarter of the size: max(relu(x + b)) == relu(max(x) + b) exactly, because
adding a per-channel constant and relu are monotonic (floating-point rounding included). The
full-size convolution output, its bias pass and its relu pass disappear.
"""

from typing import Dict, List

import numpy as np

from .ops._util import copyto
from .ops.conv import _geometry, conv2d_raw
from .ops.elemwise import _act_relu, _relu
from .ops.pooling import nan_to_lowest

__all__ = ["fold_conv_relu_pool"]


class FusedOp:
    """Stands in for an OpDef in a plan step (only what the executor reads)."""

    view = alias = random = inplace = elementwise = False
    inline = None
    aux = ()

    def __init__(self, name, out_kernel, kernel):
        self.name = name
        self.out_kernel = out_kernel
        self.kernel = kernel


def _relu_kernel(step):
    """The relu a step applies, or None: the `relu` op keeps NaN, Activation(relu) maps it to
    0 on float32 (MXNet's oneDNN kernel); the fold must apply the same one, so that a folded
    plan equals the eager ops. (MXNet's own bound graph fuses conv+relu in oneDNN and keeps
    NaN there, so its hybridized result on NaN data differs from its eager one; the engine
    follows eager MXNet in both modes.)"""
    name = step.op.name
    if name == "relu":
        return _relu
    if name == "Activation" and step.attrs.act_type == "relu":
        return _act_relu
    return None


def _conv_ok(step, dtypes) -> bool:
    if step.op.name != "Convolution":
        return False
    a = step.attrs
    if len(a.kernel) != 2 or (a.layout not in (None, "NCHW")):
        return False
    if a.stride and tuple(a.stride) != (1, 1):
        return False
    return len({dtypes[v] for v in step.ins + step.outs}) == 1 and dtypes[step.outs[0]].kind == "f"


def _pool_ok(step) -> bool:
    if step.op.name != "Pooling":
        return False
    a = step.attrs
    if a.pool_type != "max" or a.global_pool or len(a.kernel) != 2:
        return False
    if a.layout not in (None, "NCHW") or a.pooling_convention != "valid":
        return False
    return not a.pad or not any(a.pad)


def _fused_out(attrs, out, x, w, b=None):
    """conv (no bias) -> max-pool taps on the raw result -> + bias -> relu."""
    conv_attrs, relu, pool_attrs = attrs
    full = conv2d_raw(conv_attrs, x, w)  # (N, F, OH, >=OW): stride 1 and float always fit
    kh, kw = pool_attrs.kernel
    sh, sw = pool_attrs.stride or (1, 1)
    ph, pw = out.shape[2], out.shape[3]
    first = True
    for i in range(kh):
        for j in range(kw):
            tap = full[:, :, i : i + (ph - 1) * sh + 1 : sh, j : j + (pw - 1) * sw + 1 : sw]
            if first:
                copyto(out, tap)
                first = False
            else:
                np.fmax(out, tap, out=out)  # NaN skipped, as MXNet's pooling
    if b is not None:
        out += b.reshape(-1, 1, 1)
    if relu is not None:
        relu(out, out=out)
    nan_to_lowest(out)  # windows of NaN/-inf only: MXNet's lowest value (after a NaN-keeping relu)


def _fused_kernel(attrs, x, w, b=None):
    """The folded step returning a new array (the executor normally plans its output)."""
    conv_attrs, _, pool_attrs = attrs
    k, _, dilate, pad = _geometry(conv_attrs, "Convolution")
    oh = x.shape[2] + 2 * pad[0] - dilate[0] * (k[0] - 1)
    ow = x.shape[3] + 2 * pad[1] - dilate[1] * (k[1] - 1)
    kh, kw = pool_attrs.kernel
    sh, sw = pool_attrs.stride or (1, 1)
    out = np.empty(
        (x.shape[0], conv_attrs.num_filter, (oh - kh) // sh + 1, (ow - kw) // sw + 1), x.dtype
    )
    _fused_out(attrs, out, x, w, b)
    return out


def fold_conv_relu_pool(steps: List, plan) -> List:
    """Replace Convolution -> (relu) -> max Pooling chains whose intermediates have no other
    reader (and are not graph outputs) by one folded step."""
    consumers: Dict[int, int] = {}
    for st in steps:
        for v in st.ins:
            consumers[v] = consumers.get(v, 0) + 1
    for v in plan.output_values:
        consumers[v] = consumers.get(v, 0) + 1
    producer = {}
    for idx, st in enumerate(steps):
        for v in st.outs:
            producer[v] = idx
    drop = set()
    replace = {}
    for idx, st in enumerate(steps):
        if not _pool_ok(st) or idx in drop:
            continue
        src = producer.get(st.ins[0])
        if src is None or consumers.get(st.ins[0]) != 1:
            continue
        mid = steps[src]
        relu = _relu_kernel(mid) if len(mid.ins) == 1 else None
        if relu is not None:
            conv_idx = producer.get(mid.ins[0])
            if conv_idx is None or consumers.get(mid.ins[0]) != 1:
                continue
        else:
            conv_idx = src
        conv = steps[conv_idx]
        if not _conv_ok(conv, plan.dtypes):
            continue
        if plan.dtypes[st.outs[0]] != plan.dtypes[conv.outs[0]]:
            continue
        op = FusedOp(
            "Convolution+relu+Pooling" if relu is not None else "Convolution+Pooling",
            _fused_out,
            _fused_kernel,
        )
        fused = type(st)(st.node, op, (conv.attrs, relu, st.attrs), list(conv.ins), list(st.outs))
        drop.update({conv_idx, src})
        replace[idx] = fused
    if not replace:
        return steps
    return [replace.get(i, st) for i, st in enumerate(steps) if i not in drop]
