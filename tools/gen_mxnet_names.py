"""Regenerate `hybridlint/mxnet_names.py`: the names real MXNet 1.9.1 has, per module.

Why: under `hybridlint.engine.as_mxnet()` an attribute the engine lacks must fail in one of two
ways. If MXNet has it too, the engine is merely incomplete (NotImplementedError: the checker
says "cannot verify"); if MXNet lacks it as well (`mx.gluon.nn.Pool2D` from an old tutorial,
`F.array` under hybridize), the user's code is broken and must get MXNet's own AttributeError
(the checker says "eager_error"). Telling the two apart needs MXNet's name lists, and the
checker runs where MXNet is not installed, so they are stored as data.

Usage (needs real MXNet 1.9.1 installed; run from the repository root)::

    /tmp/mxv/bin/python tools/gen_mxnet_names.py            # writes hybridlint/mxnet_names.py
    /tmp/mxv/bin/python tools/gen_mxnet_names.py --check    # exit 1 if the file is stale

Lists, per module, every attribute `dir()` shows except dunder names (private names such as
`_internal` included: user code reaches `F._internal._plus`), and every importable module name of
the `mxnet` package (`pkgutil.walk_packages`), and, for the operator namespaces (`mx.nd`, `mx.sym`
and their `contrib`, `linalg`, `random` submodules), which public names are functions (callables
that are neither classes nor modules): hybridlint/mxnet_facts.py reads them to tell `F.<op>` that
works in both modes from `F.<op>` that exists only in `mx.nd` (HL015); the public attributes of
`NDArray` and `Symbol` (which method a tensor has in which mode); and every operator of MXNet's
registry (`MXListAllOpNames`, `_backward_*` left out) with its argument names in MXNet's order
(`MXSymbolGetAtomicSymbolInfo`: inputs first, then parameters, for all but a few), so that a
hand-kept fact naming an operator or one of its parameters is checked against MXNet itself
(tests/test_mxnet_facts.py); and which of those arguments MXNet declares arrays
(`NDArray-or-Symbol`): the others are attributes, Python values (HL018 reads them).

The file lives in `hybridlint/`, not in the engine: the linter reads it without loading the engine,
the engine's compat proxy reads it too, and the result cache's key covers it (it hashes
`hybridlint/`'s sources, the engine excluded).
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import inspect
import os
import pkgutil
import sys
import textwrap
import warnings
from typing import Set

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
    "mxnet.gluon.contrib.rnn",
    "mxnet.gluon.contrib.rnn.rnn_cell",
    "mxnet.gluon.contrib.cnn",
    "mxnet.gluon.contrib.cnn.conv_layers",
]

# The operator namespaces whose public functions FUNCTIONS lists (image and sparse only here: the
# engine has no such modules, so NAMES, which the compat proxy reads, leaves them out).
FUNCTION_MODULES = [
    "mxnet.ndarray",
    "mxnet.ndarray.contrib",
    "mxnet.ndarray.linalg",
    "mxnet.ndarray.random",
    "mxnet.ndarray.image",
    "mxnet.ndarray.sparse",
    "mxnet.symbol",
    "mxnet.symbol.contrib",
    "mxnet.symbol.linalg",
    "mxnet.symbol.random",
    "mxnet.symbol.image",
    "mxnet.symbol.sparse",
]

# The tensor classes whose public attributes ATTRIBUTES lists: (key, module, class name).
CLASSES = [("NDArray", "mxnet.ndarray", "NDArray"), ("Symbol", "mxnet.symbol", "Symbol")]

# The Gluon modules whose Block classes BLOCKS sorts into HybridBlocks and plain Blocks (by
# issubclass under MXNet). gluon.contrib.rnn and contrib.cnn are not listed (yet): the rules
# never assumed their classes' kind.
BLOCK_MODULES = ["mxnet.gluon", "mxnet.gluon.nn", "mxnet.gluon.rnn", "mxnet.gluon.contrib.nn"]

TARGET = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "hybridlint", "mxnet_names.py"
)
_KEYS = (
    "VERSION",
    "NAMES",
    "MODULES",
    "FUNCTIONS",
    "ATTRIBUTES",
    "BLOCKS",
    "OPERATORS",
    "SIGNATURES",
    "ARRAY_ARGUMENTS",
    "OPTIMIZERS",
    "OPTIMIZER_KEYWORDS",
    "LAYER_PARAMETERS",
)


def _is_function(value) -> bool:
    return callable(value) and not inspect.isclass(value) and not inspect.ismodule(value)


# MXNet's declared types of an operator's array arguments (its inputs); every other declared type
# (`int, required`, `Shape(tuple)`, `boolean`, ...) is an attribute, passed as a string.
_ARRAY_TYPES = (
    "NDArray-or-Symbol",
    "NDArray-or-Symbol[]",
    "Symbol",
    "Symbol or Symbol[]",
    "NDArray",
)


def _operators():
    """({operator name: its argument names}, {operator name: its array arguments}) for every
    operator of MXNet's registry but the `_backward_*` ones (aliases included: `sum_axis` is
    `sum`). An argument's kind is its declared type (`MXSymbolGetAtomicSymbolInfo`): an array
    (`NDArray-or-Symbol`) or an attribute (`int, required`, ...), which is what a rule needs to
    tell that `F.one_hot(x, depth=units)` takes `units` as a Python value, not an array."""
    from mxnet.base import _LIB, OpHandle, c_str, check_call, mx_uint, py_str

    strings = ctypes.POINTER(ctypes.c_char_p)
    listed, size = strings(), mx_uint()
    check_call(_LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(listed)))
    operators, arrays = {}, {}
    for name in sorted(py_str(listed[i]) for i in range(size.value)):
        if name.startswith("_backward_"):
            continue
        handle = OpHandle()
        check_call(_LIB.NNGetOpHandle(c_str(name), ctypes.byref(handle)))
        real, doc, key_var, ret = (ctypes.c_char_p() for _ in range(4))
        count, names, types, docs = mx_uint(), strings(), strings(), strings()
        check_call(
            _LIB.MXSymbolGetAtomicSymbolInfo(
                handle,
                *map(ctypes.byref, (real, doc, count, names, types, docs, key_var, ret)),
            )
        )
        operators[name] = tuple(py_str(names[i]) for i in range(count.value))
        arrays[name] = tuple(
            py_str(names[i])
            for i in range(count.value)
            if py_str(types[i]).split(",")[0].strip() in _ARRAY_TYPES
        )
    return operators, arrays


def _parameters(function):
    """A Python function's parameter names in order, `**kwargs` written with its stars."""
    kinds = inspect.Parameter
    return tuple(
        ("**" if p.kind is kinds.VAR_KEYWORD else "*" if p.kind is kinds.VAR_POSITIONAL else "")
        + p.name
        for p in inspect.signature(function).parameters.values()
    )


def _signatures(functions, operators):
    """{name: (mx.nd's parameters, mx.sym's)} for the functions of both top-level namespaces that
    Python defines (no registry operator of that name): their two signatures may differ."""
    import mxnet

    shared = set(functions["mxnet.ndarray"]) & set(functions["mxnet.symbol"])
    return {
        name: (_parameters(getattr(mxnet.nd, name)), _parameters(getattr(mxnet.sym, name)))
        for name in sorted(shared - set(operators))
    }


def _keywords(function) -> Set[str]:
    return {
        p
        for p, parameter in inspect.signature(function).parameters.items()
        if p != "self" and parameter.kind is not inspect.Parameter.VAR_KEYWORD
    }


def _optimizers(mxnet):
    """({registered optimizer name: (its default learning rate, the keyword arguments its
    constructor takes beyond the base Optimizer's)}, the base Optimizer's keyword arguments):
    what `gluon.Trainer(params, name, optimizer_params)` checks when it builds the optimizer."""
    base = mxnet.optimizer.Optimizer
    shared = _keywords(base.__init__)
    table = {}
    for name, cls in sorted(base.opt_registry.items()):
        keywords: Set[str] = set()
        for klass in cls.__mro__:
            if klass is not base and klass is not object and issubclass(klass, base):
                keywords |= _keywords(klass.__init__)
        try:
            default = cls()
        except TypeError:  # contrib's _SVRGOptimizer needs its default_optimizer: not listed
            continue
        table[name] = (float(default.lr), tuple(sorted(keywords - shared)))
    return table, tuple(sorted(shared))


def _layer_parameters(hybrid_classes):
    """{HybridBlock class of BLOCK_MODULES (by name): the Parameters it registers (what its
    hybrid_forward receives by name)}, each built with the fewest positional arguments of 1 it
    takes (an RNN layer's names are then those of one layer); classes that register none, or
    that no such call builds, are left out."""
    table = {}
    for name, cls in sorted(hybrid_classes.items()):
        for count in range(5):
            try:
                block = cls(*([1] * count))
            except Exception:  # noqa: BLE001 - any refusal: try one argument more
                continue
            if block._reg_params:
                table[name] = tuple(block._reg_params)
            break
    return table


def collect():
    """(version, {module: sorted names}, sorted module names, {module: sorted public function
    names}, {class: sorted public attribute names}, {"hybrid"/"plain": Gluon Block class names},
    {operator: argument names}, {Python-defined function: (nd parameters, sym parameters)},
    {operator: array argument names}, {optimizer: (default learning rate, own keywords)}, the base
    Optimizer's keywords, {Gluon layer: its Parameters}) from the installed MXNet."""
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
        functions = {}
        for module_name in FUNCTION_MODULES:
            module = importlib.import_module(module_name)
            functions[module_name] = sorted(
                n for n in dir(module) if not n.startswith("_") and _is_function(getattr(module, n))
            )
        attributes = {
            key: sorted(
                n for n in dir(getattr(importlib.import_module(module), cls)) if n[0] != "_"
            )
            for key, module, cls in CLASSES
        }
        blocks = {"hybrid": set(), "plain": set()}
        hybrid_classes = {}  # name -> the class its first module gives
        for module_name in BLOCK_MODULES:
            module = importlib.import_module(module_name)
            for name in dir(module):
                value = getattr(module, name)
                if inspect.isclass(value) and issubclass(value, mxnet.gluon.Block):
                    hybrid = issubclass(value, mxnet.gluon.HybridBlock)
                    blocks["hybrid" if hybrid else "plain"].add(name)
                    if hybrid:
                        hybrid_classes.setdefault(name, value)
        blocks = {kind: sorted(kind_names) for kind, kind_names in blocks.items()}
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
        optimizers, optimizer_keywords = _optimizers(mxnet)
        layer_parameters = _layer_parameters(hybrid_classes)
    operators, arrays = _operators()
    signatures = _signatures(functions, operators)
    return (
        mxnet.__version__,
        names,
        modules,
        functions,
        attributes,
        blocks,
        operators,
        signatures,
        arrays,
        optimizers,
        optimizer_keywords,
        layer_parameters,
    )


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


def render(
    version,
    names,
    modules,
    functions,
    attributes,
    blocks,
    operators,
    signatures,
    arrays,
    optimizers,
    optimizer_keywords,
    layer_parameters,
) -> str:
    out = [
        '"""Names real MXNet %s has (generated by tools/gen_mxnet_names.py; do not edit).'
        % version,
        "",
        "NAMES: for each module the compat proxy serves, every attribute of MXNet's module (dunder",
        "names left out). MODULES: every importable module of the `mxnet` package. engine/compat.py",
        "reads them to raise MXNet's own AttributeError / ModuleNotFoundError for names MXNet lacks",
        "too, and NotImplementedError only for what MXNet has and the engine does not. FUNCTIONS: for",
        "the operator namespaces, the public names that are functions (not classes or modules).",
        "ATTRIBUTES: the public attributes of NDArray and Symbol. BLOCKS: the Block classes of",
        "gluon, gluon.nn, gluon.rnn and gluon.contrib.nn, hybrid or plain. OPERATORS: every operator of",
        "MXNet's registry (`_backward_*` left out) and its argument names, inputs first (mostly).",
        "ARRAY_ARGUMENTS: per operator, its arguments MXNet declares arrays (NDArray-or-Symbol);",
        "the others are attributes, which take Python values (`depth` of one_hot).",
        "SIGNATURES: the Python-defined functions of both mx.nd and mx.sym, each namespace's parameters.",
        "OPTIMIZERS: each registered optimizer's default learning rate and the keyword arguments its",
        "constructor takes beyond the base Optimizer's, OPTIMIZER_KEYWORDS (the engine's",
        "gluon.Trainer checks them as MXNet does). LAYER_PARAMETERS:",
        "the Parameters each Gluon layer registers, which its hybrid_forward receives by name.",
        "hybridlint/mxnet_facts.py derives what rules need from them and holds the facts MXNet",
        "cannot list (which operator keeps its input's shape), checked against these names.",
        '"""',
        "",
        "from typing import Dict, FrozenSet, Tuple",
        "",
        "VERSION = %r" % version,
        "",
        "NAMES: Dict[str, FrozenSet[str]] = {",
    ]
    for module_name, module_names in names.items():
        out.append("    %r: %s," % (module_name, _frozenset(module_names, "    ")))
    out.append("}")
    out.append("")
    out.append("MODULES: FrozenSet[str] = " + _frozenset(modules, ""))
    out.append("")
    for title, table in (("FUNCTIONS", functions), ("ATTRIBUTES", attributes), ("BLOCKS", blocks)):
        out.append("%s: Dict[str, FrozenSet[str]] = {" % title)
        for key, key_names in table.items():
            out.append("    %r: %s," % (key, _frozenset(key_names, "    ")))
        out.append("}")
        out.append("")
    out.append("OPERATORS: Dict[str, Tuple[str, ...]] = {")
    for name, arguments in operators.items():
        out.append("    %r: %r," % (name, tuple(arguments)))
    out.append("}")
    out.append("")
    out.append("SIGNATURES: Dict[str, Tuple[Tuple[str, ...], Tuple[str, ...]]] = {")
    for name, pair in signatures.items():
        out.append("    %r: %r," % (name, pair))
    out.append("}")
    out.append("")
    out.append("ARRAY_ARGUMENTS: Dict[str, Tuple[str, ...]] = {")
    for name, array_names in arrays.items():
        out.append("    %r: %r," % (name, tuple(array_names)))
    out.append("}")
    out.append("")
    out.append("OPTIMIZER_KEYWORDS: Tuple[str, ...] = %r" % (optimizer_keywords,))
    out.append("OPTIMIZERS: Dict[str, Tuple[float, Tuple[str, ...]]] = {")
    for name, pair in optimizers.items():
        out.append("    %r: %r," % (name, pair))
    out.append("}")
    out.append("")
    out.append("LAYER_PARAMETERS: Dict[str, Tuple[str, ...]] = {")
    for name, parameter_names in layer_parameters.items():
        out.append("    %r: %r," % (name, parameter_names))
    out.append("}")
    return "\n".join(out) + "\n"


def _data(text: str):
    namespace: dict = {}
    exec(compile(text, TARGET, "exec"), namespace)
    return {k: v for k, v in namespace.items() if k in _KEYS}


def stale(stored: str) -> bool:
    """Whether the stored file's data differs from the installed MXNet's (the text may differ:
    the stored file is `ruff format`ted)."""
    return _data(stored) != _data(render(*collect()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only compare with the stored file")
    args = parser.parse_args()
    if args.check:
        with open(TARGET, encoding="utf-8") as handle:
            is_stale = stale(handle.read())
        print("stale" if is_stale else "up to date")
        sys.exit(1 if is_stale else 0)
    text = render(*collect())  # before opening: a failure must not leave the file empty
    with open(TARGET, "w", encoding="utf-8") as handle:
        handle.write(text)
    print("wrote", TARGET, "(run `ruff format` on it)")


if __name__ == "__main__":
    main()
