"""`gluon.ParameterDict`: the prefix-named, shareable collection of a Block's Parameters,
with MXNet 1.9.1's get/get_constant checks, initialize, and legacy save/load by full name."""

from collections import OrderedDict
from typing import Any, Iterator, Mapping, Optional, Union, cast

import numpy as np

from .. import initializer
from .parameter import Constant, Parameter, _check
from .utils import _brief_print_list, _indent

__all__ = ["ParameterDict"]


class ParameterDict:
    """Ordered name -> Parameter map with a shared prefix and optional sharing source."""

    def __init__(self, prefix: str = "", shared: Optional["ParameterDict"] = None):
        self._prefix = prefix
        self._params: "OrderedDict[str, Parameter]" = OrderedDict()
        self._shared = shared

    def __repr__(self) -> str:
        name = self._prefix + " " if self._prefix else ""
        return "{name}(\n{content}\n)".format(
            name=name, content="\n".join([_indent("  {0}".format(v), 2) for v in self.values()])
        )

    def __getitem__(self, key: str) -> Parameter:
        return self._params[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._params)

    def __len__(self) -> int:
        return len(self._params)

    def __contains__(self, key) -> bool:
        return key in self._params

    def items(self):
        return self._params.items()

    def keys(self):
        return self._params.keys()

    def values(self):
        return self._params.values()

    @property
    def prefix(self) -> str:
        return self._prefix

    def _get_impl(self, name: str) -> Optional[Parameter]:
        if name in self._params:
            return self._params[name]
        if self._shared is not None and name in self._shared._params:
            self._params[name] = self._shared._params[name]
            return self._shared._params[name]
        return None

    def get(self, name: str, **kwargs: Any) -> Parameter:
        """The Parameter `prefix + name`, created with kwargs if absent (else checked)."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            param = Parameter(name, **kwargs)
            self._params[name] = param
            return param
        for k, v in kwargs.items():
            if hasattr(param, k) and getattr(param, k) is not None:
                existing = getattr(param, k)
                if k == "shape" and len(v) == len(existing):
                    inferred, matched = [], True
                    for dim1, dim2 in zip(v, existing):
                        if dim1 != dim2 and dim1 > 0 and dim2 > 0:
                            matched = False
                            break
                        inferred.append(dim2 if dim1 in (0, -1) else dim1)
                    if matched:
                        param._shape = tuple(inferred)
                        continue
                elif k == "dtype" and np.dtype(v) == np.dtype(existing):
                    continue
                _check(
                    v is None or v == existing,
                    "Cannot retrieve Parameter '%s' because desired attribute does not "
                    "match with stored for attribute '%s': desired '%s' vs stored '%s'."
                    % (name, k, str(v), str(getattr(param, k))),
                )
            else:
                setattr(param, k, v)
        return param

    def get_constant(self, name: str, value=None) -> Parameter:
        """The Constant `prefix + name`, created from value if absent."""
        name = self.prefix + name
        param = self._get_impl(name)
        if param is None:
            if value is None:
                raise KeyError(
                    "No constant named '{}'. Please specify value if you want to "
                    "create a new constant.".format(name)
                )
            param = Constant(name, value)
            self._params[name] = param
        elif value is not None:
            _check(
                isinstance(param, Constant),
                "Parameter '{}' already exists but it is not a constant.".format(name),
            )
            if hasattr(value, "asnumpy"):
                value = value.asnumpy()
            value = np.asarray(value)
            _check(
                tuple(param.shape) == value.shape
                and bool((cast(Constant, param).value.asnumpy() == value).all()),
                "Constant '{}' already exists but it's value doesn't match new value".format(name),
            )
        return param

    def update(self, other: "Union[ParameterDict, Mapping[str, Parameter]]") -> None:
        for k, v in other.items():
            if k in self._params:
                _check(
                    self._params[k] is v,
                    "Cannot update self with other because they have different Parameters "
                    "with the same name '%s'" % k,
                )
        for k, v in other.items():
            self._params[k] = v

    def initialize(
        self, init=None, ctx=None, verbose: bool = False, force_reinit: bool = False
    ) -> None:
        """Initialise every parameter; `init` is the default for those without their own."""
        if init is None:
            init = initializer.Uniform()
        if verbose:
            init.set_verbosity(verbose=verbose)
        for _, v in self.items():
            v.initialize(None, ctx, init, force_reinit=force_reinit)

    def zero_grad(self) -> None:
        for i in self.values():
            i.zero_grad()

    def reset_ctx(self, ctx) -> None:
        for i in self.values():
            i.reset_ctx(ctx)

    def list_ctx(self) -> list:
        seen = []
        for i in self.values():
            for c in i.list_ctx():
                if c not in seen:
                    seen.append(c)
        return seen

    def setattr(self, name: str, value) -> None:
        """Set one attribute (e.g. grad_req) on every parameter."""
        for i in self.values():
            setattr(i, name, value)

    def save(self, filename: str, strip_prefix: str = "") -> None:
        """Save values under their full names minus `strip_prefix` (MXNet's legacy format)."""
        arg_dict = {}
        for param in self.values():
            weight = param._reduce()
            if not param.name.startswith(strip_prefix):
                raise ValueError(
                    "Prefix '%s' is to be striped before saving, but Parameter's name '%s' "
                    "does not start with '%s'. this may be due to your Block shares "
                    "parameters from other Blocks or you forgot to use 'with name_scope()' "
                    "when creating child blocks. For more info on naming, please see "
                    "https://mxnet.io/api/python/docs/tutorials/packages/gluon/blocks/"
                    "naming.html" % (strip_prefix, param.name, strip_prefix)
                )
            arg_dict[param.name[len(strip_prefix) :]] = weight
        from .. import serialization

        serialization.save(filename, arg_dict)

    def load(
        self,
        filename: str,
        ctx=None,
        allow_missing: bool = False,
        ignore_extra: bool = False,
        restore_prefix: str = "",
        cast_dtype: bool = False,
        dtype_source: str = "current",
    ) -> None:
        """Load values saved by `save` or `export` (`arg:`/`aux:` prefixes are dropped)."""
        if restore_prefix:
            for name in self.keys():
                _check(
                    name.startswith(restore_prefix),
                    "restore_prefix is '%s' but Parameters name '%s' does not start with "
                    "'%s'" % (restore_prefix, name, restore_prefix),
                )
        from .. import serialization

        loaded = serialization.load(filename)
        self.load_dict(
            loaded,
            ctx,
            allow_missing,
            ignore_extra,
            restore_prefix,
            filename,
            cast_dtype,
            dtype_source,
        )

    def load_dict(
        self,
        param_dict,
        ctx=None,
        allow_missing: bool = False,
        ignore_extra: bool = False,
        restore_prefix: str = "",
        filename=None,
        cast_dtype: bool = False,
        dtype_source: str = "current",
    ) -> None:
        """Load values from a name -> NDArray dict."""
        lprefix = len(restore_prefix)
        # As MXNet: a non-dict (nd.load of a file with no names, e.g. the export of a block
        # without parameters, gives []) is used as a list of (name, array) pairs.
        loaded = (
            [(k[4:] if k.startswith(("arg:", "aux:")) else k, v) for k, v in param_dict.items()]
            if isinstance(param_dict, dict)
            else param_dict
        )
        arg_dict = {restore_prefix + k: v for k, v in loaded}
        error_str = "file: %s" % (filename) if filename else "param_dict"
        if not allow_missing:
            for name in self.keys():
                _check(
                    name in arg_dict,
                    "Parameter '%s' is missing in %s, which contains parameters: %s. Please "
                    "make sure source and target networks have the same prefix.For more info "
                    "on naming, please see https://mxnet.io/api/python/docs/tutorials/"
                    "packages/gluon/blocks/naming.html"
                    % (name[lprefix:], error_str, _brief_print_list(arg_dict.keys())),
                )
        for name in arg_dict:
            if name not in self._params:
                _check(
                    ignore_extra,
                    "Parameter '%s' loaded from %s is not present in ParameterDict, choices "
                    "are: %s. Set ignore_extra to True to ignore. Please make sure source "
                    "and target networks have the same prefix.For more info on naming, "
                    "please see https://mxnet.io/api/python/docs/tutorials/packages/gluon/"
                    "blocks/naming.html"
                    % (name[lprefix:], error_str, _brief_print_list(self._params.keys())),
                )
                continue
            self[name]._load_init(
                arg_dict[name], ctx, cast_dtype=cast_dtype, dtype_source=dtype_source
            )
