"""Which MXNet names does real hybrid code use, and does the bundled engine have them?

The engine decides what ``--verify`` can prove, so its coverage is measured on the names the
pinned public model code (``packages.py``) really uses in its HybridBlocks: every attribute
chain rooted at the namespace parameter of ``hybrid_forward`` (``F.contrib.box_nms`` counts as
``mxnet.ndarray.contrib.box_nms`` and ``mxnet.symbol.contrib.box_nms``) or at an imported MXNet
module (``nn.Conv2D``, ``mx.nd.zeros``, ``gluon.rnn.LSTM``) in any method of a class that
defines ``hybrid_forward`` (``__init__`` builds the children the engine must run too).

Each use is resolved inside ``hybridlint.engine.as_mxnet()``: *resolved*, *missing* (MXNet
1.9.1 has it, the engine does not: ``NotImplementedError``) or *not MXNet* (MXNet 1.9.1 lacks it
too; not counted). Prints the share of uses resolved and the most used missing names.

    python benchmarks/realworld/names.py [--top 40]
"""

from __future__ import annotations

import argparse
import ast
import collections
import importlib
import os
import sys
import types
from typing import Dict, Iterator, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from packages import DEFAULT_CACHE, PACKAGES, fetch  # noqa: E402

NAMESPACES = ("mxnet.ndarray", "mxnet.symbol")


def _chain(node: ast.expr) -> Optional[List[str]]:
    """``a.b.c`` -> ["a", "b", "c"]; None for anything that is not a dotted name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return parts[::-1]
    return None


def _mxnet_imports(tree: ast.Module) -> Dict[str, str]:
    """Local name -> the MXNet module or object it is bound to by an import in this file."""
    bound = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "mxnet" or alias.name.startswith("mxnet."):
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[alias.name.split(".")[0]] = "mxnet"
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "mxnet" or node.module.startswith("mxnet."):
                for alias in node.names:
                    if alias.name != "*":
                        bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return bound


def _outermost_chains(function: ast.AST) -> Iterator[List[str]]:
    """Every maximal dotted chain in ``function`` (``F.contrib.x`` once, not also ``F.contrib``)."""
    inner = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute):
            inner.add(id(node.value))
    for node in ast.walk(function):
        if isinstance(node, (ast.Attribute, ast.Name)) and id(node) not in inner:
            chain = _chain(node)
            if chain and len(chain) > 1:
                yield chain


def uses_in_file(source: str) -> Iterator[Tuple[str, ...]]:
    """The qualified MXNet names one file's hybrid classes use, each as the alternatives."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    imports = _mxnet_imports(tree)
    for klass in ast.walk(tree):
        if not isinstance(klass, ast.ClassDef):
            continue
        methods = [n for n in klass.body if isinstance(n, ast.FunctionDef)]
        if not any(m.name == "hybrid_forward" for m in methods):
            continue
        for method in methods:
            args = method.args.args
            namespace = None
            if method.name == "hybrid_forward" and len(args) >= 2:
                namespace = args[1].arg
            for chain in _outermost_chains(method):
                root, rest = chain[0], chain[1:]
                if root == namespace:
                    yield tuple(".".join((ns, *rest)) for ns in NAMESPACES)
                elif root in imports:
                    yield (".".join((imports[root], *rest)),)


def resolve(name: str) -> str:
    """'resolved', 'missing' (MXNet has it, the engine not) or 'not_mxnet'."""
    parts = name.split(".")
    obj = importlib.import_module(parts[0])
    for index, part in enumerate(parts[1:], 1):
        try:
            obj = getattr(obj, part)
            continue
        except NotImplementedError:
            return "missing"
        except AttributeError:
            if not isinstance(obj, types.ModuleType):
                return "resolved"  # an attribute of an object MXNet and the engine have
        try:  # a submodule not imported yet
            obj = importlib.import_module(".".join(parts[: index + 1]))
        except NotImplementedError:
            return "missing"
        except ImportError:
            return "not_mxnet"
    return "resolved"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cache", default=DEFAULT_CACHE)
    parser.add_argument("--top", type=int, default=40, help="how many missing names to list")
    args = parser.parse_args(argv)
    roots = fetch(args.cache)

    import hybridlint.engine as engine

    uses: collections.Counter = collections.Counter()
    for package in PACKAGES:
        for folder, _, files in os.walk(roots[package.name]):
            for name in files:
                if name.endswith(".py"):
                    with open(
                        os.path.join(folder, name), encoding="utf-8", errors="replace"
                    ) as handle:
                        uses.update(uses_in_file(handle.read()))

    verdicts = collections.Counter()
    missing: collections.Counter = collections.Counter()
    with engine.as_mxnet():
        cache: Dict[str, str] = {}
        for alternatives, count in uses.items():
            results = [cache.setdefault(a, resolve(a)) for a in alternatives]
            # F.x works when the op exists in the namespace the code runs in: both are needed.
            if all(r == "resolved" for r in results):
                verdict = "resolved"
            elif any(r == "missing" for r in results):
                verdict = "missing"
            else:
                verdict = "not_mxnet"
            verdicts[verdict] += count
            if verdict == "missing":
                missing[alternatives[0]] += count
    counted = verdicts["resolved"] + verdicts["missing"]
    print(
        f"name uses in hybrid classes: {sum(uses.values())} "
        f"({len(uses)} distinct); not MXNet names: {verdicts['not_mxnet']}"
    )
    print(
        f"resolved by the engine: {verdicts['resolved']} of {counted} "
        f"({100.0 * verdicts['resolved'] / max(counted, 1):.1f}%)"
    )
    print(f"missing names ({len(missing)} distinct), most used first:")
    for name, count in missing.most_common(args.top):
        print(f"  {count:5d}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
