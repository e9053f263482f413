"""`gluon.SymbolBlock`: a HybridBlock running a given Symbol graph, and `imports` of files
written by `HybridBlock.export` (or by real MXNet)."""

import copy
from typing import List, Optional, Tuple

from .. import symbol
from ..base import mx_real_t
from ..ndarray import NDArray
from ..symbol import Symbol
from ._args import _flatten, _regroup
from .block import HybridBlock
from .parameter import ParameterDict

__all__ = ["SymbolBlock"]


def _common_prefix(names: List[str]) -> str:
    if not names:
        return ""
    prefix = names[0]
    for name in names:
        i = 0
        while i < len(prefix) and i < len(name) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


def _infer_param_types(
    in_params, out_params, arg_params, aux_params, default_dtype=mx_real_t
) -> Tuple[list, list]:
    """Parameter dtypes from the inputs' dtypes where the graph says, else float32."""
    arg_types = aux_types = None
    input_types = []
    can_infer = True
    for in_param in in_params:
        t = in_param.infer_type()[0]
        if not t or len(t) < 1 or t[0] is None:
            can_infer = False
            break
        input_types.append(t[0])
    if can_infer:
        try:
            arg_types, _, aux_types = out_params.infer_type(
                **{p.name: t for p, t in zip(in_params, input_types)}
            )
        except Exception:  # best effort, as MXNet: fall back to the default dtype
            arg_types = aux_types = None
    if arg_types is None or len(arg_types) != len(arg_params) or None in arg_types:
        arg_types = [default_dtype] * len(arg_params)
    if aux_types is None or len(aux_types) != len(aux_params) or None in aux_types:
        aux_types = [default_dtype] * len(aux_params)
    return arg_types, aux_types


class SymbolBlock(HybridBlock):
    """A HybridBlock running a given Symbol graph (e.g. one loaded from an export)."""

    @staticmethod
    def imports(
        symbol_file: str,
        input_names,
        param_file: Optional[str] = None,
        ctx=None,
        allow_missing: bool = False,
        ignore_extra: bool = False,
    ) -> "SymbolBlock":
        """Load `prefix-symbol.json` (+ `.params`) written by export or MXNet."""
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [symbol.var(i, dtype=mx_real_t) for i in input_names]
        else:
            inputs = [symbol.var(i) for i in input_names]
        ret = SymbolBlock(sym, inputs)
        if param_file is not None:
            # as MXNet 1.9.1: the saved dtypes win (a float16 Embedding's weight is read as
            # float16, not refused against the float32 the untyped inputs infer)
            ret.collect_params().load(
                param_file, ctx, allow_missing, ignore_extra, cast_dtype=True, dtype_source="saved"
            )
        return ret

    def __repr__(self) -> str:
        modstr = "{block} : {numinputs} -> {numoutputs}".format(
            block=self._cached_graph[1],
            numinputs=len(self._cached_graph[0]),
            numoutputs=len(self._cached_graph[1].list_outputs()),
        )
        return "{name}(\n{modstr}\n)".format(name=self.__class__.__name__, modstr=modstr)

    def __init__(self, outputs, inputs, params: Optional[ParameterDict] = None):
        super().__init__(prefix=None, params=None)
        self._prefix = ""
        self._params = ParameterDict("", params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, "input")
        out, self._out_format = _flatten(outputs, "output")
        input_names = set()
        for i in syms:
            if len(i.get_internals().list_outputs()) != 1:
                raise AssertionError(
                    "Input symbols must be variable, but %s is an output of operators" % str(i)
                )
            input_names.add(i.name)
        out = symbol.Group(out) if len(out) > 1 else out[0]
        arg_params = out.list_arguments()
        aux_params = out.list_auxiliary_states()
        arg_types, aux_types = _infer_param_types(syms, out, arg_params, aux_params)
        for i, arg in enumerate(arg_params):
            if arg not in input_names:
                self.params.get(arg, allow_deferred_init=True, dtype=arg_types[i])
        for i, aux in enumerate(aux_params):
            if aux not in input_names:
                self.params.get(aux, grad_req="null", allow_deferred_init=True, dtype=aux_types[i])
        self._cached_graph = syms, out
        len_prefix = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[len_prefix:]: val for key, val in self._params.items()}

    def forward(self, x, *args):
        if isinstance(x, NDArray):
            with x.context:
                return self._call_cached_op(x, *args)
        if not isinstance(x, Symbol):
            raise AssertionError(
                "HybridBlock requires the first argument to forward be either "
                "Symbol or NDArray, but got %s" % type(x)
            )
        args, in_fmt = _flatten([x] + list(args), "input")
        if in_fmt != self._in_format:
            raise AssertionError("Invalid input format")
        ret = copy.copy(self._cached_graph[1])
        ret._compose(**{k.name: v for k, v in zip(self._cached_graph[0], args)})
        return _regroup(list(ret), self._out_format)

    def reset_ctx(self, ctx) -> None:
        """Re-assign all Parameters to other contexts (the engine only has cpu)."""
        for p in self.collect_params().values():
            p.reset_ctx(ctx)

    def _clear_cached_op(self) -> None:
        tmp = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = tmp

    def cast(self, dtype) -> None:
        self._clear_cached_op()
        super().cast(dtype)

    forward._gluon_lean_call_ok = True  # type: ignore[attr-defined]  # see HybridBlock.forward

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError
