"""Regenerate `engine/_mxnet_names.py`: the names real MXNet 1.9.1 has, per module.

Why: under `hybridlint.engine.as_mxnet()` an attribute the engine lacks must fail in one of two
ways. If MXNet has it too, the engine is merely incomplete (NotImplementedError: the checker
says "cannot verify"); if MXNet lacks it as well (`mx.gluon.nn.Pool2D` from an old tutorial,
`F.array` under hybridize), the user's code is broken and must get MXNet's own AttributeError
(the checker says "eager_error"). Telling the two apart needs MXNet's name lists, and the
checker runs where MXNet is not installed, so they are stored as data.

Usage (needs real MXNet 1.9.1 installed; run from the repository root)::

    /tmp/mxv/bin/python tools/gen_mxnet_names.py            # writes engine/_mxnet_names.py
    /tmp/mxv/bin/python tools/gen_mxnet_names.py --check    # exit 1 if the file is stale

Lists, per module, every attribute `dir()` shows except dunder names (private names such as
`_internal` included: user code reaches `F._internal._plus`), and every importable module name of
the `mxnet` package (`pkgutil.walk_packages`), and, for the operator namespaces (`mx.nd`, `mx.sym`
and their `contrib`, `linalg`, `random` submodules), which public names are functions (callables
that are neither classes nor modules): rules/_mxnet_ops.py reads them to tell `F.<op>` that works
in both modes from `F.<op>` that exists only in `mx.nd` (HL015).
"""

from __future__ import annotations

import argparse
import importlib
import os
import inspect
import pkgutil
import sys
import textwrap
import warnings

# Modules the compat proxy serves that exist in MXNet (named by MXNet's own `__name__`:
# `mxnet.init` is `mxnet.initializer`, `mxnet.nd` is `mxnet.ndarray`).
MODULES = [
    "mxnet",
    "mxnet.autograd",
    "mxnet.base",
    "mxnet.context",
    "mxnet.executor",
    "mxnet.initializer",
    "mxnet.name",
    "mxnet.random",
    "mxnet.ndarray",
    "mxnet.ndarray.contrib",
    "mxnet.ndarray.linalg",
    "mxnet.ndarray.random",
    "mxnet.ndarray.op",
    "mxnet.ndarray._internal",
    "mxnet.ndarray.ndarray",
    "mxnet.symbol",
    "mxnet.symbol.contrib",
    "mxnet.symbol.linalg",
    "mxnet.symbol.random",
    "mxnet.symbol.op",
    "mxnet.symbol._internal",
    "mxnet.symbol.symbol",
    "mxnet.gluon",
    "mxnet.gluon.block",
    "mxnet.gluon.parameter",
    "mxnet.gluon.utils",
    "mxnet.gluon.loss",
    "mxnet.gluon.nn",
    "mxnet.gluon.nn.activations",
    "mxnet.gluon.nn.basic_layers",
    "mxnet.gluon.nn.conv_layers",
    "mxnet.gluon.rnn",
    "mxnet.gluon.rnn.rnn_cell",
    "mxnet.gluon.contrib",
    "mxnet.gluon.contrib.nn",
    "mxnet.gluon.contrib.nn.basic_layers",
]

# The operator namespaces whose public functions FUNCTIONS lists (a subset of MODULES).
FUNCTION_MODULES = [
    "mxnet.ndarray",
    "mxnet.ndarray.contrib",
    "mxnet.ndarray.linalg",
    "mxnet.ndarray.random",
    "mxnet.symbol",
    "mxnet.symbol.contrib",
    "mxnet.symbol.linalg",
    "mxnet.symbol.random",
]

TARGET = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "engine", "_mxnet_names.py"
)


def _is_function(value) -> bool:
    return callable(value) and not inspect.isclass(value) and not inspect.ismodule(value)


def collect():
    """(version, {module: sorted names}, sorted module names, {module: sorted public function
    names}) from the installed MXNet."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import mxnet

        # import every module first: a parent's dir() grows as its submodules are imported
        loaded = [importlib.import_module(module_name) for module_name in MODULES]
        names = {}
        for module_name, module in zip(MODULES, loaded):
            assert module.__name__ == module_name, (module_name, module.__name__)
            names[module_name] = sorted(
                n for n in dir(module) if not (n.startswith("__") and n.endswith("__"))
            )
        functions = {
            module_name: sorted(
                n
                for n in names[module_name]
                if not n.startswith("_") and _is_function(getattr(module, n))
            )
            for module_name, module in zip(MODULES, loaded)
            if module_name in FUNCTION_MODULES
        }
        failed = []  # a package that fails to import hides its submodules: refuse to write
        modules = sorted(
            {"mxnet"}
            | {
                name
                for _, name, _ in pkgutil.walk_packages(
                    mxnet.__path__, "mxnet.", onerror=failed.append
                )
            }
        )
        if failed:
            sys.exit("cannot list the submodules of %s: install what they import" % failed)
    return mxnet.__version__, names, modules, functions


def _frozenset(names, indent: str) -> str:
    body = textwrap.fill(
        " ".join(names),
        width=96,
        initial_indent=indent,
        subsequent_indent=indent,
        break_on_hyphens=False,
        break_long_words=False,
    )
    return 'frozenset("""\n' + body + '\n""".split())'


def render(version, names, modules, functions) -> str:
    out = [
        '"""Names real MXNet %s has, per module (generated by tools/gen_mxnet_names.py; do not edit).'
        % version,
        "",
        "NAMES: for each module the compat proxy serves, every attribute of MXNet's module (dunder",
        "names left out). MODULES: every importable module of the `mxnet` package. engine/compat.py",
        "reads them to raise MXNet's own AttributeError / ModuleNotFoundError for names MXNet lacks",
        "too, and NotImplementedError only for what MXNet has and the engine does not. FUNCTIONS: for",
        "the operator namespaces, the public names that are functions (not classes or modules);",
        "rules/_mxnet_ops.py reads them (which `F.<op>` exists only in mx.nd).",
        '"""',
        "",
        "VERSION = %r" % version,
        "",
        "NAMES = {",
    ]
    for module_name, module_names in names.items():
        out.append("    %r: %s," % (module_name, _frozenset(module_names, "    ")))
    out.append("}")
    out.append("")
    out.append("MODULES = " + _frozenset(modules, ""))
    out.append("")
    out.append("FUNCTIONS = {")
    for module_name, module_names in functions.items():
        out.append("    %r: %s," % (module_name, _frozenset(module_names, "    ")))
    out.append("}")
    return "\n".join(out) + "\n"


def _data(text: str):
    namespace: dict = {}
    exec(compile(text, TARGET, "exec"), namespace)
    return {k: v for k, v in namespace.items() if k in ("VERSION", "NAMES", "MODULES", "FUNCTIONS")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare with the stored file")
    args = parser.parse_args()
    text = render(*collect())
    if args.check:  # the data, not the text: the stored file is `ruff format`ted
        with open(TARGET, encoding="utf-8") as handle:
            stale = _data(handle.read()) != _data(text)
        print("stale" if stale else "up to date")
        sys.exit(1 if stale else 0)
    with open(TARGET, "w", encoding="utf-8") as handle:
        handle.write(text)
    print("wrote", TARGET, "(run `ruff format` on it)")


if __name__ == "__main__":
    main()
