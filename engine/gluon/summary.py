"""`Block.summary`: the per-layer table MXNet prints (output shapes, parameter counts).

Forward hooks on every non-container descendant record each layer's output shape during one
eager forward pass; the table and totals are printed in MXNet 1.9.1's exact layout.
"""

from collections import OrderedDict
from typing import Any

from ..ndarray import NDArray
from .block import HybridBlock

__all__ = ["print_summary"]


def print_summary(net, *inputs) -> None:
    """Print each layer's output shape and parameter counts, as MXNet's summary does.

    The network must be initialized and not hybridized."""
    summary: "OrderedDict[str, Any]" = OrderedDict()
    seen = set()
    hooks = []

    def shape_str(args) -> str:
        def flatten(args):
            if not isinstance(args, (list, tuple)):
                return [args], 0
            flat, fmts = [], []
            for i in args:
                arg, fmt = flatten(i)
                flat.extend(arg)
                fmts.append(fmt)
            return flat, fmts

        def regroup(args, fmt):
            if isinstance(fmt, int):
                if fmt == 0:
                    return args[0], args[1:]
                return args[:fmt], args[fmt:]
            ret = []
            for i in fmt:
                res, args = regroup(args, i)
                ret.append(res)
            return ret, args

        flat, fmts = flatten(args)
        shapes = regroup([x.shape if isinstance(x, NDArray) else x for x in flat], fmts)[0]
        text = str(shapes)[1:-1] if isinstance(shapes, list) else str(shapes)
        return text.replace("L", "")

    def register_summary_hook(block):
        if isinstance(block, HybridBlock) and block._active:
            raise AssertionError('"{}" must not be hybridized to print summary.'.format(block.name))

        def summary_hook(block, _, outputs):
            key = "%s-%i" % (block.__class__.__name__, len(summary))
            summary[key] = OrderedDict()
            summary[key]["output_shape"] = shape_str(outputs)
            params = 0
            summary[key]["trainable"] = 0
            summary[key]["shared"] = 0
            for p in block.params.values():
                params += p.data().size
                summary[key]["trainable"] += 0 if p.grad_req == "null" else p.data().size
                if p in seen:
                    summary[key]["shared"] += p.data().size
                else:
                    seen.add(p)
            summary[key]["n_params"] = params

        from .nn.basic_layers import HybridSequential, Sequential

        if not isinstance(block, (Sequential, HybridSequential)):
            hooks.append(block.register_forward_hook(summary_hook))

    summary["Input"] = OrderedDict(
        output_shape=shape_str(inputs), n_params=0, trainable=0, shared=0
    )
    try:
        net.apply(register_summary_hook)
        net(*inputs)
        line_format = "{:>20}  {:>42} {:>15}"
        print("-" * 80)
        print(line_format.format("Layer (type)", "Output Shape", "Param #"))
        print("=" * 80)
        total = trainable = shared = 0
        for layer in summary:
            print(
                line_format.format(
                    layer, str(summary[layer]["output_shape"]), summary[layer]["n_params"]
                )
            )
            total += summary[layer]["n_params"]
            trainable += summary[layer]["trainable"]
            shared += summary[layer]["shared"]
        print("=" * 80)
        print("Parameters in forward computation graph, duplicate included")
        print("   Total params: " + str(total))
        print("   Trainable params: " + str(trainable))
        print("   Non-trainable params: " + str(total - trainable))
        print("Shared params in forward computation graph: " + str(shared))
        print("Unique parameters in model: " + str(total - shared))
        print("-" * 80)
    finally:
        for h in hooks:
            h.detach()
