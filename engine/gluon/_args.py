"""Nested NDArray/Symbol arguments of HybridBlocks: flatten to a list plus a format, regroup.

MXNet lets blocks take and return (nested) lists, with None allowed in inputs; the cached
graph works on the flat list, so calls flatten their arguments and regroup the outputs.
"""

from ..ndarray import NDArray
from ..symbol import Symbol

__all__ = ["_flatten", "_regroup", "_gather_type_ctx_info", "_check_same_symbol_type"]


def _flatten(args, inout_str: str):
    """Flatten nested lists of NDArray/Symbol/None into a list plus a format to regroup."""
    if isinstance(args, NDArray):
        return [args], 0
    if isinstance(args, Symbol):
        length = len(args.list_outputs())
        return [args], (length if length > 1 else 0)
    if args is None:
        return [None], -1
    if not isinstance(args, (list, tuple)):
        raise ValueError(
            "When hybridized, the input of HybridBlock {} must be (nested) list "
            "of Symbol or NDArray, but got {} of type {}".format(
                inout_str, str(args), str(type(args))
            )
        )
    flat, fmts = [], []
    for i in args:
        arg, fmt = _flatten(i, inout_str)
        flat.extend(arg)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    """Inverse of `_flatten`."""

    def merge(args, fmt):
        if isinstance(fmt, int):
            if fmt < -1:
                raise ValueError("Unsupported encoded format {}.".format(fmt))
            if fmt == 0:
                return args[0], args[1:]
            if fmt == -1:
                if args[0] is not None:
                    raise ValueError(
                        "We do not support passing types that are not None when "
                        "the initial HybridBlock has received NoneType and has "
                        "been hybridized. Received arg = {}, fmt = {}.".format(args[0], fmt)
                    )
                return None, args[1:]
            return args[:fmt], args[fmt:]
        if not isinstance(args, (list, tuple)):
            raise ValueError(
                "When hybridized, the output of HybridBlock must be (nested) list "
                "of Symbol or NDArray, but got {} of type {}".format(args, type(args))
            )
        ret = []
        for i in fmt:
            res, args = merge(args, i)
            ret.append(res)
        return ret, args

    return merge(args, fmt)[0]


def _gather_type_ctx_info(args):
    """(has_symbol, has_ndarray, contexts, first context) over nested args."""
    if isinstance(args, NDArray):
        return False, True, {args.context}, args.context
    if isinstance(args, Symbol):
        return True, False, set(), None
    if isinstance(args, (list, tuple)):
        has_sym = has_nd = False
        ctxs, first = set(), None
        for ele in args:
            s, n, c, f = _gather_type_ctx_info(ele)
            has_sym, has_nd = has_sym or s, has_nd or n
            if first is None and f is not None:
                first = f
            ctxs |= c
            if has_sym and has_nd:
                break
        return has_sym, has_nd, ctxs, first
    return False, False, set(), None


def _check_same_symbol_type(symbols):
    """Gluon's check that outputs mix no legacy/numpy symbols; the engine has one kind."""
    return Symbol
