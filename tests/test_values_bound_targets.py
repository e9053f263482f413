"""`values.bound_targets`: the one list of Python's binding forms that `_instances` reads (a
constructor parameter rebound in `__init__`, an attribute written anywhere in a class)."""

import libcst as cst
import pytest

from hybridlint.rules.values import bound_targets, target_names, walk_nodes


def _bound(source: str):
    module = cst.parse_module(source)
    return sorted(
        name
        for node in walk_nodes(module)
        for target in bound_targets(node)
        for name in target_names(target)
    )


@pytest.mark.parametrize(
    "source, names",
    [
        ("a = b = c\n", ["a", "b"]),
        ("a, (b, *c) = x\n", ["a", "b", "c"]),
        ("a += 1\n", ["a"]),
        ("a: int = 1\n", ["a"]),
        ("(a := 1)\n", ["a"]),
        ("for a, b in x: pass\n", ["a", "b"]),
        ("[0 for a in x]\n", ["a"]),
        ("del a, b\n", ["a", "b"]),
        ("with f() as (a, b): pass\n", ["a", "b"]),
        ("try: pass\nexcept E as a: pass\n", ["a"]),
        ("import m as a\nfrom m import n as b\n", ["a", "b"]),
        ("def f():\n    global a\n    nonlocal b\n", ["a", "b", "f"]),
        ("class C: pass\n", ["C"]),
        ("f(a)\nx.y\nimport m\n", []),  # reads, and a bare import (not listed)
    ],
)
def test_names_each_binding_form_binds(source, names):
    assert _bound(source) == names


def test_attribute_targets_stay_attributes():
    module = cst.parse_module("self.a, b = x\n")
    targets = [t for node in walk_nodes(module) for t in bound_targets(node)]
    assert [cst.Module([]).code_for_node(t) for t in targets] == ["self.a, b"]
