"""`mx.gluon.utils`: the small helpers Gluon's blocks and user code rely on."""

import weakref
from typing import Any, Iterable, List

import numpy as np

__all__ = ["split_data", "split_and_load", "clip_global_norm", "shape_is_known", "HookHandle"]


def _indent(s_: str, num_spaces: int) -> str:
    """Indent every line but the first (nested block reprs)."""
    lines = s_.split("\n")
    if len(lines) == 1:
        return s_
    first = lines.pop(0)
    return "\n".join([first] + [(num_spaces * " ") + line for line in lines])


def _brief_print_list(lst: Iterable[Any], limit: int = 7) -> str:
    """`'a', 'b', ..., 'z'`: name lists in error messages, shortened as MXNet does."""
    lst = list(lst)
    if len(lst) > limit:
        return (
            _brief_print_list(lst[: limit // 2], limit)
            + ", ..., "
            + _brief_print_list(lst[-limit // 2 :], limit)
        )
    return ", ".join(["'%s'" % str(i) for i in lst])


def shape_is_known(shape) -> bool:
    """MXNet 1.x legacy shape semantics: a 0 dim (or no shape at all) is unknown."""
    if shape is None:
        return False
    if len(shape) == 0:
        return False
    for dim in shape:
        if dim == 0:
            return False
        if dim < 0:
            raise AssertionError(
                "shape dimension size cannot be less than 0, while received {}".format(dim)
            )
    return True


def split_data(data, num_slice: int, batch_axis: int = 0, even_split: bool = True) -> List:
    """Split an NDArray into `num_slice` slices along `batch_axis`."""
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError(
            "data with shape %s cannot be evenly split into %d slices along axis %d. "
            "Use a batch size that's multiple of %d or set even_split=False to allow "
            "uneven partitioning of data." % (str(data.shape), num_slice, batch_axis, num_slice)
        )
    if size < num_slice:
        raise ValueError(
            "Too many slices for data with shape %s. Arguments are num_slice=%d "
            "and batch_axis=%d." % (str(data.shape), num_slice, batch_axis)
        )
    step = size // num_slice
    if num_slice == 1:
        return [data]
    from .. import ndarray

    nd: Any = ndarray  # (its operators are installed at run time: mypy cannot see them)
    out = []
    for i in range(num_slice):
        begin = i * step
        end = (i + 1) * step if i < num_slice - 1 else size
        out.append(nd.slice_axis(data, axis=batch_axis, begin=begin, end=end))
    return out


def split_and_load(data, ctx_list, batch_axis: int = 0, even_split: bool = True) -> List:
    """Split data and place one slice per context (the engine only has cpu)."""
    from .. import ndarray as nd

    if not hasattr(data, "asnumpy"):
        data = nd.array(data, ctx=ctx_list[0])
    if len(ctx_list) == 1:
        return [data.as_in_context(ctx_list[0])]
    slices = split_data(data, len(ctx_list), batch_axis, even_split)
    return [i.as_in_context(ctx) for i, ctx in zip(slices, ctx_list)]


def clip_global_norm(arrays, max_norm: float, check_isfinite: bool = True):
    """Rescale arrays in place so their joint 2-norm is at most max_norm; returns the norm."""
    total = float(np.sqrt(sum(float((a.asnumpy().astype(np.float64) ** 2).sum()) for a in arrays)))
    if check_isfinite and not np.isfinite(total):
        import warnings

        warnings.warn(
            UserWarning("nan or inf is detected. Clipping results will be undefined."), stacklevel=2
        )
    scale = max_norm / (total + 1e-8)
    if scale < 1.0:
        for arr in arrays:
            arr[:] = arr.asnumpy() * scale
    return total


class HookHandle:
    """Handle returned by register_forward_(pre_)hook; `detach()` removes the hook."""

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook) -> None:
        if self._hooks_dict_ref:
            raise AssertionError("The same handle cannot be attached twice.")
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self) -> None:
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref else None
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()
