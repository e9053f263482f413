"""`mx.operator`: Python custom operators (MXNet 1.9.1's CustomOp / CustomOpProp / register),
run by the engine's `Custom` op (engine/ops/custom.py) eagerly and inside hybridized graphs.

As in MXNet, `register(name)` records a CustomOpProp subclass; `F.Custom(*inputs,
op_type=name, **kwargs)` builds the prop with the keyword values as strings, asks it for the
argument/output names, shapes and dtypes, and calls `create_operator(...).forward(is_train,
req, in_data, out_data, aux)` with NDArrays. Only the forward pass exists (the engine runs
inference), and auxiliary states are an engine gap.
"""

from typing import Callable, Dict, List

__all__ = ["CustomOp", "CustomOpProp", "register", "get_all_registered_operators"]

_REGISTRY: Dict[str, type] = {}


class CustomOp:
    """Base class for operators implemented in Python."""

    def __init__(self):
        pass

    def forward(self, is_train, req, in_data, out_data, aux):
        """Override: compute out_data from in_data (use `self.assign`)."""

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        """Override for training; the engine never calls it (inference only)."""

    def assign(self, dst, req, src) -> None:
        """Write (or add) `src` into `dst` as `req` says ('null', 'write', 'inplace', 'add')."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] += src


class CustomOpProp:
    """Describes a custom operator: names, shapes, dtypes, and how to create it."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """(input shapes, output shapes, aux shapes); default: outputs like input 0."""
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        """(input dtypes, output dtypes, aux dtypes); default: all like input 0."""
        return (
            in_type,
            [in_type[0]] * len(self.list_outputs()),
            [in_type[0]] * len(self.list_auxiliary_states()),
        )

    def list_outputs(self) -> List[str]:
        return ["output"]

    def list_arguments(self) -> List[str]:
        return ["data"]

    def list_auxiliary_states(self) -> List[str]:
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = []
        if self.need_top_grad_:
            deps.extend(out_grad)
        deps.extend(in_data)
        deps.extend(out_data)
        return deps

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return CustomOp()


def register(reg_name: str) -> Callable[[type], type]:
    """Register a CustomOpProp subclass under `reg_name` (the `op_type` of F.Custom)."""

    def do_register(prop_cls):
        _REGISTRY[reg_name] = prop_cls
        return prop_cls

    return do_register


def get_all_registered_operators() -> List[str]:
    """Names of the registered custom operators (MXNet also lists its built-in ops)."""
    return sorted(_REGISTRY)


def make_prop(op_type: str, kwargs: Dict[str, str]) -> CustomOpProp:
    """The registered prop for `op_type`, built with the keyword values as strings."""
    from .base import MXNetError

    cls = _REGISTRY.get(op_type)
    if cls is None:
        raise MXNetError("Cannot find custom operator %s" % op_type)
    return cls(**{k: str(v) for k, v in kwargs.items()})
